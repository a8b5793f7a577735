#include "FdCheckBase.h"

#include "CatalogMessage.h"

#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/PPCallbacks.h"
#include "clang/Lex/Preprocessor.h"

namespace clang::tidy::afunix {

using namespace ast_matchers;

FdCheckBase::FdCheckBase(StringRef name, ClangTidyContext *context)
    : ClangTidyCheck(name, context), Rule(::afunix::catalog::findRule(name)),
      ProducersOption(Options.getLocalOrGlobal("SocketProducers", "").str()),
      TargetKernel(Options.getLocalOrGlobal("TargetKernel", "").str()) {
  // "make_sock;open_channel:AF_UNIX" (the SocketModel syntax): the family suffix is ignored,
  // a producer listed for the fd rules is taken to return AF_UNIX sockets.
  llvm::SmallVector<StringRef, 8> names;
  StringRef(ProducersOption).split(names, ';', -1, false);
  for (StringRef item : names)
    for (StringRef part : llvm::split(item, ','))
      if (StringRef fn = part.split(':').first.trim(); !fn.empty())
        Producers.insert(fn);
}

void FdCheckBase::storeOptions(ClangTidyOptions::OptionMap &opts) {
  Options.store(opts, "SocketProducers", ProducersOption);
}

std::string FdCheckBase::message(StringRef variant,
                                 const std::map<std::string, std::string> &fill) const {
  const ::afunix::catalog::Variant *chosen = Rule ? ::afunix::catalog::findVariant(*Rule, variant) : nullptr;
  if (!chosen && Rule && Rule->variantCount > 0)
    chosen = &Rule->variants[0];
  return fillMessage(chosen ? chosen->message : "afunix fd-passing problem", fill);
}

DiagnosticIDs::Level FdCheckBase::severity() const {
  // Always a warning: clang-tidy never lets NOLINT suppress an error-level diagnostic, and
  // afunix-check gives each finding its catalog (or configured) severity itself.
  return DiagnosticIDs::Warning;
}

std::string FdCheckBase::kernelVariant() const {
  ::afunix::KernelVersion kernel;
  if (!Rule || TargetKernel.empty() || !::afunix::KernelVersion::parse(TargetKernel, kernel))
    return "since-6.8";
  for (size_t i = 0; i < Rule->variantCount; ++i)
    if (::afunix::catalog::appliesTo(Rule->variants[i], kernel))
      return Rule->variants[i].id;
  return "since-6.8";
}

namespace {
// Notes whether SCM_RIGHTS is spelled in the program's own code (glibc's `#define SCM_RIGHTS
// SCM_RIGHTS` and musl's `#define SCM_RIGHTS 0x01` both expand a macro). One pointer compare
// per macro expansion.
class ScmRightsSpotter : public PPCallbacks {
public:
  ScmRightsSpotter(const SourceManager &sm, const IdentifierInfo *name, std::shared_ptr<bool> seen)
      : SM(sm), Name(name), Seen(std::move(seen)) {}
  void MacroExpands(const Token &token, const MacroDefinition &, SourceRange range,
                    const MacroArgs *) override {
    if (token.getIdentifierInfo() == Name && !*Seen &&
        !SM.isInSystemHeader(SM.getExpansionLoc(range.getBegin())))
      *Seen = true;
  }

private:
  const SourceManager &SM;
  const IdentifierInfo *Name;
  std::shared_ptr<bool> Seen;
};
} // namespace

void FdCheckBase::registerPPCallbacks(const SourceManager &sm, Preprocessor *pp, Preprocessor *) {
  pp->addPPCallbacks(std::make_unique<ScmRightsSpotter>(sm, pp->getIdentifierInfo("SCM_RIGHTS"),
                                                        ScmRightsSeen));
}

void FdCheckBase::registerSendmsgMatcher(MatchFinder *finder) {
  finder->addMatcher(translationUnitDecl().bind("unit"), this);
}

void FdCheckBase::check(const MatchFinder::MatchResult &result) {
  Context = result.Context;
}

namespace {
bool sendmsgReferenced(ASTContext &context) {
  auto it = context.Idents.find("sendmsg");
  if (it == context.Idents.end())
    return false;
  for (const NamedDecl *decl : context.getTranslationUnitDecl()->lookup(it->getValue()))
    if (decl->isReferenced())
      return true;
  return false;
}
} // namespace

void FdCheckBase::onEndOfTranslationUnit() {
  // No SCM_RIGHTS or no sendmsg() call in this TU: no fd is passed here, nothing to build.
  if (!Context || !*ScmRightsSeen || !sendmsgReferenced(*Context))
    return;
  if (!Facts)
    Facts = fd::FdFacts::shared(*Context);
  checkSends(*Facts);
}

} // namespace clang::tidy::afunix
