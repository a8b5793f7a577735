// SO_PASSCRED through a project wrapper (the constant and the socket are its arguments) on a
// struct field, in a different function from the read.
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int set_int_option(int fd, int level, int name, int value) {
  return setsockopt(fd, level, name, &value, sizeof value);
}

struct journal {
  int fd;
};

void journal_open(struct journal *j) {
  j->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK, 0);
  set_int_option(j->fd, SOL_SOCKET, SO_PASSCRED, 1);
}

int journal_read(struct journal *j) {
  char buf[256];
  union {
    struct cmsghdr h;
    char buf[CMSG_SPACE(sizeof(struct ucred))];
  } control;
  struct iovec iov = {buf, sizeof buf};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = &control,
                       .msg_controllen = sizeof control};
  if (recvmsg(j->fd, &msg, 0) < 0)
    return -1;
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  return c && c->cmsg_type == SCM_CREDENTIALS;
}
