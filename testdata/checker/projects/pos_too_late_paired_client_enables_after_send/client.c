#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "common.h"

int client_command(const char *command) {
  struct sockaddr_un addr = {.sun_family = AF_UNIX, .sun_path = CONTROL_SOCKET};
  int one = 1;
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof addr) < 0)
    return -1;
  write(fd, command, strlen(command)); // EXPECT-NOTE: a client writes here right after connecting
  // Too late to help the server: the command above went out without credentials.
  setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
  char answer[4];
  return read(fd, answer, sizeof answer) == 3 && answer[0] == 'o' ? 0 : -1;
}
