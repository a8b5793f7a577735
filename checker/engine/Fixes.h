// Fix-its: export in the YAML that clang-apply-replacements-19 reads, or apply in place.
#pragma once

#include "Finding.h"

#include <string>

namespace afunix::check {

// --export-fixes=FILE: clang-tidy's "MainSourceFile/Diagnostics/Replacements" YAML.
bool exportFixes(const std::string &path, const RunResult &result, std::string &error);

// --fix: applies every finding's fixes to the files on disk; conflicting edits are skipped and
// reported in `error`. `applied` counts edits written.
bool applyFixes(const RunResult &result, unsigned &applied, std::string &error);

} // namespace afunix::check
