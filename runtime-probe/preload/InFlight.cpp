// The in-flight graph, after the kernel's (net/unix/garbage.c, 6.10+): which AF_UNIX socket is
// queued on which socket's receive queue, what this process still has in flight, and which
// strongly connected components are left without an open fd (the garbage only a GC run frees).
//
// Sockets enter the graph when they take part in fd passing (sent, sent over, received), keyed by
// inode; every fd of this process that refers to one is mapped to it (dup() maps eagerly), so a
// socket's last close is known. An edge says "socket X is queued, `count` times, on receiver R"
// (R unknown when the message went to a socket this process cannot follow: it is then charged to
// the socket it was sent over). What the kernel does, the graph does:
//   - a receive takes the received fds off their receiver's queue;
//   - the last close of a socket that is not itself in flight frees it, and its queue with it
//     (which may free what was queued there: a cascade), and the kernel starts a GC run;
//   - a socket that is in flight outlives its last close; a component whose sockets have no fd
//     left and are queued only on each other is garbage: reported once, and dropped at the next
//     GC run (the next release of an AF_UNIX socket).
// Fds sent to receivers the probe cannot follow are counted until the kernel says the messages
// are gone: SIOCOUTQ on the socket they were sent over is 0 once the peer has taken (or dropped)
// everything sent over it (asked before the next sendmsg() over it: after one, its own message is
// still queued; before a 2024 decision; at each report).
//
// Everything is fixed-size and atomic: no lock, no allocation. The walk (Tarjan's SCC, like the
// kernel's) runs in one thread at a time over scratch arrays; a caller that finds it busy leaves
// a note and the running walk goes round again.
#include "ControlMessages.h"
#include "ProbeCore.h"

#include <cerrno>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "afunix/KernelConstants.h"

namespace afunix::probe {

namespace {

constexpr uint32_t kNone = 0xffffffffu;
constexpr uint32_t kUnknownReceiver = 0x80000000u; // edge target: unknown, charged to the sender

enum NodeFlags : uint32_t {
  kShared = 1,       // also held by a child process (fork, posix_spawn): never judged garbage
  kReported = 2,     // found garbage (a finding was made)
  kGone = 4,         // freed (released, received by another process, or collected)
  kCascade = 8,      // freed because what held it went: its queue still to be released
};

struct Node {
  std::atomic<uint64_t> key{0};         // inode + 1 (0: empty slot)
  std::atomic<int32_t> openFds{0};      // fds of this process that refer to it
  std::atomic<int32_t> outRefs{0};      // times it is queued somewhere (sent by this process)
  std::atomic<int64_t> queued{0};       // fds (any kind) this process queued on it
  std::atomic<int64_t> unknownOut{0};   // fds sent over it to a receiver the graph cannot follow
  std::atomic<uint32_t> flags{0};
  std::atomic<uint32_t> nameHash{0};    // its bound address (0: unnamed)
  std::atomic<uint64_t> anyFd{0};       // 1 << 32 | generation << 16 | fd of one of its fds (SIOCOUTQ)
};

struct Edge {
  std::atomic<uint64_t> key{0};         // ((from + 1) << 32) | to   (0: empty slot)
  std::atomic<int32_t> count{0};
  std::atomic<uintptr_t> site{0};       // the send that last added to it
  std::atomic<uint64_t> seq{0};         // when (a counter of sends)
  std::atomic<int32_t> sentFd{0}, overFd{0}; // of the send that last added to it
};

constinit Node gNodes[kGraphNodes];
constinit Edge gEdges[kGraphEdges];
constinit std::atomic<uint32_t> gFdNode[kFdTableSize] = {}; // (gen << 16) | (node + 1)
constinit std::atomic<uint64_t> gSendSeq{0};
constinit std::atomic<int64_t> gGarbageSockets{0}; // found garbage, not yet collected
constinit std::atomic<bool> gWalking{false};
constinit std::atomic<uint32_t> gWalkRequests{0}; // 1: walk, 2: and collect what is dead
constinit Findings gSendSites; // the first stack of every send of AF_UNIX fds, for cycle findings

uint64_t hashOf(uint64_t v) { return v * 0x9E3779B97F4A7C15ull; }

long rawFstatInode(int fd, uint64_t &inode) {
  struct stat st;
  long r = syscall(SYS_fstat, fd, &st);
  if (r == 0)
    inode = st.st_ino;
  return r;
}

uint32_t hashName(const char *bytes, std::size_t length) {
  uint32_t h = 2166136261u; // FNV-1a
  for (std::size_t i = 0; i < length; ++i)
    h = (h ^ static_cast<unsigned char>(bytes[i])) * 16777619u;
  return h ? h : 1;
}

// The address's bytes (sun_path up to `length`), hashed; 0 for an unnamed address.
uint32_t nameHashOf(const sockaddr_un &addr, socklen_t length) {
  constexpr socklen_t kPath = static_cast<socklen_t>(__builtin_offsetof(sockaddr_un, sun_path));
  if (length <= kPath || addr.sun_family != AF_UNIX)
    return 0;
  std::size_t n = static_cast<std::size_t>(length - kPath);
  if (addr.sun_path[0]) // a path: up to its NUL, as the kernel reads it
    for (std::size_t i = 0; i < n; ++i)
      if (!addr.sun_path[i]) {
        n = i;
        break;
      }
  return hashName(addr.sun_path, n);
}

// A freed socket that nothing refers to any more: its slot may take another socket. (Its key
// stays until then, so the probe sequences of other keys are never cut.)
bool recyclable(const Node &n) {
  return (n.flags.load(std::memory_order_acquire) & kGone) && n.openFds.load(std::memory_order_relaxed) <= 0 &&
         n.outRefs.load(std::memory_order_relaxed) <= 0 && n.queued.load(std::memory_order_relaxed) <= 0 &&
         n.unknownOut.load(std::memory_order_relaxed) <= 0;
}

// Finds or makes the node of `inode`; kNone when the table is full.
uint32_t nodeOf(uint64_t inode, bool create) {
  uint64_t key = inode + 1;
  uint64_t h = hashOf(key);
  for (int round = 0; round < 4; ++round) {
    uint32_t reuse = kNone;
    uint64_t reuseKey = 0;
    for (int probe = 0; probe < kGraphNodes; ++probe) {
      uint32_t i = static_cast<uint32_t>((h >> 40) + static_cast<uint64_t>(probe)) % kGraphNodes;
      uint64_t current = gNodes[i].key.load(std::memory_order_acquire);
      if (current == key) {
        if (gNodes[i].flags.load(std::memory_order_acquire) & kGone) {
          // The kernel reuses inode numbers only after the socket is freed: a new socket here.
          if (!create)
            return kNone;
          gNodes[i].flags.store(0, std::memory_order_release);
        }
        return i;
      }
      if (current == 0) {
        if (!create)
          return kNone;
        if (reuse == kNone) {
          uint64_t expected = 0;
          if (gNodes[i].key.compare_exchange_strong(expected, key, std::memory_order_acq_rel))
            return i;
          if (expected == key)
            return i;
        }
        break;
      }
      if (create && reuse == kNone && recyclable(gNodes[i])) {
        reuse = i;
        reuseKey = current;
      }
    }
    if (reuse == kNone)
      break;
    Node &n = gNodes[reuse];
    if (n.key.compare_exchange_strong(reuseKey, key, std::memory_order_acq_rel)) {
      n.nameHash.store(0, std::memory_order_relaxed);
      n.anyFd.store(0, std::memory_order_relaxed);
      n.flags.store(0, std::memory_order_release);
      return reuse;
    }
    // Another thread took that slot (perhaps for this very socket): look again.
  }
  counters().graphOverflow.fetch_add(1, std::memory_order_relaxed);
  return kNone;
}

// Edges with nothing in flight whose socket is freed: their slot may take another pair.
uint32_t edgeOf(uint32_t from, uint32_t to, bool create) {
  uint64_t key = (static_cast<uint64_t>(from + 1) << 32) | to;
  uint64_t h = hashOf(key);
  for (int round = 0; round < 4; ++round) {
    uint32_t reuse = kNone;
    uint64_t reuseKey = 0;
    for (int probe = 0; probe < kGraphEdges; ++probe) {
      uint32_t i = static_cast<uint32_t>((h >> 40) + static_cast<uint64_t>(probe)) % kGraphEdges;
      uint64_t current = gEdges[i].key.load(std::memory_order_acquire);
      if (current == key)
        return i;
      if (current == 0) {
        if (!create)
          return kNone;
        if (reuse == kNone) {
          uint64_t expected = 0;
          if (gEdges[i].key.compare_exchange_strong(expected, key, std::memory_order_acq_rel))
            return i;
          if (expected == key)
            return i;
        }
        break;
      }
      if (create && reuse == kNone && gEdges[i].count.load(std::memory_order_relaxed) <= 0 &&
          (gNodes[static_cast<uint32_t>(current >> 32) - 1].flags.load(std::memory_order_acquire) & kGone)) {
        reuse = i;
        reuseKey = current;
      }
    }
    if (reuse == kNone)
      break;
    if (gEdges[reuse].key.compare_exchange_strong(reuseKey, key, std::memory_order_acq_rel)) {
      gEdges[reuse].count.store(0, std::memory_order_relaxed);
      return reuse;
    }
  }
  counters().graphOverflow.fetch_add(1, std::memory_order_relaxed);
  return kNone;
}

uint32_t fromOf(uint64_t edgeKey) { return static_cast<uint32_t>(edgeKey >> 32) - 1; }
uint32_t toOf(uint64_t edgeKey) { return static_cast<uint32_t>(edgeKey); }

void addInFlight(int64_t delta) {
  Counters &c = counters();
  int64_t now = c.inFlight.fetch_add(delta, std::memory_order_relaxed) + delta;
  int64_t high = c.inFlightHighWater.load(std::memory_order_relaxed);
  while (high < now && !c.inFlightHighWater.compare_exchange_weak(high, now, std::memory_order_relaxed)) {
  }
  // AFUNIX_PROBE_TIMING=0 promises no clock reads: no timeline then (the high-water counter stays).
  if (config().timing)
    noteInFlightAt(now, nowNs());
}

struct Timeline {
  std::atomic<uint64_t> startNs{0};
  std::atomic<uint64_t> periodNs{kTimelineFirstPeriodNs};
  std::atomic<int64_t> mostPlusOne[kTimelineSlots]; // 0: nothing in that period (static zero-init)
  std::atomic<bool> merging{false};
};
Timeline gTimeline;

void raiseTo(std::atomic<int64_t> &slot, int64_t value) {
  int64_t have = slot.load(std::memory_order_relaxed);
  while (have < value && !slot.compare_exchange_weak(have, value, std::memory_order_relaxed)) {
  }
}

// Takes up to `n` off an atomic count that never goes below 0; returns how many were taken.
int64_t takeUpTo(std::atomic<int64_t> &from, int64_t n) {
  int64_t have = from.load(std::memory_order_relaxed);
  for (;;) {
    int64_t take = have < n ? have : n;
    if (take <= 0)
      return 0;
    if (from.compare_exchange_weak(have, have - take, std::memory_order_relaxed))
      return take;
  }
}
int32_t takeUpTo(std::atomic<int32_t> &from, int32_t n) {
  int32_t have = from.load(std::memory_order_relaxed);
  for (;;) {
    int32_t take = have < n ? have : n;
    if (take <= 0)
      return 0;
    if (from.compare_exchange_weak(have, have - take, std::memory_order_relaxed))
      return take;
  }
}

// The node an fd of this process refers to, mapping it (fstat) the first time.
uint32_t nodeForFd(int fd) {
  if (!FdTable::inRange(fd))
    return kNone;
  FdState s = fdTable().peek(fd);
  uint32_t mapped = gFdNode[fd].load(std::memory_order_acquire);
  if (mapped && (mapped >> 16) == s.gen)
    return (mapped & 0xffff) - 1;
  uint64_t inode = 0;
  if (rawFstatInode(fd, inode) != 0)
    return kNone;
  uint32_t node = nodeOf(inode, true);
  if (node == kNone)
    return kNone;
  uint32_t word = (static_cast<uint32_t>(s.gen) << 16) | (node + 1);
  if (gFdNode[fd].compare_exchange_strong(mapped, word, std::memory_order_acq_rel)) {
    gNodes[node].openFds.fetch_add(1, std::memory_order_relaxed);
    gNodes[node].anyFd.store(1ull << 32 | static_cast<uint64_t>(s.gen) << 16 | static_cast<uint64_t>(fd),
                             std::memory_order_relaxed);
    gNodes[node].flags.fetch_and(~static_cast<uint32_t>(kGone), std::memory_order_relaxed);
  }
  return node;
}

// An fd of the node, still open and still this socket; -1 if none is known.
int liveFdOf(uint32_t node) {
  uint64_t word = gNodes[node].anyFd.load(std::memory_order_relaxed);
  if (!(word >> 32))
    return -1;
  int fd = static_cast<int>(word & 0xffff);
  uint32_t mapped = gFdNode[fd].load(std::memory_order_acquire);
  return mapped == ((static_cast<uint32_t>(word) & 0xffff0000u) | (node + 1)) ? fd : -1;
}

// Every message queued on `receiver` goes (its release, or a GC run purging it): what was in
// flight there is no more. Sockets held only there are freed in turn: marked, and released by
// freeNode's loop (no recursion: a chain of thousands must not run the caller out of stack).
void releaseQueue(uint32_t receiver) {
  int64_t queued = gNodes[receiver].queued.exchange(0, std::memory_order_relaxed);
  if (queued)
    addInFlight(-queued);
  for (Edge &e : gEdges) {
    uint64_t key = e.key.load(std::memory_order_acquire);
    if (!key || toOf(key) != receiver)
      continue;
    int32_t n = e.count.exchange(0, std::memory_order_relaxed);
    if (n <= 0)
      continue;
    uint32_t from = fromOf(key);
    Node &held = gNodes[from];
    int32_t left = held.outRefs.fetch_sub(n, std::memory_order_relaxed) - n;
    if (left <= 0 && held.openFds.load(std::memory_order_relaxed) <= 0 &&
        !(held.flags.load(std::memory_order_relaxed) & (kShared | kGone)))
      held.flags.fetch_or(kCascade, std::memory_order_acq_rel);
  }
}

void freeNode(uint32_t node) {
  uint32_t flags = gNodes[node].flags.fetch_or(kGone, std::memory_order_acq_rel);
  if (flags & kGone)
    return;
  if (flags & kReported)
    gGarbageSockets.fetch_sub(1, std::memory_order_relaxed);
  releaseQueue(node);
  for (bool more = true; more;) {
    more = false;
    for (uint32_t i = 0; i < static_cast<uint32_t>(kGraphNodes); ++i) {
      if (!(gNodes[i].flags.load(std::memory_order_relaxed) & kCascade))
        continue;
      uint32_t was = gNodes[i].flags.fetch_and(~static_cast<uint32_t>(kCascade), std::memory_order_acq_rel);
      if (!(was & kCascade) || (was & kGone))
        continue;
      gNodes[i].flags.fetch_or(kGone, std::memory_order_acq_rel);
      if (was & kReported)
        gGarbageSockets.fetch_sub(1, std::memory_order_relaxed);
      releaseQueue(i);
      more = true;
    }
  }
}

// What went to receivers the graph cannot follow over `sender`: gone once SIOCOUTQ says nothing
// sent over it is still queued anywhere.
void settleUnknown(uint32_t sender) {
  if (gNodes[sender].unknownOut.load(std::memory_order_relaxed) <= 0)
    return;
  int fd = liveFdOf(sender);
  int outq = 0;
  if (fd < 0 || syscall(SYS_ioctl, fd, SIOCOUTQ, &outq) != 0 || outq != 0)
    return;
  int64_t n = gNodes[sender].unknownOut.exchange(0, std::memory_order_relaxed);
  if (n)
    addInFlight(-n);
  for (Edge &e : gEdges) {
    uint64_t key = e.key.load(std::memory_order_acquire);
    if (!key || toOf(key) != (kUnknownReceiver | sender))
      continue;
    int32_t count = e.count.exchange(0, std::memory_order_relaxed);
    if (count > 0) {
      uint32_t from = fromOf(key);
      int32_t left = gNodes[from].outRefs.fetch_sub(count, std::memory_order_relaxed) - count;
      if (left <= 0 && gNodes[from].openFds.load(std::memory_order_relaxed) <= 0)
        gNodes[from].flags.fetch_or(kGone, std::memory_order_relaxed); // someone else has it now
    }
  }
}

// ---- the walk ------------------------------------------------------------------------------------

// Scratch for one walk (only the thread holding gWalking touches it).
struct Walk {
  uint32_t order[kGraphNodes];      // in-flight vertices
  int32_t slotOf[kGraphNodes];      // vertex index in `order`, -1 when not in flight
  uint32_t adjStart[kGraphNodes + 1], adjEnd[kGraphNodes];
  uint32_t adj[kGraphEdges];        // edge indices, by source vertex: [adjStart, adjEnd)
  int32_t index[kGraphNodes], low[kGraphNodes];
  uint32_t stack[kGraphNodes];
  bool onStack[kGraphNodes];
  uint32_t callVertex[kGraphNodes], callEdge[kGraphNodes];
  uint32_t component[kGraphNodes];
};
Walk gWalk; // trivial: zero-initialised, no constructor runs

bool vertexDead(const Walk &w, uint32_t v, const int32_t *componentOf) {
  const Node &node = gNodes[w.order[v]];
  if (node.openFds.load(std::memory_order_relaxed) > 0 ||
      (node.flags.load(std::memory_order_relaxed) & kShared))
    return false;
  for (uint32_t k = w.adjStart[v]; k < w.adjEnd[v]; ++k) {
    uint64_t key = gEdges[w.adj[k]].key.load(std::memory_order_relaxed);
    uint32_t to = toOf(key);
    if (to & kUnknownReceiver)
      return false; // receivable by a socket the graph does not see
    int32_t target = gWalk.slotOf[to];
    if (target < 0 || componentOf[target] != componentOf[v])
      return false; // receivable by a socket that is not in flight, or in another component
  }
  return true;
}

constinit int32_t gComponentOf[kGraphNodes];

// Reports each component found dead (once), and with `collect` frees them as a GC run would.
void walkOnce(bool collect) {
  Walk &w = gWalk;
  uint32_t n = 0;
  for (uint32_t i = 0; i < static_cast<uint32_t>(kGraphNodes); ++i) {
    w.slotOf[i] = -1;
    if (gNodes[i].key.load(std::memory_order_acquire) &&
        !(gNodes[i].flags.load(std::memory_order_relaxed) & kGone) &&
        gNodes[i].outRefs.load(std::memory_order_relaxed) > 0) {
      w.slotOf[i] = static_cast<int32_t>(n);
      w.order[n++] = i;
    }
  }
  if (!n)
    return;
  for (uint32_t v = 0; v <= n; ++v)
    w.adjStart[v] = 0;
  for (uint32_t e = 0; e < static_cast<uint32_t>(kGraphEdges); ++e) {
    uint64_t key = gEdges[e].key.load(std::memory_order_acquire);
    if (key && gEdges[e].count.load(std::memory_order_relaxed) > 0 && w.slotOf[fromOf(key)] >= 0)
      ++w.adjStart[w.slotOf[fromOf(key)] + 1];
  }
  for (uint32_t v = 0; v < n; ++v)
    w.adjStart[v + 1] += w.adjStart[v];
  for (uint32_t v = 0; v < n; ++v)
    w.adjEnd[v] = w.adjStart[v];
  for (uint32_t e = 0; e < static_cast<uint32_t>(kGraphEdges); ++e) {
    uint64_t key = gEdges[e].key.load(std::memory_order_acquire);
    if (!key || gEdges[e].count.load(std::memory_order_relaxed) <= 0 || w.slotOf[fromOf(key)] < 0)
      continue;
    uint32_t v = static_cast<uint32_t>(w.slotOf[fromOf(key)]);
    if (w.adjEnd[v] < w.adjStart[v + 1]) // an edge added meanwhile waits for the next walk
      w.adj[w.adjEnd[v]++] = e;
  }
  // Tarjan, iteratively: (vertex, next edge) frames on an explicit stack.
  for (uint32_t v = 0; v < n; ++v) {
    w.index[v] = -1;
    w.onStack[v] = false;
    gComponentOf[v] = -1;
  }
  int32_t counter = 0, components = 0;
  uint32_t sp = 0, depth = 0;
  for (uint32_t root = 0; root < n; ++root) {
    if (w.index[root] >= 0)
      continue;
    w.callVertex[0] = root;
    w.callEdge[0] = w.adjStart[root];
    depth = 1;
    w.index[root] = w.low[root] = counter++;
    w.stack[sp++] = root;
    w.onStack[root] = true;
    while (depth) {
      uint32_t v = w.callVertex[depth - 1];
      uint32_t &k = w.callEdge[depth - 1];
      if (k < w.adjEnd[v]) {
        uint32_t to = toOf(gEdges[w.adj[k++]].key.load(std::memory_order_relaxed));
        if (to & kUnknownReceiver)
          continue;
        int32_t t = w.slotOf[to];
        if (t < 0)
          continue;
        uint32_t u = static_cast<uint32_t>(t);
        if (w.index[u] < 0) {
          w.index[u] = w.low[u] = counter++;
          w.stack[sp++] = u;
          w.onStack[u] = true;
          w.callVertex[depth] = u;
          w.callEdge[depth] = w.adjStart[u];
          ++depth;
        } else if (w.onStack[u] && w.index[u] < w.low[v]) {
          w.low[v] = w.index[u];
        }
        continue;
      }
      if (w.low[v] == w.index[v]) {
        uint32_t u;
        do {
          u = w.stack[--sp];
          w.onStack[u] = false;
          gComponentOf[u] = components;
        } while (u != v);
        ++components;
      }
      --depth;
      if (depth) {
        uint32_t parent = w.callVertex[depth - 1];
        if (w.low[v] < w.low[parent])
          w.low[parent] = w.low[v];
      }
    }
  }
  // Judge each component as the kernel does (unix_vertex_dead for every vertex).
  for (int32_t c = 0; c < components; ++c) {
    uint32_t members = 0;
    bool dead = true, reported = false;
    for (uint32_t v = 0; v < n; ++v) {
      if (gComponentOf[v] != c)
        continue;
      w.component[members++] = v;
      dead = dead && vertexDead(w, v, gComponentOf);
      reported = reported || (gNodes[w.order[v]].flags.load(std::memory_order_relaxed) & kReported);
    }
    if (!dead || !members)
      continue;
    if (!reported) {
      // The finding goes where the component's last edge was made: the send that closed it.
      uint64_t bestSeq = 0;
      uint32_t best = kNone;
      int64_t refs = 0;
      uint64_t smallest = ~0ull;
      for (uint32_t m = 0; m < members; ++m) {
        uint32_t v = w.component[m];
        uint64_t inode = gNodes[w.order[v]].key.load(std::memory_order_relaxed) - 1;
        smallest = inode < smallest ? inode : smallest;
        for (uint32_t k = w.adjStart[v]; k < w.adjEnd[v]; ++k) {
          const Edge &e = gEdges[w.adj[k]];
          refs += e.count.load(std::memory_order_relaxed);
          uint64_t seq = e.seq.load(std::memory_order_relaxed);
          if (seq >= bestSeq) {
            bestSeq = seq;
            best = w.adj[k];
          }
        }
      }
      for (uint32_t m = 0; m < members; ++m)
        if (!(gNodes[w.order[w.component[m]]].flags.fetch_or(kReported, std::memory_order_relaxed) & kReported))
          gGarbageSockets.fetch_add(1, std::memory_order_relaxed);
      counters().garbageSockets.fetch_add(members, std::memory_order_relaxed);
      if (best != kNone) {
        const Edge &e = gEdges[best];
        uintptr_t site = e.site.load(std::memory_order_relaxed);
        const FindingDetail *detail = gSendSites.detailOf(Rule::FdCycle, 0, site);
        uint8_t variantIndex = members == 1 ? variant::kOwnQueue : variant::kCycle;
        if (auto *evidence = findings().hitWithDetail(Rule::FdCycle, variantIndex, site, detail)) {
          evidence[0].store(members, std::memory_order_relaxed);
          evidence[1].store(static_cast<uint64_t>(refs), std::memory_order_relaxed);
          evidence[2].store(smallest, std::memory_order_relaxed);
          evidence[3].store(static_cast<uint64_t>(e.sentFd.load(std::memory_order_relaxed)), std::memory_order_relaxed);
          evidence[4].store(static_cast<uint64_t>(e.overFd.load(std::memory_order_relaxed)), std::memory_order_relaxed);
        }
      }
    }
    if (collect)
      for (uint32_t m = 0; m < members; ++m)
        freeNode(w.order[w.component[m]]);
  }
}

// Runs the walk unless another thread is in it; then that one goes round again (collecting if
// any request asked for it).
void walk(bool collect) {
  gWalkRequests.fetch_or(collect ? 3u : 1u, std::memory_order_acq_rel);
  do {
    bool expected = false;
    if (!gWalking.compare_exchange_strong(expected, true, std::memory_order_acquire))
      return;
    for (uint32_t request; (request = gWalkRequests.exchange(0, std::memory_order_acq_rel));)
      walkOnce(request & 2);
    gWalking.store(false, std::memory_order_release);
    // A request made between the last exchange and the store above would be lost: look again.
  } while (gWalkRequests.load(std::memory_order_acquire));
}

} // namespace

Findings &sendSites() { return gSendSites; }

void graphOnBind(int fd) {
  FdState s = fdTable().peek(fd);
  if (!s.isUnix())
    return;
  sockaddr_un addr{};
  socklen_t length = sizeof addr;
  if (syscall(SYS_getsockname, fd, &addr, &length) != 0)
    return;
  uint32_t hash = nameHashOf(addr, length);
  if (!hash)
    return;
  uint32_t node = nodeForFd(fd);
  if (node != kNone)
    gNodes[node].nameHash.store(hash, std::memory_order_relaxed);
}

void graphOnDup(int oldFd, int newFd) {
  FdState s = fdTable().peek(newFd);
  if (!s.isUnix() || !FdTable::inRange(newFd))
    return;
  // Every fd of a socket is mapped, so that its last close is known whichever fd that is.
  uint32_t node = nodeForFd(oldFd);
  if (node == kNone)
    return;
  uint32_t word = (static_cast<uint32_t>(s.gen) << 16) | (node + 1);
  gFdNode[newFd].store(word, std::memory_order_release);
  gNodes[node].openFds.fetch_add(1, std::memory_order_relaxed);
}

void graphOnClose(int fd) {
  if (!FdTable::inRange(fd))
    return;
  // Every close() comes here: a plain load first, an atomic exchange only for a mapped fd.
  uint32_t mapped = gFdNode[fd].load(std::memory_order_acquire);
  if (mapped)
    mapped = gFdNode[fd].exchange(0, std::memory_order_acq_rel);
  FdState s = fdTable().peek(fd);
  if (!mapped || (mapped >> 16) != s.gen) {
    // Not a socket of the graph. Its release (if it was the last fd of an AF_UNIX socket) starts
    // a GC run in the kernel: the garbage found so far goes.
    if (s.isUnix() && gGarbageSockets.load(std::memory_order_relaxed) > 0)
      walk(true);
    return;
  }
  uint32_t node = (mapped & 0xffff) - 1;
  Node &n = gNodes[node];
  if (n.openFds.fetch_sub(1, std::memory_order_relaxed) - 1 > 0)
    return;
  if (n.flags.load(std::memory_order_relaxed) & kShared)
    return;
  if (n.outRefs.load(std::memory_order_relaxed) <= 0) {
    // Not in flight: released now, its queue with it; the release starts a GC run.
    freeNode(node);
    walk(gGarbageSockets.load(std::memory_order_relaxed) > 0 ||
         counters().inFlight.load(std::memory_order_relaxed) > 0);
    return;
  }
  // In flight: it outlives this close. Is something garbage now?
  walk(false);
}

void graphOnSend(int fd, const FdState &s, const msghdr *msg, const SendInfo &info, uintptr_t site) {
  if (!info.fds || !s.isUnix())
    return;
  uint32_t sender = nodeForFd(fd);
  if (sender == kNone)
    return;
  // Who gets it: a socketpair peer, or (datagrams) the socket bound at the destination address.
  uint32_t receiver = kNone;
  if (s.hasPeer && FdTable::inRange(s.peerFd)) {
    FdState peer = fdTable().peek(s.peerFd);
    if (static_cast<uint8_t>(peer.gen) == s.peerGen)
      receiver = nodeForFd(s.peerFd);
  } else if (s.type == SOCK_DGRAM && msg->msg_name && msg->msg_namelen) {
    sockaddr_un to{};
    socklen_t length = msg->msg_namelen < sizeof to ? msg->msg_namelen : static_cast<socklen_t>(sizeof to);
    __builtin_memcpy(&to, msg->msg_name, length);
    if (uint32_t hash = nameHashOf(to, length))
      for (uint32_t i = 0; i < static_cast<uint32_t>(kGraphNodes); ++i)
        if (gNodes[i].nameHash.load(std::memory_order_relaxed) == hash &&
            !(gNodes[i].flags.load(std::memory_order_relaxed) & kGone) && gNodes[i].key.load(std::memory_order_relaxed)) {
          receiver = i;
          break;
        }
  }
  uint64_t seq = gSendSeq.fetch_add(1, std::memory_order_relaxed) + 1;
  if (info.unixFds)
    gSendSites.hit(Rule::FdCycle, 0, site, fd);
  // Every fd of the message counts for the user; AF_UNIX ones are also edges of the graph.
  ControlReader reader{static_cast<const unsigned char *>(msg->msg_control), msg->msg_controllen, true};
  walkControl(reader, [&](const cmsghdr &cm, std::size_t offset) {
    if (cm.cmsg_level != SOL_SOCKET || cm.cmsg_type != SCM_RIGHTS)
      return;
    int count = fdCount(cm);
    for (int i = 0; i < count; ++i) {
      int sent = fdAt(reader, offset, i);
      if (!fdTable().peek(sent).isUnix())
        continue;
      uint32_t node = nodeForFd(sent);
      if (node == kNone)
        continue;
      uint32_t e = edgeOf(node, receiver == kNone ? (kUnknownReceiver | sender) : receiver, true);
      if (e == kNone)
        continue;
      gEdges[e].count.fetch_add(1, std::memory_order_relaxed);
      gEdges[e].site.store(site, std::memory_order_relaxed);
      gEdges[e].seq.store(seq, std::memory_order_relaxed);
      gEdges[e].sentFd.store(sent, std::memory_order_relaxed);
      gEdges[e].overFd.store(fd, std::memory_order_relaxed);
      gNodes[node].outRefs.fetch_add(1, std::memory_order_relaxed);
    }
  });
  if (receiver == kNone)
    gNodes[sender].unknownOut.fetch_add(info.fds, std::memory_order_relaxed);
  else
    gNodes[receiver].queued.fetch_add(info.fds, std::memory_order_relaxed);
  addInFlight(info.fds);
}

void graphOnReceived(int receiverFd, int received, bool peek) {
  uint32_t node = fdTable().peek(received).isUnix() ? nodeForFd(received) : kNone;
  if (peek)
    return;
  uint32_t receiver = FdTable::inRange(receiverFd) && gFdNode[receiverFd].load(std::memory_order_acquire)
                          ? nodeForFd(receiverFd)
                          : kNone;
  if (receiver == kNone)
    return; // nothing this process queued there
  if (takeUpTo(gNodes[receiver].queued, 1))
    addInFlight(-1);
  if (node == kNone)
    return;
  uint32_t e = edgeOf(node, receiver, false);
  if (e != kNone && takeUpTo(gEdges[e].count, 1))
    gNodes[node].outRefs.fetch_sub(1, std::memory_order_relaxed);
}

void graphBeforeSend(int fd) {
  if (!FdTable::inRange(fd))
    return;
  uint32_t mapped = gFdNode[fd].load(std::memory_order_acquire);
  if (!mapped || (mapped >> 16) != fdTable().peek(fd).gen)
    return;
  uint32_t node = (mapped & 0xffff) - 1;
  if (gNodes[node].unknownOut.load(std::memory_order_relaxed) > 0)
    settleUnknown(node);
}

void graphSettle() {
  for (uint32_t i = 0; i < static_cast<uint32_t>(kGraphNodes); ++i)
    if (gNodes[i].key.load(std::memory_order_acquire) &&
        gNodes[i].unknownOut.load(std::memory_order_relaxed) > 0)
      settleUnknown(i);
}

void graphWalk() { walk(false); }

void graphMarkShared() {
  for (Node &n : gNodes)
    if (n.key.load(std::memory_order_acquire) && n.openFds.load(std::memory_order_relaxed) > 0)
      n.flags.fetch_or(kShared, std::memory_order_relaxed);
}

void graphReset() {
  for (Node &n : gNodes) {
    n.key.store(0, std::memory_order_relaxed);
    n.openFds.store(0, std::memory_order_relaxed);
    n.outRefs.store(0, std::memory_order_relaxed);
    n.queued.store(0, std::memory_order_relaxed);
    n.unknownOut.store(0, std::memory_order_relaxed);
    n.flags.store(0, std::memory_order_relaxed);
    n.nameHash.store(0, std::memory_order_relaxed);
    n.anyFd.store(0, std::memory_order_relaxed);
  }
  for (Edge &e : gEdges) {
    e.key.store(0, std::memory_order_relaxed);
    e.count.store(0, std::memory_order_relaxed);
  }
  for (auto &word : gFdNode)
    word.store(0, std::memory_order_relaxed);
  gGarbageSockets.store(0, std::memory_order_relaxed);
  gSendSites.reset();
  gWalking.store(false, std::memory_order_relaxed);
  gWalkRequests.store(0, std::memory_order_relaxed);
  gTimeline.startNs.store(0, std::memory_order_relaxed);
  gTimeline.periodNs.store(kTimelineFirstPeriodNs, std::memory_order_relaxed);
  for (auto &slot : gTimeline.mostPlusOne)
    slot.store(0, std::memory_order_relaxed);
  gTimeline.merging.store(false, std::memory_order_relaxed);
}

void noteInFlightAt(int64_t inFlight, uint64_t now) {
  uint64_t start = gTimeline.startNs.load(std::memory_order_relaxed);
  if (start == 0 && gTimeline.startNs.compare_exchange_strong(start, now, std::memory_order_relaxed))
    start = now;
  uint64_t since = now > start ? now - start : 0;
  // Each merge doubles the period: 64 of them cover any uptime.
  for (int merges = 0; merges < 64; ++merges) {
    uint64_t period = gTimeline.periodNs.load(std::memory_order_acquire);
    uint64_t slot = since / period;
    if (slot < static_cast<uint64_t>(kTimelineSlots)) {
      raiseTo(gTimeline.mostPlusOne[slot], (inFlight < 0 ? 0 : inFlight) + 1);
      return;
    }
    bool idle = false;
    if (!gTimeline.merging.compare_exchange_strong(idle, true, std::memory_order_acquire))
      return; // another thread is merging: this change goes unrecorded
    if (gTimeline.periodNs.load(std::memory_order_relaxed) == period) {
      for (int i = 0; i < kTimelineSlots / 2; ++i) {
        int64_t a = gTimeline.mostPlusOne[2 * i].load(std::memory_order_relaxed);
        int64_t b = gTimeline.mostPlusOne[2 * i + 1].load(std::memory_order_relaxed);
        gTimeline.mostPlusOne[i].store(a > b ? a : b, std::memory_order_relaxed);
      }
      for (int i = kTimelineSlots / 2; i < kTimelineSlots; ++i)
        gTimeline.mostPlusOne[i].store(0, std::memory_order_relaxed);
      gTimeline.periodNs.store(period * 2, std::memory_order_release);
    }
    gTimeline.merging.store(false, std::memory_order_release);
  }
}

void inFlightTimeline(InFlightTimeline &out) {
  out.periodNs = gTimeline.periodNs.load(std::memory_order_acquire);
  out.slots = 0;
  for (int i = 0; i < kTimelineSlots; ++i) {
    int64_t v = gTimeline.mostPlusOne[i].load(std::memory_order_relaxed);
    out.most[i] = v - 1;
    if (v)
      out.slots = i + 1;
  }
}

} // namespace afunix::probe
