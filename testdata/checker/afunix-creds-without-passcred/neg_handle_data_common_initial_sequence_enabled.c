// pos_handle_data_common_initial_sequence.c, done right: both servers enable SO_PASSCRED before
// their callbacks read. The handles share their first fields (libuv's UV_HANDLE_FIELDS), and each
// callback finds its server through the `data` set on the pipe handle and read as the generic
// handle.
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
  if (recvmsg(fd, &msg, 0) < 0)
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
  return sender_of_next_message(s->fd);
}

int main(void) {
  static struct server control, events;
  int on = 1;
  control.fd = socket(AF_UNIX, SOCK_DGRAM, 0);
  setsockopt(control.fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
  control.pipe.data = &control;
  events.fd = socket(AF_UNIX, SOCK_DGRAM, 0);
  setsockopt(events.fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
  events.pipe.data = &events;
  on_control((struct handle *)&control.pipe);
  on_events((struct handle *)&events.pipe);
  return 0;
}
