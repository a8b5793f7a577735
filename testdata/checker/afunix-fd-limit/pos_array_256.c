// An int[256] copied whole into one SCM_RIGHTS payload: 256 > SCM_MAX_FD (253), EINVAL.
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>

int pass_table(int over, const int table[256]) {
  int fds[256];
  memcpy(fds, table, sizeof fds);
  char byte = 0;
  union {
    char buf[CMSG_SPACE(sizeof fds)];
    struct cmsghdr align;
  } u;
  struct iovec iov = {.iov_base = &byte, .iov_len = 1};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
                       .msg_controllen = sizeof u.buf};
  struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
  cmsg->cmsg_level = SOL_SOCKET;
  cmsg->cmsg_type = SCM_RIGHTS;
  cmsg->cmsg_len = CMSG_LEN(sizeof fds); // EXPECT: afunix-fd-limit // EXPECT-MESSAGE: can carry 256 fds
  memcpy(CMSG_DATA(cmsg), fds, sizeof fds); // EXPECT-NOTE: payload
  return sendmsg(over, &msg, 0) < 0 ? -1 : 0;
}
