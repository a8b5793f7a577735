// 16 threads, each with its own SOCK_SEQPACKET pair, 2000 writes and 2000 reads each: the probe
// must count exactly 32000 writes and 32000 reads across threads that come and go.
// PROBE-EXPECT: none
#include "probe_util.h"
#include <pthread.h>

enum { kThreads = 16, kLoops = 2000 };

static void *worker(void *arg) {
  (void)arg;
  int sv[2];
  char c;
  CHECK(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) == 0);
  for (int i = 0; i < kLoops; ++i) {
    CHECK(write(sv[0], "x", 1) == 1);
    CHECK(read(sv[1], &c, 1) == 1);
  }
  close(sv[0]);
  close(sv[1]);
  return NULL;
}

int main(void) {
  // Two waves, so blocks released by exited threads are reused.
  for (int wave = 0; wave < 2; ++wave) {
    pthread_t threads[kThreads / 2];
    for (int i = 0; i < kThreads / 2; ++i)
      CHECK(pthread_create(&threads[i], NULL, worker, NULL) == 0);
    for (int i = 0; i < kThreads / 2; ++i)
      CHECK(pthread_join(threads[i], NULL) == 0);
  }
  printf("%d threads x %d round trips\n", kThreads, kLoops);
  return 0;
}
