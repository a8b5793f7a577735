// OPTIONS: --config=testdata/checker/afunix-passcred-too-late/external_sources.yaml
// take_inherited_socket() (configured in ExternalSocketSources) returns a socket some other
// process made; how it was handed over is not known, so the advice is the general one.
#define _GNU_SOURCE
#include <sys/socket.h>

#include <sys/un.h>

int take_inherited_socket(void);

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

int setup(void) {
  int one = 1;
  int fd = take_inherited_socket(); // EXPECT-NOTE: the socket comes from outside the program here
  setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one); // EXPECT: afunix-passcred-too-late:3 EXPECT-MESSAGE: that came from outside (take_inherited_socket()) EXPECT-MESSAGE: have the socket's creator enable it
  return peer_uid(fd);
}
