// The fixed loop: each turn enables SO_PASSCRED on its new socket before bind(). The option of
// one turn does come after the bind() of the turn before, on another socket: no finding.
#include <sys/socket.h>
#include <sys/un.h>

int fds[8];

void open_all(const struct sockaddr_un *addrs, int n) {
  int on = 1;
  for (int i = 0; i < n && i < 8; i++) {
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
      continue;
    setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
    bind(fd, (const struct sockaddr *)&addrs[i], sizeof addrs[i]);
    fds[i] = fd;
  }
}
