// A known over-sized message in a test of the kernel's EINVAL, suppressed.
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>

int expect_einval(int over, const int *fds) {
  char byte = 0;
  static char buf[CMSG_SPACE(254 * sizeof(int))];
  struct iovec iov = {.iov_base = &byte, .iov_len = 1};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = buf,
                       .msg_controllen = sizeof buf};
  struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
  cmsg->cmsg_level = SOL_SOCKET;
  cmsg->cmsg_type = SCM_RIGHTS;
  cmsg->cmsg_len = CMSG_LEN(254 * sizeof(int)); // NOLINT(afunix-fd-limit)
  memcpy(CMSG_DATA(cmsg), fds, 254 * sizeof(int));
  return sendmsg(over, &msg, 0);
}
