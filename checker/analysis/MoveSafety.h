// How far up its block a statement can move without changing what it computes or what the code
// it crosses sees: for fix-its that move a call (a late setsockopt() above its listen()). The one
// place that decides whether such a move is safe; the rules only compare offsets.
#pragma once

#include "Facts.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Stmt.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace afunix::analysis {

// Fills `out`'s movableAbove, moveStop, moveStopLine, moveStopName, companions and labelled for
// `stmt`, a direct child of `block` (out.begin must already be set). `escapes` are the enclosing
// function's: a variable whose address is taken anywhere else in it can change behind any
// pointer write or call. `socketOnly` tells the methods of a library's socket objects
// that change only the kernel's socket (models.md: bind, listen, accept, option), which read the
// object as setsockopt() reads its fd.
using SocketOnlyMethod = llvm::function_ref<bool(const clang::CXXMemberCallExpr &)>;

// The variables whose address a function takes (&x, a reference bound to x, x passed to a
// non-const reference parameter, a lambda capturing x by reference), each with how many times:
// counted once per function, so that asking for each of its statements which escapes happen
// outside it costs that statement's size, not the function's (5,000 setsockopt() calls in one
// function were quadratic).
class EscapedVariables {
public:
  explicit EscapedVariables(const clang::Stmt *function);
  // Whether `var` has its address taken somewhere in the function outside `stmt`.
  bool escapesOutside(const clang::VarDecl *var, const clang::Stmt &stmt) const;

private:
  llvm::DenseMap<const clang::VarDecl *, unsigned> Counts;
};

void judgeUpwardMove(const clang::CompoundStmt &block, const clang::Stmt &stmt,
                     const EscapedVariables &escapes, clang::ASTContext &ctx, facts::Statement &out,
                     SocketOnlyMethod socketOnly);

} // namespace afunix::analysis
