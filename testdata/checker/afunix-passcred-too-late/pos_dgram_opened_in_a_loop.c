// A daemon opens one datagram socket per configured path, in a loop, and enables SO_PASSCRED on
// each after binding it: every turn makes a new socket, so the option of one turn does not come
// before the bind() of the next on the same socket. Both shapes: the whole turn in the loop body,
// and the turn through helpers over a list of ports (systemd's socket_open_fds()).
#include <stddef.h>
#include <sys/socket.h>
#include <sys/un.h>

int fds[8];

void open_all(const struct sockaddr_un *addrs, int n) {
  int on = 1;
  for (int i = 0; i < n && i < 8; i++) {
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0); // EXPECT-NOTE: socket created here
    if (fd < 0)
      continue;
    bind(fd, (const struct sockaddr *)&addrs[i], sizeof addrs[i]); // EXPECT-NOTE: bind() here
    setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on); // EXPECT: afunix-passcred-too-late:5
    fds[i] = fd;
  }
}

struct port {
  int fd;
  struct sockaddr_un address;
  struct port *next;
};

static int port_listen(const struct sockaddr_un *a) {
  int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return -1;
  if (bind(fd, (const struct sockaddr *)a, sizeof *a) < 0)
    return -1;
  return fd;
}

static void port_apply_options(int fd) {
  int on = 1;
  setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on); // EXPECT-NOTE: SO_PASSCRED is enabled here
}

void open_ports(struct port *ports) {
  for (struct port *p = ports; p; p = p->next) {
    p->fd = port_listen(&p->address); // EXPECT-NOTE: the socket is bound in this call
    if (p->fd < 0)
      continue;
    port_apply_options(p->fd); // EXPECT: afunix-passcred-too-late:5
  }
}

// The fix-its, as --fix applies them: the loop's call moves above its bind(); the helpers' case
// enables it in port_listen(), before its bind().
// EXPECT-FIXED:     setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
// EXPECT-FIXED:     bind(fd, (const struct sockaddr *)&addrs[i], sizeof addrs[i]); // EXPECT-NOTE: bind() here
// EXPECT-FIXED:   { int afunix_on = 1; setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &afunix_on, sizeof afunix_on); }
