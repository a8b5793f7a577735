// SCM_CREDENTIALS appears only in a comment: the code reads data, not credentials.
#define _GNU_SOURCE
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int read_message(void) {
  int fd = socket(AF_UNIX, SOCK_DGRAM, 0);
  char buf[128];
  char control[64];
  struct iovec iov = {buf, sizeof buf};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
                       .msg_controllen = sizeof control};
  // TODO: check SCM_CREDENTIALS here once the protocol carries them.
  return (int)recvmsg(fd, &msg, 0);
}
