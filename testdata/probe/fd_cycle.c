// Sockets left in flight on their own receive queue, and sends that look alike but are not:
//   - sv[1] sent over sv[0] of a socketpair, both closed: sv[1] is queued on its own receive queue
//     and outlives the closes until a unix GC run (reported);
//   - a datagram socket sent to its own bound address, then closed: the same (reported);
//   - sv[0] sent over sv[0]: it is queued on sv[1], whose close frees it (not a cycle);
//   - sv[1] sent over sv[0] and received back before the closes (the fix: nothing left).
// Each case checks what the kernel did (/proc/net/unix) and says it on stderr: a GC run that
// something else on the machine starts at the wrong moment can free garbage before it is seen, so
// stdout (which must not change under the probe) says only what was done.
// PROBE-EXPECT: afunix-fd-cycle
#include "probe_util.h"

// A GC run that something else on the machine started (any AF_UNIX close while fds are in flight)
// can free the garbage before it is looked at: a case that found none is run again, a few times.
#define ATTEMPTS 4

static int own_queue(void) {
  int sv[2];
  CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
  unsigned long inodes[2] = {inode_of(sv[0]), inode_of(sv[1])};
  CHECK(send_fds(sv[0], sv[1], 1) == 1); // PROBE-AT: afunix-fd-cycle
  close(sv[0]); // not in flight: released now (and a GC run starts while sv[1] is still open)
  let_gc_run();
  close(sv[1]); // in flight on its own queue: nothing is released
  return sockets_listed(inodes, 2);
}

static int own_address(void) {
  struct sockaddr_un addr = {0};
  addr.sun_family = AF_UNIX;
  socklen_t len = sizeof(sa_family_t); // autobind: a fresh abstract name
  int s = socket(AF_UNIX, SOCK_DGRAM, 0);
  CHECK(s >= 0);
  CHECK(bind(s, (struct sockaddr *)&addr, len) == 0);
  len = sizeof addr;
  CHECK(getsockname(s, (struct sockaddr *)&addr, &len) == 0);
  unsigned long inode = inode_of(s);
  CHECK(send_fd_to(s, s, &addr, len) == 1); // PROBE-AT: afunix-fd-cycle
  close(s);
  return sockets_listed(&inode, 1);
}

static int over_itself(void) {
  int sv[2];
  CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
  unsigned long inodes[2] = {inode_of(sv[0]), inode_of(sv[1])};
  CHECK(send_fds(sv[0], sv[0], 1) == 1);
  close(sv[0]);
  close(sv[1]);
  return sockets_listed(inodes, 2);
}

static int received_back(void) {
  int sv[2];
  CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
  unsigned long inodes[2] = {inode_of(sv[0]), inode_of(sv[1])};
  CHECK(send_fds(sv[0], sv[1], 1) == 1);
  CHECK(recv_and_close_fds(sv[1]) == 1);
  close(sv[0]);
  close(sv[1]);
  return sockets_listed(inodes, 2);
}

int main(void) {
  int left = 0;
  for (int attempt = 0; attempt < ATTEMPTS && !left; ++attempt)
    left = own_queue();
  fprintf(stderr, "sv[1] sent over sv[0], both closed: %d socket left for the GC\n", left);
  left = 0;
  for (int attempt = 0; attempt < ATTEMPTS && !left; ++attempt)
    left = own_address();
  fprintf(stderr, "dgram socket sent to its own address, closed: %d socket left for the GC\n", left);
  fprintf(stderr, "sv[0] sent over sv[0], both closed: %d left\n", over_itself());
  fprintf(stderr, "sv[1] sent over sv[0], received back, both closed: %d left\n", received_back());
  printf("sent sv[1] over sv[0], a datagram socket to its own address, sv[0] over sv[0], and sv[1] "
         "over sv[0] received back; closed them all\n");
  return 0;
}
