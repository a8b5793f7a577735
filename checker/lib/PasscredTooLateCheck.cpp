#include "PasscredTooLateCheck.h"

#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Lex/Lexer.h"

#include <map>

namespace clang::tidy::afunix {

// The enabling SO_PASSCRED options and the bind/listen/connect calls, grouped by location; an
// origin's are those at the locations it reaches (memory stays linear when many sockets share
// one place, such as a struct field).
struct PerOrigin {
  const SocketModel &Model;
  std::vector<std::pair<LocId, std::vector<const OptionFact *>>> OptionsAt;
  std::vector<std::pair<LocId, std::vector<const LifecycleFact *>>> EventsAt;

  explicit PerOrigin(const SocketModel &model) : Model(model) {
    std::map<LocId, size_t> optionSlot, eventSlot;
    for (const OptionFact &option : model.options()) {
      if (!enablesPasscred(option))
        continue;
      auto [it, fresh] = optionSlot.try_emplace(option.loc, OptionsAt.size());
      if (fresh)
        OptionsAt.push_back({option.loc, {}});
      OptionsAt[it->second].second.push_back(&option);
    }
    for (const LifecycleFact &event : model.lifecycle()) {
      auto [it, fresh] = eventSlot.try_emplace(event.loc, EventsAt.size());
      if (fresh)
        EventsAt.push_back({event.loc, {}});
      EventsAt[it->second].second.push_back(&event);
    }
  }

  std::vector<const OptionFact *> options(unsigned origin) const {
    std::vector<const OptionFact *> out;
    for (const auto &[loc, list] : OptionsAt)
      if (reaches(Model, origin, loc))
        out.insert(out.end(), list.begin(), list.end());
    return out;
  }
  std::vector<const LifecycleFact *> events(unsigned origin, Lifecycle kind) const {
    std::vector<const LifecycleFact *> out;
    for (const auto &[loc, list] : EventsAt)
      if (reaches(Model, origin, loc))
        for (const LifecycleFact *event : list)
          if (event->kind == kind)
            out.push_back(event);
    return out;
  }
};

namespace {

constexpr int kSockDgram = 2;


// Whether SO_PASSCRED reaches `origin` at a point that may run before every `kind` call on it
// (an option in another function than the call counts as before: we cannot order them).
bool enabledBefore(const SocketModel &model, const PerOrigin &index, unsigned origin,
                   Lifecycle kind) {
  std::vector<const LifecycleFact *> events = index.events(origin, kind);
  for (const OptionFact *option : index.options(origin)) {
    bool beforeAll = true;
    for (const LifecycleFact *event : events)
      if (!model.mayPrecede(option->site, event->site, /*unknown=*/true))
        beforeAll = false;
    if (beforeAll)
      return true;
  }
  return false;
}

// Every local variable the statement uses is declared before `point`.
class UsesDeclaredBefore : public RecursiveASTVisitor<UsesDeclaredBefore> {
public:
  UsesDeclaredBefore(const SourceManager &sm, SourceLocation point) : SM(sm), Point(point) {}
  bool VisitDeclRefExpr(DeclRefExpr *ref) {
    if (const auto *var = dyn_cast<VarDecl>(ref->getDecl()))
      if (var->isLocalVarDecl() && !SM.isBeforeInTranslationUnit(var->getLocation(), Point))
        Ok = false;
    return Ok;
  }
  const SourceManager &SM;
  SourceLocation Point;
  bool Ok = true;
};

bool isPlainSocketExpr(const Expr *expr) {
  expr = expr->IgnoreParenImpCasts();
  if (isa<DeclRefExpr>(expr))
    return true;
  if (const auto *member = dyn_cast<MemberExpr>(expr))
    return isPlainSocketExpr(member->getBase()) || isa<CXXThisExpr>(member->getBase()->IgnoreParenImpCasts());
  if (const auto *subscript = dyn_cast<ArraySubscriptExpr>(expr))
    return isa<IntegerLiteral>(subscript->getIdx()->IgnoreParenImpCasts()) &&
           isPlainSocketExpr(subscript->getBase());
  return false;
}

} // namespace

void PasscredTooLateCheck::checkModel(const SocketModel &model) {
  PerOrigin index(model);
  Index = &index;
  for (const OptionFact &option : model.options()) {
    if (!enablesPasscred(option))
      continue;
    for (unsigned origin : model.originsOf(option.loc)) {
      const CreateFact &create = model.creates()[origin];
      // SO_PASSCRED never did anything on inet sockets (afunix-passcred-wrong-family's case).
      if (create.family != Family::Unknown && create.family != Family::Unix)
        continue;
      if (create.how == CreateHow::External) {
        if (const auto *chosen = variant("external-socket")) {
          report(option.site, *chosen,
                 {{"socket", option.site.socketText}, {"origin", create.origin}});
          note(create.site.loc, "the socket comes from outside the program here");
        }
        break;
      }
      if (create.how == CreateHow::Accept) {
        if (checkAccepted(model, option, origin))
          break;
        continue;
      }
      if (!createdHere(create.how))
        continue;
      if (create.type == kSockDgram && checkAfter(model, option, origin, Lifecycle::Bind))
        break;
      if (create.type != kSockDgram && checkAfter(model, option, origin, Lifecycle::Listen))
        break;
    }
  }
}

bool PasscredTooLateCheck::checkAccepted(const SocketModel &model, const OptionFact &option,
                                         unsigned origin) {
  const CreateFact &accepted = model.creates()[origin];
  if (accepted.listener == kNoLoc)
    return false;
  const std::vector<unsigned> &listeners = model.originsOf(accepted.listener);
  if (listeners.empty())
    return false;
  for (unsigned listener : listeners) {
    // A listener from elsewhere may have SO_PASSCRED from its creator.
    if (!createdHere(model.creates()[listener].how))
      return false;
    if (enabledBefore(model, *Index, listener, Lifecycle::Listen))
      return false;
  }
  const auto *chosen = variant("accepted-socket");
  if (!chosen)
    return false;
  std::vector<FixItHint> fixes;
  // Fix: enable it on the listener right before its only listen(), when that call is a plain
  // statement on a plain socket expression.
  const LifecycleFact *onlyListen = nullptr;
  unsigned listens = 0;
  for (const LifecycleFact *event : Index->events(listeners.front(), Lifecycle::Listen)) {
    onlyListen = event;
    ++listens;
  }
  if (listeners.size() == 1 && listens == 1) {
    ASTContext &context = model.context();
    const auto *call = cast<CallExpr>(onlyListen->site.expr);
    auto [stmt, compound] = edits::enclosingStatement(call, context);
    if (stmt && compound && isPlainSocketExpr(call->getArg(0)) &&
        stmt->getBeginLoc().isFileID() && call->getArg(0)->getBeginLoc().isFileID()) {
      std::string indent = edits::indentationAt(stmt->getBeginLoc(), context);
      std::string text = "{ int afunix_on = 1; setsockopt(" + onlyListen->site.socketText +
                         ", SOL_SOCKET, SO_PASSCRED, &afunix_on, sizeof afunix_on); }\n" + indent;
      fixes.push_back(FixItHint::CreateInsertion(stmt->getBeginLoc(), text));
    }
  }
  {
    auto diagnostic = report(option.site, *chosen, {{"socket", option.site.socketText}});
    for (const FixItHint &fix : fixes)
      diagnostic << fix;
  } // emitted here, before its notes
  note(accepted.site.loc, "accept() here");
  for (unsigned listener : listeners)
    note(model.creates()[listener].site.loc, "listening socket created here, without SO_PASSCRED before listen()");
  if (onlyListen)
    note(onlyListen->site.loc, "listen() here");
  return true;
}

bool PasscredTooLateCheck::checkAfter(const SocketModel &model, const OptionFact &option,
                                      unsigned origin, Lifecycle kind) {
  const LifecycleFact *before = nullptr;
  for (const LifecycleFact *event : Index->events(origin, kind))
    if (model.mustFollow(event->site, option.site, /*unknown=*/false)) {
      before = event;
      break;
    }
  if (!before)
    return false;
  // Another SO_PASSCRED that may come first makes this one redundant, not late.
  for (const OptionFact *other : Index->options(origin))
    if (other != &option && !model.mustFollow(before->site, other->site, /*unknown=*/false))
      return false;

  const char *variantId = kind == Lifecycle::Bind ? "dgram-after-bind" : "listener-after-listen";
  const auto *chosen = variant(variantId);
  if (!chosen)
    return false;
  std::vector<FixItHint> fixes;
  if (kind == Lifecycle::Bind) {
    // Fix: move the option's statement before bind()'s, when both sit in one block and the
    // moved statement only uses variables already declared there.
    ASTContext &context = model.context();
    auto [optionStmt, optionBlock] = edits::enclosingStatement(option.site.expr, context);
    auto [bindStmt, bindBlock] = edits::enclosingStatement(before->site.expr, context);
    if (optionStmt && bindStmt && optionBlock == bindBlock) {
      CharSourceRange optionRange = edits::statementRange(optionStmt, context);
      CharSourceRange bindRange = edits::statementRange(bindStmt, context);
      UsesDeclaredBefore uses(context.getSourceManager(), bindStmt->getBeginLoc());
      uses.TraverseStmt(const_cast<Stmt *>(optionStmt));
      if (optionRange.isValid() && bindRange.isValid() && uses.Ok) {
        const SourceManager &sm = context.getSourceManager();
        llvm::StringRef text = Lexer::getSourceText(optionRange, sm, context.getLangOpts());
        std::string indent = edits::indentationAt(bindStmt->getBeginLoc(), context);
        fixes.push_back(
            FixItHint::CreateInsertion(bindStmt->getBeginLoc(), text.str() + "\n" + indent));
        fixes.push_back(FixItHint::CreateRemoval(edits::wholeLines(optionRange, context)));
      }
    }
  }
  {
    auto diagnostic = report(option.site, *chosen, {{"socket", option.site.socketText}});
    for (const FixItHint &fix : fixes)
      diagnostic << fix;
  }
  note(before->site.loc, kind == Lifecycle::Bind ? "bind() here" : "listen() here");
  note(model.creates()[origin].site.loc, "socket created here");
  return true;
}

} // namespace clang::tidy::afunix
