// Sends AF_UNIX socket fds without waiting for the peer to receive them: 9 messages of 253 fds
// leave 2277 fds in flight, past the 2024 at which 6.8+ kernels make such a sendmsg() wait for
// the unix garbage collector (and past RLIMIT_NOFILE, for non-root users: ETOOMANYREFS).
// PROBE-EXPECT: afunix-fd-flood
#include "probe_util.h"

int main(void) {
  int transport[2], passed[2];
  CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, transport) == 0); // PROBE-SOCKET: afunix-fd-flood stream socketpair
  CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, passed) == 0);
  int refused = 0;
  for (int i = 0; i < 9; ++i)
    if (send_fds(transport[0], passed[0], 253) < 0) { // PROBE-AT: afunix-fd-flood
      CHECK(errno == ETOOMANYREFS);
      refused = 1;
      break;
    }
  printf("flood sent%s\n", refused ? " (stopped by ETOOMANYREFS)" : "");
  // Closing the receiving end drops everything still queued: no cycle, nothing leaks.
  close(transport[1]);
  close(transport[0]);
  close(passed[0]);
  close(passed[1]);
  return 0;
}
