#define _GNU_SOURCE
#include "net/net.h"

#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

int net_open_unix(const char *path) {
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  bind(fd, (struct sockaddr *)&addr, sizeof addr);
  return fd;
}

int net_open_tcp(unsigned short port) {
  struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons(port)};
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  bind(fd, (struct sockaddr *)&addr, sizeof addr);
  return fd;
}
