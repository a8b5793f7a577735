// An inherited fd spelled as a number (fd 3, the first socket-activation fd), through a wrapper.
#define _GNU_SOURCE
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int enable_option(int fd, int option) {
  int one = 1;
  return setsockopt(fd, SOL_SOCKET, option, &one, sizeof one);
}

int main(void) {
  return enable_option(3, SO_PASSCRED); // EXPECT: afunix-passcred-too-late EXPECT-MESSAGE: the parent process (inherited fd 3) made it
}
