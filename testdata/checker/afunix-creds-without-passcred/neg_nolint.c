// The finding of pos_dgram_switch_union.c, suppressed with NOLINT and NOLINTNEXTLINE.
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int serve(void) {
  int fd = socket(AF_UNIX, SOCK_DGRAM, 0);
  char buf[256];
  char control[CMSG_SPACE(sizeof(struct ucred))];
  struct iovec iov = {buf, sizeof buf};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
                       .msg_controllen = sizeof control};
  if (recvmsg(fd, &msg, 0) < 0) // NOLINT(afunix-creds-without-passcred): peers are trusted
    return -1;
  // NOLINTNEXTLINE(afunix-creds-without-passcred)
  if (recvmsg(fd, &msg, 0) < 0)
    return -1;
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  return c && c->cmsg_type == SCM_CREDENTIALS;
}
