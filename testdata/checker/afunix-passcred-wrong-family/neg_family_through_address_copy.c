// The same helper as pos_family_through_address_copy.c, given a local address: the family that
// crosses the copy is AF_UNIX, where SO_PASSCRED is valid.
#define _GNU_SOURCE
#include <sys/un.h>
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
  setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
  if (bind(fd, a->sa, a->len) < 0 || listen(fd, 16) < 0) {
    close(fd);
    return -1;
  }
  return fd;
}

int main(void) {
  struct sockaddr_un local = {.sun_family = AF_UNIX, .sun_path = "/run/app.sock"};
  struct address a;
  address_set(&a, (struct sockaddr *)&local, sizeof local);
  return bind_listen(&a) < 0;
}
