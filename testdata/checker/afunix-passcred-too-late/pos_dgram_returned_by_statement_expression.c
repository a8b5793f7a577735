// systemd-style ownership hand-off: the helper returns its socket through TAKE_FD(), a GNU
// statement expression that reads the variable through a pointer to it and clears it. The caller
// enables SO_PASSCRED on the datagram socket after the helper bound it.
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define TAKE_GENERIC(var, type, nullvalue)                                                         \
  ({                                                                                               \
    type *_pvar_ = &(var);                                                                         \
    type _var_ = *_pvar_;                                                                          \
    type _nullvalue_ = nullvalue;                                                                  \
    *_pvar_ = _nullvalue_;                                                                         \
    _var_;                                                                                         \
  })
#define TAKE_FD(fd) TAKE_GENERIC(fd, int, -1)

static int bind_dgram(const char *path) {
  int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0); // EXPECT-NOTE: socket created here
  if (fd < 0)
    return -1;
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
  if (bind(fd, (struct sockaddr *)&addr, sizeof addr) < 0) { // EXPECT-NOTE: bind() here
    close(fd);
    return -1;
  }
  return TAKE_FD(fd);
}

int main(void) {
  int fd = bind_dgram("/run/log.sock");
  if (fd < 0)
    return 1;
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one); // EXPECT: afunix-passcred-too-late:3
  char buf[256];
  return (int)recv(fd, buf, sizeof buf, 0);
}

// The fix-it, as --fix applies it:
// EXPECT-FIXED: strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
// EXPECT-FIXED: { int afunix_on = 1; setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &afunix_on, sizeof afunix_on); }
// EXPECT-FIXED: if (bind(fd, (struct sockaddr *)&addr, sizeof addr) < 0) { // EXPECT-NOTE: bind() here
