// Runs the afunix-* clang-tidy checks over compile jobs and turns clang-tidy's diagnostics into
// Findings: one parse per file, NOLINT handled by clang-tidy's own diagnostic consumer, files in
// parallel with a result that does not depend on the number of workers.
#pragma once

#include "CompileDb.h"
#include "Finding.h"

#include <map>
#include <string>
#include <vector>

namespace afunix::check {

struct EngineOptions {
  std::string checks = "-*,afunix-*";                 // clang-tidy glob over check names
  std::map<std::string, std::string> checkOptions;    // clang-tidy check options (global names)
  std::map<std::string, std::string> severity;        // rule id -> severity override
  std::string headerFilter;                           // regex; empty: findings in main files only
  unsigned jobs = 1;
  // Whole program: extract every file's facts, link them, judge the linked program (afunix-check's
  // default). Otherwise each file alone, through clang-tidy (--single-tu).
  bool wholeProgram = false;
  std::string storeFacts;          // write the units' facts here (afunix-facts.json); "" = don't
  std::string readFacts;           // link with these stored facts for the files not checked now
  std::string *dumpFacts = nullptr; // receives the linked program's facts, for --dump-facts
};

// Checks every job. Never throws; a file that makes clang crash is reported as not parsed and the
// other files' findings are kept (needs enableCrashRecovery()).
RunResult runChecks(const std::vector<CompileJob> &jobs, const EngineOptions &options);
// The whole-program run (runChecks calls it when options.wholeProgram is set).
RunResult runWholeProgram(const std::vector<CompileJob> &jobs, const EngineOptions &options);

// Installs LLVM's crash recovery signal handlers; front ends call it once at start-up.
void enableCrashRecovery();

// Names of every registered afunix check, sorted.
std::vector<std::string> registeredChecks();
// Which registered checks `glob` (clang-tidy syntax) enables.
std::vector<std::string> enabledChecks(const std::string &glob);

// Sorts findings by file, line, column, rule and message, dropping exact duplicates (a finding in
// a header reached from two files).
void sortFindings(std::vector<Finding> &findings);

} // namespace afunix::check
