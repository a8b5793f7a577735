// The rule catalog compiled in: rules/*.yaml turned into constant data at build time by
// afunix-rules-gen. Header-only, no allocation, no YAML at run time, so both the checker and the
// LD_PRELOAD probe (which must not parse files inside the watched process) read the same source.
#pragma once

#include <cstddef>
#include <string_view>

#include "afunix/KernelVersion.h"

namespace afunix::catalog {

struct LaterChange {
  const char *version;
  const char *commit;
  const char *change;
};

struct Variant {
  const char *id;
  const char *since; // "" = every kernel
  const char *until; // "" = open
  const char *message;
  const char *severity; // "" = the rule's
  const char *experiments; // the experiment keys that show the claim, comma-separated
};

struct Rule {
  const char *id;
  const char *title;
  const char *severity;
  const char *category;
  const char *change;
  const char *commit;
  const char *firstVersion;
  const char *affectsFrom;
  const LaterChange *later;
  std::size_t laterCount;
  const Variant *variants;
  std::size_t variantCount;
  const char *whatBreaks;
  const char *fix;
  const char *staticDetector;
  const char *runtimeDetector;
  const char *doc;
  const char *securitySeverity; // "" or a CVSS-like score: the rule's check fails open
};

// The severity of a finding of `variant`: its own when it has one, else the rule's.
inline constexpr const char *severityOf(const Rule &rule, const Variant *variant) {
  return variant && variant->severity[0] ? variant->severity : rule.severity;
}

} // namespace afunix::catalog

#include "afunix/RuleCatalogGenerated.inc" // defines kRules[] and kRuleCount

namespace afunix::catalog {

inline constexpr const Rule *findRule(std::string_view id) {
  for (std::size_t i = 0; i < kRuleCount; ++i)
    if (id == kRules[i].id)
      return &kRules[i];
  return nullptr;
}

inline constexpr const Variant *findVariant(const Rule &rule, std::string_view id) {
  for (std::size_t i = 0; i < rule.variantCount; ++i)
    if (id == rule.variants[i].id)
      return &rule.variants[i];
  return nullptr;
}

// Whether a rule (or one of its variants) matters on `kernel`.
inline constexpr bool appliesTo(const Rule &rule, const KernelVersion &kernel) {
  return inKernelRange(kernel, rule.affectsFrom, "");
}
inline constexpr bool appliesTo(const Variant &variant, const KernelVersion &kernel) {
  return inKernelRange(kernel, variant.since, variant.until);
}

} // namespace afunix::catalog
