// afunix-probe's HTML pages (ProbeHtml.cpp). The run's page is declared with the run summary
// (RunMerge.h); the kernel comparison's is here, with what `kernel --compare` found.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace afunix::probe {

struct KernelChange {
  std::string key, from, to;
  std::string what, rules; // what the change means for programs, the rules that find the code
};

// Two `afunix-probe kernel --format json` reports, key by key (KernelCompare.cpp).
struct KernelComparison {
  std::string oldFile, newFile, oldRelease, newRelease;
  std::vector<KernelChange> breaking, harmless, notCompared, measurements;
  std::vector<std::pair<std::string, std::string>> onlyOld, onlyNew;
  std::map<std::string, std::pair<double, double>> durationsNs; // gc.*_ns: old, new (0: absent)
  std::vector<std::string> experimentNotes;
  int unchanged = 0;
};

// The comparison as one self-contained page: the changes as tables, the GC durations as a chart.
// "" when this build has no HTML writer (htmlAvailable() in RunMerge.h).
std::string kernelCompareHtml(const KernelComparison &comparison);

} // namespace afunix::probe
