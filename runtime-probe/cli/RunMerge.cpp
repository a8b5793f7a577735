// Per-process reports (validated by ProbeReport.cpp) merged into one summary: findings grouped by
// rule and call site, symbolised once for the whole run, credentials candidates promoted when
// another process's report shows it sent credentials to theirs, and the processes that left no
// final report named.
#include "RunMerge.h"

#include "Json.h"

#include "afunix/RuleCatalog.h"

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <sstream>
#include <sys/wait.h>
#include <tuple>
#include <unistd.h>

namespace afunix::probe {

namespace {

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string baseName(const std::string &path) { return path.substr(path.rfind('/') + 1); }

std::string severityOf(const std::string &rule) {
  if (const catalog::Rule *r = catalog::findRule(rule))
    return r->severity;
  return "note";
}

std::string statusText(int status) {
  if (WIFEXITED(status))
    return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    const char *name = sigabbrev_np(WTERMSIG(status));
    return std::string("killed by ") + (name ? std::string("SIG") + name : "signal " + std::to_string(WTERMSIG(status)));
  }
  return "unknown";
}

// bcc funclatency's print_log2_hist.
void printHistogram(std::ostringstream &out, const std::vector<uint64_t> &buckets) {
  int last = 1;
  uint64_t max = 0;
  for (std::size_t b = 0; b < buckets.size(); ++b) {
    if (buckets[b])
      last = std::max<int>(last, static_cast<int>(b));
    max = std::max(max, buckets[b]);
  }
  out << "     nsecs               : count     distribution\n";
  char line[160];
  for (int b = 1; b <= last; ++b) {
    uint64_t low = (1ull << b) >> 1, high = (1ull << b) - 1;
    if (low == high)
      --low;
    uint64_t value = buckets[b] + (b == 1 ? buckets[0] : 0);
    int stars = max ? static_cast<int>(value * 40 / max) : 0;
    std::string bar(static_cast<std::size_t>(stars), '*');
    std::snprintf(line, sizeof line, "%10llu -> %-10llu : %-8llu |%-40s|\n", static_cast<unsigned long long>(low),
                  static_cast<unsigned long long>(high), static_cast<unsigned long long>(value), bar.c_str());
    out << line;
  }
}

struct Hist {
  std::string call, cls;
  uint64_t count = 0;
  std::vector<uint64_t> buckets;
};

// Frames of one code address (inlined functions first), or one unsymbolised frame.
std::vector<StackFrame> framesOf(const ProcessReport &report, const CodeAddress &address, const Symbolizer &symbolizer) {
  const ReportModule *module = report.module(address.module);
  std::vector<StackFrame> frames;
  if (module)
    if (const SymbolizedAddress *s = symbolizer.find(module->path, address.offset))
      for (const SourceFrame &f : s->frames)
        frames.push_back({module->path, address.offset, f});
  if (frames.empty())
    frames.push_back({module ? module->path : "", module ? address.offset : address.pc, {}});
  return frames;
}

std::string siteText(const StackFrame &frame) {
  return (frame.module.empty() ? std::string("?") : baseName(frame.module)) + "+" + hex(frame.offset);
}

// The call's source location: the innermost frame whose file exists here (the program's own
// code), else the innermost frame with any file.
std::optional<SourceLocation> locationOf(const std::vector<StackFrame> &callFrames) {
  const StackFrame *best = nullptr;
  for (const StackFrame &f : callFrames)
    if (!f.source.file.empty() && access(f.source.file.c_str(), R_OK) == 0) {
      best = &f;
      break;
    }
  if (!best)
    for (const StackFrame &f : callFrames)
      if (!f.source.file.empty()) {
        best = &f;
        break;
      }
  if (!best)
    return std::nullopt;
  return SourceLocation{best->source.file, best->source.line, best->source.column, best->source.function};
}

// The call site as source: the whole inline chain of the call's address, so that two inlined
// copies of one helper (same innermost line, different callers) stay two call sites, while every
// process running the same binary agrees.
std::string locationKey(const std::vector<StackFrame> &callFrames, const std::string &site) {
  std::string key;
  for (const StackFrame &f : callFrames)
    if (!f.source.file.empty())
      key += f.source.file + ":" + std::to_string(f.source.line) + ":" + std::to_string(f.source.column) + ";";
  return key.empty() ? site : key;
}

// A source line as it is now (at run time): lets a later merge match a call whose line moved.
std::string sourceLine(const std::string &file, unsigned line) {
  static std::map<std::string, std::vector<std::string>> files;
  auto [it, fresh] = files.try_emplace(file);
  if (fresh) {
    std::string text, error;
    if (readRegularFile(file, 16u << 20, text, error)) {
      std::stringstream lines(text);
      for (std::string l; std::getline(lines, l);)
        it->second.push_back(l);
    }
  }
  if (!line || line > it->second.size())
    return "";
  std::string l = it->second[line - 1];
  std::size_t b = l.find_first_not_of(" \t\r"), e = l.find_last_not_of(" \t\r");
  return b == std::string::npos ? "" : l.substr(b, e - b + 1);
}

std::string framesJson(const std::vector<StackFrame> &frames) {
  std::string s = "[";
  for (std::size_t i = 0; i < frames.size(); ++i) {
    const StackFrame &f = frames[i];
    s += (i ? "," : "") + std::string("{\"module\":") + jsonString(f.module) + ",\"offset\":" + jsonString(hex(f.offset));
    if (!f.source.function.empty())
      s += ",\"function\":" + jsonString(f.source.function);
    if (!f.source.file.empty()) {
      s += ",\"file\":" + jsonString(f.source.file) + ",\"line\":" + std::to_string(f.source.line) +
           ",\"column\":" + std::to_string(f.source.column);
      if (std::string text = sourceLine(f.source.file, f.source.line); !text.empty())
        s += ",\"text\":" + jsonString(text);
    }
    s += ",\"inlined\":" + std::string(f.source.inlined ? "true" : "false") + "}";
  }
  return s + "]";
}

std::string socketJson(const SocketInfo &s, const std::vector<StackFrame> &origin) {
  std::string out = "{\"fd\":" + std::to_string(s.fd) + ",\"known\":" + (s.known ? "true" : "false");
  if (s.known) {
    out += ",\"family\":" + jsonString(s.family) + ",\"type\":" + jsonString(s.type) + ",\"role\":" + jsonString(s.role) +
           ",\"inode\":" + std::to_string(s.inode) + ",\"passcred\":" + (s.passcred ? "true" : "false") +
           ",\"listening\":" + (s.listening ? "true" : "false");
    auto address = [&](const char *key, const std::optional<SocketAddressText> &a) {
      if (!a)
        return;
      out += ",\"" + std::string(key) + "\":{\"kind\":" + jsonString(a->kind);
      if (a->kind != "unnamed")
        out += ",\"name\":" + jsonString(a->name);
      out += "}";
    };
    address("local", s.local);
    address("peer", s.peer);
    if (s.pairFd)
      out += ",\"pair_fd\":" + std::to_string(*s.pairFd);
    if (s.peerPid)
      out += ",\"peer_pid\":" + std::to_string(*s.peerPid) + ",\"peer_uid\":" + std::to_string(s.peerUid.value_or(0)) +
             ",\"peer_gid\":" + std::to_string(s.peerGid.value_or(0));
    if (s.originHow)
      out += ",\"origin\":{\"how\":" + jsonString(*s.originHow) + ",\"frames\":" + framesJson(origin) + "}";
  }
  return out + "}";
}

std::string groupJson(const FindingGroup &g) {
  std::string s = "{\"rule\":" + jsonString(g.rule) + ",\"variant\":" + jsonString(g.variant) +
                  ",\"severity\":" + jsonString(g.severity) + ",\"message\":" + jsonString(g.message) +
                  ",\"count\":" + std::to_string(g.count) + ",\"pids\":[";
  bool first = true;
  for (int pid : g.pids) {
    s += (first ? "" : ",") + std::to_string(pid);
    first = false;
  }
  s += "],\"programs\":[";
  for (std::size_t i = 0; i < g.programs.size(); ++i)
    s += (i ? "," : "") + jsonString(g.programs[i]);
  s += "],\"location\":";
  if (g.location)
    s += "{\"file\":" + jsonString(g.location->file) + ",\"line\":" + std::to_string(g.location->line) +
         ",\"column\":" + std::to_string(g.location->column) + ",\"function\":" + jsonString(g.location->function) + "}";
  else
    s += "null";
  s += ",\"site\":" + jsonString(g.site) + ",\"stack\":" + framesJson(g.stack) + ",\"socket\":";
  s += g.socket ? socketJson(*g.socket, g.origin) : "null";
  s += ",\"evidence\":" + (g.evidenceJson.empty() ? std::string("{}") : g.evidenceJson);
  if (!g.why.empty())
    s += ",\"why\":" + jsonString(g.why);
  return s + "}";
}

} // namespace

std::string displayPath(const std::string &file, const std::string &relativeTo) {
  if (!relativeTo.empty() && file.size() > relativeTo.size() + 1 && file.compare(0, relativeTo.size(), relativeTo) == 0 &&
      file[relativeTo.size()] == '/')
    return file.substr(relativeTo.size() + 1);
  return file;
}

std::string frameText(const StackFrame &f, const std::string &relativeTo) {
  std::string out = f.source.function.empty() ? std::string("??") : f.source.function;
  if (!f.source.file.empty()) {
    out += " " + displayPath(f.source.file, relativeTo);
    if (f.source.line)
      out += ":" + std::to_string(f.source.line);
    if (f.source.column)
      out += ":" + std::to_string(f.source.column);
  }
  out += " (" + siteText(f) + ")";
  if (f.source.inlined)
    out += " inlined";
  return out;
}

std::string addressText(const SocketAddressText &a) {
  if (a.kind == "abstract")
    return "@" + a.name;
  if (a.kind == "path")
    return a.name;
  return "unnamed";
}

std::string socketText(const SocketInfo &s, const std::vector<StackFrame> &origin, const std::string &relativeTo) {
  std::string out = "fd " + std::to_string(s.fd);
  if (!s.known)
    return out + " (closed before it could be described)";
  out += ", " + s.family + " " + s.type + " " + (s.role == "socketpair" ? "socketpair end" : s.role);
  if (s.pairFd)
    out += " (peer fd " + std::to_string(*s.pairFd) + ")";
  if (s.local)
    out += ", local " + addressText(*s.local);
  if (s.peer)
    out += ", peer " + addressText(*s.peer);
  if (s.peerPid)
    out += ", peer pid " + std::to_string(*s.peerPid) + " uid " + std::to_string(s.peerUid.value_or(0));
  out += s.passcred ? ", SO_PASSCRED on" : ", SO_PASSCRED off";
  if (!origin.empty()) {
    const StackFrame *shown = &origin.front();
    for (const StackFrame &f : origin)
      if (!f.source.file.empty() && access(f.source.file.c_str(), R_OK) == 0) {
        shown = &f;
        break;
      }
    out += s.originHow && *s.originHow == "received" ? "; received at " : "; created at ";
    out += frameText(*shown, relativeTo);
  } else {
    out += "; created before the probe loaded, or inherited";
  }
  return out;
}


std::string printable(const std::string &text) {
  std::string out;
  for (unsigned char c : text)
    out += c < 0x20 || c == 0x7f ? '?' : static_cast<char>(c);
  return out;
}

uint64_t RunSummary::occurrences() const {
  uint64_t n = 0;
  for (const auto &g : findings)
    n += g.count;
  return n;
}

RunSummary summarize(const RunSummaryInput &in, std::vector<std::string> &problems) {
  RunSummary summary;
  summary.command = in.command;
  summary.library = in.library;
  summary.reportDir = in.reportDir;
  summary.exitStatus = in.exitStatus;
  summary.relativeTo = in.relativeTo;

  // The most final report of each process image (pid, start): a process rewrites its own file,
  // and writes a second one if it dropped privileges after the first.
  std::map<std::pair<int, uint64_t>, ProcessReport> images;
  if (DIR *dir = opendir(in.reportDir.c_str())) {
    std::vector<std::string> names;
    while (dirent *entry = readdir(dir)) {
      std::string name = entry->d_name;
      if (name.rfind("afunix-probe.", 0) == 0 && name.size() > 5 && name.substr(name.size() - 5) == ".json")
        names.push_back(name);
    }
    closedir(dir);
    std::sort(names.begin(), names.end());
    for (const std::string &name : names) {
      std::string path = in.reportDir + "/" + name, error;
      std::optional<ProcessReport> report = readProcessReport(path, error);
      if (!report) {
        problems.push_back("skipped report " + printable(path) + ": " + error);
        continue;
      }
      if (report->startNs < in.launchedNs)
        continue; // an earlier run's report in a reused --out directory
      auto key = std::make_pair(report->pid, report->startNs);
      auto it = images.find(key);
      if (it == images.end() || report->finality() > it->second.finality())
        images[key] = std::move(*report);
    }
  } else {
    problems.push_back("cannot read report directory " + printable(in.reportDir));
  }
  for (auto &[key, report] : images)
    summary.processes.push_back(std::move(report));
  std::sort(summary.processes.begin(), summary.processes.end(),
            [](const ProcessReport &a, const ProcessReport &b) { return a.startNs < b.startNs; });

  // Processes that left no final report, and processes `run` reaped that left none at all.
  std::set<int> reported;
  for (const ProcessReport &p : summary.processes) {
    reported.insert(p.pid);
    if (p.finality() > 0)
      continue;
    auto status = in.reaped.find(p.pid);
    summary.missing.push_back(
        {p.pid, p.exe, status == in.reaped.end() ? "unknown" : statusText(status->second),
         "no final report: killed by a signal, or ended through a path the probe does not see "
         "(abort(), quick_exit(), a raw exit_group); its counts since the last report are lost"});
  }
  for (const auto &[pid, status] : in.reaped)
    if (!reported.count(pid))
      summary.missing.push_back({pid, "", statusText(status),
                                 "wrote no report: not probed (a static or setuid program, or LD_PRELOAD "
                                 "removed before exec), or the report could not be written"});

  // Symbolise every code address of the run in one go.
  Symbolizer symbolizer(in.symbolizer);
  auto queue = [&](const ProcessReport &p, const CodeAddress &a) {
    if (const ReportModule *m = p.module(a.module))
      symbolizer.add(m->path, m->buildId, a.offset);
  };
  for (const ProcessReport &p : summary.processes)
    for (const ReportSite &site : p.sites)
      for (const CodeAddress &a : site.stack)
        queue(p, a);
  for (const ProcessReport &p : summary.processes)
    for (const auto *list : {&p.findings, &p.candidates, &p.fixes})
      for (const ReportFinding &f : *list) {
        for (const CodeAddress &a : f.stack)
          queue(p, a);
        if (f.site)
          queue(p, *f.site);
        if (f.socket && f.socket->origin)
          queue(p, *f.socket->origin);
      }
  symbolizer.run();
  summary.symbolizer = symbolizer.toolName();
  summary.notes = symbolizer.notes();

  // Which processes someone sent explicit SCM_CREDENTIALS to: their credentials candidates are
  // findings after all.
  std::map<int64_t, int> credsSentBy; // receiver pid -> a sender pid
  for (const ProcessReport &p : summary.processes)
    for (int64_t to : p.credsSentTo)
      credsSentBy.emplace(to, p.pid);

  std::map<std::tuple<int, std::string, std::string, std::string>, std::size_t> index; // kind, rule, variant, where
  auto add = [&](int kind, const ProcessReport &p, const ReportFinding &f, std::string why) {
    std::vector<FindingGroup> &target = kind == 0 ? summary.findings : kind == 1 ? summary.candidates : summary.fixes;
    FindingGroup g;
    g.rule = f.rule;
    g.variant = f.variant;
    g.severity = kind == 2 ? "note" : severityOf(f.rule);
    g.message = f.message;
    std::vector<StackFrame> callFrames;
    if (!f.stack.empty() || f.site) {
      // The call is the first frame in the program's own sources (a file that exists here): the
      // intercepted call's return address itself, unless the program called through a library
      // or another interposer (a sanitizer runtime) first.
      std::optional<std::size_t> call;
      for (std::size_t i = 0; i < f.stack.size(); ++i) {
        std::vector<StackFrame> frames = framesOf(p, f.stack[i], symbolizer);
        for (const StackFrame &frame : frames)
          if (!call && !frame.source.file.empty() && access(frame.source.file.c_str(), R_OK) == 0)
            call = i;
        if (call && *call == i)
          callFrames = frames;
        for (StackFrame &frame : frames)
          g.stack.push_back(std::move(frame));
      }
      if (!call)
        callFrames = framesOf(p, f.site ? *f.site : f.stack.front(), symbolizer);
      if (g.stack.empty())
        g.stack = callFrames;
      g.site = siteText(callFrames.back());
      g.location = locationOf(callFrames);
    } else {
      g.site = "?";
    }
    if (f.socket) {
      g.socket = f.socket;
      if (f.socket->origin)
        g.origin = framesOf(p, *f.socket->origin, symbolizer);
    }
    for (const auto &[name, value] : f.evidence)
      g.evidenceText += " " + name + "=" + value;
    g.evidenceJson = f.evidenceJson;
    g.why = std::move(why);
    auto key = std::make_tuple(kind, g.rule, g.variant, locationKey(callFrames, g.site));
    auto it = index.find(key);
    if (it == index.end()) {
      index[key] = target.size();
      g.count = f.count;
      g.pids.insert(p.pid);
      g.programs.push_back(p.exe);
      target.push_back(std::move(g));
      return;
    }
    FindingGroup &existing = target[it->second];
    // A candidate is held back for the strongest reason any of its occurrences gave.
    if (kind == 1 && g.why.find("SO_PEERCRED") != std::string::npos)
      existing.why = g.why;
    existing.count += f.count;
    existing.pids.insert(p.pid);
    if (std::find(existing.programs.begin(), existing.programs.end(), p.exe) == existing.programs.end())
      existing.programs.push_back(p.exe);
  };
  for (const ProcessReport &p : summary.processes) {
    for (const ReportFinding &f : p.findings)
      add(0, p, f, "");
    for (const ReportFinding &f : p.candidates) {
      bool asked = false;
      for (const auto &[name, value] : f.evidence)
        asked |= name == "peer_credentials_asked" && value != "0";
      auto sender = credsSentBy.find(p.pid);
      if (!asked && sender != credsSentBy.end())
        add(0, p, f,
            "pid " + std::to_string(sender->second) + " sent explicit SCM_CREDENTIALS to this process: it expects "
            "credentials that never arrive");
      else
        add(1, p, f,
            asked ? "the program asks the kernel for its peer with SO_PEERCRED instead"
                  : "a control buffer alone: no process of this run sent it SCM_CREDENTIALS, so nothing shows "
                    "it expects them (fd receivers have control buffers too)");
    }
    for (const ReportFinding &f : p.fixes)
      add(2, p, f, "");
  }
  // Call sites (run --sites): one group per call and stack, over all processes.
  summary.sitesRecorded = !summary.processes.empty();
  std::map<std::pair<std::string, std::string>, std::size_t> siteIndex;
  for (const ProcessReport &p : summary.processes) {
    summary.sitesRecorded = summary.sitesRecorded && p.sitesRecorded;
    for (const ReportSite &site : p.sites) {
      CallSiteGroup g;
      g.call = site.call;
      g.count = site.count;
      std::string key;
      for (const CodeAddress &a : site.stack)
        for (StackFrame &frame : framesOf(p, a, symbolizer)) {
          key += frame.source.file + ":" + std::to_string(frame.source.line) + ";";
          g.stack.push_back(std::move(frame));
        }
      auto it = siteIndex.find({g.call, key});
      if (it != siteIndex.end()) {
        summary.sites[it->second].count += g.count;
        continue;
      }
      siteIndex[{g.call, key}] = summary.sites.size();
      summary.sites.push_back(std::move(g));
    }
  }
  auto order = [](const FindingGroup &a, const FindingGroup &b) {
    auto rank = [](const std::string &s) { return s == "error" ? 0 : s == "warning" ? 1 : 2; };
    return std::make_tuple(rank(a.severity), a.rule, a.location ? a.location->file : a.site,
                           a.location ? a.location->line : 0u) <
           std::make_tuple(rank(b.severity), b.rule, b.location ? b.location->file : b.site,
                           b.location ? b.location->line : 0u);
  };
  std::stable_sort(summary.findings.begin(), summary.findings.end(), order);
  std::stable_sort(summary.candidates.begin(), summary.candidates.end(), order);
  return summary;
}

std::string renderSummaryJson(const RunSummary &s) {
  std::map<std::string, int64_t> counters;
  std::map<std::pair<std::string, std::string>, Hist> hists;
  std::map<std::string, std::pair<uint64_t, std::set<int>>> ruleTotals;
  uint64_t fixes = 0;
  for (const ProcessReport &p : s.processes) {
    for (const auto &[key, value] : p.counters)
      counters[key] = key == "fds_in_flight_high_water" ? std::max(counters[key], value) : counters[key] + value;
    for (const ReportHistogram &h : p.histograms) {
      Hist &m = hists[{h.call, h.cls}];
      m.call = h.call;
      m.cls = h.cls;
      m.count += h.count;
      m.buckets.resize(std::max(m.buckets.size(), h.buckets.size()));
      for (std::size_t i = 0; i < h.buckets.size(); ++i)
        m.buckets[i] += h.buckets[i];
    }
    fixes += p.fixes.size();
  }
  for (const FindingGroup &g : s.findings) {
    auto &t = ruleTotals[g.rule];
    t.first += g.count;
    t.second.insert(g.pids.begin(), g.pids.end());
  }
  std::string out = "{\"version\":2,\"tool\":\"afunix-probe run\",\"command\":[";
  for (std::size_t i = 0; i < s.command.size(); ++i)
    out += (i ? "," : "") + jsonString(s.command[i]);
  out += "],\"exit_status\":" + std::to_string(s.exitStatus) + ",\"library\":" + jsonString(s.library) +
         ",\"report_dir\":" + jsonString(s.reportDir) + ",\"symbolizer\":" +
         (s.symbolizer.empty() ? std::string("null") : jsonString(s.symbolizer)) + ",\"notes\":[";
  for (std::size_t i = 0; i < s.notes.size(); ++i)
    out += (i ? "," : "") + jsonString(s.notes[i]);
  auto groups = [&](const std::vector<FindingGroup> &list) {
    std::string g = "[";
    for (std::size_t i = 0; i < list.size(); ++i)
      g += (i ? "," : "") + groupJson(list[i]);
    return g + "]";
  };
  out += "],\"findings\":" + groups(s.findings) + ",\"candidates\":" + groups(s.candidates) +
         ",\"fixes\":" + groups(s.fixes) + ",\"missing_processes\":[";
  for (std::size_t i = 0; i < s.missing.size(); ++i)
    out += (i ? "," : "") + std::string("{\"pid\":") + std::to_string(s.missing[i].pid) +
           ",\"exe\":" + jsonString(s.missing[i].exe) + ",\"status\":" + jsonString(s.missing[i].status) +
           ",\"what\":" + jsonString(s.missing[i].what) + "}";
  out += "],\"sites_recorded\":" + std::string(s.sitesRecorded ? "true" : "false") + ",\"sites\":[";
  for (std::size_t i = 0; i < s.sites.size(); ++i)
    out += (i ? "," : "") + std::string("{\"call\":") + jsonString(s.sites[i].call) +
           ",\"count\":" + std::to_string(s.sites[i].count) + ",\"stack\":" + framesJson(s.sites[i].stack) + "}";
  out += "],\"processes\":[";
  for (std::size_t i = 0; i < s.processes.size(); ++i)
    out += (i ? "," : "") + s.processes[i].rawJson;
  int quiet = 0;
  for (const ProcessReport &p : s.processes)
    quiet += !p.madeUnixCalls();
  out += "],\"totals\":{\"processes\":" + std::to_string(s.processes.size()) +
         ",\"processes_without_unix_calls\":" + std::to_string(quiet) + ",\"findings\":[";
  bool first = true;
  for (const auto &[rule, t] : ruleTotals) {
    out += (first ? "" : ",") + std::string("{\"rule\":") + jsonString(rule) + ",\"count\":" + std::to_string(t.first) +
           ",\"processes\":" + std::to_string(t.second.size()) + "}";
    first = false;
  }
  out += "],\"fixes\":" + std::to_string(fixes) + ",\"counters\":{";
  first = true;
  for (const auto &[key, value] : counters) {
    out += (first ? "" : ",") + jsonString(key) + ":" + std::to_string(value);
    first = false;
  }
  out += "},\"histograms\":[";
  first = true;
  for (const auto &[key, h] : hists) {
    out += (first ? "" : ",") + std::string("{\"call\":") + jsonString(h.call) + ",\"class\":" + jsonString(h.cls) +
           ",\"count\":" + std::to_string(h.count) + ",\"log2_ns\":[";
    for (std::size_t i = 0; i < h.buckets.size(); ++i)
      out += (i ? "," : "") + std::to_string(h.buckets[i]);
    out += "]}";
    first = false;
  }
  return out + "]}}\n";
}

std::string renderSummaryText(const RunSummary &s) {
  std::ostringstream out;
  const std::string &rel = s.relativeTo;
  int quiet = 0;
  std::map<std::string, int> quietPrograms;
  std::set<int> withFindings;
  for (const FindingGroup &g : s.findings)
    withFindings.insert(g.pids.begin(), g.pids.end());
  for (const ProcessReport &p : s.processes)
    if (!p.madeUnixCalls()) {
      ++quiet;
      ++quietPrograms[baseName(p.exe)];
    }
  // The verdict first, then each finding: that is what a person reads this for.
  out << "afunix-probe: ";
  if (s.findings.empty())
    out << "no findings in " << s.processes.size() << " process image" << (s.processes.size() == 1 ? "" : "s");
  else
    out << s.findings.size() << " finding" << (s.findings.size() == 1 ? "" : "s") << " (" << s.occurrences()
        << " occurrence" << (s.occurrences() == 1 ? "" : "s") << ") in " << withFindings.size() << " of "
        << s.processes.size() << " process image" << (s.processes.size() == 1 ? "" : "s");
  out << "; the program " << (s.exitStatus > 128 ? "was killed by signal " + std::to_string(s.exitStatus - 128)
                                                 : "exited with status " + std::to_string(s.exitStatus))
      << "\n";
  for (const FindingGroup &g : s.findings) {
    out << "\n" << g.rule << " [" << g.variant << "] " << g.severity << ": " << g.count << " occurrence"
        << (g.count == 1 ? "" : "s") << " in " << g.pids.size() << " process" << (g.pids.size() == 1 ? "" : "es")
        << " (";
    std::size_t shown = 0;
    for (int pid : g.pids) {
      if (shown++ == 4) {
        out << ", ...";
        break;
      }
      out << (shown > 1 ? ", " : "") << pid;
    }
    out << ": " << printable(baseName(g.programs.front())) << (g.programs.size() > 1 ? " and others" : "") << ")\n";
    if (g.location)
      out << "  at " << printable(displayPath(g.location->file, rel)) << ":" << g.location->line
          << (g.location->column ? ":" + std::to_string(g.location->column) : "")
          << (g.location->function.empty() ? "" : " in " + printable(g.location->function)) << "\n";
    else
      out << "  at " << printable(g.site) << " (no line information)\n";
    out << "  " << printable(g.message) << "\n";
    if (!g.why.empty())
      out << "  why: " << g.why << "\n";
    if (g.socket)
      out << "  socket: " << printable(socketText(*g.socket, g.origin, rel)) << "\n";
    if (!g.stack.empty()) {
      out << "  stack:\n";
      int depth = 0;
      for (std::size_t i = 0; i < g.stack.size(); ++i) {
        out << "    #" << depth << " " << printable(frameText(g.stack[i], rel)) << "\n";
        if (!g.stack[i].source.inlined)
          ++depth;
      }
    }
    if (!g.evidenceText.empty())
      out << "  evidence:" << printable(g.evidenceText) << "\n";
  }
  for (const FindingGroup &g : s.fixes)
    out << "\nfix-passcred [" << g.variant << "]: " << printable(g.message) << ", " << g.count << "x at "
        << printable(g.location ? displayPath(g.location->file, rel) + ":" + std::to_string(g.location->line) : g.site)
        << "\n";
  if (!s.candidates.empty()) {
    out << "\nnot reported (" << s.candidates.size() << "): recvmsg() with a control buffer on an AF_UNIX socket "
        << "without SO_PASSCRED, where nothing shows credentials are expected:\n";
    for (const FindingGroup &g : s.candidates)
      out << "  " << printable(g.location ? displayPath(g.location->file, rel) + ":" + std::to_string(g.location->line) : g.site)
          << ", " << g.count << "x: " << g.why << "\n";
  }
  if (!s.missing.empty()) {
    out << "\nmissing (" << s.missing.size() << "): processes without a final report\n";
    for (const MissingProcess &m : s.missing)
      out << "  pid " << m.pid << (m.exe.empty() ? "" : " " + printable(m.exe)) << ", " << m.status << ": " << m.what
          << "\n";
  }
  for (const std::string &note : s.notes)
    out << "\nnote: " << printable(note) << "\n";
  if (s.sitesRecorded)
    out << "\ncall sites recorded: " << s.sites.size() << " (in the JSON summary: what afunix-check "
        << "--runtime-unexercised uses to tell calls never reached)\n";

  out << "\nprocesses (" << s.processes.size() << "):\n";
  for (const ProcessReport &p : s.processes) {
    if (!p.madeUnixCalls())
      continue;
    out << "  pid " << p.pid << " (ppid " << p.ppid << ") " << printable(p.exe) << " [" << p.reason << "]: send "
        << p.counter("send_calls") << ", recv " << p.counter("recv_calls") << ", write " << p.counter("write_calls")
        << ", read " << p.counter("read_calls") << ", accept " << p.counter("accept_calls") << ", connect "
        << p.counter("connect_calls") << "; fds in flight high-water " << p.counter("fds_in_flight_high_water");
    std::size_t n = p.findings.size();
    if (n)
      out << "; " << n << " finding" << (n == 1 ? "" : "s");
    out << "\n";
  }
  if (quiet) {
    out << "  " << quiet << (quiet == static_cast<int>(s.processes.size()) ? "" : " more") << " process"
        << (quiet == 1 ? "" : "es") << " made no AF_UNIX call:";
    bool first = true;
    for (const auto &[name, n] : quietPrograms) {
      out << (first ? " " : ", ") << printable(name) << (n > 1 ? " x" + std::to_string(n) : "");
      first = false;
    }
    out << "\n";
  }

  std::map<std::string, int64_t> counters;
  std::map<std::pair<std::string, std::string>, Hist> hists;
  for (const ProcessReport &p : s.processes) {
    for (const auto &[key, value] : p.counters)
      counters[key] = key == "fds_in_flight_high_water" ? std::max(counters[key], value) : counters[key] + value;
    for (const ReportHistogram &h : p.histograms) {
      Hist &m = hists[{h.call, h.cls}];
      m.call = h.call;
      m.cls = h.cls;
      m.count += h.count;
      m.buckets.resize(std::max(m.buckets.size(), h.buckets.size()));
      for (std::size_t i = 0; i < h.buckets.size(); ++i)
        m.buckets[i] += h.buckets[i];
    }
  }
  out << "\ntotals:";
  for (const auto &[key, value] : counters)
    out << " " << key << "=" << value;
  out << "\n";
  for (const auto &[key, h] : hists) {
    out << "\n" << h.call << " (" << h.cls << "): " << h.count << " calls";
    uint64_t timed = 0;
    for (auto b : h.buckets)
      timed += b;
    // Latency is sampled (AFUNIX_PROBE_TIMING_SAMPLE): say how many calls the histogram holds.
    if (timed && timed != h.count)
      out << ", " << timed << " timed";
    out << "\n";
    if (timed)
      printHistogram(out, h.buckets);
    else
      out << "     (no call of these was timed: one call in AFUNIX_PROBE_TIMING_SAMPLE is, or timing is off)\n";
  }
  return out.str();
}

} // namespace afunix::probe
