#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "common.h"

// The helper connection: made and connected here, used by auth.c.
int helper_connect(void) {
  struct sockaddr_un addr = {.sun_family = AF_UNIX, .sun_path = HELPER_SOCKET};
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0); // EXPECT-NOTE: socket created here
  if (fd < 0)
    return -1;
  if (connect(fd, (struct sockaddr *)&addr, sizeof addr) < 0) { // EXPECT-NOTE: connect() here
    close(fd);
    return -1;
  }
  return fd;
}

int helper_send(int fd, const char *request) {
  return send(fd, request, strlen(request), MSG_NOSIGNAL) < 0 ? -1 : 0; // EXPECT-NOTE: the request is sent here, before SO_PASSCRED is enabled
}

// The fix-it, as --fix applies it:
// EXPECT-FIXED: { int afunix_on = 1; setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &afunix_on, sizeof afunix_on); }
// EXPECT-FIXED: if (connect(fd, (struct sockaddr *)&addr, sizeof addr) < 0) { // EXPECT-NOTE: connect() here
