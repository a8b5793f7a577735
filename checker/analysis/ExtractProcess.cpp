// Each function's deferred events, in order: calls (socket API, user functions, modelled library
// calls, calls through pointers), constructions, registrations with event loops, options, sends.
#include "ExtractorImpl.h"

#include "llvm/Support/SaveAndRestore.h"

namespace afunix::analysis::extraction {

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
    if (const auto *member = dyn_cast<MemberExpr>(lhs); member && isMsgControl(member->getMemberDecl())) {
      // Not followed as a value: no fd is in it, and the cmsgs are read by their spelling
      // (CMSG_DATA(), cmsg_type), never through where msg_control points.
      controlBuffer(op->getRHS());
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
      if (const auto *list = dyn_cast<InitListExpr>(init->IgnoreImplicit())) {
        initFields(list, *object);
        if (typeIsRecordNamed(var->getType(), "msghdr")) // struct msghdr m = {.msg_control = buf}
          if (const RecordDecl *record = var->getType()->getAsRecordDecl())
            for (const FieldDecl *field : record->fields())
              if (isMsgControl(field) && field->getFieldIndex() < list->getNumInits())
                controlBuffer(list->getInit(field->getFieldIndex()));
      }
      else if (std::optional<Id> from = placeOf(init))
        copyObject(*from, *object, var->getType(), facts::FlowKind::Init); // struct conn c = *p
      return;
    }
    std::optional<Id> place = plainVarPlace(var);
    if (place && var->getType()->isReferenceType() && holdsFd(var->getType().getNonReferenceType())) {
      // const int &fd = *it, const ScopedFD &f : owned: the fd it names, read as a value (as an
      // int & parameter is). Precision lost: a write through the reference does not reach the
      // variable it names.
      flowInto(init, place, facts::FlowKind::Init);
      return;
    }
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
                        const Event &event, std::optional<Id> held) {
  facts::Payload p;
  p.site = makeSite(write, value, event.loop);
  const Expr *source = value->IgnoreParenCasts();
  if (held) {
    p.place = *held;
  } else if (!many) {
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
  std::string where = inFunctionText(fn);
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
  facts::Write &fact = writeOn(*place, call, call->getArg(0), event);
  fact.credentials = (name == "sendmsg" || name == "sendmmsg") && Current->fn &&
                     U.functions[functionId(Current->fn)].buildsScmCredentials;
  if (name == "sendto" && call->getNumArgs() >= 5)
    fact.address = socketAddress(call->getArg(4));
  if (name == "sendmsg" && call->getNumArgs() >= 2)
    if (const Expr *destination = msgNameOf(call->getArg(1)))
      fact.address = socketAddress(destination);
}

facts::Write &Extractor::writeOn(Id socket, const Expr *at, const Expr *object, const Event &event) {
  facts::Write &fact = U.writes.emplace_back();
  fact.place = socket;
  fact.site = makeSite(at, object, event.loop);
  return fact;
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

// std::for_each(first, last, f), std::for_each_n(first, n, f): a loop in the library that calls
// the lambda f with each element. Modelled as a loop at the call around a call of the lambda with
// the element the first iterator points to (the library's body is not parsed). Only a lambda of
// one parameter: a function pointer, a functor or std::ranges::for_each (a function object) is
// left as any library call is.
bool Extractor::callsForEachElement(const CallExpr *call, const FunctionDecl *callee, const Event &event) {
  if (!isStdNamed(callee, {"for_each", "for_each_n"}) || call->getNumArgs() < 2)
    return false;
  const Expr *function = call->getArg(call->getNumArgs() - 1);
  const CXXRecordDecl *closure = function->getType().getNonReferenceType()->getAsCXXRecordDecl();
  const CXXMethodDecl *op = closure && closure->isLambda() ? closure->getLambdaCallOperator() : nullptr;
  if (!op || op->getNumParams() != 1 || op->isTemplated())
    return false;
  facts::Loop loop;
  loop.function = functionId(currentFunction());
  loop.parent = event.loop;
  loop.site = makeSite(call, nullptr, kNone, /*positioned=*/false);
  Id loopId = U.loops.size();
  U.loops.push_back(loop);
  const Expr *first = call->getArg(0);
  std::optional<Id> element;
  if (std::optional<Id> iterator = pointerValue(first))
    element = derefPlace(*iterator);
  facts::Call c;
  c.callee = functionId(op);
  c.caller = functionId(currentFunction());
  c.site = makeSite(call, nullptr, loopId);
  facts::Argument arg;
  QualType param = op->getParamDecl(0)->getType();
  if (element && holdsFd(param.getNonReferenceType())) {
    arg.place = *element;
    arg.mode = facts::ArgMode::Value;
    arg.exact = false; // one of the elements, which one is the turn's
  } else if (element && param->isReferenceType() && isObjectType(param.getNonReferenceType())) {
    arg.place = addressOf(*element);
    arg.mode = facts::ArgMode::Value;
  }
  arg.text = "*" + sourceText(first, Ctx);
  c.args.push_back(std::move(arg));
  if (std::optional<Id> object = placeOf(function)) {
    c.receiver.place = addressOf(*object);
    c.receiver.mode = facts::ArgMode::Value;
  }
  U.calls.push_back(std::move(c));
  return true;
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
  // std::swap(a, b) (an RAII handle's swap(), `out->swap(local)` filling an out-parameter): each
  // gets what the other held, an object field by field. The library's body is not parsed.
  if (isStdNamed(callee, {"swap"}) && call->getNumArgs() == 2) {
    for (unsigned i = 0; i < 2; ++i)
      if (std::optional<Id> into = placeOf(call->getArg(i)))
        storeInto(call->getArg(1 - i), *into, facts::FlowKind::Assign);
    return;
  }
  if (callsForEachElement(call, callee, event))
    return;
  llvm::StringRef name = callee->getIdentifier() ? callee->getName() : "";
  bool api = isSocketApi(callee);
  const SyscallWrapper *wrapped = wrappedSocketCall(call, name, api, Options, Ctx);

  // acceptor.open(), .bind(), .listen() of a library fd owner (models.md, fd_owner_classes): the
  // object stands for its socket.
  if (const auto *member = dyn_cast<CXXMemberCallExpr>(call)) {
    std::string className;
    if (std::optional<OwnerEffect> effect = methodEffect(member, className))
      if (std::optional<Id> object = ownedFdOf(member)) {
        std::string by = className + "::" + name.str();
        if (*effect == OwnerEffect::Socket) {
          ownerMakesSocket(call, ownerObject(member), *object, by);
        } else if (*effect == OwnerEffect::Accept) {
          // Into each fd owner it is handed (the peer socket object), or the fd owner parameter of
          // each handler it is handed (Boost.Asio's async_accept([](error_code, socket s) {...}));
          // a returned one is the call's value (callValue()).
          Id accepted = ownerAccepted(member, by);
          for (const Expr *arg : call->arguments()) {
            if (isFdOwnerType(arg->IgnoreImpCasts()->getType().getNonReferenceType())) {
              if (std::optional<Id> peer = placeOf(arg->IgnoreImpCasts()))
                addFlow(accepted, writeTarget(*peer), facts::FlowKind::Assign);
              continue;
            }
            std::optional<CallbackTarget> handler = callbackTarget(arg);
            if (!handler)
              continue;
            for (unsigned p = 0; p < handler->function->getNumParams(); ++p)
              if (isFdOwnerType(handler->function->getParamDecl(p)->getType().getNonReferenceType()) &&
                  handler->callerSupplies(p)) {
                facts::Callback callback;
                callback.site = makeSite(call, ownerObject(member), event.loop);
                callback.callee = functionId(handler->function);
                callback.param = static_cast<int>(p);
                callback.registrar = by;
                callback.socket = accepted;
                U.callbacks.push_back(std::move(callback));
                if (handler->ref)
                  ModeledRefs.insert(handler->ref);
              }
          }
        } else if (*effect == OwnerEffect::Option) {
          ownerOption(member, *object, event);
        } else if (*effect == OwnerEffect::Send) {
          // write_some(), send(): what the object's socket sends, as send() on its fd would. Where
          // it goes (a datagram socket's send_to(endpoint)) is the library's: not read.
          writeOn(*object, call, ownerObject(member), event);
        } else {
          // Boost.Asio's connect() opens a closed socket first: the object holds what open() or
          // its constructor made, or this one (the facts say "may hold": either is a candidate).
          if (*effect == OwnerEffect::Connect)
            ownerMakesSocket(call, ownerObject(member), *object, by);
          ownerEvent(call, ownerObject(member), *object, *effect, by, event);
        }
        return;
      }
  } else {
    // asio::connect(socket, endpoints), asio::write(socket, buffers): what the method of that name
    // would do to the owner handed first. Named as the program calls it (net::connect()).
    std::string className;
    if (std::optional<OwnerEffect> effect = functionEffect(call, callee, className))
      if (std::optional<Id> object = placeOf(call->getArg(0)->IgnoreParenImpCasts())) {
        const Expr *owner = call->getArg(0)->IgnoreParenImpCasts();
        std::string by = callee->getQualifiedNameAsString();
        if (*effect == OwnerEffect::Send) {
          writeOn(*object, call, owner, event);
        } else {
          ownerMakesSocket(call, owner, *object, by);
          ownerEvent(call, owner, *object, OwnerEffect::Connect, by, event);
        }
        return;
      }
  }

  // A lambda that sends a message local to a function around it (captured by reference:
  // Chromium's HANDLE_EINTR, HandleEintr([&] { return sendmsg(fd, &msg, 0); })) runs while that
  // function does, since the message lives only that long: the send (and every site of this
  // call) is that function's, where the message is built and whose callers' loops are around it.
  // Conservatively only a send in no loop of the lambda's own: what such a loop receives is the
  // lambda's, and would not be seen as acknowledging the send.
  unsigned sendAt = api && name == "sendmsg" ? 0 : wrapped && wrapped->call == "sendmsg" ? wrapped->firstArg : UINT_MAX;
  const FunctionDecl *messageOwner = sendAt != UINT_MAX && call->getNumArgs() >= sendAt + 2 && event.loop == kNone
                                         ? capturedMessageOwner(call->getArg(sendAt + 1))
                                         : nullptr;
  llvm::SaveAndRestore<const FunctionDecl *> sitesOfOwner(SiteOwner, messageOwner);

  if (api && isWriteCall(name) && call->getNumArgs() >= 1)
    recordWrite(call, name, event);

  // A creating call interns its value (and its origin) even when the value is dropped.
  if (api && (name == "socket" || name == "accept" || name == "accept4" || name == "paccept"))
    placeOf(call);
  // A socket maker that binds, or listens, before it returns: the event is at its call. Of a
  // type known only at run time it is taken as bound, which is all it surely is.
  if (auto maker = Options.socketProducers.find(name);
      maker != Options.socketProducers.end() && maker->getValue().binds)
    if (std::optional<Id> socket = placeOf(call))
      ownerEvent(call, nullptr, *socket, maker->getValue().listens ? OwnerEffect::Listen : OwnerEffect::Bind,
                 name.str(), event, /*unknownTypeListens=*/false);

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
  } else if (const Expr *channel = receiverChannel(call, callee, name)) {
    // g_input_stream_read(g_io_stream_get_input_stream(G_IO_STREAM(c)), ...): a read on c.
    if (std::optional<Id> socket = placeOf(channel)) {
      facts::Receive fact;
      fact.place = *socket;
      fact.site = makeSite(call, channel, event.loop);
      fact.kind = facts::ReceiveKind::Other;
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
    const FunctionDecl *builder = SiteOwner ? SiteOwner : Current->fn;
    bool builds = builder && U.functions[functionId(builder)].buildsScmRights;
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
    else // fds, v.data(), a pointer: the elements it points to, one or more
      payload(call, call->getArg(1), true, count, event);
    // sizeof(int) * n with n a parameter: each caller's n decides (a helper called with `&fd, 1`).
    if (count < 0)
      U.payloads.back().countParam = countParameter(call->getArg(2));
  } else if (isMemoryCopy(name) && call->getNumArgs() >= 3 && isCmsgData(call->getArg(1))) {
    // memcpy(&fd, CMSG_DATA(c), sizeof fd), memcpy(fds, CMSG_DATA(c), n): the fds received.
    const Expr *target = call->getArg(0)->IgnoreParenCasts();
    std::optional<Id> into;
    if (const auto *address = dyn_cast<UnaryOperator>(target); address && address->getOpcode() == UO_AddrOf)
      into = placeOf(address->getSubExpr());
    else if (std::optional<Id> array = placeOf(arrayBase(target)))
      into = element(*array, -1);
    // Into an int or an array of them (a struct ucred copied out is credentials, not fds).
    QualType stored = target->getType();
    stored = stored->isArrayType() ? Ctx.getAsArrayType(stored)->getElementType() : stored->getPointeeType();
    if (into && !stored.isNull() && isFdValueType(stored, Ctx))
      addFlow(receivedFds(call), writeTarget(*into), facts::FlowKind::Assign, /*exact=*/false);
  } else if (isMemoryCopy(name) && call->getNumArgs() >= 3) {
    copyPointee(call->getArg(1), call->getArg(0));
  } else if (call->getNumArgs() >= 1) {
    processOption(call, callee, event);
  }

  for (const FdHolder &holder : Options.fdHolders) {
    if (name == holder.store && static_cast<int>(call->getNumArgs()) > holder.fdArg) {
      flowInto(call->getArg(holder.fdArg), holderPlace(holder), facts::FlowKind::Assign);
      if (std::optional<Id> object = storedHolder(call, holder))
        flowInto(call->getArg(holder.fdArg), memberPlace(*object, facts::kHolderFdMember, holderPlace(holder)),
                 facts::FlowKind::Assign);
    }
    if (name == holder.load && holder.outArg >= 0 && static_cast<int>(call->getNumArgs()) > holder.outArg) {
      const Expr *out = call->getArg(holder.outArg)->IgnoreParenCasts();
      std::optional<Id> target;
      if (const auto *address = dyn_cast<UnaryOperator>(out); address && address->getOpcode() == UO_AddrOf)
        target = placeOf(address->getSubExpr());
      else if (std::optional<Id> base = placeOf(out))
        target = element(*base, 0);
      if (target)
        addFlow(heldFd(call, holder), *target, facts::FlowKind::Assign);
    }
  }

  for (const HolderCall &model : Options.holderCalls)
    if (name == model.name && static_cast<int>(call->getNumArgs()) > std::max(model.holderArg, model.intoArg))
      holderCall(call, model, event);

  // ancil_send_fds(sock, fds, n), ancil_send_fd(sock, fd): a send on its socket whose payload is
  // its fds, as a sendmsg() whose SCM_RIGHTS message the function builds.
  if (const FdSender *sender = fdSendingCall(call, callee, name)) {
    facts::Send send;
    const Expr *socket = throughChannelViews(call->getArg(sender->socketArg));
    if (!sender->holder.empty())
      send.channel = heldFd(socket, sender->holder);
    else if (std::optional<Id> channel = placeOf(socket))
      send.channel = *channel;
    send.site = makeSite(call, socket, event.loop);
    U.sends.push_back(std::move(send));
    if (!sender->holder.empty()) {
      const Expr *sent = call->getArg(sender->fdsArg);
      payload(call, sent, /*many=*/false, 1, event, heldFd(sent, sender->holder));
    } else if (sender->variadic) {
      for (unsigned i = sender->fdsArg; i < call->getNumArgs(); ++i)
        payload(call, call->getArg(i), /*many=*/false, 1, event);
    } else {
      const Expr *fds = call->getArg(sender->fdsArg);
      QualType type = fds->getType().getNonReferenceType();
      bool one = isFdValueType(type, Ctx) || isFdOwnerType(type);
      std::int64_t count = one ? 1 : -1;
      if (!one && sender->countArg >= 0)
        if (std::optional<std::int64_t> n = evalInt(call->getArg(sender->countArg), Ctx); n && *n >= 0)
          count = *n;
      payload(call, fds, !one, count, event);
    }
    // The model is what the call does: a body a header gives the library's function is not
    // followed from here (its own send would be a second one, of a run-time count).
    if (callee->hasBody())
      return;
  }

  // std::async(f, fd), std::invoke(f, fd): a call of f (processInvocation), not a registration.
  if (isStdNamed(callee, {"async", "invoke"})) {
    llvm::SmallVector<const Expr *, 4> args(call->arguments());
    if (processInvocation(call, args, event))
      return;
  }
  // std::bind(&Server::Handle, this, tag, fd): the values it binds are the bound function's
  // arguments, as if it were called there (as std::thread's are); a placeholder's parameter is a
  // gap in that call, and the function still counts as called from outside when a placeholder
  // feeds one of its fd parameters (whoever calls the bound object supplies that one). Neither
  // call is a registration of its own (the general rule below would hand every int it is given to
  // the function's first int parameter).
  if (std::optional<BoundFunction> bound = boundFunction(call)) {
    const FunctionDecl *target = bound->target;
    const auto *method = dyn_cast<CXXMethodDecl>(target);
    unsigned first = method && !method->isStatic() ? 2 : 1;
    if (call->getNumArgs() < first)
      return;
    llvm::SmallVector<const Expr *, 4> args(call->arguments());
    llvm::SmallVector<const Expr *, 4> passed(args.begin() + 1, args.begin() + first);
    bool fedByCaller = false;
    for (unsigned p = 0; p < target->getNumParams() && first + p < args.size(); ++p) {
      if (bound->placeholder[p] != 0) {
        fedByCaller |= holdsFd(target->getParamDecl(p)->getType());
        passed.push_back(nullptr);
        continue;
      }
      passed.push_back(args[first + p]);
    }
    llvm::SmallVector<const Expr *, 5> invoked{args[0]};
    invoked.append(passed.begin(), passed.end());
    processInvocation(call, invoked, event, /*calledOnlyHere=*/!fedByCaller);
    return;
  }
  processRegistration(call, callee, event);

  // Owners: fd.reset(other), fd = std::move(other).
  if (const auto *member = dyn_cast<CXXMemberCallExpr>(call); member && name == "reset" && call->getNumArgs() == 1)
    if (std::optional<Id> owned = ownedFdOf(member))
      flowInto(call->getArg(0), writeTarget(*owned), facts::FlowKind::Assign);
  if (const auto *op = dyn_cast<CXXOperatorCallExpr>(call);
      op && op->getOperator() == OO_Equal && op->getNumArgs() == 2 &&
      isFdOwnerType(op->getArg(0)->getType())) {
    if (std::optional<Id> owner = placeOf(op->getArg(0)))
      flowInto(op->getArg(1), writeTarget(*owner), facts::FlowKind::Assign); // *out = ScopedFd(fd)
    return;
  }
  // a = b with the assignment the compiler writes (as a = b of a C struct): field by field.
  if (const auto *method = dyn_cast<CXXMethodDecl>(callee);
      method && isa<CXXOperatorCallExpr>(call) && call->getNumArgs() == 2 &&
      (method->isCopyAssignmentOperator() || method->isMoveAssignmentOperator()) && !copyWrittenByProgram(method)) {
    QualType type = call->getArg(0)->getType();
    if (isObjectType(type))
      if (std::optional<Id> from = placeOf(call->getArg(1)))
        if (std::optional<Id> to = placeOf(call->getArg(0)))
          copyObject(*from, *to, type, facts::FlowKind::Assign);
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
        // A map's emplace(key, value...): the key is the element's first, the value is built
        // from the rest.
        bool mapped = isKeyedContainer(spec) && args.size() > 1;
        unsigned key = name == "emplace_hint" ? 1 : 0;
        skip = key + (mapped ? 1 : 0);
        if (mapped && call->getNumArgs() > key)
          if (std::optional<Id> container = forwardedContainer(call))
            storeInto(call->getArg(key), memberPlace(element(*container, -1), "first", kNone),
                      facts::FlowKind::Assign);
        if (args.size() > (mapped ? 1u : 0u) && args[mapped ? 1 : 0].getKind() == TemplateArgument::Type)
          built = args[mapped ? 1 : 0].getAsType();
      }
    // The object it builds: a heap object of its own (make_unique), or an element of the container
    // it is called on (emplace_back): the constructor's `this`.
    std::optional<Id> object = forwardedObject(call, callee);
    if (const CXXRecordDecl *record = built.isNull() ? nullptr : built->getAsCXXRecordDecl())
      if (record->hasDefinition() && !isFdOwner(record) && call->getNumArgs() >= skip) {
        llvm::SmallVector<const Expr *, 4> args(call->arguments());
        llvm::ArrayRef<const Expr *> passed = llvm::ArrayRef(args).drop_front(skip);
        auto construct = [&](const CXXConstructorDecl *ctor) {
          processUserCall(call, ctor, passed, event, true,
                          object ? std::optional<Id>(addressOf(*object)) : std::nullopt);
          convertForwarded(call, ctor, passed, event);
        };
        // Conservative: every constructor that takes as many arguments (overloads are not
        // resolved); of a constructor template, the instantiations for these argument types
        // (template <class A> Listener(A &&address), instantiated by the library's emplace_back).
        for (const Decl *member : record->getDefinition()->decls()) {
          // (A copy or move constructor only for an argument of the record itself: clang declares
          // the implicit ones only once something needs them, so the rest would depend on which
          // library bodies were parsed.)
          if (const auto *ctor = dyn_cast<CXXConstructorDecl>(member);
              ctor && ctor->getNumParams() == passed.size() &&
              (!ctor->isCopyOrMoveConstructor() || takesTheseTypes(ctor, passed)))
            construct(ctor);
          if (const auto *pattern = dyn_cast<FunctionTemplateDecl>(member))
            for (const FunctionDecl *instance : pattern->specializations())
              if (const auto *ctor = dyn_cast<CXXConstructorDecl>(instance);
                  ctor && ctor->getNumParams() == passed.size() && takesTheseTypes(ctor, passed))
                construct(ctor);
        }
      }
    // A library socket object built there (std::make_unique<acceptor>(io, endpoint)): what its
    // constructor makes and does, as where it is constructed in the program's code.
    std::string className;
    if (const FdOwnerModel *model = object && !built.isNull() && call->getNumArgs() >= skip ? ownerModel(built, &className) : nullptr) {
      llvm::SmallVector<const Expr *, 4> args(call->arguments());
      if (std::optional<OwnerEffect> effect = constructorEffect(llvm::ArrayRef(args).drop_front(skip), *model)) {
        Id socket = ownerSocket(call, built, *model, className);
        addFlow(socket, *object, facts::FlowKind::Assign);
        ownerEvent(call, nullptr, socket, *effect, className, event);
      }
      return;
    }
    // A container of fds (or a value-holding type): what emplace_back(fd) puts there.
    if (object && built.isNull() == false && holdsFd(built))
      for (unsigned i = skip; i < call->getNumArgs(); ++i)
        flowInto(call->getArg(i), *object, facts::FlowKind::Assign);
    // An element that is not a class of the program (a pointer, a std::unique_ptr) built from one
    // value is a copy of it: m.emplace(fd, new Client(fd)), m.emplace(fd, std::make_unique<...>()).
    else if (object && !built.isNull() && call->getNumArgs() == skip + 1) {
      const CXXRecordDecl *record = built->getAsCXXRecordDecl();
      if (!record || modelledRecord(built))
        storeInto(call->getArg(skip), *object, facts::FlowKind::Assign);
    }
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
    } else if (inheritedNumber(value, Ctx) && !type.getNonReferenceType()->isUnsignedIntegerType()) {
      // An fd is an int: 3 passed as a size_t or unsigned (close_many(fds, 3), a base of 16) is
      // a count, not "inherited fd 3", which would join every program's fd 3.
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
             (pointer && holdsFd(pointer->getPointeeType())) || isFdArrayReference(type)) {
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
  std::optional<Id> container = forwardedContainer(call);
  if (!container)
    return std::nullopt;
  Id item = element(*container, -1);
  if (name == "try_emplace" || isKeyedContainer(cast<CXXMethodDecl>(callee)->getParent()))
    return memberPlace(item, "second", kNone);
  return item;
}

// v.emplace_back(tcpAddress) into Listener(SocketAddress): the library converts each argument to
// its parameter's class, as the compiler does at a direct call (where the AST shows it): a
// conversion function of the argument's class (operator SocketAddress(), called on the argument,
// its return copied into the parameter), or a converting constructor of the parameter's class
// (built in the parameter). Conservative: every candidate is taken, none is ranked.
void Extractor::convertForwarded(const CallExpr *call, const CXXConstructorDecl *ctor,
                                 llvm::ArrayRef<const Expr *> args, const Event &event) {
  for (unsigned i = 0; i < args.size() && i < ctor->getNumParams(); ++i) {
    QualType param = ctor->getParamDecl(i)->getType().getNonReferenceType();
    const auto *to = param->getAsCXXRecordDecl();
    const auto *from = args[i]->getType().getNonReferenceType()->getAsCXXRecordDecl();
    if (!to || !from || !to->hasDefinition() || !from->hasDefinition() ||
        to->getCanonicalDecl() == from->getCanonicalDecl() || !isObjectType(param) || declaredInSystemHeader(to, SM))
      continue;
    Id target = paramPlace(ctor, i);
    if (ctor->getParamDecl(i)->getType()->isReferenceType()) { // bound to the converted temporary
      Id temporary = newObject(args[i], "t", to->getNameAsString() + " temporary");
      addFlow(addressOf(temporary), target, facts::FlowKind::Argument);
      target = temporary;
    }
    for (const NamedDecl *named : from->getDefinition()->getVisibleConversionFunctions()) {
      const auto *conversion = dyn_cast<CXXConversionDecl>(named->getUnderlyingDecl());
      if (!conversion)
        continue;
      const auto *result = conversion->getConversionType().getNonReferenceType()->getAsCXXRecordDecl();
      if (!result || result->getCanonicalDecl() != to->getCanonicalDecl())
        continue;
      std::optional<Id> source = placeOf(args[i]);
      processUserCall(call, conversion, {}, event, true,
                      source ? std::optional<Id>(addressOf(*source)) : std::nullopt);
      copyObject(returnPlace(conversion), target, param, facts::FlowKind::Argument);
    }
    for (const CXXConstructorDecl *converting : to->getDefinition()->ctors())
      if (converting->getNumParams() == 1 && !converting->isCopyOrMoveConstructor()) {
        const auto *takes = converting->getParamDecl(0)->getType().getNonReferenceType()->getAsCXXRecordDecl();
        if (takes && takes->getCanonicalDecl() == from->getCanonicalDecl())
          processUserCall(call, converting, args.slice(i, 1), event, true, addressOf(target));
      }
  }
}

// The container a member call (v.emplace_back(...)) is made on.
std::optional<Id> Extractor::forwardedContainer(const CallExpr *call) {
  const auto *member = dyn_cast<CXXMemberCallExpr>(call);
  const Expr *objectExpr = member ? member->getImplicitObjectArgument() : nullptr;
  return objectExpr ? objectNamedBy(objectExpr) : std::nullopt;
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
    if (!value) { // a gap: what std::bind's placeholder gives, supplied by whoever calls the binding
      call.args.emplace_back();
      continue;
    }
    facts::Argument arg = argumentFor(type, value, event, forwarded);
    if (typeIsRecordNamed(type, "cmsghdr") || typeIsRecordNamed(type, "msghdr"))
      call.passesControl = true;
    if (arg.mode == facts::ArgMode::None) {
      if (isObjectType(type) && !type->isReferenceType()) {
        // An object passed by value: the parameter is a copy of it, field by field. (Built in
        // place when it is a temporary: the constructor's storage is the parameter.)
        if (std::optional<Id> object = placeOf(value))
          copyObject(*object, paramPlace(callee, i), type, facts::FlowKind::Argument);
        arg.text = sourceText(value, Ctx); // what a message calls the copy (copiedByCall)
      }
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
    if (type->isIntegralOrEnumerationType()) {
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
    } else if (type.getNonReferenceType()->isRecordType()) {
      // A container whose type fixes its size (std::array<int, 300>, a span over int[300]): the
      // count a callee that sends `fds.size()` fds uses. (Not for a pointer parameter: a string
      // literal's length is no count.)
      if (std::optional<std::int64_t> elements = constantElementCount(value, Ctx))
        arg.number = *elements;
      else if (std::optional<std::int64_t> listed = listedElementCount(value))
        arg.number = *listed;
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
    relevant |= arg && holdsFdField(arg->getType());
  if (!any && !call.passesControl && !relevant)
    return;
  call.caller = functionId(currentFunction());
  call.callee = functionId(callee);
  call.site = makeSite(callExpr, nullptr, event.loop);
  U.calls.push_back(std::move(call));
}

bool Extractor::readsPidfd(const Expr *read) {
  const FunctionDecl *fn = currentFunction();
  if (!fn || !fn->getBody() || !read)
    return false;
  static const llvm::StringRef pidfd[] = {"SCM_PIDFD"};
  SourceLocation at = SM.getExpansionLoc(read->getBeginLoc());
  auto within = [&](const Stmt *s) {
    if (!s)
      return false;
    SourceLocation begin = SM.getExpansionLoc(s->getBeginLoc()), end = SM.getExpansionLoc(s->getEndLoc());
    return !SM.isBeforeInTranslationUnit(at, begin) && !SM.isBeforeInTranslationUnit(end, at);
  };
  // `type == SCM_PIDFD` somewhere in a condition (`level == SOL_SOCKET && type == SCM_PIDFD`).
  std::function<bool(const Stmt *)> testsPidfd = [&](const Stmt *s) {
    if (const auto *equal = dyn_cast_or_null<BinaryOperator>(s); equal && equal->getOpcode() == BO_EQ &&
                                                                   (spelledAs(equal->getLHS(), pidfd, Ctx) ||
                                                                    spelledAs(equal->getRHS(), pidfd, Ctx)))
      return true;
    if (const auto *both = dyn_cast_or_null<BinaryOperator>(s); both && both->getOpcode() == BO_LAnd)
      return testsPidfd(both->getLHS()->IgnoreParens()) || testsPidfd(both->getRHS()->IgnoreParens());
    return false;
  };
  std::vector<const Stmt *> work{fn->getBody()};
  while (!work.empty()) {
    const Stmt *s = work.back();
    work.pop_back();
    if (!within(s))
      continue; // only the statements around the read
    if (const auto *branch = dyn_cast<IfStmt>(s);
        branch && within(branch->getThen()) && testsPidfd(branch->getCond()->IgnoreParens()))
      return true;
    if (const auto *sw = dyn_cast<SwitchStmt>(s))
      if (const auto *body = dyn_cast_or_null<CompoundStmt>(sw->getBody())) {
        // The statements after `case SCM_PIDFD:` up to the next label.
        bool underPidfd = false;
        for (const Stmt *child : body->body()) {
          const Stmt *inner = child;
          if (isa<SwitchCase>(inner))
            underPidfd = false;
          while (const auto *label = dyn_cast_or_null<SwitchCase>(inner)) {
            if (const auto *c = dyn_cast<CaseStmt>(label); c && spelledAs(c->getLHS(), pidfd, Ctx))
              underPidfd = true;
            inner = label->getSubStmt();
          }
          if (within(child))
            return underPidfd;
        }
      }
    for (const Stmt *child : s->children())
      work.push_back(child);
  }
  return false;
}

std::optional<std::int64_t> Extractor::listedElementCount(const Expr *value) {
  const auto *ref = dyn_cast<DeclRefExpr>(value->IgnoreParenImpCasts());
  const auto *var = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
  if (!var || !var->isLocalVarDecl() || var->isStaticLocal() || !var->getInit() ||
      modelledRecord(var->getType()) != ModelledRecord::Container)
    return std::nullopt;
  // (std::vector's list constructor takes a defaulted allocator too.)
  const auto *construct = dyn_cast<CXXConstructExpr>(var->getInit()->IgnoreImplicit());
  if (!construct || construct->getNumArgs() < 1 ||
      !llvm::all_of(llvm::drop_begin(construct->arguments()), [](const Expr *a) { return isa<CXXDefaultArgExpr>(a); }))
    return std::nullopt;
  const auto *list = dyn_cast<CXXStdInitializerListExpr>(construct->getArg(0)->IgnoreImplicit());
  const auto *inits = list ? dyn_cast<InitListExpr>(list->getSubExpr()->IgnoreImplicit()) : nullptr;
  const auto *fn = dyn_cast_or_null<FunctionDecl>(var->getParentFunctionOrMethod());
  if (!inits || !fn || !fn->getBody())
    return std::nullopt;
  auto names = [&](const Expr *e) {
    const auto *use = e ? dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts()) : nullptr;
    return use && use->getDecl() == var;
  };
  // Conservative: any call that may add to it (an adding method, an assignment, a swap, its
  // address, a non-const reference or pointer parameter) leaves its size unknown.
  std::vector<const Stmt *> work{fn->getBody()};
  while (!work.empty()) {
    const Stmt *s = work.back();
    work.pop_back();
    if (!s)
      continue;
    if (const auto *member = dyn_cast<CXXMemberCallExpr>(s); member && names(member->getImplicitObjectArgument()))
      if (const CXXMethodDecl *method = member->getMethodDecl(); !method || addsElements(method) ||
          (method->getIdentifier() && llvm::is_contained({"swap", "emplace_hint"}, method->getName())))
        return std::nullopt;
    if (const auto *op = dyn_cast<CXXOperatorCallExpr>(s);
        op && op->getNumArgs() >= 1 && names(op->getArg(0)) && op->isAssignmentOp())
      return std::nullopt;
    if (const auto *address = dyn_cast<UnaryOperator>(s); address && address->getOpcode() == UO_AddrOf &&
                                                            names(address->getSubExpr()))
      return std::nullopt;
    if (const auto *call = dyn_cast<CallExpr>(s))
      if (const FunctionDecl *callee = call->getDirectCallee())
        for (unsigned i = 0; i < call->getNumArgs() && i < callee->getNumParams(); ++i) {
          QualType param = callee->getParamDecl(i)->getType();
          if (names(call->getArg(i)) && (param->isPointerType() || param->isReferenceType()) &&
              !param->getPointeeType().isConstQualified())
            return std::nullopt;
        }
    for (const Stmt *child : s->children())
      work.push_back(child);
  }
  return inits->getNumInits();
}

bool Extractor::processModelledCall(const CallExpr *call, const FunctionDecl *callee, const Event &event) {
  const auto *method = dyn_cast<CXXMethodDecl>(callee);
  if (!method)
    return false;
  // The object's own class first: another library's container declares push_back() in a base
  // (llvm::SmallVectorTemplateBase) its model does not name.
  const CXXRecordDecl *objectRecord = nullptr;
  if (const auto *member = dyn_cast<CXXMemberCallExpr>(call))
    if (const Expr *object = member->getImplicitObjectArgument()) {
      QualType type = object->IgnoreParenImpCasts()->getType();
      objectRecord = type->isPointerType() ? type->getPointeeCXXRecordDecl() : type->getAsCXXRecordDecl();
    }
  std::optional<ModelledRecord> modelled =
      objectRecord && containerModel(objectRecord) ? std::optional<ModelledRecord>(ModelledRecord::Container)
                                                   : modelledRecord(Ctx.getRecordType(method->getParent()));
  if (!modelled)
    return false;
  const ContainerClass *containerClass = objectRecord ? containerModel(objectRecord) : nullptr;
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
    if (appendsArguments(name, containerClass))
      for (const Expr *arg : args)
        storeInto(arg, element(*object, -1), facts::FlowKind::Assign);
    if (name == "insert" && !args.empty())
      storeInto(args.back(), element(*object, -1), facts::FlowKind::Assign);
    // v.assign({a, b}), v = {a, b}, v.assign(n, fd), v.resize(n, fd), v.insert(it, {a, b}).
    for (unsigned i = 0; i < args.size(); ++i)
      storeElementArgument(method, i, args[i], *object, facts::FlowKind::Assign);
    // m[key], m.insert_or_assign(key, v): the key is kept as the element's first (read back
    // by `auto &[key, value] : m`, it->first).
    if (((op && op->getOperator() == OO_Subscript) || name == "insert_or_assign") && !args.empty() &&
        isKeyedContainer(method->getParent()))
      storeInto(args.front(), memberPlace(element(*object, -1), "first", kNone), facts::FlowKind::Assign);
    if (name == "insert_or_assign" && args.size() >= 2 && isKeyedContainer(method->getParent()))
      storeInto(args[1], memberPlace(element(*object, -1), "second", kNone), facts::FlowKind::Assign);
    if ((op && op->getOperator() == OO_Equal) || name == "assign" || name == "swap")
      for (const Expr *arg : args)
        if (std::optional<Id> from = placeOf(arg)) {
          copyObject(*from, *object, objectExpr->getType(), facts::FlowKind::Assign);
          if (name == "swap") // both ways
            copyObject(*object, *from, objectExpr->getType(), facts::FlowKind::Assign);
        }
    return true;
  case ModelledRecord::Callable:
    if (op && op->getOperator() == OO_Call) {
      processIndirectCall(call, nullptr, args, event);
      U.indirectCalls.back().target = memberPlace(*object, facts::kCallableMember, kNone);
      return true;
    }
    if ((op && op->getOperator() == OO_Equal) || name == "swap")
      for (const Expr *arg : args) {
        if (modelledRecord(arg->getType()) == ModelledRecord::Callable) {
          if (std::optional<Id> from = placeOf(arg))
            copyObject(*from, *object, objectExpr->getType(), facts::FlowKind::Assign);
        } else {
          flowInto(arg, memberPlace(*object, facts::kCallableMember, kNone), facts::FlowKind::Assign);
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
                                    llvm::ArrayRef<const Expr *> args, const Event &event, bool givesBack) {
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
    if (!args[i]) {
      call.args.emplace_back();
      continue;
    }
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
  if (givesBack && (followed(callExpr->getType()) || isObjectType(callExpr->getType())))
    indirectValue(callExpr);
  U.indirectCalls.push_back(std::move(call));
}

void Extractor::registerThroughPointer(const CallExpr *call, const Registrar &r, const Event &event) {
  // The loop's later call of the callback is a call through the pointer registered, with the fd
  // and the user data at the parameters the model gives them: the link calls every function that
  // reaches the pointer. (Lost: the connections an acceptor registered this way is handed.)
  const Expr *callback = call->getArg(r.callbackArg);
  const FunctionProtoType *proto = nullptr;
  if (const auto *pointer = callback->getType()->getAs<PointerType>())
    proto = pointer->getPointeeType()->getAs<FunctionProtoType>();
  llvm::SmallVector<const Expr *, 4> args;
  auto pass = [&](int param, const Expr *value) {
    if (param < 0) // (positions are bounded where the options are read)
      return;
    if (args.size() <= static_cast<unsigned>(param))
      args.resize(param + 1, nullptr);
    args[param] = value;
  };
  if (r.fdArg >= 0 && !r.accepts) {
    int param = r.param;
    if (param == kFirstFdParam) {
      param = -1;
      for (unsigned i = 0; proto && i < proto->getNumParams() && param < 0; ++i)
        if (holdsFd(proto->getParamType(i)))
          param = static_cast<int>(i);
    }
    pass(param, call->getArg(r.fdArg));
  }
  for (auto [argument, param] : r.passes)
    if (argument < static_cast<int>(call->getNumArgs()))
      pass(param, call->getArg(argument));
  if (!args.empty())
    processIndirectCall(call, callback, args, event, /*givesBack=*/false);
}

// uv_pipe_bind(&server, path), uv_listen(server, ...), uv_accept(server, client): what a library
// does to the socket a holder keeps (models.md, holder_calls), on the holder's fd member.
void Extractor::holderCall(const CallExpr *call, const HolderCall &model, const Event &event) {
  const Expr *holder = call->getArg(model.holderArg);
  Id socket = heldFd(holder, model.holder);
  std::string by = model.name;
  if (model.family) {
    // The library makes the holder's socket before it binds or connects; one the holder may
    // already keep (a connect on a handle opened with an fd) stays a candidate beside it.
    facts::Create create;
    create.how = facts::CreateHow::Producer;
    create.family = *model.family;
    create.familyName = model.familyName;
    create.type = model.type;
    create.origin = by + "()" + inFunctionText(currentFunction());
    Id made = createValue(call, std::move(create), by);
    addFlow(made, socket, facts::FlowKind::Assign);
    addFlow(made, holderPlace(model.holder), facts::FlowKind::Assign); // as every store feeds it
  }
  if (model.effect == OwnerEffect::Accept) {
    facts::Create create;
    create.how = facts::CreateHow::Accept;
    create.listener = socket;
    create.origin = by + "()" + inFunctionText(currentFunction());
    Id accepted = createValue(call, std::move(create), by);
    addFlow(accepted, heldFd(call->getArg(model.intoArg), model.holder), facts::FlowKind::Assign);
    addFlow(accepted, holderPlace(model.holder), facts::FlowKind::Assign);
    return;
  }
  ownerEvent(call, holder, socket, model.effect, by, event);
}

// A library's bind, listen or connect (a socket maker, a library fd owner's method or constructor): the
// event on its socket, by the library (never a place to insert a fix-it's call before). One event
// per call: a listener's bind() pairs no client, a connect() no server (the address is the library's).
void Extractor::ownerEvent(const Expr *at, const Expr *object, Id socket, OwnerEffect effect, const std::string &by,
                           const Event &event, bool unknownTypeListens) {
  if (effect == OwnerEffect::Socket)
    return;
  facts::LifecycleEvent fact;
  fact.place = socket;
  fact.site = makeSite(at, object, event.loop);
  int type = -1;
  for (const facts::Create &c : U.creates)
    if (c.place == socket)
      type = c.type;
  // A library listens only on a connection-oriented socket.
  bool connectionOriented = type == kernel::kSockStream || type == kernel::kSockSeqpacket || (type < 0 && unknownTypeListens);
  fact.kind = effect == OwnerEffect::Connect                        ? facts::Lifecycle::Connect
              : effect == OwnerEffect::Listen && connectionOriented ? facts::Lifecycle::Listen
                                                                    : facts::Lifecycle::Bind;
  fact.statement = event.statement;
  fact.maker = by;
  U.lifecycle.push_back(std::move(fact));
}

// The credential option an option object's type names: a class template specialisation with
// SOL_SOCKET and the option among its integer template arguments, in that order and side by side
// (Boost.Asio's socket_option::boolean<SOL_SOCKET, SO_PASSCRED>, a project's own template alike).
static std::optional<facts::Option> optionNamedByType(QualType type) {
  const auto *spec =
      dyn_cast_or_null<ClassTemplateSpecializationDecl>(type.getNonReferenceType()->getAsCXXRecordDecl());
  if (!spec)
    return std::nullopt;
  const TemplateArgumentList &args = spec->getTemplateArgs();
  for (unsigned i = 0; i + 1 < args.size(); ++i) {
    if (args[i].getKind() != TemplateArgument::Integral || args[i + 1].getKind() != TemplateArgument::Integral ||
        args[i].getAsIntegral() != kernel::kSolSocket)
      continue;
    switch (args[i + 1].getAsIntegral().getExtValue()) {
    case kernel::kSoPassCred:
      return facts::Option::PassCred;
    case kernel::kSoPassSec:
      return facts::Option::PassSec;
    case kernel::kSoPassPidfd:
      return facts::Option::PassPidfd;
    default:
      return std::nullopt;
    }
  }
  return std::nullopt;
}

// set_option(option) of a library fd owner (an `option` method, models.md): the option its
// argument's type names, set to the value the argument is constructed with (passcred(true), a
// local `passcred on(true)`: its initialiser, a later assignment to it is not followed); any other
// value, or none (the library's default), may enable it.
void Extractor::ownerOption(const CXXMemberCallExpr *call, Id socket, const Event &event) {
  if (call->getNumArgs() < 1)
    return;
  const Expr *arg = call->getArg(0);
  std::optional<facts::Option> option = optionNamedByType(arg->getType());
  if (!option)
    return;
  facts::OptionSet fact;
  fact.throughWrapper = true;
  fact.option = *option;
  const Expr *made = arg->IgnoreImplicit();
  if (const auto *ref = dyn_cast<DeclRefExpr>(made))
    if (const auto *var = dyn_cast<VarDecl>(ref->getDecl()); var && var->isLocalVarDecl() && var->getInit())
      made = var->getInit()->IgnoreImplicit();
  if (const auto *cast = dyn_cast<CXXFunctionalCastExpr>(made))
    made = cast->getSubExpr()->IgnoreImplicit();
  if (const auto *construct = dyn_cast<CXXConstructExpr>(made);
      construct && construct->getNumArgs() >= 1 && !isa<CXXDefaultArgExpr>(construct->getArg(0)))
    if (std::optional<std::int64_t> value = evalInt(construct->getArg(0), Ctx))
      fact.value = *value ? facts::Tri::True : facts::Tri::False;
  fact.place = socket;
  fact.site = makeSite(call, ownerObject(call), event.loop);
  fact.familyGuarded = event.guarded;
  fact.statement = event.statement;
  U.options.push_back(std::move(fact));
}

void Extractor::processConstruct(const CXXConstructExpr *construct, const Event &event) {
  if (isFdOwnerType(construct->getType())) {
    // Deferred only for a library owner's constructor that binds or listens (VisitCXXConstructExpr).
    std::string className;
    if (const FdOwnerModel *model = ownerModel(construct->getType(), &className))
      if (std::optional<OwnerEffect> effect = constructorEffect(construct, *model))
        if (std::optional<Id> socket = placeOf(construct))
          ownerEvent(construct, nullptr, *socket, *effect, className, event);
    return;
  }
  const CXXConstructorDecl *ctor = construct->getConstructor();
  Id storage = storageOf(construct);
  QualType type = construct->getType();
  llvm::SmallVector<const Expr *, 4> args(construct->arguments());
  if (std::optional<ModelledRecord> modelled = modelledRecord(type)) {
    // std::vector<int>{a, b}, std::function<void(int)>(lambda), std::optional<int>(fd),
    // std::unique_ptr<T>(new T): what the object holds afterwards.
    for (unsigned i = 0; i < args.size(); ++i) {
      const Expr *arg = args[i];
      const Expr *bare = stripValue(arg);
      if (const auto *list = dyn_cast_or_null<CXXStdInitializerListExpr>(bare))
        bare = list->getSubExpr()->IgnoreImplicit();
      if (const auto *list = dyn_cast_or_null<InitListExpr>(bare)) {
        storeElements(list, storage, facts::FlowKind::Init);
        continue;
      }
      // (The object as it is, not the base a conversion takes: llvm::ArrayRef's constructor takes
      // a SmallVector as its base SmallVectorTemplateCommon, which no model names.)
      QualType argType = arg->IgnoreParenImpCasts()->getType();
      if (isObjectType(argType) && modelledRecord(argType) == modelled) {
        if (std::optional<Id> from = placeOf(arg))
          copyObject(*from, storage, type, facts::FlowKind::Init); // a copy or move
        continue;
      }
      switch (*modelled) {
      case ModelledRecord::Callable:
        flowInto(arg, memberPlace(storage, facts::kCallableMember, kNone), facts::FlowKind::Init);
        break;
      case ModelledRecord::Transparent:
      case ModelledRecord::SmartPointer:
        flowInto(arg, storage, facts::FlowKind::Init);
        break;
      case ModelledRecord::Container:
        // std::vector<int>(n, fd): the value each element gets; not a size or an allocator.
        storeElementArgument(ctor, i, arg, storage, facts::FlowKind::Init);
        break;
      }
    }
    return;
  }
  if (!ctor)
    return;
  // std::pair{key, value} (m.insert({fd, std::make_unique<Client>(fd)})): its first and second.
  if (const CXXRecordDecl *record = type->getAsCXXRecordDecl();
      record && isStdNamed(record, {"pair"}) && args.size() == 2 && !ctor->isCopyOrMoveConstructor()) {
    storeInto(args[0], memberPlace(storage, "first", kNone), facts::FlowKind::Init);
    storeInto(args[1], memberPlace(storage, "second", kNone), facts::FlowKind::Init);
    return;
  }
  // A copy or move the compiler writes is the object copied field by field; one the program
  // writes is a call of its own.
  if (ctor->isCopyOrMoveConstructor() && !copyWrittenByProgram(ctor) && !args.empty()) {
    if (std::optional<Id> from = placeOf(args[0]))
      copyObject(*from, storage, type, facts::FlowKind::Init);
    return;
  }
  if (const CXXRecordDecl *record = type->getAsCXXRecordDecl(); record && isStdNamed(record, {"thread", "jthread"}))
    if (processInvocation(construct, args, event))
      return;
  if (declaredInSystemHeader(ctor, SM))
    return;
  processUserCall(construct, ctor, args, event);
}

bool Extractor::processInvocation(const Expr *at, llvm::ArrayRef<const Expr *> args, const Event &event,
                                  bool calledOnlyHere) {
  // std::async(std::launch::async, f, ...): the policy comes first.
  if (!args.empty() && args[0]->getType()->isEnumeralType())
    args = args.drop_front();
  if (args.empty())
    return false;
  const DeclRefExpr *ref = functionRefExpr(args[0]);
  const FunctionDecl *target = ref ? dyn_cast<FunctionDecl>(ref->getDecl()) : lambdaOperator(args[0]);
  if (!target)
    return false;
  llvm::ArrayRef<const Expr *> passed = args.drop_front();
  std::optional<Id> receiver;
  if (const auto *method = dyn_cast<CXXMethodDecl>(target); method && !method->isStatic() && ref) {
    // (&Server::Serve, this, fd): the object, by pointer or by reference, then the arguments.
    if (passed.empty())
      return false;
    const Expr *object = passed[0];
    if (object->getType()->isPointerType())
      receiver = pointerValue(object);
    else if (std::optional<Id> place = placeOf(stripValue(object)))
      receiver = addressOf(*place);
    passed = passed.drop_front();
  }
  // The arguments are copies the library hands on (decay-copied, as by value).
  processUserCall(at, target, passed, event, /*forwarded=*/true, receiver);
  if (ref && calledOnlyHere)
    ModeledRefs.insert(ref);
  return true;
}

void Extractor::processRegistration(const CallExpr *call, const FunctionDecl *callee, const Event &event) {
  llvm::StringRef name = callee && callee->getIdentifier() ? callee->getName() : "";
  // Registered with an fd, a callback is not escaping: the registration says what it is called with.
  auto registerWith = [&](const Expr *fdArg, const Expr *callbackArg, int param, bool accepts,
                          const std::string &registrar) {
    std::optional<CallbackTarget> callback = callbackTarget(callbackArg);
    if (!callback)
      return;
    const FunctionDecl *target = callback->function;
    if (callback->bound && param != kFirstFdParam) {
      // The loop calls the bound object with the fd as its argument `param`: the target's
      // parameter that placeholder feeds.
      std::optional<int> fed = callback->parameterFedBy(param);
      if (!fed)
        return;
      param = *fed;
    } else if (param == kFirstFdParam) {
      param = firstFdParam(target);
    }
    if (param < 0) {
      // The callback gets the fd inside a struct it is handed (struct pollfd *pfd).
      std::optional<Id> field = fdInStructParam(target);
      std::optional<Id> socket = placeOf(fdArg);
      if (!field || !socket)
        return;
      addFlow(*socket, *field, facts::FlowKind::Callback, true, makeSite(call, fdArg, event.loop));
      if (callback->ref)
        ModeledRefs.insert(callback->ref);
      return;
    }
    if (static_cast<unsigned>(param) >= target->getNumParams())
      return;
    std::optional<Id> socket = placeOf(fdArg);
    if (!socket)
      return;
    facts::Callback registered;
    registered.site = makeSite(call, fdArg, event.loop);
    registered.callee = functionId(target);
    registered.param = param;
    registered.registrar = registrar;
    if (accepts) {
      facts::Create create;
      create.how = facts::CreateHow::Accept;
      create.listener = *socket;
      create.origin = "a connection " + registrar + "() accepts";
      registered.socket = createValue(call, std::move(create), registrar);
    } else {
      registered.socket = *socket;
    }
    U.callbacks.push_back(std::move(registered));
    if (callback->ref)
      ModeledRefs.insert(callback->ref);
  };
  // What the loop hands the callback besides the fd (its user data: models.md, event_loops
  // `passes`) flows into the callback's parameter as a call's argument would, so the callback reads
  // the fields of the object registered with it, not those of every object of its type.
  auto pass = [&](const Registrar &r) {
    std::optional<CallbackTarget> callback = callbackTarget(call->getArg(r.callbackArg));
    if (!callback)
      return;
    const FunctionDecl *target = callback->function;
    for (auto [argument, param] : r.passes) {
      if (argument >= static_cast<int>(call->getNumArgs()) || (argument == r.fdArg && param == r.param))
        continue; // an argument the call does not have; the fd, registered above
      std::optional<int> fed = callback->parameterFedBy(param);
      if (!fed || *fed >= static_cast<int>(target->getNumParams()))
        continue; // the bound object drops it, or the callback takes fewer
      param = *fed;
      const Expr *arg = call->getArg(argument);
      std::optional<Id> value = arg->getType()->isPointerType() ? pointerValue(arg) : placeOf(arg);
      if (!value)
        continue;
      addFlow(*value, paramPlace(target, static_cast<unsigned>(param)), facts::FlowKind::Callback, true,
              makeSite(call, arg, event.loop));
      if (callback->ref)
        ModeledRefs.insert(callback->ref);
    }
  };
  // Every entry of the function: one per callback it takes (libevent's bufferevent_setcb() takes
  // three).
  bool modelled = false;
  for (const Registrar &r : Options.registrars)
    if (name == r.name && static_cast<int>(call->getNumArgs()) > std::max(r.fdArg, r.callbackArg)) {
      modelled = true;
      if (!callbackTarget(call->getArg(r.callbackArg))) {
        registerThroughPointer(call, r, event);
        continue;
      }
      if (r.fdArg >= 0)
        registerWith(call->getArg(r.fdArg), call->getArg(r.callbackArg), r.param, r.accepts, name.str());
      pass(r);
    }
  if (modelled)
    return;
  // The general rule for project-local loops: a call that passes an fd together with a function
  // or a lambda (or a table of them) hands the fd to that function's first fd parameter.
  llvm::SmallVector<const Expr *, 4> targets;
  llvm::SmallVector<const VarDecl *, 2> tables;
  for (const Expr *arg : call->arguments()) {
    if (callbackTarget(arg)) {
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
      registerWith(arg, target, kFirstFdParam, false, facts::kGuessedRegistrar);
    for (const VarDecl *table : tables)
      if (std::optional<Id> socket = placeOf(arg))
        addFlow(*socket, tablePlace(table), facts::FlowKind::Callback, true,
                makeSite(call, arg, event.loop));
  }
}

// The socket a function template sets its option template argument on, as the call names it:
// the template's setsockopt() whose option is a template parameter, on one of its parameters
// (the call's argument there) or on a member of `this` (that member of the object the call is
// made on). {nullptr, nullopt} when the template's body says neither.
std::pair<const Expr *, std::optional<Id>> Extractor::templateOptionSocket(const CallExpr *call,
                                                                           const FunctionDecl *callee) {
  const Stmt *body = callee->getBody();
  if (!body)
    return {nullptr, std::nullopt};
  std::vector<const Stmt *> work{body};
  while (!work.empty()) {
    const Stmt *st = work.back();
    work.pop_back();
    if (!st)
      continue;
    for (const Stmt *child : st->children())
      work.push_back(child);
    const auto *inner = dyn_cast<CallExpr>(st);
    const FunctionDecl *fn = inner ? inner->getDirectCallee() : nullptr;
    if (!fn || !isSocketApi(fn) || !fn->getIdentifier() || fn->getName() != "setsockopt" || inner->getNumArgs() < 3)
      continue;
    // (IgnoreParenImpCasts() would look through the substitution itself.)
    const Expr *option = inner->getArg(2);
    while (isa<ImplicitCastExpr, ParenExpr>(option))
      option = isa<ParenExpr>(option) ? cast<ParenExpr>(option)->getSubExpr() : cast<ImplicitCastExpr>(option)->getSubExpr();
    if (!isa<SubstNonTypeTemplateParmExpr>(option))
      continue;
    const Expr *fd = inner->getArg(0)->IgnoreParenImpCasts();
    if (const auto *ref = dyn_cast<DeclRefExpr>(fd))
      if (const auto *param = dyn_cast<ParmVarDecl>(ref->getDecl()); param && param->getDeclContext() == callee) {
        unsigned index = param->getFunctionScopeIndex();
        if (index >= call->getNumArgs())
          return {nullptr, std::nullopt};
        return {call->getArg(index), placeOf(call->getArg(index))};
      }
    const auto *member = dyn_cast<MemberExpr>(fd);
    const auto *field = member ? dyn_cast<FieldDecl>(member->getMemberDecl()) : nullptr;
    const auto *memberCall = dyn_cast<CXXMemberCallExpr>(call);
    if (field && isa<CXXThisExpr>(member->getBase()->IgnoreParenImpCasts()) && memberCall)
      if (std::optional<Id> object = objectNamedBy(memberCall->getImplicitObjectArgument()))
        return {memberCall->getImplicitObjectArgument(), memberPlace(*object, field)};
    return {nullptr, std::nullopt};
  }
  return {nullptr, std::nullopt};
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
  // The option as a template argument (EnableBool<SO_PASSCRED>(fd)): the call is the wrapper
  // call, as if the option were an argument before the others. (The setsockopt() in the template
  // reads a template parameter, which names no option there: the instantiations are one function.)
  bool templateOption = optionArg < 0 && !isSetsockopt && templateArgumentSpelledAs(call, optionNames, Ctx, &spelled);
  // setsockopt(fd_, level, option, &value, ...) in a helper whose option is its parameter
  // (SetFlag(level, option, on)): an option where a caller passes one of the constants (the link).
  int optionParam = -1, levelParam = -1;
  if (isSetsockopt && optionArg < 0 && call->getNumArgs() >= 3) {
    optionParam = parameterValue(call->getArg(2));
    // At another level the same numbers are other options (IPPROTO_IPV6's 16 is
    // IPV6_UNICAST_HOPS); a level we cannot read stays a possible SOL_SOCKET.
    if (std::optional<std::int64_t> level = evalInt(call->getArg(1), Ctx); level && *level != kernel::kSolSocket)
      optionParam = -1;
    else if (optionParam >= 0)
      levelParam = parameterValue(call->getArg(1));
  }
  if (optionArg < 0 && !templateOption && !configured && optionParam < 0)
    return;
  // getsockopt() and getters read the option; they set nothing.
  if (!configured && name.contains_insensitive("get"))
    return;
  if (isSetsockopt && optionArg != 2 && optionParam < 0)
    return;

  facts::OptionSet fact;
  fact.throughWrapper = !isSetsockopt;
  fact.option = optionArg >= 0 || templateOption ? llvm::StringSwitch<facts::Option>(spelled)
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
  } else if (templateOption) {
    std::tie(socketArg, socket) = templateOptionSocket(call, callee);
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
  fact.levelParam = levelParam;
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


} // namespace afunix::analysis::extraction
