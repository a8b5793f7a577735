#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>

#include "sender.h"

int sender_put(struct sender *s, int fd) {
  if (s->n >= SENDER_MAX)
    return -1;
  s->fds[s->n++] = fd;
  return 0;
}

int sender_flush(struct sender *s) {
  for (unsigned i = 0; i < s->n; i++) { // EXPECT-NOTE: every queued message sent in this loop, none waited for
    char byte = 0;
    char control[CMSG_SPACE(sizeof(int))];
    struct iovec iov = {.iov_base = &byte, .iov_len = 1};
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
                         .msg_controllen = sizeof control};
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &s->fds[i], sizeof(int));
    if (sendmsg(s->fd, &msg, MSG_NOSIGNAL) != 1) // EXPECT-NOTE: queued fds sent here by sender_flush()
      return -1;
  }
  s->n = 0;
  return 0;
}
