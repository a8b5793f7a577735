// Values: reaching definitions and the places that expressions denote (variables, fields of objects,
// elements, calls' values, addresses), and how one value flows into another.
#include "ExtractorImpl.h"

namespace afunix::analysis::extraction {

// ---------------------------------------------------------------------------------------------
// Reaching definitions: a local assigned more than once gets one place per definition, and each
// use reads the definitions that reach it over the CFG.

void Extractor::buildFlowSensitivity(Scope &s, FlowSensitivity &flow) {
  CFG::BuildOptions options;
  options.setAllAlwaysAdd(); // every expression is an element: uses and definitions get positions
  // A constructor's member initialisers run before its body (acceptor_(io, endpoint) listens
  // before the body's set_option()): their expressions get positions in the entry's successor.
  options.AddInitializers = true;
  flow.cfg = CFG::buildCFG(s.fn, s.fn->getBody(), &Ctx, options);
  if (!flow.cfg)
    return;
  CFG &cfg = *flow.cfg;
  Id fnId = functionId(s.fn);
  std::vector<std::vector<std::uint32_t>> successors(cfg.getNumBlockIDs());
  for (const CFGBlock *block : cfg) {
    unsigned index = 0;
    for (const CFGElement &element : *block) {
      if (std::optional<CFGStmt> stmt = element.getAs<CFGStmt>())
        flow.positions.try_emplace(stmt->getStmt(), block->getBlockID(), index);
      ++index;
    }
    for (const CFGBlock *succ : block->succs())
      if (succ)
        successors[block->getBlockID()].push_back(succ->getBlockID());
  }
  facts::Function &info = U.functions[fnId];
  // The instantiations of a template are one function of the facts, but each has its own CFG
  // (`if constexpr` keeps one branch). A second CFG that differs leaves the function without
  // positions: a block of one is no block of the other, and order within it is unknown.
  // (The positions still order this instantiation's own definitions below.)
  if (!UnpositionedFunctions.count(fnId) && !info.successors.empty() && info.successors != successors) {
    UnpositionedFunctions.insert(fnId);
    info.successors.clear();
    info.idom.clear();
    info.entry = kNone;
    for (facts::Site &site : U.sites)
      if (site.function == fnId)
        site.block = kNone;
  }
  if (!UnpositionedFunctions.count(fnId)) {
    info.successors = std::move(successors);
    info.idom.assign(cfg.getNumBlockIDs(), kNone);
    info.entry = cfg.getEntry().getBlockID();
    CFGDomTree dominators(&cfg);
    for (CFGBlock *block : cfg)
      if (auto *node = dominators.getBase().getNode(block))
        if (auto *idom = node->getIDom(); idom && idom->getBlock())
          U.functions[fnId].idom[block->getBlockID()] = idom->getBlock()->getBlockID();
  }

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

std::pair<std::string, std::uint32_t> Extractor::expansionPosition(const Expr *at) {
  SourceLocation loc = SM.getExpansionLoc(at->getBeginLoc());
  return {normalisedPath(SM.getFilename(loc)), SM.getFileOffset(loc)};
}

Id Extractor::createValue(const Expr *at, facts::Create create, const std::string &callee) {
  auto [file, offset] = expansionPosition(at);
  std::string key = facts::valueKey(callee, file, offset);
  bool fresh = PlaceIds.find(key) == PlaceIds.end();
  Id place = intern(key, facts::PlaceKind::Value, callee + "()", functionId(currentFunction()));
  if (fresh) {
    create.place = place;
    create.site = makeSite(at, nullptr, EventLoop);
    create.creator = callee;
    U.creates.push_back(std::move(create));
    return place;
  }
  // The same call seen again in another instantiation of its template (socket(Family, ...) in
  // Socket<AF_UNIX> and Socket<AF_INET6>): the instantiations share one function, so a family or
  // type they disagree on is unknown, not the first one's.
  for (facts::Create &seen : U.creates)
    if (seen.place == place) {
      if (seen.family != create.family || seen.familyName != create.familyName) {
        seen.family = facts::Family::Unknown;
        seen.familyName.clear();
      }
      if (seen.type != create.type)
        seen.type = -1;
      break;
    }
  return place;
}

// The socket a library fd owner makes (its constructor or open()): a socket of the class's type,
// of the family its model reads off the object's type (else unknown: the library decides it).
Id Extractor::ownerSocket(const Expr *at, QualType object, const FdOwnerModel &model, const std::string &className) {
  facts::Create create;
  create.how = facts::CreateHow::Producer;
  create.family = facts::Family::Unknown;
  std::string spelled = object.getNonReferenceType().getCanonicalType().getAsString();
  for (const auto &[word, family] : model.families)
    if (llvm::StringRef(spelled).contains(word)) {
      create.family = familyFromName(family).value_or(facts::Family::Unknown);
      create.familyName = family;
      break;
    }
  create.type = model.type;
  create.origin = className + "()" + inFunctionText(currentFunction());
  return createValue(at, std::move(create), className);
}

void Extractor::ownerMakesSocket(const Expr *at, const Expr *object, Id place, const std::string &by) {
  QualType type = object->getType().getNonReferenceType();
  if (type->isPointerType())
    type = type->getPointeeType();
  addFlow(ownerSocket(at, type, *ownerModel(type), by), place, facts::FlowKind::Assign);
}

Id Extractor::ownerAccepted(const CXXMemberCallExpr *call, const std::string &by) {
  facts::Create create;
  create.how = facts::CreateHow::Accept;
  if (std::optional<Id> listener = ownedFdOf(call))
    create.listener = *listener;
  create.origin = by + "()" + inFunctionText(currentFunction());
  return createValue(call, std::move(create), by);
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
      // A named integer constant (const FileHandle kInvalidFileHandle = -1): a value, as the
      // literal is, not a variable whose contents come from elsewhere.
      if (var->hasGlobalStorage() && var->getType().isConstQualified() && var->getType()->isIntegralOrEnumerationType() &&
          !var->getType().isVolatileQualified() && evalInt(e, Ctx))
        return std::nullopt;
      std::optional<Id> place = varPlace(var, ref);
      // A reference names the object it is bound to: what its place points to.
      if (place && var->getType()->isReferenceType() && isObjectType(var->getType()))
        return derefPlace(*place);
      return place;
    }
    if (const auto *fn = dyn_cast<FunctionDecl>(ref->getDecl()))
      return functionValue(fn);
    // auto &[key, value] = ...: a field or element of the object it decomposes, or (a pair,
    // a tuple) what its hidden variable gets from std::get<N>().
    if (const auto *binding = dyn_cast<BindingDecl>(ref->getDecl())) {
      if (const VarDecl *holding = binding->getHoldingVar())
        return holding->getInit() ? placeOf(holding->getInit()) : std::nullopt;
      return binding->getBinding() ? placeOf(binding->getBinding()) : std::nullopt;
    }
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
    // (A write into a message is a payload, Event::Assign; a struct ucred read is not an fd.)
    if (isFdValueType(e->getType(), Ctx) && isCmsgData(unary->getSubExpr()))
      return receivedFds(e);
    QualType pointee = unary->getSubExpr()->getType()->getPointeeType();
    if (!pointee.isNull() && (isObjectType(pointee) || carriesAddress(pointee))) {
      std::optional<Id> pointer = pointerValue(unary->getSubExpr());
      return pointer ? std::optional<Id>(derefPlace(*pointer)) : std::nullopt;
    }
    if (!pointee.isNull() && pointee->isFunctionType())
      return pointerValue(unary->getSubExpr()); // (*cb)(fd) calls what cb points to
    return pointeeOfFdPointer(unary->getSubExpr());
  }
  if (const auto *unary = dyn_cast<UnaryOperator>(e); unary && unary->getOpcode() == UO_AddrOf)
    return pointerValue(e);
  if (const auto *subscript = dyn_cast<ArraySubscriptExpr>(e)) {
    if (isFdValueType(e->getType(), Ctx) && isCmsgData(subscript->getBase()))
      return receivedFds(e);
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
  // Open({AF_INET, path}) into a `const Endpoint &` parameter, f(Endpoint{fd, ...}): a temporary
  // the list fills in field by field, as `Endpoint t = {AF_INET, path}` is.
  if (const auto *list = dyn_cast<InitListExpr>(e); list && isObjectType(list->getType())) {
    Id temporary = newObject(list, "t", list->getType().getAsString() + "{...}");
    if (FilledTemporaries.insert(list).second)
      initFields(list, temporary);
    return temporary;
  }
  if (const auto *literal = dyn_cast<CompoundLiteralExpr>(e); literal && isObjectType(literal->getType()))
    return newObject(literal, "t", "(" + literal->getType().getAsString() + "){...}");
  // co_await acceptor.async_accept(use_awaitable): what the awaited accept resumes with, the
  // connection. (Other awaited values are not followed.)
  if (const auto *await = dyn_cast<CoawaitExpr>(e)) {
    const auto *accept = dyn_cast_or_null<CXXMemberCallExpr>(await->getOperand()->IgnoreImplicit());
    std::string className;
    if (accept && accept->getMethodDecl() && isFdOwnerType(e->getType()) &&
        methodEffect(accept, className) == OwnerEffect::Accept)
      return ownerAccepted(accept, className + "::" + accept->getMethodDecl()->getNameAsString());
    return std::nullopt;
  }
  if (const auto *member = dyn_cast<CXXMemberCallExpr>(e)) {
    const Expr *object = member->getImplicitObjectArgument();
    const CXXMethodDecl *method = member->getMethodDecl();
    // peer = acceptor.accept(): a connection, not the object's own fd (as fd.get() would be).
    std::string className;
    if (method && isFdOwnerType(member->getType()) && methodEffect(member, className) == OwnerEffect::Accept)
      return ownerAccepted(member, className + "::" + method->getNameAsString());
    if (method && holdsFd(method->getReturnType()))
      if (std::optional<Id> owned = ownedFdOf(member))
        return owned; // fd.get(), fd.release(), (int)fd, out->get()
  }
  if (const auto *call = dyn_cast<CallExpr>(e))
    return callValue(call);
  if (const auto *construct = dyn_cast<CXXConstructExpr>(e)) {
    // UniqueFd(fd), UniqueFd(std::move(other)): the owned fd. A library owner's constructor that
    // makes its socket (acceptor(io, endpoint)): a socket of its own; any other (acceptor(io))
    // holds none yet.
    if (isFdOwnerType(construct->getType())) {
      if (construct->getNumArgs() >= 1 && !isa<CXXDefaultArgExpr>(construct->getArg(0)) &&
          holdsFd(construct->getArg(0)->getType()))
        return placeOf(construct->getArg(0));
      std::string className;
      if (const FdOwnerModel *model = ownerModel(construct->getType(), &className))
        if (constructorEffect(construct, *model))
          return ownerSocket(construct, construct->getType(), *model, className);
      return std::nullopt;
    }
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
  bool written = false;
  forEachWrite(stmt, var, [&](const Expr *) { written = true; });
  return written;
}
} // namespace

std::optional<Id> Extractor::pointeeOfFdPointer(const Expr *pointer) {
  if (const Expr *aliased = aliasedByLocalPointer(pointer))
    return placeOf(aliased); // int *p = &fd; ... *p (systemd's TAKE_FD()): fd itself
  std::optional<Id> base = placeOf(pointer);
  if (!base)
    return std::nullopt;
  // opt->get() (std::optional's operator-> is the address of what it holds): that object.
  if (std::optional<Id> object = addressedObject(*base))
    return object;
  // A library socket object through a pointer or a smart pointer (acceptor->listen(), the
  // acceptor std::make_unique() built): the object the pointer points to, as the link resolves it.
  if (QualType pointee = pointer->getType()->getPointeeType(); !pointee.isNull() && ownerModel(pointee))
    if (std::optional<Id> value = pointerValue(pointer))
      return derefPlace(*value);
  // it->get() through an iterator or a smart pointer the program keeps in a variable: what `*it`
  // names (operator-> gives the object's own place, which holds the address).
  if (const auto *arrow = dyn_cast<CXXOperatorCallExpr>(pointer->IgnoreParenImpCasts());
      arrow && arrow->getOperator() == OO_Arrow && arrow->getNumArgs() == 1 &&
      modelledRecord(arrow->getArg(0)->getType()) == ModelledRecord::SmartPointer)
    return derefPlace(*base);
  return element(*base, 0);
}

std::optional<Id> Extractor::ownedFdOf(const CXXMemberCallExpr *call) {
  // The object as the program names it (a library owner calling its base's native_handle()),
  // else as the method sees it (a program's owner class inherited from).
  for (const Expr *object : {ownerObject(call), static_cast<const Expr *>(call->getImplicitObjectArgument())}) {
    if (!object)
      continue;
    const auto *member = dyn_cast<MemberExpr>(call->getCallee()->IgnoreParens());
    if (member && member->isArrow()) {
      // out->reset(fd) through ScopedFd *out: the owner the pointer names, as *out is.
      QualType pointee = object->getType()->getPointeeType();
      if (!pointee.isNull() && isFdOwnerType(pointee))
        return pointeeOfFdPointer(object);
      continue;
    }
    if (isFdOwnerType(object->getType()))
      return placeOf(object);
  }
  return std::nullopt;
}

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

// The member path an offset names: offsetof(T, a.b) (__builtin_offsetof) or the pre-C89 spelling
// (size_t)&((T *)0)->a.b. An array index in the path names no member, so no path.
static std::optional<std::string> offsetMemberPath(const Expr *offset, ASTContext &ctx) {
  offset = offset->IgnoreParenCasts();
  std::string path;
  if (const auto *offsetOf = dyn_cast<OffsetOfExpr>(offset)) {
    for (unsigned i = 0; i < offsetOf->getNumComponents(); ++i) {
      const OffsetOfNode &node = offsetOf->getComponent(i);
      if (node.getKind() != OffsetOfNode::Field || !node.getField() || !node.getField()->getIdentifier())
        return std::nullopt;
      path += (path.empty() ? "" : ".") + node.getField()->getName().str();
    }
    return path;
  }
  const auto *address = dyn_cast<UnaryOperator>(offset);
  if (!address || address->getOpcode() != UO_AddrOf)
    return std::nullopt;
  const Expr *e = address->getSubExpr()->IgnoreParens();
  while (const auto *member = dyn_cast<MemberExpr>(e)) {
    const auto *field = dyn_cast<FieldDecl>(member->getMemberDecl());
    if (!field || !field->getIdentifier())
      return std::nullopt;
    path = field->getName().str() + (path.empty() ? "" : ".") + path;
    e = member->getBase()->IgnoreParenImpCasts();
    if (member->isArrow())
      break;
  }
  const auto *base = dyn_cast<ExplicitCastExpr>(e);
  if (!base || !base->getType()->isPointerType() ||
      !base->getSubExpr()->isNullPointerConstant(ctx, Expr::NPC_ValueDependentIsNotNull))
    return std::nullopt;
  return path;
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
    if (const auto *cast = dyn_cast<ExplicitCastExpr>(e);
        cast && cast->getType()->isPointerType() && cast->getSubExpr()->getType()->isIntegerType()) {
      // (T *)((uintptr_t)p - offsetof(T, m)), PipeWire's SPA_CONTAINER_OF(); any other integer
      // made into a pointer ((void *)(intptr_t)fd) is read as before, as the integer's place.
      const auto *subtraction = dyn_cast<BinaryOperator>(cast->getSubExpr()->IgnoreParens());
      if (subtraction && subtraction->getOpcode() == BO_Sub)
        if (std::optional<Id> container = containerOf(subtraction))
          return container;
      break;
    }
    if (const auto *statements = dyn_cast<StmtExpr>(e)) {
      // ({ const typeof(...) *__mptr = (p); (T *)((char *)__mptr - offsetof(T, m)); }): the
      // kernel's and systemd's container_of(); the value is the last statement's. Its locals are
      // extracted with the rest of the body, so __mptr holds p. Only that shape: following every
      // pointer a statement expression gives (move_ptr(), TAKE_PTR(), newa()) made a false
      // finding on the corpus's test half (docs/accuracy.md), so those stay unfollowed, as before.
      const CompoundStmt *body = statements->getSubStmt();
      const auto *last = body && !body->body_empty() ? dyn_cast<Expr>(body->body_back()) : nullptr;
      const auto *subtraction = last ? dyn_cast<BinaryOperator>(last->IgnoreParenCasts()) : nullptr;
      if (!subtraction || subtraction->getOpcode() != BO_Sub || !offsetMemberPath(subtraction->getRHS(), Ctx))
        return std::nullopt;
      e = last;
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
  if (const auto *binary = dyn_cast<BinaryOperator>(e); binary && binary->getOpcode() == BO_Sub)
    if (std::optional<Id> container = containerOf(binary))
      return container;
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

// container_of(p, T, member) as its macros expand: (char *)p - offsetof(T, member). The value is
// the address of the object of which p points to the member (facts::ContainerOf); an offset the
// member path does not name (an array element's) stays what it was, p itself.
std::optional<Id> Extractor::containerOf(const BinaryOperator *subtraction) {
  std::optional<std::string> member = offsetMemberPath(subtraction->getRHS(), Ctx);
  // The pointer side as char * or as an integer ((uintptr_t)p); both hold p's address.
  const Expr *pointerSide = subtraction->getLHS();
  if (!pointerSide->getType()->isPointerType())
    pointerSide = pointerSide->IgnoreParenCasts();
  if (!member || member->empty() || !pointerSide->getType()->isPointerType())
    return std::nullopt;
  std::optional<Id> pointer = pointerValue(pointerSide);
  if (!pointer)
    return std::nullopt;
  auto [file, offset] = expansionPosition(subtraction);
  std::string key = facts::valueKey("container_of(" + *member + ")", file, offset);
  bool fresh = PlaceIds.find(key) == PlaceIds.end();
  Id place = intern(key, facts::PlaceKind::Value, "container_of(" + *member + ")", functionId(currentFunction()));
  if (fresh)
    U.containers.push_back({place, *pointer, *member});
  return place;
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
      addFlow(memberPlace(from, facts::kCallableMember, kNone), memberPlace(to, facts::kCallableMember, kNone), kind);
    if (*modelled == ModelledRecord::Transparent || *modelled == ModelledRecord::SmartPointer)
      addFlow(from, to, kind);
    return;
  }
  // A std::pair (a map's element, insert({key, value})): its first and second, named as the map's
  // elements name them.
  if (isStdNamed(record, {"pair"})) {
    for (const FieldDecl *field : record->fields()) {
      if (!field->getIdentifier() || (field->getName() != "first" && field->getName() != "second"))
        continue;
      Id a = memberPlace(from, field->getName(), kNone), b = memberPlace(to, field->getName(), kNone);
      if (followed(field->getType()))
        addFlow(a, b, kind);
      else if (isObjectType(field->getType()))
        copyObject(a, b, field->getType(), kind, depth + 1);
    }
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

// memcpy(dst, src, n) of an object: *dst = *src, field by field, as the record either pointer is
// written with says (the destination's first: memcpy(sa, &sin6, len) into a struct sockaddr *).
// Conservative: n is not read, so a partial copy copies every field.
void Extractor::copyPointee(const Expr *source, const Expr *destination) {
  auto pointee = [](const Expr *pointer) {
    QualType type = pointer->IgnoreParenImpCasts()->getType();
    const auto *p = type->getAs<PointerType>();
    return p ? p->getPointeeType() : QualType();
  };
  QualType type = pointee(destination);
  if (type.isNull() || !isObjectType(type))
    type = pointee(source);
  if (type.isNull() || !isObjectType(type))
    return;
  std::optional<Id> from = pointerValue(source), to = pointerValue(destination);
  if (from && to)
    copyObject(derefPlace(*from), derefPlace(*to), type, facts::FlowKind::Assign);
}

// std::get<0>(p), std::get<1>(p) of a std::pair (how `auto &[key, value] : map` reads its
// element): the pair's first or second, the places a map's key and value are kept in.
std::optional<Id> Extractor::pairPart(const CallExpr *call, const FunctionDecl *callee) {
  if (!isStdNamed(callee, {"get"}) || call->getNumArgs() != 1)
    return std::nullopt;
  const auto *pair = call->getArg(0)->getType().getNonReferenceType()->getAsCXXRecordDecl();
  const TemplateArgumentList *targs = callee->getTemplateSpecializationArgs();
  if (!pair || !isStdNamed(pair, {"pair"}) || !targs ||
      targs->size() < 1 || targs->get(0).getKind() != TemplateArgument::Integral)
    return std::nullopt;
  std::optional<Id> object = placeOf(call->getArg(0));
  if (!object)
    return std::nullopt;
  return memberPlace(*object, targs->get(0).getAsIntegral() == 0 ? "first" : "second", kNone);
}

Id Extractor::indirectValue(const CallExpr *call) {
  auto [file, offset] = expansionPosition(call);
  return intern(facts::indirectValueKey(file, offset),
                facts::PlaceKind::Value, sourceText(call->getCallee(), Ctx) + "()",
                functionId(currentFunction()));
}

std::optional<Id> Extractor::modelledValue(const CallExpr *call, const CXXMethodDecl *method) {
  const Expr *objectExpr = nullptr;
  if (const auto *member = dyn_cast<CXXMemberCallExpr>(call))
    objectExpr = member->getImplicitObjectArgument();
  else if (call->getNumArgs() >= 1)
    objectExpr = call->getArg(0);
  if (!objectExpr)
    return std::nullopt;
  // The object's own class first: libstdc++ declares shared_ptr's operator-> and get() in its
  // bases (__shared_ptr_access, __shared_ptr), which are not the modelled name.
  std::optional<ModelledRecord> modelled = modelledRecord(objectExpr->IgnoreParenImpCasts()->getType());
  if (!modelled)
    modelled = modelledRecord(Ctx.getRecordType(method->getParent()));
  if (!modelled)
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
    bool map = isKeyedContainer(method->getParent());
    std::optional<std::int64_t> index;
    if (kind == OO_Subscript && call->getNumArgs() >= 2)
      index = evalInt(call->getArg(1), Ctx);
    if (kind == OO_Subscript || name == "at" || name == "front" || name == "back") {
      Id item = element(*object, container == "array" && index && *index >= 0 ? static_cast<int>(*index) : -1);
      return map ? memberPlace(item, "second", kNone) : item;
    }
    const ContainerClass *model = containerModel(method->getParent());
    if (const CXXRecordDecl *own = objectExpr->IgnoreParenImpCasts()->getType()->getAsCXXRecordDecl(); own && !model)
      model = containerModel(own);
    if (name == "data" || (model && llvm::is_contained(model->data, name))) {
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
  // std::find_if(first, last, pred) and the other algorithms that return an iterator into the
  // range they are given (or std::next(it)): an iterator as `first` is, into the same elements.
  // (Not std::ranges' function objects, which take the range itself.)
  if (isStdNamed(callee, {"find", "find_if", "find_if_not", "find_end", "find_first_of", "adjacent_find", "search",
                          "search_n", "lower_bound", "upper_bound", "partition_point", "min_element",
                          "max_element", "is_sorted_until", "is_heap_until", "remove", "remove_if", "unique",
                          "partition", "stable_partition", "next", "prev"}) &&
      call->getNumArgs() >= 1 && !callee->isCXXClassMember() &&
      call->getType().getCanonicalType().getUnqualifiedType() ==
          call->getArg(0)->getType().getCanonicalType().getUnqualifiedType())
    return placeOf(call->getArg(0));
  // std::exchange(other.fd_, -1) in a move constructor: what the first argument held. (The new
  // value stored back is a constant: nothing to follow.)
  if (isStdNamed(callee, {"exchange"}) && call->getNumArgs() == 2)
    return placeOf(call->getArg(0));
  if (std::optional<Id> part = pairPart(call, callee))
    return part;
  if (const auto *method = dyn_cast<CXXMethodDecl>(callee))
    if (std::optional<Id> modelled = modelledValue(call, method))
      return modelled;
  // std::make_pair(key, value): a pair of its own holding them.
  if (isStdNamed(callee, {"make_pair"}) && call->getNumArgs() == 2 && isObjectType(call->getType())) {
    Id pair = newObject(call, "t", "make_pair()");
    storeInto(call->getArg(0), memberPlace(pair, "first", kNone), facts::FlowKind::Init);
    storeInto(call->getArg(1), memberPlace(pair, "second", kNone), facts::FlowKind::Init);
    return pair;
  }
  if (isStdNamed(callee, {"make_unique", "make_shared", "allocate_shared"}))
    if (std::optional<Id> object = forwardedObject(call, callee))
      return addressOf(*object); // a smart pointer holding the new object's address
  // shared_from_this(), weak_from_this(): a smart pointer holding the object's own address
  // (a session's `self`, captured by the handlers it hands a library).
  // (A member's own context is its class: the class is std's.)
  if (const auto *member = dyn_cast<CXXMemberCallExpr>(call);
      member && member->getMethodDecl() && callee->getIdentifier() &&
      isStdNamed(member->getMethodDecl()->getParent(), {"enable_shared_from_this"}) &&
      (callee->getName() == "shared_from_this" || callee->getName() == "weak_from_this"))
    return pointerValue(member->getImplicitObjectArgument());
  if (callee->getIdentifier() && allocates(callee)) {
    // A heap object of its own, per allocation.
    Id object = newObject(call, "h", callee->getNameAsString() + "()" +
                                         inFunctionText(currentFunction()));
    return addressOf(object);
  }
  llvm::StringRef name = callee->getIdentifier() ? callee->getName() : "";
  bool api = isSocketApi(callee);
  const FunctionDecl *fn = currentFunction();
  std::string where = inFunctionText(fn);
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
    if (create.family == facts::Family::Unknown && create.familyParam < 0)
      create.familyFrom = placeOf(call->getArg(0)).value_or(kNone);
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
    auto [file, offset] = expansionPosition(call);
    Id place =
        intern(facts::valueKey(name.str(), file, offset), facts::PlaceKind::Value, name.str() + "()", functionId(fn));
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
    const SocketMaker &maker = producer->getValue();
    facts::Create create;
    create.how = facts::CreateHow::Producer;
    create.family = maker.family;
    create.familyName = maker.familyName;
    create.type = maker.type;
    if (maker.typeArg >= 0 && static_cast<unsigned>(maker.typeArg) < call->getNumArgs()) {
      const Expr *type = call->getArg(maker.typeArg);
      if (std::optional<std::int64_t> value = evalInt(type, Ctx))
        create.type = static_cast<int>(*value & kSockTypeMask);
      else
        create.typeParam = parameterValue(type);
    }
    create.origin = name.str() + "()" + where;
    return createValue(call, std::move(create), name.str());
  }
  if (api && returnsNonSocketFd(name)) {
    facts::Create create;
    create.how = facts::CreateHow::NotSocket;
    create.origin = name.str() + "()" + where;
    return createValue(call, std::move(create), name.str());
  }
  for (const FdHolder &holder : Options.fdHolders) {
    if (name == holder.load && holder.outArg < 0)
      return heldFd(call, holder);
    if (name == holder.store && holder.holderArg < 0)
      if (std::optional<Id> object = storedHolder(call, holder))
        return addressOf(*object);
  }
  QualType type = callee->getReturnType();
  bool object = isObjectType(type) && !type->isReferenceType();
  if (!holdsFd(call->getType()) && !holdsFd(type) && !carriesAddress(type) && !pointsToFds(type) && !object)
    return std::nullopt;
  if (declaredInSystemHeader(callee, SM) && !holdsFd(type))
    return std::nullopt; // a library's pointer or struct: nothing the program put there
  // The value of this call, fed by the callee's return: a place of its own, so that the link can
  // give a function that only hands back an fd it was given (fd_move_above_stdio(fd)) each
  // caller's own fd instead of every caller's.
  Id ret = returnPlace(callee);
  auto [file, offset] = expansionPosition(call);
  Id value = intern(facts::callValueKey(U.functions[functionId(callee)].key, file, offset), facts::PlaceKind::Value,
                    callee->getNameAsString() + "()", functionId(fn));
  if (object)
    copyObject(ret, value, type, facts::FlowKind::Return); // a struct returned by value
  else
    addFlow(ret, value, facts::FlowKind::Return);
  if (type->isReferenceType() && isObjectType(type))
    return derefPlace(value); // T &get(): the object the returned address names
  return value;
}

// The fds a pointer to fds (or an fd array) points to, into `target`: a container's elements
// handed over (storeElementsHandedOver), a pointer stored (int *p = fds, data_(data)). Precision
// lost: of a plain array only the elements a socketpair() fills ([0], [1]) and those at an
// unknown index ([*]) are taken.
void Extractor::pointedFdsInto(const Expr *pointer, Id target, facts::FlowKind kind) {
  // A pointer to one value (&fd, std::span<const int>(&fd, 1), &fds[1] of a std::array) hands
  // over that value; a builtin array's &a[i] is stripped to the array by arrayBase().
  const Expr *base = arrayBase(pointer);
  if (const auto *address = dyn_cast_or_null<UnaryOperator>(base);
      address && address->getOpcode() == UO_AddrOf && holdsFd(address->getSubExpr()->getType())) {
    storeInto(address->getSubExpr(), target, kind);
    return;
  }
  std::optional<Id> from = placeOf(base);
  if (!from)
    return;
  // What it holds itself: another pointer to fds (a local, a field, a call's value), or v.data(),
  // the elements already.
  const facts::Place &source = U.places[*from];
  addFlow(*from, target, kind, !(source.kind == facts::PlaceKind::Element && source.index < 0));
  if (source.kind == facts::PlaceKind::Element)
    return;
  for (int index : {0, 1, -1})
    addFlow(element(*from, index), target, kind, index >= 0);
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
  // UniqueFd fd; or UniqueFd fd(-1): no fd yet. Nor has a library owner made with nothing its
  // model says makes its socket (stream_protocol::socket peer(io), filled by acceptor.accept(peer)).
  if (const auto *construct = dyn_cast<CXXConstructExpr>(e); construct && isFdOwnerType(construct->getType())) {
    if (construct->getNumArgs() == 0 || isa<CXXDefaultArgExpr>(construct->getArg(0)))
      return;
    const FdOwnerModel *model = ownerModel(construct->getType());
    if (model && !constructorEffect(construct, *model) &&
        llvm::none_of(construct->arguments(), [&](const Expr *arg) { return holdsFd(arg->getType()); }))
      return;
  }
  // An fd array's value is the address of its elements (int *p = fds, {fds, 2} into a pointer
  // field, the implicit decay looked through).
  const ArrayType *array = e->getType()->getAsArrayTypeUnsafe();
  if (pointsToFds(value->getType()) || pointsToFds(e->getType()) ||
      (array && isFdValueType(array->getElementType(), Ctx))) {
    pointedFdsInto(e, *target, kind);
    return;
  }
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


} // namespace afunix::analysis::extraction
