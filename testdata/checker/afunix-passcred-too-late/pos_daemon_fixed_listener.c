// pos_accepted_socket.c's daemon fixed the way such daemons were fixed: SO_PASSCRED on the
// listener right after listen(), before the first accept(). Accepted sockets inherit it (copied at
// accept() on 3.12-6.15, so nothing is lost there), and the call left on each connection is
// redundant: no accepted-socket warning. Since 6.16 the flags are copied at connect(), so a client
// that connects between listen() and the option gets a socket without it: a note, at the
// listener's option only (neg_daemon_fixed_listener_kernel_6_15.c: nothing on 6.15).
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int peer_uid(int fd) {
  char buf[64];
  union {
    char b[CMSG_SPACE(sizeof(struct ucred))];
    struct cmsghdr align;
  } control;
  struct iovec iov = {.iov_base = buf, .iov_len = sizeof buf};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.b,
                       .msg_controllen = sizeof control.b};
  if (recvmsg(fd, &msg, 0) < 0)
    return -1;
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  if (!c || c->cmsg_type != SCM_CREDENTIALS)
    return -1;
  return (int)((struct ucred *)CMSG_DATA(c))->uid;
}

int serve(const char *path) {
  int one = 1;
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
  int lfd = socket(AF_UNIX, SOCK_STREAM, 0); // EXPECT-NOTE: socket created here
  if (lfd < 0 || bind(lfd, (struct sockaddr *)&addr, sizeof addr) < 0)
    return -1;
  if (listen(lfd, 16) < 0) // EXPECT-NOTE: listen() here
    return -1;
  setsockopt(lfd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one); // EXPECT: afunix-passcred-too-late EXPECT-SEVERITY: note EXPECT-MESSAGE: on listener 'lfd' after listen(), before any accept()
  for (;;) {
    int cfd = accept(lfd, NULL, NULL);
    if (cfd < 0)
      continue;
    setsockopt(cfd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
    if (peer_uid(cfd) == 0)
      write(cfd, "ok\n", 3);
    close(cfd);
  }
}

// The fix-it (the option uses `one`, declared before listen(): it moves), as --fix applies it:
// EXPECT-FIXED: setsockopt(lfd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
// EXPECT-FIXED: if (listen(lfd, 16) < 0) // EXPECT-NOTE: listen() here
