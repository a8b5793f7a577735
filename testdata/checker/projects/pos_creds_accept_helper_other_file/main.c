#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "client.h"

int main(void) {
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  strcpy(addr.sun_path, "/run/ctl.sock");
  int listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0); // EXPECT-NOTE: listening socket created here
  if (listener < 0 || bind(listener, (struct sockaddr *)&addr, sizeof addr) < 0)
    return 1;
  if (listen(listener, 16) < 0)
    return 1;
  for (;;) {
    int fd = accept4(listener, NULL, NULL, SOCK_CLOEXEC); // EXPECT-NOTE: accept() here
    if (fd < 0)
      continue;
    handle_client(fd);
    close(fd);
  }
}

// The fix-it (on the listener, in this file; the credentials are read in another), as --fix
// applies it:
// EXPECT-FIXED: { int afunix_on = 1; setsockopt(listener, SOL_SOCKET, SO_PASSCRED, &afunix_on, sizeof afunix_on); }
// EXPECT-FIXED: if (listen(listener, 16) < 0)
