#include "Extract.h"

#include "AstUtil.h"
#include "Digest.h"
#include "MoveSafety.h"

#include "afunix/KernelConstants.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Analysis/Analyses/Dominators.h"
#include "clang/Analysis/CFG.h"
#include "clang/Basic/FileManager.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Index/USRGeneration.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <deque>
#include <functional>
#include <set>

namespace afunix::analysis {

using namespace clang;
using facts::Id;
using facts::kNone;

namespace {

using kernel::kSockTypeMask;

// Standard functions that construct their template argument (or the container's element) from
// the arguments they forward.
bool constructsForwarded(llvm::StringRef name) {
  return llvm::StringSwitch<bool>(name)
      .Cases("make_unique", "make_shared", "allocate_shared", "make_optional", true)
      .Cases("emplace", "emplace_back", "emplace_front", "emplace_hint", "try_emplace", true)
      .Case("construct_at", true)
      .Default(false);
}

bool isStdMove(const FunctionDecl *fn) {
  if (!fn->isInStdNamespace() || !fn->getIdentifier())
    return false;
  llvm::StringRef name = fn->getName();
  return name == "move" || name == "forward" || name == "as_const";
}

bool isSocketCallName(llvm::StringRef name) {
  return llvm::StringSwitch<bool>(name)
      .Cases("socket", "socketpair", "accept", "accept4", "paccept", true)
      .Cases("bind", "listen", "connect", "setsockopt", true)
      .Cases("recvmsg", "sendmsg", "recv", "recvfrom", "recvmmsg", true)
      .Case("android_get_control_socket", true)
      .Default(false);
}

bool isLoop(const Stmt *s) {
  return isa<ForStmt>(s) || isa<WhileStmt>(s) || isa<DoStmt>(s) || isa<CXXForRangeStmt>(s);
}

std::string recordName(const RecordDecl *record) {
  if (!record)
    return "<record>";
  if (!record->getName().empty())
    return record->getQualifiedNameAsString();
  if (const TypedefNameDecl *alias = record->getTypedefNameForAnonDecl())
    return alias->getQualifiedNameAsString();
  // A member of an anonymous struct/union is a member of the enclosing record.
  if (const auto *parent = dyn_cast<RecordDecl>(record->getDeclContext()))
    return recordName(parent);
  return "<anonymous>";
}

// Whether an `if`/switch/?: condition tests the socket's family.
bool conditionTestsFamily(const Stmt *cond, ASTContext &ctx) {
  if (!cond)
    return false;
  static const llvm::StringRef names[] = {"AF_UNIX",    "AF_LOCAL",     "PF_UNIX", "PF_LOCAL",
                                          "AF_NETLINK", "AF_BLUETOOTH", "SO_DOMAIN"};
  if (const auto *expr = dyn_cast<Expr>(cond))
    if (spelledAs(expr, names, ctx))
      return true;
  for (const Stmt *child : cond->children())
    if (conditionTestsFamily(child, ctx))
      return true;
  return false;
}

bool isPlainSocketExpr(const Expr *expr) {
  expr = expr->IgnoreParenImpCasts();
  if (isa<DeclRefExpr>(expr))
    return true;
  if (const auto *member = dyn_cast<MemberExpr>(expr))
    return isa<CXXThisExpr>(member->getBase()->IgnoreParenImpCasts()) ||
           isPlainSocketExpr(member->getBase());
  if (const auto *subscript = dyn_cast<ArraySubscriptExpr>(expr))
    return isa<IntegerLiteral>(subscript->getIdx()->IgnoreParenImpCasts()) &&
           isPlainSocketExpr(subscript->getBase());
  return false;
}

// `f` or `&f` as an argument: the reference to the function.
const DeclRefExpr *functionRefExpr(const Expr *expr) {
  if (!expr)
    return nullptr;
  expr = expr->IgnoreParenCasts();
  if (const auto *address = dyn_cast<UnaryOperator>(expr); address && address->getOpcode() == UO_AddrOf)
    expr = address->getSubExpr()->IgnoreParenCasts();
  if (const auto *ref = dyn_cast<DeclRefExpr>(expr); ref && isa<FunctionDecl>(ref->getDecl()))
    return ref;
  return nullptr;
}

// A lambda as an argument (also wrapped into a std::function on the way): its call operator.
const CXXMethodDecl *lambdaOperator(const Expr *expr) {
  for (int depth = 0; expr && depth < 6; ++depth) {
    expr = expr->IgnoreParenImpCasts();
    if (const auto *lambda = dyn_cast<LambdaExpr>(expr)) {
      const CXXMethodDecl *op = lambda->getCallOperator();
      return op && !op->isDependentContext() ? op : nullptr;
    }
    if (const auto *cleanups = dyn_cast<ExprWithCleanups>(expr))
      expr = cleanups->getSubExpr();
    else if (const auto *temporary = dyn_cast<MaterializeTemporaryExpr>(expr))
      expr = temporary->getSubExpr();
    else if (const auto *bind = dyn_cast<CXXBindTemporaryExpr>(expr))
      expr = bind->getSubExpr();
    else if (const auto *construct = dyn_cast<CXXConstructExpr>(expr); construct && construct->getNumArgs() >= 1)
      expr = construct->getArg(0); // std::function<void(int)>(lambda)
    else if (const auto *cast = dyn_cast<CXXFunctionalCastExpr>(expr))
      expr = cast->getSubExpr();
    else
      return nullptr;
  }
  return nullptr;
}

// A registration that hands the fd to the callback's first fd parameter.
constexpr int kFirstFdParam = -2;

const FunctionDecl *functionRef(const Expr *expr) {
  const DeclRefExpr *ref = functionRefExpr(expr);
  return ref ? cast<FunctionDecl>(ref->getDecl()) : nullptr;
}

// The functions named in a struct's initializer (a table of callbacks passed as &ops or ops).
void functionsInInitializer(const Expr *expr, llvm::SmallVectorImpl<const DeclRefExpr *> &out,
                            int depth = 0) {
  if (!expr || depth > 3)
    return;
  if (const DeclRefExpr *ref = functionRefExpr(expr)) {
    out.push_back(ref);
    return;
  }
  if (const auto *list = dyn_cast<InitListExpr>(expr->IgnoreParenImpCasts()))
    for (const Expr *init : list->inits())
      functionsInInitializer(init, out, depth + 1);
}

// How a socket-activation fd is asked for (facts::Create::handover): the n-th, or any.
std::string listenFdHandover(std::optional<std::int64_t> fd) {
  if (!fd)
    return "listen-fd:*";
  return *fd >= kernel::kListenFdsStart ? "listen-fd:" + std::to_string(*fd - kernel::kListenFdsStart) : "";
}

class Extractor : public RecursiveASTVisitor<Extractor> {
  using Base = RecursiveASTVisitor<Extractor>;

public:
  Extractor(ASTContext &ctx, const ProjectOptions &options)
      : Ctx(ctx), SM(ctx.getSourceManager()), Lang(ctx.getLangOpts()), Options(options) {}

  facts::Unit run() {
    if (OptionalFileEntryRef main = SM.getFileEntryRefForID(SM.getMainFileID()))
      U.mainFile = normalisedPath(main->getName());
    Scopes.emplace_back(); // file scope
    TraverseAST(Ctx);
    finishScope(Scopes.back());
    Scopes.clear();
    finishUnit();
    return std::move(U);
  }

  bool shouldVisitTemplateInstantiations() const { return true; }
  bool shouldWalkTypesOfTypeLocs() const { return false; }

  bool TraverseDecl(Decl *decl) {
    if (!decl)
      return true;
    if (declaredInSystemHeader(decl, SM))
      return true;
    const auto *fn = dyn_cast<FunctionDecl>(decl);
    // Templates are analysed as instantiated, where types and constants are known.
    if (fn && fn->isDependentContext())
      return true;
    if (!fn || !fn->doesThisDeclarationHaveABody())
      return Base::TraverseDecl(decl);
    enterFunction(fn);
    bool ok = Base::TraverseDecl(decl);
    exitFunction();
    return ok;
  }

  bool TraverseLambdaExpr(LambdaExpr *lambda) {
    for (const LambdaCapture &capture : lambda->captures())
      if (capture.capturesVariable())
        if (const auto *var = dyn_cast<VarDecl>(capture.getCapturedVar()))
          Scopes.back().unsafe.insert(var); // used in another function: no reaching definitions
    const CXXMethodDecl *op = lambda->getCallOperator();
    if (!op || op->isDependentContext())
      return true;
    enterFunction(op);
    bool ok = Base::TraverseLambdaExpr(lambda);
    exitFunction();
    return ok;
  }

  bool dataTraverseStmtPre(Stmt *stmt) {
    Stack.push_back(stmt);
    if (isLoop(stmt))
      Loops.push_back({stmt, kNone, Scopes.size()});
    return true;
  }
  bool dataTraverseStmtPost(Stmt *stmt) {
    if (!Loops.empty() && Loops.back().stmt == stmt)
      Loops.pop_back();
    if (!Stack.empty())
      Stack.pop_back();
    return true;
  }

  bool TraverseConstructorInitializer(CXXCtorInitializer *init) {
    if (init && init->getInit()) {
      // A member or base built in place (sock_(path), Base(fd)): its constructor's `this` is the
      // member of this object, or this object itself.
      if (const auto *construct = dyn_cast_or_null<CXXConstructExpr>(stripValue(init->getInit())))
        if (std::optional<Id> self = thisPlace()) {
          if (init->isMemberInitializer())
            ConstructStorage[construct] = memberPlace(derefPlace(*self), init->getMember());
          else if (init->isBaseInitializer() || init->isDelegatingInitializer())
            ConstructStorage[construct] = derefPlace(*self);
        }
      if (init->isMemberInitializer() && (followed(init->getMember()->getType()) ||
                                          isObjectType(init->getMember()->getType())))
        defer(Event::CtorInit, init);
    }
    return Base::TraverseConstructorInitializer(init);
  }

  bool VisitCallExpr(CallExpr *call);
  bool VisitCXXConstructExpr(CXXConstructExpr *construct);
  bool VisitBinaryOperator(BinaryOperator *op);
  bool VisitUnaryOperator(UnaryOperator *op);
  bool VisitVarDecl(VarDecl *var);
  bool VisitReturnStmt(ReturnStmt *ret);
  bool VisitCaseStmt(CaseStmt *caseStmt);
  bool VisitExplicitCastExpr(ExplicitCastExpr *cast);
  bool VisitDeclRefExpr(DeclRefExpr *ref);
  bool VisitIntegerLiteral(IntegerLiteral *literal);
  bool VisitUnaryExprOrTypeTraitExpr(UnaryExprOrTypeTraitExpr *expr);

private:
  // What the walk defers until the function's CFG is known (places of reassigned locals depend
  // on it).
  struct Event {
    enum Kind : std::uint8_t { Call, Construct, Assign, VarInit, Return, CtorInit, Table } kind;
    const void *node;
    Id loop;
    Id statement;
    bool guarded;
  };
  struct Scope {
    const FunctionDecl *fn = nullptr;
    std::size_t stackBase = 0;
    std::size_t loopBase = 0;
    std::vector<Event> events;
    bool socketCalls = false;
    llvm::DenseSet<const VarDecl *> unsafe; // address taken, bound to a reference, captured
    llvm::DenseMap<const VarDecl *, unsigned> definitions;
    llvm::DenseSet<const VarDecl *> cmsgDataPointers;
    // `if` statements that test for an SCM_CREDENTIALS cmsg: true when the test is "present".
    std::vector<std::pair<const IfStmt *, bool>> credentialTests;
    const SwitchStmt *credentialSwitch = nullptr;
    // sd_listen_fds_with_names() is called: the strings compared here name the fds it takes.
    bool listenFdNames = false;
    std::vector<std::string> comparedStrings;
    // fd assignments in the branch of an `if` that compares with a string constant
    // (if (streq(names[i], "varlink")) varlink_fd = fd;): the fd of that name.
    llvm::DenseMap<const BinaryOperator *, std::string> namedAssignments;
  };
  struct OpenLoop {
    const Stmt *stmt;
    Id id;
    std::size_t scope; // Scopes.size() when it was entered
  };
  // Reaching definitions of the reassigned locals of one function.
  struct Definition {
    const VarDecl *var;
    unsigned block;
    int element; // -1: on entry (a parameter's value)
    Id place;
  };
  struct FlowSensitivity {
    std::unique_ptr<CFG> cfg;
    llvm::DenseMap<const Stmt *, std::pair<unsigned, unsigned>> positions;
    std::vector<Definition> defs;
    llvm::DenseMap<const VarDecl *, llvm::SmallVector<unsigned, 4>> defsOf;
    // A variable's definitions inside one block, in element order (entry values excluded).
    llvm::DenseMap<std::pair<const VarDecl *, unsigned>, llvm::SmallVector<unsigned, 2>> defsInBlock;
    llvm::DenseMap<const Stmt *, unsigned> defAt;      // assignment or DeclStmt -> definition
    llvm::DenseMap<const VarDecl *, unsigned> initDef; // initialised declaration -> definition
    std::vector<llvm::BitVector> in;                   // per block
    llvm::DenseMap<const DeclRefExpr *, Id> uses;      // memoised
    // Every definition of a followed variable, for a use the CFG does not position.
    llvm::DenseMap<const VarDecl *, Id> anyDefinition;
  };

  // --- scopes ------------------------------------------------------------------------------
  void enterFunction(const FunctionDecl *fn) {
    Scope scope;
    scope.fn = fn;
    scope.stackBase = Stack.size();
    scope.loopBase = Loops.size();
    Scopes.push_back(std::move(scope));
  }
  void exitFunction() {
    Scope scope = std::move(Scopes.back());
    Scopes.pop_back();
    finishScope(scope);
  }
  Scope &scope() { return Scopes.back(); }
  // While a scope's events are processed (Current) its function, else the one being walked.
  const FunctionDecl *currentFunction() const {
    return Current ? Current->fn : Scopes.empty() ? nullptr : Scopes.back().fn;
  }

  Id currentLoop() {
    if (Loops.empty() || Loops.back().scope != Scopes.size())
      return kNone;
    return loopId(Loops.size() - 1);
  }
  Id loopId(std::size_t index) {
    OpenLoop &open = Loops[index];
    if (open.id != kNone)
      return open.id;
    facts::Loop loop;
    loop.function = functionId(currentFunction());
    if (index > 0 && Loops[index - 1].scope == open.scope)
      loop.parent = loopId(index - 1);
    loop.site = makeSite(open.stmt, nullptr, kNone, /*positioned=*/false);
    const Expr *cond = nullptr;
    if (const auto *d = dyn_cast<DoStmt>(open.stmt)) {
      cond = d->getCond();
      // `do { ... } while (0)` (statement macros) runs once.
      if (std::optional<std::int64_t> value = evalInt(cond, Ctx); value && *value == 0)
        loop.trips = 1;
    } else if (const auto *w = dyn_cast<WhileStmt>(open.stmt)) {
      cond = w->getCond();
    } else if (const auto *f = dyn_cast<ForStmt>(open.stmt)) {
      cond = f->getCond();
      if (const auto *test = dyn_cast_or_null<BinaryOperator>(cond ? cond->IgnoreParenImpCasts() : nullptr))
        if (std::optional<std::int64_t> limit = evalInt(test->getRHS(), Ctx)) {
          if (test->getOpcode() == BO_LT || test->getOpcode() == BO_NE)
            loop.trips = *limit;
          else if (test->getOpcode() == BO_LE)
            loop.trips = *limit + 1;
        }
    }
    loop.errnoRetry = readsErrno(cond);
    loop.controlOnce = clearsControlForGood(open.stmt);
    open.id = U.loops.size();
    U.loops.push_back(loop);
    return open.id;
  }

  // Whether a loop's body sets some msghdr's msg_control to NULL or msg_controllen to 0 (systemd's
  // "send fds and ucred once, even if we're using SOCK_STREAM") and never points msg_control at a
  // buffer again: whatever the loop repeats, the control data goes with its first turn only.
  bool clearsControlForGood(const Stmt *loop) {
    bool clears = false, setsAgain = false;
    llvm::SmallVector<const Stmt *, 32> work{loop};
    while (!work.empty()) {
      const Stmt *st = work.pop_back_val();
      if (!st)
        continue;
      if (const auto *op = dyn_cast<BinaryOperator>(st); op && op->getOpcode() == BO_Assign)
        if (const auto *member = dyn_cast<MemberExpr>(op->getLHS()->IgnoreParenImpCasts());
            member && member->getMemberDecl()->getIdentifier()) {
          llvm::StringRef field = member->getMemberDecl()->getName();
          if (field == "msg_control" || field == "msg_controllen") {
            const Expr *value = op->getRHS()->IgnoreParenCasts();
            std::optional<std::int64_t> number = evalInt(value, Ctx);
            bool none = (number && *number == 0) ||
                        value->isNullPointerConstant(Ctx, Expr::NPC_ValueDependentIsNotNull);
            if (none)
              clears = true;
            else if (field == "msg_control")
              setsAgain = true;
          }
        }
      for (const Stmt *child : st->children())
        work.push_back(child);
    }
    return clears && !setsAgain;
  }

  // The parameter of the current function that `bytes` counts ints of: `sizeof(int) * n`,
  // `n * sizeof(int)` or `sizeof(*fds) * n`; -1 otherwise.
  int countParameter(const Expr *bytes) {
    const auto *product = dyn_cast<BinaryOperator>(bytes->IgnoreParenImpCasts());
    if (!product || product->getOpcode() != BO_Mul)
      return -1;
    const Expr *sides[] = {product->getLHS()->IgnoreParenImpCasts(), product->getRHS()->IgnoreParenImpCasts()};
    for (int i = 0; i < 2; ++i) {
      std::optional<std::int64_t> size = evalInt(sides[i], Ctx);
      if (!size || *size != 4 || !isa<UnaryExprOrTypeTraitExpr>(sides[i]))
        continue;
      if (const auto *ref = dyn_cast<DeclRefExpr>(sides[1 - i]))
        if (const auto *param = dyn_cast<ParmVarDecl>(ref->getDecl());
            param && Current && Current->fn && param->getDeclContext() == Current->fn)
          return static_cast<int>(param->getFunctionScopeIndex());
    }
    return -1;
  }

  void defer(Event::Kind kind, const void *node, Id statement = kNone, bool guarded = false) {
    Scopes.back().events.push_back({kind, node, currentLoop(), statement, guarded});
  }

  // --- tables --------------------------------------------------------------------------------
  std::string normalisedPath(llvm::StringRef name) {
    llvm::SmallString<256> path(name);
    SM.getFileManager().makeAbsolutePath(path);
    llvm::sys::path::remove_dots(path, /*remove_dot_dot=*/true);
    return std::string(path);
  }

  Id fileId(FileID fid) {
    auto it = FileIds.find(fid);
    if (it != FileIds.end())
      return it->second;
    Id id = kNone;
    if (OptionalFileEntryRef entry = SM.getFileEntryRefForID(fid)) {
      std::string path = normalisedPath(entry->getName());
      auto found = FileByPath.find(path);
      if (found != FileByPath.end()) {
        id = found->second;
      } else {
        id = U.files.size();
        U.files.push_back(path);
        U.digests.push_back(contentDigest(SM.getBufferData(fid)));
        FileByPath[path] = id;
      }
    }
    FileIds[fid] = id;
    return id;
  }

  const FunctionDecl *keyDecl(const FunctionDecl *fn) {
    if (const FunctionDecl *pattern = fn->getTemplateInstantiationPattern())
      fn = pattern;
    return fn->getCanonicalDecl();
  }

  std::string functionKey(const FunctionDecl *fn) {
    const FunctionDecl *decl = keyDecl(fn);
    llvm::SmallString<128> usr;
    if (!index::generateUSRForDecl(decl, usr))
      return std::string(usr);
    SourceLocation at = SM.getExpansionLoc(decl->getLocation());
    return "fn:" + decl->getQualifiedNameAsString() + "@" + normalisedPath(SM.getFilename(at)) +
           ":" + std::to_string(SM.getFileOffset(at));
  }

  Id functionId(const FunctionDecl *fn) {
    if (!fn)
      return kNone;
    const FunctionDecl *decl = keyDecl(fn);
    auto it = FunctionIds.find(decl);
    if (it != FunctionIds.end()) {
      if (writtenWithBody(fn))
        markDefined(it->second, fn);
      return it->second;
    }
    Id id = U.functions.size();
    FunctionIds[decl] = id;
    facts::Function info;
    info.key = functionKey(fn);
    if (isa<CXXMethodDecl>(decl) && cast<CXXMethodDecl>(decl)->getParent()->isLambda())
      info.name = "lambda";
    else
      info.name = decl->getQualifiedNameAsString();
    info.system = declaredInSystemHeader(decl, SM);
    info.params = fn->getNumParams();
    for (unsigned i = 0; i < fn->getNumParams(); ++i)
      if (holdsFd(fn->getParamDecl(i)->getType()))
        info.paramIsInt.push_back(i);
    U.functions.push_back(std::move(info));
    if (const auto *method = dyn_cast<CXXMethodDecl>(decl); method && method->isVirtual()) {
      llvm::SmallVector<const CXXMethodDecl *, 4> work(method->overridden_methods());
      llvm::SmallPtrSet<const CXXMethodDecl *, 4> seen;
      while (!work.empty()) {
        const CXXMethodDecl *base = work.pop_back_val();
        if (!seen.insert(base).second)
          continue;
        Id baseId = functionId(base);
        U.functions[id].overrides.push_back(baseId);
        work.append(base->overridden_methods().begin(), base->overridden_methods().end());
      }
    }
    if (writtenWithBody(fn))
      markDefined(id, fn);
    return id;
  }
  // A definition as written: a body the parser skipped (afunix-check skips the bodies of system
  // headers' functions, engine/Extraction.cpp) still makes one, so the facts do not depend on it.
  static bool writtenWithBody(const FunctionDecl *fn) {
    return fn->doesThisDeclarationHaveABody() || fn->hasSkippedBody();
  }
  void markDefined(Id id, const FunctionDecl *fn) {
    facts::Function &info = U.functions[id];
    if (info.defined)
      return;
    info.defined = true;
    info.file = fileId(SM.getFileID(SM.getExpansionLoc(fn->getLocation())));
  }

  Id intern(const std::string &key, facts::PlaceKind kind, const std::string &name,
            Id function = kNone, int index = -1, Id base = kNone) {
    auto it = PlaceIds.find(key);
    if (it != PlaceIds.end())
      return it->second;
    Id id = U.places.size();
    U.places.push_back({key, kind, name, function, index, base});
    PlaceIds[key] = id;
    return id;
  }

  std::uint32_t offsetOf(SourceLocation loc) { return SM.getFileOffset(SM.getExpansionLoc(loc)); }

  Id makeSite(const Stmt *node, const Expr *socketArg, Id loop, bool positioned = true) {
    facts::Site site;
    SourceLocation begin = SM.getExpansionLoc(node->getBeginLoc());
    site.file = fileId(SM.getFileID(begin));
    site.offset = SM.getFileOffset(begin);
    site.line = SM.getExpansionLineNumber(begin);
    site.column = SM.getExpansionColumnNumber(begin);
    SourceLocation end = SM.getExpansionRange(node->getEndLoc()).getEnd();
    if (end.isValid()) {
      SourceLocation after = Lexer::getLocForEndOfToken(end, 0, SM, Lang);
      if (after.isValid() && SM.getFileID(after) == SM.getFileID(begin) &&
          SM.getExpansionLineNumber(after) == site.line && SM.getFileOffset(after) > site.offset)
        site.length = SM.getFileOffset(after) - site.offset;
    }
    site.function = functionId(currentFunction());
    site.loop = loop;
    if (positioned && Flow)
      if (auto it = Flow->positions.find(node); it != Flow->positions.end()) {
        site.block = it->second.first;
        site.element = it->second.second;
      }
    if (socketArg) {
      site.text = sourceText(socketArg, Ctx);
      site.var = variableKey(socketArg);
    }
    U.sites.push_back(std::move(site));
    return U.sites.size() - 1;
  }

  // --- fd owners (RAII) ------------------------------------------------------------------------
  bool isFdOwner(const CXXRecordDecl *record) {
    if (!record || !record->hasDefinition())
      return false;
    record = record->getDefinition();
    auto it = Owners.find(record);
    if (it != Owners.end())
      return it->second;
    bool owner = false;
    std::string qualified = record->getQualifiedNameAsString();
    for (const std::string &name : Options.fdOwnerClasses)
      if (name == qualified || name == record->getNameAsString())
        owner = true;
    if (!owner) {
      // By shape: one int it owns, a constructor that takes it, a way to read it back, and a
      // destructor (that closes it).
      unsigned fdFields = 0, otherFields = 0;
      for (const FieldDecl *field : record->fields())
        (isFdValueType(field->getType(), Ctx) ? fdFields : otherFields)++;
      bool takesFd = false, readsBack = false;
      for (const CXXConstructorDecl *ctor : record->ctors())
        if (ctor->getNumParams() == 1 && isFdValueType(ctor->getParamDecl(0)->getType(), Ctx))
          takesFd = true;
      for (const CXXMethodDecl *method : record->methods()) {
        if (isa<CXXConversionDecl>(method) && isFdValueType(method->getReturnType(), Ctx))
          readsBack = true;
        if (method->getIdentifier() && method->getNumParams() == 0 &&
            isFdValueType(method->getReturnType(), Ctx) &&
            llvm::StringSwitch<bool>(method->getName())
                .Cases("get", "fd", "release", "native_handle", "value", true)
                .Default(false))
          readsBack = true;
      }
      // A class that does more with its fd than own it (BindTo(), Listen(), ReceiveUid()) is an
      // object: its methods are analysed with `this`.
      bool onlyOwns = true;
      for (const CXXMethodDecl *method : record->methods())
        if (method->isUserProvided() && !isa<CXXConstructorDecl>(method) && !isa<CXXDestructorDecl>(method) &&
            !isa<CXXConversionDecl>(method) && !method->isOverloadedOperator() && method->getIdentifier() &&
            !llvm::StringSwitch<bool>(method->getName())
                 .Cases("get", "fd", "release", "reset", "native_handle", "value", "swap", true)
                 .Cases("ok", "valid", "is_valid", "close", "Get", "Release", "Reset", "Close", true)
                 .Cases("IsValid", "is_open", "empty", true)
                 .Default(false))
          onlyOwns = false;
      owner = fdFields == 1 && otherFields <= 1 && takesFd && readsBack &&
              record->hasUserDeclaredDestructor() && onlyOwns;
    }
    Owners[record] = owner;
    return owner;
  }
  bool isFdOwnerType(QualType type) {
    type = type.getNonReferenceType();
    return isFdOwner(type->getAsCXXRecordDecl());
  }
  // A value that can be an fd: an integer or an fd owner.
  bool holdsFd(QualType type) { return isFdValueType(type, Ctx) || isFdOwnerType(type); }

  // A struct (through a pointer or a reference) with an fd among its fields: a daemon's state
  // passed from call to call.
  bool holdsFdField(QualType type) {
    type = type.getNonReferenceType();
    if (const auto *pointer = type->getAs<PointerType>())
      type = pointer->getPointeeType();
    const RecordDecl *record = type->getAsRecordDecl();
    if (!record || !record->getDefinition())
      return false;
    record = record->getDefinition();
    auto [it, fresh] = FdFieldRecords.try_emplace(record, false);
    if (fresh)
      for (const FieldDecl *field : record->fields())
        if (holdsFd(field->getType()))
          it->second = true;
    return it->second;
  }
  // A call that passes or returns something that can hold a socket.
  bool relevantCall(const CallExpr *call, const FunctionDecl *callee) {
    if (holdsFd(callee->getReturnType()))
      return true;
    for (const Expr *arg : call->arguments())
      if (holdsFd(arg->getType()) || holdsFdField(arg->getType()))
        return true;
    if (const auto *member = dyn_cast<CXXMemberCallExpr>(call))
      if (const Expr *object = member->getImplicitObjectArgument())
        return holdsFdField(object->getType());
    return false;
  }

  // --- places --------------------------------------------------------------------------------
  // A field is one place in every unit that sees its record: keyed by the record's name. A record
  // defined in a source file (an opaque struct udev_monitor in each of two libraries) is that
  // file's own, so its key names the file.
  std::string fieldKey(const FieldDecl *field) {
    const RecordDecl *record = field->getParent();
    std::string scope;
    if (const RecordDecl *definition = record->getDefinition()) {
      SourceLocation at = SM.getExpansionLoc(definition->getLocation());
      if (at.isValid() && SM.getFileID(at) == SM.getMainFileID())
        scope = U.mainFile + ":";
    }
    return "f:" + scope + recordName(record) + "::" + field->getNameAsString();
  }

  std::string localKey(const VarDecl *var) {
    const auto *owner = dyn_cast_or_null<FunctionDecl>(var->getParentFunctionOrMethod());
    std::string fn = owner ? functionKey(owner) : "<block>";
    return "l:" + fn + ":" + var->getNameAsString() + "@" +
           std::to_string(offsetOf(var->getLocation()));
  }

  Id paramPlace(const FunctionDecl *fn, unsigned index) {
    Id function = functionId(fn);
    const FunctionDecl *named = fn->getDefinition() ? fn->getDefinition() : fn;
    std::string name = index < named->getNumParams() && !named->getParamDecl(index)->getName().empty()
                           ? named->getParamDecl(index)->getNameAsString()
                           : "parameter " + std::to_string(index + 1);
    return intern("p:" + U.functions[function].key + "#" + std::to_string(index),
                  facts::PlaceKind::Param, name, function, static_cast<int>(index));
  }

  Id returnPlace(const FunctionDecl *fn) {
    Id function = functionId(fn);
    return intern("r:" + U.functions[function].key, facts::PlaceKind::Return,
                  fn->getNameAsString() + "()", function);
  }

  // A write through a pointer parameter (p[0] = fd, *p = fd, socketpair(..., p)) lands in the
  // element's out place: what the callee hands back to its callers, kept apart from what each
  // caller hands in (or every caller of safe_close_pair(int p[2]) would get every other's
  // sockets). Reads in the callee see both.
  Id writeTarget(Id place) {
    const facts::Place &p = U.places[place];
    if (p.kind != facts::PlaceKind::Element || p.base == kNone ||
        U.places[p.base].kind != facts::PlaceKind::Param)
      return place;
    std::string key = facts::outKey(p.key);
    bool fresh = PlaceIds.find(key) == PlaceIds.end();
    facts::Place copy = p;
    Id out = intern(key, facts::PlaceKind::Element, copy.name, copy.function, copy.index, copy.base);
    if (fresh)
      addFlow(out, place, facts::FlowKind::Assign);
    return out;
  }

  Id fieldPlace(const FieldDecl *field) {
    return intern(fieldKey(field), facts::PlaceKind::Field,
                  recordName(field->getParent()) + "::" + field->getNameAsString());
  }

  // struct chmsg ch = {1, sv[0]}, {.fd = sv[0]}, {.ends = {a, b}}, ops = {.dispatch = f}: stores
  // into the object's fields, as ch.fd = sv[0] is.
  void initFields(const InitListExpr *list, Id object, int depth = 0) {
    const RecordDecl *record = list->getType()->getAsRecordDecl();
    if (!record || record->isUnion() || depth > 3)
      return; // a union's one initialiser may be any member: no store is known
    for (const FieldDecl *field : record->fields()) {
      unsigned index = field->getFieldIndex();
      if (index >= list->getNumInits())
        break;
      const Expr *value = list->getInit(index)->IgnoreImplicit();
      if (isa<ImplicitValueInitExpr>(value))
        continue;
      QualType type = field->getType();
      Id member = memberPlace(object, field);
      if (const auto *nested = dyn_cast<InitListExpr>(value)) {
        if (type->isRecordType())
          initFields(nested, member, depth + 1);
        else if (const ArrayType *array = type->getAsArrayTypeUnsafe(); array && followed(array->getElementType()))
          for (unsigned i = 0; i < nested->getNumInits(); ++i)
            flowInto(nested->getInit(i), element(member, static_cast<int>(i)), facts::FlowKind::Init);
      } else if (followed(type)) {
        flowInto(value, member, facts::FlowKind::Init);
      } else if (isObjectType(type)) {
        if (std::optional<Id> from = placeOf(value))
          copyObject(*from, member, type, facts::FlowKind::Init);
      }
    }
  }

  Id element(Id base, int index) {
    const facts::Place &b = U.places[base];
    std::string suffix = index < 0 ? "[*]" : "[" + std::to_string(index) + "]";
    return intern(b.key + suffix, facts::PlaceKind::Element, b.name + suffix, b.function, index, base);
  }

  // --- objects (docs/facts-format.md, "Objects") ---------------------------------------------
  // A struct or class value is an object: its fields are places of its own. An fd owner
  // (unique_fd) stays what it was, an fd value.
  bool isObjectType(QualType type) {
    type = type.getNonReferenceType().getCanonicalType();
    return type->isRecordType() && !isFdOwnerType(type);
  }
  // A value that is the address of objects or functions: a pointer to a struct, to a pointer, to
  // void (callbacks' user data), to a function; a reference to an object.
  bool carriesAddress(QualType type) {
    if (type.isNull())
      return false;
    if (type->isReferenceType())
      return isObjectType(type.getNonReferenceType());
    type = type.getCanonicalType();
    if (type->isFunctionPointerType() || type->isMemberFunctionPointerType())
      return true;
    const auto *pointer = type->getAs<PointerType>();
    if (!pointer)
      return false;
    QualType pointee = pointer->getPointeeType().getCanonicalType();
    return pointee->isVoidType() || pointee->isPointerType() || isObjectType(pointee);
  }
  // What the analysis follows from place to place: fds, addresses, and (field by field) objects.
  bool followed(QualType type) { return holdsFd(type) || carriesAddress(type); }

  Id derefPlace(Id pointer) {
    const facts::Place &p = U.places[pointer];
    return intern("*" + p.key, facts::PlaceKind::Deref, "*" + p.name, p.function, -1, pointer);
  }
  // The field `name` of the object place `object`; `field` is the place of that field in every
  // object of its record (kNone for a member that is not a record field).
  Id memberPlace(Id object, llvm::StringRef name, Id field) {
    const facts::Place &o = U.places[object];
    std::string display = o.kind == facts::PlaceKind::Deref ? U.places[o.base].name + "->" + name.str()
                                                             : o.name + "." + name.str();
    Id id = intern(o.key + "." + name.str(), facts::PlaceKind::Member, display, o.function, -1, object);
    U.places[id].field = field;
    return id;
  }
  Id memberPlace(Id object, const FieldDecl *field) {
    return memberPlace(object, field->getName(), fieldPlace(field));
  }
  // A place holding the address of `object` (&conn). The address of what a pointer points to is
  // the pointer: &*p is p.
  Id addressOf(Id object) {
    const facts::Place &o = U.places[object];
    if (o.kind == facts::PlaceKind::Deref)
      return o.base;
    bool fresh = PlaceIds.find("&" + o.key) == PlaceIds.end();
    Id id = intern("&" + o.key, facts::PlaceKind::Value, "&" + o.name, o.function);
    if (fresh)
      U.points.push_back({id, object, kNone});
    return id;
  }
  // A socket constant the program hands on (an address family, a socket type), as written: the
  // place that holds it, or none for any other number.
  std::optional<Id> constantPlace(const Expr *value) {
    static const llvm::StringRef families[] = {"AF_UNIX",    "AF_LOCAL",   "PF_UNIX",      "PF_LOCAL",
                                               "AF_INET",    "PF_INET",    "AF_INET6",     "PF_INET6",
                                               "AF_NETLINK", "PF_NETLINK", "AF_BLUETOOTH", "PF_BLUETOOTH"};
    static const llvm::StringRef types[] = {"SOCK_STREAM", "SOCK_DGRAM", "SOCK_SEQPACKET", "SOCK_RAW"};
    std::optional<std::int64_t> number = evalInt(value, Ctx);
    if (!number || *number < 0 || *number >= facts::kSocketTypeConstant)
      return std::nullopt;
    int constant;
    if (spelledAs(value, families, Ctx))
      constant = static_cast<int>(*number);
    else if (spelledAs(value, types, Ctx))
      constant = facts::kSocketTypeConstant + static_cast<int>(*number & kSockTypeMask);
    else
      return std::nullopt;
    std::string key = "k:" + std::to_string(constant);
    bool fresh = PlaceIds.find(key) == PlaceIds.end();
    Id id = intern(key, facts::PlaceKind::Value, sourceText(value, Ctx));
    if (fresh)
      U.points.push_back({id, kNone, kNone, constant});
    return id;
  }
  // A place holding the address of a function (a callback handed on, a table entry).
  Id functionValue(const FunctionDecl *fn) {
    Id function = functionId(fn);
    std::string key = "&fn:" + U.functions[function].key;
    bool fresh = PlaceIds.find(key) == PlaceIds.end();
    Id id = intern(key, facts::PlaceKind::Value, U.functions[function].name);
    if (fresh)
      U.points.push_back({id, kNone, function});
    return id;
  }
  // An object made at `at` (a heap allocation, a temporary): its place, and a value that points
  // to it.
  // The object a method runs on, named by `p->` (what p points to) or by the object itself.
  std::optional<Id> objectNamedBy(const Expr *objectExpr) {
    if (!objectExpr->getType()->isPointerType())
      return placeOf(objectExpr);
    if (std::optional<Id> pointer = pointerValue(objectExpr))
      return derefPlace(*pointer);
    return std::nullopt;
  }

  // The one place that stands for the fd of every object of a holder model (as a struct field).
  Id holderPlace(const FdHolder &holder) {
    return intern("f:" + holder.name + "::<fd>", facts::PlaceKind::Field, holder.name + " fd");
  }

  // A call of a model allocator: each call is a new object. The catalog's names count only where
  // declared in a system header (a project's own `zalloc` may return anything).
  bool allocates(const FunctionDecl *callee) {
    auto it = Options.allocators.find(callee->getName());
    return it != Options.allocators.end() && (it->getValue() || declaredInSystemHeader(callee, SM));
  }

  Id newObject(const Expr *at, llvm::StringRef prefix, const std::string &name) {
    SourceLocation loc = SM.getExpansionLoc(at->getBeginLoc());
    std::string where = normalisedPath(SM.getFilename(loc)) + ":" + std::to_string(SM.getFileOffset(loc));
    Id object = intern(prefix.str() + ":" + where, facts::PlaceKind::Object, name, functionId(currentFunction()));
    return object;
  }
  // `this` of a member function; inside a lambda, the `this` it captured.
  std::optional<Id> thisPlace() {
    // The function whose events are being processed, then the ones around it being walked.
    if (Current)
      if (const auto *method = dyn_cast_or_null<CXXMethodDecl>(Current->fn);
          method && !method->isStatic() && !method->getParent()->isLambda())
        return thisPlaceOf(method);
    for (std::size_t i = Scopes.size(); i-- > 0;) {
      const auto *method = dyn_cast_or_null<CXXMethodDecl>(Scopes[i].fn);
      if (!method || method->isStatic())
        continue;
      if (method->getParent()->isLambda())
        continue;
      return thisPlaceOf(method);
    }
    return std::nullopt;
  }
  Id thisPlaceOf(const CXXMethodDecl *method) {
    Id function = functionId(method);
    U.functions[function].method = true;
    return intern("p:" + U.functions[function].key + "#this", facts::PlaceKind::Param, "this", function, -1);
  }
  // The parameter of the function being processed whose value `expr` is: the parameter itself, or
  // a local initialised from it and never assigned again (int value = on;). -1 otherwise.
  int parameterValue(const Expr *expr) {
    const FunctionDecl *fn = currentFunction();
    if (!expr || !fn)
      return -1;
    const auto *ref = dyn_cast<DeclRefExpr>(expr->IgnoreParenImpCasts());
    const auto *var = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
    if (var && !isa<ParmVarDecl>(var) && var->isLocalVarDecl() && var->getInit() &&
        Current && Current->definitions.lookup(var) <= 1)
      if (const auto *init = dyn_cast<DeclRefExpr>(var->getInit()->IgnoreParenImpCasts()))
        var = dyn_cast<VarDecl>(init->getDecl());
    const auto *param = dyn_cast_or_null<ParmVarDecl>(var);
    if (!param || param->getDeclContext() != fn)
      return -1;
    return static_cast<int>(param->getFunctionScopeIndex());
  }

  // The place holding the value of an expression of pointer (or reference) type: what it points to
  // is derefPlace() of it.
  std::optional<Id> pointerValue(const Expr *expr);
  // The object an expression of record type denotes (a variable, *p, p->member, a[i]).
  std::optional<Id> objectOf(const Expr *expr);
  // A value stored into a place: an fd or an address as it is, an object field by field (or from
  // the initialiser list that builds it: v.push_back({fd, POLLIN})).
  void storeInto(const Expr *value, Id target, facts::FlowKind kind) {
    const Expr *bare = stripValue(value);
    QualType type = value->getType();
    if (const auto *list = dyn_cast_or_null<InitListExpr>(bare); list && isObjectType(list->getType())) {
      initFields(list, target);
      return;
    }
    if (isObjectType(type) && !followed(type)) {
      if (std::optional<Id> from = placeOf(value))
        copyObject(*from, target, type, kind);
      return;
    }
    flowInto(value, target, kind);
  }
  // A whole object copied (struct conn c = *p; return conn; f(conn)): field by field.
  void copyObject(Id from, Id to, QualType type, facts::FlowKind kind, int depth = 0);
  // Where a constructor call builds its object, when the walk saw what it initialises.
  llvm::DenseMap<const CXXConstructExpr *, Id> ConstructStorage;
  Id storageOf(const CXXConstructExpr *construct);
  // The variable `pointer` names when it is a local initialised with its address and never
  // pointed elsewhere (int *p = &fd), else nullptr.
  const Expr *aliasedByLocalPointer(const Expr *pointer);
  // Library records the analysis knows the inside of by what they do, not by their fields.
  enum class ModelledRecord { Container, Callable, Transparent, SmartPointer };
  std::optional<ModelledRecord> modelledRecord(QualType type) {
    const auto *record = type.getNonReferenceType()->getAsCXXRecordDecl();
    if (!record || !record->isInStdNamespace() || !record->getIdentifier())
      return std::nullopt;
    return llvm::StringSwitch<std::optional<ModelledRecord>>(record->getName())
        .Cases("vector", "array", "deque", "list", "set", "unordered_set", "span", ModelledRecord::Container)
        .Cases("map", "unordered_map", "multimap", "initializer_list", ModelledRecord::Container)
        .Cases("function", "move_only_function", ModelledRecord::Callable)
        .Cases("optional", "reference_wrapper", ModelledRecord::Transparent)
        .Cases("unique_ptr", "shared_ptr", "weak_ptr", ModelledRecord::SmartPointer)
        // An iterator holds the address of an element, as a pointer does.
        .Cases("__normal_iterator", "_Rb_tree_iterator", "_Rb_tree_const_iterator", ModelledRecord::SmartPointer)
        .Cases("_Node_iterator", "_Node_const_iterator", "_List_iterator", "_List_const_iterator",
               ModelledRecord::SmartPointer)
        .Cases("_Deque_iterator", "reverse_iterator", "move_iterator", "__wrap_iter", ModelledRecord::SmartPointer)
        .Default(std::nullopt);
  }

  // The place a variable names, ignoring reassignments.
  std::optional<Id> plainVarPlace(const VarDecl *var) {
    if (const auto *param = dyn_cast<ParmVarDecl>(var)) {
      const auto *owner = dyn_cast_or_null<FunctionDecl>(param->getDeclContext());
      if (!owner)
        return std::nullopt;
      return paramPlace(owner, param->getFunctionScopeIndex());
    }
    if (var->isLocalVarDecl() && !var->isStaticLocal()) {
      const auto *owner = dyn_cast_or_null<FunctionDecl>(var->getParentFunctionOrMethod());
      return intern(localKey(var), facts::PlaceKind::Local, var->getNameAsString(),
                    owner ? functionId(owner) : kNone);
    }
    llvm::SmallString<128> usr;
    std::string key = index::generateUSRForDecl(var, usr)
                          ? "g:" + var->getQualifiedNameAsString()
                          : "g:" + std::string(usr);
    return intern(key, facts::PlaceKind::Global, var->getNameAsString());
  }

  std::optional<Id> varPlace(const VarDecl *var, const DeclRefExpr *use) {
    if (Flow && use)
      if (auto it = Flow->defsOf.find(var); it != Flow->defsOf.end())
        return useOf(var, use);
    return plainVarPlace(var);
  }

  // What a socket argument names, for "the same socket" comparisons and messages.
  std::string variableKey(const Expr *expr) {
    const Expr *e = stripValue(expr);
    // &conn names conn: the callee's c->fd is the caller's conn.fd.
    if (const auto *address = dyn_cast_or_null<UnaryOperator>(e); address && address->getOpcode() == UO_AddrOf)
      return variableKey(address->getSubExpr());
    if (const auto *ref = dyn_cast_or_null<DeclRefExpr>(e))
      if (const auto *var = dyn_cast<VarDecl>(ref->getDecl()))
        if (std::optional<Id> place = plainVarPlace(var))
          return U.places[*place].key;
    if (const auto *member = dyn_cast_or_null<MemberExpr>(e)) {
      if (const auto *field = dyn_cast<FieldDecl>(member->getMemberDecl())) {
        // s->fd and t->fd are different sockets when s and t are different objects.
        std::string base = isa<CXXThisExpr>(member->getBase()->IgnoreParenImpCasts())
                               ? "this"
                               : variableKey(member->getBase());
        return base.empty() ? "" : base + "." + fieldKey(field);
      }
    }
    if (const auto *subscript = dyn_cast_or_null<ArraySubscriptExpr>(e)) {
      std::optional<std::int64_t> index = evalInt(subscript->getIdx(), Ctx);
      std::string base = variableKey(subscript->getBase());
      if (!index || base.empty())
        return "";
      return base + "[" + std::to_string(*index) + "]";
    }
    if (const auto *call = dyn_cast_or_null<CXXMemberCallExpr>(e))
      if (isFdOwnerType(call->getImplicitObjectArgument()->getType()))
        return variableKey(call->getImplicitObjectArgument());
    if (const auto *construct = dyn_cast_or_null<CXXConstructExpr>(e))
      if (construct->getNumArgs() == 1 && isFdOwnerType(construct->getType()))
        return variableKey(construct->getArg(0));
    return "";
  }

  // The fd a table of callbacks is registered with: one place per table, seen by every unit.
  Id tablePlace(const VarDecl *table) {
    std::optional<Id> var = plainVarPlace(table);
    return intern(U.places[*var].key + "::<fd>", facts::PlaceKind::Global,
                  table->getNameAsString() + " (callback table)");
  }
  int firstFdParam(const FunctionDecl *fn) {
    for (unsigned i = 0; i < fn->getNumParams(); ++i)
      if (holdsFd(fn->getParamDecl(i)->getType()))
        return static_cast<int>(i);
    return -1;
  }

  // The fd member of a struct, as a chain of fields: fd of struct pollfd, data.fd of struct
  // epoll_event (through its union); empty when it has none.
  llvm::SmallVector<const FieldDecl *, 2> fdFieldPath(QualType type, int depth = 0) {
    const RecordDecl *record = type->getAsRecordDecl();
    if (!record || !record->getDefinition() || depth > 1)
      return {};
    for (const FieldDecl *field : record->getDefinition()->fields()) {
      if (holdsFd(field->getType()))
        return {field};
      if (field->getType()->isRecordType())
        if (llvm::SmallVector<const FieldDecl *, 2> inner = fdFieldPath(field->getType(), depth + 1); !inner.empty()) {
          inner.insert(inner.begin(), field);
          return inner;
        }
    }
    return {};
  }
  // A callback without an fd parameter that gets the fd in a struct (poll_cb(struct pollfd *pfd)):
  // the place of that fd, pfd->fd (the field of what the parameter points to).
  std::optional<Id> fdInStructParam(const FunctionDecl *fn) {
    for (unsigned i = 0; i < fn->getNumParams(); ++i)
      if (const auto *pointer = fn->getParamDecl(i)->getType()->getAs<PointerType>())
        if (llvm::SmallVector<const FieldDecl *, 2> path = fdFieldPath(pointer->getPointeeType()); !path.empty()) {
          Id place = derefPlace(paramPlace(fn, i));
          for (const FieldDecl *field : path)
            place = memberPlace(place, field);
          return place;
        }
    return std::nullopt;
  }

  std::optional<Id> placeOf(const Expr *expr);
  std::optional<Id> callValue(const CallExpr *call);
  Id createValue(const Expr *at, facts::Create create, const std::string &callee);
  void flowInto(const Expr *value, std::optional<Id> target, facts::FlowKind kind, bool exact = true);
  bool objectAtRunTimeIndex(const Expr *expr);
  void addFlow(Id from, Id to, facts::FlowKind kind, bool exact = true, Id site = kNone) {
    if (from == kNone || to == kNone || from == to)
      return;
    U.flows.push_back({from, to, kind, site, exact});
  }
  void untracked(Id place) { U.untracked.push_back(place); }

  // --- reaching definitions --------------------------------------------------------------------
  void buildFlowSensitivity(Scope &scope, FlowSensitivity &flow);
  Id useOf(const VarDecl *var, const DeclRefExpr *use);
  // The place an assignment writes: its own definition when the variable is followed.
  std::optional<Id> definitionTarget(const VarDecl *var, const Stmt *assignment) {
    if (Flow) {
      if (auto it = Flow->defAt.find(assignment); it != Flow->defAt.end())
        return Flow->defs[it->second].place;
      if (auto it = Flow->anyDefinition.find(var); it != Flow->anyDefinition.end())
        return it->second;
    }
    return plainVarPlace(var);
  }

  // --- processing --------------------------------------------------------------------------------
  void finishScope(Scope &scope);
  void process(const Event &event);
  void processCall(const CallExpr *call, const Event &event);
  void processOption(const CallExpr *call, const FunctionDecl *callee, const Event &event);
  void processRegistration(const CallExpr *call, const FunctionDecl *callee, const Event &event);
  void processUserCall(const Expr *call, const FunctionDecl *callee,
                       llvm::ArrayRef<const Expr *> args, const Event &event, bool forwarded = false,
                       std::optional<Id> receiverAddress = std::nullopt);
  // The object std::make_unique<T>(...) or v.emplace_back(...) builds.
  std::optional<Id> forwardedObject(const CallExpr *call, const FunctionDecl *callee);
  void processConstruct(const CXXConstructExpr *construct, const Event &event);
  // A call of a method of a library record the analysis models (modelledRecord): true when done.
  bool processModelledCall(const CallExpr *call, const FunctionDecl *callee, const Event &event);
  // A call through a pointer: the link calls whatever reaches it.
  void processIndirectCall(const CallExpr *call, const Expr *target, llvm::ArrayRef<const Expr *> args,
                           const Event &event);
  Id indirectValue(const CallExpr *call);
  std::optional<Id> modelledValue(const CallExpr *call, const CXXMethodDecl *method);
  // The argument handed to a parameter of this type: an fd, an address, or nothing followed.
  facts::Argument argumentFor(QualType paramType, const Expr *value, const Event &event, bool forwarded);
  void pairCreates(const CallExpr *call, const Expr *array, facts::CreateHow how, const Event &event);
  // CMSG_DATA(c), or a call of a function of this file that returns it (chrony's
  // add_control_message(&msg, SOL_SOCKET, SCM_RIGHTS, len): the caller fills what it returns).
  bool cmsgDataValue(const Expr *expr) {
    if (isCmsgDataSpelling(expr, Ctx))
      return true;
    const auto *call = dyn_cast_or_null<CallExpr>(expr ? expr->IgnoreParenCasts() : nullptr);
    const FunctionDecl *callee = call ? call->getDirectCallee() : nullptr;
    const FunctionDecl *definition = callee ? callee->getDefinition() : nullptr;
    if (!definition || !definition->getBody())
      return false;
    auto [it, fresh] = ReturnsCmsgData.try_emplace(definition, false);
    if (fresh) {
      std::vector<const Stmt *> work{definition->getBody()};
      while (!work.empty() && !it->second) {
        const Stmt *s = work.back();
        work.pop_back();
        if (const auto *ret = dyn_cast<ReturnStmt>(s))
          it->second = isCmsgDataSpelling(ret->getRetValue(), Ctx);
        for (const Stmt *child : s->children())
          if (child && !isa<LambdaExpr>(child))
            work.push_back(child);
      }
    }
    return it->second;
  }
  bool isCmsgData(const Expr *expr) {
    if (cmsgDataValue(expr))
      return true;
    if (const auto *ref = dyn_cast_or_null<DeclRefExpr>(expr ? expr->IgnoreParenCasts() : nullptr))
      if (const auto *var = dyn_cast<VarDecl>(ref->getDecl()))
        return Current && Current->cmsgDataPointers.count(var);
    return false;
  }
  void payload(const Stmt *write, const Expr *value, bool many, std::int64_t count, const Event &event);

  // --- visit-time helpers --------------------------------------------------------------------------
  Id statementOf(const Expr *call, const Expr *socketArg);
  bool familyGuarded();
  void evidence(SourceLocation loc);
  void credentialTest(bool equals);
  facts::CredentialOutcome credentialOutcome(const Scope &scope);
  std::optional<std::string> branchName();
  // SD_LISTEN_FDS_START (+ n), or a local of the current function only ever set to that.
  bool isListenFdValue(const Expr *expr) {
    static const llvm::StringRef activation[] = {"SD_LISTEN_FDS_START", "LISTEN_FDS_START"};
    expr = expr->IgnoreParenImpCasts();
    auto spelled = [&](const Expr *e) {
      e = e->IgnoreParenImpCasts();
      if (const auto *binary = dyn_cast<BinaryOperator>(e); binary && binary->getOpcode() == BO_Add)
        return spelledAs(binary->getLHS(), activation, Ctx) || spelledAs(binary->getRHS(), activation, Ctx);
      return spelledAs(e, activation, Ctx);
    };
    if (spelled(expr))
      return true;
    const auto *ref = dyn_cast<DeclRefExpr>(expr);
    const auto *var = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
    if (!var || !var->isLocalVarDecl() || !Current || !Current->fn || !Current->fn->getBody())
      return false;
    bool any = var->getInit() != nullptr, all = !var->getInit() || spelled(var->getInit());
    std::function<void(const Stmt *)> look = [&](const Stmt *s) {
      if (!s)
        return;
      if (const auto *op = dyn_cast<BinaryOperator>(s); op && op->isAssignmentOp())
        if (const auto *lhs = dyn_cast<DeclRefExpr>(op->getLHS()->IgnoreParenImpCasts());
            lhs && lhs->getDecl() == var) {
          any = true;
          all &= op->getOpcode() == BO_Assign && spelled(op->getRHS());
        }
      for (const Stmt *child : s->children())
        look(child);
    };
    look(Current->fn->getBody());
    return any && all;
  }
  // A socket the service manager hands over (socket activation, an inherited fd number): its
  // place, and the one External create made the first time its key is seen. Unnamed ones are
  // listed so that a function comparing names can name them (ListenFdCreates).
  Id handedOverFd(const std::string &key, const std::string &display, const Stmt *at, Id loop,
                  std::string creator, std::string origin, std::string handover,
                  std::vector<std::string> names = {}) {
    bool fresh = PlaceIds.find(key) == PlaceIds.end();
    Id place = intern(key, facts::PlaceKind::Value, display);
    if (fresh) {
      bool named = !names.empty();
      facts::Create create;
      create.place = place;
      create.how = facts::CreateHow::External;
      create.site = makeSite(at, nullptr, loop);
      create.creator = std::move(creator);
      create.origin = std::move(origin);
      create.handover = std::move(handover);
      create.handoverNames = std::move(names);
      U.creates.push_back(std::move(create));
      if (!named)
        ListenFdCreates.push_back(U.creates.size() - 1);
    }
    return place;
  }
  // fd 3, SD_LISTEN_FDS_START as a number: the inherited fd of that number.
  Id inheritedFd(std::int64_t number, const Stmt *at, Id loop) {
    std::string n = std::to_string(number);
    return handedOverFd("c:" + n, "fd " + n, at, loop, "fd " + n, "inherited fd " + n,
                        listenFdHandover(number));
  }
  // The socket-activation fd whose FileDescriptorName= is `name`: a place of its own.
  Id namedListenFd(const std::string &name, const Stmt *at) {
    return handedOverFd("c:listen-fd-name:" + name, "the socket-activation fd named " + name, at, kNone,
                        "SD_LISTEN_FDS_START", "socket activation, the fd named " + name,
                        "listen-fd:*", {name});
  }
  void scmCredentialsNamed() {
    if (const FunctionDecl *fn = currentFunction())
      U.functions[functionId(fn)].buildsScmCredentials = true;
  }
  facts::Address socketAddress(const Expr *arg);
  struct SunPathWrite {
    const Expr *source = nullptr; // what is copied there; null: a format we do not follow
    bool abstract = false;
  };
  std::map<const FunctionDecl *, std::map<const VarDecl *, std::vector<SunPathWrite>>> SunPathWritesByFunction;
  std::map<const VarDecl *, std::vector<SunPathWrite>> &sunPathWrites(const FunctionDecl *fn);
  void recordWrite(const CallExpr *call, llvm::StringRef name, const Event &event);
  const Expr *msgNameOf(const Expr *message);
  void scmRightsNamed() {
    if (const FunctionDecl *fn = currentFunction())
      U.functions[functionId(fn)].buildsScmRights = true;
  }
  void limit(const Stmt *node, std::int64_t count, facts::LimitWhere where) {
    if (count <= kernel::kScmMaxFd)
      return;
    U.limits.push_back({makeSite(node, nullptr, kNone, false), count, where});
  }
  void sizeCandidate(const Expr *size);

  void finishUnit();

  ASTContext &Ctx;
  const SourceManager &SM;
  const LangOptions &Lang;
  const ProjectOptions &Options;
  facts::Unit U;

  std::vector<Scope> Scopes;
  std::vector<const Stmt *> Stack;
  std::vector<OpenLoop> Loops;
  Scope *Current = nullptr;         // the scope being processed
  Id EventLoop = kNone;             // the loop of the event being processed
  FlowSensitivity *Flow = nullptr;  // its reaching definitions, when it has a CFG

  llvm::DenseMap<FileID, Id> FileIds;
  llvm::StringMap<Id> FileByPath;
  llvm::DenseMap<const FunctionDecl *, Id> FunctionIds;
  llvm::StringMap<Id> PlaceIds;
  llvm::DenseMap<const CXXRecordDecl *, bool> Owners;
  llvm::DenseMap<const RecordDecl *, bool> FdFieldRecords;
  llvm::DenseMap<const FunctionDecl *, bool> ReturnsCmsgData; // cmsgDataValue()
  llvm::DenseMap<const CompoundStmt *, std::uint32_t> Compounds;
  llvm::DenseSet<const Expr *> Compared;
  llvm::DenseSet<const DeclRefExpr *> CalleeRefs;
  llvm::DenseSet<const DeclRefExpr *> ModeledRefs;
  std::vector<std::pair<const DeclRefExpr *, const FunctionDecl *>> FunctionRefs;
  std::vector<std::size_t> ListenFdCreates; // socket-activation creates, in the order made
  llvm::DenseSet<const CallExpr *> SeenCalls; // C init lists are walked in both their forms
};

// ---------------------------------------------------------------------------------------------
// Visiting: what needs only the AST is recorded now, the rest deferred to the function's end.

// A string constant as written or behind a macro or a const variable ("logdw", SOCKET_NAME).
std::optional<std::string> constantString(const Expr *expr) {
  expr = expr->IgnoreParenImpCasts();
  if (const auto *literal = dyn_cast<StringLiteral>(expr))
    return literal->getString().str();
  if (const auto *ref = dyn_cast<DeclRefExpr>(expr))
    if (const auto *var = dyn_cast<VarDecl>(ref->getDecl());
        var && var->getInit() && (var->getType().isConstQualified() ||
                                  (var->getType()->isArrayType() &&
                                   var->getType()->getAsArrayTypeUnsafe()->getElementType().isConstQualified())))
      if (const auto *literal = dyn_cast<StringLiteral>(var->getInit()->IgnoreParenImpCasts()))
        return literal->getString().str();
  return std::nullopt;
}

// Calls that write data to an fd.
bool isWriteCall(llvm::StringRef name) {
  return llvm::StringSwitch<bool>(name)
      .Cases("send", "sendto", "sendmsg", "sendmmsg", "write", "writev", true)
      .Default(false);
}

// The socket call a call of a syscall wrapper stands for (the model catalog's syscall_wrappers:
// syscall(SYS_sendmsg, fd, &msg, flags) is sendmsg() with its arguments from 1), or nullptr.
// `system`: the callee is declared in a system header (the catalog's entries apply only there).
const SyscallWrapper *wrappedSocketCall(const CallExpr *call, llvm::StringRef name, bool system,
                                        const ProjectOptions &options, ASTContext &ctx) {
  for (const SyscallWrapper &w : options.syscallWrappers) {
    if (w.name != name || (w.builtin && !system) || call->getNumArgs() < w.firstArg + 2)
      continue;
    if (!w.numbers.empty()) {
      llvm::SmallVector<llvm::StringRef, 4> numbers(w.numbers.begin(), w.numbers.end());
      if (!spelledAs(call->getArg(0), numbers, ctx))
        continue;
    }
    return &w;
  }
  return nullptr;
}

// Whether some expression under `stmt` is spelled as one of `names` (MSG_DONTWAIT in
// `MSG_DONTWAIT|MSG_NOSIGNAL`, EAGAIN in `errno == EAGAIN || errno == EINTR`).
bool mentionsSpelled(const Stmt *stmt, llvm::ArrayRef<llvm::StringRef> names, ASTContext &ctx) {
  if (!stmt)
    return false;
  if (const auto *expr = dyn_cast<Expr>(stmt); expr && spelledAs(expr, names, ctx))
    return true;
  for (const Stmt *child : stmt->children())
    if (mentionsSpelled(child, names, ctx))
      return true;
  return false;
}

// A string constant that can be an AF_UNIX address: a path ("/run/app.sock", "app.sock" is too
// vague), an abstract name ("@app", "\0app"); no spaces, no format directives, fits sun_path.
bool looksLikeSocketPath(llvm::StringRef text) {
  if (text.empty() || text.size() >= 108 || text.contains(' ') || text.contains('%') || text.contains('\n'))
    return false;
  return text.front() == '/' || text.front() == '@' || text.front() == '\0';
}

// The address as the facts write it: an abstract name ("\0name") as "@name".
std::string unixPath(llvm::StringRef text) {
  if (!text.empty() && text.front() == '\0')
    return "@" + text.drop_front().split('\0').first.str();
  return text.str();
}

// Functions that compare two strings (how sd_listen_fds_with_names() users pick their fd).
bool comparesStrings(llvm::StringRef name) {
  return llvm::StringSwitch<bool>(name)
      .Cases("strcmp", "strncmp", "strcasecmp", "streq", "strcaseeq", true)
      .Cases("string_equal", "g_str_equal", "g_strcmp0", "STR_IN_SET", true)
      .Default(false);
}

bool Extractor::VisitCallExpr(CallExpr *call) {
  if (!SeenCalls.insert(call).second)
    return true;
  const FunctionDecl *callee = call->getDirectCallee();
  if (!callee) {
    // A call through a pointer: the link calls what reaches it (w->fn(w), ops->dispatch_add(...,
    // fd, ..., acceptor), which may also register a callback with an fd by the general rule).
    bool relevant = followed(call->getType()) || isObjectType(call->getType());
    for (const Expr *arg : call->arguments())
      relevant |= followed(arg->getType()) || holdsFdField(arg->getType()) || functionRefExpr(arg);
    if (relevant) {
      scope().socketCalls = true; // ordered against what the callees do
      defer(Event::Call, call);
    }
    return true;
  }
  if (const auto *ref = dyn_cast<DeclRefExpr>(call->getCallee()->IgnoreParenImpCasts()))
    CalleeRefs.insert(ref);
  Scope &s = scope();
  llvm::StringRef name = callee->getIdentifier() ? callee->getName() : "";
  if (name == "sd_listen_fds_with_names")
    s.listenFdNames = true;
  if (comparesStrings(name))
    for (const Expr *arg : call->arguments())
      if (std::optional<std::string> text = constantString(arg))
        s.comparedStrings.push_back(*text);
  bool api = isSocketApi(callee);
  bool wrapper = Options.optionWrappers.count(name) != 0;
  if ((api && isSocketCallName(name)) || wrapper || Options.socketProducers.count(name) ||
      wrappedSocketCall(call, name, api, Options, Ctx))
    s.socketCalls = true;
  // A call that can hand a socket to the program's own code is ordered against the socket calls
  // it leads to, so its function gets a CFG too.
  if (!declaredInSystemHeader(callee, SM) && relevantCall(call, callee))
    s.socketCalls = true;

  // An fd bound to a non-const reference parameter can be rewritten by the callee.
  unsigned count = std::min<unsigned>(call->getNumArgs(), callee->getNumParams());
  for (unsigned i = 0; i < count; ++i) {
    QualType type = callee->getParamDecl(i)->getType();
    if (type->isReferenceType() && !type.getNonReferenceType().isConstQualified())
      if (const auto *ref = dyn_cast<DeclRefExpr>(call->getArg(i)->IgnoreParenImpCasts()))
        if (const auto *var = dyn_cast<VarDecl>(ref->getDecl()))
          s.unsafe.insert(var);
  }

  if (isMemoryCopy(name) && call->getNumArgs() >= 3 && cmsgDataValue(call->getArg(0)))
    if (std::optional<std::int64_t> fds = largestFdCountIn(call->getArg(2), Ctx))
      limit(call, *fds, facts::LimitWhere::PayloadCopy);

  // Calls whose fix-its or verdicts need the statement around them.
  Id statement = kNone;
  bool guarded = false;
  bool lifecycle = api && (name == "bind" || name == "listen" || name == "connect");
  if (api && name == "socketpair" && call->getNumArgs() >= 4)
    statement = statementOf(call, call->getArg(3));
  static const llvm::StringRef optionNames[] = {"SO_PASSCRED", "SO_PASSSEC", "SO_PASSPIDFD"};
  bool option = wrapper || (api && name == "setsockopt");
  if (!option)
    for (const Expr *arg : call->arguments())
      if (spelledAs(arg, optionNames, Ctx))
        option = true;
  if ((lifecycle || option) && call->getNumArgs() >= 1) {
    statement = statementOf(call, call->getArg(0));
    guarded = option && familyGuarded();
  }
  defer(Event::Call, call, statement, guarded);
  return true;
}

bool Extractor::VisitCXXConstructExpr(CXXConstructExpr *construct) {
  if (isFdOwnerType(construct->getType()))
    return true; // a value, read where it is stored
  const CXXConstructorDecl *ctor = construct->getConstructor();
  if (!ctor || !isObjectType(construct->getType()))
    return true;
  // Objects built from followed values, copied from other objects, or of the program's own
  // classes (their constructors store into `this`).
  bool relevant = !declaredInSystemHeader(ctor, SM) || modelledRecord(construct->getType());
  for (const Expr *arg : construct->arguments())
    relevant |= followed(arg->getType()) || isObjectType(arg->getType());
  if (relevant)
    defer(Event::Construct, construct);
  return true;
}

bool Extractor::VisitBinaryOperator(BinaryOperator *op) {
  if (op->isEqualityOp()) {
    // `c->cmsg_type == SCM_RIGHTS` reads a received message; only building one counts.
    Compared.insert(op->getLHS()->IgnoreParenImpCasts());
    Compared.insert(op->getRHS()->IgnoreParenImpCasts());
    static const llvm::StringRef creds[] = {"SCM_CREDENTIALS"};
    if (spelledAs(op->getLHS(), creds, Ctx) || spelledAs(op->getRHS(), creds, Ctx)) {
      evidence(op->getExprLoc());
      credentialTest(op->getOpcode() == BO_EQ);
    }
    // c == NULL on the cmsghdr: no control message at all.
    for (auto [side, other] : {std::pair(op->getLHS(), op->getRHS()), std::pair(op->getRHS(), op->getLHS())})
      if (typeIsRecordNamed(side->getType(), "cmsghdr") && side->getType()->isPointerType() &&
          other->isNullPointerConstant(Ctx, Expr::NPC_ValueDependentIsNotNull))
        credentialTest(op->getOpcode() == BO_NE);
    return true;
  }
  if (op->getOpcode() == BO_Mul) {
    sizeCandidate(op);
    return true;
  }
  if (!op->isAssignmentOp())
    return true;
  const Expr *lhs = op->getLHS()->IgnoreParenImpCasts();
  if (const auto *ref = dyn_cast<DeclRefExpr>(lhs))
    if (const auto *var = dyn_cast<VarDecl>(ref->getDecl())) {
      if (op->getOpcode() != BO_Assign)
        scope().unsafe.insert(var); // x += n: a value we do not follow
      else
        ++scope().definitions[var];
      if (var->getType()->isPointerType() && cmsgDataValue(op->getRHS()))
        scope().cmsgDataPointers.insert(var);
    }
  if (op->getOpcode() != BO_Assign)
    return true;
  if (const auto *member = dyn_cast<MemberExpr>(lhs);
      member && member->getMemberDecl()->getIdentifier() &&
      member->getMemberDecl()->getName() == "cmsg_len")
    if (std::optional<std::int64_t> fds = largestFdCountIn(op->getRHS(), Ctx))
      limit(op, *fds, facts::LimitWhere::CmsgLen);
  if (holdsFd(op->getLHS()->getType()))
    if (std::optional<std::string> name = branchName())
      scope().namedAssignments[op] = *name;
  defer(Event::Assign, op);
  return true;
}

// The string constant that the `if` around the current statement compares with, when the
// statement is in its then-branch: how a socket-activation fd is picked by its name.
std::optional<std::string> Extractor::branchName() {
  for (std::size_t i = Stack.size(); i-- > Scopes.back().stackBase;) {
    const auto *ifStmt = dyn_cast<IfStmt>(Stack[i]);
    if (!ifStmt || i + 1 >= Stack.size() || Stack[i + 1] != ifStmt->getThen())
      continue;
    std::optional<std::string> found;
    std::function<void(const Stmt *)> look = [&](const Stmt *s) {
      if (!s || found)
        return;
      if (const auto *call = dyn_cast<CallExpr>(s))
        if (const FunctionDecl *callee = call->getDirectCallee();
            callee && callee->getIdentifier() && comparesStrings(callee->getName()))
          for (const Expr *arg : call->arguments())
            if (std::optional<std::string> text = constantString(arg)) {
              found = text;
              return;
            }
      for (const Stmt *child : s->children())
        look(child);
    };
    look(ifStmt->getCond());
    return found;
  }
  return std::nullopt;
}

bool Extractor::VisitUnaryOperator(UnaryOperator *op) {
  // !c on the cmsghdr: no control message at all (the `!` itself flips the test).
  if (op->getOpcode() == UO_LNot && op->getSubExpr()->getType()->isPointerType() &&
      typeIsRecordNamed(op->getSubExpr()->getType(), "cmsghdr"))
    credentialTest(true);
  if (op->getOpcode() == UO_AddrOf || op->isIncrementDecrementOp())
    if (const auto *ref = dyn_cast<DeclRefExpr>(op->getSubExpr()->IgnoreParenImpCasts()))
      if (const auto *var = dyn_cast<VarDecl>(ref->getDecl()))
        scope().unsafe.insert(var);
  return true;
}

bool Extractor::VisitVarDecl(VarDecl *var) {
  if (isa<ParmVarDecl>(var) || !var->getInit())
    return true;
  // An object built in place (Server s(fd); UnixSocket l = UnixSocket::Stream()): the constructor's
  // `this`, or what the call returns, is the variable.
  if (isObjectType(var->getType()) && !var->getType()->isReferenceType())
    if (const auto *construct = dyn_cast_or_null<CXXConstructExpr>(stripValue(var->getInit())))
      if (std::optional<Id> place = plainVarPlace(var))
        ConstructStorage[construct] = *place;
  // A table of callbacks (struct ops { int (*readable)(int fd); } ops = {on_read}): an fd
  // registered with the table reaches each of them.
  if (var->getType()->isRecordType() && (var->hasGlobalStorage() || var->isStaticLocal())) {
    llvm::SmallVector<const DeclRefExpr *, 4> functions;
    functionsInInitializer(var->getInit(), functions);
    if (!functions.empty())
      defer(Event::Table, var);
  }
  if (var->getType()->isReferenceType())
    if (const auto *ref = dyn_cast<DeclRefExpr>(var->getInit()->IgnoreParenImpCasts()))
      if (const auto *target = dyn_cast<VarDecl>(ref->getDecl()))
        scope().unsafe.insert(target);
  if (var->getType()->isPointerType() && cmsgDataValue(var->getInit()))
    scope().cmsgDataPointers.insert(var);
  bool array = var->getType()->isArrayType() &&
               followed(Ctx.getAsArrayType(var->getType())->getElementType());
  if (isObjectType(var->getType()) && !var->getType()->isReferenceType()) {
    // struct chmsg ch = {1, sv[0]}: its fields are stored into; struct conn c = *p: copied
    // (Event::VarInit). An object built by a constructor is its call's (Event::Construct).
    if (!isa<CXXConstructExpr>(stripValue(var->getInit())))
      defer(Event::VarInit, var);
    return true;
  }
  if (!array && !followed(var->getType()))
    return true;
  if (var->isLocalVarDecl())
    ++scope().definitions[var];
  defer(Event::VarInit, var);
  return true;
}

bool Extractor::VisitReturnStmt(ReturnStmt *ret) {
  const FunctionDecl *fn = currentFunction();
  if (!ret->getRetValue() || !fn)
    return true;
  QualType type = fn->getReturnType();
  if (isObjectType(type) && !type->isReferenceType()) {
    // return UnixSocket(fd): built in the returned object
    if (const auto *construct = dyn_cast_or_null<CXXConstructExpr>(stripValue(ret->getRetValue()))) {
      ConstructStorage[construct] = returnPlace(fn);
      return true;
    }
    defer(Event::Return, ret);
    return true;
  }
  if (followed(type))
    defer(Event::Return, ret);
  return true;
}

bool Extractor::VisitCaseStmt(CaseStmt *caseStmt) {
  if (!caseStmt->getLHS())
    return true;
  Compared.insert(caseStmt->getLHS()->IgnoreParenImpCasts());
  static const llvm::StringRef creds[] = {"SCM_CREDENTIALS"};
  if (spelledAs(caseStmt->getLHS(), creds, Ctx)) {
    evidence(caseStmt->getBeginLoc());
    for (std::size_t i = Stack.size(); i-- > Scopes.back().stackBase;)
      if (const auto *sw = dyn_cast<SwitchStmt>(Stack[i])) {
        Scopes.back().credentialSwitch = sw;
        break;
      }
  }
  return true;
}

bool Extractor::VisitExplicitCastExpr(ExplicitCastExpr *cast) {
  // (struct ucred *)CMSG_DATA(cmsg): the credentials read out of the control data.
  QualType type = cast->getTypeAsWritten();
  if (type->isPointerType() && typeIsRecordNamed(type, "ucred") &&
      mentionsCmsghdr(cast->getSubExpr()))
    evidence(cast->getBeginLoc());
  return true;
}

bool Extractor::VisitDeclRefExpr(DeclRefExpr *ref) {
  if (const auto *fn = dyn_cast<FunctionDecl>(ref->getDecl())) {
    if (!CalleeRefs.count(ref))
      FunctionRefs.push_back({ref, fn});
    return true;
  }
  if (Compared.count(ref))
    return true;
  if (const auto *constant = dyn_cast<EnumConstantDecl>(ref->getDecl()))
    if (const IdentifierInfo *id = constant->getIdentifier()) {
      if (id->getName() == "SCM_RIGHTS")
        scmRightsNamed();
      else if (id->getName() == "SCM_CREDENTIALS")
        scmCredentialsNamed();
    }
  return true;
}

bool Extractor::VisitIntegerLiteral(IntegerLiteral *literal) {
  // musl and others spell SCM_RIGHTS as a plain macro for 1.
  if (!Compared.count(literal) && literal->getBeginLoc().isMacroID()) {
    llvm::StringRef macro = Lexer::getImmediateMacroName(literal->getBeginLoc(), SM, Lang);
    if (literal->getValue() == 1 && macro == "SCM_RIGHTS")
      scmRightsNamed();
    else if (literal->getValue() == 2 && macro == "SCM_CREDENTIALS")
      scmCredentialsNamed();
  }
  return true;
}

bool Extractor::VisitUnaryExprOrTypeTraitExpr(UnaryExprOrTypeTraitExpr *expr) {
  if (expr->getKind() == UETT_SizeOf)
    sizeCandidate(expr);
  return true;
}

void Extractor::sizeCandidate(const Expr *size) {
  // n * sizeof(int) or sizeof(int[n]) spelled inside CMSG_SPACE()/CMSG_LEN(): a buffer size.
  if (!size->getBeginLoc().isMacroID() && !size->getExprLoc().isMacroID())
    return;
  std::optional<std::int64_t> count = fdCountOf(size, Ctx);
  if (!count || *count <= kernel::kScmMaxFd)
    return;
  for (const char *macro : {"CMSG_SPACE", "CMSG_LEN"})
    if (inMacro(size->getExprLoc(), macro, SM, Lang) || inMacro(size->getBeginLoc(), macro, SM, Lang)) {
      limit(size, *count, facts::LimitWhere::BufferSize);
      return;
    }
}

void Extractor::credentialTest(bool equals) {
  // The `if` whose condition holds the comparison, and whether the condition is true when the
  // cmsg is SCM_CREDENTIALS: each `!` between them flips it.
  bool present = equals;
  for (std::size_t i = Stack.size(); i-- > Scopes.back().stackBase;) {
    const Stmt *s = Stack[i];
    if (const auto *unary = dyn_cast<UnaryOperator>(s); unary && unary->getOpcode() == UO_LNot)
      present = !present;
    if (const auto *ifStmt = dyn_cast<IfStmt>(s)) {
      if (i + 1 < Stack.size() && Stack[i + 1] == ifStmt->getCond())
        Scopes.back().credentialTests.push_back({ifStmt, present});
      return;
    }
    if (isa<CompoundStmt>(s))
      return;
  }
}

namespace {
// Whether running `stmt` leaves the code that follows it: a return, goto, break, continue or a
// call that does not return.
bool leaves(const Stmt *stmt) {
  if (!stmt)
    return false;
  if (isa<ReturnStmt>(stmt) || isa<GotoStmt>(stmt) || isa<BreakStmt>(stmt) || isa<ContinueStmt>(stmt))
    return true;
  if (const auto *call = dyn_cast<CallExpr>(stmt))
    if (const FunctionDecl *callee = call->getDirectCallee(); callee && callee->isNoReturn())
      return true;
  if (const auto *compound = dyn_cast<CompoundStmt>(stmt))
    for (const Stmt *child : compound->body())
      if (leaves(child))
        return true;
  if (const auto *expr = dyn_cast<ExprWithCleanups>(stmt))
    return leaves(expr->getSubExpr());
  return false;
}

// Variables a statement assigns (the flag or uid a presence test records).
void assignedIn(const Stmt *stmt, llvm::SmallPtrSetImpl<const VarDecl *> &out) {
  if (!stmt)
    return;
  if (const auto *op = dyn_cast<BinaryOperator>(stmt); op && op->isAssignmentOp()) {
    const Expr *lhs = op->getLHS()->IgnoreParenImpCasts();
    if (const auto *deref = dyn_cast<UnaryOperator>(lhs); deref && deref->getOpcode() == UO_Deref)
      lhs = deref->getSubExpr()->IgnoreParenImpCasts();
    if (const auto *ref = dyn_cast<DeclRefExpr>(lhs))
      if (const auto *var = dyn_cast<VarDecl>(ref->getDecl()))
        out.insert(var);
  }
  for (const Stmt *child : stmt->children())
    assignedIn(child, out);
}

bool mentions(const Stmt *stmt, const llvm::SmallPtrSetImpl<const VarDecl *> &vars) {
  if (!stmt)
    return false;
  if (const auto *ref = dyn_cast<DeclRefExpr>(stmt))
    if (const auto *var = dyn_cast<VarDecl>(ref->getDecl()); var && vars.count(var))
      return true;
  for (const Stmt *child : stmt->children())
    if (mentions(child, vars))
      return true;
  return false;
}
} // namespace

// What the function does when no SCM_CREDENTIALS arrives. A test for absence that leaves
// (`if (!c || c->cmsg_type != SCM_CREDENTIALS) return -1;`), a presence test with an `else` that
// leaves, or a later test of what the presence branch recorded that leaves
// (`if (!have_creds) return -EPERM;`): it fails closed. A presence test whose branch is simply
// skipped when nothing arrives: it fails open. Anything else is unknown.
facts::CredentialOutcome Extractor::credentialOutcome(const Scope &scope) {
  bool open = false;
  for (auto [ifStmt, present] : scope.credentialTests) {
    if (!present && leaves(ifStmt->getThen()))
      return facts::CredentialOutcome::FailsClosed;
    if (!present)
      continue;
    if (leaves(ifStmt->getElse()))
      return facts::CredentialOutcome::FailsClosed;
    llvm::SmallPtrSet<const VarDecl *, 4> recorded;
    assignedIn(ifStmt->getThen(), recorded);
    // A later `if` on what the branch recorded that leaves: the absence is refused there.
    bool refusedLater = false;
    if (!recorded.empty() && scope.fn && scope.fn->getBody()) {
      std::vector<const Stmt *> work{scope.fn->getBody()};
      while (!work.empty() && !refusedLater) {
        const Stmt *s = work.back();
        work.pop_back();
        if (!s)
          continue;
        if (const auto *later = dyn_cast<IfStmt>(s);
            later && later != ifStmt &&
            SM.isBeforeInTranslationUnit(ifStmt->getEndLoc(), later->getBeginLoc()) &&
            mentions(later->getCond(), recorded) && leaves(later->getThen()))
          refusedLater = true;
        for (const Stmt *child : s->children())
          work.push_back(child);
      }
    }
    if (refusedLater)
      return facts::CredentialOutcome::FailsClosed;
    open = true;
  }
  if (const SwitchStmt *sw = scope.credentialSwitch) {
    // case SCM_CREDENTIALS: ... with a default that leaves refuses what is not credentials only;
    // a missing cmsg never enters the switch: open unless refused as above.
    open = true;
    (void)sw;
  }
  return open ? facts::CredentialOutcome::FailsOpen : facts::CredentialOutcome::Unknown;
}

void Extractor::evidence(SourceLocation loc) {
  const FunctionDecl *fn = currentFunction();
  if (!fn)
    return;
  facts::Function &info = U.functions[functionId(fn)];
  if (info.credentialEvidence != kNone)
    return;
  facts::Site site;
  SourceLocation at = SM.getExpansionLoc(loc);
  site.file = fileId(SM.getFileID(at));
  site.offset = SM.getFileOffset(at);
  site.line = SM.getExpansionLineNumber(at);
  site.column = SM.getExpansionColumnNumber(at);
  site.function = functionId(fn);
  U.sites.push_back(site);
  U.functions[functionId(fn)].credentialEvidence = U.sites.size() - 1;
}

Id Extractor::statementOf(const Expr *call, const Expr *socketArg) {
  std::size_t base = Scopes.back().stackBase;
  const Stmt *stmt = nullptr;
  const CompoundStmt *compound = nullptr;
  for (std::size_t i = Stack.size(); i-- > base + 0;) {
    if (i + 1 < Stack.size())
      if (const auto *c = dyn_cast<CompoundStmt>(Stack[i])) {
        compound = c;
        stmt = Stack[i + 1];
        break;
      }
  }
  if (!stmt || !compound)
    return kNone;
  CharSourceRange range = statementRange(stmt, Ctx);
  if (range.isInvalid() || !stmt->getBeginLoc().isFileID() || !socketArg->getBeginLoc().isFileID())
    return kNone;
  facts::Statement info;
  info.file = fileId(SM.getFileID(range.getBegin()));
  info.begin = SM.getFileOffset(range.getBegin());
  info.end = SM.getFileOffset(range.getEnd());
  CharSourceRange removal = wholeLines(range, Ctx);
  info.removeBegin = SM.getFileOffset(removal.getBegin());
  info.removeEnd = SM.getFileOffset(removal.getEnd());
  info.text = Lexer::getSourceText(range, SM, Lang).str();
  info.indentation = indentationAt(stmt->getBeginLoc(), Ctx);
  info.plainSocket = isPlainSocketExpr(socketArg);
  auto ends = [](const Stmt *branch) {
    if (const auto *compound = dyn_cast_or_null<CompoundStmt>(branch))
      return !compound->body_empty() && leaves(compound->body_back());
    return leaves(branch);
  };
  if (isa<Expr>(stmt) || isa<DeclStmt>(stmt))
    info.followsCall = true;
  else if (const auto *ifStmt = dyn_cast<IfStmt>(stmt); ifStmt && !ifStmt->getElse() && ends(ifStmt->getThen()))
    for (std::size_t i = Stack.size(); i-- > base;)
      if (Stack[i] == ifStmt->getCond()) // the call is in the condition, not the branch
        info.followsCall = true;
  auto [it, fresh] = Compounds.try_emplace(compound, Compounds.size());
  info.block = it->second;
  // The latest local declaration the statement uses: it can only move above later statements.
  std::vector<const Stmt *> work{stmt};
  while (!work.empty()) {
    const Stmt *s = work.back();
    work.pop_back();
    if (!s)
      continue;
    if (const auto *ref = dyn_cast<DeclRefExpr>(s))
      if (const auto *var = dyn_cast<VarDecl>(ref->getDecl()); var && var->isLocalVarDecl())
        info.latestDeclaration = std::max(info.latestDeclaration, offsetOf(var->getLocation()));
    for (const Stmt *child : s->children())
      work.push_back(child);
  }
  const FunctionDecl *fn = Scopes.back().fn;
  judgeUpwardMove(*compound, *stmt, fn ? fn->getBody() : nullptr, Ctx, info);
  U.statements.push_back(std::move(info));
  return U.statements.size() - 1;
}

bool Extractor::familyGuarded() {
  for (std::size_t i = Scopes.back().stackBase; i < Stack.size(); ++i) {
    const Stmt *s = Stack[i];
    if (const auto *ifStmt = dyn_cast<IfStmt>(s)) {
      if (conditionTestsFamily(ifStmt->getCond(), Ctx))
        return true;
    } else if (const auto *conditional = dyn_cast<ConditionalOperator>(s)) {
      if (conditionTestsFamily(conditional->getCond(), Ctx))
        return true;
    } else if (const auto *switchStmt = dyn_cast<SwitchStmt>(s)) {
      if (conditionTestsFamily(switchStmt->getCond(), Ctx))
        return true;
    } else if (const auto *binary = dyn_cast<BinaryOperator>(s)) {
      // family == AF_UNIX && setsockopt(...)
      if (binary->isLogicalOp() && conditionTestsFamily(binary->getLHS(), Ctx))
        return true;
    }
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// Reaching definitions: a local assigned more than once gets one place per definition, and each
// use reads the definitions that reach it over the CFG.

void Extractor::buildFlowSensitivity(Scope &s, FlowSensitivity &flow) {
  CFG::BuildOptions options;
  options.setAllAlwaysAdd(); // every expression is an element: uses and definitions get positions
  flow.cfg = CFG::buildCFG(s.fn, s.fn->getBody(), &Ctx, options);
  if (!flow.cfg)
    return;
  CFG &cfg = *flow.cfg;
  Id fnId = functionId(s.fn);
  facts::Function &info = U.functions[fnId];
  info.successors.assign(cfg.getNumBlockIDs(), {});
  info.idom.assign(cfg.getNumBlockIDs(), kNone);
  info.entry = cfg.getEntry().getBlockID();
  for (const CFGBlock *block : cfg) {
    unsigned index = 0;
    for (const CFGElement &element : *block) {
      if (std::optional<CFGStmt> stmt = element.getAs<CFGStmt>())
        flow.positions.try_emplace(stmt->getStmt(), block->getBlockID(), index);
      ++index;
    }
    for (const CFGBlock *succ : block->succs())
      if (succ)
        info.successors[block->getBlockID()].push_back(succ->getBlockID());
  }
  CFGDomTree dominators(&cfg);
  for (CFGBlock *block : cfg)
    if (auto *node = dominators.getBase().getNode(block))
      if (auto *idom = node->getIDom(); idom && idom->getBlock())
        U.functions[fnId].idom[block->getBlockID()] = idom->getBlock()->getBlockID();

  // Which locals are followed definition by definition: fd-valued, never aliased, defined twice
  // or more (a parameter's value on entry counts as one).
  auto tracked = [&](const VarDecl *var) {
    if (s.unsafe.count(var) || !holdsFd(var->getType()))
      return false;
    auto it = s.definitions.find(var);
    unsigned defs = (it == s.definitions.end() ? 0 : it->second) + (isa<ParmVarDecl>(var) ? 1 : 0);
    if (defs < 2)
      return false;
    if (isa<ParmVarDecl>(var))
      return cast<ParmVarDecl>(var)->getDeclContext() == s.fn;
    return var->isLocalVarDecl() && !var->isStaticLocal() && var->getParentFunctionOrMethod() == s.fn;
  };
  auto addDef = [&](const VarDecl *var, unsigned block, int element, Id place) {
    unsigned index = flow.defs.size();
    flow.defs.push_back({var, block, element, place});
    flow.defsOf[var].push_back(index);
    if (element >= 0)
      flow.defsInBlock[{var, block}].push_back(index); // blocks are walked element by element
    return index;
  };
  for (const ParmVarDecl *param : s.fn->parameters())
    if (tracked(param))
      addDef(param, cfg.getEntry().getBlockID(), -1, *plainVarPlace(param));
  for (const CFGBlock *block : cfg) {
    int index = 0;
    for (const CFGElement &element : *block) {
      std::optional<CFGStmt> cfgStmt = element.getAs<CFGStmt>();
      const Stmt *stmt = cfgStmt ? cfgStmt->getStmt() : nullptr;
      if (const auto *decl = dyn_cast_or_null<DeclStmt>(stmt)) {
        for (const Decl *d : decl->decls())
          if (const auto *var = dyn_cast<VarDecl>(d); var && var->getInit() && tracked(var)) {
            Id place = intern(localKey(var) + "#" + std::to_string(offsetOf(var->getLocation())),
                              facts::PlaceKind::Local, var->getNameAsString(), fnId);
            flow.initDef[var] = addDef(var, block->getBlockID(), index, place);
            flow.defAt[decl] = flow.initDef[var];
          }
      } else if (const auto *assign = dyn_cast_or_null<BinaryOperator>(stmt);
                 assign && assign->getOpcode() == BO_Assign) {
        if (const auto *ref = dyn_cast<DeclRefExpr>(assign->getLHS()->IgnoreParenImpCasts()))
          if (const auto *var = dyn_cast<VarDecl>(ref->getDecl()); var && tracked(var)) {
            Id place = intern(localKey(var) + "#" + std::to_string(offsetOf(assign->getOperatorLoc())),
                              facts::PlaceKind::Local, var->getNameAsString(), fnId);
            flow.defAt[assign] = addDef(var, block->getBlockID(), index, place);
          }
      }
      ++index;
    }
  }
  if (flow.defs.empty())
    return;
  // A use we cannot position (an unevaluated operand) reads every definition. A parameter's
  // own place is its value on entry, so its union is a place of its own.
  for (const Definition &def : flow.defs) {
    auto [it, fresh] = flow.anyDefinition.try_emplace(def.var, kNone);
    if (fresh)
      it->second = isa<ParmVarDecl>(def.var)
                       ? intern(U.places[*plainVarPlace(def.var)].key + "@any", facts::PlaceKind::Local,
                                def.var->getNameAsString(), fnId)
                       : *plainVarPlace(def.var);
    addFlow(def.place, it->second, facts::FlowKind::Assign);
  }

  unsigned blocks = cfg.getNumBlockIDs();
  std::size_t count = flow.defs.size();
  std::vector<llvm::BitVector> gen(blocks, llvm::BitVector(count)), kill(blocks, llvm::BitVector(count));
  // A block that defines a variable kills all its definitions and generates its last one there:
  // once per (variable, block), so thousands of reassignments in one block stay linear.
  for (const auto &[at, inBlock] : flow.defsInBlock) {
    for (unsigned other : flow.defsOf[at.first])
      kill[at.second].set(other);
    gen[at.second].set(inBlock.back());
  }
  flow.in.assign(blocks, llvm::BitVector(count));
  std::vector<llvm::BitVector> out(blocks, llvm::BitVector(count));
  llvm::BitVector entry(count);
  for (unsigned d = 0; d < count; ++d)
    if (flow.defs[d].element < 0)
      entry.set(d);
  std::vector<const CFGBlock *> byId(blocks, nullptr);
  for (const CFGBlock *block : cfg)
    byId[block->getBlockID()] = block;
  std::deque<unsigned> work;
  std::vector<bool> queued(blocks, true);
  for (unsigned b = 0; b < blocks; ++b)
    work.push_back(b);
  while (!work.empty()) {
    unsigned b = work.front();
    work.pop_front();
    queued[b] = false;
    const CFGBlock *block = byId[b];
    if (!block)
      continue;
    llvm::BitVector in = b == cfg.getEntry().getBlockID() ? entry : llvm::BitVector(count);
    for (const CFGBlock *pred : block->preds())
      if (pred)
        in |= out[pred->getBlockID()];
    llvm::BitVector result = in;
    result.reset(kill[b]);
    result |= gen[b];
    flow.in[b] = std::move(in);
    if (result != out[b]) {
      out[b] = std::move(result);
      for (const CFGBlock *succ : block->succs())
        if (succ && !queued[succ->getBlockID()]) {
          queued[succ->getBlockID()] = true;
          work.push_back(succ->getBlockID());
        }
    }
  }
}

Id Extractor::useOf(const VarDecl *var, const DeclRefExpr *use) {
  if (auto it = Flow->uses.find(use); it != Flow->uses.end())
    return it->second;
  Id result = Flow->anyDefinition.count(var) ? Flow->anyDefinition[var] : *plainVarPlace(var);
  auto pos = Flow->positions.find(use);
  if (pos != Flow->positions.end()) {
    auto [block, element] = pos->second;
    llvm::SmallVector<unsigned, 4> reaching;
    const llvm::SmallVector<unsigned, 4> &defs = Flow->defsOf[var];
    // The last definition of the variable earlier in the same block, else those reaching its start.
    int best = -1;
    if (auto inBlock = Flow->defsInBlock.find({var, block}); inBlock != Flow->defsInBlock.end()) {
      const llvm::SmallVector<unsigned, 2> &ordered = inBlock->second;
      auto after = std::partition_point(ordered.begin(), ordered.end(), [&](unsigned d) {
        return Flow->defs[d].element < static_cast<int>(element);
      });
      if (after != ordered.begin())
        best = static_cast<int>(*std::prev(after));
    }
    if (best >= 0)
      reaching.push_back(best);
    else
      for (unsigned d : defs)
        if (block < Flow->in.size() && Flow->in[block].test(d))
          reaching.push_back(d);
    if (reaching.size() == 1) {
      result = Flow->defs[reaching[0]].place;
    } else if (reaching.size() > 1) {
      result = intern(localKey(var) + "@" + std::to_string(offsetOf(use->getLocation())),
                      facts::PlaceKind::Local, var->getNameAsString(), functionId(Current->fn));
      for (unsigned d : reaching)
        addFlow(Flow->defs[d].place, result, facts::FlowKind::Assign);
    }
  }
  Flow->uses[use] = result;
  return result;
}

// ---------------------------------------------------------------------------------------------
// Places of expressions

Id Extractor::createValue(const Expr *at, facts::Create create, const std::string &callee) {
  SourceLocation loc = SM.getExpansionLoc(at->getBeginLoc());
  std::string key = "v:" + callee + "@" + normalisedPath(SM.getFilename(loc)) + ":" +
                    std::to_string(SM.getFileOffset(loc));
  bool fresh = PlaceIds.find(key) == PlaceIds.end();
  Id place = intern(key, facts::PlaceKind::Value, callee + "()", functionId(currentFunction()));
  if (fresh) {
    create.place = place;
    create.site = makeSite(at, nullptr, EventLoop);
    create.creator = callee;
    U.creates.push_back(std::move(create));
  }
  return place;
}

// Whether a field is read out of an object picked at run time (procs[i].channel[0],
// (base + n)->fd): the field's one place then stands for the sockets of many objects.
bool Extractor::objectAtRunTimeIndex(const Expr *expr) {
  const Expr *e = stripValue(expr);
  while (e) {
    if (const auto *subscript = dyn_cast<ArraySubscriptExpr>(e)) {
      std::optional<std::int64_t> index = evalInt(subscript->getIdx(), Ctx);
      if (!index || *index < 0)
        return true;
      e = subscript->getBase()->IgnoreParenImpCasts();
    } else if (const auto *member = dyn_cast<MemberExpr>(e)) {
      e = member->getBase()->IgnoreParenImpCasts();
    } else if (const auto *unary = dyn_cast<UnaryOperator>(e);
               unary && (unary->getOpcode() == UO_Deref || unary->getOpcode() == UO_AddrOf)) {
      e = unary->getSubExpr()->IgnoreParenImpCasts();
    } else if (const auto *binary = dyn_cast<BinaryOperator>(e); binary && binary->isAdditiveOp()) {
      bool pointerLeft = binary->getLHS()->getType()->isPointerType();
      const Expr *index = pointerLeft ? binary->getRHS() : binary->getLHS();
      if (!evalInt(index, Ctx))
        return true;
      e = (pointerLeft ? binary->getLHS() : binary->getRHS())->IgnoreParenImpCasts();
    } else {
      return false;
    }
  }
  return false;
}

std::optional<Id> Extractor::placeOf(const Expr *expr) {
  const Expr *e = stripValue(expr);
  if (!e)
    return std::nullopt;
  if (const auto *ref = dyn_cast<DeclRefExpr>(e)) {
    if (const auto *var = dyn_cast<VarDecl>(ref->getDecl())) {
      std::optional<Id> place = varPlace(var, ref);
      // A reference names the object it is bound to: what its place points to.
      if (place && var->getType()->isReferenceType() && isObjectType(var->getType()))
        return derefPlace(*place);
      return place;
    }
    if (const auto *fn = dyn_cast<FunctionDecl>(ref->getDecl()))
      return functionValue(fn);
    return std::nullopt;
  }
  if (isa<CXXThisExpr>(e))
    return thisPlace();
  if (const auto *member = dyn_cast<MemberExpr>(e)) {
    if (const auto *var = dyn_cast<VarDecl>(member->getMemberDecl()))
      return plainVarPlace(var); // a static member is a global
    const auto *field = dyn_cast<FieldDecl>(member->getMemberDecl());
    if (!field)
      return std::nullopt;
    // The field of the object the base denotes (p->fd: of what p points to), a place of that
    // object's own. When the object cannot be named, the field's place for every object of its
    // record (what the link also uses for pointers whose objects it does not know).
    std::optional<Id> object;
    if (member->isArrow()) {
      if (std::optional<Id> pointer = pointerValue(member->getBase()))
        object = derefPlace(*pointer);
    } else {
      object = placeOf(member->getBase());
    }
    Id place = object ? memberPlace(*object, field) : fieldPlace(field);
    // A reference member (EventLoop &loop_) holds the address of the object it names.
    if (field->getType()->isReferenceType() && isObjectType(field->getType()))
      return derefPlace(place);
    return place;
  }
  if (const auto *unary = dyn_cast<UnaryOperator>(e); unary && unary->getOpcode() == UO_Deref) {
    QualType pointee = unary->getSubExpr()->getType()->getPointeeType();
    if (!pointee.isNull() && (isObjectType(pointee) || carriesAddress(pointee))) {
      std::optional<Id> pointer = pointerValue(unary->getSubExpr());
      return pointer ? std::optional<Id>(derefPlace(*pointer)) : std::nullopt;
    }
    if (!pointee.isNull() && pointee->isFunctionType())
      return pointerValue(unary->getSubExpr()); // (*cb)(fd) calls what cb points to
    if (const Expr *aliased = aliasedByLocalPointer(unary->getSubExpr()))
      return placeOf(aliased); // int *p = &fd; ... *p (systemd's TAKE_FD()): fd itself
    std::optional<Id> base = placeOf(unary->getSubExpr());
    return base ? std::optional<Id>(element(*base, 0)) : std::nullopt;
  }
  if (const auto *unary = dyn_cast<UnaryOperator>(e); unary && unary->getOpcode() == UO_AddrOf)
    return pointerValue(e);
  if (const auto *subscript = dyn_cast<ArraySubscriptExpr>(e)) {
    std::optional<std::int64_t> index = evalInt(subscript->getIdx(), Ctx);
    int at = index && *index >= 0 ? static_cast<int>(*index) : -1;
    const Expr *baseExpr = subscript->getBase()->IgnoreParens();
    // conns[i] with `struct conn *conns`: an element of the objects conns points to. (An int
    // pointer indexed stays what it was: its elements are the callers' array elements.)
    const auto *decay = dyn_cast<ImplicitCastExpr>(baseExpr);
    bool decayed = decay && decay->getCastKind() == CK_ArrayToPointerDecay;
    if (!decayed && isObjectType(subscript->getType())) {
      std::optional<Id> pointer = pointerValue(subscript->getBase());
      return pointer ? std::optional<Id>(element(derefPlace(*pointer), at)) : std::nullopt;
    }
    std::optional<Id> base = placeOf(subscript->getBase());
    if (!base)
      return std::nullopt;
    return element(*base, at);
  }
  if (const auto *lambda = dyn_cast<LambdaExpr>(e))
    if (const CXXMethodDecl *op = lambda->getCallOperator(); op && !op->isDependentContext())
      return functionValue(op);
  if (isa<CXXNewExpr>(e))
    return pointerValue(e);
  if (const auto *literal = dyn_cast<CompoundLiteralExpr>(e); literal && isObjectType(literal->getType()))
    return newObject(literal, "t", "(" + literal->getType().getAsString() + "){...}");
  if (const auto *member = dyn_cast<CXXMemberCallExpr>(e)) {
    const Expr *object = member->getImplicitObjectArgument();
    const CXXMethodDecl *method = member->getMethodDecl();
    if (object && method && isFdOwnerType(object->getType()) && holdsFd(method->getReturnType()))
      return placeOf(object); // fd.get(), fd.release(), (int)fd
  }
  if (const auto *call = dyn_cast<CallExpr>(e))
    return callValue(call);
  if (const auto *construct = dyn_cast<CXXConstructExpr>(e)) {
    // UniqueFd(fd), UniqueFd(std::move(other)): the owned fd.
    if (isFdOwnerType(construct->getType()))
      return construct->getNumArgs() >= 1 ? placeOf(construct->getArg(0)) : std::nullopt;
    // An object: where it is built (the variable, the returned object), or a temporary.
    if (isObjectType(construct->getType()))
      return storageOf(construct);
    return std::nullopt;
  }
  // A socket-activation fd: SD_LISTEN_FDS_START (+ n), or a project's own LISTEN_FDS_START.
  static const llvm::StringRef activation[] = {"SD_LISTEN_FDS_START", "LISTEN_FDS_START"};
  bool activated = false;
  if (const auto *binary = dyn_cast<BinaryOperator>(e)) {
    if (binary->getOpcode() == BO_Add)
      activated = spelledAs(binary->getLHS(), activation, Ctx) ||
                  spelledAs(binary->getRHS(), activation, Ctx);
  } else {
    activated = spelledAs(e, activation, Ctx);
  }
  if (!activated)
    return std::nullopt;
  std::optional<std::int64_t> value = evalInt(e, Ctx);
  // SD_LISTEN_FDS_START + i: one of them, picked at run time; all such fds are one place.
  std::string text = sourceText(e, Ctx);
  return handedOverFd(value ? "c:" + std::to_string(*value) : "c:listen-fds",
                      value ? text : "SD_LISTEN_FDS_START + n", e, kNone, "SD_LISTEN_FDS_START",
                      "socket activation, " + text, listenFdHandover(value));
}

namespace {
// Whether `var` is assigned, incremented or has its address taken anywhere in `stmt`.
bool reassigned(const Stmt *stmt, const VarDecl *var) {
  if (!stmt)
    return false;
  auto names = [&](const Expr *e) {
    const auto *ref = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts());
    return ref && ref->getDecl() == var;
  };
  if (const auto *op = dyn_cast<BinaryOperator>(stmt); op && op->isAssignmentOp() && names(op->getLHS()))
    return true;
  if (const auto *op = dyn_cast<UnaryOperator>(stmt);
      op && (op->isIncrementDecrementOp() || op->getOpcode() == UO_AddrOf) && names(op->getSubExpr()))
    return true;
  for (const Stmt *child : stmt->children())
    if (reassigned(child, var))
      return true;
  return false;
}
} // namespace

const Expr *Extractor::aliasedByLocalPointer(const Expr *pointer) {
  const auto *ref = dyn_cast<DeclRefExpr>(pointer->IgnoreParenImpCasts());
  const auto *var = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
  if (!var || !var->isLocalVarDecl() || !var->getType()->isPointerType() || !var->getInit())
    return nullptr;
  const auto *address = dyn_cast<UnaryOperator>(var->getInit()->IgnoreParenImpCasts());
  if (!address || address->getOpcode() != UO_AddrOf)
    return nullptr;
  const FunctionDecl *fn = currentFunction();
  // Conservative: a pointer that may point elsewhere later is not an alias.
  if (!fn || reassigned(fn->getBody(), var))
    return nullptr;
  return address->getSubExpr();
}

Id Extractor::storageOf(const CXXConstructExpr *construct) {
  if (auto it = ConstructStorage.find(construct); it != ConstructStorage.end())
    return it->second;
  QualType type = construct->getType();
  return newObject(construct, "t", type.getAsString() + " temporary");
}

std::optional<Id> Extractor::pointerValue(const Expr *expr) {
  const Expr *e = expr;
  while (e) {
    e = e->IgnoreParens();
    if (const auto *cast = dyn_cast<ImplicitCastExpr>(e)) {
      if (cast->getCastKind() == CK_ArrayToPointerDecay) {
        // An array of objects decays to the address of its elements (one object for all).
        QualType element = cast->getSubExpr()->getType()->getAsArrayTypeUnsafe()
                               ? cast->getSubExpr()->getType()->getAsArrayTypeUnsafe()->getElementType()
                               : QualType();
        std::optional<Id> array = placeOf(cast->getSubExpr());
        if (!array)
          return std::nullopt;
        if (!element.isNull() && isObjectType(element))
          return addressOf(this->element(*array, -1));
        return array; // an int array stands for its elements (ArgMode::Array)
      }
      e = cast->getSubExpr();
      continue;
    }
    if (const auto *cast = dyn_cast<ExplicitCastExpr>(e); cast && cast->getType()->isPointerType() &&
                                                           (cast->getSubExpr()->getType()->isPointerType() ||
                                                            cast->getSubExpr()->getType()->isArrayType())) {
      e = cast->getSubExpr(); // (struct conn *)data: the same address
      continue;
    }
    if (const auto *cleanups = dyn_cast<ExprWithCleanups>(e)) {
      e = cleanups->getSubExpr();
      continue;
    }
    if (const auto *temporary = dyn_cast<MaterializeTemporaryExpr>(e)) {
      e = temporary->getSubExpr();
      continue;
    }
    if (const auto *bind = dyn_cast<CXXBindTemporaryExpr>(e)) {
      e = bind->getSubExpr();
      continue;
    }
    break;
  }
  if (!e)
    return std::nullopt;
  if (const auto *unary = dyn_cast<UnaryOperator>(e)) {
    if (unary->getOpcode() == UO_AddrOf) {
      const Expr *sub = unary->getSubExpr()->IgnoreParenImpCasts();
      if (const auto *ref = dyn_cast<DeclRefExpr>(sub))
        if (const auto *fn = dyn_cast<FunctionDecl>(ref->getDecl()))
          return functionValue(fn);
      QualType type = unary->getSubExpr()->getType();
      if (!isObjectType(type) && !carriesAddress(type))
        return std::nullopt; // &fd: an int pointer, followed as ArgMode::Address where passed
      std::optional<Id> object = placeOf(unary->getSubExpr());
      return object ? std::optional<Id>(addressOf(*object)) : std::nullopt;
    }
    if (unary->isIncrementDecrementOp())
      return pointerValue(unary->getSubExpr());
  }
  if (const auto *binary = dyn_cast<BinaryOperator>(e); binary && binary->isAdditiveOp()) {
    // conns + i: the same objects (their elements are one)
    const Expr *pointer = binary->getLHS()->getType()->isPointerType() ? binary->getLHS() : binary->getRHS();
    return pointerValue(pointer);
  }
  if (isa<CXXThisExpr>(e))
    return thisPlace();
  if (const auto *fresh = dyn_cast<CXXNewExpr>(e)) {
    QualType type = fresh->getAllocatedType();
    Id object = newObject(fresh, "h", "new " + type.getAsString());
    if (fresh->isArray())
      object = element(object, -1);
    if (const CXXConstructExpr *construct = fresh->getConstructExpr())
      ConstructStorage[construct] = object;
    return addressOf(object);
  }
  if (isa<CXXNullPtrLiteralExpr>(e) || isa<GNUNullExpr>(e) || isa<IntegerLiteral>(e))
    return std::nullopt;
  return placeOf(e);
}

void Extractor::copyObject(Id from, Id to, QualType type, facts::FlowKind kind, int depth) {
  type = type.getNonReferenceType().getCanonicalType();
  const RecordDecl *record = type->getAsRecordDecl();
  if (!record || !record->getDefinition() || depth > 2 || from == to)
    return;
  record = record->getDefinition();
  if (std::optional<ModelledRecord> modelled = modelledRecord(type)) {
    // What the analysis follows of a library type: its elements, or the callable it holds.
    if (*modelled == ModelledRecord::Container || *modelled == ModelledRecord::Transparent)
      addFlow(element(from, -1), element(to, -1), kind);
    if (*modelled == ModelledRecord::Callable)
      addFlow(memberPlace(from, "<callable>", kNone), memberPlace(to, "<callable>", kNone), kind);
    if (*modelled == ModelledRecord::Transparent || *modelled == ModelledRecord::SmartPointer)
      addFlow(from, to, kind);
    return;
  }
  // A library record's fields hold no fd of the program, unless it is a plain C struct with an
  // int field (struct pollfd); the C++ library's are modelled or not followed at all (its inline
  // bodies are skipped unless --full-parse, so following them would make the two differ).
  if (declaredInSystemHeader(record, SM) && (record->isInStdNamespace() || !holdsFdField(type)))
    return;
  auto fields = [&](const RecordDecl *r, auto &self) -> void {
    if (const auto *cxx = dyn_cast<CXXRecordDecl>(r))
      for (const CXXBaseSpecifier &base : cxx->bases())
        if (const RecordDecl *b = base.getType()->getAsRecordDecl(); b && b->getDefinition())
          self(b->getDefinition(), self);
    for (const FieldDecl *field : r->fields()) {
      QualType t = field->getType();
      if (followed(t)) {
        addFlow(memberPlace(from, field), memberPlace(to, field), kind);
      } else if (isObjectType(t)) {
        copyObject(memberPlace(from, field), memberPlace(to, field), t, kind, depth + 1);
      } else if (const ArrayType *array = t->getAsArrayTypeUnsafe(); array && followed(array->getElementType())) {
        Id a = memberPlace(from, field), b = memberPlace(to, field);
        for (int k : {0, 1, -1})
          addFlow(element(a, k), element(b, k), kind);
      }
    }
  };
  fields(record, fields);
}

// An fd spelled as a number where an fd is expected (fd 3, the first socket-activation fd).
bool inheritedNumber(const Expr *arg, const ASTContext &ctx) {
  const auto *literal = dyn_cast<IntegerLiteral>(arg->IgnoreParenImpCasts());
  // SO_PASSCRED or SOCK_STREAM passed to an int parameter is a constant, not an fd.
  if (!literal || literal->getBeginLoc().isMacroID())
    return false;
  std::optional<std::int64_t> value = evalInt(literal, ctx);
  return value && *value >= 3 && *value < 1024;
}

Id Extractor::indirectValue(const CallExpr *call) {
  SourceLocation loc = SM.getExpansionLoc(call->getBeginLoc());
  return intern(facts::indirectValueKey(normalisedPath(SM.getFilename(loc)), SM.getFileOffset(loc)),
                facts::PlaceKind::Value, sourceText(call->getCallee(), Ctx) + "()",
                functionId(currentFunction()));
}

std::optional<Id> Extractor::modelledValue(const CallExpr *call, const CXXMethodDecl *method) {
  std::optional<ModelledRecord> modelled = modelledRecord(Ctx.getRecordType(method->getParent()));
  if (!modelled)
    return std::nullopt;
  const Expr *objectExpr = nullptr;
  if (const auto *member = dyn_cast<CXXMemberCallExpr>(call))
    objectExpr = member->getImplicitObjectArgument();
  else if (call->getNumArgs() >= 1)
    objectExpr = call->getArg(0);
  if (!objectExpr)
    return std::nullopt;
  std::optional<Id> object = objectNamedBy(objectExpr);
  if (!object)
    return std::nullopt;
  llvm::StringRef name = method->getIdentifier() ? method->getName() : "";
  const auto *op = dyn_cast<CXXOperatorCallExpr>(call);
  OverloadedOperatorKind kind = op ? op->getOperator() : OO_None;
  QualType result = call->getType();
  switch (*modelled) {
  case ModelledRecord::Container: {
    // v[i], v.at(i), v.front(): an element (a map's: the value of its key/value pair); v.data():
    // the elements, as an int array stands for them (or the address of the objects they are);
    // v.begin(), m.find(k): an iterator, the address of the elements.
    llvm::StringRef container = method->getParent()->getName();
    bool map = container.ends_with("map");
    std::optional<std::int64_t> index;
    if (kind == OO_Subscript && call->getNumArgs() >= 2)
      index = evalInt(call->getArg(1), Ctx);
    if (kind == OO_Subscript || name == "at" || name == "front" || name == "back") {
      Id item = element(*object, container == "array" && index && *index >= 0 ? static_cast<int>(*index) : -1);
      return map ? memberPlace(item, "second", kNone) : item;
    }
    if (name == "data") {
      if (carriesAddress(result) && !result->getPointeeType().isNull() && isObjectType(result->getPointeeType()))
        return addressOf(element(*object, -1));
      return *object;
    }
    if (llvm::StringSwitch<bool>(name)
            .Cases("begin", "cbegin", "end", "cend", "rbegin", "rend", "find", "lower_bound", "upper_bound", true)
            .Default(false))
      return addressOf(element(*object, -1));
    return std::nullopt;
  }
  case ModelledRecord::Transparent:
    // *opt, opt.value(), opt->: the value it holds (the optional stands for it)
    if (kind == OO_Arrow)
      return addressOf(*object);
    if (kind == OO_Star || name == "value" || name == "get" || name == "value_or")
      return *object;
    return std::nullopt;
  case ModelledRecord::SmartPointer:
    // p.get(), p->, p.release(): the address it holds; *p: the object
    if (kind == OO_Star)
      return derefPlace(*object);
    if (kind == OO_Arrow || name == "get" || name == "release" || name == "lock")
      return *object;
    return std::nullopt;
  case ModelledRecord::Callable:
    return std::nullopt;
  }
  return std::nullopt;
}


std::optional<Id> Extractor::callValue(const CallExpr *call) {
  const FunctionDecl *callee = call->getDirectCallee();
  if (!callee) {
    if (followed(call->getType()) || isObjectType(call->getType()))
      return indirectValue(call);
    return std::nullopt;
  }
  if (isStdMove(callee) && call->getNumArgs() == 1)
    return placeOf(call->getArg(0));
  if (const auto *method = dyn_cast<CXXMethodDecl>(callee))
    if (std::optional<Id> modelled = modelledValue(call, method))
      return modelled;
  if (callee->isInStdNamespace() && callee->getIdentifier() &&
      (callee->getName() == "make_unique" || callee->getName() == "make_shared" ||
       callee->getName() == "allocate_shared"))
    if (std::optional<Id> object = forwardedObject(call, callee))
      return addressOf(*object); // a smart pointer holding the new object's address
  if (callee->getIdentifier() && allocates(callee)) {
    // A heap object of its own, per allocation.
    Id object = newObject(call, "h", callee->getNameAsString() + "()" +
                                         (currentFunction() ? " in " + currentFunction()->getNameAsString() + "()" : ""));
    return addressOf(object);
  }
  llvm::StringRef name = callee->getIdentifier() ? callee->getName() : "";
  bool api = isSocketApi(callee);
  const FunctionDecl *fn = currentFunction();
  std::string where = fn ? " in " + fn->getNameAsString() + "()" : "";
  if (api && name == "socket" && call->getNumArgs() >= 2) {
    facts::Create create;
    create.how = facts::CreateHow::Socket;
    static const llvm::StringRef families[] = {
        "AF_UNIX",      "AF_LOCAL", "PF_UNIX", "PF_LOCAL", "AF_NETLINK", "PF_NETLINK", "AF_BLUETOOTH",
        "PF_BLUETOOTH", "AF_INET",  "PF_INET", "AF_INET6", "PF_INET6"};
    if (std::optional<std::int64_t> value = evalInt(call->getArg(0), Ctx)) {
      create.family = facts::familyFromValue(*value);
      llvm::StringRef spelled;
      if (spelledAs(call->getArg(0), families, Ctx, &spelled) && familyFromName(spelled) == create.family)
        create.familyName = spelled.str();
      else if (create.family == facts::Family::Other)
        create.familyName = sourceText(call->getArg(0), Ctx);
      else
        create.familyName = facts::name(create.family);
      // Prefer what the user wrote: the outermost family macro of the expansion chain.
      llvm::SmallVector<llvm::StringRef, 4> chain = macroNames(call->getArg(0)->getBeginLoc(), SM, Lang);
      for (auto it = chain.rbegin(); it != chain.rend(); ++it)
        if (familyFromName(*it) == create.family) {
          create.familyName = it->str();
          break;
        }
    }
    if (std::optional<std::int64_t> type = evalInt(call->getArg(1), Ctx))
      create.type = static_cast<int>(*type & kSockTypeMask);
    // socket(family, type, 0) with the family or type a parameter: each caller's constant.
    if (create.family == facts::Family::Unknown)
      create.familyParam = parameterValue(call->getArg(0));
    if (create.type < 0)
      create.typeParam = parameterValue(call->getArg(1));
    create.origin = "socket()" + where;
    return createValue(call, std::move(create), "socket");
  }
  if (api && (name == "accept" || name == "accept4" || name == "paccept") && call->getNumArgs() >= 1) {
    facts::Create create;
    create.how = facts::CreateHow::Accept;
    if (std::optional<Id> listener = placeOf(call->getArg(0)))
      create.listener = *listener;
    create.origin = name.str() + "()" + where;
    return createValue(call, std::move(create), name.str());
  }
  if (api && (name == "dup" || name == "fcntl") && call->getNumArgs() >= 1) {
    // The same socket under a new fd: for fd cycles no longer "the same fd".
    std::optional<Id> from = placeOf(call->getArg(0));
    if (!from)
      return std::nullopt;
    SourceLocation loc = SM.getExpansionLoc(call->getBeginLoc());
    Id place = intern("v:" + name.str() + "@" + normalisedPath(SM.getFilename(loc)) + ":" +
                          std::to_string(SM.getFileOffset(loc)),
                      facts::PlaceKind::Value, name.str() + "()", functionId(fn));
    addFlow(*from, place, facts::FlowKind::Assign, /*exact=*/false);
    return place;
  }
  if (name == "android_get_control_socket" ||
      llvm::is_contained(Options.externalSources, name.str())) {
    facts::Create create;
    create.how = facts::CreateHow::External;
    create.origin = name.str() + "()";
    if (name == "android_get_control_socket" && call->getNumArgs() >= 1)
      if (std::optional<std::string> socketName = constantString(call->getArg(0))) {
        create.handover = "android:" + *socketName;
        create.origin = name.str() + "(\"" + *socketName + "\")";
      }
    return createValue(call, std::move(create), name.str());
  }
  if (auto producer = Options.socketProducers.find(name); producer != Options.socketProducers.end()) {
    facts::Create create;
    create.how = facts::CreateHow::Producer;
    create.family = producer->getValue();
    create.familyName = Options.producerFamilyNames.lookup(name);
    create.origin = name.str() + "()" + where;
    return createValue(call, std::move(create), name.str());
  }
  if (api && returnsNonSocketFd(name)) {
    facts::Create create;
    create.how = facts::CreateHow::NotSocket;
    create.origin = name.str() + "()" + where;
    return createValue(call, std::move(create), name.str());
  }
  for (const FdHolder &holder : Options.fdHolders)
    if (name == holder.load && holder.outArg < 0)
      return holderPlace(holder);
  QualType type = callee->getReturnType();
  bool object = isObjectType(type) && !type->isReferenceType();
  if (!holdsFd(call->getType()) && !holdsFd(type) && !carriesAddress(type) && !object)
    return std::nullopt;
  if (declaredInSystemHeader(callee, SM) && !holdsFd(type))
    return std::nullopt; // a library's pointer or struct: nothing the program put there
  // The value of this call, fed by the callee's return: a place of its own, so that the link can
  // give a function that only hands back an fd it was given (fd_move_above_stdio(fd)) each
  // caller's own fd instead of every caller's.
  Id ret = returnPlace(callee);
  SourceLocation loc = SM.getExpansionLoc(call->getBeginLoc());
  Id value = intern(facts::callValueKey(U.functions[functionId(callee)].key, normalisedPath(SM.getFilename(loc)),
                                 SM.getFileOffset(loc)),
                    facts::PlaceKind::Value, callee->getNameAsString() + "()", functionId(fn));
  if (object)
    copyObject(ret, value, type, facts::FlowKind::Return); // a struct returned by value
  else
    addFlow(ret, value, facts::FlowKind::Return);
  if (type->isReferenceType() && isObjectType(type))
    return derefPlace(value); // T &get(): the object the returned address names
  return value;
}

void Extractor::flowInto(const Expr *value, std::optional<Id> target, facts::FlowKind kind, bool exact) {
  if (!target || !value)
    return;
  const Expr *e = stripValue(value);
  if (!e)
    return;
  if (const auto *conditional = dyn_cast<AbstractConditionalOperator>(e)) {
    flowInto(conditional->getTrueExpr(), target, kind, exact);
    flowInto(conditional->getFalseExpr(), target, kind, exact);
    return;
  }
  if (const auto *binary = dyn_cast<BinaryOperator>(e)) {
    if (binary->getOpcode() == BO_Comma || binary->getOpcode() == BO_Assign) {
      flowInto(binary->getRHS(), target, kind, exact); // a = b = socket(...)
      return;
    }
  }
  // UniqueFd fd; or UniqueFd fd(-1): no fd yet.
  if (const auto *construct = dyn_cast<CXXConstructExpr>(e);
      construct && isFdOwnerType(construct->getType()) &&
      (construct->getNumArgs() == 0 || isa<CXXDefaultArgExpr>(construct->getArg(0))))
    return;
  if (std::optional<Id> from = carriesAddress(e->getType()) ? pointerValue(e) : placeOf(e)) {
    bool viaUnknownIndex = (U.places[*from].kind == facts::PlaceKind::Element && U.places[*from].index < 0) ||
                           objectAtRunTimeIndex(e);
    addFlow(*from, *target, kind, exact && !viaUnknownIndex);
    return;
  }
  // A socket constant kept for later (family = AF_INET6; a.domain = AF_UNIX).
  if (std::optional<Id> constant = constantPlace(e)) {
    addFlow(*constant, *target, kind);
    return;
  }
  // A value we cannot follow (x + 1, a call through a pointer). Small constants (-1, 0) are
  // "no socket yet", not an origin; nor is a negated value (-errno, -EINVAL): never an fd.
  if (const auto *unary = dyn_cast<UnaryOperator>(e); unary && unary->getOpcode() == UO_Minus)
    return;
  if (!evalInt(e, Ctx))
    untracked(*target);
}

// ---------------------------------------------------------------------------------------------
// Processing the deferred events of one function

void Extractor::finishScope(Scope &s) {
  if (s.fn && (!s.credentialTests.empty() || s.credentialSwitch))
    U.functions[functionId(s.fn)].credentialOutcome = credentialOutcome(s);
  FlowSensitivity flow;
  Current = &s;
  if (s.fn && s.socketCalls && s.fn->getBody())
    buildFlowSensitivity(s, flow);
  Flow = flow.cfg ? &flow : nullptr;
  std::size_t listenFds = ListenFdCreates.size();
  for (const Event &event : s.events)
    process(event);
  if (s.listenFdNames)
    for (std::size_t i = listenFds; i < ListenFdCreates.size(); ++i)
      U.creates[ListenFdCreates[i]].handoverNames = s.comparedStrings;
  Flow = nullptr;
  Current = nullptr;
}

void Extractor::process(const Event &event) {
  EventLoop = event.loop;
  switch (event.kind) {
  case Event::Call:
    processCall(static_cast<const CallExpr *>(event.node), event);
    return;
  case Event::Construct:
    processConstruct(static_cast<const CXXConstructExpr *>(event.node), event);
    return;
  case Event::Assign: {
    const auto *op = static_cast<const BinaryOperator *>(event.node);
    const Expr *lhs = op->getLHS()->IgnoreParenImpCasts();
    // *(int *)CMSG_DATA(c) = fd, ((int *)CMSG_DATA(c))[i] = fds[i], p[i] = fd with p = CMSG_DATA(c)
    const Expr *target = nullptr;
    if (const auto *deref = dyn_cast<UnaryOperator>(lhs); deref && deref->getOpcode() == UO_Deref)
      target = deref->getSubExpr();
    else if (const auto *element = dyn_cast<ArraySubscriptExpr>(lhs))
      target = element->getBase();
    if (target && isCmsgData(target)) {
      payload(op, op->getRHS(), false, 1, event);
      return;
    }
    QualType type = op->getLHS()->getType();
    if (isObjectType(type)) { // *p = conn, a = b: the object copied field by field
      if (std::optional<Id> from = placeOf(op->getRHS()))
        if (std::optional<Id> to = placeOf(lhs))
          copyObject(*from, *to, type, facts::FlowKind::Assign);
      return;
    }
    if (!followed(type))
      return;
    std::optional<Id> place;
    if (const auto *ref = dyn_cast<DeclRefExpr>(lhs); ref && isa<VarDecl>(ref->getDecl()))
      place = definitionTarget(cast<VarDecl>(ref->getDecl()), op);
    else if ((place = placeOf(lhs)))
      place = writeTarget(*place);
    auto named = Current->namedAssignments.find(op);
    if (place && Current->listenFdNames && named != Current->namedAssignments.end()) {
      addFlow(namedListenFd(named->second, op), *place, facts::FlowKind::Assign);
      // The socket-activation fd of this name, and no other: not every listen fd.
      if (isListenFdValue(op->getRHS()))
        return;
    }
    flowInto(op->getRHS(), place, facts::FlowKind::Assign);
    return;
  }
  case Event::VarInit: {
    const auto *var = static_cast<const VarDecl *>(event.node);
    const Expr *init = var->getInit();
    if (var->getType()->isArrayType()) {
      if (const auto *list = dyn_cast<InitListExpr>(init->IgnoreImplicit()))
        if (std::optional<Id> array = plainVarPlace(var))
          for (unsigned i = 0; i < list->getNumInits(); ++i)
            flowInto(list->getInit(i), element(*array, static_cast<int>(i)), facts::FlowKind::Init);
      return;
    }
    if (isObjectType(var->getType()) && !var->getType()->isReferenceType()) {
      std::optional<Id> object = plainVarPlace(var);
      if (!object)
        return;
      if (const auto *list = dyn_cast<InitListExpr>(init->IgnoreImplicit()))
        initFields(list, *object);
      else if (std::optional<Id> from = placeOf(init))
        copyObject(*from, *object, var->getType(), facts::FlowKind::Init); // struct conn c = *p
      return;
    }
    std::optional<Id> place = plainVarPlace(var);
    if (place && var->getType()->isReferenceType()) {
      // Conn &c = conns[i]: the reference holds the object's address
      if (std::optional<Id> object = placeOf(init))
        addFlow(addressOf(*object), *place, facts::FlowKind::Init);
      return;
    }
    if (Flow)
      if (auto it = Flow->initDef.find(var); it != Flow->initDef.end())
        place = Flow->defs[it->second].place;
    flowInto(init, place, facts::FlowKind::Init);
    return;
  }
  case Event::Return: {
    const auto *ret = static_cast<const ReturnStmt *>(event.node);
    QualType type = Current->fn->getReturnType();
    if (isObjectType(type) && !type->isReferenceType()) {
      if (std::optional<Id> object = placeOf(ret->getRetValue()))
        copyObject(*object, returnPlace(Current->fn), type, facts::FlowKind::Return);
      return;
    }
    if (type->isReferenceType() && isObjectType(type)) { // T &get() { return obj_; }
      if (std::optional<Id> object = placeOf(ret->getRetValue()))
        addFlow(addressOf(*object), returnPlace(Current->fn), facts::FlowKind::Return);
      return;
    }
    flowInto(ret->getRetValue(), returnPlace(Current->fn), facts::FlowKind::Return);
    return;
  }
  case Event::Table: {
    const auto *var = static_cast<const VarDecl *>(event.node);
    llvm::SmallVector<const DeclRefExpr *, 4> functions;
    functionsInInitializer(var->getInit(), functions);
    Id table = tablePlace(var);
    for (const DeclRefExpr *ref : functions) {
      const auto *fn = cast<FunctionDecl>(ref->getDecl());
      int param = firstFdParam(fn);
      if (param < 0)
        continue;
      addFlow(table, paramPlace(fn, static_cast<unsigned>(param)), facts::FlowKind::Callback);
      ModeledRefs.insert(ref);
    }
    return;
  }
  case Event::CtorInit: {
    const auto *init = static_cast<const CXXCtorInitializer *>(event.node);
    const FieldDecl *field = init->getMember();
    std::optional<Id> self = thisPlace();
    Id place = self ? memberPlace(derefPlace(*self), field) : fieldPlace(field);
    QualType type = field->getType();
    if (type->isReferenceType()) { // loop_(loop): the address of the object it names
      if (isObjectType(type)) {
        if (std::optional<Id> object = placeOf(init->getInit()))
          addFlow(addressOf(*object), place, facts::FlowKind::Init);
      } else {
        flowInto(init->getInit(), place, facts::FlowKind::Init);
      }
      return;
    }
    if (isObjectType(type)) {
      if (!isa<CXXConstructExpr>(stripValue(init->getInit())))
        if (std::optional<Id> from = placeOf(init->getInit()))
          copyObject(*from, place, type, facts::FlowKind::Init);
      return;
    }
    flowInto(init->getInit(), place, facts::FlowKind::Init);
    return;
  }
  }
}

void Extractor::payload(const Stmt *write, const Expr *value, bool many, std::int64_t count,
                        const Event &event) {
  facts::Payload p;
  p.site = makeSite(write, value, event.loop);
  const Expr *source = value->IgnoreParenCasts();
  if (!many) {
    if (std::optional<Id> place = placeOf(value))
      p.place = *place;
  } else {
    const Expr *base = arrayBase(source);
    if (std::optional<Id> place = placeOf(base))
      p.place = *place;
    if (const auto *type = dyn_cast<ConstantArrayType>(
            base->getType().getTypePtr()->getUnqualifiedDesugaredType()))
      p.boundedArray = type->getSize().getZExtValue() <= static_cast<std::uint64_t>(kernel::kScmMaxFd);
    // The elements' text, not the address expression: "fds", not "&fds[0]".
    U.sites[p.site].text = sourceText(base, Ctx);
    U.sites[p.site].var = variableKey(base);
  }
  p.many = many;
  p.count = count;
  U.payloads.push_back(std::move(p));
}

void Extractor::pairCreates(const CallExpr *call, const Expr *arrayArg, facts::CreateHow how,
                            const Event &event) {
  std::optional<Id> array = placeOf(arrayBase(arrayArg));
  if (!array)
    return; // the fds land where we cannot follow them
  llvm::StringRef name = calleeName(call);
  const FunctionDecl *fn = currentFunction();
  std::string where = fn ? " in " + fn->getNameAsString() + "()" : "";
  Id ends[2] = {writeTarget(element(*array, 0)), writeTarget(element(*array, 1))};
  Id site = makeSite(call, arrayArg, event.loop);
  for (int i = 0; i < 2; ++i) {
    facts::Create create;
    create.place = ends[i];
    create.how = how;
    create.site = site;
    create.end = i;
    create.creator = name.str();
    if (how == facts::CreateHow::Socketpair) {
      if (std::optional<std::int64_t> family = evalInt(call->getArg(0), Ctx)) {
        create.family = facts::familyFromValue(*family);
        create.familyName = facts::name(create.family);
      }
      if (std::optional<std::int64_t> type = evalInt(call->getArg(1), Ctx))
        create.type = static_cast<int>(*type & kSockTypeMask);
      create.peer = ends[1 - i];
    }
    create.origin = name.str() + "()" + where;
    create.statement = event.statement;
    U.creates.push_back(std::move(create));
  }
}

// The sun_path a bind()/connect()/sendto() address argument holds: `&addr` (or `&sa.un`,
// `(struct sockaddr *)&addr`) of a local filled in this function by an initializer
// ({.sun_path = "/run/x"}) or a copy into addr.sun_path (strcpy, strncpy, strlcpy, memcpy,
// snprintf with "%s" or a constant format), from a constant or from a parameter. Writing into
// sun_path + 1 (or &sun_path[1]) makes an abstract name. When the function fills it in more
// than one way, it is not known.
// Every write into some variable's sun_path in `fn` (strcpy() and the like, snprintf()), found in
// one walk of its body: a function that binds thousands of sockets must not walk it per bind().
std::map<const VarDecl *, std::vector<Extractor::SunPathWrite>> &Extractor::sunPathWrites(const FunctionDecl *fn) {
  auto [it, fresh] = SunPathWritesByFunction.try_emplace(fn);
  if (!fresh || !fn->getBody())
    return it->second;
  auto &writes = it->second;
  // The variable whose `x.sun_path` (or `x.un.sun_path`) `dest` is, and whether the expression
  // writes past its first byte (an abstract name).
  auto sunPathOf = [&](const Expr *dest, bool &abstract) -> const VarDecl * {
    dest = dest->IgnoreParenCasts();
    abstract = false;
    if (const auto *plus = dyn_cast<BinaryOperator>(dest); plus && plus->getOpcode() == BO_Add) {
      std::optional<std::int64_t> offset = evalInt(plus->getRHS(), Ctx);
      abstract = offset && *offset == 1;
      dest = plus->getLHS()->IgnoreParenCasts();
    } else if (const auto *address = dyn_cast<UnaryOperator>(dest); address && address->getOpcode() == UO_AddrOf) {
      if (const auto *element = dyn_cast<ArraySubscriptExpr>(address->getSubExpr()->IgnoreParenCasts())) {
        std::optional<std::int64_t> index = evalInt(element->getIdx(), Ctx);
        abstract = index && *index == 1;
        dest = element->getBase()->IgnoreParenCasts();
      }
    }
    const auto *member = dyn_cast<MemberExpr>(dest);
    if (!member || !member->getMemberDecl()->getIdentifier() || member->getMemberDecl()->getName() != "sun_path")
      return nullptr;
    const Expr *base = member->getBase()->IgnoreParenCasts();
    while (const auto *m = dyn_cast<MemberExpr>(base))
      base = m->getBase()->IgnoreParenCasts();
    const auto *baseRef = dyn_cast<DeclRefExpr>(base);
    return baseRef ? dyn_cast<VarDecl>(baseRef->getDecl()) : nullptr;
  };
  llvm::SmallVector<const Stmt *, 64> work{fn->getBody()};
  while (!work.empty()) {
    const Stmt *st = work.pop_back_val();
    if (!st)
      continue;
    if (const auto *call = dyn_cast<CallExpr>(st))
      if (const FunctionDecl *callee = call->getDirectCallee(); callee && callee->getIdentifier() && call->getNumArgs() >= 2) {
        llvm::StringRef name = callee->getName();
        bool abstract = false;
        if (name == "strcpy" || name == "strncpy" || name == "strlcpy" || name == "memcpy" ||
            name == "stpcpy" || name == "stpncpy" || name == "__builtin_strncpy" || name == "__builtin_memcpy" ||
            name == "__builtin_strcpy") {
          if (const VarDecl *var = sunPathOf(call->getArg(0), abstract))
            writes[var].push_back({call->getArg(1), abstract});
        } else if (name == "snprintf" || name == "sprintf") {
          if (const VarDecl *var = sunPathOf(call->getArg(0), abstract)) {
            unsigned format = name == "snprintf" ? 2 : 1;
            if (call->getNumArgs() > format)
              if (std::optional<std::string> f = constantString(call->getArg(format))) {
                if (*f == "%s" && call->getNumArgs() > format + 1)
                  writes[var].push_back({call->getArg(format + 1), abstract});
                else if (!llvm::StringRef(*f).contains('%'))
                  writes[var].push_back({call->getArg(format), abstract});
                else
                  writes[var].push_back({nullptr, abstract});
              }
          }
        }
      }
    for (const Stmt *child : st->children())
      work.push_back(child);
  }
  return writes;
}

facts::Address Extractor::socketAddress(const Expr *arg) {
  facts::Address out;
  const Expr *e = arg->IgnoreParenCasts();
  // glibc's _GNU_SOURCE __CONST_SOCKADDR_ARG: a transparent union built around the pointer.
  if (const auto *literal = dyn_cast<CompoundLiteralExpr>(e))
    if (const auto *list = dyn_cast_or_null<InitListExpr>(literal->getInitializer());
        list && list->getNumInits() == 1)
      e = list->getInit(0)->IgnoreParenCasts();
  if (const auto *u = dyn_cast<UnaryOperator>(e); u && u->getOpcode() == UO_AddrOf)
    e = u->getSubExpr()->IgnoreParenCasts();
  while (const auto *m = dyn_cast<MemberExpr>(e))
    e = m->getBase()->IgnoreParenCasts();
  const auto *ref = dyn_cast<DeclRefExpr>(e);
  const auto *var = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
  if (!var || !Current || !Current->fn || !Current->fn->getBody())
    return out;
  std::set<std::string> paths;
  std::set<int> params;
  auto take = [&](const Expr *source, bool abstract) {
    if (!source) {
      paths.insert(""); // a format we do not follow: not known
      return;
    }
    source = source->IgnoreParenImpCasts();
    if (std::optional<std::string> text = constantString(source)) {
      paths.insert(abstract ? "@" + *text : unixPath(*text));
      return;
    }
    if (const auto *r = dyn_cast<DeclRefExpr>(source))
      if (const auto *param = dyn_cast<ParmVarDecl>(r->getDecl()); param && param->getDeclContext() == Current->fn) {
        params.insert(static_cast<int>(param->getFunctionScopeIndex()));
        return;
      }
    paths.insert(""); // something else: not known
  };
  if (const auto *init = dyn_cast_or_null<InitListExpr>(var->getInit() ? var->getInit()->IgnoreImplicit() : nullptr)) {
    if (const RecordDecl *record = init->getType()->getAsRecordDecl())
      for (const FieldDecl *field : record->fields())
        if (field->getIdentifier() && field->getName() == "sun_path" && field->getFieldIndex() < init->getNumInits())
          if (const auto *literal = dyn_cast<StringLiteral>(init->getInit(field->getFieldIndex())->IgnoreParenImpCasts()))
            paths.insert(unixPath(literal->getString()));
  }
  for (const SunPathWrite &w : sunPathWrites(Current->fn)[var])
    take(w.source, w.abstract);
  if (paths.size() + params.size() != 1 || paths.count(""))
    return out;
  if (!paths.empty())
    out.path = *paths.begin();
  else
    out.param = *params.begin();
  return out;
}

void Extractor::recordWrite(const CallExpr *call, llvm::StringRef name, const Event &event) {
  // write()/writev() on any fd is common (files, pipes): only where sockets are handled.
  if ((name == "write" || name == "writev") && !Current->socketCalls)
    return;
  std::optional<Id> place = placeOf(call->getArg(0));
  if (!place)
    return;
  facts::Write fact;
  fact.place = *place;
  fact.site = makeSite(call, call->getArg(0), event.loop);
  fact.credentials = (name == "sendmsg" || name == "sendmmsg") && Current->fn &&
                     U.functions[functionId(Current->fn)].buildsScmCredentials;
  if (name == "sendto" && call->getNumArgs() >= 5)
    fact.address = socketAddress(call->getArg(4));
  if (name == "sendmsg" && call->getNumArgs() >= 2)
    if (const Expr *destination = msgNameOf(call->getArg(1)))
      fact.address = socketAddress(destination);
  U.writes.push_back(std::move(fact));
}

// What `msg.msg_name` is set to in this function, for sendmsg(fd, &msg, ...): an assignment
// (msg.msg_name = &addr) or the initializer ({.msg_name = &addr}); null when it is not one
// expression.
const Expr *Extractor::msgNameOf(const Expr *message) {
  const auto *address = dyn_cast<UnaryOperator>(message->IgnoreParenImpCasts());
  const auto *ref = address && address->getOpcode() == UO_AddrOf
                        ? dyn_cast<DeclRefExpr>(address->getSubExpr()->IgnoreParenImpCasts())
                        : nullptr;
  const auto *var = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
  if (!var || !Current || !Current->fn || !Current->fn->getBody())
    return nullptr;
  const Expr *found = nullptr;
  int assignments = 0;
  if (const auto *init = dyn_cast_or_null<InitListExpr>(var->getInit() ? var->getInit()->IgnoreImplicit() : nullptr)) {
    if (const RecordDecl *record = init->getType()->getAsRecordDecl())
      for (const FieldDecl *field : record->fields())
        if (field->getIdentifier() && field->getName() == "msg_name" &&
            field->getFieldIndex() < init->getNumInits())
          if (const Expr *value = init->getInit(field->getFieldIndex());
              value && !isa<ImplicitValueInitExpr>(value) &&
              !value->isNullPointerConstant(Ctx, Expr::NPC_ValueDependentIsNotNull)) {
            found = value;
            ++assignments;
          }
  }
  llvm::SmallVector<const Stmt *, 32> work{Current->fn->getBody()};
  while (!work.empty()) {
    const Stmt *st = work.pop_back_val();
    if (!st)
      continue;
    if (const auto *op = dyn_cast<BinaryOperator>(st); op && op->getOpcode() == BO_Assign)
      if (const auto *member = dyn_cast<MemberExpr>(op->getLHS()->IgnoreParenImpCasts());
          member && member->getMemberDecl()->getIdentifier() &&
          member->getMemberDecl()->getName() == "msg_name")
        if (const auto *base = dyn_cast<DeclRefExpr>(member->getBase()->IgnoreParenImpCasts());
            base && base->getDecl() == var) {
          found = op->getRHS();
          ++assignments;
        }
    for (const Stmt *child : st->children())
      work.push_back(child);
  }
  return assignments == 1 ? found : nullptr;
}

void Extractor::processCall(const CallExpr *call, const Event &event) {
  const FunctionDecl *callee = call->getDirectCallee();
  if (!callee) {
    processRegistration(call, nullptr, event);
    llvm::SmallVector<const Expr *, 4> args(call->arguments());
    if (!isa<CXXPseudoDestructorExpr>(call->getCallee()->IgnoreParenImpCasts()))
      processIndirectCall(call, call->getCallee(), args, event);
    return;
  }
  if (isStdMove(callee))
    return;
  llvm::StringRef name = callee->getIdentifier() ? callee->getName() : "";
  bool api = isSocketApi(callee);
  const SyscallWrapper *wrapped = wrappedSocketCall(call, name, api, Options, Ctx);

  if (api && isWriteCall(name) && call->getNumArgs() >= 1)
    recordWrite(call, name, event);

  // A creating call interns its value (and its origin) even when the value is dropped.
  if (api && (name == "socket" || name == "accept" || name == "accept4" || name == "paccept"))
    placeOf(call);

  if (api && name == "socketpair" && call->getNumArgs() >= 4) {
    pairCreates(call, call->getArg(3), facts::CreateHow::Socketpair, event);
  } else if (api && (name == "pipe" || name == "pipe2") && call->getNumArgs() >= 1) {
    pairCreates(call, call->getArg(0), facts::CreateHow::NotSocket, event);
  } else if (api && (name == "bind" || name == "listen" || name == "connect") && call->getNumArgs() >= 1) {
    if (std::optional<Id> socket = placeOf(call->getArg(0))) {
      facts::LifecycleEvent fact;
      fact.place = *socket;
      fact.site = makeSite(call, call->getArg(0), event.loop);
      fact.kind = name == "bind" ? facts::Lifecycle::Bind
                  : name == "listen" ? facts::Lifecycle::Listen
                                     : facts::Lifecycle::Connect;
      fact.statement = event.statement;
      if (fact.kind != facts::Lifecycle::Listen && call->getNumArgs() >= 2)
        fact.address = socketAddress(call->getArg(1));
      U.lifecycle.push_back(std::move(fact));
    }
  } else if (unsigned from = wrapped && wrapped->call == "recvmsg" ? wrapped->firstArg : 0;
             ((api && isReceiveCall(name)) || (wrapped && wrapped->call == "recvmsg")) &&
             call->getNumArgs() >= from + 1) {
    if (std::optional<Id> socket = placeOf(call->getArg(from))) {
      facts::Receive fact;
      fact.place = *socket;
      fact.site = makeSite(call, call->getArg(from), event.loop);
      fact.kind = name == "recvmsg" || wrapped ? facts::ReceiveKind::Recvmsg : facts::ReceiveKind::Other;
      U.receives.push_back(std::move(fact));
    }
  } else if (unsigned at = api && name == "sendmsg" ? 0
                         : wrapped && wrapped->call == "sendmsg" ? wrapped->firstArg
                                                                  : UINT_MAX;
             at != UINT_MAX && call->getNumArgs() >= at + 2) {
    // sendmsg(fd, &msg, flags), or a wrapper (syscall(SYS_sendmsg, fd, &msg, flags)): arguments
    // from `at`.
    facts::Send send;
    const Expr *message = call->getArg(at + 1)->IgnoreParenImpCasts();
    if (const auto *ref = dyn_cast<DeclRefExpr>(message))
      if (const auto *param = dyn_cast<ParmVarDecl>(ref->getDecl());
          param && Current->fn && param->getDeclContext() == Current->fn)
        send.msghdrParam = static_cast<int>(param->getFunctionScopeIndex());
    bool builds = Current->fn && U.functions[functionId(Current->fn)].buildsScmRights;
    if (!builds && send.msghdrParam < 0)
      return; // no SCM_RIGHTS in sight: conservatively, the message carries no fds
    if (std::optional<Id> channel = placeOf(call->getArg(at)))
      send.channel = *channel;
    send.site = makeSite(call, call->getArg(at), event.loop);
    if (call->getNumArgs() > at + 2) {
      static const llvm::StringRef dontWait[] = {"MSG_DONTWAIT"};
      const Expr *flags = call->getArg(at + 2);
      std::optional<std::int64_t> value = evalInt(flags, Ctx);
      send.dontWait = value ? (*value & kernel::kMsgDontwait) != 0 : mentionsSpelled(flags, dontWait, Ctx);
    }
    // `if (errno == EAGAIN) return;` anywhere in the function: a full peer ends this send, it is
    // not retried until the peer has room.
    static const llvm::StringRef again[] = {"EAGAIN", "EWOULDBLOCK"};
    std::function<bool(const Stmt *)> stops = [&](const Stmt *st) {
      if (!st)
        return false;
      if (const auto *ifStmt = dyn_cast<IfStmt>(st);
          ifStmt && mentionsSpelled(ifStmt->getCond(), again, Ctx) && leaves(ifStmt->getThen()))
        return true;
      for (const Stmt *child : st->children())
        if (stops(child))
          return true;
      return false;
    };
    send.stopsOnEagain = Current->fn && Current->fn->getBody() && stops(Current->fn->getBody());
    U.sends.push_back(std::move(send));
  } else if (api && (name == "dup2" || name == "dup3") && call->getNumArgs() >= 2) {
    if (std::optional<Id> from = placeOf(call->getArg(0)))
      if (std::optional<Id> to = placeOf(call->getArg(1)))
        addFlow(*from, *to, facts::FlowKind::Assign, /*exact=*/false);
  } else if (isMemoryCopy(name) && call->getNumArgs() >= 3 && isCmsgData(call->getArg(0))) {
    std::optional<std::int64_t> bytes = evalInt(call->getArg(2), Ctx);
    std::int64_t count = bytes && *bytes % 4 == 0 ? *bytes / 4 : -1; // sizeof(int)
    const Expr *source = call->getArg(1)->IgnoreParenCasts();
    const auto *address = dyn_cast<UnaryOperator>(source);
    if (address && address->getOpcode() == UO_AddrOf && count == 1)
      payload(call, address->getSubExpr(), false, 1, event); // &fd, &sv[0], &s->fd: one fd
    else
      payload(call, call->getArg(1), count != 1, count, event);
    // sizeof(int) * n with n a parameter: each caller's n decides (a helper called with `&fd, 1`).
    if (count < 0)
      U.payloads.back().countParam = countParameter(call->getArg(2));
  } else if (call->getNumArgs() >= 1) {
    processOption(call, callee, event);
  }

  for (const FdHolder &holder : Options.fdHolders) {
    if (name == holder.store && static_cast<int>(call->getNumArgs()) > holder.fdArg)
      flowInto(call->getArg(holder.fdArg), holderPlace(holder), facts::FlowKind::Assign);
    if (name == holder.load && holder.outArg >= 0 && static_cast<int>(call->getNumArgs()) > holder.outArg) {
      const Expr *out = call->getArg(holder.outArg)->IgnoreParenCasts();
      std::optional<Id> target;
      if (const auto *address = dyn_cast<UnaryOperator>(out); address && address->getOpcode() == UO_AddrOf)
        target = placeOf(address->getSubExpr());
      else if (std::optional<Id> base = placeOf(out))
        target = element(*base, 0);
      if (target)
        addFlow(holderPlace(holder), *target, facts::FlowKind::Assign);
    }
  }

  processRegistration(call, callee, event);

  // Owners: fd.reset(other), fd = std::move(other).
  if (const auto *member = dyn_cast<CXXMemberCallExpr>(call)) {
    const Expr *object = member->getImplicitObjectArgument();
    if (object && isFdOwnerType(object->getType()) && name == "reset" && call->getNumArgs() == 1)
      flowInto(call->getArg(0), placeOf(object), facts::FlowKind::Assign);
  }
  if (const auto *op = dyn_cast<CXXOperatorCallExpr>(call);
      op && op->getOperator() == OO_Equal && op->getNumArgs() == 2 &&
      isFdOwnerType(op->getArg(0)->getType())) {
    flowInto(op->getArg(1), placeOf(op->getArg(0)), facts::FlowKind::Assign);
    return;
  }

  // std::make_unique<Server>(fd), v.emplace_back(fd): the constructor gets the arguments.
  // (A member's own context is its class: ask for the namespace around it.)
  const Decl *owner = isa<CXXMethodDecl>(callee) ? static_cast<const Decl *>(cast<CXXMethodDecl>(callee)->getParent()) : callee;
  bool inStd = owner->isInStdNamespace();
  if (inStd && constructsForwarded(name)) {
    QualType built;
    unsigned skip = 0;
    if (const TemplateArgumentList *targs = callee->getTemplateSpecializationArgs();
        targs && targs->size() >= 1 && targs->get(0).getKind() == TemplateArgument::Type &&
        (name.starts_with("make_") || name == "allocate_shared" || name == "construct_at"))
      built = targs->get(0).getAsType();
    if (name == "allocate_shared" || name == "construct_at")
      skip = 1;
    if (const auto *method = dyn_cast<CXXMethodDecl>(callee); method && built.isNull())
      if (const auto *spec = dyn_cast<ClassTemplateSpecializationDecl>(method->getParent())) {
        const TemplateArgumentList &args = spec->getTemplateArgs();
        bool mapped = name == "try_emplace";
        skip = name == "emplace_hint" || mapped ? 1 : 0;
        if (args.size() > (mapped ? 1u : 0u) && args[mapped ? 1 : 0].getKind() == TemplateArgument::Type)
          built = args[mapped ? 1 : 0].getAsType();
      }
    // The object it builds: a heap object of its own (make_unique), or an element of the container
    // it is called on (emplace_back): the constructor's `this`.
    std::optional<Id> object = forwardedObject(call, callee);
    if (const CXXRecordDecl *record = built.isNull() ? nullptr : built->getAsCXXRecordDecl())
      if (record->hasDefinition() && !isFdOwner(record))
        for (const CXXConstructorDecl *ctor : record->getDefinition()->ctors())
          if (call->getNumArgs() >= skip && ctor->getNumParams() == call->getNumArgs() - skip) {
            llvm::SmallVector<const Expr *, 4> args(call->arguments());
            processUserCall(call, ctor, llvm::ArrayRef(args).drop_front(skip), event, true,
                            object ? std::optional<Id>(addressOf(*object)) : std::nullopt);
          }
    // A container of fds (or a value-holding type): what emplace_back(fd) puts there.
    if (object && built.isNull() == false && holdsFd(built))
      for (unsigned i = skip; i < call->getNumArgs(); ++i)
        flowInto(call->getArg(i), *object, facts::FlowKind::Assign);
    return;
  }

  if (processModelledCall(call, callee, event))
    return;
  // epoll_wait(ep, out, n, t) writes into out[] what epoll_ctl() was given: objects the program
  // cannot see written, read as every object of their record (as through a pointer from outside).
  if (api && (name == "epoll_wait" || name == "epoll_pwait" || name == "epoll_pwait2") && call->getNumArgs() >= 2)
    if (std::optional<Id> pointer = pointerValue(call->getArg(1))) {
      Id object = derefPlace(*pointer);
      for (const facts::Points &pt : U.points)
        if (pt.place == *pointer && pt.target != kNone)
          object = pt.target;
      untracked(object);
    }
  // An object whose address a library is given (epoll_ctl(..., &ev)) may be kept there and read
  // back: it is an object of its own, kept with its fields.
  if (declaredInSystemHeader(callee, SM) && !(api && isSocketCallName(name)))
    for (const Expr *arg : call->arguments())
      if (const auto *pointer = arg->getType()->getAs<PointerType>();
          pointer && isObjectType(pointer->getPointeeType()) && !pointer->getPointeeType().isConstQualified())
        pointerValue(arg);
  if (declaredInSystemHeader(callee, SM) || (api && isSocketCallName(name)))
    return; // library code: what it does with an fd is modelled above or not at all
  llvm::SmallVector<const Expr *, 4> args(call->arguments());
  unsigned first = 0;
  // A call of an operator method passes the object first.
  if (isa<CXXOperatorCallExpr>(call) && isa<CXXMethodDecl>(callee))
    first = 1;
  processUserCall(call, callee, llvm::ArrayRef(args).drop_front(first), event);
}

facts::Argument Extractor::argumentFor(QualType type, const Expr *value, const Event &event, bool forwarded) {
  facts::Argument arg;
  if (holdsFd(type) || (forwarded && holdsFd(value->getType()))) {
    if (std::optional<Id> constant = constantPlace(value)) {
      // bind_listen(AF_INET6, ...): the callee's socket(family, ...) takes it.
      arg.place = *constant;
      arg.mode = facts::ArgMode::Value;
    } else if (std::optional<Id> place = placeOf(value)) {
      arg.place = *place;
      arg.mode = facts::ArgMode::Value;
      arg.exact = !objectAtRunTimeIndex(value);
    } else if (inheritedNumber(value, Ctx)) {
      arg.place = inheritedFd(*evalInt(value, Ctx), value, event.loop);
      arg.mode = facts::ArgMode::Value;
    } else if (!evalInt(value, Ctx)) {
      // Passed something we cannot follow: the parameter may hold any socket.
      arg.mode = facts::ArgMode::Value;
    } else {
      // -1 or 0: "no socket" from this caller; the parameter is not left to the unknown.
      arg.mode = facts::ArgMode::Constant;
    }
  } else if (const auto *pointer = type->getAs<PointerType>();
             pointer && holdsFd(pointer->getPointeeType())) {
    const Expr *bare = value->IgnoreParenImpCasts();
    if (const auto *address = dyn_cast<UnaryOperator>(bare); address && address->getOpcode() == UO_AddrOf) {
      if (std::optional<Id> place = placeOf(address->getSubExpr())) {
        arg.place = *place;
        arg.mode = facts::ArgMode::Address;
      }
    } else if (std::optional<Id> place = placeOf(arrayBase(bare))) {
      arg.place = *place;
      arg.mode = facts::ArgMode::Array;
    }
  } else if (carriesAddress(type)) {
    // An address: a pointer's value, or the object a reference parameter is bound to.
    std::optional<Id> place;
    if (type->isReferenceType()) {
      if (std::optional<Id> object = placeOf(value))
        place = addressOf(*object);
    } else {
      place = pointerValue(value);
    }
    if (place) {
      arg.place = *place;
      arg.mode = facts::ArgMode::Value;
    } else if (!value->IgnoreParenImpCasts()->isNullPointerConstant(Ctx, Expr::NPC_ValueDependentIsNotNull)) {
      arg.mode = facts::ArgMode::Value; // an address we cannot follow
    } else {
      arg.mode = facts::ArgMode::Constant;
    }
  }
  return arg;
}

std::optional<Id> Extractor::forwardedObject(const CallExpr *call, const FunctionDecl *callee) {
  llvm::StringRef name = callee->getIdentifier() ? callee->getName() : "";
  if (name == "make_unique" || name == "make_shared" || name == "allocate_shared") {
    std::string built = "object";
    if (const TemplateArgumentList *targs = callee->getTemplateSpecializationArgs();
        targs && targs->size() >= 1 && targs->get(0).getKind() == TemplateArgument::Type)
      built = targs->get(0).getAsType().getAsString();
    return newObject(call, "h", name.str() + "<" + built + ">()");
  }
  const auto *member = dyn_cast<CXXMemberCallExpr>(call);
  const Expr *objectExpr = member ? member->getImplicitObjectArgument() : nullptr;
  if (!objectExpr)
    return std::nullopt;
  std::optional<Id> container = objectNamedBy(objectExpr);
  if (!container)
    return std::nullopt;
  Id item = element(*container, -1);
  if (name == "try_emplace" || llvm::StringRef(cast<CXXMethodDecl>(callee)->getParent()->getName()).ends_with("map"))
    return memberPlace(item, "second", kNone);
  return item;
}

void Extractor::processUserCall(const Expr *callExpr, const FunctionDecl *callee,
                                llvm::ArrayRef<const Expr *> args, const Event &event,
                                bool forwarded, std::optional<Id> receiverAddress) {
  if (!callee)
    return;
  facts::Call call;
  unsigned count = std::min<unsigned>(args.size(), callee->getNumParams());
  bool any = false;
  for (unsigned i = 0; i < count; ++i) {
    const ParmVarDecl *param = callee->getParamDecl(i);
    QualType type = param->getType();
    const Expr *value = args[i];
    facts::Argument arg = argumentFor(type, value, event, forwarded);
    if (typeIsRecordNamed(type, "cmsghdr") || typeIsRecordNamed(type, "msghdr"))
      call.passesControl = true;
    if (arg.mode == facts::ArgMode::None) {
      if (isObjectType(type) && !type->isReferenceType())
        // An object passed by value: the parameter is a copy of it, field by field. (Built in
        // place when it is a temporary: the constructor's storage is the parameter.)
        if (std::optional<Id> object = placeOf(value))
          copyObject(*object, paramPlace(callee, i), type, facts::FlowKind::Argument);
    }
    if (arg.mode != facts::ArgMode::None) {
      arg.text = sourceText(value, Ctx);
      arg.var = variableKey(value);
      any = true;
    } else if (holdsFdField(type)) {
      // A struct with an fd field (conn, &conn): what it names, so that the callee's c->fd is
      // the caller's conn.fd.
      const Expr *object = value->IgnoreParenImpCasts();
      if (const auto *address = dyn_cast<UnaryOperator>(object); address && address->getOpcode() == UO_AddrOf)
        object = address->getSubExpr();
      arg.text = sourceText(value, Ctx);
      arg.var = variableKey(object);
    } else if (std::optional<std::string> path = constantString(value); path && looksLikeSocketPath(*path)) {
      arg.constant = unixPath(*path);
      any = true; // the callee may bind or connect to it
    }
    if (type->isIntegerType()) {
      // A count (n_fds) the callee may size its message with, an option or a family: a constant,
      // or the caller's own parameter handed on (for the callers of the caller). An int may also
      // be an fd.
      if (std::optional<std::int64_t> number = evalInt(value, Ctx); number && *number >= 0)
        arg.number = *number;
      else if (const auto *ref = dyn_cast<DeclRefExpr>(value->IgnoreParenImpCasts()))
        if (const auto *own = dyn_cast<ParmVarDecl>(ref->getDecl());
            own && Current && Current->fn && own->getDeclContext() == Current->fn)
          arg.param = static_cast<int>(own->getFunctionScopeIndex());
      // A socket constant handed to a helper (bind_listen(AF_INET6, ...), SetFlag(SOL_SOCKET,
      // SO_PASSCRED, true)) decides what the helper does: the call is kept for it.
      static const llvm::StringRef socketConstants[] = {
          "AF_UNIX", "AF_LOCAL", "PF_UNIX", "PF_LOCAL", "AF_INET", "AF_INET6", "PF_INET", "PF_INET6",
          "AF_NETLINK", "PF_NETLINK", "AF_BLUETOOTH", "SO_PASSCRED", "SO_PASSSEC", "SO_PASSPIDFD",
          "SOCK_STREAM", "SOCK_DGRAM", "SOCK_SEQPACKET"};
      if (arg.number >= 0 && spelledAs(value, socketConstants, Ctx))
        any = true;
    }
    call.args.push_back(std::move(arg));
  }
  // `this`: the object a member function is called on (the one being built, for a constructor).
  if (const auto *method = dyn_cast<CXXMethodDecl>(callee); method && !method->isStatic()) {
    std::optional<Id> receiver;
    const Expr *object = nullptr;
    if (const auto *member = dyn_cast<CXXMemberCallExpr>(callExpr))
      object = member->getImplicitObjectArgument();
    else if (const auto *op = dyn_cast<CXXOperatorCallExpr>(callExpr); op && op->getNumArgs() >= 1)
      object = op->getArg(0);
    if (receiverAddress)
      receiver = receiverAddress;
    else if (const auto *construct = dyn_cast<CXXConstructExpr>(callExpr))
      receiver = addressOf(storageOf(construct));
    else if (object && object->getType()->isPointerType())
      receiver = pointerValue(object);
    else if (object)
      if (std::optional<Id> place = placeOf(object))
        receiver = addressOf(*place);
    if (receiver) {
      call.receiver.place = *receiver;
      call.receiver.mode = facts::ArgMode::Value;
      call.receiver.text = object ? sourceText(object, Ctx) : "this";
      thisPlaceOf(method);
      any = true;
    }
  }
  // Calls that pass no fd still order the socket calls in the callee against the caller's (the
  // daemon's state struct, a socket returned): kept, without arguments to follow.
  bool relevant = followed(callee->getReturnType()) || isObjectType(callee->getReturnType());
  for (const Expr *arg : args)
    relevant |= holdsFdField(arg->getType());
  if (!any && !call.passesControl && !relevant)
    return;
  call.caller = functionId(currentFunction());
  call.callee = functionId(callee);
  call.site = makeSite(callExpr, nullptr, event.loop);
  U.calls.push_back(std::move(call));
}

bool Extractor::processModelledCall(const CallExpr *call, const FunctionDecl *callee, const Event &event) {
  const auto *method = dyn_cast<CXXMethodDecl>(callee);
  if (!method)
    return false;
  std::optional<ModelledRecord> modelled = modelledRecord(Ctx.getRecordType(method->getParent()));
  if (!modelled)
    return false;
  const Expr *objectExpr = nullptr;
  llvm::SmallVector<const Expr *, 4> args;
  if (const auto *member = dyn_cast<CXXMemberCallExpr>(call)) {
    objectExpr = member->getImplicitObjectArgument();
    args.append(call->arg_begin(), call->arg_end());
  } else if (call->getNumArgs() >= 1) { // an operator: the object first
    objectExpr = call->getArg(0);
    args.append(call->arg_begin() + 1, call->arg_end());
  }
  if (!objectExpr)
    return true;
  std::optional<Id> object = objectExpr->getType()->isPointerType()
                                 ? (pointerValue(objectExpr) ? std::optional<Id>(derefPlace(*pointerValue(objectExpr)))
                                                             : std::nullopt)
                                 : placeOf(objectExpr);
  if (!object)
    return true;
  llvm::StringRef name = method->getIdentifier() ? method->getName() : "";
  const auto *op = dyn_cast<CXXOperatorCallExpr>(call);
  switch (*modelled) {
  case ModelledRecord::Container:
    // v.push_back(fd), v.emplace_back(fd), v.insert(it, fd), v[i] = fd (an element place, below)
    if (llvm::StringSwitch<bool>(name)
            .Cases("push_back", "emplace_back", "push_front", "emplace_front", "push", "emplace", true)
            .Default(false))
      for (const Expr *arg : args)
        storeInto(arg, element(*object, -1), facts::FlowKind::Assign);
    if (name == "insert" && !args.empty())
      storeInto(args.back(), element(*object, -1), facts::FlowKind::Assign);
    if ((op && op->getOperator() == OO_Equal) || name == "assign" || name == "swap")
      for (const Expr *arg : args)
        if (std::optional<Id> from = placeOf(arg))
          copyObject(*from, *object, objectExpr->getType(), facts::FlowKind::Assign);
    return true;
  case ModelledRecord::Callable:
    if (op && op->getOperator() == OO_Call) {
      processIndirectCall(call, nullptr, args, event);
      U.indirectCalls.back().target = memberPlace(*object, "<callable>", kNone);
      return true;
    }
    if ((op && op->getOperator() == OO_Equal) || name == "swap")
      for (const Expr *arg : args) {
        if (modelledRecord(arg->getType()) == ModelledRecord::Callable) {
          if (std::optional<Id> from = placeOf(arg))
            copyObject(*from, *object, objectExpr->getType(), facts::FlowKind::Assign);
        } else {
          flowInto(arg, memberPlace(*object, "<callable>", kNone), facts::FlowKind::Assign);
        }
      }
    return true;
  case ModelledRecord::Transparent:
  case ModelledRecord::SmartPointer:
    if ((op && op->getOperator() == OO_Equal) || name == "emplace" || name == "reset")
      for (const Expr *arg : args) {
        if (modelledRecord(arg->getType()) == modelled) {
          if (std::optional<Id> from = placeOf(arg))
            copyObject(*from, *object, objectExpr->getType(), facts::FlowKind::Assign);
        } else {
          flowInto(arg, *object, facts::FlowKind::Assign);
        }
      }
    return true;
  }
  return true;
}

void Extractor::processIndirectCall(const CallExpr *callExpr, const Expr *target,
                                    llvm::ArrayRef<const Expr *> args, const Event &event) {
  facts::Call call;
  if (target) {
    std::optional<Id> place = pointerValue(target);
    if (!place)
      return;
    call.target = *place;
  }
  // The parameters' types, from the pointer's prototype.
  const FunctionProtoType *proto = nullptr;
  if (target) {
    QualType type = target->getType();
    if (const auto *pointer = type->getAs<PointerType>())
      type = pointer->getPointeeType();
    proto = type->getAs<FunctionProtoType>();
  }
  for (unsigned i = 0; i < args.size(); ++i) {
    QualType type = proto && i < proto->getNumParams() ? proto->getParamType(i) : args[i]->getType();
    facts::Argument arg = argumentFor(type, args[i], event, /*forwarded=*/!proto);
    if (arg.mode != facts::ArgMode::None) {
      arg.text = sourceText(args[i], Ctx);
      arg.var = variableKey(args[i]);
    }
    if (type->isIntegerType())
      if (std::optional<std::int64_t> number = evalInt(args[i], Ctx); number && *number >= 0)
        arg.number = *number;
    call.args.push_back(std::move(arg));
  }
  call.caller = functionId(currentFunction());
  call.site = makeSite(callExpr, nullptr, event.loop);
  // What the call gives back: a value of its own, fed by the link from the functions it calls.
  if (followed(callExpr->getType()) || isObjectType(callExpr->getType()))
    indirectValue(callExpr);
  U.indirectCalls.push_back(std::move(call));
}

void Extractor::processConstruct(const CXXConstructExpr *construct, const Event &event) {
  const CXXConstructorDecl *ctor = construct->getConstructor();
  Id storage = storageOf(construct);
  QualType type = construct->getType();
  llvm::SmallVector<const Expr *, 4> args(construct->arguments());
  if (std::optional<ModelledRecord> modelled = modelledRecord(type)) {
    // std::vector<int>{a, b}, std::function<void(int)>(lambda), std::optional<int>(fd),
    // std::unique_ptr<T>(new T): what the object holds afterwards.
    for (const Expr *arg : args) {
      const Expr *bare = stripValue(arg);
      if (const auto *list = dyn_cast_or_null<CXXStdInitializerListExpr>(bare))
        bare = list->getSubExpr()->IgnoreImplicit();
      if (const auto *list = dyn_cast_or_null<InitListExpr>(bare)) {
        for (const Expr *init : list->inits())
          flowInto(init, element(storage, -1), facts::FlowKind::Init);
        continue;
      }
      if (isObjectType(arg->getType()) && modelledRecord(arg->getType()) == modelled) {
        if (std::optional<Id> from = placeOf(arg))
          copyObject(*from, storage, type, facts::FlowKind::Init); // a copy or move
        continue;
      }
      switch (*modelled) {
      case ModelledRecord::Callable:
        flowInto(arg, memberPlace(storage, "<callable>", kNone), facts::FlowKind::Init);
        break;
      case ModelledRecord::Transparent:
      case ModelledRecord::SmartPointer:
        flowInto(arg, storage, facts::FlowKind::Init);
        break;
      case ModelledRecord::Container:
        break; // a size or an allocator
      }
    }
    return;
  }
  if (!ctor)
    return;
  // A copy or move the compiler writes is the object copied field by field; one the program
  // writes is a call of its own.
  if (ctor->isCopyOrMoveConstructor() && (ctor->isTrivial() || ctor->isDefaulted() || !ctor->hasBody()) &&
      !args.empty()) {
    if (std::optional<Id> from = placeOf(args[0]))
      copyObject(*from, storage, type, facts::FlowKind::Init);
    return;
  }
  if (declaredInSystemHeader(ctor, SM))
    return;
  processUserCall(construct, ctor, args, event);
}

void Extractor::processRegistration(const CallExpr *call, const FunctionDecl *callee, const Event &event) {
  llvm::StringRef name = callee && callee->getIdentifier() ? callee->getName() : "";
  // Registered with an fd, a callback is not escaping: the registration says what it is called with.
  auto registerWith = [&](const Expr *fdArg, const Expr *callbackArg, int param, bool accepts,
                          const std::string &registrar) {
    const DeclRefExpr *ref = functionRefExpr(callbackArg);
    const FunctionDecl *target = ref ? dyn_cast<FunctionDecl>(ref->getDecl()) : lambdaOperator(callbackArg);
    if (!target)
      return;
    if (param == kFirstFdParam)
      param = firstFdParam(target);
    if (param < 0) {
      // The callback gets the fd inside a struct it is handed (struct pollfd *pfd).
      std::optional<Id> field = fdInStructParam(target);
      std::optional<Id> socket = placeOf(fdArg);
      if (!field || !socket)
        return;
      addFlow(*socket, *field, facts::FlowKind::Callback, true, makeSite(call, fdArg, event.loop));
      if (ref)
        ModeledRefs.insert(ref);
      return;
    }
    if (static_cast<unsigned>(param) >= target->getNumParams())
      return;
    std::optional<Id> socket = placeOf(fdArg);
    if (!socket)
      return;
    facts::Callback callback;
    callback.site = makeSite(call, fdArg, event.loop);
    callback.callee = functionId(target);
    callback.param = param;
    callback.registrar = registrar;
    if (accepts) {
      facts::Create create;
      create.how = facts::CreateHow::Accept;
      create.listener = *socket;
      create.origin = "a connection " + registrar + "() accepts";
      callback.socket = createValue(call, std::move(create), registrar);
    } else {
      callback.socket = *socket;
    }
    U.callbacks.push_back(std::move(callback));
    if (ref)
      ModeledRefs.insert(ref);
  };
  for (const Registrar &r : Options.registrars)
    if (name == r.name && static_cast<int>(call->getNumArgs()) > std::max(r.fdArg, r.callbackArg)) {
      registerWith(call->getArg(r.fdArg), call->getArg(r.callbackArg), r.param, r.accepts, name.str());
      return;
    }
  // The general rule for project-local loops: a call that passes an fd together with a function
  // or a lambda (or a table of them) hands the fd to that function's first fd parameter.
  llvm::SmallVector<const Expr *, 4> targets;
  llvm::SmallVector<const VarDecl *, 2> tables;
  for (const Expr *arg : call->arguments()) {
    if (functionRefExpr(arg) || lambdaOperator(arg)) {
      targets.push_back(arg);
      continue;
    }
    const Expr *bare = arg->IgnoreParenImpCasts();
    if (const auto *address = dyn_cast<UnaryOperator>(bare); address && address->getOpcode() == UO_AddrOf)
      bare = address->getSubExpr()->IgnoreParenImpCasts();
    // A table of callbacks, defined here or in another unit (extern const struct ops ops;).
    if (const auto *ref = dyn_cast<DeclRefExpr>(bare))
      if (const auto *var = dyn_cast<VarDecl>(ref->getDecl());
          var && var->getType()->isRecordType() && (var->hasGlobalStorage() || var->isStaticLocal()))
        tables.push_back(var);
  }
  if (targets.empty() && tables.empty())
    return;
  for (const Expr *arg : call->arguments()) {
    if (!holdsFd(arg->getType()) || functionRefExpr(arg))
      continue;
    for (const Expr *target : targets)
      registerWith(arg, target, kFirstFdParam, false, "a call passing both");
    for (const VarDecl *table : tables)
      if (std::optional<Id> socket = placeOf(arg))
        addFlow(*socket, tablePlace(table), facts::FlowKind::Callback, true,
                makeSite(call, arg, event.loop));
  }
}

void Extractor::processOption(const CallExpr *call, const FunctionDecl *callee, const Event &event) {
  static const llvm::StringRef optionNames[] = {"SO_PASSCRED", "SO_PASSSEC", "SO_PASSPIDFD"};
  llvm::StringRef name = callee->getIdentifier() ? callee->getName() : "";
  bool isSetsockopt = isSocketApi(callee) && name == "setsockopt";
  auto wrapper = Options.optionWrappers.find(name);
  bool configured = wrapper != Options.optionWrappers.end();

  int optionArg = -1;
  llvm::StringRef spelled;
  for (unsigned i = 0; i < call->getNumArgs(); ++i)
    if (spelledAs(call->getArg(i), optionNames, Ctx, &spelled)) {
      optionArg = static_cast<int>(i);
      break;
    }
  // setsockopt(fd_, level, option, &value, ...) in a helper whose option is its parameter
  // (SetFlag(level, option, on)): an option where a caller passes one of the constants (the link).
  int optionParam = -1;
  if (isSetsockopt && optionArg < 0 && call->getNumArgs() >= 3)
    optionParam = parameterValue(call->getArg(2));
  if (optionArg < 0 && !configured && optionParam < 0)
    return;
  // getsockopt() and getters read the option; they set nothing.
  if (!configured && name.contains_insensitive("get"))
    return;
  if (isSetsockopt && optionArg != 2 && optionParam < 0)
    return;

  facts::OptionSet fact;
  fact.throughWrapper = !isSetsockopt;
  fact.option = optionArg >= 0 ? llvm::StringSwitch<facts::Option>(spelled)
                                     .Case("SO_PASSSEC", facts::Option::PassSec)
                                     .Case("SO_PASSPIDFD", facts::Option::PassPidfd)
                                     .Default(facts::Option::PassCred)
                : configured ? wrapper->getValue()
                             : facts::Option::PassCred; // named by a caller (optionParam)

  // The socket: setsockopt's first argument, or the first integer argument of a wrapper that
  // names a place (or a number: an inherited fd).
  const Expr *socketArg = nullptr;
  std::optional<Id> socket;
  auto socketOf = [&](const Expr *arg) -> std::optional<Id> {
    if (std::optional<Id> place = placeOf(arg))
      return place;
    if (inheritedNumber(arg, Ctx))
      return inheritedFd(*evalInt(arg, Ctx), arg, event.loop);
    return std::nullopt;
  };
  if (isSetsockopt) {
    socketArg = call->getArg(0);
    socket = socketOf(socketArg);
  } else {
    for (unsigned i = 0; i < call->getNumArgs(); ++i) {
      if (static_cast<int>(i) == optionArg)
        continue;
      const Expr *arg = call->getArg(i);
      if (!holdsFd(arg->getType()))
        continue;
      if ((socket = socketOf(arg))) {
        socketArg = arg;
        break;
      }
    }
  }
  if (!socket)
    return;

  // The value: the int setsockopt points at, or the wrapper's argument after the option.
  const Expr *valueArg = nullptr;
  if (isSetsockopt) {
    valueArg = call->getNumArgs() > 3 ? call->getArg(3) : nullptr;
  } else {
    unsigned start = optionArg >= 0 ? optionArg + 1 : 0;
    for (unsigned i = start; i < call->getNumArgs(); ++i)
      if (call->getArg(i) != socketArg) {
        valueArg = call->getArg(i);
        break;
      }
  }
  fact.value = facts::Tri::Maybe;
  fact.optionParam = optionParam;
  if (valueArg) {
    const Expr *pointed = valueArg->IgnoreParenCasts();
    if (const auto *address = dyn_cast<UnaryOperator>(pointed); address && address->getOpcode() == UO_AddrOf)
      pointed = address->getSubExpr();
    fact.valueParam = parameterValue(pointed);
  }
  if (!valueArg) {
    fact.value = facts::Tri::True; // enable_passcred(fd): naming the option means turning it on
  } else {
    const Expr *value = valueArg->IgnoreParenImpCasts();
    while (const auto *cast = dyn_cast<ExplicitCastExpr>(value)) // &one, (void *)&one
      value = cast->getSubExpr()->IgnoreParenImpCasts();
    std::optional<std::int64_t> constant;
    if (const auto *address = dyn_cast<UnaryOperator>(value); address && address->getOpcode() == UO_AddrOf) {
      const Expr *target = address->getSubExpr()->IgnoreParenImpCasts();
      if (const auto *literal = dyn_cast<CompoundLiteralExpr>(target)) {
        constant = evalInt(literal->getInitializer(), Ctx);
        if (!constant)
          if (const auto *list = dyn_cast<InitListExpr>(literal->getInitializer()); list && list->getNumInits() == 1)
            constant = evalInt(list->getInit(0), Ctx);
      } else if (const auto *ref = dyn_cast<DeclRefExpr>(target)) {
        if (const auto *var = dyn_cast<VarDecl>(ref->getDecl()); var && var->getInit())
          constant = evalInt(var->getInit(), Ctx);
      }
    } else if (const auto *ref = dyn_cast<DeclRefExpr>(value)) {
      // int on[] = {1}; setsockopt(..., on, sizeof on)
      if (const auto *var = dyn_cast<VarDecl>(ref->getDecl()); var && var->getType()->isArrayType() && var->getInit())
        if (const auto *list = dyn_cast<InitListExpr>(var->getInit()->IgnoreImplicit()); list && list->getNumInits() >= 1)
          constant = evalInt(list->getInit(0), Ctx);
      if (!constant && value->getType()->isIntegerType())
        constant = evalInt(value, Ctx);
    } else if (value->getType()->isIntegerType() || value->getType()->isBooleanType()) {
      constant = evalInt(value, Ctx);
    }
    if (constant)
      fact.value = *constant ? facts::Tri::True : facts::Tri::False;
  }
  fact.place = *socket;
  fact.site = makeSite(call, socketArg, event.loop);
  fact.familyGuarded = event.guarded;
  fact.statement = event.statement;
  U.options.push_back(std::move(fact));
}

// ---------------------------------------------------------------------------------------------
// The end of the unit: which functions escape, and only the places that can matter.

void Extractor::finishUnit() {
  for (auto [ref, fn] : FunctionRefs)
    if (!ModeledRefs.count(ref) && fn->getNumParams() > 0) {
      bool fdParam = false;
      for (const ParmVarDecl *param : fn->parameters())
        fdParam |= holdsFd(param->getType());
      if (fdParam)
        U.functions[functionId(fn)].addressEscapes = true;
    }

  // fds[i] reads every element of the array; which one is not known, so not "the same" fd.
  for (Id id = 0, count = U.places.size(); id < count; ++id) {
    const facts::Place &p = U.places[id];
    if (p.kind == facts::PlaceKind::Element && p.index >= 0 && p.base != kNone)
      if (auto any = PlaceIds.find(U.places[p.base].key + "[*]"); any != PlaceIds.end())
        addFlow(id, any->second, facts::FlowKind::Element, /*exact=*/false);
  }

  // A local can be dropped when no socket can reach it or it leads to nothing: every other place
  // is seen by other TUs (parameters, returns, fields, globals, created values).
  std::size_t n = U.places.size();
  // Objects whose address is taken are reached through pointers the link resolves: their fields
  // are kept, and so are places reached through pointers and the pointers themselves.
  std::vector<char> addressed(n, 0);
  for (const facts::Points &pt : U.points)
    if (pt.target != kNone)
      addressed[pt.target] = 1;
  auto local = [&](Id id) {
    while (U.places[id].kind == facts::PlaceKind::Element || U.places[id].kind == facts::PlaceKind::Member) {
      if (addressed[id])
        return false;
      id = U.places[id].base;
    }
    return U.places[id].kind == facts::PlaceKind::Local && !addressed[id];
  };
  std::vector<std::vector<Id>> out(n), in(n);
  for (const facts::Flow &flow : U.flows) {
    out[flow.from].push_back(flow.to);
    in[flow.to].push_back(flow.from);
  }
  auto reach = [&](std::vector<char> &mark, const std::vector<std::vector<Id>> &edges) {
    std::vector<Id> work;
    for (Id id = 0; id < n; ++id)
      if (mark[id])
        work.push_back(id);
    while (!work.empty()) {
      Id id = work.back();
      work.pop_back();
      for (Id next : edges[id])
        if (!mark[next]) {
          mark[next] = 1;
          work.push_back(next);
        }
    }
  };
  std::vector<char> source(n, 0), sink(n, 0);
  for (Id id = 0; id < n; ++id)
    if (!local(id))
      source[id] = sink[id] = 1;
  // Elements hang off their base: keep the base wherever an element is kept.
  for (Id id : U.untracked)
    source[id] = 1;
  for (const facts::Create &c : U.creates) {
    source[c.place] = 1;
    if (c.listener != kNone)
      sink[c.listener] = 1;
    if (c.peer != kNone)
      sink[c.peer] = source[c.peer] = 1;
  }
  for (const facts::OptionSet &f : U.options)
    sink[f.place] = 1;
  for (const facts::LifecycleEvent &f : U.lifecycle)
    sink[f.place] = 1;
  for (const facts::Receive &f : U.receives)
    sink[f.place] = 1;
  for (const facts::Payload &f : U.payloads)
    if (f.place != kNone)
      sink[f.place] = 1;
  for (const facts::Send &f : U.sends)
    if (f.channel != kNone)
      sink[f.channel] = 1;
  for (const facts::Write &f : U.writes)
    sink[f.place] = 1;
  for (const facts::Call &c : U.calls)
    for (const facts::Argument &a : c.args)
      if (a.place != kNone) {
        sink[a.place] = 1;
        // f(&fd), f(sv): the callee writes through the pointer, so the caller's place (and its
        // elements) can receive a socket the link will bring.
        if (a.mode == facts::ArgMode::Address || a.mode == facts::ArgMode::Array)
          source[a.place] = 1;
      }
  for (Id id = 0; id < n; ++id)
    if (U.places[id].base != kNone && source[U.places[id].base])
      source[id] = 1;
  for (const facts::Callback &c : U.callbacks)
    sink[c.socket] = 1;
  for (const facts::Points &pt : U.points)
    source[pt.place] = 1;
  for (const facts::Call &c : U.indirectCalls) {
    sink[c.target] = 1;
    for (const facts::Argument &a : c.args)
      if (a.place != kNone)
        sink[a.place] = 1;
  }
  for (const facts::Call &c : U.calls)
    if (c.receiver.place != kNone)
      sink[c.receiver.place] = 1;
  for (Id id = 0; id < n; ++id)
    if (U.places[id].kind == facts::PlaceKind::Deref)
      sink[U.places[id].base] = source[id] = sink[id] = 1; // what it points to is found by the link
  // An array's elements are read where the array is (a payload copied from `fds`).
  for (Id id = 0; id < n; ++id)
    if (U.places[id].base != kNone && sink[U.places[id].base])
      sink[id] = 1;
  reach(source, out);
  reach(sink, in);
  std::vector<char> keep(n, 0);
  for (Id id = 0; id < n; ++id)
    keep[id] = !local(id) || (source[id] && sink[id]);
  // An element keeps its base (for keys and names), and fact places are always kept.
  for (Id id = 0; id < n; ++id)
    if (keep[id])
      for (Id base = U.places[id].base; base != kNone; base = U.places[base].base)
        keep[base] = 1;
  auto force = [&](Id id) {
    for (; id != kNone; id = U.places[id].base)
      keep[id] = 1;
  };
  for (const facts::Create &c : U.creates) {
    force(c.place);
    force(c.listener);
    force(c.peer);
  }
  for (const facts::OptionSet &f : U.options)
    force(f.place);
  for (const facts::LifecycleEvent &f : U.lifecycle)
    force(f.place);
  for (const facts::Receive &f : U.receives)
    force(f.place);
  for (const facts::Payload &f : U.payloads)
    force(f.place);
  for (const facts::Send &f : U.sends)
    force(f.channel);
  for (const facts::Write &f : U.writes)
    force(f.place);
  for (const facts::Callback &c : U.callbacks)
    force(c.socket);
  for (const facts::Points &pt : U.points) {
    force(pt.place);
    force(pt.target);
  }
  for (const facts::Call &c : U.indirectCalls)
    force(c.target);
  for (Id id = 0; id < n; ++id)
    if (U.places[id].kind == facts::PlaceKind::Deref && keep[id])
      force(id);
  // A kept member keeps its record's field place (where pointers from outside meet).
  for (Id id = 0; id < n; ++id)
    if (keep[id] && U.places[id].field != kNone)
      force(U.places[id].field);

  std::vector<Id> remap(n, kNone);
  std::vector<facts::Place> places;
  for (Id id = 0; id < n; ++id)
    if (keep[id]) {
      remap[id] = places.size();
      places.push_back(std::move(U.places[id]));
    }
  auto map = [&](Id &id) {
    if (id != kNone)
      id = remap[id];
  };
  for (facts::Place &p : places)
    map(p.base);
  U.places = std::move(places);
  std::vector<facts::Flow> flows;
  for (facts::Flow &f : U.flows)
    if (keep[f.from] && keep[f.to]) {
      map(f.from);
      map(f.to);
      flows.push_back(f);
    }
  U.flows = std::move(flows);
  std::vector<Id> untrackedKept;
  for (Id id : U.untracked)
    if (keep[id])
      untrackedKept.push_back(remap[id]);
  std::sort(untrackedKept.begin(), untrackedKept.end());
  untrackedKept.erase(std::unique(untrackedKept.begin(), untrackedKept.end()), untrackedKept.end());
  U.untracked = std::move(untrackedKept);
  for (facts::Create &c : U.creates) {
    map(c.place);
    map(c.listener);
    map(c.peer);
  }
  for (facts::OptionSet &f : U.options)
    map(f.place);
  for (facts::LifecycleEvent &f : U.lifecycle)
    map(f.place);
  for (facts::Receive &f : U.receives)
    map(f.place);
  for (facts::Payload &f : U.payloads)
    map(f.place);
  for (facts::Send &f : U.sends)
    map(f.channel);
  for (facts::Write &f : U.writes)
    map(f.place);
  for (facts::Callback &c : U.callbacks)
    map(c.socket);
  for (facts::Place &p : U.places)
    if (p.field != kNone)
      p.field = keep[p.field] ? remap[p.field] : kNone;
  std::vector<facts::Points> points;
  for (facts::Points &pt : U.points)
    if (keep[pt.place] && (pt.target == kNone || keep[pt.target])) {
      map(pt.place);
      map(pt.target);
      points.push_back(pt);
    }
  U.points = std::move(points);
  for (facts::Call &c : U.indirectCalls)
    map(c.target);
  auto mapArgument = [&](facts::Argument &a) {
    if (a.place == kNone)
      return;
    if (!keep[a.place]) {
      // No socket can reach it: nothing flows into the parameter from here.
      a.place = kNone;
      a.mode = facts::ArgMode::None;
    } else {
      map(a.place);
    }
  };
  for (std::vector<facts::Call> *list : {&U.calls, &U.indirectCalls})
    for (facts::Call &c : *list) {
      for (facts::Argument &a : c.args)
        mapArgument(a);
      mapArgument(c.receiver);
    }
}

} // namespace

facts::Unit extractFacts(ASTContext &context, const ProjectOptions &options) {
  return Extractor(context, options).run();
}

} // namespace afunix::analysis
