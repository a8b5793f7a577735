// The one table of rules: each catalog id with the function that evaluates it. The clang-tidy
// module (every front end's checks) and afunix-check's whole-program run both read it.
#pragma once

#include "Report.h"

#include "llvm/ADT/ArrayRef.h"

#include <string>
#include <vector>

namespace clang::tidy {
class ClangTidyCheckFactories;
}

namespace afunix::rules {

struct RuleEntry {
  const char *id;
  analysis::RuleFunction run;
};

llvm::ArrayRef<RuleEntry> allRules();

// Runs the rules named in `enabled` (all when empty) over the program; reports in rule order.
// `stoppedAtBound` gets the rules that stopped at their work bound (RuleContext::kWorkBound).
std::vector<analysis::Report> evaluate(const analysis::Program &program,
                                       const analysis::ProjectOptions &options,
                                       llvm::ArrayRef<std::string> enabled = {},
                                       std::vector<std::string> *stoppedAtBound = nullptr);

} // namespace afunix::rules

namespace clang::tidy::afunix {
void registerAfunixChecks(ClangTidyCheckFactories &factories);
} // namespace clang::tidy::afunix
