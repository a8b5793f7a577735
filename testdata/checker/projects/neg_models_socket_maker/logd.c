// The datagram socket comes from lsock_socket(), which only makes it: SO_PASSCRED is enabled
// before the program's own bind(). The listener from lsock_server() gets no SO_PASSCRED and its
// connections are read for bytes only.
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "lsock.h"

int open_log_socket(const char *path) {
  int fd = lsock_socket(SOCK_DGRAM | SOCK_CLOEXEC);
  int one = 1;
  if (setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one) < 0)
    return -1;
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
  if (bind(fd, (struct sockaddr *)&addr, sizeof addr) < 0)
    return -1;
  return fd;
}

int serve_control(char *buf, size_t len) {
  int listener = lsock_server("logd", SOCK_SEQPACKET);
  int conn = accept(listener, NULL, NULL);
  return (int)read(conn, buf, len);
}
