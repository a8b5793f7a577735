#include "handler.h"

#include <sys/socket.h>
#include <unistd.h>

void serve(Handler &handler) {
  int listener = ::socket(AF_UNIX, SOCK_STREAM, 0); // EXPECT-NOTE: listening socket created here
  ::listen(listener, 8);
  for (;;) {
    int fd = ::accept(listener, nullptr, nullptr); // EXPECT-NOTE: accept() here
    handler.on_client(fd); // EXPECT: afunix-creds-without-passcred:5
    ::close(fd);
  }
}
