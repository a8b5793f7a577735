// As pos_control_buffer_filled_for_caller.c, with SO_PASSCRED on both ends of the pair: the reader
// (pair[0]) gets the credentials that oob_get() walks the caller's buffer for.
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct event {
  int fd;
};
struct port {
  int pair[2];
  struct event socket;
};
struct recv_oob {
  size_t size;
  char buf[CMSG_SPACE(sizeof(struct ucred)) + CMSG_SPACE(2 * sizeof(int))];
};

static int pair_create(int *pair) {
  if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, pair) != 0)
    return -1;
  int on = 1;
  if (setsockopt(pair[0], SOL_SOCKET, SO_PASSCRED, &on, sizeof on) != 0 ||
      setsockopt(pair[1], SOL_SOCKET, SO_PASSCRED, &on, sizeof on) != 0)
    return -1;
  return 0;
}

ssize_t port_recvmsg(int s, struct iovec *iov, int niov, struct recv_oob *oob) {
  struct msghdr msg = {0};
  msg.msg_iov = iov;
  msg.msg_iovlen = niov;
  msg.msg_control = oob->buf;
  msg.msg_controllen = sizeof(oob->buf);
  ssize_t n = recvmsg(s, &msg, 0);
  if (n != -1)
    oob->size = msg.msg_controllen;
  return n;
}

static int oob_get(struct recv_oob *oob, pid_t *pid) {
  struct msghdr msg = {0};
  if (oob->size == 0)
    return 0;
  msg.msg_control = oob->buf;
  msg.msg_controllen = oob->size;
  *pid = -1;
  for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS) {
      struct ucred uc;
      memcpy(&uc, CMSG_DATA(c), sizeof uc);
      *pid = uc.pid;
    }
  if (*pid == -1)
    return -1;
  return 0;
}

static ssize_t pair_recv(struct event *ev, struct iovec *iov, int niov, struct recv_oob *oob) {
  return port_recvmsg(ev->fd, iov, niov, oob);
}

struct port *port_new(void) {
  struct port *p = calloc(1, sizeof *p);
  if (p == NULL || pair_create(p->pair) != 0)
    return NULL;
  p->socket.fd = p->pair[0];
  return p;
}

int read_handler(struct port *p) {
  char byte;
  struct iovec iov = {&byte, 1};
  struct recv_oob oob;
  pid_t pid = 0;
  if (pair_recv(&p->socket, &iov, 1, &oob) <= 0)
    return -1;
  if (oob_get(&oob, &pid) != 0)
    return -1;
  return pid == getpid();
}
