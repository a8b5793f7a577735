// A public function reading credentials from a socket it is given, with no caller in this file:
// its origin is unknown, so it is only reported with --pedantic (see pos_pedantic_unknown_origin.c).
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int receive_creds(int fd, struct ucred *out) {
  char byte;
  char control[CMSG_SPACE(sizeof(struct ucred))];
  struct iovec iov = {&byte, 1};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
                       .msg_controllen = sizeof control};
  if (recvmsg(fd, &msg, 0) <= 0)
    return -1;
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  if (!c || c->cmsg_type != SCM_CREDENTIALS)
    return -1;
  memcpy(out, CMSG_DATA(c), sizeof *out);
  return 0;
}
