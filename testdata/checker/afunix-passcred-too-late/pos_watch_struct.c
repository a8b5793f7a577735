// The library fills in a watch (fd and callback in two stores) and hands it to the loop; the
// loop calls w->fn(w). No call passes the fd and the function together.
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

struct watch {
  int fd;
  void (*fn)(struct watch *w);
  struct watch *next;
};
static struct watch *watches;

static void loop_add(struct watch *w) {
  w->next = watches;
  watches = w;
}

static void on_connection(struct watch *w) {
  int conn = accept(w->fd, NULL, NULL); // EXPECT-NOTE: accept() here
  int one = 1;
  setsockopt(conn, SOL_SOCKET, SO_PASSCRED, &one, sizeof one); // EXPECT: afunix-passcred-too-late:3
}

static struct watch listener_watch;

void serve(const char *path) {
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
  bind(fd, (struct sockaddr *)&addr, sizeof addr);
  listen(fd, 16);
  listener_watch.fd = fd;
  listener_watch.fn = on_connection;
  loop_add(&listener_watch);
}

void loop_run(void) {
  for (;;)
    for (struct watch *w = watches; w; w = w->next)
      w->fn(w);
}

// The fix-it, as --fix applies it:
// EXPECT-FIXED: bind(fd, (struct sockaddr *)&addr, sizeof addr);
// EXPECT-FIXED: { int afunix_on = 1; setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &afunix_on, sizeof afunix_on); }
// EXPECT-FIXED: listen(fd, 16);
