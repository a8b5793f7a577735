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

// The fix-it (on the listener, in this file; the credentials are read in another), as --fix
// applies it:
// EXPECT-FIXED: { int afunix_on = 1; setsockopt(listener, SOL_SOCKET, SO_PASSCRED, &afunix_on, sizeof afunix_on); }
// EXPECT-FIXED: ::listen(listener, 8);
