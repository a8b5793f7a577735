// Sends a socket over itself and over its socketpair() peer. Had the program closed both ends
// with these still queued, only the unix garbage collector could free them; here they are
// received and closed, but the pattern is what the probe reports.
// PROBE-EXPECT: afunix-fd-cycle
#include "probe_util.h"

int main(void) {
  int sv[2];
  CHECK(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) == 0); // PROBE-SOCKET: afunix-fd-cycle dgram socketpair
  CHECK(send_fds(sv[0], sv[0], 1) == 1); // over itself. PROBE-AT: afunix-fd-cycle
  CHECK(send_fds(sv[0], sv[1], 1) == 1); // over its peer. PROBE-AT: afunix-fd-cycle
  int received = recv_and_close_fds(sv[1]);
  received += recv_and_close_fds(sv[1]);
  printf("sent a socket over itself and over its peer; %d received back\n", received);
  close(sv[0]);
  close(sv[1]);
  return 0;
}
