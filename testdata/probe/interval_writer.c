// A long-running writer (1.3 s): with AFUNIX_PROBE_INTERVAL=1 the probe writes a periodic report
// from an intercepted call before the one at exit.
// PROBE-EXPECT: none
#include "probe_util.h"
#include <time.h>

int main(void) {
  int sv[2];
  char c;
  CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
  struct timespec pause = {0, 100 * 1000 * 1000};
  for (int i = 0; i < 13; ++i) {
    CHECK(write(sv[0], "x", 1) == 1);
    CHECK(read(sv[1], &c, 1) == 1);
    nanosleep(&pause, NULL);
  }
  printf("13 writes over 1.3 s\n");
  return 0;
}
