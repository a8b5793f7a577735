// OPTIONS: --target-kernel=6.15
// pos_handed_over_listener.c for a 6.15 kernel: there an accepted socket still copies the
// listener's flags at accept(), so the connection pending when the daemon enables SO_PASSCRED on
// the handed-over listener inherits it when it is accepted, and nothing is lost.
#define _GNU_SOURCE
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int sd_listen_fds(int unset_environment);
#define SD_LISTEN_FDS_START 3

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
  if (sd_listen_fds(1) < 1)
    return 1;
  int listener = SD_LISTEN_FDS_START;
  int one = 1;
  setsockopt(listener, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
  for (;;) {
    int conn = accept(listener, NULL, NULL);
    if (conn < 0)
      continue;
    if (peer_uid(conn) == 0)
      write(conn, "ok\n", 3);
    close(conn);
  }
}
