#include "SocketModel.h"

#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Analysis/Analyses/Dominators.h"
#include "clang/Analysis/CFG.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <deque>

using namespace clang::ast_matchers;

namespace clang::tidy::afunix {

// ---------------------------------------------------------------------------------------------
// Names

llvm::StringRef optionName(SockOption option) {
  switch (option) {
  case SockOption::PassCred:
    return "SO_PASSCRED";
  case SockOption::PassSec:
    return "SO_PASSSEC";
  case SockOption::PassPidfd:
    return "SO_PASSPIDFD";
  }
  return "?";
}

llvm::StringRef familyName(Family family) {
  switch (family) {
  case Family::Unknown:
    return "unknown";
  case Family::Unix:
    return "AF_UNIX";
  case Family::Netlink:
    return "AF_NETLINK";
  case Family::Bluetooth:
    return "AF_BLUETOOTH";
  case Family::Inet:
    return "AF_INET";
  case Family::Inet6:
    return "AF_INET6";
  case Family::Other:
    return "other";
  }
  return "?";
}

llvm::StringRef createHowName(CreateHow how) {
  switch (how) {
  case CreateHow::Socket:
    return "socket";
  case CreateHow::Socketpair:
    return "socketpair";
  case CreateHow::Accept:
    return "accept";
  case CreateHow::Producer:
    return "producer";
  case CreateHow::External:
    return "external";
  case CreateHow::Parameter:
    return "parameter";
  case CreateHow::Unknown:
    return "unknown";
  }
  return "?";
}

static Family familyFromValue(int64_t value) {
  switch (value) {
  case 1: // AF_UNIX == AF_LOCAL
    return Family::Unix;
  case 16:
    return Family::Netlink;
  case 31:
    return Family::Bluetooth;
  case 2:
    return Family::Inet;
  case 10:
    return Family::Inet6;
  default:
    return Family::Other;
  }
}

static std::optional<Family> familyFromName(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<Family>>(name)
      .Cases("AF_UNIX", "AF_LOCAL", "PF_UNIX", "PF_LOCAL", Family::Unix)
      .Cases("AF_NETLINK", "PF_NETLINK", Family::Netlink)
      .Cases("AF_BLUETOOTH", "PF_BLUETOOTH", Family::Bluetooth)
      .Cases("AF_INET", "PF_INET", Family::Inet)
      .Cases("AF_INET6", "PF_INET6", Family::Inet6)
      .Default(std::nullopt);
}

// ---------------------------------------------------------------------------------------------
// Configuration

ModelConfig ModelConfig::parse(llvm::StringRef producers, llvm::StringRef wrappers,
                               llvm::StringRef externals) {
  ModelConfig config;
  llvm::SmallVector<llvm::StringRef> items;
  producers.split(items, ';', -1, false);
  for (llvm::StringRef item : items) {
    auto [name, family] = item.trim().split(':');
    if (!name.trim().empty())
      config.socketProducers[name.trim()] = family.trim().empty() ? "AF_UNIX" : family.trim().str();
  }
  items.clear();
  wrappers.split(items, ';', -1, false);
  for (llvm::StringRef item : items) {
    auto [name, option] = item.trim().split(':');
    SockOption which = llvm::StringSwitch<SockOption>(option.trim())
                           .Case("SO_PASSSEC", SockOption::PassSec)
                           .Case("SO_PASSPIDFD", SockOption::PassPidfd)
                           .Default(SockOption::PassCred);
    if (!name.trim().empty())
      config.optionWrappers[name.trim()] = which;
  }
  items.clear();
  externals.split(items, ';', -1, false);
  for (llvm::StringRef item : items)
    if (!item.trim().empty())
      config.externalSources.push_back(item.trim().str());
  return config;
}

std::string ModelConfig::fingerprint() const {
  std::vector<std::string> parts;
  for (const auto &entry : socketProducers)
    parts.push_back("p:" + entry.getKey().str() + ":" + entry.getValue());
  for (const auto &entry : optionWrappers)
    parts.push_back("w:" + entry.getKey().str() + ":" + optionName(entry.getValue()).str());
  for (const auto &name : externalSources)
    parts.push_back("e:" + name);
  std::sort(parts.begin(), parts.end());
  std::string out;
  for (const auto &part : parts)
    out += part + ";";
  return out;
}

// ---------------------------------------------------------------------------------------------
// Expression helpers

namespace {

const Expr *strip(const Expr *expr) {
  while (expr) {
    expr = expr->IgnoreParenImpCasts();
    // (int)fd and friends keep the value; casts to pointers do not denote an fd.
    if (const auto *cast = dyn_cast<ExplicitCastExpr>(expr)) {
      if (cast->getType()->isIntegerType()) {
        expr = cast->getSubExpr();
        continue;
      }
    }
    return expr;
  }
  return expr;
}

// Every macro name whose expansion produced `loc`, innermost first (AF_UNIX -> PF_UNIX ->
// PF_LOCAL for glibc's chain).
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

// The name a constant is spelled with: an enumerator (glibc's SCM_CREDENTIALS, SOCK_DGRAM) or
// any macro in its expansion chain.
bool spelledAs(const Expr *expr, llvm::ArrayRef<llvm::StringRef> wanted, ASTContext &ctx,
               llvm::StringRef *found = nullptr) {
  if (!expr)
    return false;
  const Expr *bare = expr->IgnoreParenImpCasts();
  if (const auto *ref = dyn_cast<DeclRefExpr>(bare))
    if (const auto *enumerator = dyn_cast<EnumConstantDecl>(ref->getDecl()))
      for (llvm::StringRef name : wanted)
        if (enumerator->getName() == name) {
          if (found)
            *found = name;
          return true;
        }
  for (SourceLocation loc : {expr->getBeginLoc(), bare->getBeginLoc()})
    for (llvm::StringRef macro : macroNames(loc, ctx.getSourceManager(), ctx.getLangOpts()))
      for (llvm::StringRef name : wanted)
        if (macro == name) {
          if (found)
            *found = name;
          return true;
        }
  return false;
}

std::optional<int64_t> evalInt(const Expr *expr, ASTContext &ctx) {
  if (!expr || expr->isValueDependent() || expr->isTypeDependent())
    return std::nullopt;
  Expr::EvalResult result;
  if (expr->EvaluateAsInt(result, ctx))
    return result.Val.getInt().getExtValue();
  return std::nullopt;
}

std::string sourceText(const Expr *expr, ASTContext &ctx) {
  if (!expr)
    return "";
  const SourceManager &sm = ctx.getSourceManager();
  CharSourceRange range = CharSourceRange::getTokenRange(expr->getSourceRange());
  range = Lexer::makeFileCharRange(range, sm, ctx.getLangOpts());
  if (range.isValid()) {
    llvm::StringRef text = Lexer::getSourceText(range, sm, ctx.getLangOpts());
    if (!text.empty())
      return text.str();
  }
  if (const auto *ref = dyn_cast<DeclRefExpr>(strip(expr)))
    return ref->getDecl()->getNameAsString();
  return "<expr>";
}

std::string functionKey(const FunctionDecl *function) {
  if (!function)
    return "<file>";
  return function->getQualifiedNameAsString();
}

std::string recordName(const RecordDecl *record) {
  if (!record)
    return "<record>";
  if (!record->getName().empty())
    return record->getQualifiedNameAsString();
  if (const TypedefNameDecl *alias = record->getTypedefNameForAnonDecl())
    return alias->getQualifiedNameAsString();
  return "<anonymous>";
}

bool isSocketApi(const FunctionDecl *callee) {
  // Free functions only: std::bind and member functions called bind() are not the socket API.
  if (!callee || isa<CXXMethodDecl>(callee))
    return false;
  const DeclContext *context = callee->getDeclContext()->getRedeclContext();
  return context->isTranslationUnit() || callee->isExternC();
}

bool typeIsRecordNamed(QualType type, llvm::StringRef name) {
  if (type.isNull())
    return false;
  if (const auto *pointer = type->getAs<PointerType>())
    type = pointer->getPointeeType();
  const RecordDecl *record = type->getAsRecordDecl();
  return record && record->getName() == name;
}

// Whether `expr` (or a subexpression) is a struct cmsghdr pointer/object: CMSG_DATA(c) expands to
// an expression over the cmsghdr.
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

// Whether an `if`/switch/?: condition around a statement tests the socket's family.
bool conditionTestsFamily(const Stmt *cond, ASTContext &ctx) {
  if (!cond)
    return false;
  static const llvm::StringRef names[] = {"AF_UNIX",  "AF_LOCAL",   "PF_UNIX", "PF_LOCAL",
                                          "AF_NETLINK", "AF_BLUETOOTH", "SO_DOMAIN"};
  if (const auto *expr = dyn_cast<Expr>(cond))
    if (spelledAs(expr, names, ctx))
      return true;
  for (const Stmt *child : cond->children())
    if (conditionTestsFamily(child, ctx))
      return true;
  return false;
}

} // namespace

// ---------------------------------------------------------------------------------------------
// Locations

SocketModel::SocketModel(ASTContext &context, const ModelConfig &config)
    : Ctx(&context), Config(config) {}
SocketModel::~SocketModel() = default;

LocId SocketModel::intern(LocKind kind, std::string key, std::string name, const Decl *decl,
                          const FunctionDecl *function, unsigned index, LocId base) {
  auto it = ByKey.find(key);
  if (it != ByKey.end())
    return it->second;
  LocId id = Locations.size();
  SocketLocation location;
  location.kind = kind;
  location.key = key;
  location.name = std::move(name);
  location.decl = decl;
  location.function = function;
  location.index = index;
  location.base = base;
  Locations.push_back(std::move(location));
  ByKey[key] = id;
  return id;
}

std::optional<LocId> SocketModel::varLocation(const VarDecl *var) {
  const SourceManager &sm = Ctx->getSourceManager();
  if (const auto *param = dyn_cast<ParmVarDecl>(var)) {
    const auto *owner = dyn_cast_or_null<FunctionDecl>(param->getDeclContext());
    if (!owner)
      return std::nullopt;
    // Keyed by the definition so a prototype's and the body's parameters are one place.
    const FunctionDecl *definition = owner->getDefinition() ? owner->getDefinition() : owner;
    unsigned index = param->getFunctionScopeIndex();
    const ParmVarDecl *named = index < definition->getNumParams() ? definition->getParamDecl(index) : param;
    return intern(LocKind::Param, "param:" + functionKey(definition) + "#" + std::to_string(index),
                  named->getNameAsString(), named, definition, index);
  }
  if (var->isLocalVarDecl() && !var->isStaticLocal()) {
    const auto *owner = dyn_cast_or_null<FunctionDecl>(var->getParentFunctionOrMethod());
    return intern(LocKind::Local,
                  "local:" + functionKey(owner) + ":" + var->getNameAsString() + "@" +
                      std::to_string(sm.getFileOffset(sm.getExpansionLoc(var->getLocation()))),
                  var->getNameAsString(), var, owner);
  }
  return intern(LocKind::Global, "global:" + var->getQualifiedNameAsString(),
                var->getNameAsString(), var, nullptr);
}

std::optional<LocId> SocketModel::locationOf(const Expr *expr, const FunctionDecl *function) {
  expr = strip(expr);
  if (!expr)
    return std::nullopt;
  const SourceManager &sm = Ctx->getSourceManager();

  if (const auto *ref = dyn_cast<DeclRefExpr>(expr)) {
    if (const auto *var = dyn_cast<VarDecl>(ref->getDecl()))
      return varLocation(var);
    return std::nullopt;
  }

  if (const auto *member = dyn_cast<MemberExpr>(expr)) {
    if (const auto *field = dyn_cast<FieldDecl>(member->getMemberDecl()))
      return intern(LocKind::Field, "field:" + recordName(field->getParent()) + "::" +
                                        field->getNameAsString(),
                    field->getNameAsString(), field, nullptr);
    return std::nullopt;
  }

  // *out is out[0]: the fd a pointer (an out-parameter, a field's address) points at.
  if (const auto *unary = dyn_cast<UnaryOperator>(expr); unary && unary->getOpcode() == UO_Deref) {
    std::optional<LocId> base = locationOf(unary->getSubExpr(), function);
    if (!base)
      return std::nullopt;
    return intern(LocKind::Element, Locations[*base].key + "[0]", "*" + Locations[*base].name,
                  Locations[*base].decl, function, 0, *base);
  }

  if (const auto *subscript = dyn_cast<ArraySubscriptExpr>(expr)) {
    std::optional<int64_t> index = evalInt(subscript->getIdx(), *Ctx);
    if (!index || *index < 0)
      return std::nullopt; // sv[i]: which element is unknown
    std::optional<LocId> base = locationOf(subscript->getBase(), function);
    if (!base)
      return std::nullopt;
    std::string key = Locations[*base].key + "[" + std::to_string(*index) + "]";
    std::string name = Locations[*base].name + "[" + std::to_string(*index) + "]";
    return intern(LocKind::Element, key, name, Locations[*base].decl, function, *index, *base);
  }

  if (const auto *call = dyn_cast<CallExpr>(expr)) {
    const FunctionDecl *callee = call->getDirectCallee();
    if (!callee)
      return std::nullopt;
    llvm::StringRef name = callee->getName();
    std::string at = std::to_string(sm.getFileOffset(sm.getExpansionLoc(call->getBeginLoc())));
    auto makeSite = [&](CreateFact fact) {
      std::string key = "site:" + name.str() + "@" + at;
      bool fresh = ByKey.find(key) == ByKey.end();
      LocId id = intern(LocKind::CallSite, key, name.str() + "()", callee, function);
      if (fresh) {
        fact.loc = id;
        fact.site.expr = call;
        fact.site.function = function;
        fact.site.loc = sm.getExpansionLoc(call->getBeginLoc());
        addCreate(std::move(fact));
      }
      return id;
    };
    std::string where = function ? " in " + function->getNameAsString() + "()" : "";
    if (isSocketApi(callee) && name == "socket" && call->getNumArgs() >= 2) {
      CreateFact fact;
      fact.how = CreateHow::Socket;
      llvm::StringRef spelled;
      static const llvm::StringRef families[] = {
          "AF_UNIX", "AF_LOCAL", "PF_UNIX", "PF_LOCAL", "AF_NETLINK", "PF_NETLINK", "AF_BLUETOOTH",
          "PF_BLUETOOTH", "AF_INET", "PF_INET", "AF_INET6", "PF_INET6"};
      if (std::optional<int64_t> value = evalInt(call->getArg(0), *Ctx)) {
        fact.family = familyFromValue(*value);
        if (spelledAs(call->getArg(0), families, *Ctx, &spelled) &&
            familyFromName(spelled) == fact.family)
          fact.familyName = spelled.str();
        else if (fact.family == Family::Other)
          fact.familyName = sourceText(call->getArg(0), *Ctx);
        else
          fact.familyName = familyName(fact.family).str();
        // macroNames is innermost first; prefer what the user wrote (the outermost).
        llvm::SmallVector<llvm::StringRef, 4> chain =
            macroNames(call->getArg(0)->getBeginLoc(), sm, Ctx->getLangOpts());
        for (auto it = chain.rbegin(); it != chain.rend(); ++it)
          if (familyFromName(*it) == fact.family) {
            fact.familyName = it->str();
            break;
          }
      }
      if (std::optional<int64_t> type = evalInt(call->getArg(1), *Ctx))
        fact.type = static_cast<int>(*type & 0xf); // SOCK_TYPE_MASK: drop SOCK_CLOEXEC etc.
      fact.origin = "socket()" + where;
      return makeSite(std::move(fact));
    }
    if (isSocketApi(callee) && (name == "accept" || name == "accept4") && call->getNumArgs() >= 1) {
      CreateFact fact;
      fact.how = CreateHow::Accept;
      if (std::optional<LocId> listener = locationOf(call->getArg(0), function))
        fact.listener = *listener;
      fact.origin = name.str() + "()" + where;
      return makeSite(std::move(fact));
    }
    if (name == "android_get_control_socket" ||
        llvm::is_contained(Config.externalSources, name.str())) {
      CreateFact fact;
      fact.how = CreateHow::External;
      fact.origin = name.str() + "()";
      return makeSite(std::move(fact));
    }
    auto producer = Config.socketProducers.find(name);
    if (producer != Config.socketProducers.end()) {
      CreateFact fact;
      fact.how = CreateHow::Producer;
      fact.family = familyFromName(producer->getValue()).value_or(Family::Other);
      fact.familyName = producer->getValue();
      fact.origin = name.str() + "()" + where;
      return makeSite(std::move(fact));
    }
    // Any other call: its return value (shared by every call of that function).
    const FunctionDecl *definition = callee->getDefinition();
    const FunctionDecl *owner = definition ? definition : callee;
    return intern(LocKind::Return, "ret:" + functionKey(owner), name.str() + "()", owner, owner);
  }

  // An inherited fd spelled as a constant: SD_LISTEN_FDS_START (+ n), or a literal >= 3.
  static const llvm::StringRef activation[] = {"SD_LISTEN_FDS_START"};
  bool activated = false;
  if (const auto *binary = dyn_cast<BinaryOperator>(expr)) {
    if (binary->getOpcode() == BO_Add)
      activated = spelledAs(binary->getLHS(), activation, *Ctx) ||
                  spelledAs(binary->getRHS(), activation, *Ctx);
  } else {
    activated = spelledAs(expr, activation, *Ctx);
  }
  std::optional<int64_t> value = evalInt(expr, *Ctx);
  if (activated || (value && *value >= 3 && isa<IntegerLiteral>(expr))) {
    std::string text = activated ? sourceText(expr, *Ctx) : "fd " + std::to_string(*value);
    std::string key = "const:" + text;
    bool fresh = ByKey.find(key) == ByKey.end();
    LocId id = intern(LocKind::CallSite, key, text, nullptr, nullptr);
    if (fresh) {
      CreateFact fact;
      fact.loc = id;
      fact.how = CreateHow::External;
      fact.site.expr = expr;
      fact.site.function = function;
      fact.site.loc = sm.getExpansionLoc(expr->getBeginLoc());
      fact.origin = activated ? "socket activation, " + text : "inherited " + text;
      addCreate(std::move(fact));
    }
    return id;
  }
  return std::nullopt;
}

unsigned SocketModel::addCreate(CreateFact fact) {
  Creates.push_back(std::move(fact));
  return Creates.size() - 1;
}

void SocketModel::addFlow(LocId from, LocId to, FlowKind kind, SourceLocation loc) {
  if (from == kNoLoc || to == kNoLoc || from == to)
    return;
  FlowEdge edge;
  edge.from = from;
  edge.to = to;
  edge.kind = kind;
  edge.loc = loc;
  Flows.push_back(edge);
}

// ---------------------------------------------------------------------------------------------
// Extraction

class ModelBuilder : public MatchFinder::MatchCallback {
public:
  explicit ModelBuilder(SocketModel &model) : Model(model), Ctx(model.context()) {}

  void registerMatchers(MatchFinder &finder) {
    auto inFunction = forCallable(functionDecl().bind("fn"));
    finder.addMatcher(callExpr(callee(functionDecl().bind("callee")), optionally(inFunction))
                          .bind("call"),
                      this);
    finder.addMatcher(varDecl(hasInitializer(expr().bind("init")),
                              optionally(hasAncestor(functionDecl().bind("fn"))))
                          .bind("var"),
                      this);
    finder.addMatcher(binaryOperator(isAssignmentOperator(), hasOperatorName("="),
                                     optionally(inFunction))
                          .bind("assign"),
                      this);
    finder.addMatcher(returnStmt(hasReturnValue(expr().bind("value")), inFunction).bind("return"),
                      this);
    finder.addMatcher(
        cxxConstructorDecl(forEachConstructorInitializer(
                               cxxCtorInitializer(isMemberInitializer()).bind("ctorinit")))
            .bind("fn"),
        this);
    // Credential evidence: cmsg_type compared with SCM_CREDENTIALS, or struct ucred read out of
    // the control data.
    finder.addMatcher(
        binaryOperator(hasAnyOperatorName("==", "!="), inFunction).bind("compare"), this);
    finder.addMatcher(caseStmt(inFunction).bind("case"), this);
    finder.addMatcher(explicitCastExpr(inFunction).bind("cast"), this);
    // Functions whose address is taken have callers we cannot see.
    finder.addMatcher(declRefExpr(to(functionDecl().bind("referenced"))).bind("fnref"), this);
  }

  void run(const MatchFinder::MatchResult &result) override {
    const auto *fn = result.Nodes.getNodeAs<FunctionDecl>("fn");
    // Inline functions of system headers (__uint16_identity, __cmsg_nxthdr) are not the
    // program's sockets.
    const SourceManager &sm = Ctx.getSourceManager();
    if (fn && sm.isInSystemHeader(sm.getExpansionLoc(fn->getLocation())))
      return;
    if (const auto *var = result.Nodes.getNodeAs<VarDecl>("var");
        var && sm.isInSystemHeader(sm.getExpansionLoc(var->getLocation())))
      return;
    if (const auto *call = result.Nodes.getNodeAs<CallExpr>("call"))
      onCall(call, result.Nodes.getNodeAs<FunctionDecl>("callee"), fn);
    else if (const auto *var = result.Nodes.getNodeAs<VarDecl>("var"))
      onVarInit(var, result.Nodes.getNodeAs<Expr>("init"), fn);
    else if (const auto *assign = result.Nodes.getNodeAs<BinaryOperator>("assign"))
      flowInto(assign->getRHS(), Model.locationOf(assign->getLHS(), fn), FlowKind::Assign, fn,
               assign->getOperatorLoc());
    else if (const auto *ret = result.Nodes.getNodeAs<ReturnStmt>("return"))
      onReturn(ret, result.Nodes.getNodeAs<Expr>("value"), fn);
    else if (const auto *init = result.Nodes.getNodeAs<CXXCtorInitializer>("ctorinit"))
      onCtorInit(init, fn);
    else if (const auto *compare = result.Nodes.getNodeAs<BinaryOperator>("compare"))
      onCompare(compare, fn);
    else if (const auto *caseStmt = result.Nodes.getNodeAs<CaseStmt>("case"))
      onCase(caseStmt, fn);
    else if (const auto *cast = result.Nodes.getNodeAs<ExplicitCastExpr>("cast"))
      onCast(cast, fn);
    else if (const auto *ref = result.Nodes.getNodeAs<DeclRefExpr>("fnref"))
      AllFunctionRefs.push_back({ref, result.Nodes.getNodeAs<FunctionDecl>("referenced")});
  }

  void finish();

private:
  struct PendingRecv {
    const CallExpr *call;
    const FunctionDecl *fn;
  };

  static const FunctionDecl *canonicalDefinition(const FunctionDecl *fn) {
    if (!fn)
      return nullptr;
    if (const FunctionDecl *def = fn->getDefinition())
      return def;
    return fn->getCanonicalDecl();
  }

  Site siteOf(const CallExpr *call, const Expr *socketArg, const FunctionDecl *fn) {
    Site site;
    site.expr = call;
    site.function = fn;
    site.loc = Ctx.getSourceManager().getExpansionLoc(call->getBeginLoc());
    site.socketText = sourceText(socketArg, Ctx);
    return site;
  }

  // `value` is stored into `target`: an edge from value's location, through ?: and ','.
  void flowInto(const Expr *value, std::optional<LocId> target, FlowKind kind,
                const FunctionDecl *fn, SourceLocation loc) {
    if (!target || !value)
      return;
    value = strip(value);
    if (const auto *conditional = dyn_cast<ConditionalOperator>(value)) {
      flowInto(conditional->getTrueExpr(), target, kind, fn, loc);
      flowInto(conditional->getFalseExpr(), target, kind, fn, loc);
      return;
    }
    if (const auto *binary = dyn_cast<BinaryOperator>(value)) {
      if (binary->getOpcode() == BO_Comma) {
        flowInto(binary->getRHS(), target, kind, fn, loc);
        return;
      }
      if (binary->getOpcode() == BO_Assign) { // a = b = socket(...)
        flowInto(binary->getLHS(), target, kind, fn, loc);
        return;
      }
    }
    if (std::optional<LocId> from = Model.locationOf(value, fn)) {
      Model.addFlow(*from, *target, kind, loc);
      return;
    }
    // A value we cannot follow (fds[i], x + 1, a function pointer call). Small constants
    // (-1, 0) are "no socket yet", not an origin.
    std::optional<int64_t> constant = evalInt(value, Ctx);
    if (!constant)
      UntrackedWrites.insert(*target);
  }

  void onVarInit(const VarDecl *var, const Expr *init, const FunctionDecl *fn) {
    if (isa<ParmVarDecl>(var) || !var->getType()->isIntegerType())
      return;
    flowInto(init, Model.varLocation(var), FlowKind::Init, fn, var->getLocation());
  }

  void onCtorInit(const CXXCtorInitializer *init, const FunctionDecl *fn) {
    const FieldDecl *field = init->getMember();
    if (!field || !field->getType()->isIntegerType())
      return;
    std::optional<LocId> target = Model.intern(
        LocKind::Field, "field:" + recordName(field->getParent()) + "::" + field->getNameAsString(),
        field->getNameAsString(), field, nullptr);
    flowInto(init->getInit(), target, FlowKind::Init, fn, init->getSourceLocation());
  }

  void onReturn(const ReturnStmt *ret, const Expr *value, const FunctionDecl *fn) {
    if (!fn || !fn->getReturnType()->isIntegerType())
      return;
    const FunctionDecl *owner = canonicalDefinition(fn);
    LocId target = Model.intern(LocKind::Return, "ret:" + functionKey(owner),
                                owner->getNameAsString() + "()", owner, owner);
    flowInto(value, target, FlowKind::Return, fn, ret->getReturnLoc());
  }

  void onCall(const CallExpr *call, const FunctionDecl *callee, const FunctionDecl *fn);

  // f(&fd) / f(sv) into an `int *` parameter: the callee's *p / p[k] and the caller's fd / sv[k]
  // are the same places, written on either side (both directions, context-insensitive).
  void linkPointerArgument(const Expr *arg, const ParmVarDecl *param, const FunctionDecl *fn) {
    std::optional<LocId> paramLoc = Model.varLocation(param);
    if (!paramLoc)
      return;
    const Expr *bare = strip(arg);
    auto element = [&](LocId base, unsigned index) {
      const SocketLocation &b = Model.location(base);
      return Model.intern(LocKind::Element, b.key + "[" + std::to_string(index) + "]",
                          b.name + "[" + std::to_string(index) + "]", b.decl, b.function, index,
                          base);
    };
    auto link = [&](LocId a, LocId b) {
      Model.addFlow(a, b, FlowKind::Argument, arg->getBeginLoc());
      Model.addFlow(b, a, FlowKind::Argument, arg->getBeginLoc());
    };
    if (const auto *address = dyn_cast<UnaryOperator>(bare);
        address && address->getOpcode() == UO_AddrOf) {
      if (std::optional<LocId> target = Model.locationOf(address->getSubExpr(), fn))
        link(*target, element(*paramLoc, 0));
      return;
    }
    // An array (or pointer) passed on: its first two elements, the socketpair() ends.
    if (std::optional<LocId> array = Model.locationOf(bare, fn))
      for (unsigned index = 0; index < 2; ++index)
        link(element(*array, index), element(*paramLoc, index));
  }
  void onOptionCall(const CallExpr *call, const FunctionDecl *callee, const FunctionDecl *fn);
  bool familyGuarded(const Stmt *stmt);

  void onCompare(const BinaryOperator *compare, const FunctionDecl *fn) {
    static const llvm::StringRef names[] = {"SCM_CREDENTIALS"};
    if (spelledAs(compare->getLHS(), names, Ctx) || spelledAs(compare->getRHS(), names, Ctx))
      noteEvidence(fn, compare->getExprLoc());
  }
  void onCase(const CaseStmt *caseStmt, const FunctionDecl *fn) {
    static const llvm::StringRef names[] = {"SCM_CREDENTIALS"};
    if (spelledAs(caseStmt->getLHS(), names, Ctx))
      noteEvidence(fn, caseStmt->getBeginLoc());
  }
  void onCast(const ExplicitCastExpr *cast, const FunctionDecl *fn) {
    // (struct ucred *)CMSG_DATA(cmsg): the credentials read out of the control data.
    QualType type = cast->getTypeAsWritten();
    if (type->isPointerType() && typeIsRecordNamed(type, "ucred") &&
        mentionsCmsghdr(cast->getSubExpr()))
      noteEvidence(fn, cast->getBeginLoc());
  }
  void noteEvidence(const FunctionDecl *fn, SourceLocation loc) {
    fn = canonicalDefinition(fn);
    if (fn && !Evidence.count(fn))
      Evidence[fn] = loc;
  }

  SocketModel &Model;
  ASTContext &Ctx;
  std::vector<PendingRecv> Recvs;
  llvm::DenseMap<const FunctionDecl *, SourceLocation> Evidence;
  // caller -> callees that get the control data (a cmsghdr or msghdr pointer)
  llvm::DenseMap<const FunctionDecl *, llvm::SmallPtrSet<const FunctionDecl *, 4>> ControlCallees;
  llvm::DenseSet<const FunctionDecl *> HasCaller;
  llvm::DenseSet<const DeclRefExpr *> CalleeRefs;
  std::vector<std::pair<const DeclRefExpr *, const FunctionDecl *>> AllFunctionRefs;
  llvm::DenseSet<LocId> UntrackedWrites;
};

bool ModelBuilder::familyGuarded(const Stmt *stmt) {
  DynTypedNode node = DynTypedNode::create(*stmt);
  for (int depth = 0; depth < 32; ++depth) {
    auto parents = Ctx.getParents(node);
    if (parents.empty())
      return false;
    node = parents[0];
    if (const auto *ifStmt = node.get<IfStmt>()) {
      if (conditionTestsFamily(ifStmt->getCond(), Ctx))
        return true;
    } else if (const auto *conditional = node.get<ConditionalOperator>()) {
      if (conditionTestsFamily(conditional->getCond(), Ctx))
        return true;
    } else if (const auto *switchStmt = node.get<SwitchStmt>()) {
      if (conditionTestsFamily(switchStmt->getCond(), Ctx))
        return true;
    } else if (const auto *binary = node.get<BinaryOperator>()) {
      // family == AF_UNIX && setsockopt(...)
      if (binary->isLogicalOp() && conditionTestsFamily(binary->getLHS(), Ctx))
        return true;
    } else if (node.get<FunctionDecl>() || node.get<LambdaExpr>()) {
      return false;
    }
  }
  return false;
}

void ModelBuilder::onOptionCall(const CallExpr *call, const FunctionDecl *callee,
                                const FunctionDecl *fn) {
  static const llvm::StringRef optionNames[] = {"SO_PASSCRED", "SO_PASSSEC", "SO_PASSPIDFD"};
  llvm::StringRef name = callee->getName();
  bool isSetsockopt = isSocketApi(callee) && name == "setsockopt";
  auto wrapper = Model.config().optionWrappers.find(name);
  bool configured = wrapper != Model.config().optionWrappers.end();

  // Which argument names the option.
  int optionArg = -1;
  llvm::StringRef spelled;
  for (unsigned i = 0; i < call->getNumArgs(); ++i)
    if (spelledAs(call->getArg(i), optionNames, Ctx, &spelled)) {
      optionArg = static_cast<int>(i);
      break;
    }
  if (optionArg < 0 && !configured)
    return;
  // getsockopt() and getters read the option; they set nothing.
  if (!configured && name.contains_insensitive("get"))
    return;
  if (isSetsockopt && optionArg != 2)
    return;

  OptionFact fact;
  fact.throughWrapper = !isSetsockopt;
  if (optionArg >= 0) {
    fact.option = llvm::StringSwitch<SockOption>(spelled)
                      .Case("SO_PASSSEC", SockOption::PassSec)
                      .Case("SO_PASSPIDFD", SockOption::PassPidfd)
                      .Default(SockOption::PassCred);
  } else {
    fact.option = wrapper->getValue();
  }

  // The socket: setsockopt's first argument, or the first integer argument of a wrapper that is
  // not a constant and denotes a location.
  const Expr *socketArg = nullptr;
  std::optional<LocId> socketLoc;
  if (isSetsockopt) {
    socketArg = call->getArg(0);
    socketLoc = Model.locationOf(socketArg, fn);
  } else {
    for (unsigned i = 0; i < call->getNumArgs(); ++i) {
      if (static_cast<int>(i) == optionArg)
        continue;
      const Expr *arg = call->getArg(i);
      if (!arg->getType()->isIntegerType())
        continue;
      if ((socketLoc = Model.locationOf(arg, fn))) {
        socketArg = arg;
        break;
      }
    }
  }
  if (!socketLoc)
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
  fact.value = Tri::Maybe;
  if (!valueArg) {
    fact.value = Tri::True; // enable_passcred(fd): naming the option means turning it on
  } else {
    const Expr *value = strip(valueArg);
    // &one, &(int){1}, (void *)&one
    while (const auto *cast = dyn_cast<ExplicitCastExpr>(value))
      value = cast->getSubExpr()->IgnoreParenImpCasts();
    std::optional<int64_t> constant;
    if (const auto *address = dyn_cast<UnaryOperator>(value);
        address && address->getOpcode() == UO_AddrOf) {
      const Expr *target = address->getSubExpr()->IgnoreParenImpCasts();
      if (const auto *literal = dyn_cast<CompoundLiteralExpr>(target)) {
        constant = evalInt(literal->getInitializer(), Ctx);
        if (!constant)
          if (const auto *list = dyn_cast<InitListExpr>(literal->getInitializer()))
            if (list->getNumInits() == 1)
              constant = evalInt(list->getInit(0), Ctx);
      } else if (const auto *ref = dyn_cast<DeclRefExpr>(target)) {
        if (const auto *var = dyn_cast<VarDecl>(ref->getDecl()); var && var->getInit())
          constant = evalInt(var->getInit(), Ctx);
      }
    } else if (const auto *ref = dyn_cast<DeclRefExpr>(value)) {
      // int on[] = {1}; setsockopt(..., on, sizeof on)
      if (const auto *var = dyn_cast<VarDecl>(ref->getDecl());
          var && var->getType()->isArrayType() && var->getInit())
        if (const auto *list = dyn_cast<InitListExpr>(var->getInit()->IgnoreImplicit());
            list && list->getNumInits() >= 1)
          constant = evalInt(list->getInit(0), Ctx);
      if (!constant && value->getType()->isIntegerType())
        constant = evalInt(value, Ctx);
    } else if (value->getType()->isIntegerType() || value->getType()->isBooleanType()) {
      constant = evalInt(value, Ctx);
    }
    if (constant)
      fact.value = *constant ? Tri::True : Tri::False;
  }
  fact.loc = *socketLoc;
  fact.site = siteOf(call, socketArg, fn);
  fact.familyGuarded = familyGuarded(call);
  Model.Options.push_back(std::move(fact));
}

void ModelBuilder::onCall(const CallExpr *call, const FunctionDecl *callee,
                          const FunctionDecl *fn) {
  if (!callee)
    return;
  if (const auto *ref = dyn_cast<DeclRefExpr>(call->getCallee()->IgnoreParenImpCasts()))
    CalleeRefs.insert(ref);
  llvm::StringRef name = callee->getIdentifier() ? callee->getName() : "";
  bool api = isSocketApi(callee);

  // Creating calls intern their own site location (and fact), consumed or not.
  if (api && (name == "socket" || name == "accept" || name == "accept4"))
    Model.locationOf(call, fn);

  if (api && name == "socketpair" && call->getNumArgs() >= 4) {
    std::optional<LocId> array = Model.locationOf(call->getArg(3), fn);
    // A socketpair() whose fds land in an unknown array creates nothing we can follow.
    if (array) {
      LocId ends[2];
      for (unsigned i = 0; i < 2; ++i) {
        const SocketLocation &base = Model.location(*array);
        ends[i] = Model.intern(LocKind::Element, base.key + "[" + std::to_string(i) + "]",
                               base.name + "[" + std::to_string(i) + "]", base.decl, fn, i, *array);
      }
      unsigned first = 0;
      for (unsigned i = 0; i < 2; ++i) {
        CreateFact fact;
        fact.loc = ends[i];
        fact.how = CreateHow::Socketpair;
        fact.site = siteOf(call, call->getArg(3), fn);
        if (std::optional<int64_t> value = evalInt(call->getArg(0), Ctx)) {
          fact.family = familyFromValue(*value);
          fact.familyName = familyName(fact.family).str();
        }
        if (std::optional<int64_t> type = evalInt(call->getArg(1), Ctx))
          fact.type = static_cast<int>(*type & 0xf);
        fact.peer = ends[1 - i];
        fact.origin = "socketpair()" + (fn ? " in " + fn->getNameAsString() + "()" : std::string());
        unsigned index = Model.addCreate(std::move(fact));
        if (i == 0)
          first = index;
      }
      (void)first;
    }
  } else if (api && (name == "bind" || name == "listen" || name == "connect") &&
             call->getNumArgs() >= 1) {
    if (std::optional<LocId> socket = Model.locationOf(call->getArg(0), fn)) {
      LifecycleFact fact;
      fact.loc = *socket;
      fact.site = siteOf(call, call->getArg(0), fn);
      fact.kind = name == "bind"     ? Lifecycle::Bind
                  : name == "listen" ? Lifecycle::Listen
                                     : Lifecycle::Connect;
      Model.Lifecycles.push_back(std::move(fact));
    }
  } else if (api && name == "recvmsg" && call->getNumArgs() >= 2) {
    Recvs.push_back({call, fn});
  } else if (call->getNumArgs() >= 1) {
    onOptionCall(call, callee, fn);
  }

  // Arguments flow into the parameters of functions defined here.
  const FunctionDecl *definition = callee->getDefinition();
  if (definition && definition->hasBody()) {
    HasCaller.insert(definition);
    unsigned count = std::min<unsigned>(call->getNumArgs(), definition->getNumParams());
    for (unsigned i = 0; i < count; ++i) {
      const ParmVarDecl *param = definition->getParamDecl(i);
      QualType type = param->getType();
      if (type->isIntegerType()) {
        std::optional<LocId> target = Model.varLocation(param);
        flowInto(call->getArg(i), target, FlowKind::Argument, fn, call->getArg(i)->getBeginLoc());
      } else if (const auto *pointee = type->getAs<PointerType>();
                 pointee && pointee->getPointeeType()->isIntegerType()) {
        linkPointerArgument(call->getArg(i), param, fn);
      } else if (typeIsRecordNamed(type, "cmsghdr") || typeIsRecordNamed(type, "msghdr")) {
        if (fn)
          ControlCallees[canonicalDefinition(fn)].insert(definition);
      }
    }
  }
}

void ModelBuilder::finish() {
  // recvmsg() reads credentials when its function (or a function it hands the control data to)
  // looks at them.
  auto evidenceFor = [&](const FunctionDecl *fn) -> std::optional<SourceLocation> {
    llvm::SmallPtrSet<const FunctionDecl *, 8> seen;
    std::vector<const FunctionDecl *> work{canonicalDefinition(fn)};
    while (!work.empty()) {
      const FunctionDecl *current = work.back();
      work.pop_back();
      if (!current || !seen.insert(current).second)
        continue;
      auto found = Evidence.find(current);
      if (found != Evidence.end())
        return found->second;
      auto callees = ControlCallees.find(current);
      if (callees != ControlCallees.end())
        for (const FunctionDecl *callee : callees->second)
          work.push_back(callee);
    }
    return std::nullopt;
  };
  for (const PendingRecv &recv : Recvs) {
    std::optional<SourceLocation> evidence = evidenceFor(recv.fn);
    if (!evidence)
      continue;
    std::optional<LocId> socket = Model.locationOf(recv.call->getArg(0), recv.fn);
    if (!socket)
      continue;
    ReadCredsFact fact;
    fact.loc = *socket;
    fact.site = siteOf(recv.call, recv.call->getArg(0), recv.fn);
    fact.evidence = *evidence;
    Model.Reads.push_back(std::move(fact));
  }

  // Functions whose address escapes: their parameters also receive unknown sockets.
  llvm::DenseSet<const FunctionDecl *> Escaped;
  for (auto [ref, function] : AllFunctionRefs)
    if (!CalleeRefs.count(ref))
      Escaped.insert(canonicalDefinition(function));

  // Origins for the places that get values we cannot follow: parameters of public entries with
  // no caller here, fields/globals/returns never written here, untracked writes.
  std::vector<bool> hasIncoming(Model.Locations.size(), false);
  for (const FlowEdge &edge : Model.Flows)
    hasIncoming[edge.to] = true;
  std::vector<bool> hasCreate(Model.Locations.size(), false);
  for (const CreateFact &create : Model.Creates)
    hasCreate[create.loc] = true;
  // Only locations that lead to a fact need an origin.
  std::vector<std::vector<LocId>> incoming(Model.Locations.size());
  for (const FlowEdge &edge : Model.Flows)
    incoming[edge.to].push_back(edge.from);
  std::vector<bool> relevant(Model.Locations.size(), false);
  std::vector<LocId> work;
  auto mark = [&](LocId id) {
    if (id != kNoLoc && !relevant[id]) {
      relevant[id] = true;
      work.push_back(id);
    }
  };
  for (const OptionFact &fact : Model.Options)
    mark(fact.loc);
  for (const LifecycleFact &fact : Model.Lifecycles)
    mark(fact.loc);
  for (const ReadCredsFact &fact : Model.Reads)
    mark(fact.loc);
  for (const SendFdsFact &fact : Model.Sends) {
    mark(fact.over);
    for (LocId fd : fact.fds)
      mark(fd);
  }
  for (const CreateFact &fact : Model.Creates)
    mark(fact.listener);
  while (!work.empty()) {
    LocId id = work.back();
    work.pop_back();
    for (LocId from : incoming[id])
      mark(from);
  }
  size_t locationCount = Model.Locations.size();
  for (LocId id = 0; id < locationCount; ++id) {
    if (!relevant[id] || hasCreate[id])
      continue;
    const SocketLocation &location = Model.Locations[id];
    bool root = !hasIncoming[id] && location.kind != LocKind::Local &&
                location.kind != LocKind::Element && location.kind != LocKind::CallSite;
    bool escaped = location.kind == LocKind::Param &&
                   Escaped.count(canonicalDefinition(location.function));
    if (!root && !UntrackedWrites.count(id) && !escaped)
      continue;
    CreateFact fact;
    fact.loc = id;
    const FunctionDecl *owner = canonicalDefinition(location.function);
    if (location.kind == LocKind::Param && !HasCaller.count(owner) && !escaped) {
      fact.how = CreateHow::Parameter;
      fact.origin = "parameter '" + location.name + "' of " + owner->getNameAsString() +
                    "(), which has no caller here";
    } else {
      fact.how = CreateHow::Unknown;
      fact.origin = "'" + location.name + "', whose value comes from elsewhere";
    }
    if (const auto *named = dyn_cast_or_null<NamedDecl>(location.decl))
      fact.site.loc = named->getLocation();
    fact.site.function = location.function;
    Model.addCreate(std::move(fact));
  }
}

// ---------------------------------------------------------------------------------------------
// Propagation

void SocketModel::propagate() {
  std::vector<std::vector<unsigned>> outgoing(Locations.size());
  for (unsigned i = 0; i < Flows.size(); ++i)
    outgoing[Flows[i].from].push_back(i);
  Origins.assign(Locations.size(), {});
  Arrival.clear();
  for (unsigned origin = 0; origin < Creates.size(); ++origin) {
    std::vector<bool> seen(Locations.size(), false);
    std::deque<LocId> queue{Creates[origin].loc};
    seen[Creates[origin].loc] = true;
    while (!queue.empty()) {
      LocId at = queue.front();
      queue.pop_front();
      Origins[at].push_back(origin);
      for (unsigned edgeIndex : outgoing[at]) {
        LocId to = Flows[edgeIndex].to;
        if (seen[to])
          continue;
        seen[to] = true;
        Arrival[{origin, to}] = edgeIndex;
        queue.push_back(to);
      }
    }
  }
  // Accepted sockets have their listener's family and type.
  for (CreateFact &create : Creates) {
    if (create.how != CreateHow::Accept || create.listener == kNoLoc)
      continue;
    std::optional<Family> family;
    std::string name;
    std::optional<int> type;
    bool agree = true;
    for (unsigned listener : Origins[create.listener]) {
      const CreateFact &origin = Creates[listener];
      if (family && (*family != origin.family || *type != origin.type))
        agree = false;
      family = origin.family;
      name = origin.familyName;
      type = origin.type;
    }
    if (family && agree) {
      create.family = *family;
      create.familyName = name;
      create.type = *type;
    }
  }
}

const std::vector<unsigned> &SocketModel::originsOf(LocId loc) const {
  static const std::vector<unsigned> none;
  return loc < Origins.size() ? Origins[loc] : none;
}

std::vector<LocId> SocketModel::reachOf(unsigned create) const {
  std::vector<LocId> out;
  for (LocId id = 0; id < Origins.size(); ++id)
    if (llvm::is_contained(Origins[id], create))
      out.push_back(id);
  return out;
}

const FlowEdge *SocketModel::arrivalEdge(unsigned create, LocId loc) const {
  auto it = Arrival.find({create, loc});
  return it == Arrival.end() ? nullptr : &Flows[it->second];
}

// ---------------------------------------------------------------------------------------------
// Control flow order

struct SocketModel::FunctionCfg {
  std::unique_ptr<CFG> cfg;
  std::unique_ptr<CFGDomTree> dominators;
  llvm::DenseMap<const Stmt *, std::pair<unsigned, unsigned>> positions;
  llvm::DenseMap<unsigned, llvm::BitVector> reach; // block -> blocks reachable via successors
};

const CFG *SocketModel::cfgOf(const FunctionDecl *function) const {
  if (!function || !function->hasBody())
    return nullptr;
  auto &slot = Cfgs[function];
  if (!slot) {
    slot = std::make_unique<FunctionCfg>();
    CFG::BuildOptions options;
    options.setAllAlwaysAdd();
    slot->cfg = CFG::buildCFG(function, function->getBody(), Ctx, options);
    if (slot->cfg) {
      for (const CFGBlock *block : *slot->cfg) {
        unsigned index = 0;
        for (const CFGElement &element : *block) {
          if (std::optional<CFGStmt> stmt = element.getAs<CFGStmt>())
            slot->positions.try_emplace(stmt->getStmt(), block->getBlockID(), index);
          ++index;
        }
      }
      slot->dominators = std::make_unique<CFGDomTree>(slot->cfg.get());
    }
  }
  return slot->cfg.get();
}

std::optional<std::pair<unsigned, unsigned>> SocketModel::cfgPosition(const Site &site) const {
  if (!site.expr || !cfgOf(site.function))
    return std::nullopt;
  const FunctionCfg &info = *Cfgs.find(site.function)->second;
  auto it = info.positions.find(site.expr);
  if (it == info.positions.end())
    return std::nullopt;
  return it->second;
}

bool SocketModel::blockReaches(const FunctionDecl *function, unsigned from, unsigned to) const {
  FunctionCfg &info = *Cfgs.find(function)->second;
  auto it = info.reach.find(from);
  if (it == info.reach.end()) {
    llvm::BitVector seen(info.cfg->getNumBlockIDs());
    std::vector<const CFGBlock *> work;
    for (const CFGBlock *block : *info.cfg)
      if (block->getBlockID() == from)
        for (const CFGBlock *succ : block->succs())
          if (succ)
            work.push_back(succ);
    while (!work.empty()) {
      const CFGBlock *block = work.back();
      work.pop_back();
      if (seen.test(block->getBlockID()))
        continue;
      seen.set(block->getBlockID());
      for (const CFGBlock *succ : block->succs())
        if (succ)
          work.push_back(succ);
    }
    it = info.reach.try_emplace(from, std::move(seen)).first;
  }
  return it->second.test(to);
}

bool SocketModel::mayPrecede(const Site &a, const Site &b, bool unknown) const {
  if (!a.function || a.function != b.function)
    return unknown;
  auto pa = cfgPosition(a);
  auto pb = cfgPosition(b);
  if (!pa || !pb)
    return unknown;
  if (pa->first == pb->first && pa->second < pb->second)
    return true;
  return blockReaches(a.function, pa->first, pb->first);
}

bool SocketModel::mustFollow(const Site &a, const Site &b, bool unknown) const {
  if (!a.function || a.function != b.function)
    return unknown;
  auto pa = cfgPosition(a);
  auto pb = cfgPosition(b);
  if (!pa || !pb)
    return unknown;
  if (pa->first == pb->first)
    return pa->second < pb->second;
  const FunctionCfg &info = *Cfgs.find(a.function)->second;
  const CFGBlock *blockA = nullptr;
  const CFGBlock *blockB = nullptr;
  for (const CFGBlock *block : *info.cfg) {
    if (block->getBlockID() == pa->first)
      blockA = block;
    if (block->getBlockID() == pb->first)
      blockB = block;
  }
  // b only runs after a: a's block dominates b's.
  return blockA && blockB && info.dominators->dominates(blockA, blockB);
}

// ---------------------------------------------------------------------------------------------
// Building and sharing

std::unique_ptr<SocketModel> SocketModel::build(ASTContext &context, const ModelConfig &config,
                                                llvm::ArrayRef<Extractor> extra) {
  auto model = std::make_unique<SocketModel>(context, config);
  ModelBuilder builder(*model);
  MatchFinder finder;
  builder.registerMatchers(finder);
  finder.matchAST(context);
  for (Extractor extractor : extra)
    extractor(*model, context);
  builder.finish();
  // Matchers report in traversal order; facts are kept in source order so findings are stable.
  const SourceManager &sm = context.getSourceManager();
  auto bySite = [&sm](const auto &a, const auto &b) {
    if (a.site.loc == b.site.loc)
      return false;
    if (a.site.loc.isInvalid() || b.site.loc.isInvalid())
      return b.site.loc.isInvalid() && a.site.loc.isValid();
    return sm.isBeforeInTranslationUnit(a.site.loc, b.site.loc);
  };
  std::stable_sort(model->Creates.begin(), model->Creates.end(), bySite);
  std::stable_sort(model->Options.begin(), model->Options.end(), bySite);
  std::stable_sort(model->Lifecycles.begin(), model->Lifecycles.end(), bySite);
  std::stable_sort(model->Reads.begin(), model->Reads.end(), bySite);
  std::stable_sort(model->Sends.begin(), model->Sends.end(), bySite);
  model->propagate();
  return model;
}

namespace {
struct SharedState {
  ASTContext *context = nullptr;
  std::string config;
  std::unique_ptr<SocketModel> model;
  std::vector<Extractor> extractors;
};
SharedState &sharedState() {
  thread_local SharedState state;
  return state;
}
std::vector<Extractor> &globalExtractors() {
  static std::vector<Extractor> extractors;
  return extractors;
}
} // namespace

void SocketModel::addSharedExtractor(Extractor extractor) {
  if (!llvm::is_contained(globalExtractors(), extractor))
    globalExtractors().push_back(extractor);
}

void SocketModel::resetShared() {
  SharedState &state = sharedState();
  state.context = nullptr;
  state.model.reset();
}

const SocketModel &SocketModel::shared(ASTContext &context, const ModelConfig &config) {
  SharedState &state = sharedState();
  std::string fingerprint = config.fingerprint();
  if (!state.model || state.context != &context || state.config != fingerprint) {
    state.model = build(context, config, globalExtractors());
    state.context = &context;
    state.config = fingerprint;
  }
  return *state.model;
}

// ---------------------------------------------------------------------------------------------
// Rendering

std::string SocketModel::dump() const {
  std::string out;
  llvm::raw_string_ostream os(out);
  const SourceManager &sm = Ctx->getSourceManager();
  auto line = [&](SourceLocation loc) {
    return loc.isValid() ? sm.getExpansionLineNumber(loc) : 0u;
  };
  for (const CreateFact &c : Creates) {
    os << "create " << createHowName(c.how) << " " << Locations[c.loc].key << " line "
       << line(c.site.loc);
    if (c.family != Family::Unknown)
      os << " family " << familyName(c.family);
    if (c.type >= 0)
      os << " type " << c.type;
    if (c.peer != kNoLoc)
      os << " peer " << Locations[c.peer].key;
    if (c.listener != kNoLoc)
      os << " listener " << Locations[c.listener].key;
    os << "\n";
  }
  for (const OptionFact &o : Options)
    os << "option " << optionName(o.option) << " "
       << (o.value == Tri::True ? "true" : o.value == Tri::False ? "false" : "maybe") << " "
       << Locations[o.loc].key << " line " << line(o.site.loc)
       << (o.throughWrapper ? " wrapper" : "") << (o.familyGuarded ? " guarded" : "") << "\n";
  for (const LifecycleFact &l : Lifecycles)
    os << (l.kind == Lifecycle::Bind ? "bind " : l.kind == Lifecycle::Listen ? "listen " : "connect ")
       << Locations[l.loc].key << " line " << line(l.site.loc) << "\n";
  for (const ReadCredsFact &r : Reads)
    os << "reads_credentials " << Locations[r.loc].key << " line " << line(r.site.loc) << "\n";
  for (const SendFdsFact &s : Sends)
    os << "sends_fds " << describe(s.over) << " line " << line(s.site.loc) << "\n";
  for (const FlowEdge &f : Flows)
    os << "flow " << Locations[f.from].key << " -> " << Locations[f.to].key << "\n";
  return out;
}

} // namespace clang::tidy::afunix
