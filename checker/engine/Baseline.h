// Baselines: a file of known findings, keyed so a finding survives lines moving above it; only
// findings not in the baseline are reported (and decide the exit code).
#pragma once

#include "Finding.h"

#include <map>
#include <string>

namespace afunix::check {

// A baseline read from its file: how many times each fingerprint is known.
struct Baseline {
  std::string path;
  std::map<std::string, unsigned> known;
};

// Writes every finding of `result` as the baseline file `path` (JSON), replacing it only if it
// is a regular file (SafeFiles.h). Returns false and sets `error` when it cannot be written.
bool writeBaseline(const std::string &path, const RunResult &result, const std::string &root,
                   std::string &error);

// Reads and validates the baseline file `path`. Returns false and sets `error` (naming the file
// and what is wrong) when it is missing or malformed. Front ends read it before the analysis, so
// a broken baseline costs nothing and a later --write-baseline to the same path cannot clobber it
// first.
bool loadBaseline(const std::string &path, Baseline &out, std::string &error);

// Removes from `result.findings` every finding `baseline` records (counted in
// result.dropped.baseline and `suppressed`).
void applyBaseline(const Baseline &baseline, RunResult &result, const std::string &root,
                   unsigned &suppressed);

// loadBaseline() then applyBaseline().
bool applyBaseline(const std::string &path, RunResult &result, const std::string &root,
                   unsigned &suppressed, std::string &error);

} // namespace afunix::check
