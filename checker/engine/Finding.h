// What one run of the checks produces, independent of how it is printed. The engine fills these
// from clang-tidy's diagnostics; the text, JSON and SARIF writers, baselines and fix export read
// them. Plain data: no clang types, so writers and tests need no AST.
#pragma once

#include <string>
#include <vector>

namespace afunix::check {

struct SourcePoint {
  std::string file; // absolute, normalised path
  unsigned line = 0;   // 1-based
  unsigned column = 0; // 1-based, in bytes as clang counts them
};

struct Note {
  SourcePoint where;
  std::string message;
};

// One textual edit, as clang::tooling::Replacement holds it.
struct Edit {
  std::string file;
  unsigned offset = 0;
  unsigned length = 0;
  std::string text;
};

struct Finding {
  std::string rule;     // catalog id, e.g. afunix-passcred-too-late
  std::string severity; // error | warning | note, from the catalog unless the config overrides it
  SourcePoint where;
  std::string message;
  std::vector<Note> notes;
  std::vector<Edit> fixes; // empty when no unambiguous fix-it exists
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
};

struct FileOutcome {
  std::string file;
  bool parsed = true;               // false: clang reported errors; findings may be partial
  std::vector<std::string> errors;  // clang's error diagnostics, "file:line:col: error: ..."
};

struct RunResult {
  std::vector<Finding> findings; // sorted by file, line, column, rule
  std::vector<FileOutcome> files;
};

} // namespace afunix::check
