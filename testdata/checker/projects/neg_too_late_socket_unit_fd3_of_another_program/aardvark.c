// Another program of the same database, built first in path order: its fd 3 is its own socket
// (aardvark.socket, no PassCredentials=), not the logger's.
#include <sys/socket.h>

#include "sd-daemon.h"

int main(void) {
  char buffer[512];
  if (sd_listen_fds(1) != 1)
    return 1;
  int fd = SD_LISTEN_FDS_START;
  for (;;)
    if (recv(fd, buffer, sizeof buffer, 0) < 0)
      return 1;
}
