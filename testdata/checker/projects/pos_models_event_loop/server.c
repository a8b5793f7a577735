// The listener is registered with a loop only its header describes; the callback accepts and
// enables SO_PASSCRED on the accepted socket only then. Without the model in .afunix-check.yaml
// the fd would go to the callback's first int-like parameter (`events`) and nothing be found.
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "evloop.h"

static void on_connection(struct ev_loop *loop, unsigned events, int fd, void *data) {
  (void)loop;
  (void)events;
  (void)data;
  int conn = accept(fd, NULL, NULL); // EXPECT-NOTE: accept() here
  int one = 1;
  setsockopt(conn, SOL_SOCKET, SO_PASSCRED, &one, sizeof one); // EXPECT: afunix-passcred-too-late
}

int serve(struct ev_loop *loop, const char *path) {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
  if (bind(fd, (struct sockaddr *)&addr, sizeof addr) < 0 || listen(fd, 16) < 0) // EXPECT-NOTE: listen() here
    return -1;
  return ev_watch(loop, NULL, on_connection, 1, fd);
}

// The fix-it, as --fix applies it:
// EXPECT-FIXED: strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
// EXPECT-FIXED: { int afunix_on = 1; setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &afunix_on, sizeof afunix_on); }
