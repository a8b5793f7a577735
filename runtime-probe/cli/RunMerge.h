// Merging the per-process reports written by libafunix-probe.so into one summary a person reads
// first: findings grouped by rule and call site across processes and repetitions, symbolised to
// function, file and line; processes that wrote no final report named; processes that made no
// AF_UNIX call folded into one line.
#pragma once

#include "ProbeReport.h"
#include "Symbolizer.h"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace afunix::probe {

struct RunSummaryInput {
  std::vector<std::string> command;
  std::string library;
  std::string reportDir;
  int exitStatus = 0;
  uint64_t launchedNs = 0;       // CLOCK_REALTIME: reports of processes started before are ignored
  std::map<int, int> reaped;     // pid -> wait status, for every process `run` reaped
  std::string symbolizer;        // "" = find one, "none" = off, or a tool
  std::string relativeTo;        // print source paths relative to this directory when inside it
};

// A frame of a finding's stack: one code address may give several (inlined functions).
struct StackFrame {
  std::string module;
  uint64_t offset = 0;
  SourceFrame source; // empty function/file when not symbolised
};

struct SourceLocation {
  std::string file; // as the DWARF names it (absolute for most builds)
  unsigned line = 0, column = 0;
  std::string function;
};

// One finding as a person reads it: every occurrence of a rule at one call site, over all
// processes and repetitions.
struct FindingGroup {
  std::string rule, variant, severity, message;
  uint64_t count = 0;
  std::set<int> pids;
  std::vector<std::string> programs;          // exe of each process, in first-seen order, unique
  std::optional<SourceLocation> location;     // the call, innermost frame with a source file
  std::string site;                           // module+offset of the call (always there)
  std::vector<StackFrame> stack;              // the call first, then its callers
  std::optional<SocketInfo> socket;
  std::vector<StackFrame> origin;             // where that socket was created or received
  std::string evidenceText, evidenceJson;     // of the first occurrence
  std::string why;                            // candidates: why not reported; promoted: why now
};

// Where the program made a socket call (run --sites), over all processes.
struct CallSiteGroup {
  std::string call;
  uint64_t count = 0;
  std::vector<StackFrame> stack;
};

struct MissingProcess {
  int pid = 0;
  std::string exe;
  std::string status; // "killed by SIGKILL", "exited with status 3", "unknown"
  std::string what;   // what is missing and the likely cause
};

struct RunSummary {
  std::vector<std::string> command;
  std::string library, reportDir;
  int exitStatus = 0;
  std::vector<ProcessReport> processes; // the most final report of each process image, by start
  std::vector<FindingGroup> findings, candidates, fixes;
  std::vector<MissingProcess> missing;
  bool sitesRecorded = false;           // every process recorded its call sites (run --sites)
  std::vector<CallSiteGroup> sites;
  std::string symbolizer;               // tool used, "" when none
  std::vector<std::string> notes;       // symbolisation notes
  std::string relativeTo;

  uint64_t occurrences() const;
};

// Reads every afunix-probe.*.json in `in.reportDir` written by this run (bad files are skipped
// with one line each in `problems`), groups and symbolises.
RunSummary summarize(const RunSummaryInput &in, std::vector<std::string> &problems);

std::string renderSummaryText(const RunSummary &summary);
std::string renderSummaryJson(const RunSummary &summary);
// SARIF 2.1.0 through afunix-check's writer; false (and `error`) when this build has none.
bool renderSummarySarif(const RunSummary &summary, const std::string &root, std::string &out, std::string &error);
bool sarifAvailable();

// `file` relative to `relativeTo` when inside it.
std::string displayPath(const std::string &file, const std::string &relativeTo);
// "function file:line:col (module+0xoffset)" of one frame.
std::string frameText(const StackFrame &f, const std::string &relativeTo);
// One line on a socket: family, type, role, addresses, peer, SO_PASSCRED, where it was made.
std::string socketText(const SocketInfo &s, const std::vector<StackFrame> &origin, const std::string &relativeTo);

// The run as one self-contained HTML page (ProbeHtml.cpp): the findings at their source lines
// with stacks and socket identity, the latency histograms and fds in flight over time as inline
// SVG, the process tree. False (and `error`) when this build has no HTML writer.
bool renderSummaryHtml(const RunSummary &summary, std::string &out, std::string &error);
bool htmlAvailable();
// Writes `html` as `path` the way output files are written (never through a symlink, never over
// anything but a regular file); `checkOnly`: only whether it could be, before the program runs.
bool writeHtmlFile(const std::string &path, const std::string &html, bool checkOnly, std::string &error);

// Text for humans: control characters (terminal escapes in paths and names) shown as '?'.
std::string printable(const std::string &text);

} // namespace afunix::probe
