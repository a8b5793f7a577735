#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>

#include "fdpass.h"

int send_fd(int channel, int fd) {
  char byte = 0;
  char control[CMSG_SPACE(sizeof(int))];
  struct iovec iov = {.iov_base = &byte, .iov_len = 1};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
                       .msg_controllen = sizeof control};
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(c), &fd, sizeof fd);
  return sendmsg(channel, &msg, MSG_NOSIGNAL) == 1 ? 0 : -1;
}

int recv_ack(int channel) {
  char ack;
  return recv(channel, &ack, 1, 0) == 1 ? 0 : -1;
}
