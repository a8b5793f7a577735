#define _GNU_SOURCE
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "eventloop.h"

static void client_accept(struct pollfd *pfd, void *data) {
  (void)data;
  int nfd = accept(pfd->fd, NULL, 0);
  if (nfd < 0)
    return;
  int on = 1;
  setsockopt(nfd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
}

void server_setup(void) {
  int dev = open("/dev/mcelog", O_RDONLY); // another fd in the same struct pollfd field
  register_pollcb(dev, POLLIN, NULL, NULL);
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  strcpy(addr.sun_path, "/run/mcelog-client");
  int fd = socket(PF_UNIX, SOCK_STREAM, 0);
  if (fd < 0 || bind(fd, (struct sockaddr *)&addr, sizeof addr) < 0)
    return;
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
  listen(fd, 10);
  register_pollcb(fd, POLLIN, client_accept, NULL);
}

