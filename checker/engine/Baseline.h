// Baselines: a file of known findings, keyed so a finding survives lines moving above it; only
// findings not in the baseline are reported (and decide the exit code).
#pragma once

#include "Finding.h"

#include <string>

namespace afunix::check {

// Writes every finding of `result` as the baseline file `path` (JSON). Returns false and sets
// `error` when the file cannot be written.
bool writeBaseline(const std::string &path, const RunResult &result, const std::string &root,
                   std::string &error);

// Removes from `result.findings` every finding recorded in the baseline file `path`. Returns
// false and sets `error` (naming the file and what is wrong) when it is missing or malformed.
bool applyBaseline(const std::string &path, RunResult &result, const std::string &root,
                   unsigned &suppressed, std::string &error);

} // namespace afunix::check
