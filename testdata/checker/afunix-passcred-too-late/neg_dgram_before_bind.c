// SO_PASSCRED before bind() on a datagram socket, set behind a flag; and a stream socket that
// gets it after bind() but before listen(), when no peer can have queued anything yet.
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int open_dgram(const struct sockaddr_un *addr, int authenticate) {
  int fd = socket(AF_UNIX, SOCK_DGRAM, 0);
  int on = 1;
  if (authenticate)
    setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
  if (bind(fd, (const struct sockaddr *)addr, sizeof *addr) < 0)
    return -1;
  return fd;
}

int open_stream(const struct sockaddr_un *addr) {
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  int on = 1;
  bind(fd, (const struct sockaddr *)addr, sizeof *addr);
  setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
  listen(fd, 8);
  return fd;
}

int disable_later(const struct sockaddr_un *addr) {
  int fd = socket(AF_UNIX, SOCK_DGRAM, 0);
  int off = 0;
  bind(fd, (const struct sockaddr *)addr, sizeof *addr);
  setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &off, sizeof off);
  return fd;
}
