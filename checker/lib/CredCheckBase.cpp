#include "CredCheckBase.h"

#include "clang/AST/ParentMapContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"

#include <algorithm>

namespace clang::tidy::afunix {

using namespace ast_matchers;

CredCheckBase::CredCheckBase(StringRef name, ClangTidyContext *context)
    : ClangTidyCheck(name, context), Rule(::afunix::catalog::findRule(name)),
      SocketProducers(Options.getLocalOrGlobal("SocketProducers", "").str()),
      OptionWrappers(Options.getLocalOrGlobal("OptionWrappers", "").str()),
      ExternalSocketSources(Options.getLocalOrGlobal("ExternalSocketSources", "").str()),
      TargetKernel(Options.getLocalOrGlobal("TargetKernel", "").str()),
      Pedantic(Options.getLocalOrGlobal("Pedantic", false)),
      Config(ModelConfig::parse(SocketProducers, OptionWrappers, ExternalSocketSources)) {
  ::afunix::KernelVersion kernel;
  if (!TargetKernel.empty()) {
    if (::afunix::KernelVersion::parse(TargetKernel, kernel))
      Kernel = kernel;
    else
      configurationDiag("invalid TargetKernel '%0': expected a version such as 6.16")
          << TargetKernel;
  }
}

void CredCheckBase::storeOptions(ClangTidyOptions::OptionMap &opts) {
  Options.store(opts, "SocketProducers", SocketProducers);
  Options.store(opts, "OptionWrappers", OptionWrappers);
  Options.store(opts, "ExternalSocketSources", ExternalSocketSources);
  Options.store(opts, "TargetKernel", TargetKernel);
  Options.store(opts, "Pedantic", Pedantic);
}

void CredCheckBase::registerMatchers(MatchFinder *finder) {
  // Only a trigger: the model walks the whole TU once, at its end.
  finder->addMatcher(functionDecl(isDefinition(), unless(isExpansionInSystemHeader()))
                         .bind("afunix-function"),
                     this);
}

void CredCheckBase::check(const MatchFinder::MatchResult &result) { Context = result.Context; }

void CredCheckBase::onStartOfTranslationUnit() {
  Context = nullptr;
  // Every check's start runs before any match of the TU, so the previous TU's model goes here.
  SocketModel::resetShared();
}

void CredCheckBase::onEndOfTranslationUnit() {
  if (!Context || !Rule)
    return;
  if (Kernel && !::afunix::catalog::appliesTo(*Rule, *Kernel))
    return;
  checkModel(SocketModel::shared(*Context, Config));
  Context = nullptr;
}

const ::afunix::catalog::Variant *CredCheckBase::variant(StringRef id) const {
  if (!Rule)
    return nullptr;
  const ::afunix::catalog::Variant *chosen = ::afunix::catalog::findVariant(*Rule, id);
  if (chosen && Kernel && !::afunix::catalog::appliesTo(*chosen, *Kernel))
    return nullptr;
  return chosen;
}

DiagnosticBuilder CredCheckBase::report(SourceLocation loc,
                                        const ::afunix::catalog::Variant &chosen,
                                        const std::map<std::string, std::string> &fill) {
  // Warning level: clang-tidy's NOLINT cannot suppress errors; afunix-check applies the
  // catalog severity itself.
  return diag(loc, fillMessage(chosen.message, fill));
}

DiagnosticBuilder CredCheckBase::report(const Site &site,
                                        const ::afunix::catalog::Variant &chosen,
                                        const std::map<std::string, std::string> &fill) {
  DiagnosticBuilder diagnostic = report(site.loc, chosen, fill);
  if (site.expr && site.expr->getSourceRange().isValid())
    diagnostic << site.expr->getSourceRange();
  return diagnostic;
}

void CredCheckBase::note(SourceLocation loc, StringRef text) {
  if (loc.isValid())
    diag(loc, fillMessage(text, {}), DiagnosticIDs::Note);
}

void CredCheckBase::noteListener(const SocketModel &model, const CreateFact &accepted) {
  if (accepted.how != CreateHow::Accept || accepted.listener == kNoLoc)
    return;
  note(accepted.site.loc, "accept() here");
  for (unsigned listener : model.originsOf(accepted.listener))
    note(model.creates()[listener].site.loc, "listening socket created here");
}

bool createdHere(CreateHow how) {
  return how == CreateHow::Socket || how == CreateHow::Socketpair || how == CreateHow::Accept ||
         how == CreateHow::Producer;
}

bool enablesPasscred(const OptionFact &option) {
  return option.option == SockOption::PassCred && option.value != Tri::False;
}

bool reaches(const SocketModel &model, unsigned origin, LocId loc) {
  const std::vector<unsigned> &origins = model.originsOf(loc); // sorted
  return std::binary_search(origins.begin(), origins.end(), origin);
}

static bool enabledOn(const SocketModel &model, unsigned origin) {
  for (const OptionFact &option : model.options())
    if (enablesPasscred(option) && reaches(model, origin, option.loc))
      return true;
  return false;
}

Passcred passcredReaching(const SocketModel &model, unsigned origin) {
  if (enabledOn(model, origin))
    return Passcred::Enabled;
  const CreateFact &create = model.creates()[origin];
  if (!createdHere(create.how))
    return Passcred::Unknown; // its creator may have enabled it (PassCredentials=yes)
  // Only unix and netlink sockets deliver SCM_CREDENTIALS at all.
  if (create.family != Family::Unknown && create.family != Family::Unix &&
      create.family != Family::Netlink)
    return Passcred::Unknown;
  if (create.how != CreateHow::Accept)
    return Passcred::Never;
  const std::vector<unsigned> &listeners =
      create.listener == kNoLoc ? std::vector<unsigned>{} : model.originsOf(create.listener);
  if (listeners.empty())
    return Passcred::Unknown;
  Passcred result = Passcred::Never;
  for (unsigned listener : listeners) {
    if (enabledOn(model, listener))
      return Passcred::Enabled;
    if (!createdHere(model.creates()[listener].how))
      result = Passcred::Unknown;
  }
  return result;
}

namespace edits {

std::pair<const Stmt *, const CompoundStmt *> enclosingStatement(const Expr *expr,
                                                                 ASTContext &context) {
  DynTypedNode node = DynTypedNode::create(*expr);
  const Stmt *current = expr;
  for (int depth = 0; depth < 64; ++depth) {
    auto parents = context.getParents(node);
    if (parents.size() != 1)
      return {nullptr, nullptr};
    if (const auto *compound = parents[0].get<CompoundStmt>())
      return {current, compound};
    const Stmt *parent = parents[0].get<Stmt>();
    if (!parent)
      return {nullptr, nullptr};
    current = parent;
    node = parents[0];
  }
  return {nullptr, nullptr};
}

CharSourceRange statementRange(const Stmt *stmt, ASTContext &context) {
  const SourceManager &sm = context.getSourceManager();
  const LangOptions &lang = context.getLangOpts();
  SourceLocation begin = stmt->getBeginLoc();
  SourceLocation end = stmt->getEndLoc();
  if (begin.isMacroID() || end.isMacroID())
    return {};
  SourceLocation afterEnd = Lexer::getLocForEndOfToken(end, 0, sm, lang);
  // An expression statement ends before its ';'.
  std::optional<Token> next = Lexer::findNextToken(end, sm, lang);
  if (next && next->is(tok::semi) && !isa<CompoundStmt>(stmt))
    afterEnd = next->getEndLoc();
  return CharSourceRange::getCharRange(begin, afterEnd);
}

CharSourceRange wholeLines(CharSourceRange range, ASTContext &context) {
  const SourceManager &sm = context.getSourceManager();
  auto [file, begin] = sm.getDecomposedLoc(range.getBegin());
  auto [endFile, end] = sm.getDecomposedLoc(range.getEnd());
  if (file != endFile)
    return range;
  llvm::StringRef buffer = sm.getBufferData(file);
  size_t first = begin;
  while (first > 0 && (buffer[first - 1] == ' ' || buffer[first - 1] == '\t'))
    --first;
  size_t last = end;
  while (last < buffer.size() && (buffer[last] == ' ' || buffer[last] == '\t'))
    ++last;
  bool lineStart = first == 0 || buffer[first - 1] == '\n';
  bool lineEnd = last == buffer.size() || buffer[last] == '\n';
  SourceLocation fileStart = sm.getLocForStartOfFile(file);
  // Not a whole line: take the blanks after the statement too. Otherwise clang's fix-it merging
  // (EditedSource::adjustRemoval) drops one of the two spaces left behind while clangd does not,
  // and the same fix would read differently in the editor and on the command line.
  if (!lineStart || !lineEnd)
    return CharSourceRange::getCharRange(fileStart.getLocWithOffset(begin),
                                         fileStart.getLocWithOffset(last));
  // Take the newline before the lines, not after: clang's fix-it merging
  // (EditedSource::commitRemove) would also eat the next line's first space when the removal
  // ends in a newline and the next line is indented.
  if (first == 0)
    return range;
  --first;
  return CharSourceRange::getCharRange(fileStart.getLocWithOffset(first),
                                       fileStart.getLocWithOffset(last));
}

std::string indentationAt(SourceLocation loc, ASTContext &context) {
  const SourceManager &sm = context.getSourceManager();
  auto [file, offset] = sm.getDecomposedLoc(sm.getExpansionLoc(loc));
  llvm::StringRef buffer = sm.getBufferData(file);
  size_t lineStart = buffer.rfind('\n', offset == 0 ? 0 : offset - 1);
  lineStart = lineStart == llvm::StringRef::npos ? 0 : lineStart + 1;
  size_t end = lineStart;
  while (end < buffer.size() && (buffer[end] == ' ' || buffer[end] == '\t'))
    ++end;
  return buffer.slice(lineStart, end).str();
}

} // namespace edits

} // namespace clang::tidy::afunix
