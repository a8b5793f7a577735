// The findings of pos_dgram_after_bind.c and pos_accepted_socket.c, suppressed.
#define _GNU_SOURCE
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int open_log_socket(const struct sockaddr_un *addr) {
  int fd = socket(AF_UNIX, SOCK_DGRAM, 0);
  int on = 1;
  bind(fd, (const struct sockaddr *)addr, sizeof *addr);
  setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on); // NOLINT(afunix-passcred-too-late)
  return fd;
}

int accept_one(void) {
  int lfd = socket(AF_UNIX, SOCK_STREAM, 0);
  listen(lfd, 1);
  int cfd = accept(lfd, NULL, NULL);
  int on = 1;
  // NOLINTNEXTLINE(afunix-passcred-too-late)
  setsockopt(cfd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
  return cfd;
}
