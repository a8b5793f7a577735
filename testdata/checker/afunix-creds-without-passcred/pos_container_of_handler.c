// An event loop hands its callback the event embedded in a larger object, and the callback gets
// the object back with container_of() (unit's nxt_container_of(), wayland's wl_container_of(),
// the kernel's list idiom). The socket it reads credentials from is the dispatched port's
// pair[0], which never gets SO_PASSCRED: only the writing end does. Another port, never
// dispatched, has it on pair[0]: read per type (every port's pair[0]), the two would merge and
// the one with SO_PASSCRED would keep the rule quiet.
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

static int peer_is_root(int fd) {
  char byte;
  struct iovec iov = {&byte, 1};
  char control[CMSG_SPACE(sizeof(struct ucred))];
  struct msghdr msg = {0};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  if (recvmsg(fd, &msg, 0) <= 0) // EXPECT-NOTE: credentials are read here
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

static void on_readable(struct event *ev) {
  struct port *port = container_of(ev, struct port, socket);
  peer_is_root(port->pair[0]); // EXPECT: afunix-creds-without-passcred
}

struct port *port_new(void) {
  struct port *p = calloc(1, sizeof *p);
  int on = 1;
  if (p == NULL || socketpair(AF_UNIX, SOCK_SEQPACKET, 0, p->pair) != 0) // EXPECT-NOTE: socket created here
    return NULL;
  setsockopt(p->pair[1], SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
  p->socket.fd = p->pair[0];
  p->socket.handler = on_readable;
  return p;
}

struct port *port_new_enabled(void) {
  struct port *p = calloc(1, sizeof *p);
  int on = 1;
  if (p == NULL || socketpair(AF_UNIX, SOCK_SEQPACKET, 0, p->pair) != 0)
    return NULL;
  setsockopt(p->pair[0], SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
  p->socket.fd = p->pair[0];
  return p;
}

void dispatch(struct event *ev) { ev->handler(ev); }

int main(void) {
  struct port *p = port_new();
  struct port *other = port_new_enabled();
  if (p)
    dispatch(&p->socket);
  if (other)
    write(other->pair[1], "x", 1);
  return 0;
}
