// As pos_container_of_handler.c, but the port that is dispatched has SO_PASSCRED on its reading
// end. Another port, made without it, is never dispatched, and a log sink embeds the same event.
// container_of() in the port's callback gives back the dispatched port only, not every port (as
// a per-type reading of port->pair[0] would), so no socket without SO_PASSCRED reaches the check.
#define _GNU_SOURCE
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define container_of(p, type, member) ((type *)((char *)(p) - offsetof(type, member)))

struct event {
  int fd;
  void (*handler)(struct event *ev);
};
struct port {
  int pair[2];
  struct event socket;
};
struct sink {
  int fd;
  struct event socket;
};

static int peer_is_root(int fd) {
  char byte;
  struct iovec iov = {&byte, 1};
  char control[CMSG_SPACE(sizeof(struct ucred))];
  struct msghdr msg = {0};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  if (recvmsg(fd, &msg, 0) <= 0)
    return 0;
  for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS) {
      struct ucred uc;
      memcpy(&uc, CMSG_DATA(c), sizeof uc);
      if (uc.uid != 0)
        return 0;
    }
  return 1;
}

static void on_port_readable(struct event *ev) {
  struct port *port = container_of(ev, struct port, socket);
  peer_is_root(port->pair[0]);
}

static void on_sink_readable(struct event *ev) {
  struct sink *sink = container_of(ev, struct sink, socket);
  char buf[512];
  read(sink->fd, buf, sizeof buf);
}

struct port *port_new(void) {
  struct port *p = calloc(1, sizeof *p);
  int on = 1;
  if (p == NULL || socketpair(AF_UNIX, SOCK_SEQPACKET, 0, p->pair) != 0)
    return NULL;
  setsockopt(p->pair[0], SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
  p->socket.fd = p->pair[0];
  p->socket.handler = on_port_readable;
  return p;
}

struct port *port_new_quiet(void) {
  struct port *p = calloc(1, sizeof *p);
  if (p == NULL || socketpair(AF_UNIX, SOCK_SEQPACKET, 0, p->pair) != 0)
    return NULL;
  p->socket.fd = p->pair[0];
  p->socket.handler = on_port_readable;
  return p;
}

struct sink *sink_new(void) {
  struct sink *s = calloc(1, sizeof *s);
  if (s == NULL)
    return NULL;
  s->fd = socket(AF_UNIX, SOCK_DGRAM, 0);
  s->socket.fd = s->fd;
  s->socket.handler = on_sink_readable;
  return s;
}

void dispatch(struct event *ev) { ev->handler(ev); }

int main(void) {
  struct port *p = port_new();
  struct sink *s = sink_new();
  struct port *quiet = port_new_quiet();
  if (quiet)
    write(quiet->pair[1], "x", 1);
  if (p)
    dispatch(&p->socket);
  if (s)
    dispatch(&s->socket);
  return 0;
}
