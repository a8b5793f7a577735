// pos_family_in_braced_temporary.cc with an AF_UNIX endpoint: SO_PASSCRED is valid there, nothing
// to report.
#include <sys/socket.h>
#include <netinet/in.h>
#include <unistd.h>

struct Endpoint {
  int family;
  int port;
};

static int Listen(const Endpoint &endpoint) {
  int fd = socket(endpoint.family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return -1;
  int on = 1;
  if (setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

int main() {
  int tcp = Listen({AF_UNIX, 0});
  return tcp < 0;
}
