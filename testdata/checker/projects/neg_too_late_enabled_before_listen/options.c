#define _GNU_SOURCE
#include <sys/socket.h>

#include "options.h"

int enable_credentials(int fd) {
  int on = 1;
  return setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
}
