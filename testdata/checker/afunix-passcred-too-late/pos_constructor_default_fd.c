// eudev-style control socket: one constructor takes an fd from its caller or, given -1, makes its
// own socket. The daemon calls it through a helper that passes -1, binds and listens, and enables
// SO_PASSCRED only on each accepted connection. The constant -1 gives the per-call copy of the
// constructor no socket: the listener is the one it makes, and the accepted socket gets the
// option late.
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

struct ctrl {
  int sock;
  int bound;
  struct sockaddr_un addr;
};

struct ctrl_connection {
  struct ctrl *ctrl;
  int sock;
};

struct ctrl *ctrl_new_from_fd(int fd) {
  struct ctrl *c = calloc(1, sizeof *c);
  if (!c)
    return NULL;
  if (fd < 0) {
    c->sock = socket(AF_UNIX, SOCK_SEQPACKET, 0); // EXPECT-NOTE: listening socket created here
    if (c->sock < 0) {
      free(c);
      return NULL;
    }
  } else {
    c->bound = 1;
    c->sock = fd;
  }
  c->addr.sun_family = AF_UNIX;
  strcpy(c->addr.sun_path, "/run/ctrl");
  return c;
}

struct ctrl *ctrl_new(void) { return ctrl_new_from_fd(-1); }

int ctrl_enable_receiving(struct ctrl *c) {
  if (!c->bound) {
    if (bind(c->sock, (struct sockaddr *)&c->addr, sizeof c->addr) < 0)
      return -1;
    if (listen(c->sock, 0) < 0) // EXPECT-NOTE: listen() here
      return -1;
    c->bound = 1;
  }
  return 0;
}

struct ctrl_connection *ctrl_get_connection(struct ctrl *c) {
  const int on = 1;
  struct ctrl_connection *conn = calloc(1, sizeof *conn);
  if (!conn)
    return NULL;
  conn->ctrl = c;
  conn->sock = accept4(c->sock, NULL, NULL, SOCK_CLOEXEC); // EXPECT-NOTE: accept() here
  if (conn->sock < 0) {
    free(conn);
    return NULL;
  }
  setsockopt(conn->sock, SOL_SOCKET, SO_PASSCRED, &on, sizeof on); // EXPECT: afunix-passcred-too-late:3
  return conn;
}

static struct ctrl *control;

int main(void) {
  control = ctrl_new();
  if (!control || ctrl_enable_receiving(control) < 0)
    return 1;
  struct ctrl_connection *conn = ctrl_get_connection(control);
  char buf[64];
  return conn ? (int)recv(conn->sock, buf, sizeof buf, 0) : 1;
}
// The fix-it enables it on the listener of the constructor's copy, before its listen().
// EXPECT-FIXED: { int afunix_on = 1; setsockopt(c->sock, SOL_SOCKET, SO_PASSCRED, &afunix_on, sizeof afunix_on); }
// EXPECT-FIXED: if (listen(c->sock, 0) < 0) // EXPECT-NOTE: listen() here
