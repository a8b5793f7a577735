// An SCM_RIGHTS message sized for 300 fds (afunix-fd-limit), once plain and once under
// NOLINTNEXTLINE; the line numbers are asserted by cli_test.py.
#include <string.h>
#include <sys/socket.h>

int pass_batch(int over, const int *fds) {
  char byte = 0;
  static char buf[CMSG_SPACE(300 * sizeof(int))];
  struct iovec iov = {.iov_base = &byte, .iov_len = 1};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = buf,
                       .msg_controllen = sizeof buf};
  struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
  cmsg->cmsg_level = SOL_SOCKET;
  cmsg->cmsg_type = SCM_RIGHTS;
  cmsg->cmsg_len = CMSG_LEN(300 * sizeof(int));
  memcpy(CMSG_DATA(cmsg), fds, 300 * sizeof(int));
  return sendmsg(over, &msg, 0) < 0 ? -1 : 0;
}

int pass_batch_quietly(int over, const int *fds) {
  char byte = 0;
  static char buf[CMSG_SPACE(300 * sizeof(int))];
  struct iovec iov = {.iov_base = &byte, .iov_len = 1};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = buf,
                       .msg_controllen = sizeof buf};
  struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
  cmsg->cmsg_level = SOL_SOCKET;
  cmsg->cmsg_type = SCM_RIGHTS;
  // NOLINTNEXTLINE(afunix-fd-limit)
  cmsg->cmsg_len = CMSG_LEN(300 * sizeof(int));
  memcpy(CMSG_DATA(cmsg), fds, 300 * sizeof(int));
  return sendmsg(over, &msg, 0) < 0 ? -1 : 0;
}
