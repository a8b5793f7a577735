// An event library's handles share their first fields, as libuv's do (UV_HANDLE_FIELDS): the
// program sets `data` on its pipe handle and the library hands the callback the same handle as its
// generic type. Each server finds itself through `data`. The control server enables SO_PASSCRED;
// the events server never does, yet its callback trusts the sender's pid.
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>

struct handle { void *data; int type; };
struct pipe_handle { void *data; int type; int flags; };
struct server { struct pipe_handle pipe; int fd; };

static pid_t sender_of_next_message(int fd) {
  char data[64], space[CMSG_SPACE(sizeof(struct ucred))];
  struct iovec iov = {data, sizeof data};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = space, .msg_controllen = sizeof space};
  if (recvmsg(fd, &msg, 0) < 0) // EXPECT-NOTE: credentials are read here
    return -1;
  for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS) {
      struct ucred cred;
      memcpy(&cred, CMSG_DATA(c), sizeof cred);
      return cred.pid;
    }
  return -1;
}

pid_t on_control(struct handle *h) {
  struct server *s = h->data;
  return sender_of_next_message(s->fd);
}

pid_t on_events(struct handle *h) {
  struct server *s = h->data;
  return sender_of_next_message(s->fd); // EXPECT: afunix-creds-without-passcred
}

int main(void) {
  static struct server control, events;
  int on = 1;
  control.fd = socket(AF_UNIX, SOCK_DGRAM, 0);
  setsockopt(control.fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
  control.pipe.data = &control;
  events.fd = socket(AF_UNIX, SOCK_DGRAM, 0); // EXPECT-NOTE: socket created here
  events.pipe.data = &events;
  on_control((struct handle *)&control.pipe);
  on_events((struct handle *)&events.pipe);
  return 0;
}
