// Runtime evidence from afunix-probe, next to the static findings. `afunix-probe run` writes its
// findings (symbolised to file:line, with the stack of each call) as a JSON summary; this reads
// such summaries, turns runtime findings into Findings at their source lines (what
// `afunix-probe run --format sarif` writes), and merges them into a static run:
//   - a static finding whose rule fired at run time at its line (on any frame of the stack, so a
//     finding at a wrapper's call site matches too) is marked confirmed;
//   - a runtime finding no static finding matches is added at its line (runtime only);
//   - optionally, static findings without runtime evidence are marked: when the run recorded its
//     call sites (`afunix-probe run --sites`), as reached without the problem showing, or as never
//     reached; otherwise as not seen.
// Line drift (the source was edited after the probed binary was built): the summary carries each
// frame's source line as it was at run time; a static finding within `lineSlack` lines whose line
// text is the same still matches, and says it moved.
#pragma once

#include "Finding.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace afunix::check {

struct RuntimeFrame {
  std::string file, function, text, module, offset;
  unsigned line = 0, column = 0;
  bool inlined = false;
};

struct RuntimeFinding {
  std::string rule, variant, severity, message;
  unsigned long long count = 0;
  std::vector<long long> pids;
  std::vector<std::string> programs;
  std::optional<SourcePoint> location; // the call
  std::string function;                // of the call
  std::string site;                    // module+offset of the call
  std::vector<RuntimeFrame> stack;     // the call first (inlined frames included)
  std::vector<RuntimeFrame> origin;    // where its socket was created or received
  std::string originHow;               // "created" / "received"
  std::string socket;                  // one line: type, addresses, peer
  bool candidate = false; // afunix-creds-without-passcred without evidence that creds are expected
  bool badLine = false;   // its location's line is no line number (negative, zero, not an integer)
  std::string why;
  std::string source; // the evidence file it came from
};

// A socket call the probed program made (`afunix-probe run --sites`): where, with its stack.
struct RuntimeCallSite {
  std::string call;
  unsigned long long count = 0;
  std::vector<RuntimeFrame> stack;
};

struct RuntimeEvidence {
  std::vector<RuntimeFinding> findings;
  std::vector<RuntimeCallSite> sites;
  bool sitesRecorded = false; // some run recorded its call sites: "never reached" can be said
  std::vector<std::string> files;
  // Summaries of a run another summary already gave (the same processes: a copy, or a summary
  // written twice), each with the file it repeats: read once, so nothing counts twice.
  std::vector<std::pair<std::string, std::string>> repeated;
  std::vector<std::string> runs; // what identifies each run read (its processes), as files[i]'s
};

// Reads `path`: an afunix-probe run summary (`afunix-probe run --format json`), or a directory
// holding them (afunix-probe-run.*.json, written by `afunix-probe run --out DIR`). Each must be a
// regular file (analysis/InputFiles.h). False with `error` naming the file and what is wrong.
bool loadRuntimeEvidence(const std::string &path, RuntimeEvidence &out, std::string &error);
bool parseRuntimeEvidence(const std::string &json, const std::string &name, RuntimeEvidence &out, std::string &error);

// A runtime finding as a Finding at its call: notes for the callers, the socket's origin and the
// counts; SARIF properties afunix/runtime = "runtime-only", afunix/runtimeCount, ...
Finding toFinding(const RuntimeFinding &finding);

struct MergeOptions {
  unsigned lineSlack = 5;       // how far a call may have moved and still match by its line text
  bool markUnexercised = false; // static findings with no runtime evidence get a note and property
  std::set<std::string> rules;  // only these rules (empty: all)
  // The project's source tree: a runtime finding is added only at a line of a regular file below
  // it (a record pointing elsewhere is counted in MergeStats::notUsed). "": anywhere.
  std::string projectRoot;
};

struct MergeStats {
  unsigned confirmed = 0;    // static findings the run confirmed
  unsigned moved = 0;        // ... of which matched after the line moved
  unsigned runtimeOnly = 0;  // runtime findings added at their lines
  unsigned notSeen = 0;      // static findings without runtime evidence (when marked)
  unsigned reachedClean = 0; // ... of which the run reached without the problem (with --sites)
  unsigned notReached = 0;   // ... of which the run never reached (with --sites)
  unsigned disabled = 0;     // runtime findings of rules not enabled here: counted, not shown
  unsigned outOfScope = 0;   // runtime findings in files a partial run does not report on
  // Runtime findings that could not be placed at a line of the project: why ("outside the
  // project", "not a regular file", "past the end of the file", "no line"), with the first place.
  std::map<std::string, std::pair<unsigned, std::string>> notUsed;
  unsigned notUsedTotal() const;
};

// Merges `evidence` into `result` (findings stay sorted by file, line, column, rule).
MergeStats mergeRuntimeEvidence(RunResult &result, const RuntimeEvidence &evidence, const MergeOptions &options);

} // namespace afunix::check
