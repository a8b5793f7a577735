#include "FdLimitCheck.h"

#include "clang/AST/ParentMapContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"

#include <algorithm>

namespace clang::tidy::afunix {

using namespace ast_matchers;

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

void FdLimitCheck::registerMatchers(MatchFinder *finder) {
  finder->addMatcher(
      binaryOperator(hasOperatorName("="), hasLHS(memberExpr(member(hasName("cmsg_len")))))
          .bind("len"),
      this);
  finder->addMatcher(callExpr(callee(functionDecl(hasAnyName("memcpy", "memmove", "__builtin_memcpy",
                                                             "__builtin___memcpy_chk"))),
                              argumentCountAtLeast(3))
                         .bind("copy"),
                     this);
  // Buffer sizes: every n * sizeof(...) and sizeof(array); the macro test below is cheap and
  // keeps only those spelled inside CMSG_SPACE()/CMSG_LEN().
  finder->addMatcher(binaryOperator(hasOperatorName("*")).bind("size"), this);
  finder->addMatcher(sizeOfExpr(anything()).bind("size"), this);
  finder->addMatcher(declRefExpr(to(enumConstantDecl(hasName("SCM_RIGHTS")))).bind("rights"), this);
}

const FunctionDecl *FdLimitCheck::functionOf(const Stmt *node, ASTContext &context) const {
  DynTypedNodeList parents = context.getParents(*node);
  for (int depth = 0; depth < 64 && !parents.empty(); ++depth) {
    const DynTypedNode &parent = parents[0];
    if (const auto *fn = parent.get<FunctionDecl>())
      return fn->getCanonicalDecl();
    parents = context.getParents(parent);
  }
  return nullptr;
}

void FdLimitCheck::add(Where where, const Stmt *node, int64_t count, ASTContext &context) {
  if (count <= fd::kScmMaxFd)
    return;
  const SourceManager &sm = context.getSourceManager();
  unsigned line = sm.getExpansionLineNumber(node->getBeginLoc());
  Candidates.push_back({where, node, count, functionOf(node, context), line});
}

void FdLimitCheck::check(const MatchFinder::MatchResult &result) {
  ASTContext &ctx = *result.Context;
  if (const auto *rights = result.Nodes.getNodeAs<DeclRefExpr>("rights")) {
    if (const FunctionDecl *fn = functionOf(rights, ctx))
      RightsFunctions.insert(fn);
    else
      RightsAtFileScope = true;
    return;
  }
  if (const auto *len = result.Nodes.getNodeAs<BinaryOperator>("len")) {
    if (std::optional<int64_t> count = largestFdCountIn(len->getRHS(), ctx))
      add(Where::CmsgLen, len, *count, ctx);
    return;
  }
  if (const auto *copy = result.Nodes.getNodeAs<CallExpr>("copy")) {
    if (isCmsgData(copy->getArg(0), ctx))
      if (std::optional<int64_t> count = largestFdCountIn(copy->getArg(2), ctx))
        add(Where::PayloadCopy, copy, *count, ctx);
    return;
  }
  if (const auto *size = result.Nodes.getNodeAs<Expr>("size")) {
    // Cheap filters first: most products and sizeofs are nowhere near a macro.
    if (!size->getBeginLoc().isMacroID() && !size->getExprLoc().isMacroID())
      return;
    const SourceManager &sm = ctx.getSourceManager();
    if (sm.isInSystemHeader(sm.getExpansionLoc(size->getBeginLoc())))
      return;
    std::optional<int64_t> count = fdCountOf(size, ctx);
    if (!count || *count <= fd::kScmMaxFd)
      return;
    if (inCmsgSizeMacro(size->getExprLoc(), sm, ctx.getLangOpts()) ||
        inCmsgSizeMacro(size->getBeginLoc(), sm, ctx.getLangOpts()))
      add(Where::BufferSize, size, *count, ctx);
  }
}

void FdLimitCheck::onEndOfTranslationUnit() {
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
