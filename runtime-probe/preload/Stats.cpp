// Per-thread call counters and latency histograms. A thread claims a block from a fixed pool on
// its first intercepted call (atomic flag, no allocation) and keeps a pointer to it in an
// initial-exec TLS variable (no __tls_get_addr, so no allocation and async-signal-safe). Only the
// owner writes a block; the report reads it with relaxed atomic loads. At thread exit (pthread key
// destructor) the block is given back with its counts, and the next thread adds to them.
#include "ProbeCore.h"

#include <pthread.h>

namespace afunix::probe {

namespace {
constinit Stats gStats;
// The shared block for threads beyond the pool: updated with atomic RMW, so it is exact too.
constinit ThreadBlock gOverflowBlock;
__attribute__((tls_model("initial-exec"))) thread_local ThreadBlock *tBlock = nullptr;
pthread_key_t gExitKey;
std::atomic<bool> gExitKeyReady{false};

void threadExit(void *) { gStats.releaseCurrentThread(); }

// Counters are 32-bit to keep a block small (hackbench: 800 threads in < 2 MiB); before one
// would wrap it is moved into the 64-bit retired totals.
constexpr uint32_t kFoldAt = 1u << 31;

struct Names {
  const char *call;
  const char *cls;
};
constexpr Names kHistNames[kHistCount] = {
    {"send", "none"}, {"send", "unix_fds"}, {"send", "other_fds"}, {"send", "creds"},
    {"recv", "none"}, {"recv", "unix_fds"}, {"recv", "other_fds"}, {"recv", "creds"},
    {"write", "none"},   {"read", "none"},        {"accept", "none"},       {"connect", "none"},
};
} // namespace

int histIndex(CallKind kind, CallClass cls) {
  switch (kind) {
  case CallKind::Send: return static_cast<int>(cls);
  case CallKind::Recv: return 4 + static_cast<int>(cls);
  case CallKind::Write: return 8;
  case CallKind::Read: return 9;
  case CallKind::Accept: return 10;
  case CallKind::Connect: return 11;
  }
  return 8;
}
const char *histCallName(int index) { return kHistNames[index].call; }
const char *histClassName(int index) { return kHistNames[index].cls; }

int Stats::bucketOf(uint64_t ns) {
  // bcc's log2l: 0 -> 0, otherwise floor(log2(ns)) + 1; the last bucket takes everything above.
  int bucket = ns ? 64 - __builtin_clzll(ns) : 0;
  return bucket < kBuckets ? bucket : kBuckets - 1;
}

ThreadBlock *Stats::claim() {
  uint32_t start = hint_.load(std::memory_order_relaxed);
  for (uint32_t i = 0; i < kThreadBlocks; ++i) {
    ThreadBlock &block = blocks_[(start + i) % kThreadBlocks];
    uint32_t expected = 0;
    if (block.inUse.load(std::memory_order_relaxed) == 0 &&
        block.inUse.compare_exchange_strong(expected, 1, std::memory_order_acquire)) {
      hint_.store((start + i + 1) % kThreadBlocks, std::memory_order_relaxed);
      threadsSeen_.fetch_add(1, std::memory_order_relaxed);
      if (gExitKeyReady.load(std::memory_order_acquire))
        pthread_setspecific(gExitKey, &block); // small key index: no allocation in glibc
      return &block;
    }
  }
  overflowThreads_.fetch_add(1, std::memory_order_relaxed);
  return &gOverflowBlock;
}

void Stats::record(int hist, uint64_t ns) {
  ThreadBlock *block = tBlock;
  if (!block)
    block = tBlock = claim();
  if (block == &gOverflowBlock) {
    block->calls[hist].fetch_add(1, std::memory_order_relaxed);
    if (ns != UINT64_MAX)
      block->buckets[hist][bucketOf(ns)].fetch_add(1, std::memory_order_relaxed);
    return;
  }
  // Owner-only writes: a relaxed load+store is a plain add, no lock prefix.
  auto bump = [&](std::atomic<uint32_t> &counter, std::atomic<uint64_t> &retired) {
    uint32_t value = counter.load(std::memory_order_relaxed) + 1;
    if (value == kFoldAt) {
      counter.store(0, std::memory_order_relaxed); // a concurrent report may undercount, never double
      retired.fetch_add(value, std::memory_order_relaxed);
      return;
    }
    counter.store(value, std::memory_order_relaxed);
  };
  bump(block->calls[hist], retiredCalls_[hist]);
  if (ns != UINT64_MAX) {
    int b = bucketOf(ns);
    bump(block->buckets[hist][b], retiredBuckets_[hist][b]);
  }
}

void Stats::fold(ThreadBlock &block) {
  for (int h = 0; h < kHistCount; ++h) {
    if (uint32_t v = block.calls[h].exchange(0, std::memory_order_relaxed))
      retiredCalls_[h].fetch_add(v, std::memory_order_relaxed);
    for (int b = 0; b < kBuckets; ++b)
      if (uint32_t v = block.buckets[h][b].exchange(0, std::memory_order_relaxed))
        retiredBuckets_[h][b].fetch_add(v, std::memory_order_relaxed);
  }
}

void Stats::releaseCurrentThread() {
  ThreadBlock *block = tBlock;
  tBlock = nullptr;
  if (!block || block == &gOverflowBlock)
    return;
  // The counts stay in the block: the next thread that claims it adds to them. Nothing moves, so
  // a report running concurrently can never count a call twice.
  block->inUse.store(0, std::memory_order_release);
}

void Stats::snapshot(StatsSnapshot &out) const {
  out = StatsSnapshot{};
  auto add = [&](const ThreadBlock &block) {
    for (int h = 0; h < kHistCount; ++h) {
      out.calls[h] += block.calls[h].load(std::memory_order_relaxed);
      for (int b = 0; b < kBuckets; ++b)
        out.buckets[h][b] += block.buckets[h][b].load(std::memory_order_relaxed);
    }
  };
  // Released blocks keep their counts, so summing every block is exact whatever threads come and go.
  for (const auto &block : blocks_)
    add(block);
  add(gOverflowBlock);
  for (int h = 0; h < kHistCount; ++h) {
    out.calls[h] += retiredCalls_[h].load(std::memory_order_relaxed);
    for (int b = 0; b < kBuckets; ++b)
      out.buckets[h][b] += retiredBuckets_[h][b].load(std::memory_order_relaxed);
  }
  out.threadsSeen = threadsSeen_.load(std::memory_order_relaxed);
  out.threadsOverflow = overflowThreads_.load(std::memory_order_relaxed);
}

void Stats::resetAfterFork() {
  // Only the forking thread exists in the child; the parent's other blocks are garbage here.
  ThreadBlock *mine = tBlock;
  for (auto &block : blocks_) {
    fold(block);
    if (&block != mine)
      block.inUse.store(0, std::memory_order_relaxed);
  }
  fold(gOverflowBlock);
  for (int h = 0; h < kHistCount; ++h) {
    retiredCalls_[h].store(0, std::memory_order_relaxed);
    for (int b = 0; b < kBuckets; ++b)
      retiredBuckets_[h][b].store(0, std::memory_order_relaxed);
  }
  threadsSeen_.store(mine && mine != &gOverflowBlock ? 1 : 0, std::memory_order_relaxed);
  overflowThreads_.store(0, std::memory_order_relaxed);
}

Stats &stats() { return gStats; }

void installThreadExitHook() {
  if (!gExitKeyReady.load(std::memory_order_acquire) && pthread_key_create(&gExitKey, threadExit) == 0)
    gExitKeyReady.store(true, std::memory_order_release);
}

} // namespace afunix::probe
