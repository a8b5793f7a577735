// An event loop whose table is one heap array: the listener, every accepted connection and the
// loop's own wake-up pipe are entries of it, and the dispatcher calls each entry's callback with
// the entry's fd, so the analysis hands the acceptor every fd of the table. accept() gives a
// connection only on a listener (experiment accept_needs_listener): the connections and the pipe
// are not where `conn` comes from, and the late SO_PASSCRED is found.
#define _GNU_SOURCE
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

typedef int (*dispatch_fn)(int fd, void *data);
struct entry {
  int fd;
  void *data;
  dispatch_fn fn;
};
struct loop {
  struct entry *entries;
  int count;
};

static int loop_add(struct loop *l, int fd, void *data, dispatch_fn fn) {
  struct entry *e = &l->entries[l->count++];
  e->fd = fd;
  e->data = data;
  e->fn = fn;
  return 0;
}

static int on_message(int fd, void *data) {
  (void)data;
  char buf[256];
  return (int)read(fd, buf, sizeof buf);
}

static int on_wakeup(int fd, void *data) {
  (void)data;
  char byte;
  return (int)read(fd, &byte, 1);
}

static int acceptor(int fd, void *data) {
  struct loop *l = data;
  int conn = accept(fd, NULL, NULL); // EXPECT-NOTE: accept() here
  int one = 1;
  setsockopt(conn, SOL_SOCKET, SO_PASSCRED, &one, sizeof one); // EXPECT: afunix-passcred-too-late:3
  return loop_add(l, conn, l, on_message);
}

int main(void) {
  struct loop l = {.entries = calloc(256, sizeof(struct entry))};
  int wake[2];
  pipe(wake);
  loop_add(&l, wake[0], &l, on_wakeup);
  int server = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  strncpy(addr.sun_path, "/run/svc.sock", sizeof addr.sun_path - 1);
  bind(server, (struct sockaddr *)&addr, sizeof addr);
  listen(server, 16); // EXPECT-NOTE: listen() here
  loop_add(&l, server, &l, acceptor);
  for (;;)
    for (int i = 0; i < l.count; ++i)
      l.entries[i].fn(l.entries[i].fd, l.entries[i].data);
}

// The fix-it, as --fix applies it:
// EXPECT-FIXED: bind(server, (struct sockaddr *)&addr, sizeof addr);
// EXPECT-FIXED: { int afunix_on = 1; setsockopt(server, SOL_SOCKET, SO_PASSCRED, &afunix_on, sizeof afunix_on); }
// EXPECT-FIXED: listen(server, 16); // EXPECT-NOTE: listen() here
