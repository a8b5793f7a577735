#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "sock.h"

int open_bound(const char *path) {
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
  int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0); // EXPECT-NOTE: socket created here
  if (fd >= 0)
    bind(fd, (struct sockaddr *)&addr, sizeof addr); // EXPECT-NOTE: bind() here
  return fd;
}

// The fix-it (the late call is in the caller, in another file; it goes before the whole `if`), as --fix
// applies it:
// EXPECT-FIXED: { int afunix_on = 1; setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &afunix_on, sizeof afunix_on); }
// EXPECT-FIXED: if (fd >= 0)
// EXPECT-FIXED: bind(fd, (struct sockaddr *)&addr, sizeof addr); // EXPECT-NOTE: bind() here
