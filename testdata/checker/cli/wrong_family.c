// SO_PASSCRED on an inet socket (afunix-passcred-wrong-family, since 6.16), once plain and once
// under NOLINT; the line numbers are asserted by cli_test.py.
#include <netinet/in.h>
#include <sys/socket.h>

int make_listener(void) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  if (setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one) < 0)
    return -1;
  return fd;
}

int make_quiet_listener(void) {
  int fd = socket(AF_INET6, SOCK_STREAM, 0);
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one); // NOLINT(afunix-passcred-wrong-family)
  return fd;
}
