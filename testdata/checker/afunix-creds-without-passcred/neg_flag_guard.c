// The same flag guards enabling SO_PASSCRED and reading credentials: when the check runs, the
// option is on.
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

struct options {
  int authenticate;
};

int run(const struct options *opt) {
  int fd = socket(AF_UNIX, SOCK_DGRAM, 0);
  if (opt->authenticate) {
    int on = 1;
    setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
  }
  char buf[32];
  char control[CMSG_SPACE(sizeof(struct ucred))];
  struct iovec iov = {buf, sizeof buf};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
                       .msg_controllen = sizeof control};
  if (recvmsg(fd, &msg, 0) < 0)
    return -1;
  if (opt->authenticate) {
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    if (!c || c->cmsg_type != SCM_CREDENTIALS)
      return -1;
  }
  return 0;
}
