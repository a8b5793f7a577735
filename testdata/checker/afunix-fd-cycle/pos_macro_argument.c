// The send sits in a statement macro (do { } while (0)); the message names the socket as
// written in the macro argument.
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

void own_queue_test(void) {
  int sv[2];
  CHECK(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv));
  CHECK(send_fd(sv[0], sv[1])); // EXPECT: afunix-fd-cycle // EXPECT-MESSAGE: socket 'sv[1]' is sent over its peer 'sv[0]'
  close(sv[0]);
  close(sv[1]);
}
