// OPTIONS: --target-kernel=6.6
// The message follows the target kernel: before 6.8 every AF_UNIX sendmsg() can wait for the GC.
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
  for (;;) {
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    send_fd(over, s); // EXPECT: afunix-fd-flood // EXPECT-MESSAGE: on Linux <= 6.7
    close(s);
  }
}
