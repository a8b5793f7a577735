#define _GNU_SOURCE
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "common.h"

// The helper answers each request as soon as it has read it, from a socket without SO_PASSCRED:
// its answer carries no credentials of its own, and is queued before the client's late option.
int helper_serve(void) {
  struct sockaddr_un addr = {.sun_family = AF_UNIX, .sun_path = HELPER_SOCKET};
  int lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (lfd < 0 || bind(lfd, (struct sockaddr *)&addr, sizeof addr) < 0 || listen(lfd, 16) < 0)
    return -1;
  for (;;) {
    int conn = accept(lfd, NULL, NULL);
    if (conn < 0)
      continue;
    char request[64];
    if (read(conn, request, sizeof request) > 0)
      write(conn, "yes", 3); // EXPECT-NOTE: the peer answers here, without credentials of its own
    close(conn);
  }
}
