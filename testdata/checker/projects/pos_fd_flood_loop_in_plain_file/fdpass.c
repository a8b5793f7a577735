#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "pool.h"

int open_channel(const char *path) {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
  if (connect(fd, (struct sockaddr *)&addr, sizeof addr) < 0) {
    close(fd);
    return -1;
  }
  return fd;
}

static int send_fd(int channel, int fd) {
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
  return sendmsg(channel, &msg, MSG_NOSIGNAL) == 1 ? 0 : -1; // EXPECT-NOTE: sent here
}

int hand_out_pair(int channel) {
  int pair[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) < 0) // EXPECT-NOTE: socket created here
    return -1;
  int sent = send_fd(channel, pair[1]);
  close(pair[1]);
  return sent;
}
