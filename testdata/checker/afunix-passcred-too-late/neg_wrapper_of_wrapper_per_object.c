// Two servers share the helpers that open, listen on and enable SO_PASSCRED on a server's socket.
// The control server never enables it (nothing reads its peers' credentials); the events server
// enables it before it listens. Read as one place for both servers' sockets, the events server's
// call after the control server's listen would look late on the control socket.
// Here the option is set by a helper that the per-server helper calls once: made per call inside
// each server's copy too.
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

struct server {
  int fd;
  const char *path;
};

static int server_open(struct server *s) {
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  strncpy(addr.sun_path, s->path, sizeof addr.sun_path - 1);
  s->fd = socket(AF_UNIX, SOCK_STREAM, 0);
  return s->fd < 0 ? -1 : bind(s->fd, (struct sockaddr *)&addr, sizeof addr);
}

static int server_listen(struct server *s) {
  return listen(s->fd, 16);
}

static int set_passcred(int fd) {
  int on = 1;
  return setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
}

static int server_enable_credentials(struct server *s) {
  return set_passcred(s->fd);
}

// The pid the kernel attached to the next message of a connection accepted on s, -1 if none.
static pid_t next_sender(struct server *s) {
  int conn = accept(s->fd, NULL, NULL);
  char data[256];
  char space[CMSG_SPACE(sizeof(struct ucred))];
  struct iovec iov = {data, sizeof data};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = space, .msg_controllen = sizeof space};
  if (conn < 0 || recvmsg(conn, &msg, 0) < 0)
    return -1;
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  if (!c || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_CREDENTIALS)
    return -1;
  struct ucred cred;
  memcpy(&cred, CMSG_DATA(c), sizeof cred);
  return cred.pid;
}

int main(void) {
  struct server control = {.fd = -1, .path = "/run/broker/control"};
  struct server events = {.fd = -1, .path = "/run/broker/events"};
  if (server_open(&control) < 0 || server_listen(&control) < 0)
    return 1;
  if (server_open(&events) < 0 || server_enable_credentials(&events) < 0 || server_listen(&events) < 0)
    return 1;
  return next_sender(&events) < 0;
}
