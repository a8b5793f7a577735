// pos_dispatch_table.c where the application's dispatch_add() forwards to a generic poll loop:
// every registration's fd and callback go into one table of heap entries, and the loop calls
// `e->fn(e->fd, ...)`. Through the table the acceptor could be handed any registered fd (a
// client connection, a pipe); the registration that passes the listener with the acceptor says
// which one it is called with.
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

static int reader(int fd, int revents, void *data) {
  (void)revents;
  char buf[64];
  return (int)read(fd, buf, sizeof buf) + (data != NULL);
}

static int acceptor(int fd, int revents, void *data) {
  (void)revents;
  struct service *s = data;
  int conn = accept(fd, NULL, NULL); // EXPECT-NOTE: accept() here
  int one = 1;
  setsockopt(conn, SOL_SOCKET, SO_PASSCRED, &one, sizeof one); // EXPECT: afunix-passcred-too-late:3
  return s->poll_fns.dispatch_add(0, conn, POLLIN, s, reader);
}

int service_run(struct service *s, const char *path) {
  s->server_sock = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
  bind(s->server_sock, (struct sockaddr *)&addr, sizeof addr);
  listen(s->server_sock, 16); // EXPECT-NOTE: listen() here
  return s->poll_fns.dispatch_add(0, s->server_sock, POLLIN, s, acceptor);
}

// A generic loop: one allocation site for every entry.
struct entry {
  struct pollfd ufd;
  void *data;
  dispatch_fn fn;
  struct entry *next;
};
static struct entry *entries;

static int loop_add(int fd, int events, void *data, dispatch_fn fn) {
  struct entry *e = calloc(1, sizeof *e);
  if (!e)
    return -1;
  e->ufd.fd = fd;
  e->ufd.events = (short)events;
  e->data = data;
  e->fn = fn;
  e->next = entries;
  entries = e;
  return 0;
}

static void loop_run(void) {
  for (;;)
    for (struct entry *e = entries; e; e = e->next)
      e->fn(e->ufd.fd, POLLIN, e->data);
}

// The application's poll functions.
static int my_dispatch_add(int prio, int fd, int events, void *data, dispatch_fn fn) {
  (void)prio;
  return loop_add(fd, events, data, fn);
}

static int on_stdin(int fd, int revents, void *data) {
  return reader(fd, revents, data);
}

int main(void) {
  struct service s = {.poll_fns = {.dispatch_add = my_dispatch_add}};
  loop_add(STDIN_FILENO, POLLIN, NULL, on_stdin);
  service_run(&s, "/run/svc.sock");
  loop_run();
}

// The fix-it, as --fix applies it:
// EXPECT-FIXED: bind(s->server_sock, (struct sockaddr *)&addr, sizeof addr);
// EXPECT-FIXED: { int afunix_on = 1; setsockopt(s->server_sock, SOL_SOCKET, SO_PASSCRED, &afunix_on, sizeof afunix_on); }
// EXPECT-FIXED: listen(s->server_sock, 16); // EXPECT-NOTE: listen() here
