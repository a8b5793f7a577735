// PulseAudio's pa_socket_cloexec(): one helper makes the server's listener and the clients'
// sockets. Each call is a socket of its own: the connection the listener accepts gets
// SO_PASSCRED late, and it is that accepted socket, not "a listener", that is late.
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

struct io {
  int ifd;
};

static struct io *io_new(int fd) {
  struct io *c = malloc(sizeof *c);
  c->ifd = fd;
  return c;
}

static void creds_enable(struct io *c) {
  int one = 1;
  setsockopt(c->ifd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one); // EXPECT: afunix-passcred-too-late EXPECT-MESSAGE: accepted socket 'c->ifd'
}

static int socket_cloexec(int domain, int type) {
  return socket(domain, type | SOCK_CLOEXEC, 0);
}

struct io *client_connect(const struct sockaddr_un *sa) {
  int fd = socket_cloexec(AF_UNIX, SOCK_STREAM);
  if (connect(fd, (const struct sockaddr *)sa, sizeof *sa) < 0)
    return NULL;
  return io_new(fd);
}

static int server_new(const char *path) {
  struct sockaddr_un sa;
  memset(&sa, 0, sizeof sa);
  sa.sun_family = AF_UNIX;
  strncpy(sa.sun_path, path, sizeof sa.sun_path - 1);
  int lfd = socket_cloexec(AF_UNIX, SOCK_STREAM); // EXPECT-NOTE: listening socket created here
  bind(lfd, (struct sockaddr *)&sa, sizeof sa);
  listen(lfd, 5); // EXPECT-NOTE: listen() here
  return lfd;
}

static void accept_cb(int lfd) {
  int nfd = accept(lfd, NULL, NULL); // EXPECT-NOTE: accept() here
  if (nfd < 0)
    return;
  creds_enable(io_new(nfd));
}

int main(void) {
  int lfd = server_new("/tmp/x.sock");
  for (;;)
    accept_cb(lfd);
}

// The fix-it, as --fix applies it:
// EXPECT-FIXED: { int afunix_on = 1; setsockopt(lfd, SOL_SOCKET, SO_PASSCRED, &afunix_on, sizeof afunix_on); }
// EXPECT-FIXED: listen(lfd, 5); // EXPECT-NOTE: listen() here
