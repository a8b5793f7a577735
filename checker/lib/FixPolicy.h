// One fix-it policy for every front end (afunix-check --fix and --export-fixes, clang-tidy with the
// plugin, run-clang-tidy, afunix-clangd's quick fixes). It is applied to the reports of all rules
// of one run before any front end sees them, so that the front ends' own conflict handling
// (clang-tidy's overlap sweep, which drops both of two equal edits and keeps both of two equal
// insertions; clang-apply-replacements' merge; --fix) never has anything left to decide:
//
// - a report's edits are applied together or not at all: edits that overlap each other drop the
//   report's fix-it;
// - reports are taken in source order (file, offset, rule, message); a report whose edits would
//   overlap, or insert at the same place as, a fix-it taken before it gets none, and a note at the
//   finding says which fix-it it gave way to (the same change, or a conflicting one: apply that
//   one and check again).
#pragma once

#include "Report.h"

#include <vector>

namespace afunix::rules {

void settleFixes(const analysis::Program &program, const std::vector<analysis::Report *> &reports);

} // namespace afunix::rules
