// One AF_UNIX round trip, then (when asked) a wait for a signal, so that the tests can signal
// `afunix-probe run` while the program runs: `signal_wait wait` exits normally on SIGTERM,
// `signal_wait die` is killed by it. Without an argument it exits at once.
// PROBE-EXPECT: none
#include "probe_util.h"
#include <signal.h>

static volatile sig_atomic_t got;

static void on_signal(int sig) { got = sig; }

int main(int argc, char **argv) {
  int sv[2];
  char c;
  CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
  CHECK(write(sv[0], "x", 1) == 1);
  CHECK(read(sv[1], &c, 1) == 1);
  if (argc < 2) {
    printf("one round trip\n");
    return 0;
  }
  if (!strcmp(argv[1], "wait")) {
    struct sigaction sa = {0};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    CHECK(sigaction(SIGTERM, &sa, NULL) == 0);
  }
  printf("ready\n");
  fflush(stdout);
  while (!got)
    pause();
  printf("got signal %d\n", (int)got);
  return 0;
}
