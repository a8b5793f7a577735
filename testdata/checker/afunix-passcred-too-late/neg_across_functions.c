// bind() and SO_PASSCRED in different functions: the checker does not order calls across
// functions, so this stays quiet (a known false negative, see docs/rules/afunix-passcred-too-late.md).
#define _GNU_SOURCE
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

struct rx {
  int fd;
};

void rx_bind(struct rx *r, const struct sockaddr_un *addr) {
  r->fd = socket(AF_UNIX, SOCK_DGRAM, 0);
  bind(r->fd, (const struct sockaddr *)addr, sizeof *addr);
}

void rx_enable_creds(struct rx *r) {
  int one = 1;
  setsockopt(r->fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
}
