// OPTIONS: --target-kernel=6.15
// The listener-after-listen variant is a 6.16 change: on 6.15 accepted sockets still inherit the
// flag at accept(), so nothing is reported for that kernel.
#define _GNU_SOURCE
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int start(void) {
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  listen(fd, 32);
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
  return fd;
}
