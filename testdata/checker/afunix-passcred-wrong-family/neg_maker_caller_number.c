// A maker (socket_cloexec(domain, type)) is called with AF_UNIX by a server helper that takes a
// backlog of its own; main() asks for a backlog of 10, the value of AF_INET6. The maker's family
// is its own call's constant: the helper's argument at the same position is not a family.
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int socket_cloexec(int domain, int type) {
  return socket(domain, type | SOCK_CLOEXEC, 0);
}

static int server_new(int backlog) {
  struct sockaddr_un sa;
  memset(&sa, 0, sizeof sa);
  sa.sun_family = AF_UNIX;
  strncpy(sa.sun_path, "/run/app.sock", sizeof sa.sun_path - 1);
  int lfd = socket_cloexec(AF_UNIX, SOCK_STREAM);
  int one = 1;
  setsockopt(lfd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
  bind(lfd, (struct sockaddr *)&sa, sizeof sa);
  listen(lfd, backlog);
  return lfd;
}

int main(void) {
  int lfd = server_new(10);
  for (;;)
    close(accept(lfd, NULL, NULL));
}
