#define _GNU_SOURCE
#include <sys/socket.h>

#include "sock.h"

int enable_credentials(int fd) {
  int on = 1;
  return setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on); // EXPECT-NOTE: SO_PASSCRED is enabled here
}
