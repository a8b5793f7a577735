#include "handler.h"

#include <sys/socket.h>
#include <unistd.h>

void serve(Handler &handler) {
  int listener = ::socket(AF_UNIX, SOCK_STREAM, 0);
  int on = 1;
  ::setsockopt(listener, SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
  ::listen(listener, 8);
  for (;;) {
    int fd = ::accept(listener, nullptr, nullptr);
    handler.on_client(fd);
    ::close(fd);
  }
}
