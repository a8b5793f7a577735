#include "MoveSafety.h"

#include "AstUtil.h"

#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSet.h"

namespace afunix::analysis {

using namespace clang;

namespace {

// A function body longer than this between the statement and its block's start is not searched
// further: the fix-its move a call above a nearby bind()/listen().
constexpr unsigned kMaxCrossed = 256;

using VarSet = llvm::SmallPtrSet<const VarDecl *, 8>;

// What one statement does with variables, as far as moving code across it is concerned.
struct Access {
  VarSet reads;    // named where evaluated
  VarSet writes;   // may be changed: assigned, ++/--, declared, handed out by address or reference
  VarSet mentions; // named at all (sizeof too)
  VarSet escapes;  // address taken or bound to a reference: may change behind a pointer later
  bool callsProgram = false;        // a call outside the system headers (or through a pointer)
  bool writesThroughPointer = false; // may write memory that is not a named variable
  bool readsThroughPointer = false;
  bool opaque = false; // inline assembly
  bool label = false;  // a goto label, case or default: a jump target
};

enum class Use { Read, Write };

// The variable an lvalue is part of (s.f, a[i], (x)), or null.
const VarDecl *rootVariable(const Expr *e) {
  while (e) {
    e = e->IgnoreParenImpCasts();
    if (const auto *ref = dyn_cast<DeclRefExpr>(e))
      return dyn_cast<VarDecl>(ref->getDecl());
    if (const auto *member = dyn_cast<MemberExpr>(e)) {
      if (member->isArrow())
        return nullptr;
      e = member->getBase();
    } else if (const auto *sub = dyn_cast<ArraySubscriptExpr>(e)) {
      if (!sub->getBase()->IgnoreParenImpCasts()->getType()->isArrayType())
        return nullptr;
      e = sub->getBase();
    } else {
      return nullptr;
    }
  }
  return nullptr;
}

class Collector {
public:
  Collector(const ASTContext &ctx, Access &out, SocketOnlyMethod socketOnly)
      : Ctx(ctx), Out(out), SocketOnly(socketOnly) {}

  void stmt(const Stmt *s) {
    if (!s)
      return;
    if (isa<LabelStmt>(s) || isa<SwitchCase>(s))
      Out.label = true;
    if (isa<AsmStmt>(s))
      Out.opaque = true;
    if (const auto *decls = dyn_cast<DeclStmt>(s)) {
      for (const Decl *d : decls->decls())
        if (const auto *var = dyn_cast<VarDecl>(d)) {
          Out.writes.insert(var);
          Out.mentions.insert(var);
          if (const Expr *init = var->getInit()) {
            bool reference = var->getType()->isReferenceType();
            if (reference)
              escape(init);
            expr(init, reference ? Use::Write : Use::Read);
          }
        }
      return;
    }
    if (const auto *e = dyn_cast<Expr>(s)) {
      expr(e, Use::Read);
      return;
    }
    for (const Stmt *child : s->children())
      stmt(child);
  }

  void expr(const Expr *e, Use use) {
    if (!e)
      return;
    if (const auto *paren = dyn_cast<ParenExpr>(e))
      return expr(paren->getSubExpr(), use);
    if (const auto *full = dyn_cast<FullExpr>(e))
      return expr(full->getSubExpr(), use);
    if (const auto *temp = dyn_cast<MaterializeTemporaryExpr>(e))
      return expr(temp->getSubExpr(), use);
    if (const auto *ref = dyn_cast<DeclRefExpr>(e)) {
      if (const auto *var = dyn_cast<VarDecl>(ref->getDecl())) {
        Out.mentions.insert(var);
        Out.reads.insert(var);
        if (use == Use::Write)
          Out.writes.insert(var);
      }
      return;
    }
    if (const auto *cast = dyn_cast<CastExpr>(e)) {
      if (cast->getCastKind() == CK_LValueToRValue) {
        // A pointer loaded to write through it (p->x = 1, *p = 1): the pointee changes.
        bool through = use == Use::Write && cast->getType()->isPointerType();
        return expr(cast->getSubExpr(), through ? Use::Write : Use::Read);
      }
      return expr(cast->getSubExpr(), use);
    }
    if (const auto *member = dyn_cast<MemberExpr>(e)) {
      if (member->isArrow())
        pointerAccess(use);
      return expr(member->getBase(), use);
    }
    if (const auto *sub = dyn_cast<ArraySubscriptExpr>(e)) {
      if (!sub->getBase()->IgnoreParenImpCasts()->getType()->isArrayType())
        pointerAccess(use);
      expr(sub->getBase(), use);
      return expr(sub->getIdx(), Use::Read);
    }
    if (const auto *unary = dyn_cast<UnaryOperator>(e)) {
      switch (unary->getOpcode()) {
      case UO_Deref:
        pointerAccess(use);
        return expr(unary->getSubExpr(), use);
      case UO_AddrOf:
        escape(unary->getSubExpr());
        return expr(unary->getSubExpr(), Use::Write);
      case UO_PreInc:
      case UO_PreDec:
      case UO_PostInc:
      case UO_PostDec:
        return expr(unary->getSubExpr(), Use::Write);
      default:
        return expr(unary->getSubExpr(), Use::Read);
      }
    }
    if (const auto *binary = dyn_cast<BinaryOperator>(e)) {
      if (binary->isAssignmentOp()) {
        expr(binary->getLHS(), Use::Write);
        return expr(binary->getRHS(), Use::Read);
      }
      if (binary->getOpcode() == BO_Comma) {
        expr(binary->getLHS(), Use::Read);
        return expr(binary->getRHS(), use);
      }
      // Pointer arithmetic that is written through: *(p + 1) = x.
      for (const Expr *side : {binary->getLHS(), binary->getRHS()})
        expr(side, use == Use::Write && side->getType()->isPointerType() ? Use::Write : Use::Read);
      return;
    }
    if (const auto *conditional = dyn_cast<AbstractConditionalOperator>(e)) {
      expr(conditional->getCond(), Use::Read);
      expr(conditional->getTrueExpr(), use);
      return expr(conditional->getFalseExpr(), use);
    }
    if (const auto *size = dyn_cast<UnaryExprOrTypeTraitExpr>(e)) {
      // Not evaluated: only the declarations it names must stay above it.
      if (!size->isArgumentType())
        mentionAll(size->getArgumentExpr());
      return;
    }
    if (const auto *call = dyn_cast<CallExpr>(e))
      return this->call(call);
    if (const auto *construct = dyn_cast<CXXConstructExpr>(e)) {
      Out.callsProgram |= !declaredInSystemHeader(construct->getConstructor(), Ctx.getSourceManager());
      const CXXConstructorDecl *ctor = construct->getConstructor();
      for (unsigned i = 0; i < construct->getNumArgs(); ++i)
        argument(construct->getArg(i),
                 i < ctor->getNumParams() ? ctor->getParamDecl(i)->getType() : QualType());
      return;
    }
    if (const auto *lambda = dyn_cast<LambdaExpr>(e)) {
      for (const LambdaCapture &capture : lambda->captures())
        if (capture.capturesVariable())
          if (const auto *var = dyn_cast<VarDecl>(capture.getCapturedVar())) {
            Out.mentions.insert(var);
            Out.reads.insert(var);
            if (capture.getCaptureKind() == LCK_ByRef) {
              Out.writes.insert(var);
              Out.escapes.insert(var);
            }
          }
      return;
    }
    if (const auto *statement = dyn_cast<StmtExpr>(e))
      return stmt(statement->getSubStmt());
    // Anything else: an lvalue it is given may be changed through it.
    for (const Stmt *child : e->children()) {
      const auto *sub = dyn_cast_or_null<Expr>(child);
      if (!sub) {
        stmt(child);
        continue;
      }
      bool write = sub->isGLValue() || (use == Use::Write && sub->getType()->isPointerType());
      expr(sub, write ? Use::Write : Use::Read);
    }
  }

private:
  void pointerAccess(Use use) {
    if (use == Use::Write)
      Out.writesThroughPointer = true;
    else
      Out.readsThroughPointer = true;
  }

  void escape(const Expr *lvalue) {
    if (const VarDecl *var = rootVariable(lvalue))
      Out.escapes.insert(var);
  }

  void mentionAll(const Stmt *s) {
    if (!s)
      return;
    if (const auto *ref = dyn_cast<DeclRefExpr>(s))
      if (const auto *var = dyn_cast<VarDecl>(ref->getDecl()))
        Out.mentions.insert(var);
    for (const Stmt *child : s->children())
      mentionAll(child);
  }

  // The parameter type a call argument is passed as; a transparent union (glibc's
  // __CONST_SOCKADDR_ARG) as its first member.
  static QualType passedAs(QualType type) {
    if (type.isNull())
      return type;
    if (const auto *record = type->getAsRecordDecl())
      if (record->isUnion() && record->hasAttr<TransparentUnionAttr>() && !record->field_empty())
        return record->field_begin()->getType();
    return type;
  }

  void argument(const Expr *arg, QualType param) {
    QualType type = passedAs(param.isNull() ? arg->getType() : param);
    if (type->isReferenceType()) {
      bool constant = type.getNonReferenceType().isConstQualified();
      if (!constant)
        escape(arg);
      return expr(arg, constant ? Use::Read : Use::Write);
    }
    if (type->isPointerType() && type->getPointeeType().isConstQualified()) {
      // The callee only reads through it: &on given to setsockopt() is a read of on. A
      // transparent union argument is a compound literal around the pointer.
      const Expr *inner = arg->IgnoreParenCasts();
      if (const auto *literal = dyn_cast<CompoundLiteralExpr>(inner))
        if (const auto *list = dyn_cast_or_null<InitListExpr>(literal->getInitializer());
            list && list->getNumInits() == 1)
          inner = list->getInit(0)->IgnoreParenCasts();
      if (const auto *address = dyn_cast<UnaryOperator>(inner); address && address->getOpcode() == UO_AddrOf)
        return expr(address->getSubExpr(), Use::Read);
      return expr(inner, Use::Read);
    }
    if (type->isPointerType() || arg->getType()->isPointerType())
      return expr(arg, Use::Write); // may be written through
    expr(arg, Use::Read);
  }

  void call(const CallExpr *call) {
    const FunctionDecl *callee = call->getDirectCallee();
    if (!callee || !declaredInSystemHeader(callee, Ctx.getSourceManager()))
      Out.callsProgram = true;
    unsigned first = 0;
    if (const auto *member = dyn_cast<CXXMemberCallExpr>(call)) {
      const CXXMethodDecl *method = member->getMethodDecl();
      const Expr *object = member->getImplicitObjectArgument();
      // A library socket object's bind(), listen() or set_option() changes the kernel's socket,
      // not the object: as setsockopt(fd, ...) reads fd.
      bool reads = method && (method->isConst() || (SocketOnly && SocketOnly(*member)));
      if (!reads)
        escape(object);
      expr(object, reads ? Use::Read : Use::Write);
    } else if (const auto *op = dyn_cast<CXXOperatorCallExpr>(call);
               op && isa_and_nonnull<CXXMethodDecl>(callee) && call->getNumArgs() > 0) {
      bool constant = cast<CXXMethodDecl>(callee)->isConst();
      expr(call->getArg(0), constant ? Use::Read : Use::Write);
      first = 1;
    } else {
      expr(call->getCallee(), Use::Read);
    }
    for (unsigned i = first; i < call->getNumArgs(); ++i) {
      unsigned p = i - first;
      QualType param = callee && p < callee->getNumParams() ? callee->getParamDecl(p)->getType()
                                                             : QualType();
      argument(call->getArg(i), param);
    }
  }

  const ASTContext &Ctx;
  Access &Out;
  SocketOnlyMethod SocketOnly;
};

Access accessOf(const Stmt *s, const ASTContext &ctx, SocketOnlyMethod socketOnly) {
  Access out;
  Collector(ctx, out, socketOnly).stmt(s);
  return out;
}

// Calls `escape` for each variable whose address `s` and its children take, once per taking.
void forEachEscape(const Stmt *s, llvm::function_ref<void(const VarDecl *)> escape) {
  if (!s)
    return;
  if (const auto *e = dyn_cast<Expr>(s)) {
    if (const auto *unary = dyn_cast<UnaryOperator>(e); unary && unary->getOpcode() == UO_AddrOf)
      if (const VarDecl *var = rootVariable(unary->getSubExpr()))
        escape(var);
    if (const auto *lambda = dyn_cast<LambdaExpr>(e))
      for (const LambdaCapture &capture : lambda->captures())
        if (capture.capturesVariable() && capture.getCaptureKind() == LCK_ByRef)
          if (const auto *var = dyn_cast<VarDecl>(capture.getCapturedVar()))
            escape(var);
  }
  if (const auto *decls = dyn_cast<DeclStmt>(s))
    for (const Decl *d : decls->decls())
      if (const auto *var = dyn_cast<VarDecl>(d); var && var->getType()->isReferenceType())
        if (const VarDecl *bound = rootVariable(var->getInit()))
          escape(bound);
  if (const auto *call = dyn_cast<CallExpr>(s))
    if (const FunctionDecl *callee = call->getDirectCallee())
      for (unsigned i = 0; i < call->getNumArgs() && i < callee->getNumParams(); ++i) {
        QualType type = callee->getParamDecl(i)->getType();
        if (type->isReferenceType() && !type.getNonReferenceType().isConstQualified())
          if (const VarDecl *bound = rootVariable(call->getArg(i)))
            escape(bound);
      }
  for (const Stmt *child : s->children())
    forEachEscape(child, escape);
}

// The offset of a preprocessor directive ('#' first on its line, outside comments and literals)
// in [from, to) of `buffer`, or npos.
size_t directiveIn(llvm::StringRef buffer, size_t from, size_t to) {
  to = std::min(to, buffer.size());
  size_t lineBegin = buffer.rfind('\n', from == 0 ? 0 : from - 1);
  lineBegin = from == 0 || lineBegin == llvm::StringRef::npos ? 0 : lineBegin + 1;
  bool lineStart = buffer.slice(lineBegin, from).find_first_not_of(" \t") == llvm::StringRef::npos;
  enum { Code, LineComment, BlockComment, String, Char } state = Code;
  for (size_t i = from; i < to; ++i) {
    char c = buffer[i];
    char next = i + 1 < buffer.size() ? buffer[i + 1] : '\0';
    switch (state) {
    case LineComment:
      if (c == '\n') {
        state = Code;
        lineStart = true;
      }
      continue;
    case BlockComment:
      if (c == '*' && next == '/') {
        state = Code;
        ++i;
      }
      continue;
    case String:
    case Char:
      if (c == '\\')
        ++i;
      else if ((state == String && c == '"') || (state == Char && c == '\'') || c == '\n')
        state = Code;
      continue;
    case Code:
      break;
    }
    if (c == '\n') {
      lineStart = true;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v')
      continue;
    if (c == '/' && next == '/') {
      state = LineComment;
      ++i;
      continue;
    }
    if (c == '/' && next == '*') {
      state = BlockComment; // a comment before '#' still leaves it first on the line
      ++i;
      continue;
    }
    if (c == '#' && lineStart)
      return i;
    lineStart = false;
    if (c == '"')
      state = String;
    else if (c == '\'')
      state = Char;
  }
  return llvm::StringRef::npos;
}

// A value that is the same wherever it is computed: a constant without side effects ({1} too).
bool constantValue(const Expr *e, const ASTContext &ctx) {
  if (!e || e->isValueDependent() || e->HasSideEffects(ctx))
    return false;
  e = e->IgnoreImplicit();
  if (const auto *list = dyn_cast<InitListExpr>(e)) {
    for (const Expr *init : list->inits())
      if (!constantValue(init, ctx))
        return false;
    return true;
  }
  return e->isEvaluatable(ctx);
}

bool plainLocal(const VarDecl *var) {
  return var && var->hasLocalStorage() && !var->getType().isVolatileQualified() &&
         !var->getType()->isReferenceType() &&
         (var->getType()->isScalarType() || var->getType()->isConstantArrayType());
}

// `var = <constant>;` or `T var = <constant>;`: it gives `var` its value and nothing else.
bool setsToConstant(const Stmt *s, const VarDecl *var, const ASTContext &ctx) {
  if (!plainLocal(var))
    return false;
  if (const auto *decls = dyn_cast<DeclStmt>(s))
    return decls->isSingleDecl() && decls->getSingleDecl() == var && var->getInit() &&
           constantValue(var->getInit(), ctx);
  const auto *e = dyn_cast<Expr>(s);
  const auto *assign = e ? dyn_cast<BinaryOperator>(e->IgnoreImplicit()) : nullptr;
  if (!assign || assign->getOpcode() != BO_Assign)
    return false;
  const auto *lhs = dyn_cast<DeclRefExpr>(assign->getLHS()->IgnoreParenImpCasts());
  return lhs && lhs->getDecl() == var && constantValue(assign->getRHS(), ctx);
}

const VarDecl *first(const VarSet &vars) { return vars.empty() ? nullptr : *vars.begin(); }

// A return, break, continue, goto or throw as the statement itself: moved up, it would always
// leave before the statements it crossed (`return setsockopt(...) == 0;` above listen() never
// listens). An `if` that leaves only when the call fails (the usual error check) may move.
bool alwaysLeaves(const Stmt *s) {
  if (const auto *e = dyn_cast<Expr>(s))
    return isa<CXXThrowExpr>(e->IgnoreParenImpCasts());
  return isa<ReturnStmt, BreakStmt, ContinueStmt, GotoStmt, IndirectGotoStmt, CoreturnStmt>(s);
}

} // namespace

EscapedVariables::EscapedVariables(const Stmt *function) {
  forEachEscape(function, [&](const VarDecl *var) { ++Counts[var]; });
}

bool EscapedVariables::escapesOutside(const VarDecl *var, const Stmt &stmt) const {
  auto it = Counts.find(var);
  if (it == Counts.end())
    return false;
  unsigned inside = 0;
  forEachEscape(&stmt, [&](const VarDecl *escaped) { inside += escaped == var; });
  return it->second > inside;
}

void judgeUpwardMove(const CompoundStmt &block, const Stmt &stmt, const EscapedVariables &escapes,
                     ASTContext &ctx, facts::Statement &out, SocketOnlyMethod socketOnly) {
  const SourceManager &sm = ctx.getSourceManager();
  out.movableAbove = out.begin;
  out.moveStop = facts::MoveStop::Unmovable;
  out.labelled = isa<LabelStmt>(&stmt) || isa<SwitchCase>(&stmt);
  out.companions.clear();

  const Stmt *const *at = llvm::find(block.body(), &stmt);
  if (at == block.body_end() || stmt.getBeginLoc().isMacroID() || alwaysLeaves(&stmt))
    return;
  FileID file = sm.getFileID(stmt.getBeginLoc());
  llvm::StringRef buffer = sm.getBufferData(file);
  Access moved = accessOf(&stmt, ctx, socketOnly);
  if (moved.label) { // moved, it would take a jump target along
    out.moveStop = facts::MoveStop::Label;
    out.moveStopLine = sm.getExpansionLineNumber(stmt.getBeginLoc());
    return;
  }
  if (moved.opaque || directiveIn(buffer, out.begin, out.end) != llvm::StringRef::npos)
    return;

  // What the moved code reads must not change across what it crosses; what it changes must not
  // be looked at there. Variables that may also change behind a pointer or in a callee: globals,
  // and locals whose address the function hands out elsewhere.
  VarSet needed = moved.reads;
  VarSet owned = moved.writes;
  llvm::StringSet<> ownedNames; // a declaration moved up would capture same-named uses above it
  if (const auto *decls = dyn_cast<DeclStmt>(&stmt))
    for (const Decl *d : decls->decls())
      if (const auto *var = dyn_cast<VarDecl>(d))
        ownedNames.insert(var->getName());
  VarSet aliased;
  for (const VarDecl *var : needed)
    if (!var->hasLocalStorage() || escapes.escapesOutside(var, stmt))
      aliased.insert(var);
  VarSet crossedReads, crossedWrites;

  out.moveStop = facts::MoveStop::BlockStart;
  size_t gapEnd = out.begin;
  unsigned crossed = 0;
  for (const Stmt *const *it = at; it != block.body_begin();) {
    const Stmt *prev = *--it;
    auto stop = [&](facts::MoveStop why, SourceLocation where, const VarDecl *var) {
      out.moveStop = why;
      out.moveStopLine = where.isValid() ? sm.getExpansionLineNumber(where) : 0;
      out.moveStopName = var ? var->getName().str() : "";
    };
    if (++crossed > kMaxCrossed) {
      stop(facts::MoveStop::Limit, prev->getBeginLoc(), nullptr);
      return;
    }
    CharSourceRange range = statementRange(prev, ctx);
    if (range.isInvalid() || sm.getFileID(range.getBegin()) != file ||
        sm.getFileID(range.getEnd()) != file) {
      stop(facts::MoveStop::Macro, sm.getExpansionLoc(prev->getBeginLoc()), nullptr);
      return;
    }
    size_t begin = sm.getFileOffset(range.getBegin());
    if (size_t hash = directiveIn(buffer, begin, gapEnd); hash != llvm::StringRef::npos) {
      stop(facts::MoveStop::Directive, sm.getComposedLoc(file, static_cast<unsigned>(hash)), nullptr);
      return;
    }
    Access a = accessOf(prev, ctx, socketOnly);
    if (a.label) {
      stop(facts::MoveStop::Label, range.getBegin(), nullptr);
      return;
    }
    if (a.opaque) {
      stop(facts::MoveStop::Calls, range.getBegin(), nullptr);
      return;
    }
    for (const VarDecl *var : a.mentions)
      if (owned.count(var) || ownedNames.count(var->getName())) {
        stop(facts::MoveStop::Uses, range.getBegin(), var);
        return;
      }
    if (!aliased.empty() && (a.callsProgram || a.writesThroughPointer)) {
      stop(facts::MoveStop::Calls, range.getBegin(), first(aliased));
      return;
    }
    if (moved.readsThroughPointer && a.writesThroughPointer) {
      stop(facts::MoveStop::Sets, range.getBegin(), nullptr);
      return;
    }
    VarSet changed;
    for (const VarDecl *var : a.writes)
      if (needed.count(var))
        changed.insert(var);
    if (!changed.empty()) {
      const VarDecl *var = first(changed);
      // `on = 1;` (or `int on = 1;`) after listen(): it moves too, with the call, unless what
      // was crossed before it looks at `on`.
      if (changed.size() == 1 && setsToConstant(prev, var, ctx) && !crossedReads.count(var) &&
          !crossedWrites.count(var)) {
        CharSourceRange removal = wholeLines(range, ctx);
        out.companions.push_back({static_cast<std::uint32_t>(begin),
                                  sm.getFileOffset(removal.getBegin()),
                                  sm.getFileOffset(removal.getEnd()),
                                  Lexer::getSourceText(range, sm, ctx.getLangOpts()).str()});
        owned.insert(var);
        if (isa<DeclStmt>(prev))
          ownedNames.insert(var->getName());
        out.movableAbove = static_cast<std::uint32_t>(begin);
        gapEnd = begin;
        continue;
      }
      bool defines = isa<DeclStmt>(prev) && cast<DeclStmt>(prev)->isSingleDecl() &&
                     cast<DeclStmt>(prev)->getSingleDecl() == var;
      stop(defines ? facts::MoveStop::Defines : facts::MoveStop::Sets, range.getBegin(), var);
      return;
    }
    // A declaration only named in sizeof (or otherwise unevaluated) must stay above it too.
    for (const VarDecl *var : a.writes)
      if (moved.mentions.count(var) && isa<DeclStmt>(prev)) {
        stop(facts::MoveStop::Defines, range.getBegin(), var);
        return;
      }
    crossedReads.insert(a.reads.begin(), a.reads.end());
    crossedWrites.insert(a.writes.begin(), a.writes.end());
    out.movableAbove = static_cast<std::uint32_t>(begin);
    gapEnd = begin;
  }
}

} // namespace afunix::analysis
