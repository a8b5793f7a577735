#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "common.h"

int client_command(const char *command) {
  struct sockaddr_un addr = {.sun_family = AF_UNIX, .sun_path = CONTROL_SOCKET};
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof addr) < 0)
    return -1;
  char answer[8];
  if (read(fd, answer, sizeof answer) <= 0) // the server's greeting first
    return -1;
  write(fd, command, strlen(command));
  return read(fd, answer, sizeof answer) == 3 && answer[0] == 'o' ? 0 : -1;
}
