// 3000 fds sent and nearly none received: the receiving sockets are closed with their fds unread,
// which releases what is queued on them. What the kernel holds in flight never comes near 2024, so
// no fd-flood warning is due; sent minus received would say 3000. After every send the program
// sums what the kernel holds (`scm_fds` in /proc/self/fdinfo of each open receiver, Linux 5.6+)
// and prints the largest sum and the last one: the probe's fds_in_flight_high_water and
// fds_in_flight must equal them.
// PROBE-EXPECT: none
#include "probe_util.h"

#include <fcntl.h>

#define RECEIVERS 3     // open at once
#define PER_RECEIVER 150 // messages before a receiver is closed unread
#define SENDS 3000

static long scm_fds(int fd) {
  char path[64], line[128];
  snprintf(path, sizeof path, "/proc/self/fdinfo/%d", fd);
  FILE *f = fopen(path, "r");
  CHECK(f != NULL);
  long n = -1;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "scm_fds: %ld", &n) == 1)
      break;
  fclose(f);
  return n;
}

int main(void) {
  int pairs[RECEIVERS][2];
  int passed[2];
  CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, passed) == 0);
  int devnull = open("/dev/null", O_RDONLY);
  CHECK(devnull >= 0);
  for (int r = 0; r < RECEIVERS; ++r)
    CHECK(socketpair(AF_UNIX, SOCK_DGRAM, 0, pairs[r]) == 0);
  long most = 0, now = 0;
  int received = 0;
  for (int i = 0; i < SENDS; ++i) {
    int r = (i / PER_RECEIVER) % RECEIVERS;
    if (i && i % PER_RECEIVER == 0) {
      // A receiver's turn comes round again: close it with everything unread, open a new one.
      close(pairs[r][0]);
      close(pairs[r][1]);
      CHECK(socketpair(AF_UNIX, SOCK_DGRAM, 0, pairs[r]) == 0);
    }
    // An AF_UNIX socket most of the time, /dev/null every fifth: the kernel counts every fd.
    CHECK(send_fds(pairs[r][0], i % 5 ? passed[0] : devnull, 1) == 1);
    // What the kernel holds now: only sends add to it, so its largest value is seen here.
    now = 0;
    for (int k = 0; k < RECEIVERS; ++k) {
      long n = scm_fds(pairs[k][1]);
      CHECK(n >= 0); // Linux 5.6+
      now += n;
    }
    if (now > most)
      most = now;
    if (i % 50 == 49) {
      received += recv_and_close_fds(pairs[r][1]); // some are received, most are not
      --now;
    }
  }
  printf("%d fds sent, %d received; the kernel held at most %ld in flight, %ld at the end\n", SENDS,
         received, most, now);
  for (int r = 0; r < RECEIVERS; ++r) {
    close(pairs[r][0]);
    close(pairs[r][1]);
  }
  close(passed[0]);
  close(passed[1]);
  close(devnull);
  return 0;
}
