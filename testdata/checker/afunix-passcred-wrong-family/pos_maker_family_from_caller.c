// A maker (socket_cloexec(domain, type)) takes its family from a server helper, which takes it
// from its own callers: the family crosses two calls. main() asks for an AF_INET6 listener, and
// the helper enables SO_PASSCRED on every listener it makes.
#define _GNU_SOURCE
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int socket_cloexec(int domain, int type) {
  return socket(domain, type | SOCK_CLOEXEC, 0);
}

static int server_new(int family, const struct sockaddr *addr, socklen_t len) {
  int lfd = socket_cloexec(family, SOCK_STREAM);
  int one = 1;
  setsockopt(lfd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one); // EXPECT: afunix-passcred-wrong-family:3 EXPECT-MESSAGE: created with AF_INET6
  bind(lfd, addr, len);
  listen(lfd, 16);
  return lfd;
}

int main(void) {
  struct sockaddr_in6 tcp = {.sin6_family = AF_INET6, .sin6_port = htons(8080)};
  int lfd = server_new(AF_INET6, (struct sockaddr *)&tcp, sizeof tcp);
  for (;;)
    close(accept(lfd, NULL, NULL));
}
