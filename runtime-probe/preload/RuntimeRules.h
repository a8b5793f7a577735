// The runtime rules: one descriptor per rule the probe can report, in the enum's order. A
// descriptor names its catalog rule, the catalog variants it reports and how each evidence slot is
// printed. Variant indices are looked up in the compiled-in catalog by name at compile time: a
// variant renamed or removed in rules/*.yaml stops the build here instead of printing the wrong
// message. Header-only and constexpr: nothing runs at load.
#pragma once

#include "afunix/KernelConstants.h"
#include "afunix/RuleCatalog.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace afunix::probe {

enum class Rule : uint8_t {
  CredsWithoutPasscred,
  PasscredTooLate,
  PasscredWrongFamily,
  FdFlood,
  FdLimit,
  FdCycle,
  FixPasscred, // not a catalog rule: a place where --fix passcred enabled SO_PASSCRED
  CallSite,    // not a catalog rule: a socket call the program made (AFUNIX_PROBE_SITES=1)
  Count
};

constexpr int kEvidence = 6;

namespace detail {
// Never defined: a consteval call that reaches it is not a constant expression, so a variant that
// is not in the catalog is a compile error at the line that names it.
void variantIsNotInTheCatalog();

consteval uint8_t catalogVariant(std::string_view rule, std::string_view variant) {
  const catalog::Rule *entry = catalog::findRule(rule);
  for (std::size_t i = 0; entry && i < entry->variantCount; ++i)
    if (variant == entry->variants[i].id)
      return static_cast<uint8_t>(i);
  variantIsNotInTheCatalog();
  return 0;
}
} // namespace detail

// Variant indices (into the catalog's variants of each rule), checked when this header compiles.
namespace variant {
inline constexpr uint8_t kCredsDefault = detail::catalogVariant("afunix-creds-without-passcred", "default");
inline constexpr uint8_t kAcceptedSocket = detail::catalogVariant("afunix-passcred-too-late", "accepted-socket");
inline constexpr uint8_t kDgramAfterBind = detail::catalogVariant("afunix-passcred-too-late", "dgram-after-bind");
inline constexpr uint8_t kListenerAfterListen =
    detail::catalogVariant("afunix-passcred-too-late", "listener-after-listen");
inline constexpr uint8_t kExternalSocket = detail::catalogVariant("afunix-passcred-too-late", "external-socket");
inline constexpr uint8_t kSocketpairEnd = detail::catalogVariant("afunix-passcred-too-late", "socketpair-end");
inline constexpr uint8_t kClientReply = detail::catalogVariant("afunix-passcred-too-late", "client-reply");
inline constexpr uint8_t kWrongFamily = detail::catalogVariant("afunix-passcred-wrong-family", "default");
inline constexpr uint8_t kFdLimit = detail::catalogVariant("afunix-fd-limit", "default");
inline constexpr uint8_t kOwnQueue = detail::catalogVariant("afunix-fd-cycle", "own-queue");
inline constexpr uint8_t kCycle = detail::catalogVariant("afunix-fd-cycle", "cycle");
// afunix-fd-flood's variant depends on the running kernel (before-6.8 / since-6.8 / since-6.19):
// chosen when the report is written; recorded as 0.
inline constexpr uint8_t kFdFloodRecorded = 0;
// --fix passcred places (not catalog variants).
inline constexpr uint8_t kFixAtListen = 0, kFixAtRecvmsg = 1;
} // namespace variant

// How an evidence value is printed, and where it comes from.
enum class EvidenceFormat : uint8_t { Count, Nanoseconds, SocketType, Family, Option, Errno, Where };
enum class EvidenceSource : uint8_t { Slot, Constant, RlimitNofile, SlowThresholdNs };

struct EvidenceField {
  const char *name = nullptr; // nullptr ends the list
  EvidenceFormat format = EvidenceFormat::Count;
  EvidenceSource source = EvidenceSource::Slot;
  uint8_t slot = 0;       // index into the finding's evidence (source Slot)
  uint64_t constant = 0;  // source Constant
};

struct RuntimeRule {
  Rule rule;
  const char *id; // catalog id ("fix-passcred" for the --fix places)
  bool inCatalog;
  const char *variants[8]; // the variants this rule reports, by catalog id (nullptr-terminated)
  EvidenceField evidence[kEvidence + 3];
};

using F = EvidenceFormat;
using S = EvidenceSource;
inline constexpr RuntimeRule kRuntimeRules[] = {
    {Rule::CredsWithoutPasscred,
     "afunix-creds-without-passcred",
     true,
     {"default"},
     {{"socket_type", F::SocketType, S::Slot, 0},
      {"truncated_calls", F::Count, S::Slot, 1}, // MSG_CTRUNC: the buffer was too small for what came
      {"peer_credentials_asked", F::Count, S::Slot, 2}, // SO_PEERCRED on this socket after all
      {"creds_received", F::Count, S::Constant, 0, 0}}},
    {Rule::PasscredTooLate,
     "afunix-passcred-too-late",
     true,
     {"accepted-socket", "dgram-after-bind", "listener-after-listen", "external-socket", "socketpair-end",
      "client-reply"},
     {{"pid", F::Count, S::Slot, 0}, {"uid", F::Count, S::Slot, 1}, {"gid", F::Count, S::Slot, 2}}},
    {Rule::PasscredWrongFamily,
     "afunix-passcred-wrong-family",
     true,
     {"default"},
     {{"option", F::Option, S::Slot, 0}, {"family", F::Family, S::Slot, 1}, {"kernel_answer", F::Errno, S::Slot, 2}}},
    {Rule::FdFlood,
     "afunix-fd-flood",
     true,
     {"before-6.8", "since-6.8", "since-6.19"},
     {{"in_flight_high_water", F::Count, S::Slot, 0},
      {"gc_threshold", F::Count, S::Constant, 0, static_cast<uint64_t>(kernel::kUnixInflightSaneUser)},
      {"rlimit_nofile", F::Count, S::RlimitNofile},
      {"unix_fds_sent", F::Count, S::Slot, 1},
      {"etoomanyrefs", F::Count, S::Slot, 2},
      {"slow_sends", F::Count, S::Slot, 3},
      {"slowest_send_ns", F::Nanoseconds, S::Slot, 4},
      {"slow_threshold_ns", F::Nanoseconds, S::SlowThresholdNs}}},
    {Rule::FdLimit,
     "afunix-fd-limit",
     true,
     {"default"},
     {{"fds_in_message", F::Count, S::Slot, 0},
      {"scm_max_fd", F::Count, S::Constant, 0, static_cast<uint64_t>(kernel::kScmMaxFd)},
      {"einval", F::Count, S::Slot, 1}}},
    {Rule::FdCycle,
     "afunix-fd-cycle",
     true,
     {"own-queue", "cycle"},
     {{"sockets", F::Count, S::Slot, 0},
      {"in_flight", F::Count, S::Slot, 1},
      {"inode", F::Count, S::Slot, 2},
      {"fd_sent", F::Count, S::Slot, 3},
      {"sent_over", F::Count, S::Slot, 4}}},
    {Rule::FixPasscred,
     "fix-passcred",
     false,
     {},
     {{"where", F::Where, S::Constant}, {"result", F::Errno, S::Slot, 0}}},
    {Rule::CallSite, "call-site", false, {}, {}},
};

constexpr const RuntimeRule &runtimeRule(Rule rule) { return kRuntimeRules[static_cast<int>(rule)]; }

namespace detail {
constexpr bool descriptorsMatchTheCatalog() {
  if (sizeof kRuntimeRules / sizeof *kRuntimeRules != static_cast<std::size_t>(Rule::Count))
    return false;
  for (std::size_t i = 0; i < static_cast<std::size_t>(Rule::Count); ++i) {
    const RuntimeRule &r = kRuntimeRules[i];
    if (static_cast<std::size_t>(r.rule) != i)
      return false;
    if (!r.inCatalog)
      continue;
    const catalog::Rule *entry = catalog::findRule(r.id);
    // A runtime rule must be a catalog rule that says how it is detected at run time.
    if (!entry || !entry->runtimeDetector[0])
      return false;
    for (const char *v : r.variants)
      if (v && !catalog::findVariant(*entry, v))
        return false;
  }
  return true;
}
} // namespace detail
static_assert(detail::descriptorsMatchTheCatalog(),
              "kRuntimeRules: one descriptor per Rule, in order, each naming a catalog rule with a "
              "runtime detector and only variants the catalog has");

} // namespace afunix::probe
