// What one run of the checks produces, independent of how it is printed. The engine fills these
// from clang-tidy's diagnostics; the text, JSON and SARIF writers, baselines and fix export read
// them. Plain data: no clang types, so writers and tests need no AST.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace afunix::check {

struct SourcePoint {
  std::string file; // absolute, normalised path
  unsigned line = 0;   // 1-based
  unsigned column = 0; // 1-based, in bytes as clang counts them
};

// A highlighted stretch of source (clang's ~~~~ under a finding): [begin, end) in one file, end
// exclusive. The text writer underlines the part that lies on the finding's line.
struct SourceSpan {
  SourcePoint begin;
  SourcePoint end;
};

struct Note {
  SourcePoint where;
  std::string message;
  std::vector<SourceSpan> spans; // ranges the note highlights; may be empty
};

// One textual edit, as clang::tooling::Replacement holds it.
struct Edit {
  std::string file;
  unsigned offset = 0;
  unsigned length = 0;
  std::string text;
  // Fingerprint of `file`'s bytes as the analysis read them (contentDigest() in SafeFiles.h);
  // --fix applies the edit only to a file that still has exactly these bytes. Empty: unknown,
  // and the edit is never applied in place.
  std::string baseDigest;
};

struct Finding {
  std::string rule;     // catalog id, e.g. afunix-passcred-too-late
  std::string severity; // error | warning | note, from the catalog unless the config overrides it
  SourcePoint where;
  std::string message;
  std::vector<SourceSpan> spans; // what clang underlines (~~~~); may be empty
  std::vector<Note> notes;
  std::vector<Edit> fixes; // empty when no unambiguous fix-it exists
  std::string fixTitle;    // what the fix-it does ("Move the SO_PASSCRED call above listen()")
  // Extra facts a front end attaches (runtime evidence from afunix-probe): SARIF writes them into
  // the result's property bag; the text and JSON writers show them through `notes` instead.
  struct Property {
    std::string name;
    std::string text;   // the value, unless `isNumber`
    long long number = 0;
    bool isNumber = false;
  };
  std::vector<Property> properties;

  std::string lineText;    // the source line of `where`, trimmed: keys baselines and fingerprints
  // The main file of the translation unit that produced the finding (a finding in a header names
  // the file that included it; after deduplication, the first such unit in job order).
  std::string unit;
};

struct FileOutcome {
  std::string file;
  bool parsed = true;               // false: clang reported errors; findings may be partial
  std::vector<std::string> errors;  // clang's error diagnostics, "file:line:col: error: ..."
  bool skipped = false;             // never parsed: the prefilter found it names nothing that
                                    // matters (Prefilter.h)
};

// Findings that exist but are not in `findings`, by the reason they were left out. Every filter
// counts what it removes here, so a run can always say how many findings it did not show.
struct DroppedCounts {
  unsigned nolint = 0;        // NOLINT / NOLINTNEXTLINE / NOLINTBEGIN comments
  unsigned systemHeaders = 0; // inside system headers (never the project's code)
  unsigned headerFilter = 0;  // in a header that --header-filter / --exclude-header-filter leave out
  unsigned excluded = 0;      // in a file matched by --exclude
  unsigned lineFilter = 0;    // not on a line selected by --line-filter / --diff-from
  unsigned baseline = 0;      // recorded in the --baseline file
  unsigned disabled = 0;      // rule disabled by the configuration of the finding's file

  unsigned total() const {
    return nolint + systemHeaders + headerFilter + excluded + lineFilter + baseline + disabled;
  }
};

struct RunResult {
  std::vector<Finding> findings; // sorted by file, line, column, rule
  std::vector<FileOutcome> files; // the files checked (named, or the whole database)
  DroppedCounts dropped;
  // A partial run (some files of a database): findings are reported only in these files, the
  // checked ones and the files their parses read (the project headers they include). Unset:
  // everywhere.
  std::optional<std::set<std::string>> scope;
  // The other files of the program, extracted to judge the checked ones: what became of them
  // (a file here that did not parse leaves the program's facts incomplete).
  std::vector<FileOutcome> context;
  // Files whose facts could not be had as they are now (a file of the database that is missing,
  // or left out by --exclude and changed since the stored facts were written): judged without
  // them, and named.
  std::vector<std::string> staleFacts;
  // Rules that stopped at their work bound (RuleContext::kWorkBound): their findings may be
  // incomplete.
  std::vector<std::string> stoppedAtBound;
  // A link of facts that name files relative to the working directory (--relative-paths): where
  // the sources lay when they were extracted (a sandbox, a worker) is no part of the report.
  bool relativePaths = false;
};

// Whether a partial run reports findings located in `file`.
inline bool inScope(const RunResult &result, const std::string &file) {
  return !result.scope || result.scope->count(file);
}

} // namespace afunix::check
