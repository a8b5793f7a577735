#define _GNU_SOURCE
#include <sys/socket.h>

#include "serve.h"

// Refuses everybody but root; without credentials, refuses.
int serve(int conn) {
  char buf[512];
  char control[CMSG_SPACE(sizeof(struct ucred))];
  struct iovec iov = {.iov_base = buf, .iov_len = sizeof buf};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
                       .msg_controllen = sizeof control};
  if (recvmsg(conn, &msg, 0) <= 0) // EXPECT: afunix-creds-without-passcred EXPECT-MESSAGE: which systemd (broker.socket) creates EXPECT-SEVERITY: warning
    return -1;
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  if (!c || c->cmsg_type != SCM_CREDENTIALS)
    return -1;
  return ((struct ucred *)CMSG_DATA(c))->uid == 0 ? 0 : -1;
}
