#define _GNU_SOURCE
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "eventloop.h"

static void client_accept(struct pollfd *pfd, void *data) {
  (void)data;
  int nfd = accept(pfd->fd, NULL, 0); // EXPECT-NOTE: accept() here
  if (nfd < 0)
    return;
  int on = 1;
  setsockopt(nfd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on); // EXPECT: afunix-passcred-too-late
}

void server_setup(void) {
  int dev = open("/dev/mcelog", O_RDONLY); // another fd in the same struct pollfd field
  register_pollcb(dev, POLLIN, NULL, NULL);
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  strcpy(addr.sun_path, "/run/mcelog-client");
  int fd = socket(PF_UNIX, SOCK_STREAM, 0); // EXPECT-NOTE: listening socket created here
  if (fd < 0 || bind(fd, (struct sockaddr *)&addr, sizeof addr) < 0)
    return;
  listen(fd, 10); // EXPECT-NOTE: listen() here
  register_pollcb(fd, POLLIN, client_accept, NULL);
}

// The fix-it, as --fix applies it:
// EXPECT-FIXED: { int afunix_on = 1; setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &afunix_on, sizeof afunix_on); }
// EXPECT-FIXED: listen(fd, 10); // EXPECT-NOTE: listen() here
