#include "AstUtil.h"

#include "afunix/KernelConstants.h"

#include "clang/AST/ExprCXX.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/StringSwitch.h"

namespace afunix::analysis {

using namespace clang;

const Expr *stripValue(const Expr *expr) {
  while (expr) {
    expr = expr->IgnoreParenImpCasts();
    if (const auto *cleanups = dyn_cast<ExprWithCleanups>(expr)) {
      expr = cleanups->getSubExpr();
      continue;
    }
    if (const auto *temporary = dyn_cast<MaterializeTemporaryExpr>(expr)) {
      expr = temporary->getSubExpr();
      continue;
    }
    if (const auto *bind = dyn_cast<CXXBindTemporaryExpr>(expr)) {
      expr = bind->getSubExpr();
      continue;
    }
    // A GNU statement expression ({ ...; value; }) of an integer is its last expression: a
    // variable (systemd's TAKE_FD()), or a call or a conditional (log_error_errno(), whose
    // helper's value is per call site: v:r: keys in facts-format.md); pointer-valued ones
    // (TAKE_PTR()) are the object model's (_pvar_ = &(ptr)).
    if (const auto *statements = dyn_cast<StmtExpr>(expr); statements && statements->getType()->isIntegerType()) {
      const CompoundStmt *body = statements->getSubStmt();
      const auto *last = body && !body->body_empty() ? dyn_cast<Expr>(body->body_back()) : nullptr;
      if (!last)
        return expr;
      expr = last;
      continue;
    }
    if (const auto *cast = dyn_cast<ExplicitCastExpr>(expr)) {
      QualType to = cast->getType();
      QualType from = cast->getSubExpr()->getType();
      // (int)fd, (uint32_t)fd, (void *)(intptr_t)fd, (int)(intptr_t)arg keep the value; a cast
      // to a struct pointer does not denote an fd.
      bool integral = to->isIntegerType() && (from->isIntegerType() || from->isPointerType());
      bool carried = to->isVoidPointerType() && from->isIntegerType();
      // UniqueFd(fd): a functional cast to a class is its construction.
      bool constructed = to->isRecordType();
      if (integral || carried || constructed) {
        expr = cast->getSubExpr();
        continue;
      }
    }
    return expr;
  }
  return expr;
}

llvm::SmallVector<llvm::StringRef, 4> macroNames(SourceLocation loc, const SourceManager &sm,
                                                 const LangOptions &lang) {
  llvm::SmallVector<llvm::StringRef, 4> names;
  for (int depth = 0; loc.isMacroID() && depth < 16; ++depth) {
    llvm::StringRef name = Lexer::getImmediateMacroName(loc, sm, lang);
    if (!name.empty())
      names.push_back(name);
    loc = sm.getImmediateMacroCallerLoc(loc);
  }
  return names;
}

// How many constants' initialisers spelledAs() is inside of (one walk per thread).
static thread_local int InitialiserDepth = 0;

bool spelledAs(const Expr *expr, llvm::ArrayRef<llvm::StringRef> names, ASTContext &ctx,
               llvm::StringRef *found) {
  if (!expr)
    return false;
  const Expr *bare = expr->IgnoreParenImpCasts();
  // A constant of the project's own (constexpr int kOption = SO_PASSCRED; const int opt = ...):
  // as its initialiser is spelled. Only a variable that cannot change, so it is always that value.
  if (const auto *ref = dyn_cast<DeclRefExpr>(bare)) {
    if (const auto *var = dyn_cast<VarDecl>(ref->getDecl());
        var && !isa<ParmVarDecl>(var) && (var->isConstexpr() || var->getType().isConstQualified()))
      if (const VarDecl *defined = var->getDefinition(); defined && defined->getInit() && InitialiserDepth < 8) {
        // Depth-bounded: `extern const int a; const int b = a; const int a = b;` is a cycle.
        ++InitialiserDepth;
        bool spelled = spelledAs(defined->getInit(), names, ctx, found);
        --InitialiserDepth;
        if (spelled)
          return true;
      }
    if (const auto *enumerator = dyn_cast<EnumConstantDecl>(ref->getDecl())) {
      for (llvm::StringRef name : names)
        if (enumerator->getName() == name) {
          if (found)
            *found = name;
          return true;
        }
      // A project's own name for it (enum class Opt { kPassCred = SO_PASSCRED }): as its
      // initialiser is spelled. (An enumerator cannot refer to itself: the walk ends.)
      if (const Expr *init = enumerator->getInitExpr();
          init && !isa<IntegerLiteral>(init->IgnoreParenImpCasts()) && spelledAs(init, names, ctx, found))
        return true;
    }
  }
  for (SourceLocation loc : {expr->getBeginLoc(), bare->getBeginLoc()})
    for (llvm::StringRef macro : macroNames(loc, ctx.getSourceManager(), ctx.getLangOpts()))
      for (llvm::StringRef name : names)
        if (macro == name) {
          if (found)
            *found = name;
          return true;
        }
  return false;
}

bool inMacro(SourceLocation loc, llvm::StringRef name, const SourceManager &sm,
             const LangOptions &lang) {
  for (int depth = 0; depth < 16 && loc.isMacroID(); ++depth) {
    if (Lexer::getImmediateMacroName(loc, sm, lang) == name)
      return true;
    loc = sm.getImmediateMacroCallerLoc(loc);
  }
  return false;
}

// N of a std::array<T, N> or a std::span<T, N> of static extent.
static std::optional<std::int64_t> stdExtent(const CXXRecordDecl *record) {
  const auto *spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(record);
  if (!spec || !spec->isInStdNamespace() || spec->getTemplateArgs().size() != 2 ||
      spec->getTemplateArgs()[1].getKind() != TemplateArgument::Integral)
    return std::nullopt;
  if (spec->getName() != "array" && spec->getName() != "span")
    return std::nullopt;
  llvm::APSInt n = spec->getTemplateArgs()[1].getAsIntegral();
  // std::dynamic_extent is size_t(-1): no count.
  if (n.isNegative() || n.getActiveBits() > 62)
    return std::nullopt;
  return n.getExtValue();
}

std::optional<std::int64_t> evalInt(const Expr *expr, const ASTContext &ctx) {
  if (!expr || expr->isValueDependent() || expr->isTypeDependent())
    return std::nullopt;
  Expr::EvalResult result;
  if (expr->EvaluateAsInt(result, ctx))
    return result.Val.getInt().getExtValue();
  // fds.size() of a std::array<int, N> that is not constexpr: clang 19 does not evaluate a call
  // on an object it cannot read (C++23's P2280), though the answer is N; and sums and products
  // with it (sizeof(int) * fds.size()).
  const Expr *e = expr->IgnoreParenImpCasts();
  if (const auto *call = dyn_cast<CXXMemberCallExpr>(e); call && call->getNumArgs() == 0)
    if (const CXXMethodDecl *method = call->getMethodDecl();
        method && method->getIdentifier() && (method->getName() == "size" || method->getName() == "max_size"))
      if (std::optional<std::int64_t> n = stdExtent(method->getParent()))
        return n;
  if (const auto *binary = dyn_cast<BinaryOperator>(e);
      binary && (binary->getOpcode() == BO_Mul || binary->getOpcode() == BO_Add || binary->getOpcode() == BO_Sub)) {
    std::optional<std::int64_t> left = evalInt(binary->getLHS(), ctx), right = evalInt(binary->getRHS(), ctx);
    std::int64_t value = 0;
    if (!left || !right)
      return std::nullopt;
    bool overflow = binary->getOpcode() == BO_Mul   ? __builtin_mul_overflow(*left, *right, &value)
                    : binary->getOpcode() == BO_Add ? __builtin_add_overflow(*left, *right, &value)
                                                    : __builtin_sub_overflow(*left, *right, &value);
    if (overflow)
      return std::nullopt;
    return value;
  }
  return std::nullopt;
}

std::optional<std::int64_t> constantElementCount(const Expr *expr, const ASTContext &ctx) {
  for (int depth = 0; expr && depth < 8; ++depth) {
    const Expr *e = expr->IgnoreImplicit()->IgnoreParens();
    QualType type = e->getType().getNonReferenceType();
    if (const auto *array = ctx.getAsConstantArrayType(type))
      return array->getSize().getZExtValue();
    if (std::optional<std::int64_t> n = stdExtent(type->getAsCXXRecordDecl()))
      return n;
    // A container built from one argument (a span over an array, a copy): as many as that has.
    const auto *construct = dyn_cast<CXXConstructExpr>(e);
    if (const auto *cast = dyn_cast<CXXFunctionalCastExpr>(e))
      construct = dyn_cast<CXXConstructExpr>(cast->getSubExpr()->IgnoreImplicit());
    if (!construct || construct->getNumArgs() != 1)
      return std::nullopt;
    expr = construct->getArg(0);
  }
  return std::nullopt;
}

std::string sourceText(const Expr *expr, const ASTContext &ctx) {
  if (!expr)
    return "<expr>";
  const SourceManager &sm = ctx.getSourceManager();
  SourceLocation begin = expr->getBeginLoc(), end = expr->getEndLoc();
  // A macro argument (ASSERT_EQ(send_fd(s, s), 0)) is shown as written, not as the whole macro.
  if (begin.isMacroID() && sm.isMacroArgExpansion(begin) && end.isMacroID() &&
      sm.isMacroArgExpansion(end)) {
    begin = sm.getSpellingLoc(begin);
    end = sm.getSpellingLoc(end);
  }
  CharSourceRange range = CharSourceRange::getTokenRange(begin, end);
  range = Lexer::makeFileCharRange(range, sm, ctx.getLangOpts());
  if (range.isValid()) {
    llvm::StringRef text = Lexer::getSourceText(range, sm, ctx.getLangOpts());
    if (!text.empty() && text.size() <= 80)
      return text.str();
  }
  // A macro's body parenthesises its argument (recvmsg((fd), ...)): the argument as written.
  if (const auto *paren = dyn_cast<ParenExpr>(expr->IgnoreImpCasts()))
    return sourceText(paren->getSubExpr(), ctx);
  if (const auto *ref = dyn_cast<DeclRefExpr>(stripValue(expr)))
    return ref->getDecl()->getNameAsString();
  return "<expr>";
}

llvm::StringRef calleeName(const CallExpr *call) {
  if (const FunctionDecl *fn = call->getDirectCallee())
    if (const IdentifierInfo *id = fn->getIdentifier())
      return id->getName();
  return {};
}

bool isSocketApi(const FunctionDecl *callee) {
  if (!callee || isa<CXXMethodDecl>(callee))
    return false;
  const DeclContext *context = callee->getDeclContext()->getRedeclContext();
  return context->isTranslationUnit() || callee->isExternC();
}

bool declaredInSystemHeader(const Decl *decl, const SourceManager &sm) {
  // A builtin clang declares implicitly (__builtin_expect) is declared where it is first used:
  // library code wherever that is, or its facts would depend on whether a system header's body
  // used it first (and on whether such bodies are parsed at all).
  if (const auto *fn = dyn_cast<FunctionDecl>(decl); fn && fn->isImplicit() && fn->getBuiltinID())
    return true;
  return !isa<TranslationUnitDecl>(decl) && decl->getLocation().isValid() &&
         sm.isInSystemHeader(sm.getExpansionLoc(decl->getLocation()));
}

bool declaredInLibraryHeader(const Decl *decl, const SourceManager &sm) {
  if (declaredInSystemHeader(decl, sm))
    return true;
  if (isa<TranslationUnitDecl>(decl) || !decl->getLocation().isValid())
    return false;
  // pkg-config hands GLib's headers over as -I/usr/include/glib-2.0: a user directory to clang,
  // installed library headers all the same. (Also under a --sysroot: .../usr/include/.)
  llvm::StringRef path = sm.getFilename(sm.getExpansionLoc(decl->getLocation()));
  for (llvm::StringRef root : {"/usr/include/", "/usr/local/include/"})
    if (path.contains(root))
      return true;
  return false;
}

bool isFdValueType(QualType type, const ASTContext &ctx) {
  if (type.isNull())
    return false;
  type = type.getNonReferenceType().getCanonicalType();
  if (!type->isIntegerType() || type->isBooleanType() || type->isAnyCharacterType() ||
      type->isEnumeralType())
    return false;
  return ctx.getTypeSize(type) >= 32;
}

bool typeIsRecordNamed(QualType type, llvm::StringRef name) {
  if (type.isNull())
    return false;
  if (const auto *pointer = type->getAs<PointerType>())
    type = pointer->getPointeeType();
  const RecordDecl *record = type->getAsRecordDecl();
  return record && record->getName() == name;
}

bool isMsgControl(const ValueDecl *member) {
  const auto *field = dyn_cast_or_null<FieldDecl>(member);
  return field && field->getIdentifier() && field->getName() == "msg_control" && field->getParent() &&
         field->getParent()->getName() == "msghdr";
}

bool mentionsCmsghdr(const Stmt *stmt) {
  if (!stmt)
    return false;
  if (const auto *expr = dyn_cast<Expr>(stmt))
    if (typeIsRecordNamed(expr->getType(), "cmsghdr"))
      return true;
  for (const Stmt *child : stmt->children())
    if (mentionsCmsghdr(child))
      return true;
  return false;
}

namespace {
const Expr *loopCondition(const Stmt *loop) {
  if (const auto *f = dyn_cast<ForStmt>(loop))
    return f->getCond();
  if (const auto *w = dyn_cast<WhileStmt>(loop))
    return w->getCond();
  if (const auto *d = dyn_cast<DoStmt>(loop))
    return d->getCond();
  return nullptr;
}
} // namespace

bool walksCmsgs(const Stmt *loop) {
  const auto *f = dyn_cast<ForStmt>(loop);
  const Stmt *walk = f && f->getInc() ? f->getInc() : loopCondition(loop);
  return walk && mentionsCmsghdr(walk);
}

bool boundedByOneMessage(const Stmt *loop) {
  if (walksCmsgs(loop))
    return true;
  const Expr *cond = loopCondition(loop);
  const auto *test = dyn_cast_or_null<BinaryOperator>(cond ? cond->IgnoreParenImpCasts() : nullptr);
  if (!test || !test->isComparisonOp())
    return false;
  for (const Expr *side : {test->getLHS(), test->getRHS()}) {
    side = side->IgnoreParenImpCasts();
    if (mentionsCmsghdr(side))
      return true;
    // (A local's initializer only: a count assigned again later is not followed.)
    if (const auto *ref = dyn_cast<DeclRefExpr>(side))
      if (const auto *var = dyn_cast<VarDecl>(ref->getDecl()); var && var->hasLocalStorage() && var->getInit() &&
                                                                mentionsCmsghdr(var->getInit()))
        return true;
  }
  return false;
}

std::optional<facts::Family> familyFromName(llvm::StringRef name) {
  using facts::Family;
  return llvm::StringSwitch<std::optional<Family>>(name)
      .Cases("AF_UNIX", "AF_LOCAL", "PF_UNIX", "PF_LOCAL", Family::Unix)
      .Cases("AF_NETLINK", "PF_NETLINK", Family::Netlink)
      .Cases("AF_BLUETOOTH", "PF_BLUETOOTH", Family::Bluetooth)
      .Cases("AF_INET", "PF_INET", Family::Inet)
      .Cases("AF_INET6", "PF_INET6", Family::Inet6)
      .Default(std::nullopt);
}

std::optional<int> socketTypeFromName(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<int>>(name)
      .Case("SOCK_STREAM", kernel::kSockStream)
      .Case("SOCK_DGRAM", kernel::kSockDgram)
      .Case("SOCK_SEQPACKET", kernel::kSockSeqpacket)
      .Default(std::nullopt);
}

bool isReceiveCall(llvm::StringRef name) {
  return llvm::StringSwitch<bool>(name)
      .Cases("recv", "recvmsg", "recvfrom", "recvmmsg", "read", "readv", true)
      .Cases("__recv_chk", "__recvfrom_chk", "__read_chk", true)
      .Default(false);
}

bool isMemoryCopy(llvm::StringRef name) {
  return llvm::StringSwitch<bool>(name)
      .Cases("memcpy", "memmove", "__builtin_memcpy", "__builtin_memmove", true)
      .Cases("__builtin___memcpy_chk", "__builtin___memmove_chk", true)
      .Default(false);
}

bool returnsNonSocketFd(llvm::StringRef name) {
  return llvm::StringSwitch<bool>(name)
      .Cases("open", "open64", "openat", "openat64", "openat2", "creat", "creat64", true)
      .Cases("memfd_create", "memfd_secret", "eventfd", "timerfd_create", "signalfd", true)
      .Cases("epoll_create", "epoll_create1", "inotify_init", "inotify_init1", true)
      .Cases("fanotify_init", "pidfd_open", "userfaultfd", "shm_open", "posix_openpt", true)
      .Cases("mkstemp", "mkostemp", "mkstemps", "mkostemps", "fileno", true)
      // dmabuf-style exporters hand out buffers through ioctl(); no ioctl returns a new socket.
      .Case("ioctl", true)
      .Default(false);
}

bool isCmsgDataSpelling(const Expr *expr, const ASTContext &ctx) {
  if (!expr)
    return false;
  const Expr *bare = expr->IgnoreParenCasts();
  if (const auto *member = dyn_cast<MemberExpr>(bare))
    if (const IdentifierInfo *id = member->getMemberDecl()->getIdentifier();
        id && id->getName() == "__cmsg_data")
      return true; // glibc: CMSG_DATA(c) is ((c)->__cmsg_data)
  const SourceManager &sm = ctx.getSourceManager();
  return inMacro(expr->getBeginLoc(), "CMSG_DATA", sm, ctx.getLangOpts()) ||
         inMacro(bare->getBeginLoc(), "CMSG_DATA", sm, ctx.getLangOpts());
}

const Expr *arrayBase(const Expr *expr) {
  const Expr *e = expr ? expr->IgnoreParenCasts() : nullptr;
  while (e) {
    if (const auto *bin = dyn_cast<BinaryOperator>(e);
        bin && bin->isAdditiveOp() && bin->getLHS()->getType()->isPointerType()) {
      e = bin->getLHS()->IgnoreParenCasts();
      continue;
    }
    if (const auto *un = dyn_cast<UnaryOperator>(e); un && un->getOpcode() == UO_AddrOf) {
      if (const auto *sub = dyn_cast<ArraySubscriptExpr>(un->getSubExpr()->IgnoreParenCasts())) {
        e = sub->getBase()->IgnoreParenCasts();
        continue;
      }
    }
    break;
  }
  return e;
}

bool readsErrno(const Stmt *stmt) {
  if (!stmt)
    return false;
  if (const auto *call = dyn_cast<CallExpr>(stmt)) {
    llvm::StringRef name = calleeName(call);
    if (name == "__errno_location" || name == "__error" || name == "__errno")
      return true; // what `errno` expands to in glibc/musl, the BSDs and bionic
  }
  for (const Stmt *child : stmt->children())
    if (readsErrno(child))
      return true;
  return false;
}

void forEachWrite(const Stmt *stmt, const VarDecl *var, llvm::function_ref<void(const Expr *)> write) {
  if (!stmt)
    return;
  auto names = [&](const Expr *e) {
    const auto *ref = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts());
    return ref && ref->getDecl() == var;
  };
  if (const auto *op = dyn_cast<BinaryOperator>(stmt); op && op->isAssignmentOp() && names(op->getLHS()))
    write(op);
  if (const auto *op = dyn_cast<UnaryOperator>(stmt);
      op && (op->isIncrementDecrementOp() || op->getOpcode() == UO_AddrOf) && names(op->getSubExpr()))
    write(op);
  for (const Stmt *child : stmt->children())
    forEachWrite(child, var, write);
}

namespace {
// An fd is an int: sizeof(int), sizeof(fd), sizeof(int32_t).
bool isFdSized(QualType type, const ASTContext &ctx) {
  return !type.isNull() && type->isIntegerType() && !type->isBooleanType() &&
         ctx.getTypeSize(type) == 32;
}

bool isSizeofFd(const Expr *e, const ASTContext &ctx) {
  const auto *size = dyn_cast_or_null<UnaryExprOrTypeTraitExpr>(e ? e->IgnoreParenImpCasts() : nullptr);
  return size && size->getKind() == UETT_SizeOf && isFdSized(size->getTypeOfArgument(), ctx);
}
} // namespace

std::optional<std::int64_t> fdCountOf(const Expr *expr, const ASTContext &ctx, CapOf cap) {
  const Expr *e = expr ? expr->IgnoreParenImpCasts() : nullptr;
  if (!e)
    return std::nullopt;
  auto cappedTo = [&](const Expr *value) -> const Expr * {
    const auto *ref = dyn_cast<DeclRefExpr>(value->IgnoreParenImpCasts());
    const auto *var = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
    return var && cap ? cap(var) : nullptr;
  };
  // A count known only at run time, capped before it is read: the cap is the most it can be.
  auto largest = [&](const Expr *value) -> std::optional<std::int64_t> {
    if (std::optional<std::int64_t> known = evalInt(value, ctx))
      return known;
    const Expr *to = cappedTo(value);
    return to ? evalInt(to, ctx) : std::nullopt;
  };
  if (const auto *mul = dyn_cast<BinaryOperator>(e); mul && mul->getOpcode() == BO_Mul) {
    if (isSizeofFd(mul->getLHS(), ctx))
      return largest(mul->getRHS());
    if (isSizeofFd(mul->getRHS(), ctx))
      return largest(mul->getLHS());
    return std::nullopt;
  }
  // A byte size capped to MAX * sizeof(int).
  if (const Expr *to = cappedTo(e))
    return fdCountOf(to, ctx);
  if (const auto *size = dyn_cast<UnaryExprOrTypeTraitExpr>(e); size && size->getKind() == UETT_SizeOf)
    if (const auto *array = ctx.getAsConstantArrayType(size->getTypeOfArgument()))
      if (isFdSized(array->getElementType(), ctx))
        return static_cast<std::int64_t>(array->getSize().getZExtValue());
  return std::nullopt;
}

std::optional<std::int64_t> largestFdCountIn(const Stmt *stmt, const ASTContext &ctx, CapOf cap) {
  if (!stmt)
    return std::nullopt;
  std::optional<std::int64_t> best;
  if (const auto *e = dyn_cast<Expr>(stmt))
    best = fdCountOf(e, ctx, cap);
  for (const Stmt *child : stmt->children())
    if (std::optional<std::int64_t> count = largestFdCountIn(child, ctx, cap);
        count && (!best || *count > *best))
      best = count;
  return best;
}

const Expr *templateArgumentSpelledAs(const CallExpr *call, llvm::ArrayRef<llvm::StringRef> names,
                                     ASTContext &ctx, llvm::StringRef *found) {
  const Expr *callee = call->getCallee()->IgnoreParenImpCasts();
  llvm::ArrayRef<TemplateArgumentLoc> args;
  if (const auto *ref = dyn_cast<DeclRefExpr>(callee))
    args = ref->template_arguments();
  else if (const auto *member = dyn_cast<MemberExpr>(callee))
    args = member->template_arguments();
  for (const TemplateArgumentLoc &arg : args)
    if (arg.getArgument().getKind() == TemplateArgument::Expression)
      if (const Expr *e = arg.getSourceExpression(); e && spelledAs(e, names, ctx, found))
        return e;
  return nullptr;
}

const FunctionDecl *enclosingFunctionOfLambda(const FunctionDecl *fn) {
  const auto *method = dyn_cast_or_null<CXXMethodDecl>(fn);
  if (!method || !method->getParent()->isLambda())
    return nullptr;
  return dyn_cast_or_null<FunctionDecl>(method->getParent()->getDeclContext());
}

std::string inFunctionText(const FunctionDecl *fn) {
  if (!fn)
    return "";
  std::string prefix;
  // A lambda's operator() is named after the function around it (lambdas nest).
  for (int depth = 0; depth < 8; ++depth) {
    const auto *method = dyn_cast<CXXMethodDecl>(fn);
    if (!method || !method->getParent()->isLambda())
      break;
    prefix += " a lambda in";
    const FunctionDecl *outer = enclosingFunctionOfLambda(fn);
    if (!outer)
      return " in" + prefix.substr(0, prefix.size() - 3);
    fn = outer;
  }
  return " in" + prefix + " " + fn->getNameAsString() + "()";
}

CharSourceRange statementRange(const Stmt *stmt, const ASTContext &ctx) {
  const SourceManager &sm = ctx.getSourceManager();
  const LangOptions &lang = ctx.getLangOpts();
  SourceLocation begin = stmt->getBeginLoc();
  SourceLocation end = stmt->getEndLoc();
  // A statement that ends in a macro's last token (`return false;`, `return -errno;`) ends where
  // the macro is written; one that ends inside a macro's body cannot be edited.
  if (end.isMacroID() && !Lexer::isAtEndOfMacroExpansion(end, sm, lang, &end))
    return {};
  if (begin.isMacroID() || end.isMacroID())
    return {};
  SourceLocation afterEnd = Lexer::getLocForEndOfToken(end, 0, sm, lang);
  // An expression statement ends before its ';'.
  std::optional<Token> next = Lexer::findNextToken(end, sm, lang);
  if (next && next->is(tok::semi) && !isa<CompoundStmt>(stmt))
    afterEnd = next->getEndLoc();
  return CharSourceRange::getCharRange(begin, afterEnd);
}

CharSourceRange wholeLines(CharSourceRange range, const ASTContext &ctx) {
  const SourceManager &sm = ctx.getSourceManager();
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

std::string indentationAt(SourceLocation loc, const ASTContext &ctx) {
  const SourceManager &sm = ctx.getSourceManager();
  auto [file, offset] = sm.getDecomposedLoc(sm.getExpansionLoc(loc));
  llvm::StringRef buffer = sm.getBufferData(file);
  size_t lineStart = buffer.rfind('\n', offset == 0 ? 0 : offset - 1);
  lineStart = lineStart == llvm::StringRef::npos ? 0 : lineStart + 1;
  if (offset == 0)
    lineStart = 0;
  size_t end = lineStart;
  while (end < buffer.size() && (buffer[end] == ' ' || buffer[end] == '\t'))
    ++end;
  return buffer.slice(lineStart, end).str();
}

} // namespace afunix::analysis
