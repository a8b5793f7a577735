// A service manager applies PassCredentials= to every listener it opens, including a TCP one:
// since Linux 6.16 setsockopt() fails with EOPNOTSUPP and the service fails to start.
#define _GNU_SOURCE
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int open_tcp(unsigned short port) {
  struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons(port)};
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0); // EXPECT-NOTE: socket created here with AF_INET
  int one = 1;
  if (setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one) < 0) // EXPECT: afunix-passcred-wrong-family EXPECT-MESSAGE: SO_PASSCRED on socket 'fd' created with AF_INET
    return -1;
  bind(fd, (struct sockaddr *)&addr, sizeof addr);
  listen(fd, 128);
  return fd;
}
