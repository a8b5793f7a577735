// A datagram socket handed over by systemd (sd_listen_fds): peers may have queued messages long
// before the daemon enables SO_PASSCRED. Only the socket's creator can do it in time
// (PassCredentials=yes).
#define _GNU_SOURCE
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int sd_listen_fds(int unset_environment);
#define SD_LISTEN_FDS_START 3

// The daemon reads each peer's credentials.
static int peer_uid(int fd) {
  char buf[64];
  union {
    char b[CMSG_SPACE(sizeof(struct ucred))];
    struct cmsghdr align;
  } control;
  struct iovec iov = {.iov_base = buf, .iov_len = sizeof buf};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.b,
                       .msg_controllen = sizeof control.b};
  if (recvmsg(fd, &msg, 0) < 0)
    return -1;
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  if (!c || c->cmsg_type != SCM_CREDENTIALS)
    return -1;
  return (int)((struct ucred *)CMSG_DATA(c))->uid;
}

int main(void) {
  int n = sd_listen_fds(1);
  if (n < 1)
    return 1;
  int fd = SD_LISTEN_FDS_START + 0; // EXPECT-NOTE: the program takes the socket over here
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one); // EXPECT: afunix-passcred-too-late EXPECT-MESSAGE: but the service manager (socket activation, SD_LISTEN_FDS_START + 0) made it EXPECT-MESSAGE: set PassCredentials=yes in the socket unit that hands it over
  return peer_uid(fd) == 0 ? 0 : 1;
}
