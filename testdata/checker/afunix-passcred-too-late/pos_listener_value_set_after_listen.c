// A daemon's server setup as it is often written: the option's value is assigned next to the
// call, and both come after listen(). Moving only the setsockopt() above listen() would read `on`
// before it is set (uninitialised: SO_PASSCRED may end up off, and clang -Wall says nothing since
// the address is taken); the fix-it moves the assignment along with it.
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int server_open(const char *path) {
  struct sockaddr_un addr;
  int on;
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0); // EXPECT-NOTE: socket created here
  if (fd < 0)
    return -1;
  memset(&addr, 0, sizeof addr);
  addr.sun_family = AF_UNIX;
  strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
  if (bind(fd, (struct sockaddr *)&addr, sizeof addr) < 0 || listen(fd, 16) < 0) { // EXPECT-NOTE: listen() here
    close(fd);
    return -1;
  }
  on = 1;
  if (setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on) < 0) { // EXPECT: afunix-passcred-too-late EXPECT-MESSAGE: after listen(), before any accept()
    close(fd);
    return -1;
  }
  return fd;
}

// The fix-it moves `on = 1;` and the call, in that order, above the statement that listens:
// EXPECT-FIXED: strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
// EXPECT-FIXED: on = 1;
// EXPECT-FIXED: if (setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on) < 0) { // EXPECT: afunix-passcred-too-late EXPECT-MESSAGE: after listen(), before any accept()
// EXPECT-FIXED: close(fd);
// EXPECT-FIXED: return -1;
// EXPECT-FIXED: }
// EXPECT-FIXED: if (bind(fd, (struct sockaddr *)&addr, sizeof addr) < 0 || listen(fd, 16) < 0) { // EXPECT-NOTE: listen() here
// EXPECT-FIXED: close(fd);
// EXPECT-FIXED: return -1;
// EXPECT-FIXED: }
// EXPECT-FIXED: return fd;
