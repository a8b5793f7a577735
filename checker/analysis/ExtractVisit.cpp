// The AST walk: what needs only the AST is recorded at once, the rest deferred to the function's end.
#include "ExtractorImpl.h"

namespace afunix::analysis::extraction {

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
      wrappedSocketCall(call, name, api, Options, Ctx) || fdSendingCall(call, callee, name) ||
      receiverChannel(call, callee, name))
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
    if (std::optional<std::int64_t> fds = largestFdCountIn(
            call->getArg(2), Ctx, [&](const VarDecl *var) { return capBefore(var, call->getBeginLoc()); }))
      limit(call, *fds, facts::LimitWhere::PayloadCopy);
  if (const MessageQueue *queue = queuingCall(call, callee, name))
    if (std::optional<std::int64_t> fds = largestStoredCount(call->getArg(queue->messageArg), queue->count))
      limit(call, *fds, facts::LimitWhere::QueuedMessage);

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
  if (!option && templateArgumentSpelledAs(call, optionNames, Ctx))
    option = true;
  if ((lifecycle || option) && call->getNumArgs() >= 1) {
    statement = statementOf(call, call->getArg(0));
    guarded = option && familyGuarded();
  }
  // acceptor.listen() of a library fd owner, asio::connect(socket, ...) of its namespace (models.md,
  // fd_owner_classes): a socket call.
  std::string owner;
  if (const auto *member = dyn_cast<CXXMemberCallExpr>(call)) {
    if (methodEffect(member, owner)) {
      s.socketCalls = true;
      statement = statementOf(call, ownerObject(member));
    }
  } else if (functionEffect(call, callee, owner)) {
    s.socketCalls = true;
    statement = statementOf(call, call->getArg(0));
  }
  defer(Event::Call, call, statement, guarded);
  return true;
}

bool Extractor::VisitCXXConstructExpr(CXXConstructExpr *construct) {
  if (isFdOwnerType(construct->getType())) {
    // A library owner's constructor that binds or listens (acceptor(io, endpoint)) is a socket
    // call of its own; any other owner is a value, read where it is stored.
    if (const FdOwnerModel *model = ownerModel(construct->getType()))
      if (std::optional<OwnerEffect> effect = constructorEffect(construct, *model);
          effect && *effect != OwnerEffect::Socket) {
        scope().socketCalls = true;
        defer(Event::Construct, construct); // no fix-it moves anything before a library's bind
      }
    return true;
  }
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
    if (std::optional<std::int64_t> fds = largestFdCountIn(
            op->getRHS(), Ctx, [&](const VarDecl *var) { return capBefore(var, op->getBeginLoc()); }))
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
  aliasCommonFields(cast->getSubExpr()->getType(), cast->getType());
  return true;
}

void Extractor::aliasCommonFields(QualType from, QualType to) {
  if (!from->isPointerType() || !to->isPointerType() || from->isDependentType() || to->isDependentType())
    return;
  const RecordDecl *a = from->getPointeeType()->getAsRecordDecl();
  const RecordDecl *b = to->getPointeeType()->getAsRecordDecl();
  a = a ? a->getDefinition() : nullptr;
  b = b ? b->getDefinition() : nullptr;
  // (A union's members all start at its start: not a sequence. A base and its derived class are
  // each other's records already: recordsOf().)
  if (!a || !b || a == b || a->isUnion() || b->isUnion())
    return;
  if (const auto *x = dyn_cast<CXXRecordDecl>(a))
    if (const auto *y = dyn_cast<CXXRecordDecl>(b); y && (x->isDerivedFrom(y) || y->isDerivedFrom(x)))
      return;
  if (!AliasedRecords.insert(std::minmax(a, b)).second)
    return;
  // The common initial sequence: fields of the same type, in order, up to the first that differs
  // (a bit-field ends it: its width would have to match too).
  for (auto x = a->field_begin(), y = b->field_begin(); x != a->field_end() && y != b->field_end(); ++x, ++y) {
    if (x->isBitField() || y->isBitField() || !Ctx.hasSameUnqualifiedType(x->getType(), y->getType()))
      break;
    addFlow(fieldPlace(*x), fieldPlace(*y), facts::FlowKind::Alias);
  }
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
        Scopes.back().credentialTests.push_back({ifStmt, present, enclosingCmsgLoop(i)});
      return;
    }
    if (isa<CompoundStmt>(s))
      return;
  }
}

// The innermost loop around Stack[below] that walks the cmsgs (`for (c = CMSG_FIRSTHDR(&m); c;
// c = CMSG_NXTHDR(&m, c))`): a `continue` there skips one cmsg, elsewhere it drops the message.
const Stmt *Extractor::enclosingCmsgLoop(std::size_t below) const {
  for (std::size_t i = below; i-- > Scopes.back().stackBase;) {
    const Stmt *s = Stack[i];
    if (isa<ForStmt, WhileStmt, DoStmt>(s))
      return walksCmsgs(s) ? s : nullptr;
  }
  return nullptr;
}

// How the branch taken when no SCM_CREDENTIALS arrives leaves, if it does. A `return` of the
// value the function returns on success is not a refusal: `return true` in a function that also
// returns false, `return 0` in one that also returns a negative error (`if (!c) return 0;` ...
// `return -EPERM;`). Narrow on purpose: any other value (`return -1` from a uid getter, `return
// NULL`) is taken as a refusal, as is a goto or a call that does not return.
Extractor::AbsenceExit Extractor::absenceExit(const Stmt *branch, const CredentialTest &test,
                                              const FunctionDecl *fn) {
  const Stmt *exit = branch;
  while (const auto *compound = dyn_cast_or_null<CompoundStmt>(exit)) {
    exit = nullptr;
    for (const Stmt *child : compound->body())
      if (leaves(child)) {
        exit = child;
        break;
      }
  }
  if (const auto *cleanups = dyn_cast_or_null<ExprWithCleanups>(exit))
    exit = cleanups->getSubExpr();
  if (!exit || !leaves(exit))
    return AbsenceExit::None;
  if (isa<ContinueStmt>(exit) || isa<BreakStmt>(exit))
    return test.cmsgLoop ? AbsenceExit::SkipsCmsg : AbsenceExit::Refuses;
  const auto *ret = dyn_cast<ReturnStmt>(exit);
  if (!ret || !ret->getRetValue() || !fn || !fn->getBody())
    return AbsenceExit::Refuses;
  std::optional<std::int64_t> value = evalInt(ret->getRetValue(), Ctx);
  if (!value)
    return AbsenceExit::Refuses;
  QualType type = fn->getReturnType();
  bool boolean = type->isBooleanType();
  if (!(boolean ? *value == 1 : type->isIntegerType() && *value == 0))
    return AbsenceExit::Refuses;
  // The function's other returns: is there a failure value this one differs from?
  std::vector<const Stmt *> work{fn->getBody()};
  while (!work.empty()) {
    const Stmt *s = work.back();
    work.pop_back();
    if (!s || isa<LambdaExpr>(s) || isa<BlockExpr>(s))
      continue;
    if (const auto *other = dyn_cast<ReturnStmt>(s); other && other != ret && other->getRetValue()) {
      const Expr *result = other->getRetValue()->IgnoreParenImpCasts();
      std::optional<std::int64_t> otherValue = evalInt(result, Ctx);
      const auto *negated = dyn_cast<UnaryOperator>(result);
      if (boolean ? otherValue && *otherValue == 0
                  : (otherValue && *otherValue < 0) || (negated && negated->getOpcode() == UO_Minus))
        return AbsenceExit::Accepts;
    }
    for (const Stmt *child : s->children())
      work.push_back(child);
  }
  return AbsenceExit::Refuses;
}

// What the function does when no SCM_CREDENTIALS arrives. A test for absence that refuses
// (`if (!c || c->cmsg_type != SCM_CREDENTIALS) return -1;`), a presence test with an `else` that
// refuses, or a later test of what the presence code recorded that leaves
// (`if (!have_creds) return -EPERM;`): it fails closed. A presence test whose branch is simply
// skipped when nothing arrives, an absence test that skips the cmsg in the cmsg loop, or one that
// returns the success value: it fails open. Anything else is unknown.
facts::CredentialOutcome Extractor::credentialOutcome(const Scope &scope) {
  bool open = false;
  for (const CredentialTest &test : scope.credentialTests) {
    const IfStmt *ifStmt = test.test;
    // The code that runs only when credentials are there, whose records a later test may check.
    const Stmt *presenceCode = ifStmt->getThen();
    switch (absenceExit(test.present ? ifStmt->getElse() : ifStmt->getThen(), test, scope.fn)) {
    case AbsenceExit::Refuses:
      return facts::CredentialOutcome::FailsClosed;
    case AbsenceExit::Accepts:
      open = true;
      continue;
    case AbsenceExit::SkipsCmsg:
      presenceCode = test.cmsgLoop;
      break;
    case AbsenceExit::None:
      if (!test.present)
        continue;
      break;
    }
    llvm::SmallPtrSet<const VarDecl *, 4> recorded;
    assignedIn(presenceCode, recorded);
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
            SM.isBeforeInTranslationUnit(presenceCode->getEndLoc(), later->getBeginLoc()) &&
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

void Extractor::controlBuffer(const Expr *value) {
  const FunctionDecl *fn = currentFunction();
  if (!fn || !value)
    return;
  // (caddr_t)&cmsg, (void *)oob->buf: the buffer is what the cast's operand names. The address
  // of a buffer (&u, &u.buf) stands for that buffer; an array or a pointer for what it holds.
  const Expr *e = value->IgnoreParenCasts();
  if (const auto *address = dyn_cast<UnaryOperator>(e); address && address->getOpcode() == UO_AddrOf)
    e = address->getSubExpr()->IgnoreParenCasts();
  if (e->isNullPointerConstant(Ctx, Expr::NPC_ValueDependentIsNotNull))
    return;
  std::optional<Id> buffer = placeOf(e);
  if (!buffer)
    return;
  std::vector<Id> &buffers = U.functions[functionId(fn)].controlBuffers;
  if (!llvm::is_contained(buffers, *buffer))
    buffers.push_back(*buffer);
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
  Scope &scope = Scopes.back();
  if (!scope.escapes)
    scope.escapes.emplace(scope.fn ? scope.fn->getBody() : nullptr);
  judgeUpwardMove(*compound, *stmt, *scope.escapes, Ctx, info, [&](const CXXMemberCallExpr &call) {
    std::string className;
    std::optional<OwnerEffect> effect = methodEffect(&call, className);
    return effect && *effect != OwnerEffect::Socket;
  });
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


namespace {

// The variable a message argument names: m, &m, ans + i, &ans[i], *p.
const VarDecl *messageVariable(const Expr *e) {
  for (int steps = 0; e && steps < 8; ++steps) {
    e = e->IgnoreParenCasts();
    if (const auto *ref = dyn_cast<DeclRefExpr>(e))
      return dyn_cast<VarDecl>(ref->getDecl());
    if (const auto *unary = dyn_cast<UnaryOperator>(e);
        unary && (unary->getOpcode() == UO_AddrOf || unary->getOpcode() == UO_Deref)) {
      e = unary->getSubExpr();
      continue;
    }
    if (const auto *element = dyn_cast<ArraySubscriptExpr>(e)) {
      e = element->getBase();
      continue;
    }
    if (const auto *sum = dyn_cast<BinaryOperator>(e); sum && sum->isAdditiveOp()) {
      e = sum->getLHS()->getType()->isPointerType() ? sum->getLHS() : sum->getRHS();
      continue;
    }
    if (const auto *member = dyn_cast<MemberExpr>(e)) {
      e = member->getBase();
      continue;
    }
    return nullptr;
  }
  return nullptr;
}

// The largest constant `e` can be: itself, either branch of a conditional, a local's initialiser.
std::optional<std::int64_t> largestConstant(const Expr *e, const ASTContext &ctx, int depth = 0) {
  if (!e || depth > 4)
    return std::nullopt;
  e = e->IgnoreParenCasts();
  if (std::optional<std::int64_t> value = evalInt(e, ctx))
    return value;
  if (const auto *choice = dyn_cast<AbstractConditionalOperator>(e)) {
    std::optional<std::int64_t> a = largestConstant(choice->getTrueExpr(), ctx, depth + 1);
    std::optional<std::int64_t> b = largestConstant(choice->getFalseExpr(), ctx, depth + 1);
    if (a && b)
      return std::max(*a, *b);
    return a ? a : b;
  }
  if (const auto *ref = dyn_cast<DeclRefExpr>(e))
    if (const auto *var = dyn_cast<VarDecl>(ref->getDecl()); var && var->hasLocalStorage() && var->getInit())
      return largestConstant(var->getInit(), ctx, depth + 1);
  return std::nullopt;
}

// The value `init` gives the field named `field` (a struct's initialiser, or each element's of an
// array of structs).
void initialisedField(const Expr *init, llvm::StringRef field, std::vector<const Expr *> &out) {
  const auto *list = init ? dyn_cast<InitListExpr>(init->IgnoreParenImpCasts()) : nullptr;
  if (!list)
    return;
  if (list->getType()->isArrayType()) {
    for (const Expr *element : list->inits())
      initialisedField(element, field, out);
    return;
  }
  const RecordDecl *record = list->getType()->getAsRecordDecl();
  if (!record)
    return;
  unsigned index = 0;
  for (const FieldDecl *f : record->fields()) {
    if (f->getName() == field && index < list->getNumInits())
      out.push_back(list->getInit(index));
    ++index;
  }
}

void storesToField(const Stmt *s, const VarDecl *var, llvm::StringRef field, std::vector<const Expr *> &out) {
  if (!s)
    return;
  if (const auto *decls = dyn_cast<DeclStmt>(s))
    for (const Decl *d : decls->decls())
      if (d == var)
        initialisedField(var->getInit(), field, out);
  if (const auto *assign = dyn_cast<BinaryOperator>(s); assign && assign->getOpcode() == BO_Assign)
    if (const auto *member = dyn_cast<MemberExpr>(assign->getLHS()->IgnoreParenImpCasts());
        member && member->getMemberDecl()->getName() == field && messageVariable(member->getBase()) == var)
      out.push_back(assign->getRHS());
  for (const Stmt *child : s->children())
    storesToField(child, var, field, out);
}

} // namespace

std::optional<std::int64_t> Extractor::largestStoredCount(const Expr *message, llvm::StringRef countField) {
  const VarDecl *var = messageVariable(message);
  const FunctionDecl *fn = currentFunction();
  if (!var || !fn || !fn->getBody())
    return std::nullopt;
  std::vector<const Expr *> stores;
  storesToField(fn->getBody(), var, countField, stores);
  std::optional<std::int64_t> best;
  for (const Expr *value : stores)
    if (std::optional<std::int64_t> count = largestConstant(value, Ctx); count && (!best || *count > *best))
      best = count;
  return best;
}

} // namespace afunix::analysis::extraction
