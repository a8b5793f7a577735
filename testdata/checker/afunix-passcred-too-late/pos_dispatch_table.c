// libqb-style: the application gives the IPC library its poll functions in a struct; the library
// registers its listener through s->poll_fns.dispatch_add() with an acceptor callback; the
// application's loop calls it. No name of a known registrar: the function pointers are followed.
#define _GNU_SOURCE
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

typedef int (*dispatch_fn)(int fd, int revents, void *data);
struct poll_fns {
  int (*dispatch_add)(int prio, int fd, int events, void *data, dispatch_fn fn);
};
struct service {
  int server_sock;
  struct poll_fns poll_fns;
};

static int acceptor(int fd, int revents, void *data) {
  (void)revents;
  (void)data;
  int conn = accept(fd, NULL, NULL); // EXPECT-NOTE: accept() here
  int one = 1;
  setsockopt(conn, SOL_SOCKET, SO_PASSCRED, &one, sizeof one); // EXPECT: afunix-passcred-too-late:3
  return conn;
}

int service_run(struct service *s, const char *path) {
  s->server_sock = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
  bind(s->server_sock, (struct sockaddr *)&addr, sizeof addr);
  listen(s->server_sock, 16); // EXPECT-NOTE: listen() here
  return s->poll_fns.dispatch_add(0, s->server_sock, POLLIN, s, acceptor);
}

// The application's loop.
struct watch {
  int fd;
  void *data;
  dispatch_fn fn;
};
static struct watch watches[64];
static int nwatches;

static int my_dispatch_add(int prio, int fd, int events, void *data, dispatch_fn fn) {
  (void)prio;
  (void)events;
  watches[nwatches].fd = fd;
  watches[nwatches].data = data;
  watches[nwatches].fn = fn;
  return nwatches++;
}

int main(void) {
  struct service s = {.poll_fns = {.dispatch_add = my_dispatch_add}};
  service_run(&s, "/run/svc.sock");
  for (;;)
    for (int i = 0; i < nwatches; ++i)
      watches[i].fn(watches[i].fd, POLLIN, watches[i].data);
}

// The fix-it, as --fix applies it:
// EXPECT-FIXED: bind(s->server_sock, (struct sockaddr *)&addr, sizeof addr);
// EXPECT-FIXED: { int afunix_on = 1; setsockopt(s->server_sock, SOL_SOCKET, SO_PASSCRED, &afunix_on, sizeof afunix_on); }
// EXPECT-FIXED: listen(s->server_sock, 16); // EXPECT-NOTE: listen() here
