// A logging daemon's socket in a struct field: SO_PASSCRED through a wrapper, one line after
// bind(). The fix-it moves the wrapper call before bind().
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

struct logd {
  int fd;
  struct sockaddr_un addr;
};

static int setsockopt_int(int fd, int level, int name, int value) {
  return setsockopt(fd, level, name, &value, sizeof value);
}

int logd_open(struct logd *d) {
  d->fd = socket(AF_UNIX, SOCK_DGRAM, 0); // EXPECT-NOTE: socket created here
  bind(d->fd, (struct sockaddr *)&d->addr, sizeof d->addr); // EXPECT-NOTE: bind() here
  setsockopt_int(d->fd, SOL_SOCKET, SO_PASSCRED, 1); // EXPECT: afunix-passcred-too-late
  return d->fd;
}

// The fix-it, as --fix applies it:
// EXPECT-FIXED: setsockopt_int(d->fd, SOL_SOCKET, SO_PASSCRED, 1);
// EXPECT-FIXED: bind(d->fd, (struct sockaddr *)&d->addr, sizeof d->addr); // EXPECT-NOTE: bind() here
// EXPECT-FIXED: // EXPECT: afunix-passcred-too-late
// EXPECT-FIXED: return d->fd;
