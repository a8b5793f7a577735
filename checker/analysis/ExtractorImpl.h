// The extractor's own declarations, shared by the files that make it up: Extract.cpp (the entry
// and the end of a unit), ExtractVisit.cpp (the AST walk), ExtractValues.cpp (reaching
// definitions and the places of expressions), ExtractProcess.cpp (each function's deferred
// events: calls, options, registrations, sends). Not part of the analysis library's interface.
#pragma once

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

namespace extraction {

using kernel::kSockTypeMask;

// Standard functions that construct their template argument (or the container's element) from
// the arguments they forward.
inline bool constructsForwarded(llvm::StringRef name) {
  return llvm::StringSwitch<bool>(name)
      .Cases("make_unique", "make_shared", "allocate_shared", "make_optional", true)
      .Cases("emplace", "emplace_back", "emplace_front", "emplace_hint", "try_emplace", true)
      .Case("construct_at", true)
      .Default(false);
}

// A standard map: its elements are key/value pairs (the key is the element's `first`).
inline bool isKeyedContainer(const NamedDecl *record) {
  if (!record->getIdentifier())
    return false;
  return llvm::StringSwitch<bool>(record->getName())
      .Cases("map", "unordered_map", "multimap", "unordered_multimap", true)
      .Default(false);
}

// A declaration of the standard library (namespace std) named one of `names`.
inline bool isStdNamed(const NamedDecl *decl, std::initializer_list<llvm::StringRef> names) {
  return decl->isInStdNamespace() && decl->getIdentifier() && llvm::is_contained(names, decl->getName());
}

inline bool isStdMove(const FunctionDecl *fn) { return isStdNamed(fn, {"move", "forward", "as_const"}); }

inline bool isSocketCallName(llvm::StringRef name) {
  return llvm::StringSwitch<bool>(name)
      .Cases("socket", "socketpair", "accept", "accept4", "paccept", true)
      .Cases("bind", "listen", "connect", "setsockopt", true)
      .Cases("recvmsg", "sendmsg", "recv", "recvfrom", "recvmmsg", true)
      .Case("android_get_control_socket", true)
      .Default(false);
}

inline bool isLoop(const Stmt *s) {
  return isa<ForStmt>(s) || isa<WhileStmt>(s) || isa<DoStmt>(s) || isa<CXXForRangeStmt>(s);
}

// The address family that begins every socket address (sa_family, sin_family, sin6_family,
// sun_family, nl_family, ss_family): declared as sa_family_t (the kernel's headers:
// __kernel_sa_family_t).
inline bool isAddressFamilyType(QualType type) {
  for (const auto *alias = type->getAs<TypedefType>(); alias;
       alias = alias->desugar()->getAs<TypedefType>())
    if (const IdentifierInfo *id = alias->getDecl()->getIdentifier();
        id && (id->getName() == "sa_family_t" || id->getName() == "__kernel_sa_family_t"))
      return true;
  return false;
}

// Every sockaddr_* record is a view of one socket address whose first field is its family: the
// kernel reads the bytes as a struct sockaddr whatever the program declared. So they are one
// record, `sockaddr`, and their family one field, `sa_family`: a sockaddr_in6 filled in and read
// back through a struct sockaddr * (or copied with memcpy) keeps its family.
inline bool isSocketAddressFamily(const FieldDecl *field) {
  return field->getFieldIndex() == 0 && isAddressFamilyType(field->getType()) &&
         field->getParent()->getName().starts_with("sockaddr");
}
inline llvm::StringRef fieldName(const FieldDecl *field) {
  return isSocketAddressFamily(field) ? llvm::StringRef("sa_family") : field->getName();
}

inline std::string recordName(const RecordDecl *record) {
  if (!record)
    return "<record>";
  // A record of a class template's instantiation (ScopedGeneric<int, Traits>::Data) is the
  // template's, as its methods are one function for every instantiation: a method's place would
  // otherwise be of one instantiation's record, and a field of another's not found in it.
  if (const auto *cxx = dyn_cast<CXXRecordDecl>(record))
    if (const CXXRecordDecl *pattern = cxx->getTemplateInstantiationPattern(); pattern && pattern != cxx)
      return recordName(pattern);
  if (const RecordDecl *definition = record->getDefinition(); definition && !definition->field_empty() &&
                                                              isSocketAddressFamily(*definition->field_begin()))
    return "sockaddr";
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
inline bool conditionTestsFamily(const Stmt *cond, ASTContext &ctx) {
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

// A variable, a field of one or an element at a constant index, as spelled.
inline bool isPlainLvalue(const Expr *expr) {
  expr = expr->IgnoreParenImpCasts();
  if (isa<DeclRefExpr>(expr))
    return true;
  if (const auto *member = dyn_cast<MemberExpr>(expr))
    return isa<CXXThisExpr>(member->getBase()->IgnoreParenImpCasts()) || isPlainLvalue(member->getBase());
  if (const auto *subscript = dyn_cast<ArraySubscriptExpr>(expr))
    return isa<IntegerLiteral>(subscript->getIdx()->IgnoreParenImpCasts()) && isPlainLvalue(subscript->getBase());
  return false;
}

// A socket a fix-it can hand to setsockopt() as it is spelled: an int variable, field or element
// (not an object that owns one: a library's socket object, whose fd only its own methods give).
inline bool isPlainSocketExpr(const Expr *expr) {
  return expr->IgnoreParenImpCasts()->getType()->isIntegerType() && isPlainLvalue(expr);
}

// `f` or `&f` as an argument: the reference to the function.
inline const DeclRefExpr *functionRefExpr(const Expr *expr) {
  if (!expr)
    return nullptr;
  expr = expr->IgnoreParenCasts();
  if (const auto *address = dyn_cast<UnaryOperator>(expr); address && address->getOpcode() == UO_AddrOf)
    expr = address->getSubExpr()->IgnoreParenCasts();
  if (const auto *ref = dyn_cast<DeclRefExpr>(expr); ref && isa<FunctionDecl>(ref->getDecl()))
    return ref;
  return nullptr;
}

// A callable argument as written, through what hands it on: a temporary, a std::function built
// from it (std::function<void(int)>(lambda)), a functional cast. At most six deep.
inline const Expr *unwrapCallable(const Expr *expr) {
  for (int depth = 0; expr && depth < 6; ++depth) {
    expr = expr->IgnoreParenImpCasts();
    if (const auto *cleanups = dyn_cast<ExprWithCleanups>(expr))
      expr = cleanups->getSubExpr();
    else if (const auto *temporary = dyn_cast<MaterializeTemporaryExpr>(expr))
      expr = temporary->getSubExpr();
    else if (const auto *bind = dyn_cast<CXXBindTemporaryExpr>(expr))
      expr = bind->getSubExpr();
    else if (const auto *construct = dyn_cast<CXXConstructExpr>(expr); construct && construct->getNumArgs() >= 1)
      expr = construct->getArg(0);
    else if (const auto *cast = dyn_cast<CXXFunctionalCastExpr>(expr))
      expr = cast->getSubExpr();
    // A lambda without captures converted to a function pointer (a C library's callback:
    // uv_listen(s, 128, [](uv_stream_t *server, int status) {...})): the lambda.
    else if (const auto *conversion = dyn_cast<CXXMemberCallExpr>(expr);
             conversion && isa_and_nonnull<CXXConversionDecl>(conversion->getMethodDecl()) &&
             conversion->getRecordDecl() && conversion->getRecordDecl()->isLambda())
      expr = conversion->getImplicitObjectArgument();
    else
      return expr;
  }
  return nullptr;
}

// std::bind(&Server::OnAccept, this, _1, _2) or boost::bind(...) as an argument (also wrapped into
// a std::function on the way): the function it binds, and for each of that function's parameters
// the placeholder that supplies it (1 for _1; 0 when the bind call gives the value itself).
struct BoundFunction {
  const FunctionDecl *target = nullptr;
  const DeclRefExpr *ref = nullptr; // the target as the bind call names it
  std::vector<unsigned> placeholder; // by the target's parameter
};
inline unsigned placeholderNumber(QualType type) {
  const auto *spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(type.getNonReferenceType()->getAsCXXRecordDecl());
  if (!spec || !spec->getIdentifier() || spec->getTemplateArgs().size() != 1 ||
      spec->getTemplateArgs()[0].getKind() != TemplateArgument::Integral)
    return 0;
  // libstdc++'s std::_Placeholder<N>, libc++'s std::placeholders::__ph<N>, Boost's boost::arg<N>.
  llvm::StringRef name = spec->getName();
  if (name != "_Placeholder" && name != "__ph" && name != "arg")
    return 0;
  std::int64_t n = spec->getTemplateArgs()[0].getAsIntegral().getExtValue();
  return n > 0 && n < 64 ? static_cast<unsigned>(n) : 0;
}
inline std::optional<BoundFunction> boundFunction(const Expr *expr) {
  const auto *call = dyn_cast_or_null<CallExpr>(unwrapCallable(expr));
  const FunctionDecl *callee = call ? call->getDirectCallee() : nullptr;
  if (!callee || !callee->getIdentifier() || callee->getName() != "bind" || call->getNumArgs() < 1)
    return std::nullopt;
  const auto *ns = dyn_cast<NamespaceDecl>(callee->getDeclContext()->getEnclosingNamespaceContext());
  if (!callee->isInStdNamespace() && !(ns && ns->getName() == "boost"))
    return std::nullopt;
  const DeclRefExpr *ref = functionRefExpr(call->getArg(0));
  if (!ref)
    return std::nullopt;
  BoundFunction out;
  out.target = cast<FunctionDecl>(ref->getDecl());
  out.ref = ref;
  // A method's object comes first (this, or the object's pointer).
  const auto *method = dyn_cast<CXXMethodDecl>(out.target);
  unsigned first = method && !method->isStatic() ? 2 : 1;
  for (unsigned p = 0; p < out.target->getNumParams(); ++p)
    out.placeholder.push_back(first + p < call->getNumArgs() ? placeholderNumber(call->getArg(first + p)->getType()) : 0);
  return out;
}

// A lambda as an argument (also wrapped into a std::function on the way): its call operator.
inline const CXXMethodDecl *lambdaOperator(const Expr *expr) {
  const auto *lambda = dyn_cast_or_null<LambdaExpr>(unwrapCallable(expr));
  const CXXMethodDecl *op = lambda ? lambda->getCallOperator() : nullptr;
  return op && !op->isDependentContext() ? op : nullptr;
}

// A callback argument, however it is spelled: `f`/`&f`, a std::bind of one, or a lambda.
struct CallbackTarget {
  const FunctionDecl *function = nullptr;
  const DeclRefExpr *ref = nullptr;  // `f` as the argument or the bind call names it (null: a lambda)
  std::optional<BoundFunction> bound; // what a bind call supplies, by the function's parameter
  // Whether the caller supplies parameter `p` (a bind call's own value is not the caller's).
  bool callerSupplies(unsigned p) const { return !bound || (p < bound->placeholder.size() && bound->placeholder[p] != 0); }
  // The function's parameter that the caller's argument `argument` reaches: that one, or for a
  // bind call the parameter its placeholder _{argument+1} feeds (none: the binding drops it).
  std::optional<int> parameterFedBy(int argument) const {
    if (!bound)
      return argument;
    auto fed = llvm::find(bound->placeholder, static_cast<unsigned>(argument) + 1);
    if (fed == bound->placeholder.end())
      return std::nullopt;
    return static_cast<int>(fed - bound->placeholder.begin());
  }
};
inline std::optional<CallbackTarget> callbackTarget(const Expr *expr) {
  CallbackTarget out;
  if ((out.ref = functionRefExpr(expr))) {
    out.function = cast<FunctionDecl>(out.ref->getDecl());
  } else if ((out.bound = boundFunction(expr))) {
    out.function = out.bound->target;
    out.ref = out.bound->ref;
  } else {
    out.function = lambdaOperator(expr);
  }
  return out.function ? std::optional<CallbackTarget>(std::move(out)) : std::nullopt;
}

// A registration that hands the fd to the callback's first fd parameter.
constexpr int kFirstFdParam = -2;

inline const FunctionDecl *functionRef(const Expr *expr) {
  const DeclRefExpr *ref = functionRefExpr(expr);
  return ref ? cast<FunctionDecl>(ref->getDecl()) : nullptr;
}

// The functions named in a struct's initializer (a table of callbacks passed as &ops or ops).
inline void functionsInInitializer(const Expr *expr, llvm::SmallVectorImpl<const DeclRefExpr *> &out,
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
inline std::string listenFdHandover(std::optional<std::int64_t> fd) {
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

  // A range-for's hidden `auto &&__range = c; auto __begin = __range.begin();` (implicit code
  // the walk does not visit by itself) bind the loop variable to the container's elements:
  // without them the iterator points nowhere and the loop reads no element.
  bool TraverseCXXForRangeStmt(CXXForRangeStmt *loop) {
    if (!loop->getRangeInit() || loop->getRangeInit()->isTypeDependent())
      return Base::TraverseCXXForRangeStmt(loop);
    // (TraverseDecl skips implicit declarations: visit them here.)
    for (DeclStmt *hidden : {loop->getRangeStmt(), loop->getBeginStmt()})
      if (auto *var = hidden && hidden->isSingleDecl() ? dyn_cast<VarDecl>(hidden->getSingleDecl()) : nullptr)
        VisitVarDecl(var);
    return Base::TraverseCXXForRangeStmt(loop);
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
  // A pointer converted from one record to another: the fields of their common initial sequence
  // as Alias flows between the records' field places, once per pair of records in the unit.
  void aliasCommonFields(QualType from, QualType to);
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
  struct CredentialTest {
    const IfStmt *test;
    bool present;             // the condition is true when the cmsg is SCM_CREDENTIALS
    const Stmt *cmsgLoop;     // the loop over the cmsgs (CMSG_NXTHDR) the test is in, if any
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
    // `if` statements that test for an SCM_CREDENTIALS cmsg.
    std::vector<CredentialTest> credentialTests;
    const SwitchStmt *credentialSwitch = nullptr;
    // sd_listen_fds_with_names() is called: the strings compared here name the fds it takes.
    bool listenFdNames = false;
    std::vector<std::string> comparedStrings;
    // fd assignments in the branch of an `if` that compares with a string constant
    // (if (streq(names[i], "varlink")) varlink_fd = fd;): the fd of that name.
    llvm::DenseMap<const BinaryOperator *, std::string> namedAssignments;
    // Made for the first statement a fix-it may move, then asked for each.
    std::optional<EscapedVariables> escapes;
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
    loop.oneMessage = boundedByOneMessage(open.stmt);
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
  // `n * sizeof(int)` or `sizeof(*fds) * n`, or of a container parameter `sizeof(int) *
  // fds.size()` and `fds.size_bytes()` (its callers' constant sizes); -1 otherwise.
  int countParameter(const Expr *bytes) {
    auto ownParameter = [&](const Expr *e) -> int {
      if (const auto *ref = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts()))
        if (const auto *param = dyn_cast<ParmVarDecl>(ref->getDecl());
            param && Current && Current->fn && param->getDeclContext() == Current->fn)
          return static_cast<int>(param->getFunctionScopeIndex());
      return -1;
    };
    auto containerSize = [&](const Expr *e, llvm::StringRef method) -> int {
      const auto *call = dyn_cast<CXXMemberCallExpr>(e->IgnoreParenImpCasts());
      const CXXMethodDecl *callee = call ? call->getMethodDecl() : nullptr;
      if (!callee || !callee->getIdentifier() || callee->getName() != method || call->getNumArgs() != 0)
        return -1;
      return ownParameter(call->getImplicitObjectArgument());
    };
    if (int param = containerSize(bytes, "size_bytes"); param >= 0)
      return param;
    const auto *product = dyn_cast<BinaryOperator>(bytes->IgnoreParenImpCasts());
    if (!product || product->getOpcode() != BO_Mul)
      return -1;
    const Expr *sides[] = {product->getLHS()->IgnoreParenImpCasts(), product->getRHS()->IgnoreParenImpCasts()};
    for (int i = 0; i < 2; ++i) {
      std::optional<std::int64_t> size = evalInt(sides[i], Ctx);
      if (!size || *size != 4 || !isa<UnaryExprOrTypeTraitExpr>(sides[i]))
        continue;
      if (int param = ownParameter(sides[1 - i]); param >= 0)
        return param;
      if (int param = containerSize(sides[1 - i], "size"); param >= 0)
        return param;
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
    return Options.recordedPath(path);
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
  // A copy or move (constructor or assignment) the program writes, as opposed to one the
  // compiler writes (the object copied field by field). A body the parse skipped counts as
  // written (afunix-check skips system headers' bodies, clangd every header's:
  // engine/Extraction.cpp, clangd/Main.cpp), so the facts do not depend on the skip; a library's
  // written one is never copied.
  bool copyWrittenByProgram(const FunctionDecl *fn) const {
    if (fn->isTrivial() || fn->isDefaulted())
      return false;
    if (declaredInSystemHeader(fn, SM) || fn->hasBody() || writtenWithBody(fn))
      return true;
    const FunctionDecl *pattern = fn->getTemplateInstantiationPattern();
    return pattern && writtenWithBody(pattern);
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
    site.function = functionId(SiteOwner ? SiteOwner : currentFunction());
    site.loop = loop;
    // A site given to the function around a lambda is not in that function's CFG skeleton.
    if (positioned && Flow && !SiteOwner && !UnpositionedFunctions.count(site.function))
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
  // What a library fd owner class (FdOwnerClasses with methods or constructors: Boost.Asio's
  // sockets) does, for `type` or the first of its bases that has an entry; and its name.
  const FdOwnerModel *ownerModel(QualType type, std::string *className = nullptr) {
    const CXXRecordDecl *record = type.isNull() ? nullptr : type.getNonReferenceType()->getAsCXXRecordDecl();
    if (Options.fdOwnerModels.empty() || !record || !record->hasDefinition())
      return nullptr;
    record = record->getDefinition();
    // Asked for every member call: once per record.
    auto [known, fresh] = OwnerModels.try_emplace(record);
    if (fresh) {
      auto match = [&](const CXXRecordDecl *r) {
        for (const std::string &name : {r->getQualifiedNameAsString(), r->getNameAsString()})
          if (auto it = Options.fdOwnerModels.find(name); !known->second.first && it != Options.fdOwnerModels.end())
            known->second = {&it->second, r->getNameAsString()};
        return !known->second.first; // forallBases goes on while true
      };
      if (match(record))
        record->forallBases(match);
    }
    if (className && known->second.first)
      *className = known->second.second;
    return known->second.first;
  }
  // The effect of the first `list` entry whose word `matches`.
  static std::optional<OwnerEffect> ownerEffect(const std::vector<std::pair<std::string, OwnerEffect>> &list,
                                                llvm::function_ref<bool(llvm::StringRef)> matches) {
    for (const auto &[word, effect] : list)
      if (matches(word))
        return effect;
    return std::nullopt;
  }
  // A library fd owner's constructor that makes its socket: by a word in an argument's type.
  std::optional<OwnerEffect> constructorEffect(const CXXConstructExpr *construct, const FdOwnerModel &model) {
    llvm::SmallVector<const Expr *, 4> args(construct->arguments());
    return constructorEffect(args, model);
  }
  // The same for the arguments a library forwards to the constructor (std::make_unique<T>(...)).
  std::optional<OwnerEffect> constructorEffect(llvm::ArrayRef<const Expr *> args, const FdOwnerModel &model) {
    return ownerEffect(model.constructors, [&](llvm::StringRef word) {
      for (const Expr *arg : args) {
        if (isa<CXXDefaultArgExpr>(arg))
          continue;
        QualType t = arg->getType().getNonReferenceType();
        if (llvm::StringRef(t.getAsString()).contains(word) ||
            llvm::StringRef(t.getCanonicalType().getAsString()).contains(word))
          return true;
      }
      return false;
    });
  }
  // The object a method is called on, as the program names it: a base class's method
  // (native_handle() of Boost.Asio's basic_socket, called on a basic_datagram_socket) is called
  // on the derived object.
  static const Expr *ownerObject(const CXXMemberCallExpr *call) {
    const Expr *object = call->getImplicitObjectArgument();
    while (const auto *cast = dyn_cast_or_null<ImplicitCastExpr>(object)) {
      if (cast->getCastKind() != CK_DerivedToBase && cast->getCastKind() != CK_UncheckedDerivedToBase &&
          cast->getCastKind() != CK_NoOp)
        break;
      object = cast->getSubExpr();
    }
    return object;
  }
  // A method of a library fd owner that makes, binds or listens on its socket: the effect, and
  // the owner's class name.
  std::optional<OwnerEffect> methodEffect(const CXXMemberCallExpr *call, std::string &className) {
    const CXXMethodDecl *method = call->getMethodDecl();
    const Expr *object = ownerObject(call);
    if (!method || !method->getIdentifier() || !object)
      return std::nullopt;
    QualType type = object->getType();
    if (type->isPointerType())
      type = type->getPointeeType();
    const FdOwnerModel *model = ownerModel(type, &className);
    if (!model)
      return std::nullopt;
    llvm::StringRef name = method->getName();
    return ownerEffect(model->methods, [&](llvm::StringRef word) { return word == name; });
  }
  // A free function of a library fd owner's namespace that acts on the owner it is handed first
  // (models.md, fd_owner_classes `functions`: asio::connect(socket, endpoints)): the effect, and
  // the owner's class name.
  std::optional<OwnerEffect> functionEffect(const CallExpr *call, const FunctionDecl *callee, std::string &className) {
    if (isa<CXXMemberCallExpr>(call) || isa<CXXMethodDecl>(callee) || !callee->getIdentifier() ||
        call->getNumArgs() < 1)
      return std::nullopt;
    // The object as the program names it: Boost.Asio's connect() takes a basic_socket&, the base.
    const FdOwnerModel *model = ownerModel(call->getArg(0)->IgnoreParenImpCasts()->getType(), &className);
    if (!model || model->functions.empty())
      return std::nullopt;
    llvm::StringRef name = callee->getName();
    return ownerEffect(model->functions, [&](llvm::StringRef word) {
      return word == name && (model->scope.empty() || callee->getQualifiedNameAsString() == model->scope + "::" + word.str());
    });
  }
  // A value that can be an fd: an integer or an fd owner.
  // An address family is followed the same way, for the constants it carries (AF_INET6 stored
  // in a sockaddr, copied, read back as socket(sa->sa_family, ...)).
  bool holdsFd(QualType type) {
    return isFdValueType(type, Ctx) || isFdOwnerType(type) || isAddressFamilyType(type);
  }

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
  // A record by its name, so that a field is one place in every unit that sees the record. A
  // record defined in a source file (an opaque struct udev_monitor in each of two libraries) is
  // that file's own, so its key names the file.
  std::string recordKey(const RecordDecl *record) {
    std::string scope;
    if (const RecordDecl *definition = record->getDefinition()) {
      SourceLocation at = SM.getExpansionLoc(definition->getLocation());
      if (at.isValid() && SM.getFileID(at) == SM.getMainFileID())
        scope = U.mainFile + ":";
    }
    return scope + recordName(record);
  }

  std::string fieldKey(const FieldDecl *field) {
    return "f:" + recordKey(field->getParent()) + "::" + fieldName(field).str();
  }

  // The records a value of `type` is (arrays of them included): its own, then its bases.
  std::vector<std::string> recordsOf(QualType type) {
    std::vector<std::string> out;
    const Type *element = type.getNonReferenceType().getCanonicalType()->getBaseElementTypeUnsafe();
    const RecordDecl *record = element ? element->getAsRecordDecl() : nullptr;
    if (!record)
      return out;
    // A standard container stands for its elements (v[i], *it, a map's pair): what a path below
    // it reaches are fields of its value_type, as below an array.
    if (modelledRecord(QualType(element, 0)) == ModelledRecord::Container)
      if (const auto *container = dyn_cast<CXXRecordDecl>(record); container && container->hasDefinition()) {
        if (QualType elementType = containerElementType(container); !elementType.isNull())
          return recordsOf(elementType);
        return out;
      }
    out.push_back(recordKey(record));
    if (const auto *cxx = dyn_cast<CXXRecordDecl>(record); cxx && cxx->hasDefinition())
      cxx->forallBases([&](const CXXRecordDecl *base) {
        out.push_back(recordKey(base));
        return true;
      });
    return out;
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
    Id id = intern("p:" + U.functions[function].key + "#" + std::to_string(index),
                   facts::PlaceKind::Param, name, function, static_cast<int>(index));
    return index < named->getNumParams() ? typed(id, named->getParamDecl(index)->getType()) : id;
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

  // A place whose value is of `type`: the records it is, if any. A template's place stands for
  // every instantiation's (its key is the pattern's), so it is each record any of them is, in
  // the order they were met; a dependent type adds none.
  Id typed(Id place, QualType type) {
    // Asked at every use of a place: the records of a type once.
    const Type *key = type.isNull() ? nullptr : type.getCanonicalType().getTypePtr();
    auto [known, fresh] = RecordsOfType.try_emplace(key);
    if (fresh)
      known->second = recordsOf(type);
    facts::Place &p = U.places[place];
    for (const std::string &record : known->second)
      if (!llvm::is_contained(p.records, record))
        p.records.push_back(record);
    return place;
  }

  Id fieldPlace(const FieldDecl *field) {
    return typed(intern(fieldKey(field), facts::PlaceKind::Field,
                        recordName(field->getParent()) + "::" + fieldName(field).str()),
                 field->getType());
  }

  // struct chmsg ch = {1, sv[0]}, {.fd = sv[0]}, {.ends = {a, b}}, ops = {.dispatch = f}: stores
  // into the object's fields, as ch.fd = sv[0] is.
  void initFields(const InitListExpr *list, Id object, int depth = 0) {
    if (modelledRecord(list->getType()) == ModelledRecord::Container) {
      // std::array<int, 2> fds{a, b}: the values of its one (library-named) array member.
      storeElements(list, object, facts::FlowKind::Init);
      return;
    }
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
        // A field copied or moved from an object (M{fds}, M{std::move(fds)}): its copy
        // constructor is only in the list's semantic form, which the walk does not visit. Not a
        // callable: an entry {fd, std::move(callback)} is a registration, which pairs each fd with
        // its own callback ("a call passing both"); the table's one merged entry would hand
        // every callback every fd.
        const Expr *source = value;
        if (const auto *construct = dyn_cast<CXXConstructExpr>(value);
            construct && construct->getNumArgs() == 1 && construct->getConstructor()->isCopyOrMoveConstructor() &&
            modelledRecord(type) != ModelledRecord::Callable)
          source = construct->getArg(0);
        if (std::optional<Id> from = placeOf(source))
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
  // A pointer to fds (const int *data_ of a view class, int *p = fds): its place holds the fds it
  // points to, as a container's elements; a parameter of this type gets the caller's elements by
  // index instead (ArgMode::Array).
  bool pointsToFds(QualType type) {
    if (type.isNull())
      return false;
    const auto *pointer = type.getNonReferenceType().getCanonicalType()->getAs<PointerType>();
    return pointer && isFdValueType(pointer->getPointeeType(), Ctx);
  }
  // A reference to an array of fds (template <size_t N> Span(T (&array)[N])): passed as the array.
  bool isFdArrayReference(QualType type) {
    if (!type->isReferenceType())
      return false;
    const ArrayType *array = type.getNonReferenceType()->getAsArrayTypeUnsafe();
    return array && holdsFd(array->getElementType());
  }
  // What the analysis follows from place to place: fds, addresses, and (field by field) objects.
  bool followed(QualType type) { return holdsFd(type) || carriesAddress(type) || pointsToFds(type); }

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
    return memberPlace(object, fieldName(field), fieldPlace(field));
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
  // The object whose address addressOf() made `address` hold (&conn: conn), or none.
  std::optional<Id> addressedObject(Id address) const {
    llvm::StringRef key = U.places[address].key;
    if (!key.starts_with("&"))
      return std::nullopt;
    auto it = PlaceIds.find(key.drop_front().str());
    return it == PlaceIds.end() ? std::nullopt : std::optional<Id>(it->second);
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

  // The place that stands for the fd of every object of a holder model, read through a holder
  // from outside (as a record's field is); every store feeds it too, as it fed it before holders
  // were objects (so a holder the analysis loses still reads what any store kept).
  Id holderPlace(const FdHolder &holder) { return holderPlace(holder.name); }
  Id holderPlace(const std::string &name) {
    return intern(facts::holderFieldKey(name), facts::PlaceKind::Field, name + " fd");
  }
  // The holder a store keeps its fd in: the object its holder argument points to, or a new one
  // per call that the store returns (g_io_channel_unix_new()).
  std::optional<Id> storedHolder(const CallExpr *call, const FdHolder &holder) {
    if (holder.holderArg < 0)
      return newObject(call, "h", holder.store + "()" + inFunctionText(currentFunction()));
    if (static_cast<unsigned>(holder.holderArg) >= call->getNumArgs())
      return std::nullopt;
    return objectNamedBy(call->getArg(holder.holderArg));
  }
  // The fd a holder keeps: its member of the object the load's first argument points to.
  Id heldFd(const CallExpr *call, const FdHolder &holder) {
    return call->getNumArgs() > 0 ? heldFd(call->getArg(0), holder.name) : holderPlace(holder.name);
  }
  // The fd of the holder `pointer` points to (of the fd_holders entries named `name`).
  Id heldFd(const Expr *pointer, const std::string &name) {
    if (std::optional<Id> object = objectNamedBy(pointer))
      return memberPlace(*object, facts::kHolderFdMember, holderPlace(name));
    return holderPlace(name);
  }

  // What `var` is capped to where `use` reads it: the value of the last `if (var > E) var = E2;`
  // (or `>=`, or `E < var`) of the current function before `use`, when nothing assigns `var` after
  // that `if` and before the use; nullptr otherwise. The largest count the code lets it reach.
  const Expr *capBefore(const VarDecl *var, SourceLocation use) {
    const FunctionDecl *fn = currentFunction();
    if (!var || !fn || !fn->getBody() || !var->getType()->isIntegerType())
      return nullptr;
    const VariableCaps &caps = capsOf(fn, var);
    const std::pair<const IfStmt *, const Expr *> *last = nullptr;
    for (const auto &cap : caps.caps)
      if (SM.isBeforeInTranslationUnit(cap.first->getEndLoc(), use))
        last = &cap;
    if (!last)
      return nullptr;
    for (SourceLocation at : caps.writes)
      if (SM.isBeforeInTranslationUnit(last->first->getEndLoc(), at) && SM.isBeforeInTranslationUnit(at, use))
        return nullptr;
    return last->second;
  }
  // The capping `if`s of a variable and every write to it (an address taken too: a callee may write
  // through it), in source order: read once per function and variable (a function may build many
  // messages).
  struct VariableCaps {
    std::vector<std::pair<const IfStmt *, const Expr *>> caps; // the `if`, the value it caps to
    std::vector<SourceLocation> writes;
  };
  std::map<std::pair<const FunctionDecl *, const VarDecl *>, VariableCaps> Caps;
  const VariableCaps &capsOf(const FunctionDecl *fn, const VarDecl *var) {
    auto [it, inserted] = Caps.try_emplace({fn, var});
    if (!inserted)
      return it->second;
    VariableCaps &out = it->second;
    auto names = [&](const Expr *e) {
      const auto *ref = e ? dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts()) : nullptr;
      return ref && ref->getDecl() == var;
    };
    forEachWrite(fn->getBody(), var, [&](const Expr *write) { out.writes.push_back(write->getBeginLoc()); });
    std::function<void(const Stmt *)> walk = [&](const Stmt *s) {
      if (!s)
        return;
      if (const auto *branch = dyn_cast<IfStmt>(s); branch && !branch->getElse()) {
        const auto *cond = dyn_cast<BinaryOperator>(branch->getCond()->IgnoreParenImpCasts());
        const Stmt *then = branch->getThen();
        if (const auto *block = dyn_cast<CompoundStmt>(then); block && block->size() == 1)
          then = block->body_front();
        const auto *assign = dyn_cast<BinaryOperator>(then);
        bool above = cond && (((cond->getOpcode() == BO_GT || cond->getOpcode() == BO_GE) && names(cond->getLHS())) ||
                              ((cond->getOpcode() == BO_LT || cond->getOpcode() == BO_LE) && names(cond->getRHS())));
        if (above && assign && assign->getOpcode() == BO_Assign && names(assign->getLHS()))
          out.caps.emplace_back(branch, assign->getRHS());
      }
      for (const Stmt *child : s->children())
        walk(child);
    };
    walk(fn->getBody());
    return out;
  }

  // The channel a library's view of it stands for (channel_views: G_IO_STREAM(c) is GLib's checked
  // cast of c, g_io_stream_get_input_stream(c) reads c): the viewed argument, through each view,
  // and through a local initialised with a view (`GInputStream *in = ...(c)`; conservatively, a
  // later assignment to that local is not read). An expression that is no view is itself.
  const Expr *throughChannelViews(const Expr *expr) {
    for (int depth = 0; depth < 8; ++depth) {
      const Expr *viewed = expr->IgnoreParenCasts();
      if (const auto *ref = dyn_cast<DeclRefExpr>(viewed))
        if (const auto *local = dyn_cast<VarDecl>(ref->getDecl()); local && local->isLocalVarDecl() && local->getInit())
          viewed = local->getInit()->IgnoreParenCasts();
      const auto *call = dyn_cast<CallExpr>(viewed);
      const FunctionDecl *callee = call ? call->getDirectCallee() : nullptr;
      if (!callee || !callee->getIdentifier())
        break;
      auto it = Options.channelViews.find(callee->getName());
      if (it == Options.channelViews.end() || callee->hasBody() || call->getNumArgs() <= it->second.socketArg ||
          (it->second.builtin && !declaredInLibraryHeader(callee, SM)))
        break;
      // (A view's argument is an object pointer, and casts between object pointers keep it.)
      expr = call->getArg(it->second.socketArg)->IgnoreParenCasts();
    }
    return expr;
  }
  // A call of a receivers model (a library's read on the channel it is given, not followed): the
  // argument naming that channel, through its views; nullptr for any other call.
  const Expr *receiverChannel(const CallExpr *call, const FunctionDecl *callee, llvm::StringRef name) {
    auto it = Options.receivers.find(name);
    if (it == Options.receivers.end() || callee->hasBody() || call->getNumArgs() <= it->second.socketArg ||
        (it->second.builtin && !declaredInLibraryHeader(callee, SM)))
      return nullptr;
    return throughChannelViews(call->getArg(it->second.socketArg));
  }

  // A call of a model allocator: each call is a new object. The catalog's names count only where
  // an installed library's header declares them (a project's own `zalloc` may return anything).
  bool allocates(const FunctionDecl *callee) {
    auto it = Options.allocators.find(callee->getName());
    return it != Options.allocators.end() && (it->getValue() || declaredInLibraryHeader(callee, SM));
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
    // Through casts: static_cast<int>(option) of an enum parameter is still what the caller passed.
    const auto *ref = dyn_cast<DeclRefExpr>(expr->IgnoreParenCasts());
    const auto *var = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
    if (var && !isa<ParmVarDecl>(var) && var->isLocalVarDecl() && var->getInit() &&
        Current && Current->definitions.lookup(var) <= 1)
      if (const auto *init = dyn_cast<DeclRefExpr>(var->getInit()->IgnoreParenCasts()))
        var = dyn_cast<VarDecl>(init->getDecl());
    const auto *param = dyn_cast_or_null<ParmVarDecl>(var);
    if (!param || param->getDeclContext() != fn)
      return -1;
    return static_cast<int>(param->getFunctionScopeIndex());
  }

  // The place holding the value of an expression of pointer (or reference) type: what it points to
  // is derefPlace() of it.
  std::optional<Id> pointerValue(const Expr *expr);
  std::optional<Id> containerOf(const BinaryOperator *subtraction);
  // Where a value's key places the expression: its expansion location's file and offset.
  std::pair<std::string, std::uint32_t> expansionPosition(const Expr *at);
  // The object an expression of record type denotes (a variable, *p, p->member, a[i]).
  std::optional<Id> objectOf(const Expr *expr);
  std::pair<const Expr *, std::optional<Id>> templateOptionSocket(const CallExpr *call, const FunctionDecl *callee);
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
  // Initialiser lists whose temporary placeOf() made and filled in (once, however often asked).
  llvm::DenseSet<const InitListExpr *> FilledTemporaries;
  Id storageOf(const CXXConstructExpr *construct);
  // The variable `pointer` names when it is a local initialised with its address and never
  // pointed elsewhere (int *p = &fd), else nullptr.
  const Expr *aliasedByLocalPointer(const Expr *pointer);
  // *p of an `int *p` or `ScopedFd *p`: the callers' fd it names (element 0 of what p holds).
  std::optional<Id> pointeeOfFdPointer(const Expr *pointer);
  // The fd an fd owner holds, for a call of one of its methods: fd.reset(x), out->get().
  std::optional<Id> ownedFdOf(const CXXMemberCallExpr *call);
  Id ownerSocket(const Expr *at, QualType object, const FdOwnerModel &model, const std::string &className);
  // The socket a library call `by` makes for the fd owner `object` at `place` (open(), a connect()
  // that opens a closed one): one more the object may hold.
  void ownerMakesSocket(const Expr *at, const Expr *object, Id place, const std::string &by);
  // A connection a library fd owner's `accept` method accepts on the object's socket (one per call).
  Id ownerAccepted(const CXXMemberCallExpr *call, const std::string &by);
  void ownerEvent(const Expr *at, const Expr *object, Id socket, OwnerEffect effect, const std::string &by,
                  const Event &event, bool unknownTypeListens = true);
  void ownerOption(const CXXMemberCallExpr *call, Id socket, const Event &event);
  // Library records the analysis knows the inside of by what they do, not by their fields.
  enum class ModelledRecord { Container, Callable, Transparent, SmartPointer };
  std::optional<ModelledRecord> modelledRecord(QualType type) {
    const auto *record = type.getNonReferenceType()->getAsCXXRecordDecl();
    if (!record || !record->getIdentifier())
      return std::nullopt;
    // libstdc++ declares vector's and string's iterator (__normal_iterator) in __gnu_cxx, the
    // unordered containers' (_Node_iterator) in std::__detail.
    const auto *ns = dyn_cast<NamespaceDecl>(record->getDeclContext()->getEnclosingNamespaceContext());
    bool library = record->isInStdNamespace() ||
                   (ns && (ns->getName() == "__gnu_cxx" || ns->getName() == "__detail") &&
                    declaredInSystemHeader(record, SM));
    if (!library)
      return containerModel(record) ? std::optional<ModelledRecord>(ModelledRecord::Container) : std::nullopt;
    return llvm::StringSwitch<std::optional<ModelledRecord>>(record->getName())
        .Cases("vector", "array", "deque", "list", "set", "unordered_set", "span", ModelledRecord::Container)
        .Cases("map", "unordered_map", "multimap", "unordered_multimap", "initializer_list",
               ModelledRecord::Container)
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

  // The model of a container class of another library than the standard's (the catalog's
  // `containers`), matched by the record's name or one of its bases' (llvm::SmallVector is an
  // llvm::SmallVectorImpl); nullptr for any other record.
  const ContainerClass *containerModel(const CXXRecordDecl *record) {
    if (Options.containers.empty() || !record)
      return nullptr;
    auto [it, fresh] = ContainerModels.try_emplace(record, nullptr);
    if (!fresh)
      return it->second;
    auto named = [&](const CXXRecordDecl *candidate) -> const ContainerClass * {
      if (!candidate->getIdentifier())
        return nullptr;
      llvm::StringRef name = candidate->getName();
      for (const ContainerClass &c : Options.containers) {
        llvm::StringRef model(c.name);
        if (!model.ends_with(name))
          continue;
        if (model.size() == name.size())
          return &c;
        // (The qualified name is built only for a class whose own name is the model's last part.)
        if (model.drop_back(name.size()).ends_with("::") && model == candidate->getQualifiedNameAsString())
          return &c;
      }
      return nullptr;
    };
    const ContainerClass *found = named(record);
    if (!found && record->hasDefinition())
      record->getDefinition()->forallBases([&](const CXXRecordDecl *base) {
        found = found ? found : named(base);
        return true;
      });
    return ContainerModels[record] = found;
  }
  // A container method each of whose arguments becomes an element: the standard's push_back()
  // and its kin, and for another library's class the ones its model adds (QList::append).
  static bool appendsArguments(llvm::StringRef name, const ContainerClass *model) {
    return llvm::StringSwitch<bool>(name)
               .Cases("push_back", "emplace_back", "push_front", "emplace_front", "push", "emplace", true)
               .Default(false) ||
           (model && llvm::is_contained(model->adds, name));
  }
  // A container method that adds elements: those, and the standard's insert(), assign() and
  // resize(), which take positions or counts beside them.
  bool addsElements(const CXXMethodDecl *method) {
    llvm::StringRef name = method->getIdentifier() ? method->getName() : "";
    return llvm::is_contained({"insert", "assign", "resize"}, name) ||
           appendsArguments(name, containerModel(method->getParent()));
  }
  // The type of a container's elements: its `value_type`, or else its first template argument
  // (a library container without the standard's alias). Null when neither says.
  QualType containerElementType(const CXXRecordDecl *container) {
    if (!container || !container->hasDefinition())
      return QualType();
    for (const NamedDecl *member : container->getDefinition()->lookup(&Ctx.Idents.get("value_type")))
      if (const auto *alias = dyn_cast<TypedefNameDecl>(member))
        return alias->getUnderlyingType();
    if (const auto *specialization = dyn_cast<ClassTemplateSpecializationDecl>(container)) {
      const TemplateArgumentList &args = specialization->getTemplateArgs();
      if (args.size() > 0 && args[0].getKind() == TemplateArgument::Type)
        return args[0].getAsType();
    }
    return QualType();
  }

  // What a library container's parameter takes: one element (`const value_type &`, as push_back,
  // assign(n, value) and the fill constructor declare it), a list of them
  // (`initializer_list<value_type>`), or something else (a size, a position, another container).
  // Read from the declaration, so every method and constructor that takes elements is covered.
  enum class ElementParam { None, One, List };
  ElementParam elementParam(const FunctionDecl *function, unsigned index) {
    if (!function || index >= function->getNumParams())
      return ElementParam::None;
    QualType type = function->getParamDecl(index)->getType().getNonReferenceType();
    if (const auto *alias = type->getAs<TypedefType>(); alias && alias->getDecl()->getName() == "value_type")
      return ElementParam::One;
    // Another library's container may spell it `const T &` (llvm::SmallVector's push_back): a
    // parameter of its element type is one element. (An int container's `int` parameter is
    // then always an element; such containers take sizes and positions as size_t.)
    // Only where elements are added: `contains(fd)` or `indexOf(fd)` adds none.
    if (const auto *method = dyn_cast<CXXMethodDecl>(function);
        method && !method->getParent()->isInStdNamespace() &&
        (isa<CXXConstructorDecl>(method) || addsElements(method)))
      if (QualType element = containerElementType(method->getParent());
          !element.isNull() && Ctx.hasSameUnqualifiedType(element, type))
        return ElementParam::One;
    if (const auto *record = type->getAsCXXRecordDecl(); record && isStdNamed(record, {"initializer_list"}))
      return ElementParam::List;
    return ElementParam::None;
  }
  // Each value of a braced list given to a container becomes an element of it (std::array's
  // elided inner braces looked through).
  void storeElements(const InitListExpr *list, Id container, facts::FlowKind kind, int depth = 0) {
    for (const Expr *init : list->inits()) {
      const auto *nested = dyn_cast<InitListExpr>(init->IgnoreImplicit());
      if (nested && nested->getType()->isArrayType() && depth < 3)
        storeElements(nested, container, kind, depth + 1);
      else if (!isa<ImplicitValueInitExpr>(init->IgnoreImplicit()))
        storeInto(init, element(container, -1), kind);
    }
  }
  // A container argument bound to an element parameter: what it stores.
  void storeElementArgument(const FunctionDecl *function, unsigned index, const Expr *arg, Id container,
                            facts::FlowKind kind) {
    switch (elementParam(function, index)) {
    case ElementParam::One:
      storeInto(arg, element(container, -1), kind);
      break;
    case ElementParam::List: {
      const Expr *bare = stripValue(arg);
      if (const auto *list = dyn_cast_or_null<CXXStdInitializerListExpr>(bare))
        bare = list->getSubExpr()->IgnoreImplicit();
      if (const auto *list = dyn_cast_or_null<InitListExpr>(bare))
        storeElements(list, container, kind);
      break;
    }
    case ElementParam::None:
      storeElementsHandedOver(arg, container, kind);
      break;
    }
  }
  // An argument that hands over elements that exist already: an int array
  // (`std::span<const int>(fds)`), a pointer to one int, or a pointer into an array
  // (`std::vector<int>(fds, fds + n)`, `std::span(v.data(), n)`, `assign(first, last)`), or a
  // pointer to fds that holds them: the container's elements are what it points to.
  void storeElementsHandedOver(const Expr *arg, Id container, facts::FlowKind kind) {
    QualType type = arg->IgnoreParenImpCasts()->getType().getNonReferenceType();
    QualType elementType;
    if (const ArrayType *array = type->getAsArrayTypeUnsafe())
      elementType = array->getElementType();
    else if (const auto *pointer = type->getAs<PointerType>())
      elementType = pointer->getPointeeType();
    if (elementType.isNull() || !holdsFd(elementType))
      return;
    pointedFdsInto(arg, element(container, -1), kind);
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
      return typed(intern(localKey(var), facts::PlaceKind::Local, var->getNameAsString(),
                          owner ? functionId(owner) : kNone),
                   var->getType());
    }
    llvm::SmallString<128> usr;
    std::string key = index::generateUSRForDecl(var, usr)
                          ? "g:" + var->getQualifiedNameAsString()
                          : "g:" + std::string(usr);
    return typed(intern(key, facts::PlaceKind::Global, var->getNameAsString()), var->getType());
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
  void pointedFdsInto(const Expr *pointer, Id target, facts::FlowKind kind);
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
  std::optional<Id> forwardedContainer(const CallExpr *call);
  // v.emplace_back(x) into T(P): x converted to P as a direct call would convert it.
  void convertForwarded(const CallExpr *call, const CXXConstructorDecl *ctor, llvm::ArrayRef<const Expr *> args,
                        const Event &event);
  void processConstruct(const CXXConstructExpr *construct, const Event &event);
  // std::thread(f, args...), std::jthread, std::async([policy,] f, args...), std::invoke(f,
  // args...): a call of f with the arguments after it (a method's object first). True when the
  // callable is a function or a lambda the analysis sees. `calledOnlyHere`: f gets no other
  // arguments from where the call hands it (else its address still escapes).
  bool processInvocation(const Expr *at, llvm::ArrayRef<const Expr *> args, const Event &event,
                         bool calledOnlyHere = true);
  // A call of a method of a library record the analysis models (modelledRecord): true when done.
  bool processModelledCall(const CallExpr *call, const FunctionDecl *callee, const Event &event);
  // A call through a pointer: the link calls whatever reaches it. `args` by the callee's parameter
  // (nullptr: nothing passed there); with `givesBack`, the call's value is what the callees return.
  void processIndirectCall(const CallExpr *call, const Expr *target, llvm::ArrayRef<const Expr *> args,
                           const Event &event, bool givesBack = true);
  // A registration whose callback names no function (a helper's parameter, a struct's member).
  void registerThroughPointer(const CallExpr *call, const Registrar &registrar, const Event &event);
  void holderCall(const CallExpr *call, const HolderCall &model, const Event &event);
  void copyPointee(const Expr *source, const Expr *destination);
  // Whether each argument has its parameter's type, references and qualifiers aside.
  bool takesTheseTypes(const FunctionDecl *fn, llvm::ArrayRef<const Expr *> args) {
    auto bare = [&](QualType t) { return Ctx.getCanonicalType(t.getNonReferenceType()).getUnqualifiedType(); };
    for (std::size_t i = 0; i < args.size() && i < fn->getNumParams(); ++i)
      if (bare(fn->getParamDecl(i)->getType()) != bare(args[i]->getType()))
        return false;
    return true;
  }
  std::optional<Id> pairPart(const CallExpr *call, const FunctionDecl *callee);
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
  // `held`: the fd is the one a holder keeps (an fd_senders model's `holder`), not `value` itself.
  void payload(const Stmt *write, const Expr *value, bool many, std::int64_t count, const Event &event,
               std::optional<Id> held = std::nullopt);
  // fds read out of a received SCM_RIGHTS message at `read` (*(int *)CMSG_DATA(c), fds[i] of a
  // pointer into it, memcpy(&fd, CMSG_DATA(c), n)): the value they arrive as, one per read
  // (facts::Received), an origin of its own (unknown: another program's fds), so that a
  // receiving helper returning what it read is made per call like any function returning a
  // socket it makes.
  // A read under `if (c->cmsg_type == SCM_PIDFD)` or `case SCM_PIDFD:` is the sender's pidfd
  // (SO_PASSPIDFD), an fd known not to be a socket.
  Id receivedFds(const Expr *read) {
    std::size_t before = U.creates.size();
    bool pidfd = readsPidfd(read);
    facts::Create create;
    create.how = pidfd ? facts::CreateHow::NotSocket : facts::CreateHow::Unknown;
    create.origin = (pidfd ? "a pidfd received with SCM_PIDFD" : "fds received with SCM_RIGHTS") +
                    inFunctionText(currentFunction());
    Id place = createValue(read, std::move(create), pidfd ? "SCM_PIDFD" : "SCM_RIGHTS");
    if (U.creates.size() > before && !pidfd)
      U.received.push_back({place, U.creates.back().site});
    return place;
  }
  bool readsPidfd(const Expr *read);

  // --- visit-time helpers --------------------------------------------------------------------------
  Id statementOf(const Expr *call, const Expr *socketArg);
  bool familyGuarded();
  void evidence(SourceLocation loc);
  // msg.msg_control = value: the buffer it names, recorded for the current function
  // (Function::controlBuffers).
  void controlBuffer(const Expr *value);
  void credentialTest(bool equals);
  facts::CredentialOutcome credentialOutcome(const Scope &scope);
  bool callsForEachElement(const CallExpr *call, const FunctionDecl *callee, const Event &event);
  const Stmt *enclosingCmsgLoop(std::size_t below) const;
  enum class AbsenceExit { None, Refuses, Accepts, SkipsCmsg };
  AbsenceExit absenceExit(const Stmt *branch, const CredentialTest &test, const FunctionDecl *fn);
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
  // A write on `socket` at `at` (the fd or owner object it names: `object`); the caller fills in
  // what else it knows.
  facts::Write &writeOn(Id socket, const Expr *at, const Expr *object, const Event &event);
  const Expr *msgNameOf(const Expr *message);
  // While set: the function the sites being made belong to (a lambda's send of its enclosing
  // function's message, capturedMessageOwner()).
  const FunctionDecl *SiteOwner = nullptr;
  // The function around the current lambda whose local message (msghdr) `message` names
  // (`&msg`, `msg`), when the lambda captured it; null otherwise.
  const FunctionDecl *capturedMessageOwner(const Expr *message) {
    const FunctionDecl *fn = Current ? Current->fn : nullptr;
    if (!fn || !enclosingFunctionOfLambda(fn))
      return nullptr;
    const Expr *e = message->IgnoreParenImpCasts();
    if (const auto *address = dyn_cast<UnaryOperator>(e); address && address->getOpcode() == UO_AddrOf)
      e = address->getSubExpr()->IgnoreParenImpCasts();
    const auto *ref = dyn_cast<DeclRefExpr>(e);
    const auto *var = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
    if (!var || !var->hasLocalStorage())
      return nullptr;
    const auto *home = dyn_cast_or_null<FunctionDecl>(var->getParentFunctionOrMethod());
    for (const FunctionDecl *outer = enclosingFunctionOfLambda(fn); outer && home;
         outer = enclosingFunctionOfLambda(outer))
      if (outer == home)
        return home;
    return nullptr;
  }
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
  // A call of a message_queues model: a library function (no body here, declared in a header;
  // the catalog's entries, as a project's, name a library's API, so where the program defines
  // one itself it is the program's code and is followed instead).
  const MessageQueue *queuingCall(const CallExpr *call, const FunctionDecl *callee, llvm::StringRef name) {
    if (callee->hasBody())
      return nullptr;
    for (const MessageQueue &q : Options.messageQueues)
      if (q.name == name && call->getNumArgs() > q.messageArg)
        return &q;
    return nullptr;
  }
  // The size of a local container built from a braced list (std::vector<int> one = {fd}) that
  // nothing in its function adds to: the count a callee that sends `fds.size()` fds uses.
  std::optional<std::int64_t> listedElementCount(const Expr *value);
  // A call of an fd_senders model: a library function (no body here; one the program defines is
  // followed as code) that sends the fds it is given in one SCM_RIGHTS message. A qualified model
  // names the library's own function, so it stands for the body a header gives it too
  // (android-base's SendFileDescriptors template).
  const FdSender *fdSendingCall(const CallExpr *call, const FunctionDecl *callee, llvm::StringRef name) {
    for (const FdSender &f : Options.fdSenders) {
      llvm::StringRef model(f.name);
      bool qualified = model.contains("::");
      // (The qualified name is built only for a callee whose own name is the model's last part.)
      bool named = qualified ? !name.empty() && model.ends_with(name) &&
                                   model.drop_back(name.size()).ends_with("::") &&
                                   model == callee->getQualifiedNameAsString()
                             : model == name;
      // (The catalog's plain names are a library's API only where an installed library's header
      // declares it: a project's own function of that name is the project's code.)
      if (named && (qualified || (!callee->hasBody() && (!f.builtin || declaredInLibraryHeader(callee, SM)))) &&
          call->getNumArgs() > std::max(f.socketArg, f.fdsArg) &&
          (f.countArg < 0 || call->getNumArgs() > static_cast<unsigned>(f.countArg)))
        return &f;
    }
    return nullptr;
  }
  // The largest fd count the current function stores in the `countField` of the message `message`
  // names (m, &m, ans + i, &ans[i]): its initialiser (`.nfds = n`) and assignments
  // (`ans[i].nfds = UNIXMESSAGE_MAXFDS`), each value the largest constant it can be (through
  // conditionals: `n > MAX ? MAX : n`, and a local's initialiser). Conservative: a count computed
  // otherwise (`1 + (n - 1) % MAX`) is not bounded from above, so it adds nothing.
  std::optional<std::int64_t> largestStoredCount(const Expr *message, llvm::StringRef countField);

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
  // ownerModel() per record: the model of the record or its first base with one, and that one's name.
  llvm::DenseMap<const CXXRecordDecl *, std::pair<const FdOwnerModel *, std::string>> OwnerModels;
  llvm::DenseMap<const Type *, std::vector<std::string>> RecordsOfType; // typed()
  std::set<std::pair<const RecordDecl *, const RecordDecl *>> AliasedRecords; // aliasCommonFields()
  llvm::DenseMap<const RecordDecl *, bool> FdFieldRecords;
  llvm::DenseMap<const CXXRecordDecl *, const ContainerClass *> ContainerModels;
  // Functions given two different CFGs (a template's instantiations): their sites get no block.
  llvm::DenseSet<Id> UnpositionedFunctions;
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
inline std::optional<std::string> constantString(const Expr *expr) {
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
inline bool isWriteCall(llvm::StringRef name) {
  return llvm::StringSwitch<bool>(name)
      .Cases("send", "sendto", "sendmsg", "sendmmsg", "write", "writev", true)
      .Default(false);
}

// The socket call a call of a syscall wrapper stands for (the model catalog's syscall_wrappers:
// syscall(SYS_sendmsg, fd, &msg, flags) is sendmsg() with its arguments from 1), or nullptr.
// `system`: the callee is declared in a system header (the catalog's entries apply only there).
inline const SyscallWrapper *wrappedSocketCall(const CallExpr *call, llvm::StringRef name, bool system,
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
inline bool mentionsSpelled(const Stmt *stmt, llvm::ArrayRef<llvm::StringRef> names, ASTContext &ctx) {
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
inline bool looksLikeSocketPath(llvm::StringRef text) {
  if (text.empty() || text.size() >= 108 || text.contains(' ') || text.contains('%') || text.contains('\n'))
    return false;
  return text.front() == '/' || text.front() == '@' || text.front() == '\0';
}

// The address as the facts write it: an abstract name ("\0name") as "@name".
inline std::string unixPath(llvm::StringRef text) {
  if (!text.empty() && text.front() == '\0')
    return "@" + text.drop_front().split('\0').first.str();
  return text.str();
}

// Functions that compare two strings (how sd_listen_fds_with_names() users pick their fd).
inline bool comparesStrings(llvm::StringRef name) {
  return llvm::StringSwitch<bool>(name)
      .Cases("strcmp", "strncmp", "strcasecmp", "streq", "strcaseeq", true)
      .Cases("string_equal", "g_str_equal", "g_strcmp0", "STR_IN_SET", true)
      .Default(false);
}


// An fd spelled as a number where an fd is expected (fd 3, the first socket-activation fd).
inline bool inheritedNumber(const Expr *arg, const ASTContext &ctx) {
  const auto *literal = dyn_cast<IntegerLiteral>(arg->IgnoreParenImpCasts());
  // SO_PASSCRED or SOCK_STREAM passed to an int parameter is a constant, not an fd.
  if (!literal || literal->getBeginLoc().isMacroID())
    return false;
  std::optional<std::int64_t> value = evalInt(literal, ctx);
  return value && *value >= 3 && *value < 1024;
}

// Whether running `stmt` leaves the code that follows it: a return, goto, break, continue or a
// call that does not return.
inline bool leaves(const Stmt *stmt) {
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
inline void assignedIn(const Stmt *stmt, llvm::SmallPtrSetImpl<const VarDecl *> &out) {
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

inline bool mentions(const Stmt *stmt, const llvm::SmallPtrSetImpl<const VarDecl *> &vars) {
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

} // namespace extraction

} // namespace afunix::analysis
