// Merging the per-process reports written by libafunix-probe.so into one summary.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace afunix::probe {

struct RunSummaryInput {
  std::vector<std::string> command;
  std::string library;
  std::string reportDir;
  int exitStatus = 0;
  uint64_t launchedNs = 0; // CLOCK_REALTIME: reports of processes started before are ignored
};

// Reads every afunix-probe.*.json in `in.reportDir` written by this run. Unreadable files are
// listed in `problems` (one line each). Returns the summary text in `format` ("text"/"json").
std::string mergeReports(const RunSummaryInput &in, const std::string &format, std::vector<std::string> &problems);

} // namespace afunix::probe
