// Reads the socket facts of one translation unit out of its AST (Facts.h): one
// RecursiveASTVisitor walk over the declarations in the traversal scope (system headers skipped);
// a CFG is built only for functions that call the socket API, to order their facts and to follow
// reassigned locals (reaching definitions). Nothing else in the checker walks the AST for socket
// semantics.
#pragma once

#include "Facts.h"
#include "ProjectOptions.h"

namespace clang {
class ASTContext;
}

namespace afunix::analysis {

facts::Unit extractFacts(clang::ASTContext &context, const ProjectOptions &options);

} // namespace afunix::analysis
