// A listener helper takes its family from the address it is given; the address is kept as a heap
// copy of the caller's bytes (malloc + memcpy into a struct sockaddr *). The caller fills in a
// sockaddr_in6: the family is sin6_family when written and sa_family when read, one field of one
// socket address, and it crosses the copy.
#define _GNU_SOURCE
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct address {
  struct sockaddr *sa;
  socklen_t len;
};

static void address_set(struct address *a, const struct sockaddr *src, socklen_t len) {
  a->sa = malloc(len);
  memcpy(a->sa, src, len);
  a->len = len;
}

static int bind_listen(const struct address *a) {
  int fd = socket(a->sa->sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return -1;
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one); // EXPECT: afunix-passcred-wrong-family:3 // EXPECT-MESSAGE: created with AF_INET6
  if (bind(fd, a->sa, a->len) < 0 || listen(fd, 16) < 0) {
    close(fd);
    return -1;
  }
  return fd;
}

int main(void) {
  struct sockaddr_in6 tcp = {.sin6_family = AF_INET6, .sin6_port = htons(6600)};
  struct address a;
  address_set(&a, (struct sockaddr *)&tcp, sizeof tcp);
  return bind_listen(&a) < 0;
}
