// A helper makes listeners of any family and enables SO_PASSCRED on each; one caller asks for a
// TCP listener. The family crosses the call: the AF_INET6 listener is reported, the AF_UNIX one
// is not, and nothing else is (no listener-after-listen on the TCP socket).
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
  setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one); // EXPECT: afunix-passcred-wrong-family:3 // EXPECT-MESSAGE: created with AF_INET6
  if (bind(fd, addr, len) < 0 || listen(fd, 16) < 0) {
    close(fd);
    return -1;
  }
  return fd;
}

int open_listeners(void) {
  struct sockaddr_un local = {.sun_family = AF_UNIX, .sun_path = "/run/app.sock"};
  struct sockaddr_in6 tcp = {.sin6_family = AF_INET6, .sin6_port = htons(8080)};
  int a = bind_listen(AF_UNIX, (struct sockaddr *)&local, sizeof local);
  int b = bind_listen(AF_INET6, (struct sockaddr *)&tcp, sizeof tcp);
  return a >= 0 && b >= 0 ? 0 : -1;
}
