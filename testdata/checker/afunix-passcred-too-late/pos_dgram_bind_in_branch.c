// The datagram socket is bound in one branch (a path given) and gets SO_PASSCRED after the
// branches join: on the path that binds, datagrams queued in between carry no credentials. The
// bind() does not dominate the setsockopt(), but it comes before it on that path and never after.
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

int monitor_open(const char *path) {
  int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0); // EXPECT-NOTE: socket created here
  if (path) {
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
    if (bind(fd, (struct sockaddr *)&addr, sizeof addr) < 0) // EXPECT-NOTE: bind() here
      return -1;
  }
  int on = 1;
  setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on); // EXPECT: afunix-passcred-too-late:3
  return fd;
}

// The fix-it (the late call is outside the branch: it cannot move there), as --fix applies it:
// EXPECT-FIXED: { int afunix_on = 1; setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &afunix_on, sizeof afunix_on); }
// EXPECT-FIXED: if (bind(fd, (struct sockaddr *)&addr, sizeof addr) < 0) // EXPECT-NOTE: bind() here
