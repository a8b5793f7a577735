// Findings and process counters. Rule ids and variants come from the runtime rule descriptors
// (RuntimeRules.h), checked against the compiled-in catalog when they compile.
#include "ProbeCore.h"

#include <cerrno>
#include <ctime>

namespace afunix::probe {

namespace {
constinit Findings gFindings;
constinit Findings gCallSites;
constinit Counters gCounters;
constinit std::atomic<int32_t> gCredsPeers[kCredsPeers] = {};

uint64_t keyOf(Rule rule, uint8_t variant, uintptr_t site) {
  // Rule and variant in the low bits (readable without the detail), the call site hashed above.
  uint64_t hashed = (static_cast<uint64_t>(site) * 0x9E3779B97F4A7C15ull) & ~0xffffull;
  return hashed | (static_cast<uint64_t>(variant) << 8) | (static_cast<uint64_t>(rule) + 1);
}

uint64_t monotonicNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}
} // namespace

const char *ruleId(Rule rule) { return runtimeRule(rule).id; }

std::atomic<uint64_t> *Findings::hit(Rule rule, uint8_t variant, uintptr_t site, int fd) {
  return record(rule, variant, site, fd, nullptr);
}

std::atomic<uint64_t> *Findings::hitWithDetail(Rule rule, uint8_t variant, uintptr_t site,
                                               const FindingDetail *detail) {
  static constexpr FindingDetail kNoDetail{};
  return record(rule, variant, site, -1, detail ? detail : &kNoDetail);
}

const FindingDetail *Findings::detailOf(Rule rule, uint8_t variant, uintptr_t site) const {
  uint64_t key = keyOf(rule, variant, site);
  uint64_t hash = key * 0x9E3779B97F4A7C15ull;
  for (int probe = 0; probe < kFindings; ++probe) {
    int i = static_cast<int>(((hash >> 32) + static_cast<uint64_t>(probe)) % kFindings);
    uint64_t current = keys_[i].load(std::memory_order_acquire);
    if (current == 0)
      return nullptr;
    if (current == key)
      return ready_[i].load(std::memory_order_acquire) ? &details_[i] : nullptr;
  }
  return nullptr;
}

std::atomic<uint64_t> *Findings::record(Rule rule, uint8_t variant, uintptr_t site, int fd,
                                        const FindingDetail *copy) {
  uint64_t key = keyOf(rule, variant, site);
  uint64_t hash = key * 0x9E3779B97F4A7C15ull;
  for (int probe = 0; probe < kFindings; ++probe) {
    int i = static_cast<int>(((hash >> 32) + static_cast<uint64_t>(probe)) % kFindings);
    uint64_t current = keys_[i].load(std::memory_order_acquire);
    bool mine = false;
    if (current == 0) {
      uint64_t expected = 0;
      if (keys_[i].compare_exchange_strong(expected, key, std::memory_order_acq_rel)) {
        current = key;
        mine = true;
      } else
        current = expected;
    }
    if (current != key)
      continue;
    counts_[i].fetch_add(1, std::memory_order_relaxed);
    if (mine) {
      // The first occurrence at this site says where and what: stack and socket, once.
      sites_[i].store(site, std::memory_order_relaxed);
      uint64_t started = monotonicNs();
      FindingDetail &d = details_[i];
      if (copy) {
        d = *copy;
      } else {
        d.depth = static_cast<uint8_t>(captureStack(site, d.stack, kStackDepth));
        for (int f = 0; f < d.depth; ++f)
          moduleOf(d.stack[f]);
        captureSocketIdentity(fd, d.socket);
        if (d.socket.origin)
          moduleOf(d.socket.origin);
      }
      ready_[i].store(1, std::memory_order_release);
      gCounters.stacksCaptured.fetch_add(1, std::memory_order_relaxed);
      gCounters.captureNs.fetch_add(monotonicNs() - started, std::memory_order_relaxed);
    }
    return evidence_[i];
  }
  dropped.fetch_add(1, std::memory_order_relaxed);
  return nullptr;
}

void Findings::setMax(std::atomic<uint64_t> &field, uint64_t value) {
  uint64_t old = field.load(std::memory_order_relaxed);
  while (old < value && !field.compare_exchange_weak(old, value, std::memory_order_relaxed)) {
  }
}

void Findings::reset() {
  for (int i = 0; i < kFindings; ++i) {
    keys_[i].store(0, std::memory_order_relaxed);
    counts_[i].store(0, std::memory_order_relaxed);
    sites_[i].store(0, std::memory_order_relaxed);
    ready_[i].store(0, std::memory_order_relaxed);
    for (auto &e : evidence_[i])
      e.store(0, std::memory_order_relaxed);
  }
  dropped.store(0, std::memory_order_relaxed);
  for (auto &pid : gCredsPeers)
    pid.store(0, std::memory_order_relaxed);
}

Findings &findings() { return gFindings; }
Findings &callSites() { return gCallSites; }

const char *siteCallName(uint8_t call) {
  constexpr const char *kNames[] = {"socket", "socketpair", "accept", "connect", "bind",
                                    "listen", "setsockopt", "getsockopt", "sendmsg", "recvmsg"};
  static_assert(sizeof kNames / sizeof *kNames == static_cast<std::size_t>(SiteCall::Count));
  return call < static_cast<uint8_t>(SiteCall::Count) ? kNames[call] : "?";
}

void noteCallSite(SiteCall call, uintptr_t site, int fd) {
  if (!config().sites || !site)
    return;
  int saved = errno;
  gCallSites.hit(Rule::CallSite, static_cast<uint8_t>(call), site, fd);
  errno = saved;
}

void noteCredentialsSentTo(int32_t peerPid) {
  if (peerPid <= 0)
    return;
  for (auto &slot : gCredsPeers) {
    int32_t current = slot.load(std::memory_order_relaxed);
    if (current == peerPid)
      return;
    if (current == 0) {
      int32_t expected = 0;
      if (slot.compare_exchange_strong(expected, peerPid, std::memory_order_relaxed) || expected == peerPid)
        return;
    }
  }
}

int credentialsSentTo(int32_t *pids, int max) {
  int n = 0;
  for (auto &slot : gCredsPeers)
    if (int32_t pid = slot.load(std::memory_order_relaxed); pid && n < max)
      pids[n++] = pid;
  return n;
}

bool credentialsSentToPid(int32_t pid) {
  for (auto &slot : gCredsPeers)
    if (slot.load(std::memory_order_relaxed) == pid)
      return true;
  return false;
}

void Counters::reset() {
  for (auto *c : {&unixSockets, &otherSockets, &fdsSent, &unixFdsSent, &fdsReceived, &credsReceived, &credsPidZero,
                  &etoomanyrefs, &einvalTooManyFds, &slowFdSends, &credsSentExplicit, &reportsWritten,
                  &reportErrors, &stacksCaptured, &captureNs, &garbageSockets, &graphOverflow})
    c->store(0, std::memory_order_relaxed);
  inFlight.store(0, std::memory_order_relaxed);
  inFlightHighWater.store(0, std::memory_order_relaxed);
}

Counters &counters() { return gCounters; }

} // namespace afunix::probe
