// Endpoints are described by a small struct passed as a braced temporary to a `const &`
// parameter: Listen({AF_INET6, 8080}). The helper makes socket(endpoint.family, ...) and enables
// SO_PASSCRED, which fails with EOPNOTSUPP on the TCP endpoint since Linux 6.16. The family is a
// field of the temporary the list fills in.
#include <sys/socket.h>
#include <netinet/in.h>
#include <unistd.h>

struct Endpoint {
  int family;
  int port;
};

static int Listen(const Endpoint &endpoint) {
  int fd = socket(endpoint.family, SOCK_STREAM | SOCK_CLOEXEC, 0); // EXPECT-NOTE: socket created here with AF_INET6
  if (fd < 0)
    return -1;
  int on = 1;
  if (setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on) != 0) { // EXPECT: afunix-passcred-wrong-family
    close(fd);
    return -1;
  }
  return fd;
}

int main() {
  int tcp = Listen({AF_INET6, 8080});
  return tcp < 0;
}
