/* The reference shapes of the kernel's own GC selftest (tools/testing/selftests/net/af_unix/
 * scm_rights.c: self_ref, triangle, cross_edge, backtrack_from_scc, mixed_lowpoint), as data.
 * Vertex i is the first end of socketpair i; a send {inflight, receiver} passes vertex
 * `inflight` (twice in one message, as the selftest does) over the second end of pair
 * `receiver`, so it is queued on vertex `receiver`'s receive queue.
 *
 * Plain C (also valid C++): the kernel experiment `gc_shapes` (FdExperiments.cpp) and the probe's
 * testdata program (testdata/probe/fd_cycle_shapes.c) build the same shapes from this one table. */
#ifndef AFUNIX_KERNEL_GC_SHAPES_H
#define AFUNIX_KERNEL_GC_SHAPES_H

#define AFUNIX_GC_SHAPE_MAX_SENDS 10
/* The user that builds the shapes when the builder runs as root. A kernel whose GC never frees a
 * shape (6.18.44 never frees mixed_lowpoint) leaves its sockets, and their fds in flight, charged
 * to the user that made them until reboot: to a user nothing else runs as, not to root, whose
 * fds in flight decide when its sends wait for the GC, nor to `nobody`. */
#define AFUNIX_GC_SHAPE_UID 65533
#define AFUNIX_GC_SHAPE_MAX_VERTICES 10

struct afunix_gc_send {
  int inflight;
  int receiver;
};

struct afunix_gc_shape {
  const char *name;
  int vertices; /* socketpairs */
  int sends;
  struct afunix_gc_send send[AFUNIX_GC_SHAPE_MAX_SENDS];
  int cycles;   /* strongly connected components with a cycle (the GC's garbage once closed) */
  int cyclic;   /* vertices in those components */
  int held;     /* vertices left once every fd is closed: the cyclic ones and what they hold */
};

static const struct afunix_gc_shape afunix_gc_shapes[] = {
    {"self_ref", 2, 2, {{0, 0}, {1, 1}}, 2, 2, 2},
    {"triangle", 6, 6, {{0, 1}, {1, 2}, {2, 0}, {3, 4}, {4, 5}, {5, 3}}, 2, 6, 6},
    {"cross_edge", 8, 10,
     {{0, 1}, {1, 2}, {2, 0}, {1, 3}, {3, 2}, {4, 5}, {5, 6}, {6, 4}, {5, 7}, {7, 6}}, 2, 8, 8},
    /* 0 and 5 are queued on the cycles {1,2,3} and {6,7,8} (and on 4 and 9, which are never in
     * flight): not part of a cycle, but held by one until the GC frees it. */
    {"backtrack_from_scc", 10, 10,
     {{0, 1}, {0, 4}, {1, 2}, {2, 3}, {3, 1}, {5, 6}, {5, 9}, {6, 7}, {7, 8}, {8, 6}}, 2, 6, 8},
    {"mixed_lowpoint", 6, 8,
     {{0, 1}, {1, 2}, {2, 1}, {1, 0}, {3, 4}, {4, 5}, {5, 4}, {4, 3}}, 2, 6, 6},
};

#define AFUNIX_GC_SHAPE_COUNT ((int)(sizeof afunix_gc_shapes / sizeof afunix_gc_shapes[0]))

/* Whether vertex v of `shape` is ever sent (in flight): such a vertex's close never frees it, so
 * closing the others first and these last leaves no close of ours to start a GC run. */
static inline int afunix_gc_shape_in_flight(const struct afunix_gc_shape *shape, int v) {
  for (int i = 0; i < shape->sends; ++i)
    if (shape->send[i].inflight == v)
      return 1;
  return 0;
}

#endif
