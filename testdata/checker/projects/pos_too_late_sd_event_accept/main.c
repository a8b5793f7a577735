#define _GNU_SOURCE
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "event.h"

int setup(sd_event *e) {
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  strcpy(addr.sun_path, "/run/logd.sock");
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0); // EXPECT-NOTE: listening socket created here
  if (fd < 0 || bind(fd, (struct sockaddr *)&addr, sizeof addr) < 0)
    return -1;
  listen(fd, 64); // EXPECT-NOTE: listen() here
  return sd_event_add_io(e, NULL, fd, EPOLLIN, on_listener, NULL);
}

// The fix-it, as --fix applies it:
// EXPECT-FIXED: { int afunix_on = 1; setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &afunix_on, sizeof afunix_on); }
// EXPECT-FIXED: listen(fd, 64); // EXPECT-NOTE: listen() here
