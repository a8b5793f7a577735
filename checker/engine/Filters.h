// What a run reports and what decides its exit status, as functions over RunResult: the same
// for every pipeline that produces Findings (the clang-tidy one today, the whole-program one). Each
// filter counts what it removes in RunResult::dropped, so nothing disappears without a number.
#pragma once

#include "Finding.h"

#include "llvm/Support/Regex.h"

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace afunix::check {

// --header-filter / --exclude-header-filter, as clang-tidy's: a finding outside the main file of
// the unit that produced it is kept when its path matches `include` (unset: every header) and does
// not match `exclude`. Paths are matched as absolute paths (a regex without anchors matches any
// part of one). Findings in main files are always kept.
struct HeaderFilter {
  std::optional<std::string> include;
  std::optional<std::string> exclude;
};
// Checks both regexes; on failure `error` names the option and what is wrong with it.
bool validateHeaderFilter(const HeaderFilter &filter, std::string &error);
void applyHeaderFilter(RunResult &result, const HeaderFilter &filter);

// Glob matching for every option that takes globs: '*' and '?' stop at '/', "**" crosses it,
// "[...]" is a class ('!' or '^' negates), '\\' quotes the next character.
bool globMatch(llvm::StringRef pattern, llvm::StringRef text);

// --exclude=GLOB: drops findings located in matching files (and front ends skip matching units).
// Globs use '*' (not across '/'), '**' (across directories), '?', '[...]'; a glob matches a path
// relative to `base` when the path is below it, or the absolute path, or (without '/') any file
// name. Invalid globs are reported by compileGlobs().
struct ExcludeGlobs {
  std::vector<std::string> patterns;
  std::string base; // absolute directory for relative matching (the current directory)
};
bool validateGlobs(const ExcludeGlobs &globs, std::string &error);
bool matchesExclude(const ExcludeGlobs &globs, const std::string &path);
void applyExcludes(RunResult &result, const ExcludeGlobs &globs);

// clang-tidy's --line-filter, and what --diff-from makes: per file, the 1-based inclusive line
// ranges to report. As in clang-tidy, a file not in the filter keeps no finding and a file listed
// without ranges keeps all; a name matches a path equal to it (relative names are taken from
// `base`) or ending in "/name".
struct LineFilter {
  struct Entry {
    std::string name; // as given: absolute, or relative to `base`
    std::vector<std::pair<unsigned, unsigned>> lines; // empty: every line
  };
  std::vector<Entry> files;
  std::string base; // absolute directory relative names are taken from
};
// Parses clang-tidy's JSON form: [{"name":"file.c","lines":[[1,3],[5,5]]}, ...].
bool parseLineFilter(const std::string &json, const std::string &base, LineFilter &out,
                     std::string &error);
// Lines added or changed by a unified diff (git diff -U0), per file: what clang-tidy-diff reads.
// Deleted files and pure deletions select nothing. Paths are taken relative to `base` after
// dropping the 'b/' prefix.
LineFilter lineFilterFromDiff(const std::string &diff, const std::string &base);
// `git diff -U0 --no-color REV` in `directory` (the top of the work tree is found by git);
// false with `error` when git fails (not a repository, unknown revision).
bool gitDiffSince(const std::string &rev, const std::string &directory, LineFilter &out,
                  std::string &error);
bool selectsLine(const LineFilter &filter, const std::string &file, unsigned line);
bool selectsFile(const LineFilter &filter, const std::string &file);
void applyLineFilter(RunResult &result, const LineFilter &filter);

// --fail-on: the lowest severity that fails the run.
enum class Severity { Note = 0, Warning = 1, Error = 2 };
std::optional<Severity> parseSeverity(const std::string &text);
// Whether any reported finding is at least `threshold`.
bool failsGate(const RunResult &result, Severity threshold);

// Per-file configuration effects: severity overrides and disabled rules by the configuration that
// governs each finding's own file (a header's findings follow the header's configuration).
struct FileRules {
  std::map<std::string, std::string> severity; // rule -> error | warning | note
  std::vector<std::string> disable;
};
template <typename Resolve> void applyFileRules(RunResult &result, Resolve &&rulesFor) {
  std::vector<Finding> kept;
  for (Finding &f : result.findings) {
    const FileRules &rules = rulesFor(f.where.file);
    bool disabled = false;
    for (const std::string &id : rules.disable)
      disabled |= id == f.rule;
    if (disabled) {
      ++result.dropped.disabled;
      continue;
    }
    if (auto it = rules.severity.find(f.rule); it != rules.severity.end())
      f.severity = it->second;
    kept.push_back(std::move(f));
  }
  result.findings = std::move(kept);
}

// One sentence listing what `dropped` holds, e.g. "3 not shown: 2 NOLINT, 1 in excluded files";
// empty when nothing was dropped.
std::string describeDropped(const DroppedCounts &dropped);

} // namespace afunix::check
