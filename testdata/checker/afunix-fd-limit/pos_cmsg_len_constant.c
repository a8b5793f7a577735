// CMSG_LEN(n * sizeof(int)) with a constant n above 253.
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>

#define MAX_PASSED 300

int pass_batch(int over, const int *fds) {
  char byte = 0;
  static char buf[CMSG_SPACE(MAX_PASSED * sizeof(int))];
  struct iovec iov = {.iov_base = &byte, .iov_len = 1};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = buf,
                       .msg_controllen = sizeof buf};
  struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
  cmsg->cmsg_level = SOL_SOCKET;
  cmsg->cmsg_type = SCM_RIGHTS;
  cmsg->cmsg_len = CMSG_LEN(MAX_PASSED * sizeof(int)); // EXPECT: afunix-fd-limit // EXPECT-MESSAGE: can carry 300 fds
  memcpy(CMSG_DATA(cmsg), fds, MAX_PASSED * sizeof(int));
  return sendmsg(over, &msg, 0) < 0 ? -1 : 0;
}
