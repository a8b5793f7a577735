// OPTIONS: --target-kernel=6.19
// After the Nov 2025 GC clean-up the wait happens only when the last GC found cyclic garbage.
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static void send_fd(int over, int fd) {
  char buf[CMSG_SPACE(sizeof(int))];
  char byte = 0;
  struct iovec iov = {.iov_base = &byte, .iov_len = 1};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = buf,
                       .msg_controllen = sizeof buf};
  struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
  cmsg->cmsg_level = SOL_SOCKET;
  cmsg->cmsg_type = SCM_RIGHTS;
  cmsg->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(cmsg), &fd, sizeof fd);
  sendmsg(over, &msg, 0);
}

void flood(int over) {
  while (1) {
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    send_fd(over, s); // EXPECT: afunix-fd-flood // EXPECT-MESSAGE: when the last GC found cyclic garbage
    close(s);
  }
}
