#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int log_line(const char *text) {
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  memcpy(addr.sun_path, "\0logger", 7);
  int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return -1;
  ssize_t n = sendto(fd, text, strlen(text), 0, (struct sockaddr *)&addr, sizeof addr); // EXPECT-NOTE: a client writes here right after connecting
  close(fd);
  return n < 0 ? -1 : 0;
}
