#pragma once
#include <string.h>
#include <sys/socket.h>

#define FD_BATCH 300

static inline int send_batch(int channel, const int *fds) {
  char byte = 0;
  char control[CMSG_SPACE(sizeof(int) * FD_BATCH)];
  struct iovec iov = {.iov_base = &byte, .iov_len = 1};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
                       .msg_controllen = sizeof control};
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int) * FD_BATCH); // EXPECT: afunix-fd-limit EXPECT-MESSAGE: can carry 300 fds
  memcpy(CMSG_DATA(c), fds, sizeof(int) * FD_BATCH); // EXPECT-NOTE: the payload of 300 fds is copied here
  return (int)sendmsg(channel, &msg, 0);
}
