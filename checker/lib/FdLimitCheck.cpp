#include "FdLimitCheck.h"

#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"

#include <algorithm>

namespace clang::tidy::afunix {

namespace {

std::optional<int64_t> constantOf(const Expr *e, const ASTContext &ctx) {
  Expr::EvalResult result;
  if (!e || e->isValueDependent() || !e->EvaluateAsInt(result, ctx))
    return std::nullopt;
  return result.Val.getInt().getExtValue();
}

// An fd is an int: sizeof(int), sizeof(fd), sizeof(int32_t).
bool isFdSized(QualType type, const ASTContext &ctx) {
  return !type.isNull() && type->isIntegerType() && !type->isBooleanType() &&
         ctx.getTypeSize(type) == 32;
}

bool isSizeofFd(const Expr *e, const ASTContext &ctx) {
  const auto *size = dyn_cast_or_null<UnaryExprOrTypeTraitExpr>(e ? e->IgnoreParenImpCasts() : nullptr);
  return size && size->getKind() == UETT_SizeOf && isFdSized(size->getTypeOfArgument(), ctx);
}

// The fd count an expression spells: n * sizeof(int), sizeof(int) * n, sizeof(int[n]) or the
// sizeof of an int array of n elements.
std::optional<int64_t> fdCountOf(const Expr *e, const ASTContext &ctx) {
  e = e ? e->IgnoreParenImpCasts() : nullptr;
  if (!e)
    return std::nullopt;
  if (const auto *mul = dyn_cast<BinaryOperator>(e); mul && mul->getOpcode() == BO_Mul) {
    if (isSizeofFd(mul->getLHS(), ctx))
      return constantOf(mul->getRHS(), ctx);
    if (isSizeofFd(mul->getRHS(), ctx))
      return constantOf(mul->getLHS(), ctx);
    return std::nullopt;
  }
  if (const auto *size = dyn_cast<UnaryExprOrTypeTraitExpr>(e); size && size->getKind() == UETT_SizeOf) {
    if (const auto *array = ctx.getAsConstantArrayType(size->getTypeOfArgument()))
      if (isFdSized(array->getElementType(), ctx))
        return static_cast<int64_t>(array->getSize().getZExtValue());
  }
  return std::nullopt;
}

// The largest fd count spelled anywhere in an expression (CMSG_LEN(...) expands to sums).
std::optional<int64_t> largestFdCountIn(const Stmt *s, const ASTContext &ctx) {
  if (!s)
    return std::nullopt;
  std::optional<int64_t> best;
  if (const auto *e = dyn_cast<Expr>(s))
    best = fdCountOf(e, ctx);
  for (const Stmt *child : s->children())
    if (std::optional<int64_t> count = largestFdCountIn(child, ctx); count && (!best || *count > *best))
      best = count;
  return best;
}

bool inCmsgSizeMacro(SourceLocation loc, const SourceManager &sm, const LangOptions &lo) {
  for (int i = 0; i < 8 && loc.isMacroID(); ++i) {
    StringRef name = Lexer::getImmediateMacroName(loc, sm, lo);
    if (name == "CMSG_SPACE" || name == "CMSG_LEN")
      return true;
    loc = sm.getImmediateMacroCallerLoc(loc);
  }
  return false;
}

bool isCmsgData(const Expr *e, const ASTContext &ctx) {
  const Expr *s = e->IgnoreParenCasts();
  if (const auto *member = dyn_cast<MemberExpr>(s))
    if (const IdentifierInfo *id = member->getMemberDecl()->getIdentifier();
        id && id->getName() == "__cmsg_data")
      return true;
  SourceLocation loc = s->getBeginLoc();
  for (int i = 0; i < 8 && loc.isMacroID(); ++i) {
    if (Lexer::getImmediateMacroName(loc, ctx.getSourceManager(), ctx.getLangOpts()) == "CMSG_DATA")
      return true;
    loc = ctx.getSourceManager().getImmediateMacroCallerLoc(loc);
  }
  return false;
}

} // namespace

// One walk of the program's own code (system headers skipped), only in TUs that spell
// SCM_RIGHTS: where each message's fd count shows, and which functions name SCM_RIGHTS.
class FdLimitWalker : public RecursiveASTVisitor<FdLimitWalker> {
  using Base = RecursiveASTVisitor<FdLimitWalker>;

public:
  FdLimitWalker(FdLimitCheck &check, ASTContext &ctx)
      : Check(check), Ctx(ctx), SM(ctx.getSourceManager()) {}

  bool TraverseDecl(Decl *d) {
    if (!d)
      return true;
    if (fd::declaredInSystemHeader(d, SM))
      return true;
    if (const auto *fn = dyn_cast<FunctionDecl>(d); fn && fn->doesThisDeclarationHaveABody()) {
      const FunctionDecl *saved = Fn;
      Fn = fn->getCanonicalDecl();
      bool result = Base::TraverseDecl(d);
      Fn = saved;
      return result;
    }
    return Base::TraverseDecl(d);
  }

  bool VisitCaseStmt(CaseStmt *c) {
    if (c->getLHS())
      Compared.insert(c->getLHS()->IgnoreParenImpCasts());
    return true;
  }

  bool VisitDeclRefExpr(DeclRefExpr *ref) {
    if (Compared.count(ref))
      return true; // `cmsg_type == SCM_RIGHTS` reads a received message: a receive buffer
    if (const auto *constant = dyn_cast<EnumConstantDecl>(ref->getDecl()))
      if (const IdentifierInfo *id = constant->getIdentifier(); id && id->getName() == "SCM_RIGHTS")
        markRights();
    return true;
  }

  bool VisitIntegerLiteral(IntegerLiteral *literal) {
    if (!Compared.count(literal) && literal->getBeginLoc().isMacroID() && literal->getValue() == 1 &&
        Lexer::getImmediateMacroName(literal->getBeginLoc(), SM, Ctx.getLangOpts()) == "SCM_RIGHTS")
      markRights(); // musl: #define SCM_RIGHTS 0x01
    return true;
  }

  bool VisitBinaryOperator(BinaryOperator *op) {
    if (op->isEqualityOp()) {
      Compared.insert(op->getLHS()->IgnoreParenImpCasts());
      Compared.insert(op->getRHS()->IgnoreParenImpCasts());
      return true;
    }
    if (op->getOpcode() == BO_Assign) {
      const auto *member = dyn_cast<MemberExpr>(op->getLHS()->IgnoreParenImpCasts());
      if (member && member->getMemberDecl()->getIdentifier() &&
          member->getMemberDecl()->getName() == "cmsg_len")
        if (std::optional<int64_t> count = largestFdCountIn(op->getRHS(), Ctx))
          Check.add(FdLimitCheck::Where::CmsgLen, op, *count, Fn, Ctx);
      return true;
    }
    if (op->getOpcode() == BO_Mul)
      sizeCandidate(op);
    return true;
  }

  bool VisitUnaryExprOrTypeTraitExpr(UnaryExprOrTypeTraitExpr *size) {
    if (size->getKind() == UETT_SizeOf)
      sizeCandidate(size);
    return true;
  }

  bool VisitCallExpr(CallExpr *call) {
    const FunctionDecl *callee = call->getDirectCallee();
    if (!callee || !callee->getIdentifier() || call->getNumArgs() < 3)
      return true;
    StringRef name = callee->getName();
    if (name != "memcpy" && name != "memmove" && name != "__builtin_memcpy" &&
        name != "__builtin___memcpy_chk")
      return true;
    if (isCmsgData(call->getArg(0), Ctx))
      if (std::optional<int64_t> count = largestFdCountIn(call->getArg(2), Ctx))
        Check.add(FdLimitCheck::Where::PayloadCopy, call, *count, Fn, Ctx);
    return true;
  }

private:
  void markRights() {
    if (Fn)
      Check.RightsFunctions.insert(Fn);
    else
      Check.RightsAtFileScope = true;
  }

  // n * sizeof(int) or sizeof(int[n]) spelled inside CMSG_SPACE()/CMSG_LEN(): a buffer size.
  void sizeCandidate(const Expr *size) {
    if (!size->getBeginLoc().isMacroID() && !size->getExprLoc().isMacroID())
      return;
    std::optional<int64_t> count = fdCountOf(size, Ctx);
    if (!count || *count <= fd::kScmMaxFd)
      return;
    if (inCmsgSizeMacro(size->getExprLoc(), SM, Ctx.getLangOpts()) ||
        inCmsgSizeMacro(size->getBeginLoc(), SM, Ctx.getLangOpts()))
      Check.add(FdLimitCheck::Where::BufferSize, size, *count, Fn, Ctx);
  }

  FdLimitCheck &Check;
  ASTContext &Ctx;
  const SourceManager &SM;
  const FunctionDecl *Fn = nullptr;
  llvm::DenseSet<const Expr *> Compared;
};

void FdLimitCheck::add(Where where, const Stmt *node, int64_t count, const FunctionDecl *function,
                       ASTContext &context) {
  if (count <= fd::kScmMaxFd)
    return;
  unsigned line = context.getSourceManager().getExpansionLineNumber(node->getBeginLoc());
  Candidates.push_back({where, node, count, function, line});
}

void FdLimitCheck::onEndOfTranslationUnit() {
  if (!context() || !scmRightsSpelled())
    return; // no SCM_RIGHTS message is built in this TU
  FdLimitWalker(*this, *context()).TraverseDecl(context()->getTranslationUnitDecl());
  if (Candidates.empty())
    return;
  // One finding per function (one message), at the place that decides its fd count.
  std::sort(Candidates.begin(), Candidates.end(), [](const Candidate &a, const Candidate &b) {
    return std::make_pair(static_cast<int>(a.where), a.line) <
           std::make_pair(static_cast<int>(b.where), b.line);
  });
  llvm::DenseSet<const FunctionDecl *> done;
  for (const Candidate &c : Candidates) {
    bool rights = c.function ? RightsFunctions.count(c.function) != 0
                             : RightsAtFileScope || !RightsFunctions.empty();
    // Conservative: counts outside a function that names SCM_RIGHTS may size other control data.
    if (!rights || !done.insert(c.function).second)
      continue;
    diag(c.node->getBeginLoc(), message("default", {{"count", std::to_string(c.count)}}),
         severity());
    llvm::DenseSet<unsigned> noted{c.line};
    for (const Candidate &other : Candidates) {
      if (other.function != c.function || !noted.insert(other.line).second)
        continue;
      const char *what = other.where == Where::CmsgLen       ? "cmsg_len is set for %0 fds here"
                         : other.where == Where::PayloadCopy ? "the payload of %0 fds is copied here"
                                                             : "the control buffer is sized for %0 fds here";
      diag(other.node->getBeginLoc(), what, DiagnosticIDs::Note) << static_cast<int>(other.count);
    }
  }
  Candidates.clear();
}

} // namespace clang::tidy::afunix
