#include "Filters.h"

#include "Paths.h"

#include "InputFiles.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

namespace afunix::check {

namespace {

bool isHeaderFinding(const Finding &f) { return !f.unit.empty() && f.where.file != f.unit; }

} // namespace

bool globMatch(llvm::StringRef pattern, llvm::StringRef text) {
  while (!pattern.empty()) {
    if (pattern.starts_with("**")) {
      llvm::StringRef rest = pattern.drop_front(2);
      bool slash = rest.consume_front("/");
      for (size_t i = 0; i <= text.size(); ++i) {
        // "**/" matches zero or more whole directories.
        if (slash && i > 0 && text[i - 1] != '/')
          continue;
        if (globMatch(rest, text.drop_front(i)))
          return true;
      }
      return false;
    }
    char p = pattern.front();
    if (p == '*') {
      llvm::StringRef rest = pattern.drop_front();
      for (size_t i = 0; i <= text.size(); ++i) {
        if (globMatch(rest, text.drop_front(i)))
          return true;
        if (i < text.size() && text[i] == '/')
          return false;
      }
      return false;
    }
    if (text.empty())
      return false;
    char c = text.front();
    if (p == '?') {
      if (c == '/')
        return false;
    } else if (p == '[') {
      size_t close = pattern.find(']', 2);
      if (close == llvm::StringRef::npos)
        return false; // validateGlobs refuses this
      llvm::StringRef set = pattern.slice(1, close);
      bool negate = set.consume_front("!") || set.consume_front("^");
      bool in = false;
      for (size_t i = 0; i < set.size(); ++i) {
        if (i + 2 < set.size() && set[i + 1] == '-') {
          in |= set[i] <= c && c <= set[i + 2];
          i += 2;
        } else {
          in |= set[i] == c;
        }
      }
      if (in == negate || c == '/')
        return false;
      pattern = pattern.drop_front(close);
    } else if (p == '\\' && pattern.size() > 1) {
      pattern = pattern.drop_front();
      if (pattern.front() != c)
        return false;
    } else if (p != c) {
      return false;
    }
    pattern = pattern.drop_front();
    text = text.drop_front();
  }
  return text.empty();
}

namespace {

// Whether `pattern` matches `path` or one of its leading directories (so "build" or "gen/**"
// exclude everything below).
bool matchesPathOrParent(llvm::StringRef pattern, llvm::StringRef path) {
  if (globMatch(pattern, path))
    return true;
  for (size_t slash = path.find('/'); slash != llvm::StringRef::npos;
       slash = path.find('/', slash + 1))
    if (slash > 0 && globMatch(pattern, path.take_front(slash)))
      return true;
  return false;
}

std::string relativeTo(const std::string &path, const std::string &base) {
  llvm::StringRef p(path);
  std::string prefix = base.empty() || base.back() == '/' ? base : base + "/";
  if (!prefix.empty() && p.starts_with(prefix))
    return p.drop_front(prefix.size()).str();
  return "";
}

} // namespace

bool validateHeaderFilter(const HeaderFilter &filter, std::string &error) {
  for (const auto &[option, regex] : {std::pair{"--header-filter", &filter.include},
                                      std::pair{"--exclude-header-filter", &filter.exclude}}) {
    if (!*regex)
      continue;
    std::string why;
    if (!llvm::Regex(**regex).isValid(why)) {
      error = std::string(option) + ": '" + **regex + "' is not a valid regular expression: " + why;
      return false;
    }
  }
  return true;
}

void applyHeaderFilter(RunResult &result, const HeaderFilter &filter) {
  std::optional<llvm::Regex> include, exclude;
  if (filter.include)
    include.emplace(*filter.include);
  if (filter.exclude)
    exclude.emplace(*filter.exclude);
  std::vector<Finding> kept;
  for (Finding &f : result.findings) {
    // Matched against the absolute path, however the facts name the file (--relative-paths).
    std::string path = absolutePath(f.where.file);
    bool drop = isHeaderFinding(f) && ((include && !include->match(path)) ||
                                       (exclude && exclude->match(path)));
    if (drop) {
      ++result.dropped.headerFilter;
      continue;
    }
    kept.push_back(std::move(f));
  }
  result.findings = std::move(kept);
}

bool validateGlobs(const ExcludeGlobs &globs, std::string &error) {
  for (const std::string &pattern : globs.patterns) {
    llvm::StringRef p(pattern);
    for (size_t i = 0; i < p.size(); ++i) {
      if (p[i] == '\\') {
        ++i;
        continue;
      }
      if (p[i] == '[' && p.find(']', i + 2) == llvm::StringRef::npos) {
        error = "--exclude: '" + pattern + "' has a '[' without a closing ']'";
        return false;
      }
    }
  }
  return true;
}

bool matchesExclude(const ExcludeGlobs &globs, const std::string &named) {
  std::string path = absolutePath(named); // facts may name files relative (--relative-paths)
  std::string relative = relativeTo(path, globs.base);
  llvm::StringRef name = llvm::sys::path::filename(path);
  for (const std::string &pattern : globs.patterns) {
    llvm::StringRef p(pattern);
    if (!p.contains('/')) {
      // A bare name matches a file or directory of that name anywhere (as in .gitignore).
      llvm::StringRef rest = relative.empty() ? llvm::StringRef(path) : llvm::StringRef(relative);
      if (globMatch(p, name))
        return true;
      llvm::SmallVector<llvm::StringRef, 16> parts;
      rest.split(parts, '/', -1, false);
      for (llvm::StringRef part : parts)
        if (globMatch(p, part))
          return true;
      continue;
    }
    if (p.starts_with("/") ? matchesPathOrParent(p, path)
                           : !relative.empty() && matchesPathOrParent(p.ltrim("./"), relative))
      return true;
  }
  return false;
}

void applyExcludes(RunResult &result, const ExcludeGlobs &globs) {
  if (globs.patterns.empty())
    return;
  std::vector<Finding> kept;
  for (Finding &f : result.findings) {
    if (matchesExclude(globs, f.where.file)) {
      ++result.dropped.excluded;
      continue;
    }
    kept.push_back(std::move(f));
  }
  result.findings = std::move(kept);
}

bool parseLineFilter(const std::string &text, const std::string &base, LineFilter &out,
                     std::string &error) {
  out = LineFilter();
  out.base = base;
  std::string why;
  std::optional<llvm::json::Value> parsed = analysis::parseJson(text, why);
  if (!parsed) {
    error = "--line-filter: not valid JSON: " + why;
    return false;
  }
  const llvm::json::Array *files = parsed->getAsArray();
  if (!files) {
    error = "--line-filter: expected a list like [{\"name\":\"a.c\",\"lines\":[[1,3]]}]";
    return false;
  }
  for (std::size_t i = 0; i < files->size(); ++i) {
    std::string where = "--line-filter: entry " + std::to_string(i + 1);
    const llvm::json::Object *entry = (*files)[i].getAsObject();
    std::optional<llvm::StringRef> name = entry ? entry->getString("name") : std::nullopt;
    if (!name || name->empty()) {
      error = where + ": needs a \"name\" string";
      return false;
    }
    LineFilter::Entry e{name->str(), {}};
    if (const llvm::json::Value *lines = entry->get("lines")) {
      const llvm::json::Array *ranges = lines->getAsArray();
      if (!ranges) {
        error = where + ": \"lines\" must be a list of [first, last] pairs";
        return false;
      }
      for (const llvm::json::Value &range : *ranges) {
        const llvm::json::Array *pair = range.getAsArray();
        std::optional<int64_t> first = pair && pair->size() == 2 ? (*pair)[0].getAsInteger()
                                                                  : std::nullopt;
        std::optional<int64_t> last = pair && pair->size() == 2 ? (*pair)[1].getAsInteger()
                                                                 : std::nullopt;
        if (!first || !last || *first < 1 || *last < *first || *last > UINT32_MAX) {
          error = where + ": each of \"lines\" must be [first, last] with 1 <= first <= last";
          return false;
        }
        e.lines.push_back({unsigned(*first), unsigned(*last)});
      }
    }
    out.files.push_back(std::move(e));
  }
  return true;
}

namespace {

// A path as git prints it in "+++ b/..." lines: plain, or C-quoted when it holds odd bytes.
std::string unquoteGitPath(llvm::StringRef text) {
  if (!text.starts_with("\"") || !text.ends_with("\"") || text.size() < 2)
    return text.str();
  text = text.drop_front().drop_back();
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c != '\\' || i + 1 >= text.size()) {
      out += c;
      continue;
    }
    char e = text[++i];
    switch (e) {
    case 'n': out += '\n'; break;
    case 't': out += '\t'; break;
    case 'a': out += '\a'; break;
    case 'b': out += '\b'; break;
    case 'f': out += '\f'; break;
    case 'r': out += '\r'; break;
    case 'v': out += '\v'; break;
    default:
      if (e >= '0' && e <= '7' && i + 2 < text.size()) {
        out += static_cast<char>(((e - '0') << 6) | ((text[i + 1] - '0') << 3) | (text[i + 2] - '0'));
        i += 2;
      } else {
        out += e;
      }
    }
  }
  return out;
}

} // namespace

LineFilter lineFilterFromDiff(const std::string &diff, const std::string &base) {
  LineFilter filter;
  filter.base = base;
  LineFilter::Entry *current = nullptr;
  llvm::SmallVector<llvm::StringRef, 0> lines;
  llvm::StringRef(diff).split(lines, '\n');
  for (llvm::StringRef line : lines) {
    line = line.rtrim('\r');
    if (line.consume_front("+++ ")) {
      current = nullptr;
      if (line == "/dev/null")
        continue; // a deleted file: nothing to report on
      std::string path = unquoteGitPath(line);
      llvm::StringRef p(path);
      p.consume_front("b/");
      filter.files.push_back({absolutePath(p.str(), base), {}});
      current = &filter.files.back();
      continue;
    }
    if (!current || !line.starts_with("@@ "))
      continue;
    // @@ -a[,b] +c[,d] @@
    size_t plus = line.find(" +");
    if (plus == llvm::StringRef::npos)
      continue;
    llvm::StringRef added = line.drop_front(plus + 2).take_until([](char c) { return c == ' '; });
    auto [startText, countText] = added.split(',');
    unsigned start = 0, count = 1;
    if (startText.getAsInteger(10, start) || (!countText.empty() && countText.getAsInteger(10, count)))
      continue;
    if (count == 0)
      continue; // lines only removed here
    current->lines.push_back({start, start + count - 1});
  }
  // A file whose hunks only removed lines selects nothing, which an empty list would not say.
  std::vector<LineFilter::Entry> kept;
  for (LineFilter::Entry &e : filter.files)
    if (!e.lines.empty())
      kept.push_back(std::move(e));
  filter.files = std::move(kept);
  return filter;
}

namespace {

bool runGit(const std::vector<std::string> &args, std::string &out, std::string &error) {
  llvm::ErrorOr<std::string> git = llvm::sys::findProgramByName("git");
  if (!git) {
    error = "git was not found on PATH";
    return false;
  }
  llvm::SmallString<128> outFile, errFile;
  if (llvm::sys::fs::createTemporaryFile("afunix-git", "out", outFile) ||
      llvm::sys::fs::createTemporaryFile("afunix-git", "err", errFile)) {
    error = "cannot create a temporary file for git's output";
    return false;
  }
  std::vector<llvm::StringRef> argv{*git};
  for (const std::string &a : args)
    argv.push_back(a);
  std::optional<llvm::StringRef> redirects[] = {llvm::StringRef(""), outFile.str(), errFile.str()};
  std::string execError;
  int status = llvm::sys::ExecuteAndWait(*git, argv, std::nullopt, redirects, 0, 0, &execError);
  auto read = [](llvm::StringRef path) {
    auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false, false);
    return buffer ? (*buffer)->getBuffer().str() : std::string();
  };
  out = read(outFile);
  std::string err = read(errFile);
  llvm::sys::fs::remove(outFile);
  llvm::sys::fs::remove(errFile);
  if (status != 0) {
    error = !execError.empty() ? execError : llvm::StringRef(err).trim().str();
    if (error.empty())
      error = "git exited with status " + std::to_string(status);
    return false;
  }
  return true;
}

} // namespace

bool gitDiffSince(const std::string &rev, const std::string &directory, LineFilter &out,
                  std::string &error) {
  std::string top;
  if (!runGit({"-C", directory, "rev-parse", "--show-toplevel"}, top, error)) {
    error = "--diff-from=" + rev + ": " + error;
    return false;
  }
  top = llvm::StringRef(top).trim().str();
  // A revision git does not have: say why (a CI checkout is shallow by default) and what fetches
  // it, instead of git's "bad revision".
  std::string ignored, unknownWhy;
  if (!runGit({"-C", top, "rev-parse", "--verify", "--quiet", "--end-of-options", rev + "^{commit}"},
              ignored, unknownWhy)) {
    std::string shallow;
    bool isShallow = runGit({"-C", top, "rev-parse", "--is-shallow-repository"}, shallow, ignored) &&
                     llvm::StringRef(shallow).trim() == "true";
    error = "--diff-from=" + rev + ": the checkout in " + top + " does not have '" + rev + "'" +
            (isShallow ? ": it is a shallow clone (CI checkouts fetch only the newest commit by "
                         "default). Fetch the history first: actions/checkout with fetch-depth: 0, "
                         "GIT_DEPTH: 0 in GitLab CI, or git fetch --unshallow"
                       : ". Fetch it first (git fetch origin <branch>) or name a revision it has");
    return false;
  }
  std::string diff;
  // Fixed prefixes and no external diff or colour, whatever the user's git config says.
  if (!runGit({"-C", top, "-c", "core.quotePath=false", "diff", "-U0", "--no-color",
               "--no-ext-diff", "--src-prefix=a/", "--dst-prefix=b/", rev, "--"},
              diff, error)) {
    error = "--diff-from=" + rev + ": " + error;
    return false;
  }
  out = lineFilterFromDiff(diff, top);
  return true;
}

namespace {

const LineFilter::Entry *entryFor(const LineFilter &filter, const std::string &named) {
  std::string file = absolutePath(named); // facts may name files relative (--relative-paths)
  for (const LineFilter::Entry &e : filter.files) {
    llvm::StringRef name(e.name);
    if (absolutePath(e.name, filter.base) == file)
      return &e;
    if (!llvm::sys::path::is_absolute(name) && llvm::StringRef(file).ends_with("/" + e.name))
      return &e;
  }
  return nullptr;
}

} // namespace

bool selectsFile(const LineFilter &filter, const std::string &file) {
  return entryFor(filter, file) != nullptr;
}

bool selectsLine(const LineFilter &filter, const std::string &file, unsigned line) {
  const LineFilter::Entry *e = entryFor(filter, file);
  if (!e)
    return false;
  if (e->lines.empty())
    return true;
  for (const auto &[first, last] : e->lines)
    if (first <= line && line <= last)
      return true;
  return false;
}

void applyLineFilter(RunResult &result, const LineFilter &filter) {
  std::vector<Finding> kept;
  for (Finding &f : result.findings) {
    if (!selectsLine(filter, f.where.file, f.where.line)) {
      ++result.dropped.lineFilter;
      continue;
    }
    kept.push_back(std::move(f));
  }
  result.findings = std::move(kept);
}

std::optional<Severity> parseSeverity(const std::string &text) {
  if (text == "error")
    return Severity::Error;
  if (text == "warning")
    return Severity::Warning;
  if (text == "note")
    return Severity::Note;
  return std::nullopt;
}

bool failsGate(const RunResult &result, Severity threshold) {
  for (const Finding &f : result.findings)
    if (parseSeverity(f.severity).value_or(Severity::Warning) >= threshold)
      return true;
  return false;
}

std::string describeDropped(const DroppedCounts &d) {
  std::vector<std::string> parts;
  auto add = [&](unsigned n, const char *what) {
    if (n)
      parts.push_back(std::to_string(n) + " " + what);
  };
  add(d.nolint, "NOLINT");
  add(d.systemHeaders, "in system headers");
  add(d.headerFilter, "in headers outside --header-filter");
  add(d.excluded, "in --exclude'd files");
  add(d.lineFilter, "off the selected lines");
  add(d.baseline, "in the baseline");
  add(d.disabled, "disabled by configuration");
  if (parts.empty())
    return "";
  return std::to_string(d.total()) + " not shown: " + llvm::join(parts, ", ");
}

} // namespace afunix::check
