// JSON output helpers of the afunix-probe CLI: strings through the probe's one escaper, and
// yaml-cpp nodes (the probe's JSON reports, read with yaml-cpp) written back as JSON.
#pragma once

#include "JsonEscape.h"

#include <cstdint>
#include <string>

namespace YAML {
class Node;
}

namespace afunix::probe {

inline std::string jsonString(const std::string &s) {
  std::string out;
  out.reserve(s.size() + 2);
  escapeJson(s.data(), s.size(), [&](char c) { out += c; });
  return out;
}

// Quoted scalars stay strings, plain ones are written as they are (numbers, true, false, null).
void toJson(const YAML::Node &node, std::string &out);

} // namespace afunix::probe
