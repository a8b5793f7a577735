// As pos_container_of_integer_address.c, but the listener has SO_PASSCRED before listen(), so
// every dispatched connection inherits it, and the upstream connection, never dispatched, has
// none: SPA_CONTAINER_OF() of a dispatched source names the accepted connections only.
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define OFFSET_OF(type, member) ((size_t)&((type *)0)->member)
#define CONTAINER_OF(p, type, member) ((type *)((uintptr_t)(p) - OFFSET_OF(type, member)))

struct source {
  int fd;
  void (*func)(struct source *source);
};

struct connection {
  int fd;
  struct source source;
};

static int peer_uid(int fd, uid_t *uid) {
  char byte;
  struct iovec iov = {&byte, 1};
  char control[CMSG_SPACE(sizeof(struct ucred))];
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof control};
  if (recvmsg(fd, &msg, 0) <= 0)
    return -1;
  for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS)
      memcpy(uid, &((struct ucred *)CMSG_DATA(c))->uid, sizeof *uid);
  return 0;
}

static void on_request(struct source *source) {
  struct connection *conn = CONTAINER_OF(source, struct connection, source);
  uid_t uid = 0; // stays root when no credentials arrive
  if (peer_uid(conn->fd, &uid) != 0 || uid != 0)
    close(conn->fd);
}

static struct source *sources[64];
static int n_sources;

static void loop_add(struct source *source) {
  if (n_sources < 64)
    sources[n_sources++] = source;
}

static void loop_iterate(void) {
  for (int i = 0; i < n_sources; i++)
    sources[i]->func(sources[i]);
}

static struct connection upstream;

int main(void) {
  int on = 1;
  upstream.fd = socket(AF_UNIX, SOCK_STREAM, 0);
  int listener = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un addr = {.sun_family = AF_UNIX, .sun_path = "/run/media.sock"};
  setsockopt(listener, SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
  if (listener < 0 || bind(listener, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(listener, 16) != 0)
    return 1;
  for (;;) {
    struct connection *conn = calloc(1, sizeof *conn);
    if (conn == NULL)
      return 1;
    conn->fd = accept(listener, NULL, NULL);
    conn->source.fd = conn->fd;
    conn->source.func = on_request;
    loop_add(&conn->source);
    loop_iterate();
  }
}

