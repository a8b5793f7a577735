#include "RuntimeEvidence.h"

#include "Sarif.h"

#include "InputFiles.h"

#include "afunix/RuleCatalog.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/xxhash.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace afunix::check {

namespace json = llvm::json;

namespace {

std::string str(const json::Object &o, llvm::StringRef key) {
  if (auto v = o.getString(key))
    return v->str();
  return "";
}

unsigned num(const json::Object &o, llvm::StringRef key) {
  if (auto v = o.getInteger(key))
    return *v > 0 ? static_cast<unsigned>(*v) : 0;
  return 0;
}

bool frames(const json::Array *list, std::vector<RuntimeFrame> &out) {
  if (!list)
    return true;
  for (const json::Value &v : *list) {
    const json::Object *o = v.getAsObject();
    if (!o)
      return false;
    RuntimeFrame f;
    f.file = str(*o, "file");
    f.function = str(*o, "function");
    f.text = str(*o, "text");
    f.module = str(*o, "module");
    f.offset = str(*o, "offset");
    f.line = num(*o, "line");
    f.column = num(*o, "column");
    f.inlined = o->getBoolean("inlined").value_or(false);
    out.push_back(std::move(f));
  }
  return true;
}

std::string socketLine(const json::Object &s) {
  if (!s.getBoolean("known").value_or(false))
    return "fd " + std::to_string(s.getInteger("fd").value_or(-1));
  std::string out = "fd " + std::to_string(s.getInteger("fd").value_or(-1)) + ", " + str(s, "family") + " " +
                    str(s, "type") + " " + str(s, "role");
  auto address = [&](llvm::StringRef key, llvm::StringRef label) {
    if (const json::Object *a = s.getObject(key)) {
      std::string kind = str(*a, "kind");
      out += ", " + label.str() + " " + (kind == "abstract" ? "@" + str(*a, "name") : kind == "path" ? str(*a, "name") : "unnamed");
    }
  };
  address("local", "local");
  address("peer", "peer");
  if (auto pid = s.getInteger("peer_pid"))
    out += ", peer pid " + std::to_string(*pid);
  return out;
}

bool parseGroup(const json::Value &v, bool candidate, const std::string &name, RuntimeFinding &f, std::string &error) {
  const json::Object *o = v.getAsObject();
  if (!o || !o->getString("rule") || !o->getInteger("count")) {
    error = name + ": a finding without 'rule' or 'count'";
    return false;
  }
  f.rule = str(*o, "rule");
  f.variant = str(*o, "variant");
  f.severity = str(*o, "severity");
  f.message = str(*o, "message");
  f.count = static_cast<unsigned long long>(std::max<int64_t>(0, *o->getInteger("count")));
  f.site = str(*o, "site");
  f.why = str(*o, "why");
  f.candidate = candidate;
  f.source = name;
  if (const json::Array *pids = o->getArray("pids"))
    for (const json::Value &p : *pids)
      if (auto n = p.getAsInteger())
        f.pids.push_back(*n);
  if (const json::Array *programs = o->getArray("programs"))
    for (const json::Value &p : *programs)
      if (auto s = p.getAsString())
        f.programs.push_back(s->str());
  if (const json::Object *loc = o->getObject("location")) {
    f.location = SourcePoint{str(*loc, "file"), num(*loc, "line"), num(*loc, "column")};
    f.function = str(*loc, "function");
    std::optional<int64_t> line = loc->getInteger("line");
    f.badLine = !line || *line < 1 || *line > UINT32_MAX;
  }
  if (!frames(o->getArray("stack"), f.stack)) {
    error = name + ": a stack frame is not an object";
    return false;
  }
  if (const json::Object *s = o->getObject("socket")) {
    f.socket = socketLine(*s);
    if (const json::Object *origin = s->getObject("origin")) {
      f.originHow = str(*origin, "how");
      frames(origin->getArray("frames"), f.origin);
    }
  }
  return true;
}

// Same source file: equal real paths, or (for the relative paths some DWARF carries) the
// relative path is a trailing part of the absolute one.
class SameFile {
public:
  bool operator()(const std::string &a, const std::string &b) {
    if (a.empty() || b.empty())
      return false;
    if (a == b)
      return true;
    std::string ra = real(a), rb = real(b);
    if (!ra.empty() && ra == rb)
      return true;
    auto tail = [](llvm::StringRef full, llvm::StringRef part) {
      while (part.consume_front("./")) {
      }
      return !part.empty() && !llvm::sys::path::is_absolute(part) && full.ends_with(part) &&
             full.size() > part.size() && full[full.size() - part.size() - 1] == '/';
    };
    return tail(a, b) || tail(b, a);
  }

private:
  std::map<std::string, std::string> cache_;
  std::string real(const std::string &path) {
    auto [it, fresh] = cache_.try_emplace(path);
    if (fresh) {
      llvm::SmallString<256> out;
      if (!llvm::sys::fs::real_path(path, out))
        it->second = std::string(out);
    }
    return it->second;
  }
};

// Line `line` of the regular file `file`, trimmed; nullopt when the file cannot be read (not a
// regular file: a FIFO or a device is never opened for reading) or has no such line.
std::optional<std::string> lineOf(const std::string &file, unsigned line) {
  if (!line)
    return std::nullopt;
  std::string ignored;
  std::unique_ptr<llvm::MemoryBuffer> buffer =
      analysis::readInputFile(file, analysis::kMaxSourceBytes, ignored);
  if (!buffer)
    return std::nullopt;
  llvm::StringRef text = buffer->getBuffer();
  for (unsigned i = 1; i < line; ++i) {
    std::size_t nl = text.find('\n');
    if (nl == llvm::StringRef::npos || nl + 1 == text.size())
      return std::nullopt;
    text = text.drop_front(nl + 1);
  }
  return text.take_until([](char c) { return c == '\n'; }).trim().str();
}

// A source line of the project where runtime evidence may put a finding or a note: "" when
// `point` is one, else why not.
std::string placeProblem(const std::string &file, unsigned line, bool badLine,
                         const std::string &projectRoot) {
  if (file.empty() || badLine || line == 0)
    return "no line";
  if (!llvm::sys::path::is_absolute(file) ||
      (!projectRoot.empty() && !llvm::StringRef(file).starts_with(projectRoot + "/")))
    return "outside the project";
  if (!analysis::isRegularFile(file))
    return "not a regular file";
  if (!lineOf(file, line))
    return "past the end of the file";
  return "";
}

std::string plural(unsigned long long n, const char *one, const char *many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string runtimeSummary(const RuntimeFinding &f) {
  std::string programs;
  for (std::size_t i = 0; i < f.programs.size() && i < 3; ++i)
    programs += (i ? ", " : "") + llvm::sys::path::filename(f.programs[i]).str();
  if (f.programs.size() > 3)
    programs += ", ...";
  return plural(f.count, "occurrence", "occurrences") + " in " + plural(f.pids.size(), "process", "processes") +
         (programs.empty() ? "" : " (" + programs + ")");
}

bool hasNoLint(const std::string &lineText, const std::string &rule) {
  llvm::StringRef text(lineText);
  std::size_t at = text.find("NOLINT");
  if (at == llvm::StringRef::npos)
    return false;
  llvm::StringRef rest = text.drop_front(at + 6);
  if (rest.starts_with("NEXTLINE"))
    return false; // applies to the next line, not this one
  if (!rest.starts_with("("))
    return true; // a bare NOLINT suppresses every rule
  llvm::StringRef list = rest.drop_front().take_until([](char c) { return c == ')'; });
  llvm::SmallVector<llvm::StringRef, 4> names;
  list.split(names, ',');
  for (llvm::StringRef n : names) {
    n = n.trim();
    if (n == rule || n == "*" || (n.ends_with("*") && llvm::StringRef(rule).starts_with(n.drop_back())))
      return true;
  }
  return false;
}

} // namespace

bool parseRuntimeEvidence(const std::string &text, const std::string &name, RuntimeEvidence &out, std::string &error) {
  std::string why;
  std::optional<json::Value> value = analysis::parseJson(text, why);
  if (!value) {
    error = name + ": not JSON: " + why;
    return false;
  }
  const json::Object *root = value->getAsObject();
  if (!root || str(*root, "tool") != "afunix-probe run") {
    error = name + ": not an afunix-probe run summary (run `afunix-probe run --format json --report FILE`, or "
                   "give the --out directory)";
    return false;
  }
  if (root->getInteger("version").value_or(0) != 2) {
    error = name + ": summary version " + std::to_string(root->getInteger("version").value_or(0)) +
            " has no source locations; re-run it with this afunix-probe";
    return false;
  }
  for (auto [key, candidate] : {std::pair<const char *, bool>{"findings", false}, {"candidates", true}}) {
    const json::Array *list = root->getArray(key);
    if (!list) {
      error = name + ": no '" + key + "' list";
      return false;
    }
    for (const json::Value &v : *list) {
      RuntimeFinding f;
      if (!parseGroup(v, candidate, name, f, error))
        return false;
      out.findings.push_back(std::move(f));
    }
  }
  if (root->getBoolean("sites_recorded").value_or(false)) {
    out.sitesRecorded = true;
    if (const json::Array *sites = root->getArray("sites"))
      for (const json::Value &v : *sites)
        if (const json::Object *o = v.getAsObject()) {
          RuntimeCallSite site;
          site.call = str(*o, "call");
          site.count = static_cast<unsigned long long>(std::max<int64_t>(0, o->getInteger("count").value_or(0)));
          frames(o->getArray("stack"), site.stack);
          out.sites.push_back(std::move(site));
        }
  }
  // What identifies the run: its processes (pid and start time of each), else the summary's bytes.
  std::vector<std::string> processes;
  if (const json::Array *list = root->getArray("processes"))
    for (const json::Value &v : *list)
      if (const json::Object *report = v.getAsObject())
        if (const json::Object *process = report->getObject("process"))
          processes.push_back(std::to_string(process->getInteger("pid").value_or(-1)) + "@" +
                              std::to_string(process->getInteger("start_ns").value_or(-1)));
  std::sort(processes.begin(), processes.end());
  std::string run = processes.empty() ? "bytes " + std::to_string(llvm::xxh3_64bits(text))
                                      : "processes " + llvm::join(processes, ",");
  out.files.push_back(name);
  out.runs.push_back(run);
  return true;
}

bool loadRuntimeEvidence(const std::string &path, RuntimeEvidence &out, std::string &error) {
  std::vector<std::string> files;
  if (llvm::sys::fs::is_directory(path)) {
    std::error_code ec;
    for (llvm::sys::fs::directory_iterator it(path, ec), end; it != end && !ec; it.increment(ec)) {
      llvm::StringRef name = llvm::sys::path::filename(it->path());
      if (name.starts_with("afunix-probe-run.") && name.ends_with(".json"))
        files.push_back(it->path());
    }
    if (ec) {
      error = path + ": " + ec.message();
      return false;
    }
    if (files.empty()) {
      error = path + ": no afunix-probe-run.*.json in it (written by `afunix-probe run --out " + path + "`)";
      return false;
    }
    std::sort(files.begin(), files.end());
  } else {
    files.push_back(path);
  }
  for (const std::string &file : files) {
    std::string text;
    if (!analysis::readInputFile(file, analysis::kMaxJsonInputBytes, text, error))
      return false;
    // A second summary of a run already read (a copy beside the first, or one written by both
    // --out and --report) is not read again: its findings would count twice.
    RuntimeEvidence one;
    if (!parseRuntimeEvidence(text, file, one, error))
      return false;
    auto seen = std::find(out.runs.begin(), out.runs.end(), one.runs.front());
    if (seen != out.runs.end()) {
      out.repeated.emplace_back(file, out.files[seen - out.runs.begin()]);
      continue;
    }
    for (RuntimeFinding &f : one.findings)
      out.findings.push_back(std::move(f));
    for (RuntimeCallSite &s : one.sites)
      out.sites.push_back(std::move(s));
    out.sitesRecorded |= one.sitesRecorded;
    out.files.push_back(file);
    out.runs.push_back(one.runs.front());
  }
  return true;
}

Finding toFinding(const RuntimeFinding &f) {
  Finding out;
  out.rule = f.rule;
  out.severity = f.severity.empty() ? "warning" : f.severity;
  if (f.location && !f.location->file.empty()) {
    out.where = *f.location;
  } else {
    // No line information (built without -g): the module is the only place there is.
    std::string module = f.site.substr(0, f.site.find('+'));
    for (const RuntimeFrame &frame : f.stack)
      if (!frame.module.empty()) {
        module = frame.module;
        break;
      }
    out.where = SourcePoint{module, 0, 0};
  }
  out.message = f.message + " [seen at run time: " + runtimeSummary(f) +
                (f.location ? "" : "; no line information, build with -g") + "]";
  out.lineText = f.location ? lineOf(f.location->file, f.location->line).value_or("") : f.site;
  // The callers: each frame of the program's own sources (regular files that have the line) but
  // the call.
  for (const RuntimeFrame &frame : f.stack) {
    if (frame.file.empty() || !frame.line || !analysis::isRegularFile(frame.file) ||
        !lineOf(frame.file, frame.line))
      continue;
    if (f.location && frame.file == f.location->file && frame.line == f.location->line)
      continue;
    out.notes.push_back({SourcePoint{frame.file, frame.line, frame.column},
                         "called from " + (frame.function.empty() ? std::string("here") : frame.function + "()")});
  }
  for (const RuntimeFrame &frame : f.origin)
    if (!frame.file.empty() && frame.line && analysis::isRegularFile(frame.file) &&
        lineOf(frame.file, frame.line)) {
      out.notes.push_back({SourcePoint{frame.file, frame.line, frame.column},
                           std::string("socket ") + (f.originHow == "received" ? "received" : "created") + " here (" +
                               f.socket + ")"});
      break;
    }
  out.properties.push_back({"afunix/runtime", "runtime-only"});
  out.properties.push_back({"afunix/runtimeCount", "", static_cast<long long>(f.count), true});
  out.properties.push_back({"afunix/runtimeProcesses", "", static_cast<long long>(f.pids.size()), true});
  if (!f.socket.empty())
    out.properties.push_back({"afunix/runtimeSocket", f.socket});
  return out;
}

unsigned MergeStats::notUsedTotal() const {
  unsigned total = 0;
  for (const auto &[why, counted] : notUsed)
    total += counted.first;
  return total;
}

MergeStats mergeRuntimeEvidence(RunResult &result, const RuntimeEvidence &evidence, const MergeOptions &options) {
  MergeStats stats;
  SameFile same;
  std::vector<bool> used(evidence.findings.size(), false);
  auto wanted = [&](const std::string &rule) { return options.rules.empty() || options.rules.count(rule); };
  for (Finding &s : result.findings) {
    if (!wanted(s.rule))
      continue;
    std::string staticText = normaliseLineText(s.lineText);
    const RuntimeFinding *match = nullptr;
    const RuntimeFrame *matchFrame = nullptr;
    bool moved = false;
    // Exact line on any frame first; then the same line text within the slack.
    for (int pass = 0; pass < 2 && !match; ++pass)
      for (std::size_t i = 0; i < evidence.findings.size() && !match; ++i) {
        const RuntimeFinding &r = evidence.findings[i];
        if (r.rule != s.rule)
          continue;
        for (const RuntimeFrame &frame : r.stack) {
          if (frame.file.empty() || !same(frame.file, s.where.file))
            continue;
          bool exact = frame.line == s.where.line;
          bool near = !exact && !frame.text.empty() && !staticText.empty() &&
                      normaliseLineText(frame.text) == staticText &&
                      (frame.line > s.where.line ? frame.line - s.where.line : s.where.line - frame.line) <= options.lineSlack;
          if ((pass == 0 && exact) || (pass == 1 && near)) {
            match = &r;
            matchFrame = &frame;
            moved = pass == 1;
            used[i] = true;
            break;
          }
        }
      }
    if (!match) {
      if (!options.markUnexercised)
        continue;
      ++stats.notSeen;
      if (!evidence.sitesRecorded) {
        s.notes.push_back({s.where, "not seen at run time: the probed run reached this call without the "
                                    "problem showing, or never reached it (afunix-probe run --sites tells which)"});
        s.properties.push_back({"afunix/runtime", "not-seen"});
        continue;
      }
      // The run recorded every socket call it made: was this line among them (on any frame)?
      unsigned long long calls = 0;
      for (const RuntimeCallSite &site : evidence.sites)
        for (const RuntimeFrame &frame : site.stack)
          if (!frame.file.empty() && same(frame.file, s.where.file) &&
              (frame.line == s.where.line ||
               (!frame.text.empty() && normaliseLineText(frame.text) == staticText &&
                (frame.line > s.where.line ? frame.line - s.where.line : s.where.line - frame.line) <=
                    options.lineSlack))) {
            calls += site.count;
            break;
          }
      if (calls) {
        ++stats.reachedClean;
        s.notes.push_back({s.where, "reached at run time (" + plural(calls, "call", "calls") +
                                        ") without the problem showing"});
        s.properties.push_back({"afunix/runtime", "reached-clean"});
        s.properties.push_back({"afunix/runtimeCalls", "", static_cast<long long>(calls), true});
      } else {
        ++stats.notReached;
        s.notes.push_back({s.where, "never reached at run time: the probed run made no socket call here"});
        s.properties.push_back({"afunix/runtime", "not-exercised"});
      }
      continue;
    }
    ++stats.confirmed;
    stats.moved += moved;
    std::string how = match->candidate ? "seen at run time: recvmsg() here ran without SO_PASSCRED and no "
                                         "credentials arrived, "
                                       : "confirmed at run time: ";
    std::string note = how + runtimeSummary(*match);
    if (moved)
      note += "; the probed build had this call at line " + std::to_string(matchFrame->line);
    s.notes.push_back({s.where, note});
    s.properties.push_back({"afunix/runtime", "confirmed"});
    s.properties.push_back({"afunix/runtimeCount", "", static_cast<long long>(match->count), true});
    s.properties.push_back({"afunix/runtimeProcesses", "", static_cast<long long>(match->pids.size()), true});
    if (!match->socket.empty())
      s.properties.push_back({"afunix/runtimeSocket", match->socket});
    if (moved)
      s.properties.push_back({"afunix/runtimeLine", "", static_cast<long long>(matchFrame->line), true});
  }
  // Runtime findings no static finding matched: added at their call (candidates are not findings).
  for (std::size_t i = 0; i < evidence.findings.size(); ++i) {
    const RuntimeFinding &r = evidence.findings[i];
    if (used[i] || r.candidate)
      continue;
    if (!wanted(r.rule) || !catalog::findRule(r.rule)) {
      ++stats.disabled; // a rule not run here (--checks, disable:): counted like a static one
      continue;
    }
    std::string file = r.location ? r.location->file : "";
    std::string problem = placeProblem(file, r.location ? r.location->line : 0, r.badLine,
                                       options.projectRoot);
    if (!problem.empty()) {
      auto &[count, example] = stats.notUsed[problem];
      if (count++ == 0)
        example = file.empty() ? r.site
                  : problem == "past the end of the file" || problem == "no line"
                      ? file + ":" + std::to_string(r.location->line)
                      : file;
      continue;
    }
    if (!inScope(result, file)) {
      ++stats.outOfScope;
      continue;
    }
    Finding f = toFinding(r);
    if (hasNoLint(f.lineText, f.rule))
      continue;
    ++stats.runtimeOnly;
    result.findings.push_back(std::move(f));
  }
  std::stable_sort(result.findings.begin(), result.findings.end(), [](const Finding &a, const Finding &b) {
    return std::tie(a.where.file, a.where.line, a.where.column, a.rule) <
           std::tie(b.where.file, b.where.line, b.where.column, b.rule);
  });
  return stats;
}

} // namespace afunix::check
