// `afunix-probe kernel`: every experiment run isolated and bounded, then one report.
#pragma once

#include <string>
#include <vector>

#include "afunix/kernel/Experiment.h"

namespace afunix::kernel {

struct KernelReportOptions {
  bool quick = false;          // skip the GC experiment (seconds, tens of thousands of sockets)
  double timeoutSeconds = 60;  // per experiment
  bool privateNetwork = true;
  int gcInflight = 17000;
  int gcSamples = 1024;       // per block; `bench gc` takes 4096 like the 2024 measurement
  std::vector<std::string> only; // run only these experiments (ExperimentRegistry.h names)
};

struct KernelReport {
  std::string release;   // uname -r, reported only: no decision is based on it
  std::vector<Observation> observations;
  long long uid = 0; // uid_t is unsigned: a uid past 2^31 must not print negative
  std::string netns;     // what isolation the experiments got
  int fdsBefore = 0, fdsAfter = 0;
  bool childrenLeft = false;
  bool quick = false;

  const Value *get(const std::string &key) const; // a dotted key of any observation
  bool clean() const { return fdsBefore == fdsAfter && !childrenLeft; }
  bool allRan() const; // no experiment failed or timed out
};

KernelReport runKernelReport(const KernelReportOptions &options);

// The report keys docs/kernel-report.md documents; every one is present in the JSON (null when
// its experiment was skipped or could not decide).
const std::vector<std::string> &documentedKeys();

std::string toJson(const KernelReport &report);
std::string toText(const KernelReport &report);

} // namespace afunix::kernel
