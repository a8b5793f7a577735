// Plain AF_UNIX code with no finding: a socketpair used for a single message.
#include <sys/socket.h>
#include <unistd.h>

int ping(void) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
    return -1;
  char byte = 1;
  int ok = write(sv[0], &byte, 1) == 1 && read(sv[1], &byte, 1) == 1;
  close(sv[0]);
  close(sv[1]);
  return ok ? 0 : -1;
}
