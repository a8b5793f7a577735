#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int log_line(const char *text) {
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  memcpy(addr.sun_path, "\0logger", 7);
  int one = 1;
  int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  // Its own SO_PASSCRED: every datagram carries its credentials, however late the server is.
  if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one) < 0)
    return -1;
  ssize_t n = sendto(fd, text, strlen(text), 0, (struct sockaddr *)&addr, sizeof addr);
  close(fd);
  return n < 0 ? -1 : 0;
}
