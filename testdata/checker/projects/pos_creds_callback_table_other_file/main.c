#define _GNU_SOURCE
#include <stddef.h>
#include <sys/socket.h>

#include "loop.h"

int run(void) {
  int listener = socket(AF_UNIX, SOCK_SEQPACKET, 0); // EXPECT-NOTE: listening socket created here
  listen(listener, 8);
  for (;;) {
    int fd = accept(listener, NULL, NULL); // EXPECT-NOTE: accept() here
    if (fd >= 0)
      loop_watch(fd, &client_ops, NULL); // EXPECT: afunix-creds-without-passcred:7
  }
}

// The fix-it (on the listener, in this file; the credentials are read in another), as --fix
// applies it:
// EXPECT-FIXED: { int afunix_on = 1; setsockopt(listener, SOL_SOCKET, SO_PASSCRED, &afunix_on, sizeof afunix_on); }
// EXPECT-FIXED: listen(listener, 8);
