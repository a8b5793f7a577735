// A socket inherited through systemd socket activation: the unit's PassCredentials=yes may have
// enabled SO_PASSCRED, which this file cannot see. Not reported without --pedantic.
#define _GNU_SOURCE
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int sd_listen_fds(int unset_environment);
#define SD_LISTEN_FDS_START 3

int main(void) {
  if (sd_listen_fds(0) != 1)
    return 1;
  int fd = SD_LISTEN_FDS_START + 0;
  char buf[64];
  char control[CMSG_SPACE(sizeof(struct ucred))];
  struct iovec iov = {buf, sizeof buf};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
                       .msg_controllen = sizeof control};
  if (recvmsg(fd, &msg, 0) < 0)
    return 1;
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  return c && c->cmsg_type == SCM_CREDENTIALS ? 0 : 1;
}
