// SO_PASSCRED set on each accepted socket, never on the listener: a client that writes between
// accept() and the setsockopt() is seen as pid=0 uid=65534 on Linux 3.2+ (what it wrote before
// accept() keeps its credentials: the not-yet-accepted socket gets them attached). The fix-it
// enables it on the listener before listen().
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int serve(const char *path) {
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
  int lfd = socket(AF_UNIX, SOCK_STREAM, 0); // EXPECT-NOTE: listening socket created here
  if (lfd < 0)
    return -1;
  if (bind(lfd, (struct sockaddr *)&addr, sizeof addr) < 0)
    return -1;
  if (listen(lfd, 16) < 0) // EXPECT-NOTE: listen() here
    return -1;
  for (;;) {
    int cfd = accept(lfd, NULL, NULL); // EXPECT-NOTE: accept() here
    if (cfd < 0)
      continue;
    int one = 1;
    setsockopt(cfd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one); // EXPECT: afunix-passcred-too-late EXPECT-MESSAGE: accepted socket 'cfd' only after accept(): messages the client sends between accept() and this call arrive with pid=0 EXPECT-MESSAGE: (what it sent before accept() keeps its credentials)
    close(cfd);
  }
}

// The fix-it, as --fix applies it:
// EXPECT-FIXED: { int afunix_on = 1; setsockopt(lfd, SOL_SOCKET, SO_PASSCRED, &afunix_on, sizeof afunix_on); }
// EXPECT-FIXED: if (listen(lfd, 16) < 0) // EXPECT-NOTE: listen() here
