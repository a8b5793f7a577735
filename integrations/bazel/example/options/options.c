#define _GNU_SOURCE
#include "options/options.h"

#include <sys/socket.h>

int options_pass_credentials(int fd) {
  int on = 1;
  return setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
}
