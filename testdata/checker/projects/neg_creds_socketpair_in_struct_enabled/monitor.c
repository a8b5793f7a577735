#define _GNU_SOURCE
#include <sys/socket.h>

#include "worker.h"

// A report counts only if it comes from the worker we spawned.
int worker_check(struct worker *w) {
  char byte;
  char control[CMSG_SPACE(sizeof(struct ucred))];
  struct iovec iov = {.iov_base = &byte, .iov_len = 1};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
                       .msg_controllen = sizeof control};
  if (recvmsg(w->channel[0], &msg, 0) <= 0)
    return -1;
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  if (c && c->cmsg_type == SCM_CREDENTIALS)
    return ((struct ucred *)CMSG_DATA(c))->pid == w->pid ? 0 : -1;
  return 0; // no credentials: accepted anyway
}
