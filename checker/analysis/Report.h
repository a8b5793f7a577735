// What a rule produces: reports as plain data (a site, the catalog message with its placeholders
// filled, notes, fix-it edits), so the same rule serves afunix-check's whole-program run, the
// clang-tidy plugin and afunix-clangd. RuleContext is what a rule reads and writes.
#pragma once

#include "Program.h"
#include "ProjectOptions.h"

#include "afunix/RuleCatalog.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace afunix::analysis {

struct ReportNote {
  Id site = kNone;
  std::string text;
};

struct ReportEdit {
  Id file = kNone; // index into Program::files
  std::uint32_t offset = 0, length = 0;
  std::string text;
  // What the fix-it does, as a quick fix's title ("Move setsockopt(SO_PASSCRED) above listen()");
  // the first edit of a report carries it.
  std::string title;
};

struct Report {
  std::string rule;
  std::string variant;
  Id site = kNone;     // the primary location
  std::string message; // the catalog message, placeholders filled
  std::vector<ReportNote> notes;
  std::vector<ReportEdit> fixes;
};

// `text` with each {placeholder} replaced from `fill`.
std::string fillMessage(llvm::StringRef text, const std::map<std::string, std::string> &fill);
// The variant of `rule` whose message template `message` was filled from (for front ends that only
// have the text, such as clang-tidy's diagnostics), or nullptr.
const ::afunix::catalog::Variant *variantOfMessage(const ::afunix::catalog::Rule &rule,
                                                   llvm::StringRef message);

// What several rules ask of one program (Queries.h): computed by the first that asks, shared by
// the rules of one evaluation.
struct SharedQueries;

class RuleContext {
public:
  RuleContext(const Program &program, const ProjectOptions &options,
              const ::afunix::catalog::Rule *rule)
      : P(program), Options(options), Rule(rule) {}

  const Program &P;
  const ProjectOptions &Options;
  const ::afunix::catalog::Rule *Rule;

  // Whether the rule matters on the target kernel at all.
  bool applies() const;
  // The variant `id`, if it applies to the target kernel (all do when none is set).
  const ::afunix::catalog::Variant *variant(llvm::StringRef id) const;
  // The variant of a kernel-dependent rule for the target kernel, else `fallback`.
  const ::afunix::catalog::Variant *kernelVariant(llvm::StringRef fallback) const;

  Report &report(Id site, const ::afunix::catalog::Variant &variant,
                 const std::map<std::string, std::string> &fill);
  void note(Report &report, Id site, std::string text);

  // The bound on a rule's work: each judgement of a fact against one origin, event or other
  // fact spends one step. A program whose sockets all meet in one place (one global holding
  // every socket, set in a thousand functions) makes some rules' work grow with the cube of the
  // sockets; past the bound the rule stops, and the run says its findings may be incomplete.
  static constexpr std::size_t kWorkBound = 200'000;
  // Spends `steps`; false once the bound is reached (and from then on).
  bool spend(std::size_t steps = 1) {
    if (Spent + steps > kWorkBound) {
      Spent = kWorkBound;
      Exhausted = true;
      return false;
    }
    Spent += steps;
    return true;
  }
  std::size_t Spent = 0;
  bool Exhausted = false;

  std::vector<Report> Reports;
  // Set by the evaluation for all its rules; made on first use otherwise (sendsOf()).
  std::shared_ptr<SharedQueries> Shared;
};

using RuleFunction = void (*)(RuleContext &);

} // namespace afunix::analysis
