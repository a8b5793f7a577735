// Shared plumbing of the afunix-fd-* checks: catalog messages with {placeholders}, the variant
// for the TargetKernel option, the SocketProducers option, and the TU's fd-passing facts (built
// once, only when the TU calls sendmsg()).
#pragma once

#include "ClangTidyCheck.h"
#include "FdPassingFacts.h"
#include "afunix/RuleCatalog.h"

#include "llvm/ADT/StringSet.h"

#include <map>
#include <memory>
#include <string>

namespace clang::tidy::afunix {

class FdCheckBase : public ClangTidyCheck {
public:
  FdCheckBase(StringRef name, ClangTidyContext *context);
  void storeOptions(ClangTidyOptions::OptionMap &opts) override;

protected:
  // The rule's message for `variant` with {placeholders} filled, '%' escaped for diag().
  std::string message(StringRef variant, const std::map<std::string, std::string> &fill) const;
  DiagnosticIDs::Level severity() const;
  // The variant id of a kernel-dependent rule for TargetKernel (default: the since-6.8 one).
  std::string kernelVariant() const;

  // Cheap gates instead of per-node matchers: one match on the TU for its context, a macro
  // callback that notes SCM_RIGHTS being spelled outside system headers, and at the end a lookup
  // of whether sendmsg() is referenced. Only then are the facts built.
  void registerSendmsgMatcher(ast_matchers::MatchFinder *finder);
  void registerPPCallbacks(const SourceManager &sm, Preprocessor *pp,
                           Preprocessor *moduleExpanderPP) override;
  void check(const ast_matchers::MatchFinder::MatchResult &result) override;
  void onEndOfTranslationUnit() override;
  virtual void checkSends(const fd::FdFacts &facts) = 0;
  bool scmRightsSpelled() const { return *ScmRightsSeen; }
  ASTContext *context() const { return Context; }

  const ::afunix::catalog::Rule *Rule;
  llvm::StringSet<> Producers;
  std::string ProducersOption;
  std::string TargetKernel;

private:
  ASTContext *Context = nullptr;
  std::shared_ptr<bool> ScmRightsSeen = std::make_shared<bool>(false);
  std::shared_ptr<fd::FdFacts> Facts;
};

} // namespace clang::tidy::afunix
