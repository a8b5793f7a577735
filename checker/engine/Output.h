// The text and JSON writers for findings (SARIF lives in Sarif.h).
#pragma once

#include "Finding.h"

#include <string>
#include <utility>
#include <vector>

namespace llvm {
class raw_ostream;
}

namespace afunix::check {

struct TextOptions {
  bool showSource = false;   // the source line, then ^ under the column and ~ under the ranges
  bool color = false;        // clang's colours (bold location, magenta warning, red error, ...)
  std::string relativeTo;    // print paths relative to this directory when inside it
};

// clang's form: "file:line:col: warning: message [rule-id]", then the notes. Paths, messages and
// source lines go through printable(): no byte from a file name or source reaches the terminal as
// a control sequence.
void writeText(const RunResult &result, const TextOptions &options, llvm::raw_ostream &out);

// {"version": 1, "findings": [...], "summary": {"files", "findings", "parse_errors",
// "not_shown": {reason: count}}}, plus "unparsed": [{"file", "errors"}] for the files clang could
// not parse. Strings are valid UTF-8 (invalid bytes become U+FFFD).
void writeJson(const RunResult &result, llvm::raw_ostream &out);

// Findings per severity: error, warning and note (zero counts too), then any other in order met.
std::vector<std::pair<std::string, unsigned>> countBySeverity(const RunResult &result);
// "1 error, 2 warnings": the non-zero counts, for the summary line.
std::string describeSeverities(const RunResult &result);

// How many files clang could not parse.
unsigned countParseErrors(const RunResult &result);

} // namespace afunix::check
