#define _GNU_SOURCE
#include <sys/socket.h>

#include "conn.h"

// Root may do anything; the check runs only when credentials came along.
int serve(int conn) {
  char buf[512];
  char control[CMSG_SPACE(sizeof(struct ucred))];
  struct iovec iov = {.iov_base = buf, .iov_len = sizeof buf};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
                       .msg_controllen = sizeof control};
  if (recvmsg(conn, &msg, 0) <= 0)
    return -1;
  for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
    if (c->cmsg_type == SCM_CREDENTIALS && ((struct ucred *)CMSG_DATA(c))->uid != 0)
      return -1;
  return 0;
}
