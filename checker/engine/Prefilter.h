// The prefilter: a cold run parses only the files that can change the findings (docs/prefilter.md).
// First the files whose text, or the project headers they include, name the socket vocabulary
// (analysis/Relevance.h); then, round by round, the files that name what the facts parsed so far
// say matters (the functions, fields and globals sockets go through), until a round adds nothing.
// The rest is never parsed: its unit is empty and says why (facts::Unit::skipped).
//
// What can escape the filter, and so differ from --no-prefilter: a name built by token pasting
// (`CALL(send)` expanding to do_send), a call through a pointer set in a file that names neither
// the function nor the pointer's field, a macro of a system header that expands to a socket call,
// and a C file reaching a socket's field other than by `.` or `->`. A file whose #include names a
// macro, or names a quoted header found nowhere, is always parsed.
#pragma once

#include "CompileDb.h"
#include "Extraction.h"

#include "Program.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace afunix::check {

struct PrefilterSettings {
  bool enabled = true;
  // Jobs parsed whatever their text says (the files a partial run checks: what they include
  // decides its scope).
  std::vector<bool> always;
  // Links the units as the run judges them (with what it adds: service files, stored facts),
  // given every job's unit (skipped ones included); unset: the units alone. Each round reads the
  // names that matter from it.
  std::function<std::unique_ptr<analysis::Program>(const std::vector<ExtractedUnit> &)> link;
  // A digest of what `link` adds to the units (for the rounds the facts cache remembers); ""
  // with `link` set: rounds are not remembered.
  std::string linkInputsDigest;
  // Jobs that may be parsed here (a slice parses its own only; the others come back skipped);
  // empty: all.
  std::vector<bool> parseable;
  // Receives the last round's program, which holds the final units: the run judges it as it is.
  std::unique_ptr<analysis::Program> *program = nullptr;
};

// extractUnits() over the jobs the prefilter keeps; the others come back as skipped units. The
// facts of a kept job are the ones extractUnits() gives it alone.
std::vector<ExtractedUnit> extractRelevantUnits(const std::vector<CompileJob> &jobs,
                                                const std::vector<const analysis::ProjectOptions *> &project,
                                                const ExtractionSettings &settings,
                                                const PrefilterSettings &filter);

// A header's #define: what its body names (parameters left out), counted where it is used.
struct MacroText {
  std::string name;
  std::vector<std::string> identifiers, members;
};

// The link of shards: `units` (one per job of `jobs`, in order) came from slices, each of which
// skipped files (facts::Unit::skipped) knowing only its own facts. Parses, round by round as a
// run does, the skipped files that name what the whole program's facts say matters (their
// commands in `jobs`); the others stay skipped.
void completeRelevantUnits(const std::vector<CompileJob> &jobs,
                           const std::vector<const analysis::ProjectOptions *> &project,
                           const ExtractionSettings &settings, const PrefilterSettings &filter,
                           std::vector<ExtractedUnit> &units);

// The identifiers of C or C++ source text that count as its mentions, comments, string and
// character literals left out: every one of a main file; of a `header`, only those of what it
// runs in the file that includes it (function bodies, initializers and default arguments, member
// initializer lists), not its declarations, and its macros' bodies apart (`macros`, counted where
// a macro is used). `members`: the counted identifiers that follow `.` or `->`; `declared`: the
// identifiers outside function bodies (where a definition names its function). `includes` gets
// each #include/#import/#include_next target as written ("x.h" or <x.h>), and `computedInclude`
// is set when a directive names a macro instead.
void scanSource(llvm::StringRef text, bool header, std::vector<std::string> &identifiers,
                std::vector<std::string> &members, std::vector<std::string> &declared,
                std::vector<MacroText> &macros, std::vector<std::string> &includes,
                bool &computedInclude);

} // namespace afunix::check
