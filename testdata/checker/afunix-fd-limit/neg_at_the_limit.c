// Exactly SCM_MAX_FD (253) fds per message is allowed.
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>

#define SCM_MAX_FD 253

int pass_max(int over, const int fds[SCM_MAX_FD]) {
  char byte = 0;
  char buf[CMSG_SPACE(SCM_MAX_FD * sizeof(int))];
  struct iovec iov = {.iov_base = &byte, .iov_len = 1};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = buf,
                       .msg_controllen = sizeof buf};
  struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
  cmsg->cmsg_level = SOL_SOCKET;
  cmsg->cmsg_type = SCM_RIGHTS;
  cmsg->cmsg_len = CMSG_LEN(SCM_MAX_FD * sizeof(int));
  memcpy(CMSG_DATA(cmsg), fds, SCM_MAX_FD * sizeof(int));
  return sendmsg(over, &msg, 0) < 0 ? -1 : 0;
}
