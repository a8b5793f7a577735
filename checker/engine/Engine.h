// Runs the afunix-* clang-tidy checks over compile jobs and turns clang-tidy's diagnostics into
// Findings: one parse per file, NOLINT handled by clang-tidy's own diagnostic consumer, files in
// parallel with a result that does not depend on the number of workers.
#pragma once

#include "CompileDb.h"
#include "Finding.h"
#include "RunStats.h"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace afunix::check {

// The checks and check options for one translation unit (from the nearest .afunix-check.yaml).
struct UnitSettings {
  std::string checks;                              // clang-tidy glob over check names
  std::map<std::string, std::string> checkOptions; // clang-tidy check options (global names)
};

// One slice of a database, for a sharded run (ShardFiles.h): files K of N (1 <= K <= N).
struct ShardSpec {
  unsigned index = 0, count = 0; // count 0: not sharded
  std::string directory;         // where the slice's facts are written
  std::string *error = nullptr;  // receives why they could not be
};

struct EngineOptions {
  std::string checks = "-*,afunix-*";                 // clang-tidy glob over check names
  std::map<std::string, std::string> checkOptions;    // clang-tidy check options (global names)
  std::map<std::string, std::string> severity;        // rule id -> severity override
  unsigned jobs = 1;
  // When set, the settings for the unit whose main file is the argument (absolute), instead of
  // `checks` and `checkOptions`. Called from worker threads: must be thread-safe.
  std::function<UnitSettings(const std::string &mainFile)> settingsFor;
  // Whole program: extract every unit's facts, link them, judge the linked program (afunix-check's
  // default). Otherwise each unit alone, through clang-tidy (--single-tu).
  bool wholeProgram = false;
  std::string storeFacts;           // write the units' facts here (afunix-facts.json); "" = don't
  // Take the units of the program that are not among the jobs (left out by --exclude, missing
  // from the disk) from these stored facts, while their files are as they were; "" = none.
  std::string readFacts;
  // A partial run: the main files whose findings are reported (with the files their parses read:
  // the project headers they include). The other jobs are extracted (from the facts cache when
  // unchanged) only to judge these with the current facts of the whole program. Empty: all.
  std::vector<std::string> checkedFiles;
  std::string *dumpFacts = nullptr; // receives the linked program's facts, for --dump-facts
  // The systemd socket units and Android .rc files to read with the program whose units have
  // these main files (ServiceDiscovery.h finds them); unset: none.
  std::function<std::vector<std::string>(const std::vector<std::string> &mainFiles)> serviceFiles;
  RunStats *stats = nullptr;        // receives what each phase cost (whole program only)
  // Whole program only:
  std::string cacheDir;             // the facts cache (FactsCache.h); "" = none
  bool fullParse = false;           // parse everything, none of the skips (Extraction.h)
  // Parse only the files that can change the findings (Prefilter.h); off with --full-parse.
  bool prefilter = true;
  ShardSpec shard;                  // extract one slice and write its facts, judge nothing
  // Facts name the files below the working directory relative to it (ProjectOptions::relativePaths):
  // shards extracted in one checkout or sandbox, linked in another.
  bool relativePaths = false;
  // The link: shards may come from several databases (each whole), judged as one program (a Bazel
  // target's closure: one database per source file). Otherwise they must be one database's.
  bool linkSeveralDatabases = false;
  bool disableFree = false;         // the process exits after the run: leave the program unfreed
  // Called as each unit is done (under a lock): units done, total, its main file, from the cache.
  std::function<void(std::size_t, std::size_t, const std::string &, bool)> progress;
};

// Checks every job. Never throws. Findings are reported wherever they are, main files and every
// non-system header (the front end filters them: Filters.h), each once however many units
// include its header. A file that makes clang or a check crash, stack overflows included, is
// reported as not parsed and the other files' findings are kept (each unit runs under
// runIsolated(), Isolation.h). NOLINT'd and system-header findings are counted in
// RunResult::dropped.
RunResult runChecks(const std::vector<CompileJob> &jobs, const EngineOptions &options);
// The whole-program run (runChecks calls it when options.wholeProgram is set): the same
// guarantees, with findings and notes anywhere in the program (WholeProgram.cpp).
RunResult runWholeProgram(const std::vector<CompileJob> &jobs, const EngineOptions &options);
// The link of sharded runs (`afunix-check link`): the facts of every slice in `paths` (shard
// directories or files) judged as one run over the whole database would judge them. False and
// `error` when the slices are damaged, incomplete or do not belong together.
bool runLink(const std::vector<std::string> &paths, const EngineOptions &options, RunResult &result,
             std::string &error);

// Installs LLVM's crash recovery signal handlers; front ends call it once at start-up.
void enableCrashRecovery();

// Names of every registered afunix check, sorted.
std::vector<std::string> registeredChecks();
// Which registered checks `glob` (clang-tidy syntax) enables.
std::vector<std::string> enabledChecks(const std::string &glob);

// Sorts findings by file, line, column, rule and message, keeping one of each (a finding in a
// header reached from several units): the first in the given order, preferring one from a unit
// that parsed (`unparsedUnits` holds the main files that did not). Stable: the result does not
// depend on how work was scheduled.
void sortFindings(std::vector<Finding> &findings,
                  const std::vector<std::string> &unparsedUnits = {});

} // namespace afunix::check
