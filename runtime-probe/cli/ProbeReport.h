// One process's report as libafunix-probe.so writes it (JSON, version 1 or 2), read defensively:
// the file is opened without following symlinks or blocking on FIFOs, must be a regular file of a
// sane size, and every key is checked for presence and type before anything uses it. A report
// that fails is skipped with one line saying why; it never aborts the merge.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace afunix::probe {

struct CodeAddress {
  uint64_t pc = 0;
  int module = -1;     // index into ProcessReport::modules, -1 unknown
  uint64_t offset = 0; // the module's virtual address (what symbolizers take)
};

struct ReportModule {
  int index = -1;
  std::string path;
  std::string buildId; // hex, "" when the object has none
};

struct SocketAddressText {
  std::string kind; // "path", "abstract", "unnamed"
  std::string name;
};

struct SocketInfo {
  int fd = -1;
  bool known = false;
  std::string family, type, role;
  uint64_t inode = 0;
  bool passcred = false, listening = false;
  std::optional<SocketAddressText> local, peer;
  std::optional<int> pairFd;
  std::optional<int64_t> peerPid;
  std::optional<uint64_t> peerUid, peerGid;
  std::optional<std::string> originHow; // "created" / "received"
  std::optional<CodeAddress> origin;
};

struct ReportFinding {
  std::string rule, variant, message;
  int fd = -1;
  uint64_t count = 0;
  std::vector<std::pair<std::string, std::string>> evidence; // in the report's order, as text
  std::string evidenceJson;                                  // the same, as JSON
  std::optional<CodeAddress> site;
  std::vector<CodeAddress> stack;
  std::optional<SocketInfo> socket;
};

// A socket call the program made (AFUNIX_PROBE_SITES=1).
struct ReportSite {
  std::string call;
  uint64_t count = 0;
  std::optional<CodeAddress> site;
  std::vector<CodeAddress> stack;
};

struct ReportHistogram {
  std::string call, cls;
  uint64_t count = 0;
  std::vector<uint64_t> buckets;
};

// The most fds the process had in flight in each period since its first fd-carrying call.
struct InFlightSeries {
  uint64_t periodNs = 0;
  std::vector<int64_t> most; // -1: no change in that period (the count stayed where it was)
};

struct ProcessReport {
  std::string file;
  int version = 0;
  std::string reason; // exit, _exit, exec, interval, running
  int pid = 0, ppid = 0;
  std::optional<uint32_t> uid;
  std::string exe, argv0;
  uint64_t startNs = 0;
  std::vector<ReportFinding> findings, candidates, fixes;
  std::vector<int64_t> credsSentTo;
  bool sitesRecorded = false;
  std::vector<ReportSite> sites;
  std::vector<ReportModule> modules;
  std::vector<std::pair<std::string, int64_t>> counters;
  std::vector<ReportHistogram> histograms;
  std::optional<InFlightSeries> inFlight;
  std::string rawJson; // the report re-emitted as JSON (for `run --format json`)

  int64_t counter(const std::string &name) const;
  // Any AF_UNIX activity: sockets, calls, findings.
  bool madeUnixCalls() const;
  const ReportModule *module(int index) const;
  // How final the report is: a process rewrites its file, and one that dropped privileges writes
  // a second one; the most final one of a process wins.
  int finality() const;
};

// Reads and validates `path`. On failure returns nullopt and sets `error` (no path in it).
std::optional<ProcessReport> readProcessReport(const std::string &path, std::string &error);

// A file read the way report files are read: no symlinks, no FIFOs or devices, at most `limit`
// bytes. Returns false and sets `error` otherwise.
bool readRegularFile(const std::string &path, std::size_t limit, std::string &text, std::string &error);

} // namespace afunix::probe
