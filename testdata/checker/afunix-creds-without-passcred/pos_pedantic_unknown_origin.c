// OPTIONS: --pedantic
// With --pedantic, a read whose socket comes from nowhere visible is reported (unknown origin).
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
  if (recvmsg(fd, &msg, 0) <= 0) // EXPECT: afunix-creds-without-passcred EXPECT-MESSAGE: whose origin is unknown
    return -1;
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  if (!c || c->cmsg_type != SCM_CREDENTIALS)
    return -1;
  memcpy(out, CMSG_DATA(c), sizeof *out);
  return 0;
}
