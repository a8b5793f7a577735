// pos_models_event_loop with SO_PASSCRED on the listener before listen(): through the model the
// callback's fd is the listener, so the accepted socket has it from the start.
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
  int conn = accept(fd, NULL, NULL);
  int one = 1;
  setsockopt(conn, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
}

int serve(struct ev_loop *loop, const char *path) {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
  int on = 1;
  setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
  if (bind(fd, (struct sockaddr *)&addr, sizeof addr) < 0 || listen(fd, 16) < 0)
    return -1;
  return ev_watch(loop, NULL, on_connection, 1, fd);
}
