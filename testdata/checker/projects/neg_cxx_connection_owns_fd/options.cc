#include <sys/socket.h>

bool enable_credentials(int fd) {
  int on = 1;
  return ::setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on) == 0;
}
