// A send inside a do { } while (0) statement macro is one send, not a loop.
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define CHECK(call)                                                                            \
  do {                                                                                         \
    if ((call) < 0)                                                                            \
      abort();                                                                                 \
  } while (0)

static int send_fd(int over, int fd) {
  char byte = 0;
  char buf[CMSG_SPACE(sizeof(int))];
  struct iovec iov = {.iov_base = &byte, .iov_len = 1};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = buf,
                       .msg_controllen = sizeof buf};
  struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
  cmsg->cmsg_level = SOL_SOCKET;
  cmsg->cmsg_type = SCM_RIGHTS;
  cmsg->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(cmsg), &fd, sizeof fd);
  return sendmsg(over, &msg, 0) < 0 ? -1 : 0;
}

void hand_over(int over) {
  int s = socket(AF_UNIX, SOCK_STREAM, 0);
  CHECK(send_fd(over, s));
  close(s);
}
