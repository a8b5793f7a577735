#include "FdPassingFacts.h"

#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/StringSwitch.h"

#include <algorithm>

namespace clang::tidy::afunix::fd {

namespace {

const Expr *strip(const Expr *e) { return e ? e->IgnoreParenCasts() : nullptr; }

llvm::StringRef calleeName(const CallExpr *call) {
  if (const FunctionDecl *fn = call->getDirectCallee())
    if (const IdentifierInfo *id = fn->getIdentifier())
      return id->getName();
  return {};
}

const FunctionDecl *canonical(const FunctionDecl *fn) {
  return fn ? fn->getCanonicalDecl() : nullptr;
}

std::optional<int64_t> constantOf(const Expr *e, const ASTContext &ctx) {
  Expr::EvalResult result;
  if (!e || e->isValueDependent() || !e->EvaluateAsInt(result, ctx))
    return std::nullopt;
  return result.Val.getInt().getExtValue();
}

bool isReceive(llvm::StringRef name) {
  return llvm::StringSwitch<bool>(name)
      .Cases("recv", "recvmsg", "recvfrom", "recvmmsg", "read", "readv", true)
      .Default(false);
}

bool isCopy(llvm::StringRef name) {
  return llvm::StringSwitch<bool>(name)
      .Cases("memcpy", "memmove", "__builtin_memcpy", "__builtin_memmove", true)
      .Cases("__builtin___memcpy_chk", "__builtin___memmove_chk", true)
      .Default(false);
}

// Calls that return a new fd that is never a socket.
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

// Strips pointer arithmetic and &a[i] down to the array or pointer the elements come from.
const Expr *arrayBase(const Expr *e) {
  e = strip(e);
  while (e) {
    if (const auto *bin = dyn_cast<BinaryOperator>(e);
        bin && bin->isAdditiveOp() && bin->getLHS()->getType()->isPointerType()) {
      e = strip(bin->getLHS());
      continue;
    }
    if (const auto *un = dyn_cast<UnaryOperator>(e); un && un->getOpcode() == UO_AddrOf) {
      if (const auto *sub = dyn_cast<ArraySubscriptExpr>(strip(un->getSubExpr()))) {
        e = strip(sub->getBase());
        continue;
      }
    }
    break;
  }
  return e;
}

const ValueDecl *canonicalValue(const ValueDecl *d) {
  return d ? cast<ValueDecl>(d->getCanonicalDecl()) : nullptr;
}

// The stable key of a place that holds an fd: variable, field (any object), array element.
std::optional<FdFacts::StoreKey> keyOf(const Expr *e, const ASTContext &ctx) {
  e = strip(e);
  if (!e)
    return std::nullopt;
  if (const auto *ref = dyn_cast<DeclRefExpr>(e)) {
    if (isa<VarDecl>(ref->getDecl()))
      return FdFacts::StoreKey{canonicalValue(ref->getDecl()), -1};
    return std::nullopt;
  }
  if (const auto *member = dyn_cast<MemberExpr>(e)) {
    if (isa<FieldDecl>(member->getMemberDecl()))
      return FdFacts::StoreKey{canonicalValue(member->getMemberDecl()), -1};
    return std::nullopt;
  }
  if (const auto *sub = dyn_cast<ArraySubscriptExpr>(e)) {
    auto base = keyOf(sub->getBase(), ctx);
    if (!base || base->index != -1)
      return std::nullopt;
    std::optional<int64_t> index = constantOf(sub->getIdx(), ctx);
    return FdFacts::StoreKey{base->decl, index && *index >= 0 ? *index : -2};
  }
  return std::nullopt;
}

const ParmVarDecl *paramOf(const Expr *e, const FunctionDecl *fn) {
  const auto *ref = dyn_cast_or_null<DeclRefExpr>(strip(e));
  if (!ref || !fn)
    return nullptr;
  const auto *param = dyn_cast<ParmVarDecl>(ref->getDecl());
  if (!param)
    return nullptr;
  const auto *owner = dyn_cast<FunctionDecl>(param->getDeclContext());
  return owner && canonical(owner) == canonical(fn) ? param : nullptr;
}

bool loopEncloses(const LoopNode *outer, const LoopNode *inner) {
  for (const LoopNode *n = inner; n; n = n->parent)
    if (n == outer)
      return true;
  return false;
}

bool macroNamed(SourceLocation loc, llvm::StringRef name, const SourceManager &sm,
                const LangOptions &lo) {
  for (int i = 0; i < 8 && loc.isMacroID(); ++i) {
    if (Lexer::getImmediateMacroName(loc, sm, lo) == name)
      return true;
    loc = sm.getImmediateMacroCallerLoc(loc);
  }
  return false;
}

bool isCmsgDataSpelling(const Expr *e, const ASTContext &ctx) {
  const Expr *s = strip(e);
  if (!s)
    return false;
  if (const auto *member = dyn_cast<MemberExpr>(s))
    if (const IdentifierInfo *id = member->getMemberDecl()->getIdentifier();
        id && id->getName() == "__cmsg_data")
      return true; // glibc: CMSG_DATA(c) is ((c)->__cmsg_data)
  const SourceManager &sm = ctx.getSourceManager();
  return macroNamed(e->getBeginLoc(), "CMSG_DATA", sm, ctx.getLangOpts()) ||
         macroNamed(s->getBeginLoc(), "CMSG_DATA", sm, ctx.getLangOpts());
}

// Bounded work per query: real code with many callers of a wrapper must not explode.
thread_local int ResolveBudget = 0;
constexpr int kResolveBudget = 4000;
constexpr int kMaxDepth = 10;

} // namespace

// ---------------------------------------------------------------------------------------------
// OriginSet

bool OriginSet::any(FdKind kind) const { return first(kind) != nullptr; }

const FdOrigin *OriginSet::first(FdKind kind) const {
  for (const FdOrigin &o : origins)
    if (o.kind == kind)
      return &o;
  return nullptr;
}

void OriginSet::add(const FdOrigin &origin) {
  if (std::find(origins.begin(), origins.end(), origin) == origins.end())
    origins.push_back(origin);
}

void OriginSet::add(const OriginSet &other) {
  for (const FdOrigin &o : other.origins)
    add(o);
}

// ---------------------------------------------------------------------------------------------
// The index walk

class FdIndexBuilder : public RecursiveASTVisitor<FdIndexBuilder> {
  using Base = RecursiveASTVisitor<FdIndexBuilder>;

public:
  explicit FdIndexBuilder(FdFacts &facts)
      : F(facts), Ctx(facts.context()), SM(Ctx.getSourceManager()) {}

  bool TraverseDecl(Decl *d) {
    if (!d)
      return true;
    if (declaredInSystemHeader(d, SM))
      return true;
    if (const auto *fn = dyn_cast<FunctionDecl>(d); fn && fn->doesThisDeclarationHaveABody()) {
      const FunctionDecl *savedFn = Fn;
      const LoopNode *savedLoop = Loop;
      Fn = fn;
      Loop = nullptr;
      bool result = Base::TraverseDecl(d);
      Fn = savedFn;
      Loop = savedLoop;
      return result;
    }
    return Base::TraverseDecl(d);
  }

  bool TraverseForStmt(ForStmt *s) {
    return inLoop(s, [&] { return Base::TraverseForStmt(s); });
  }
  bool TraverseWhileStmt(WhileStmt *s) {
    return inLoop(s, [&] { return Base::TraverseWhileStmt(s); });
  }
  bool TraverseDoStmt(DoStmt *s) {
    return inLoop(s, [&] { return Base::TraverseDoStmt(s); });
  }
  bool TraverseCXXForRangeStmt(CXXForRangeStmt *s) {
    return inLoop(s, [&] { return Base::TraverseCXXForRangeStmt(s); });
  }

  bool TraverseConstructorInitializer(CXXCtorInitializer *init) {
    if (init && init->isMemberInitializer() && init->getInit())
      F.Stores[{canonicalValue(init->getMember()), -1}].push_back(init->getInit());
    return Base::TraverseConstructorInitializer(init);
  }

  bool VisitCallExpr(CallExpr *call) {
    if (F.CallIndex.count(call))
      return true; // C init lists are walked in both their syntactic and semantic forms
    unsigned index = F.Calls.size();
    F.Calls.push_back({call, Fn, Loop});
    F.CallIndex[call] = index;
    F.CallsIn[canonical(Fn)].push_back(index);
    if (const FunctionDecl *callee = call->getDirectCallee())
      F.CallersOf[canonical(callee)].push_back(index);
    llvm::StringRef name = calleeName(call);
    if (name == "sendmsg" && call->getNumArgs() >= 2)
      F.SendmsgCalls.push_back(index);
    else if (name == "socketpair" && call->getNumArgs() == 4)
      addOutParam(call->getArg(3), call);
    else if ((name == "pipe" || name == "pipe2") && call->getNumArgs() >= 1)
      addOutParam(call->getArg(0), call);
    return true;
  }

  bool VisitBinaryOperator(BinaryOperator *op) {
    if (op->isEqualityOp()) {
      // `c->cmsg_type == SCM_RIGHTS` reads a received message; only building one counts.
      Compared.insert(op->getLHS()->IgnoreParenImpCasts());
      Compared.insert(op->getRHS()->IgnoreParenImpCasts());
      return true;
    }
    if (op->getOpcode() != BO_Assign)
      return true;
    if (auto key = keyOf(op->getLHS(), Ctx)) {
      F.Stores[*key].push_back(op->getRHS());
      if (key->index == -1 && op->getLHS()->getType()->isPointerType())
        if (const auto *var = dyn_cast<VarDecl>(key->decl);
            var && isCmsgDataSpelling(op->getRHS(), Ctx))
          F.CmsgDataPointers.insert(var);
    }
    F.AssignsIn[canonical(Fn)].push_back({op, Loop});
    return true;
  }

  bool VisitVarDecl(VarDecl *var) {
    if (isa<ParmVarDecl>(var) || !var->getInit())
      return true;
    const Expr *init = var->getInit();
    const ValueDecl *key = canonicalValue(var);
    if (const auto *list = dyn_cast<InitListExpr>(init->IgnoreImplicit());
        list && var->getType()->isArrayType()) {
      for (unsigned i = 0; i < list->getNumInits(); ++i)
        F.Stores[{key, static_cast<int64_t>(i)}].push_back(list->getInit(i));
      return true;
    }
    F.Stores[{key, -1}].push_back(init);
    if (var->getType()->isPointerType() && isCmsgDataSpelling(init, Ctx))
      F.CmsgDataPointers.insert(var);
    return true;
  }

  bool VisitFieldDecl(FieldDecl *field) {
    if (field->hasInClassInitializer())
      if (const Expr *init = field->getInClassInitializer())
        F.Stores[{canonicalValue(field), -1}].push_back(init);
    return true;
  }

  bool VisitReturnStmt(ReturnStmt *ret) {
    if (Fn && ret->getRetValue())
      F.Returns[canonical(Fn)].push_back(ret->getRetValue());
    return true;
  }

  bool VisitCaseStmt(CaseStmt *c) {
    if (c->getLHS())
      Compared.insert(c->getLHS()->IgnoreParenImpCasts());
    return true;
  }

  bool VisitDeclRefExpr(DeclRefExpr *ref) {
    if (Compared.count(ref))
      return true;
    if (const auto *constant = dyn_cast<EnumConstantDecl>(ref->getDecl()))
      if (const IdentifierInfo *id = constant->getIdentifier(); id && id->getName() == "SCM_RIGHTS")
        F.ScmRightsFunctions.insert(canonical(Fn));
    return true;
  }

  // musl and others spell SCM_RIGHTS as a plain macro for 1.
  bool VisitIntegerLiteral(IntegerLiteral *literal) {
    if (!Compared.count(literal) && literal->getBeginLoc().isMacroID() && literal->getValue() == 1 &&
        Lexer::getImmediateMacroName(literal->getBeginLoc(), SM, Ctx.getLangOpts()) ==
            "SCM_RIGHTS")
      F.ScmRightsFunctions.insert(canonical(Fn));
    return true;
  }

private:
  template <typename Fn_> bool inLoop(const Stmt *loop, Fn_ traverse) {
    F.Loops.push_back({loop, Loop});
    const LoopNode *saved = Loop;
    Loop = &F.Loops.back();
    bool result = traverse();
    Loop = saved;
    return result;
  }

  void addOutParam(const Expr *array, const CallExpr *call) {
    if (auto key = keyOf(arrayBase(array), Ctx); key && key->index == -1)
      F.OutParams[key->decl].push_back(call);
  }

  FdFacts &F;
  ASTContext &Ctx;
  const SourceManager &SM;
  const FunctionDecl *Fn = nullptr;
  const LoopNode *Loop = nullptr;
  llvm::DenseSet<const Expr *> Compared;
};

// ---------------------------------------------------------------------------------------------
// FdFacts

std::shared_ptr<FdFacts> FdFacts::shared(ASTContext &context) {
  // Per thread (clangd builds several ASTs at once); keyed by the context and its TU so a
  // context allocated at a freed one's address is never mistaken for it while facts are held.
  struct Cache {
    const ASTContext *context = nullptr;
    const TranslationUnitDecl *unit = nullptr;
    std::weak_ptr<FdFacts> facts;
  };
  static thread_local Cache cache;
  if (cache.context == &context && cache.unit == context.getTranslationUnitDecl())
    if (std::shared_ptr<FdFacts> facts = cache.facts.lock())
      return facts;
  auto facts = std::make_shared<FdFacts>(context);
  cache = {&context, context.getTranslationUnitDecl(), facts};
  return facts;
}

FdFacts::FdFacts(ASTContext &context) : Ctx(&context) {
  FdIndexBuilder(*this).TraverseDecl(context.getTranslationUnitDecl());
  buildSends();
}

const CallRecord *FdFacts::recordOf(const CallExpr *call) const {
  auto it = CallIndex.find(call);
  return it == CallIndex.end() ? nullptr : &Calls[it->second];
}

bool FdFacts::isCmsgData(const Expr *expr, const FunctionDecl *) const {
  if (isCmsgDataSpelling(expr, *Ctx))
    return true;
  if (const auto *ref = dyn_cast_or_null<DeclRefExpr>(strip(expr)))
    if (const auto *var = dyn_cast<VarDecl>(ref->getDecl()))
      return CmsgDataPointers.count(cast<VarDecl>(var->getCanonicalDecl())) != 0;
  return false;
}

void FdFacts::collectPayload(const FunctionDecl *fn, const CallRecord &send,
                             std::vector<PayloadFd> &out) const {
  // A write in a loop that does not also hold the sendmsg() fills one message with many fds.
  auto loopedApart = [&](const LoopNode *writeLoop) {
    return writeLoop && !loopEncloses(writeLoop, send.loop);
  };
  if (auto it = CallsIn.find(canonical(fn)); it != CallsIn.end()) {
    for (unsigned index : it->second) {
      const CallExpr *call = Calls[index].call;
      if (call->getNumArgs() < 3 || !isCopy(calleeName(call)) || !isCmsgData(call->getArg(0), fn))
        continue;
      PayloadFd payload;
      payload.write = call;
      std::optional<int64_t> bytes = constantOf(call->getArg(2), *Ctx);
      if (bytes && *bytes % 4 == 0)
        payload.count = *bytes / 4; // sizeof(int)
      const Expr *source = strip(call->getArg(1));
      const auto *addr = dyn_cast<UnaryOperator>(source);
      if (addr && addr->getOpcode() == UO_AddrOf && payload.count == 1) {
        payload.fd = strip(addr->getSubExpr()); // &fd, &sv[0], &s->fd: one fd
      } else {
        payload.fd = source;
        payload.many = !payload.count || *payload.count != 1;
      }
      if (loopedApart(Calls[index].loop)) {
        payload.many = true;
        payload.count.reset();
      }
      out.push_back(payload);
    }
  }
  if (auto it = AssignsIn.find(canonical(fn)); it != AssignsIn.end()) {
    for (const Assignment &assign : it->second) {
      const Expr *lhs = strip(assign.op->getLHS());
      const Expr *target = nullptr;
      if (const auto *deref = dyn_cast<UnaryOperator>(lhs); deref && deref->getOpcode() == UO_Deref)
        target = deref->getSubExpr();
      else if (const auto *element = dyn_cast<ArraySubscriptExpr>(lhs))
        target = element->getBase();
      if (!target || !isCmsgData(target, fn))
        continue;
      PayloadFd payload;
      payload.write = assign.op;
      payload.fd = strip(assign.op->getRHS());
      payload.count = 1;
      if (loopedApart(assign.loop)) {
        payload.many = true;
        payload.count.reset();
      }
      out.push_back(payload);
    }
  }
}

namespace {
// Replaces a parameter of `fn` by the argument `call` passes for it.
const Expr *substitute(const Expr *e, const FunctionDecl *fn, const CallExpr *call) {
  if (const ParmVarDecl *param = paramOf(e, fn)) {
    unsigned index = param->getFunctionScopeIndex();
    return index < call->getNumArgs() ? call->getArg(index) : nullptr;
  }
  return e;
}
} // namespace

void FdFacts::buildSends() {
  std::vector<SendSite> work;
  for (unsigned index : SendmsgCalls) {
    const CallRecord &send = Calls[index];
    if (!ScmRightsFunctions.count(canonical(send.function))) {
      // A sendmsg() helper that takes the msghdr (`xsendmsg(int fd, struct msghdr *m)`): the
      // message is built by callers that name SCM_RIGHTS; judge it there.
      auto callers = send.function && paramOf(send.call->getArg(1), send.function)
                         ? CallersOf.find(canonical(send.function))
                         : CallersOf.end();
      if (callers == CallersOf.end())
        continue; // conservative: no SCM_RIGHTS in sight, the message carries no fds
      for (unsigned callerIndex : callers->second) {
        const CallRecord &caller = Calls[callerIndex];
        if (!ScmRightsFunctions.count(canonical(caller.function)))
          continue;
        const Expr *over = substitute(send.call->getArg(0), send.function, caller.call);
        if (!over)
          continue;
        SendSite site;
        site.levels.push_back({send.call, send.function, send.loop, send.call->getArg(0)});
        site.levels.push_back({caller.call, caller.function, caller.loop, over});
        site.over = over;
        collectPayload(caller.function, caller, site.payload);
        if (!site.payload.empty())
          work.push_back(std::move(site));
      }
      continue;
    }
    SendSite site;
    site.levels.push_back({send.call, send.function, send.loop, send.call->getArg(0)});
    site.over = send.call->getArg(0);
    collectPayload(send.function, send, site.payload);
    if (site.payload.empty())
      continue;
    work.push_back(std::move(site));
  }
  // Wrappers: a send whose channel or fds are parameters is judged at each call site of its
  // function in this TU, with the arguments put in; with no caller here it is judged as is.
  while (!work.empty()) {
    SendSite site = std::move(work.back());
    work.pop_back();
    const FunctionDecl *fn = site.levels.back().function;
    bool usesParam = paramOf(site.over, fn) != nullptr;
    for (const PayloadFd &payload : site.payload)
      usesParam |= paramOf(payload.many ? arrayBase(payload.fd) : payload.fd, fn) != nullptr;
    auto callers = CallersOf.find(canonical(fn));
    if (!usesParam || !fn || callers == CallersOf.end() || site.levels.size() > 4) {
      Sends.push_back(std::move(site));
      continue;
    }
    bool expanded = false;
    for (unsigned index : callers->second) {
      const CallRecord &caller = Calls[index];
      if (canonical(caller.function) == canonical(fn))
        continue; // recursion
      SendSite outer = site;
      const Expr *over = substitute(site.over, fn, caller.call);
      if (!over)
        continue;
      outer.over = over;
      bool ok = true;
      for (PayloadFd &payload : outer.payload) {
        const Expr *value = payload.many ? arrayBase(payload.fd) : payload.fd;
        const Expr *passed = substitute(value, fn, caller.call);
        ok &= passed != nullptr;
        if (passed && passed != value)
          payload.fd = strip(passed);
      }
      if (!ok)
        continue;
      outer.levels.push_back({caller.call, caller.function, caller.loop, over});
      work.push_back(std::move(outer));
      expanded = true;
    }
    if (!expanded)
      Sends.push_back(std::move(site));
  }
}

// ---------------------------------------------------------------------------------------------
// Origins

OriginSet FdFacts::resolve(const Expr *value, const llvm::StringSet<> &producers) const {
  OriginSet out;
  ResolveBudget = kResolveBudget;
  resolveInto(value, producers, out, 0, true);
  if (out.origins.empty())
    out.add(FdOrigin{});
  return out;
}

OriginSet FdFacts::resolveElements(const Expr *array, const llvm::StringSet<> &producers) const {
  OriginSet out;
  ResolveBudget = kResolveBudget;
  resolveElementInto(array, -2, producers, out, 0, false);
  if (out.origins.empty())
    out.add(FdOrigin{});
  return out;
}

void FdFacts::resolveInto(const Expr *value, const llvm::StringSet<> &producers, OriginSet &out,
                          int depth, bool exact) const {
  const Expr *e = strip(value);
  if (!e || depth > kMaxDepth || --ResolveBudget < 0) {
    out.add(FdOrigin{});
    return;
  }
  if (std::optional<int64_t> constant = constantOf(e, *Ctx)) {
    if (*constant >= 0)
      out.add(FdOrigin{}); // a numbered fd from outside
    return;                // -1: "no fd yet", not a value that is ever sent
  }
  if (const auto *cond = dyn_cast<AbstractConditionalOperator>(e)) {
    resolveInto(cond->getTrueExpr(), producers, out, depth + 1, exact);
    resolveInto(cond->getFalseExpr(), producers, out, depth + 1, exact);
    return;
  }
  if (const auto *bin = dyn_cast<BinaryOperator>(e)) {
    if (bin->getOpcode() == BO_Comma || bin->getOpcode() == BO_Assign) {
      resolveInto(bin->getRHS(), producers, out, depth + 1, exact);
      return;
    }
  }
  if (const auto *call = dyn_cast<CallExpr>(e)) {
    resolveCall(call, producers, out, depth, exact);
    return;
  }
  if (const auto *element = dyn_cast<ArraySubscriptExpr>(e)) {
    std::optional<int64_t> index = constantOf(element->getIdx(), *Ctx);
    resolveElementInto(element->getBase(), index && *index >= 0 ? *index : -2, producers, out,
                       depth + 1, exact && index.has_value());
    return;
  }
  auto key = keyOf(e, *Ctx);
  if (!key) {
    out.add(FdOrigin{});
    return;
  }
  if (const auto *param = dyn_cast<ParmVarDecl>(key->decl)) {
    const auto *fn = dyn_cast<FunctionDecl>(param->getDeclContext());
    auto callers = fn ? CallersOf.find(canonical(fn)) : CallersOf.end();
    if (callers == CallersOf.end()) {
      out.add(FdOrigin{}); // a public entry point: callers are elsewhere
      return;
    }
    for (unsigned index : callers->second) {
      const CallExpr *call = Calls[index].call;
      if (param->getFunctionScopeIndex() < call->getNumArgs())
        resolveInto(call->getArg(param->getFunctionScopeIndex()), producers, out, depth + 1,
                    exact);
    }
    if (auto stores = Stores.find(*key); stores != Stores.end())
      for (const Expr *stored : stores->second)
        resolveInto(stored, producers, out, depth + 1, exact);
    return;
  }
  resolveStores(*key, producers, out, depth + 1, exact);
}

void FdFacts::resolveStores(const StoreKey &key, const llvm::StringSet<> &producers,
                            OriginSet &out, int depth, bool exact) const {
  auto it = Stores.find(key);
  if (it == Stores.end()) {
    out.add(FdOrigin{}); // a field or global never assigned in this TU
    return;
  }
  for (const Expr *stored : it->second)
    resolveInto(stored, producers, out, depth, exact);
}

void FdFacts::resolveElementInto(const Expr *array, int64_t index,
                                 const llvm::StringSet<> &producers, OriginSet &out, int depth,
                                 bool exact) const {
  const Expr *base = arrayBase(array);
  if (!base || depth > kMaxDepth || --ResolveBudget < 0) {
    out.add(FdOrigin{});
    return;
  }
  auto key = keyOf(base, *Ctx);
  if (!key || key->index != -1) {
    out.add(FdOrigin{});
    return;
  }
  size_t before = out.origins.size();
  if (const auto *param = dyn_cast<ParmVarDecl>(key->decl)) {
    const auto *fn = dyn_cast<FunctionDecl>(param->getDeclContext());
    if (auto callers = fn ? CallersOf.find(canonical(fn)) : CallersOf.end();
        callers != CallersOf.end()) {
      for (unsigned call : callers->second)
        if (param->getFunctionScopeIndex() < Calls[call].call->getNumArgs())
          resolveElementInto(Calls[call].call->getArg(param->getFunctionScopeIndex()), index,
                             producers, out, depth + 1, exact);
    }
  }
  if (auto filled = OutParams.find(key->decl); filled != OutParams.end()) {
    for (const CallExpr *call : filled->second) {
      bool pair = calleeName(call) == "socketpair";
      FdKind kind = pair ? FdKind::UnixSocket : FdKind::NotSocket;
      if (pair)
        if (std::optional<int64_t> family = constantOf(call->getArg(0), *Ctx); family && *family != 1)
          kind = FdKind::OtherSocket;
      if (index >= 0) {
        out.add(FdOrigin{kind, call, static_cast<int>(index), exact});
      } else {
        out.add(FdOrigin{kind, call, 0, false});
        out.add(FdOrigin{kind, call, 1, false});
      }
    }
  }
  auto addStores = [&](int64_t at, bool storeExact) {
    if (auto it = Stores.find({key->decl, at}); it != Stores.end())
      for (const Expr *stored : it->second)
        resolveInto(stored, producers, out, depth + 1, storeExact);
  };
  if (index >= 0) {
    addStores(index, exact);
  } else {
    for (int64_t at = 0; at < 16; ++at)
      addStores(at, false);
  }
  addStores(-2, false);
  // `int *p = sv;` or `p = fds;`: the elements of p are those of the array it points into.
  if (auto it = Stores.find({key->decl, -1}); it != Stores.end())
    for (const Expr *stored : it->second) {
      const Expr *target = arrayBase(stored);
      if (target && (isa<DeclRefExpr>(target) || isa<MemberExpr>(target)) &&
          (target->getType()->isArrayType() || target->getType()->isPointerType()))
        resolveElementInto(target, index, producers, out, depth + 1, exact);
    }
  if (out.origins.size() == before)
    out.add(FdOrigin{});
}

void FdFacts::resolveCall(const CallExpr *call, const llvm::StringSet<> &producers,
                          OriginSet &out, int depth, bool exact) const {
  llvm::StringRef name = calleeName(call);
  if (!name.empty() && producers.contains(name)) {
    out.add(FdOrigin{FdKind::UnixSocket, call, -1, exact});
    return;
  }
  if (name == "socket" && call->getNumArgs() == 3) {
    std::optional<int64_t> family = constantOf(call->getArg(0), *Ctx);
    FdKind kind = !family ? FdKind::Unknown : *family == 1 ? FdKind::UnixSocket
                                                           : FdKind::OtherSocket;
    out.add(FdOrigin{kind, call, -1, exact});
    return;
  }
  if ((name == "accept" || name == "accept4" || name == "paccept") && call->getNumArgs() >= 1) {
    OriginSet listener;
    resolveInto(call->getArg(0), producers, listener, depth + 1, exact);
    bool unix = listener.any(FdKind::UnixSocket);
    bool other = !listener.origins.empty() &&
                 std::all_of(listener.origins.begin(), listener.origins.end(),
                             [](const FdOrigin &o) { return o.kind == FdKind::OtherSocket; });
    out.add(FdOrigin{unix ? FdKind::UnixSocket : other ? FdKind::OtherSocket : FdKind::Unknown,
                     call, -1, exact});
    return;
  }
  if ((name == "dup" || name == "dup3" || name == "fcntl") && call->getNumArgs() >= 1) {
    resolveInto(call->getArg(0), producers, out, depth + 1, false);
    return;
  }
  if (returnsNonSocketFd(name)) {
    out.add(FdOrigin{FdKind::NotSocket, call, -1, exact});
    return;
  }
  if (const FunctionDecl *callee = call->getDirectCallee())
    if (const FunctionDecl *definition = callee->getDefinition())
      if (auto it = Returns.find(canonical(definition)); it != Returns.end()) {
        for (const Expr *returned : it->second)
          resolveInto(returned, producers, out, depth + 1, exact);
        return;
      }
  out.add(FdOrigin{FdKind::Unknown, call, -1, exact});
}

// ---------------------------------------------------------------------------------------------
// Loops and channels

bool FdFacts::sameLocation(const Expr *a, const Expr *b) {
  a = strip(a);
  b = strip(b);
  if (!a || !b)
    return false;
  if (isa<CXXThisExpr>(a) && isa<CXXThisExpr>(b))
    return true;
  if (const auto *ra = dyn_cast<DeclRefExpr>(a)) {
    const auto *rb = dyn_cast<DeclRefExpr>(b);
    return rb && ra->getDecl()->getCanonicalDecl() == rb->getDecl()->getCanonicalDecl();
  }
  if (const auto *ma = dyn_cast<MemberExpr>(a)) {
    const auto *mb = dyn_cast<MemberExpr>(b);
    return mb && ma->getMemberDecl() == mb->getMemberDecl() &&
           sameLocation(ma->getBase(), mb->getBase());
  }
  if (const auto *ea = dyn_cast<ArraySubscriptExpr>(a)) {
    const auto *eb = dyn_cast<ArraySubscriptExpr>(b);
    if (!eb)
      return false;
    const auto *ia = dyn_cast<IntegerLiteral>(strip(ea->getIdx()));
    const auto *ib = dyn_cast<IntegerLiteral>(strip(eb->getIdx()));
    return ia && ib && ia->getValue() == ib->getValue() &&
           sameLocation(ea->getBase(), eb->getBase());
  }
  return false;
}

bool FdFacts::receivesOnParam(const FunctionDecl *fn, unsigned param, int depth) const {
  fn = canonical(fn);
  auto cached = ReceivesOnParamCache.find({fn, param});
  if (cached != ReceivesOnParamCache.end())
    return cached->second;
  ReceivesOnParamCache[{fn, param}] = false; // recursion guard
  bool result = false;
  if (auto it = CallsIn.find(fn); it != CallsIn.end() && depth < 4) {
    for (unsigned index : it->second) {
      const CallExpr *call = Calls[index].call;
      for (unsigned arg = 0; arg < call->getNumArgs() && !result; ++arg) {
        const ParmVarDecl *p = paramOf(call->getArg(arg), fn);
        if (!p || p->getFunctionScopeIndex() != param)
          continue;
        if (arg == 0 && isReceive(calleeName(call)))
          result = true;
        else if (const FunctionDecl *callee = call->getDirectCallee())
          if (const FunctionDecl *definition = callee->getDefinition())
            result = receivesOnParam(definition, arg, depth + 1);
      }
      if (result)
        break;
    }
  }
  ReceivesOnParamCache[{fn, param}] = result;
  return result;
}

bool FdFacts::receivesInLoop(const LoopNode *loop, const FunctionDecl *fn,
                             const Expr *channel) const {
  // A channel we cannot name (a call result, a dereference) is matched by any receive: the
  // check would rather miss a flood than call an acknowledged loop unbounded.
  bool anyChannel = !keyOf(channel, *Ctx);
  auto it = CallsIn.find(canonical(fn));
  if (it == CallsIn.end())
    return false;
  for (unsigned index : it->second) {
    const CallRecord &rec = Calls[index];
    if (!loopEncloses(loop, rec.loop))
      continue;
    const CallExpr *call = rec.call;
    if (isReceive(calleeName(call)) && call->getNumArgs() >= 1 &&
        (anyChannel || sameLocation(call->getArg(0), channel)))
      return true;
    const FunctionDecl *callee = call->getDirectCallee();
    const FunctionDecl *definition = callee ? callee->getDefinition() : nullptr;
    if (!definition)
      continue;
    for (unsigned arg = 0; arg < call->getNumArgs(); ++arg)
      if ((anyChannel || sameLocation(call->getArg(arg), channel)) &&
          receivesOnParam(definition, arg, 0))
        return true;
  }
  return false;
}

std::optional<int64_t> FdFacts::constantTrips(const Stmt *loop) const {
  // `do { ... } while (0)` (statement macros) runs once.
  if (const auto *once = dyn_cast<DoStmt>(loop))
    if (std::optional<int64_t> cond = constantOf(once->getCond(), *Ctx); cond && *cond == 0)
      return 1;
  const auto *forLoop = dyn_cast<ForStmt>(loop);
  if (!forLoop || !forLoop->getCond())
    return std::nullopt;
  const auto *cond = dyn_cast<BinaryOperator>(strip(forLoop->getCond()));
  if (!cond)
    return std::nullopt;
  std::optional<int64_t> limit = constantOf(cond->getRHS(), *Ctx);
  if (!limit)
    return std::nullopt;
  switch (cond->getOpcode()) {
  case BO_LT:
  case BO_NE:
    return *limit;
  case BO_LE:
    return *limit + 1;
  default:
    return std::nullopt;
  }
}

namespace {
bool readsErrno(const Stmt *s) {
  if (!s)
    return false;
  if (const auto *call = dyn_cast<CallExpr>(s)) {
    llvm::StringRef name = calleeName(call);
    if (name == "__errno_location" || name == "__error" || name == "__errno")
      return true; // what `errno` expands to in glibc/musl, the BSDs and bionic
  }
  for (const Stmt *child : s->children())
    if (readsErrno(child))
      return true;
  return false;
}
} // namespace

bool FdFacts::isErrnoRetry(const Stmt *loop) {
  const Expr *cond = nullptr;
  if (const auto *d = dyn_cast<DoStmt>(loop))
    cond = d->getCond();
  else if (const auto *w = dyn_cast<WhileStmt>(loop))
    cond = w->getCond();
  else if (const auto *f = dyn_cast<ForStmt>(loop))
    cond = f->getCond();
  return readsErrno(cond);
}

bool FdFacts::connectsInFunction(const FunctionDecl *fn, const FdOrigin &origin,
                                 const llvm::StringSet<> &producers) const {
  auto it = CallsIn.find(canonical(fn));
  if (it == CallsIn.end())
    return false;
  for (unsigned index : it->second) {
    const CallExpr *call = Calls[index].call;
    if (calleeName(call) != "connect" || call->getNumArgs() < 1)
      continue;
    OriginSet connected = resolve(call->getArg(0), producers);
    for (const FdOrigin &o : connected.origins)
      if (o.creator && o.creator == origin.creator && o.index == origin.index)
        return true;
  }
  return false;
}

std::string FdFacts::text(const Expr *expr) const {
  const SourceManager &sm = Ctx->getSourceManager();
  // A macro argument (ASSERT_EQ(send_fd(s, s), 0)) is shown as written, not as the whole macro.
  SourceLocation begin = expr->getBeginLoc(), end = expr->getEndLoc();
  if (begin.isMacroID() && sm.isMacroArgExpansion(begin) && end.isMacroID() &&
      sm.isMacroArgExpansion(end)) {
    begin = sm.getSpellingLoc(begin);
    end = sm.getSpellingLoc(end);
  }
  CharSourceRange range = CharSourceRange::getTokenRange(begin, end);
  if (range.getBegin().isMacroID() || range.getEnd().isMacroID())
    range = sm.getExpansionRange(expr->getSourceRange());
  llvm::StringRef spelled = Lexer::getSourceText(range, sm, Ctx->getLangOpts());
  return spelled.empty() || spelled.size() > 60 ? std::string("the socket") : spelled.str();
}

} // namespace clang::tidy::afunix::fd
