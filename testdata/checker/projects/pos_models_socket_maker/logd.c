// A logging daemon: its datagram socket and its control listener come from lsock_server(), which
// has bound them (and made the listener listen) before SO_PASSCRED is enabled on them.
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "lsock.h"

int open_log_socket(void) {
  int fd = lsock_server("logdw", SOCK_DGRAM | SOCK_CLOEXEC); // EXPECT-NOTE: socket created by lsock_server(), which binds it before returning
  int one = 1;
  if (setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one) < 0) // EXPECT: afunix-passcred-too-late
    return -1;
  return fd;
}

int open_control_socket(void) {
  int fd = lsock_server("logd", SOCK_SEQPACKET); // EXPECT-NOTE: socket created by lsock_server(), which listens on it before returning
  int one = 1;
  if (setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one) < 0) // EXPECT: afunix-passcred-too-late
    return -1;
  return fd;
}

// The writer's uid decides what a log entry may claim.
int read_entry(int fd, char *buf, size_t len, struct ucred *writer) {
  char control[CMSG_SPACE(sizeof(struct ucred))];
  struct iovec iov = {buf, len};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
                       .msg_controllen = sizeof control};
  if (recvmsg(fd, &msg, 0) < 0)
    return -1;
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  if (!c || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_CREDENTIALS)
    return -1;
  memcpy(writer, CMSG_DATA(c), sizeof *writer);
  return 0;
}

int serve(char *buf, size_t len) {
  struct ucred writer;
  int fd = open_log_socket();
  open_control_socket();
  return read_entry(fd, buf, len, &writer);
}
