// OPTIONS: --target-kernel=6.15
// Before 6.16 SO_PASSCRED on an inet socket is accepted (and does nothing): not a finding for a
// 6.15 target.
#define _GNU_SOURCE
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int open_tcp(void) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
  return fd;
}
