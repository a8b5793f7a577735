#define _GNU_SOURCE
#include <sys/socket.h>
#include <unistd.h>

#include "client.h"
#include "listener.h"

int main(void) {
  int listener = open_listener("/run/ctl.sock");
  if (listener < 0)
    return 1;
  for (;;) {
    int fd = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
    if (fd < 0)
      continue;
    handle_client(fd);
    close(fd);
  }
}
