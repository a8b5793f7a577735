#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "listener.h"
#include "options.h"

int open_listener(const char *path) {
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0 || enable_credentials(fd) < 0)
    return -1;
  if (bind(fd, (struct sockaddr *)&addr, sizeof addr) < 0 || listen(fd, 16) < 0)
    return -1;
  return fd;
}
