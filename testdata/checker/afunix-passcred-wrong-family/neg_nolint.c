// pos_inet_listener.c's finding, suppressed with NOLINT (errors are handled by the caller).
#define _GNU_SOURCE
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int open_tcp(void) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  (void)setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one); // NOLINT(afunix-passcred-wrong-family)
  return fd;
}
