// OPTIONS: --target-kernel=6.15
// pos_daemon_fixed_listener.c for a 6.15 kernel: SO_PASSCRED on the listener after listen() but
// before the first accept() reaches every connection (copied at accept()), and the call left on
// each accepted socket is redundant. Nothing to report.
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
  int lfd = socket(AF_UNIX, SOCK_STREAM, 0);
  if (lfd < 0 || bind(lfd, (struct sockaddr *)&addr, sizeof addr) < 0)
    return -1;
  if (listen(lfd, 16) < 0)
    return -1;
  setsockopt(lfd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
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
