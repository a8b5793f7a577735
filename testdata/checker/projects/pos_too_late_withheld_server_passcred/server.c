#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "common.h"

// The helper: SO_PASSCRED on its listener before listen(), so every connection has it and the
// kernel attaches the helper's credentials to each answer when it queues it, whenever the client
// enables SO_PASSCRED on its side.
int helper_serve(void) {
  struct sockaddr_un addr = {.sun_family = AF_UNIX, .sun_path = HELPER_SOCKET};
  int one = 1;
  int lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (lfd < 0 || setsockopt(lfd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one) < 0) // EXPECT-NOTE: this peer has SO_PASSCRED before it answers
    return -1;
  if (bind(lfd, (struct sockaddr *)&addr, sizeof addr) < 0 || listen(lfd, 16) < 0)
    return -1;
  for (;;) {
    int conn = accept(lfd, NULL, NULL);
    if (conn < 0)
      continue;
    char request[64];
    if (read(conn, request, sizeof request) > 0)
      write(conn, "yes", 3);
    close(conn);
  }
}
