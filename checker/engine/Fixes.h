// Fix-its: export in the YAML that clang-apply-replacements-19 reads, or apply in place.
#pragma once

#include "Finding.h"

#include <string>

namespace afunix::check {

// --export-fixes=FILE: clang-tidy's "MainSourceFile/Diagnostics/Replacements" YAML, written as a
// new file or over a regular one, never through a symlink (SafeFiles.h).
bool exportFixes(const std::string &path, const RunResult &result, std::string &error);

struct FixOptions {
  // clang-tidy's --fix-errors: also apply fix-its found in a translation unit clang reported
  // errors in (its AST may be wrong, and so may the fix). Off: such fix-its are skipped, saying so.
  bool fixErrors = false;
};

// --fix: applies every finding's fixes to the files on disk, in place (SafeFiles.h editInPlace):
// edits are grouped by the real path of their file (two names of one file are one file), applied
// only if the file still has the bytes the analysis read (Edit::baseDigest), and never to a
// read-only or non-regular file. A finding's edits are applied all or none; conflicting ones are
// skipped. Everything skipped is reported in `error`, one line each. `applied` counts edits written.
bool applyFixes(const RunResult &result, unsigned &applied, std::string &error,
                const FixOptions &options = {});

} // namespace afunix::check
