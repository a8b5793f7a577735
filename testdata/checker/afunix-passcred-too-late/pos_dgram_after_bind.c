// A datagram socket gets SO_PASSCRED after bind(): datagrams queued in between carry
// pid=0 uid=65534. The fix-it moves the setsockopt() before bind().
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int open_log_socket(const char *path) {
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
  int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0); // EXPECT-NOTE: socket created here
  if (fd < 0)
    return -1;
  int on = 1;
  if (bind(fd, (struct sockaddr *)&addr, sizeof addr) < 0) { // EXPECT-NOTE: bind() here
    close(fd);
    return -1;
  }
  if (setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on) < 0) { // EXPECT: afunix-passcred-too-late EXPECT-MESSAGE: datagram socket 'fd' after bind()
    close(fd);
    return -1;
  }
  return fd;
}

// The fix-it, as --fix applies it:
// EXPECT-FIXED: if (setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on) < 0) { // EXPECT: afunix-passcred-too-late EXPECT-MESSAGE: datagram socket 'fd' after bind()
// EXPECT-FIXED: close(fd);
// EXPECT-FIXED: return -1;
// EXPECT-FIXED: }
// EXPECT-FIXED: if (bind(fd, (struct sockaddr *)&addr, sizeof addr) < 0) { // EXPECT-NOTE: bind() here
