#include "AfunixChecks.h"

#include "AfunixCheck.h"
#include "FixPolicy.h"
#include "Rules.h"

#include "ClangTidyModule.h"

#include <map>

namespace afunix::rules {

llvm::ArrayRef<RuleEntry> allRules() {
  static const RuleEntry kRules[] = {
      {"afunix-creds-without-passcred", &credsWithoutPasscred},
      {"afunix-passcred-too-late", &passcredTooLate},
      {"afunix-passcred-wrong-family", &passcredWrongFamily},
      {"afunix-fd-flood", &fdFlood},
      {"afunix-fd-cycle", &fdCycle},
      {"afunix-fd-limit", &fdLimit},
  };
  return kRules;
}

std::vector<analysis::Report> evaluate(const analysis::Program &program,
                                       const analysis::ProjectOptions &options,
                                       llvm::ArrayRef<std::string> enabled,
                                       std::vector<std::string> *stoppedAtBound) {
  std::vector<analysis::Report> out;
  auto shared = std::make_shared<analysis::SharedQueries>();
  for (const RuleEntry &entry : allRules()) {
    if (!enabled.empty() && !llvm::is_contained(enabled, entry.id))
      continue;
    analysis::RuleContext context(program, options, ::afunix::catalog::findRule(entry.id));
    context.Shared = shared;
    if (!context.applies())
      continue;
    entry.run(context);
    if (context.Exhausted && stoppedAtBound)
      stoppedAtBound->push_back(entry.id);
    // One finding per rule and place: the per-call copies of a function (constructor clones)
    // judge the same statement once per context; the gravest verdict stands for all of them.
    auto rank = [&](const analysis::Report &r) {
      const ::afunix::catalog::Variant *v = context.Rule ? ::afunix::catalog::findVariant(*context.Rule, r.variant) : nullptr;
      llvm::StringRef severity = v && v->severity && *v->severity ? v->severity : context.Rule ? context.Rule->severity : "";
      return severity == "error" ? 2 : severity == "warning" ? 1 : 0;
    };
    std::map<analysis::Id, std::size_t> bySite;
    for (analysis::Report &r : context.Reports) {
      auto [it, fresh] = bySite.try_emplace(r.site, out.size());
      if (fresh)
        out.push_back(std::move(r));
      else if (rank(r) > rank(out[it->second]))
        out[it->second] = std::move(r);
    }
  }
  std::vector<analysis::Report *> all;
  for (analysis::Report &r : out)
    all.push_back(&r);
  settleFixes(program, all);
  return out;
}

} // namespace afunix::rules

namespace clang::tidy::afunix {

void registerAfunixChecks(ClangTidyCheckFactories &factories) {
  for (const ::afunix::rules::RuleEntry &entry : ::afunix::rules::allRules()) {
    ::afunix::analysis::RuleFunction run = entry.run;
    factories.registerCheckFactory(entry.id, [run](StringRef name, ClangTidyContext *context) {
      return std::make_unique<AfunixCheck>(name, context, run);
    });
  }
}

} // namespace clang::tidy::afunix
