// Many sockets per message: an array of socketpair() ends, a run-time count of them copied into
// one SCM_RIGHTS payload.
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int pass_all(int over, int n) {
  int *ends = malloc(sizeof(int) * (size_t)n);
  for (int i = 0; i < n; i++) {
    int sv[2];
    socketpair(AF_UNIX, SOCK_DGRAM, 0, sv); // EXPECT-NOTE: socket created here
    ends[i] = sv[0];
  }
  size_t len = CMSG_SPACE(sizeof(int) * (size_t)n);
  char *buf = calloc(1, len);
  char byte = 0;
  struct iovec iov = {.iov_base = &byte, .iov_len = 1};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = buf, .msg_controllen = len};
  struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
  cmsg->cmsg_level = SOL_SOCKET;
  cmsg->cmsg_type = SCM_RIGHTS;
  cmsg->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)n);
  memcpy(CMSG_DATA(cmsg), ends, sizeof(int) * (size_t)n);
  ssize_t sent = sendmsg(over, &msg, 0); // EXPECT: afunix-fd-flood
  free(buf);
  free(ends);
  return sent < 0 ? -1 : 0;
}
