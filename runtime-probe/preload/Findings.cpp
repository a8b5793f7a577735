// Findings and process counters. Rule ids come from the compiled-in catalog; a static_assert
// keeps this list and rules/*.yaml from drifting apart.
#include "ProbeCore.h"

#include "afunix/RuleCatalog.h"

namespace afunix::probe {

namespace {
constexpr const char *kRuleIds[] = {
    "afunix-creds-without-passcred", "afunix-passcred-too-late", "afunix-passcred-wrong-family",
    "afunix-fd-flood",               "afunix-fd-limit",          "afunix-fd-cycle",
};
static_assert(sizeof kRuleIds / sizeof *kRuleIds == static_cast<int>(Rule::FixPasscred));
constexpr bool allInCatalog() {
  for (const char *id : kRuleIds)
    if (!catalog::findRule(id) || !catalog::findRule(id)->runtimeDetector[0])
      return false;
  return true;
}
static_assert(allInCatalog(), "every runtime detection must be a catalog rule with a runtime_detector");

constinit Findings gFindings;
constinit Counters gCounters;
} // namespace

const char *ruleId(Rule rule) {
  if (rule == Rule::FixPasscred)
    return "fix-passcred";
  return kRuleIds[static_cast<int>(rule)];
}

FindingSlot *Findings::hit(Rule rule, uint8_t variant, int fd, uint16_t gen) {
  uint64_t key = (static_cast<uint64_t>(rule) + 1) | (static_cast<uint64_t>(variant) << 8) |
                 (static_cast<uint64_t>(fd < 0 ? 0 : fd & 0xffffff) << 16) |
                 (static_cast<uint64_t>(gen) << 40) | (static_cast<uint64_t>(fd < 0) << 63);
  uint64_t hash = key * 0x9E3779B97F4A7C15ull;
  for (int probe = 0; probe < kFindings; ++probe) {
    FindingSlot &slot = slots_[((hash >> 32) + probe) % kFindings];
    uint64_t current = slot.key.load(std::memory_order_acquire);
    if (current == 0) {
      uint64_t expected = 0;
      if (slot.key.compare_exchange_strong(expected, key, std::memory_order_acq_rel))
        current = key;
      else
        current = expected;
    }
    if (current == key) {
      slot.count.fetch_add(1, std::memory_order_relaxed);
      return &slot;
    }
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
  for (auto &slot : slots_) {
    slot.key.store(0, std::memory_order_relaxed);
    slot.count.store(0, std::memory_order_relaxed);
    for (auto &e : slot.evidence)
      e.store(0, std::memory_order_relaxed);
  }
  dropped.store(0, std::memory_order_relaxed);
}

Findings &findings() { return gFindings; }

void Counters::reset() {
  for (auto *c : {&unixSockets, &otherSockets, &fdsSent, &unixFdsSent, &fdsReceived, &credsReceived,
                  &credsPidZero, &etoomanyrefs, &einvalTooManyFds, &slowFdSends, &reportsWritten, &reportErrors})
    c->store(0, std::memory_order_relaxed);
  inFlight.store(0, std::memory_order_relaxed);
  inFlightHighWater.store(0, std::memory_order_relaxed);
}

Counters &counters() { return gCounters; }

} // namespace afunix::probe
