// How far up its block a statement can move without changing what it computes or what the code
// it crosses sees: for fix-its that move a call (a late setsockopt() above its listen()). The one
// place that decides whether such a move is safe; the rules only compare offsets.
#pragma once

#include "Facts.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Stmt.h"

namespace afunix::analysis {

// Fills `out`'s movableAbove, moveStop, moveStopLine, moveStopName, companions and labelled for
// `stmt`, a direct child of `block` (out.begin must already be set). `function` is the body of
// the enclosing function: a variable whose address is taken anywhere else in it can change
// behind any pointer write or call.
void judgeUpwardMove(const clang::CompoundStmt &block, const clang::Stmt &stmt,
                     const clang::Stmt *function, clang::ASTContext &ctx, facts::Statement &out);

} // namespace afunix::analysis
