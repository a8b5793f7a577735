#define _GNU_SOURCE
#include <sys/socket.h>

#include "loop.h"

static int on_readable(int fd, void *ctx) {
  (void)ctx;
  char buf[128];
  char control[CMSG_SPACE(sizeof(struct ucred))];
  struct iovec iov = {buf, sizeof buf};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
                       .msg_controllen = sizeof control};
  if (recvmsg(fd, &msg, MSG_CMSG_CLOEXEC) <= 0) // EXPECT-NOTE: credentials are read here
    return -1;
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  return c && c->cmsg_type == SCM_CREDENTIALS ? 0 : 1;
}

static void on_closed(void *ctx) { (void)ctx; }

const struct handler_ops client_ops = {.readable = on_readable, .closed = on_closed};
