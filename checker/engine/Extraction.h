// Extraction for the whole-program run: each compile job parsed once (in parallel, each worker
// isolated: Isolation.h) and its socket facts read (analysis/Extract.h), or its facts taken from
// the facts cache (FactsCache.h) when nothing that decides them changed.
//
// What a cold scan does not pay for, each skip justified where it is made (Extraction.cpp) and
// covered by a test that compares the facts and findings with a --full-parse run:
//   - bodies of functions declared in system headers are not parsed (no fact comes from them);
//   - the driver runs once per distinct command line, not once per file;
//   - the files the jobs read are read and stat'ed once per run, not once per job;
//   - a header prefix several files begin with is parsed once, into a shared preamble.
#pragma once

#include "CompileDb.h"
#include "Finding.h"
#include "RunStats.h"

#include "Facts.h"
#include "ProjectOptions.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace afunix::check {

class FactsCache;

struct ExtractedUnit {
  facts::Unit unit;
  FileOutcome outcome;
  bool fromCache = false;
  std::string digest; // factsDigest() of the facts when the facts cache knows it, else ""
  // Every file its parse read (the main file, project and system headers), when asked for
  // (ExtractionSettings::wantInputs): what a partial run reports findings in.
  std::vector<std::string> inputs;
};

// What the extractions of one run share (the file system's answers, the compiler driver's), kept
// across several extractUnits() calls (the prefilter's rounds) when given to each.
struct ExtractionSession;
std::shared_ptr<ExtractionSession> newExtractionSession();

struct ExtractionSettings {
  bool extract = true;    // false: parse only (--parse-only), nothing extracted, nothing cached
  bool fullParse = false; // parse everything as clang -fsyntax-only would: none of the skips
  bool noPreambles = false; // all the skips but shared preambles (for tests and benches)
  unsigned jobs = 1;
  FactsCache *cache = nullptr; // nullptr: no facts cache
  // Jobs whose ExtractedUnit::inputs are wanted (by index; empty: none).
  std::vector<bool> wantInputs;
  // Called (under a lock, from workers) as each job is done: jobs done so far, total, its file.
  std::function<void(std::size_t done, std::size_t total, const std::string &file, bool cached)>
      progress;
  RunStats *stats = nullptr;
  std::shared_ptr<ExtractionSession> session; // null: this call's own
};

// Extracts every job's facts; `project[i]` is job i's project options. The result is in job order
// and does not depend on the number of workers or on which units came from the cache.
std::vector<ExtractedUnit> extractUnits(const std::vector<CompileJob> &jobs,
                                        const std::vector<const analysis::ProjectOptions *> &project,
                                        const ExtractionSettings &settings);

} // namespace afunix::check
