// neg_listener_after_listen_unread.c, but the program reads SCM_CREDENTIALS elsewhere (from a
// helper process over a socketpair()). The listener's connections are read with plain read(), yet
// the finding stays: the rule withholds it only where nothing in the program reads credentials,
// so that a connection the analysis loses track of cannot make a read look absent.
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int open_listener(const char *path) {
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path);
  bind(fd, (struct sockaddr *)&addr, sizeof addr);
  listen(fd, 16); // EXPECT-NOTE: listen() here
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one); // EXPECT: afunix-passcred-too-late:3 EXPECT-MESSAGE: after listen(), before any accept()
  return fd;
}

static void serve_client(int conn) {
  struct ucred peer;
  socklen_t len = sizeof peer;
  if (getsockopt(conn, SOL_SOCKET, SO_PEERCRED, &peer, &len) == 0 && peer.uid == 0) {
    char line[256];
    while (read(conn, line, sizeof line) > 0)
      write(conn, "ok\n", 3);
  }
  close(conn);
}

// The helper's uid, from the credentials of its hello.
static uid_t helper_uid(void) {
  int sv[2];
  socketpair(AF_UNIX, SOCK_DGRAM, 0, sv);
  int one = 1;
  setsockopt(sv[0], SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
  if (fork() == 0) {
    send(sv[1], "hi", 2, 0);
    _exit(0);
  }
  char data[8];
  union {
    struct cmsghdr align;
    char buf[CMSG_SPACE(sizeof(struct ucred))];
  } control;
  struct iovec iov = {data, sizeof data};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf, .msg_controllen = sizeof control.buf};
  if (recvmsg(sv[0], &msg, 0) <= 0)
    return (uid_t)-1;
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  if (!c || c->cmsg_type != SCM_CREDENTIALS)
    return (uid_t)-1;
  struct ucred cred;
  memcpy(&cred, CMSG_DATA(c), sizeof cred);
  return cred.uid;
}

int main(void) {
  if (helper_uid() != 0)
    return 1;
  int listener = open_listener("/run/player.sock");
  for (;;) {
    int conn = accept(listener, NULL, NULL);
    if (conn >= 0)
      serve_client(conn);
  }
}

// The fix-it (the late call and `one` move above listen()), as --fix applies it:
// EXPECT-FIXED: int one = 1;
// EXPECT-FIXED: setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
// EXPECT-FIXED: listen(fd, 16); // EXPECT-NOTE: listen() here
