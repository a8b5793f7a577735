// The "Measured" table of each docs/rules page: every variant's claim beside the verdicts of the
// experiments its `experiment:` names, as observed on the running kernel.
#pragma once

#include <string>
#include <vector>

#include "afunix/RuleCatalog.h"
#include "afunix/kernel/KernelReport.h"

namespace afunix::kernel {

// "6.18": the running kernel's major.minor, which a page's table records.
std::string kernelSeries();
// Every experiment some catalog variant names, in the order `afunix-probe kernel` runs them.
std::vector<std::string> linkedExperiments();
// The table for `rule` from a report that ran (at least) its experiments.
std::string measuredBlock(const catalog::Rule &rule, const KernelReport &report);
// The table in a page's text: false when the page has none.
bool pageBlock(const std::string &text, std::string &block, std::size_t &begin, std::size_t &end);
// The kernel series a table records ("6.18"), "" if none.
std::string blockKernelSeries(const std::string &block);
// Replaces (or adds, before "## Suppression") the table in the page at `path`.
bool writeMeasuredBlock(const std::string &path, const std::string &block, bool &changed,
                        std::string &error);

} // namespace afunix::kernel
