// An inherited fd spelled as a number (fd 3, the first socket-activation fd), through a wrapper.
#define _GNU_SOURCE
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int enable_option(int fd, int option) {
  int one = 1;
  return setsockopt(fd, SOL_SOCKET, option, &one, sizeof one);
}

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
  enable_option(3, SO_PASSCRED); // EXPECT: afunix-passcred-too-late EXPECT-MESSAGE: the parent process (inherited fd 3) made it
  return peer_uid(3) == 0 ? 0 : 1;
}
