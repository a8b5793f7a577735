// Kernel versions as the catalog writes them ("6.16", "6.1.141"). Header-only and allocation-free
// so the LD_PRELOAD probe can use it as well as the checker.
#pragma once

#include <string_view>

namespace afunix {

struct KernelVersion {
  int major = 0;
  int minor = 0;
  int patch = 0;

  // Accepts "X", "X.Y" or "X.Y.Z", optionally followed by a suffix that starts with anything but a
  // digit or '.' ("6.18.44-fc-v595" parses as 6.18.44), which is what uname(2) reports.
  static constexpr bool parse(std::string_view text, KernelVersion &out) {
    int parts[3] = {0, 0, 0};
    int count = 0;
    std::size_t i = 0;
    while (count < 3) {
      if (i >= text.size() || text[i] < '0' || text[i] > '9')
        return false;
      long value = 0;
      while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
        value = value * 10 + (text[i] - '0');
        if (value > 1000000)
          return false;
        ++i;
      }
      parts[count++] = static_cast<int>(value);
      if (i < text.size() && text[i] == '.' && i + 1 < text.size() && text[i + 1] >= '0' &&
          text[i + 1] <= '9') {
        ++i;
        continue;
      }
      break;
    }
    if (i < text.size() && (text[i] == '.' || (text[i] >= '0' && text[i] <= '9')))
      return false;
    out = KernelVersion{parts[0], parts[1], parts[2]};
    return true;
  }

  constexpr int compare(const KernelVersion &other) const {
    if (major != other.major)
      return major < other.major ? -1 : 1;
    if (minor != other.minor)
      return minor < other.minor ? -1 : 1;
    if (patch != other.patch)
      return patch < other.patch ? -1 : 1;
    return 0;
  }
  constexpr bool operator<(const KernelVersion &o) const { return compare(o) < 0; }
  constexpr bool operator>=(const KernelVersion &o) const { return compare(o) >= 0; }
  constexpr bool operator==(const KernelVersion &o) const { return compare(o) == 0; }
};

// True when `version` lies in [since, until); an empty bound is open.
constexpr bool inKernelRange(const KernelVersion &version, std::string_view since,
                             std::string_view until) {
  KernelVersion bound;
  if (!since.empty() && KernelVersion::parse(since, bound) && version < bound)
    return false;
  if (!until.empty() && KernelVersion::parse(until, bound) && version >= bound)
    return false;
  return true;
}

} // namespace afunix
