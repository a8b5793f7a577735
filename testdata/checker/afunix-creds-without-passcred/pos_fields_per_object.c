// neg_fields_per_object.c of afunix-passcred-too-late without the listener's SO_PASSCRED: the
// server's accepted connections read credentials that never come. The client's own socket has
// SO_PASSCRED through the same struct and helper, which must not hide the server's.
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

struct conn {
  int fd;
  int server;
};

static struct conn *conn_new(int fd, int server) {
  struct conn *c = calloc(1, sizeof *c);
  if (!c)
    return NULL;
  c->fd = fd;
  c->server = server;
  return c;
}

// The library's fix for a race: the client sends its credentials with every message.
static void conn_send_credentials(struct conn *c) {
  int one = 1;
  setsockopt(c->fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
}

static int conn_send(struct conn *c, const void *buf, size_t len) { return (int)send(c->fd, buf, len, 0); }

static int conn_peer_uid(struct conn *c) {
  char data[64], control[CMSG_SPACE(sizeof(struct ucred))];
  struct iovec iov = {data, sizeof data};
  struct msghdr msg = {0};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  if (recvmsg(c->fd, &msg, 0) < 0) // EXPECT: afunix-creds-without-passcred:7
    return -1;
  for (struct cmsghdr *h = CMSG_FIRSTHDR(&msg); h; h = CMSG_NXTHDR(&msg, h))
    if (h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_CREDENTIALS) {
      struct ucred cred;
      memcpy(&cred, CMSG_DATA(h), sizeof cred);
      return (int)cred.uid;
    }
  return -1;
}

struct conn *client_connect(const char *path) {
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
  if (connect(fd, (struct sockaddr *)&addr, sizeof addr) < 0)
    return NULL;
  struct conn *c = conn_new(fd, 0);
  conn_send_credentials(c);
  conn_send(c, "hello", 5);
  return c;
}

int server_run(const char *path) {
  int listener = socket(AF_UNIX, SOCK_STREAM, 0);
  int one = 1;
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
  bind(listener, (struct sockaddr *)&addr, sizeof addr);
  listen(listener, 16);
  for (;;) {
    int fd = accept(listener, NULL, NULL); // EXPECT-NOTE: accept() here
    struct conn *c = conn_new(fd, 1);
    if (conn_peer_uid(c) != 0)
      close(c->fd);
    free(c);
  }
}

// The fix-it, as --fix applies it:
// EXPECT-FIXED: bind(listener, (struct sockaddr *)&addr, sizeof addr);
// EXPECT-FIXED: { int afunix_on = 1; setsockopt(listener, SOL_SOCKET, SO_PASSCRED, &afunix_on, sizeof afunix_on); }
// EXPECT-FIXED: listen(listener, 16);
