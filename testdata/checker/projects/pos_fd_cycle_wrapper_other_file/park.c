#define _GNU_SOURCE
#include <sys/socket.h>
#include <unistd.h>

#include "fdpass.h"

int park(void) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) < 0) // EXPECT-NOTE: socket created here
    return -1;
  int r = send_fd(sv[0], sv[1]); // EXPECT: afunix-fd-cycle:11 EXPECT-MESSAGE: socketpair() peer
  close(sv[1]);
  return r;
}
