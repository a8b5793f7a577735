#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "options.h"

int serve(void) {
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  strcpy(addr.sun_path, "/run/ctl.sock");
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  enable_credentials(fd);
  bind(fd, (struct sockaddr *)&addr, sizeof addr);
  listen(fd, 16);
  for (;;) {
    int conn = accept(fd, NULL, NULL);
    enable_credentials(conn);
    close(conn);
  }
}
