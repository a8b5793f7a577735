// pos_family_from_caller.c with AF_UNIX callers only: the helper's socket(family, ...) takes
// each caller's family.
#define _GNU_SOURCE
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int bind_listen(int family, const struct sockaddr *addr, socklen_t len) {
  int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return -1;
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
  if (bind(fd, addr, len) < 0 || listen(fd, 16) < 0) {
    close(fd);
    return -1;
  }
  return fd;
}

int open_listeners(void) {
  struct sockaddr_un local = {.sun_family = AF_UNIX, .sun_path = "/run/app.sock"};
  struct sockaddr_un other = {.sun_family = AF_UNIX, .sun_path = "/run/app2.sock"};
  int a = bind_listen(AF_UNIX, (struct sockaddr *)&local, sizeof local);
  int b = bind_listen(AF_UNIX, (struct sockaddr *)&other, sizeof other);
  return a >= 0 && b >= 0 ? 0 : -1;
}
