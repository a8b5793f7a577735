// The text and JSON writers for findings (SARIF lives in Sarif.h).
#pragma once

#include "Finding.h"

#include <string>

namespace llvm {
class raw_ostream;
}

namespace afunix::check {

struct TextOptions {
  bool showSource = false;   // the source line and a caret under the column, as clang prints
  bool color = false;
  std::string relativeTo;    // print paths relative to this directory when inside it
};

// clang's form: "file:line:col: warning: message [rule-id]", then the notes.
void writeText(const RunResult &result, const TextOptions &options, llvm::raw_ostream &out);

// {"version": 1, "findings": [...], "summary": {"files", "findings", "parse_errors"}}, plus
// "unparsed": [{"file", "errors"}] for the files clang could not parse.
void writeJson(const RunResult &result, llvm::raw_ostream &out);

// How many files clang could not parse.
unsigned countParseErrors(const RunResult &result);

} // namespace afunix::check
