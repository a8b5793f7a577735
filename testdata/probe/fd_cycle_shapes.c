// The reference shapes of the kernel's own GC selftest (scm_rights.c: self_ref, triangle,
// cross_edge, backtrack_from_scc, mixed_lowpoint; runtime-probe/kernel/include/afunix/kernel/
// gc_shapes.h), built on socketpairs and closed: each leaves its cycles, and what they hold, in
// flight with no fd. The program checks what the kernel kept (/proc/net/unix) and says it on
// stderr, with the inodes, so that a test can compare them with what the probe reports (stdout,
// which must not change under the probe, says only what was built: a GC run started elsewhere on
// the machine may free garbage before it is seen, "seen freed early" on stderr).
//   fd_cycle_shapes [SHAPE|all] [garbage|received] [stream|dgram|seqpacket]
// "received" receives every fd before the closes: nothing is left.
// PROBE-EXPECT: afunix-fd-cycle
#include "probe_util.h"

#include "afunix/kernel/gc_shapes.h"

#define ATTEMPTS 8

static int drain(int fd) {
  int received = 0;
  char byte;
  for (;;) {
    struct iovec iov = {&byte, 1};
    union {
      char buf[CMSG_SPACE(sizeof(int) * 2)];
      struct cmsghdr align;
    } u;
    struct msghdr msg = {0};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = u.buf;
    msg.msg_controllen = sizeof u.buf;
    if (recvmsg(fd, &msg, MSG_DONTWAIT) <= 0)
      return received;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
      if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
        for (size_t i = 0; i < (c->cmsg_len - CMSG_LEN(0)) / sizeof(int); ++i) {
          int got;
          memcpy(&got, CMSG_DATA(c) + i * sizeof(int), sizeof got);
          close(got);
          ++received;
        }
  }
}

// Builds `shape`, closes every fd (the sockets that are not in flight first: closing those last
// would start a GC run ourselves), and returns how many of its vertices the kernel still lists.
static int run_shape(const struct afunix_gc_shape *shape, int type, int receive_first,
                     unsigned long *inodes, int *listed) {
  int fd[2 * AFUNIX_GC_SHAPE_MAX_VERTICES];
  for (int v = 0; v < shape->vertices; ++v) {
    CHECK(socketpair(AF_UNIX, type, 0, fd + 2 * v) == 0);
    inodes[v] = inode_of(fd[2 * v]);
  }
  for (int i = 0; i < shape->sends; ++i) {
    // Like the selftest: the vertex twice in one message, over the receiver's other end.
    int inflight = fd[2 * shape->send[i].inflight];
    CHECK(send_fds(fd[2 * shape->send[i].receiver + 1], inflight, 2) == 1); // PROBE-AT: afunix-fd-cycle
  }
  if (receive_first)
    for (int v = 0; v < shape->vertices; ++v)
      drain(fd[2 * v]);
  for (int v = 0; v < shape->vertices; ++v)
    close(fd[2 * v + 1]);
  for (int v = 0; v < shape->vertices; ++v)
    if (!afunix_gc_shape_in_flight(shape, v))
      close(fd[2 * v]);
  let_gc_run();
  for (int v = 0; v < shape->vertices; ++v)
    if (afunix_gc_shape_in_flight(shape, v))
      close(fd[2 * v]);
  return sockets_listed_which(inodes, shape->vertices, listed);
}

int main(int argc, char **argv) {
  // Garbage the kernel never frees is charged to whoever made it: not to root (gc_shapes.h).
  if (geteuid() == 0)
    CHECK(setgid(AFUNIX_GC_SHAPE_UID) == 0 && setuid(AFUNIX_GC_SHAPE_UID) == 0);
  const char *only = argc > 1 ? argv[1] : "all";
  int receive_first = argc > 2 && !strcmp(argv[2], "received");
  int type = SOCK_STREAM;
  if (argc > 3)
    type = !strcmp(argv[3], "dgram") ? SOCK_DGRAM : !strcmp(argv[3], "seqpacket") ? SOCK_SEQPACKET : SOCK_STREAM;
  int ran = 0;
  for (int s = 0; s < AFUNIX_GC_SHAPE_COUNT; ++s) {
    const struct afunix_gc_shape *shape = &afunix_gc_shapes[s];
    if (strcmp(only, "all") && strcmp(only, shape->name))
      continue;
    ++ran;
    unsigned long inodes[AFUNIX_GC_SHAPE_MAX_VERTICES];
    int listed[AFUNIX_GC_SHAPE_MAX_VERTICES];
    int left = 0;
    // A GC run started elsewhere on the machine can free the garbage before it is looked at.
    for (int attempt = 0; attempt < ATTEMPTS; ++attempt) {
      left = run_shape(shape, type, receive_first, inodes, listed);
      if (receive_first || left == shape->held)
        break;
      fprintf(stderr, "%s: %d left on attempt %d (a GC run from elsewhere?); again\n", shape->name, left, attempt + 1);
    }
    printf("%s: %d sockets, %d sends, every fd %s\n", shape->name, shape->vertices, shape->sends,
           receive_first ? "received, then closed" : "closed");
    fprintf(stderr, "%s: %d of %d sockets left in flight after the closes%s\n", shape->name, left,
            shape->vertices, !receive_first && left != shape->held ? " (seen freed early)" : "");
    fprintf(stderr, "%s left:", shape->name);
    for (int v = 0; v < shape->vertices; ++v)
      if (listed[v])
        fprintf(stderr, " %lu", inodes[v]);
    fprintf(stderr, "\n");
  }
  if (!ran) {
    fprintf(stderr, "fd_cycle_shapes: no shape named '%s'\n", only);
    return 2;
  }
  return 0;
}
