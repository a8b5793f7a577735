// neg_listener_after_listen_unread.c, but each connection is also passed with SCM_RIGHTS to a
// worker process, which may read SCM_CREDENTIALS from it: the listener's late option may lose
// them, so the finding stays.
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

static int worker = -1; // a socketpair() end shared with the worker process

static void pass_to_worker(int conn) {
  char byte = 0;
  struct iovec iov = {&byte, 1};
  union {
    struct cmsghdr align;
    char buf[CMSG_SPACE(sizeof(int))];
  } control;
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf, .msg_controllen = sizeof control.buf};
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(c), &conn, sizeof conn);
  sendmsg(worker, &msg, 0);
}

static void serve_client(int conn) {
  pass_to_worker(conn);
  struct ucred peer;
  socklen_t len = sizeof peer;
  if (getsockopt(conn, SOL_SOCKET, SO_PEERCRED, &peer, &len) == 0 && peer.uid == 0) {
    char line[256];
    while (read(conn, line, sizeof line) > 0)
      write(conn, "ok\n", 3);
  }
  close(conn);
}

int main(void) {
  int pair[2];
  socketpair(AF_UNIX, SOCK_STREAM, 0, pair);
  worker = pair[0];
  int listener = open_listener("/run/player.sock");
  int conn = accept(listener, NULL, NULL); // one client: the worker serves the rest
  if (conn >= 0)
    serve_client(conn);
  return 0;
}

// The fix-it (the late call and `one` move above listen()), as --fix applies it:
// EXPECT-FIXED: int one = 1;
// EXPECT-FIXED: setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
// EXPECT-FIXED: listen(fd, 16); // EXPECT-NOTE: listen() here
