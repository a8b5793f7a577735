// The option is applied only after checking the family, directly or through SO_DOMAIN.
#define _GNU_SOURCE
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static void maybe_pass_credentials(int fd) {
  int domain = 0;
  socklen_t len = sizeof domain;
  int one = 1;
  if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) == 0 && domain == AF_UNIX)
    setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
}

int open_socket(int family) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  if (family == AF_UNIX)
    setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
  maybe_pass_credentials(fd);
  int any = socket(family, SOCK_STREAM, 0);
  setsockopt(any, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
  return fd;
}
