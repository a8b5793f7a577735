#define _GNU_SOURCE
#include <sys/socket.h>

#include "net.h"

int apply_pass_credentials(int fd) {
  int on = 1;
  return setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on); // EXPECT: afunix-passcred-wrong-family:10 EXPECT-MESSAGE: created with AF_INET
}
