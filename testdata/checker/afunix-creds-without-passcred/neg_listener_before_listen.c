// SO_PASSCRED on the listener before listen(): accepted sockets inherit it (3.12+), so the
// credentials read on the accepted socket arrive.
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int has_creds(struct msghdr *msg) {
  for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c))
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS)
      return 1;
  return 0;
}

int serve(void) {
  int lfd = socket(AF_UNIX, SOCK_STREAM, 0);
  int one = 1;
  setsockopt(lfd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
  listen(lfd, 8);
  for (;;) {
    int cfd = accept(lfd, NULL, NULL);
    char buf[32];
    char control[CMSG_SPACE(sizeof(struct ucred))];
    struct iovec iov = {buf, sizeof buf};
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
                         .msg_controllen = sizeof control};
    if (recvmsg(cfd, &msg, 0) > 0 && !has_creds(&msg))
      return -1;
    close(cfd);
  }
}
