// The same helper asked for SO_PASSCRED at SOL_SOCKET, on a TCP listener: the level and the
// option both cross the call, and the option is the credential one (EOPNOTSUPP since 6.16).
#include <netinet/in.h>
#include <sys/socket.h>

static int setsockopt_int(int fd, int level, int option, int value) {
  if (setsockopt(fd, level, option, &value, sizeof value) < 0)
    return -1;
  return 0;
}

int open_tcp(const struct sockaddr_in6 *a) {
  int fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0); // EXPECT-NOTE: socket created here
  if (fd < 0)
    return -1;
  setsockopt_int(fd, SOL_SOCKET, SO_PASSCRED, 1); // EXPECT: afunix-passcred-wrong-family
  bind(fd, (const struct sockaddr *)a, sizeof *a);
  listen(fd, 16);
  return fd;
}
