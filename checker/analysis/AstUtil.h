// AST helpers shared by the fact extractor: how constants are spelled, what a call is, what the
// control-message macros expand to, and source edits. The one place these live; nothing else in
// the checker inspects the AST for socket semantics.
#pragma once

#include "Facts.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"
#include "clang/Basic/SourceLocation.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace afunix::analysis {

// Parentheses, implicit casts and casts that keep an fd's value (to another integer type, to and
// from intptr_t-sized pointers as in pthread_create's `(void *)(intptr_t)fd`).
const clang::Expr *stripValue(const clang::Expr *expr);

// Every macro name whose expansion produced `loc`, innermost first (AF_UNIX -> PF_UNIX -> PF_LOCAL).
llvm::SmallVector<llvm::StringRef, 4> macroNames(clang::SourceLocation loc,
                                                 const clang::SourceManager &sm,
                                                 const clang::LangOptions &lang);
// Whether `expr` is spelled as one of `names`: an enumerator (glibc's SCM_CREDENTIALS) or a macro
// anywhere in its expansion chain. `found` receives the name.
bool spelledAs(const clang::Expr *expr, llvm::ArrayRef<llvm::StringRef> names,
               clang::ASTContext &ctx, llvm::StringRef *found = nullptr);
// Whether `loc` comes out of an expansion of macro `name`.
bool inMacro(clang::SourceLocation loc, llvm::StringRef name, const clang::SourceManager &sm,
             const clang::LangOptions &lang);

std::optional<std::int64_t> evalInt(const clang::Expr *expr, const clang::ASTContext &ctx);
// How many elements a container value holds, when its type says: int[N], std::array<int, N>,
// std::span<int, N>, or a container built from one of those (std::span<const int>(fds)).
std::optional<std::int64_t> constantElementCount(const clang::Expr *expr, const clang::ASTContext &ctx);
// The expression as written (macro arguments as written, not the whole macro); "<expr>" if none.
std::string sourceText(const clang::Expr *expr, const clang::ASTContext &ctx);

// The explicit template argument of the call's callee spelled as one of `names`
// (EnableBool<SO_PASSCRED>(fd)); null if none.
const clang::Expr *templateArgumentSpelledAs(const clang::CallExpr *call, llvm::ArrayRef<llvm::StringRef> names,
                                             clang::ASTContext &ctx, llvm::StringRef *found = nullptr);
// The function a lambda's operator() is written in; null for anything else (or a lambda outside
// a function).
const clang::FunctionDecl *enclosingFunctionOfLambda(const clang::FunctionDecl *fn);
// " in main()", " in a lambda in main()": where a value is made, for messages; "" for none.
std::string inFunctionText(const clang::FunctionDecl *fn);
// The callee's identifier, "" for operators and indirect calls.
llvm::StringRef calleeName(const clang::CallExpr *call);
// A free (C or extern "C") function: std::bind or Socket::listen() are not the socket API.
bool isSocketApi(const clang::FunctionDecl *callee);
bool declaredInSystemHeader(const clang::Decl *decl, const clang::SourceManager &sm);
// Declared by a library installed on the system: in a system header, or in a header installed
// under /usr/include or /usr/local/include that the build finds with -I (pkg-config's way). The
// model catalog's plain names apply there; a project's own function of such a name is its code.
bool declaredInLibraryHeader(const clang::Decl *decl, const clang::SourceManager &sm);

// An integer wide enough to hold an fd (int, long, unsigned, their typedefs); not bool, char or
// enums.
bool isFdValueType(clang::QualType type, const clang::ASTContext &ctx);
bool typeIsRecordNamed(clang::QualType type, llvm::StringRef name); // through one pointer
bool isMsgControl(const clang::ValueDecl *member); // msghdr's msg_control field
bool mentionsCmsghdr(const clang::Stmt *stmt);
// A loop that walks one message's cmsgs (`for (c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))`,
// or a while/do loop whose condition steps a cmsghdr).
bool walksCmsgs(const clang::Stmt *loop);
// A loop whose turns one received message bounds: a walk of its cmsgs, or of the fds of one cmsg
// (`i < (c->cmsg_len - CMSG_LEN(0)) / sizeof(int)`, or a count a local takes from the cmsg).
bool boundedByOneMessage(const clang::Stmt *loop);

std::optional<facts::Family> familyFromName(llvm::StringRef name);
// SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET: their values (KernelConstants.h).
std::optional<int> socketTypeFromName(llvm::StringRef name);

// Calls that read from an fd (an acknowledgement when the fd is a peer's channel).
bool isReceiveCall(llvm::StringRef name);
bool isMemoryCopy(llvm::StringRef name);
// Calls whose result is a new fd that is never a socket.
bool returnsNonSocketFd(llvm::StringRef name);
// CMSG_DATA(c) as written (glibc expands it to c->__cmsg_data, musl to a cast over c + 1).
bool isCmsgDataSpelling(const clang::Expr *expr, const clang::ASTContext &ctx);
// Strips pointer arithmetic and &a[i] down to the array or pointer the elements come from.
const clang::Expr *arrayBase(const clang::Expr *expr);
// An `errno` read (errno expands to a call in every libc).
bool readsErrno(const clang::Stmt *stmt);

// Calls `write` for each expression under `stmt` that may change `var`: an assignment to it, an
// increment or decrement, taking its address.
void forEachWrite(const clang::Stmt *stmt, const clang::VarDecl *var,
                  llvm::function_ref<void(const clang::Expr *)> write);
// The expression a variable's value is capped to where it is read (`if (n > MAX) n = MAX;`), or
// nullptr: what a count read from it can reach at most.
using CapOf = llvm::function_ref<const clang::Expr *(const clang::VarDecl *)>;
// fd counts in control-message sizes: n * sizeof(int), sizeof(int[n]), sizeof of an int array;
// with `cap`, also through a capped variable (n of n * sizeof(int), or a byte size capped to
// MAX * sizeof(int)).
std::optional<std::int64_t> fdCountOf(const clang::Expr *expr, const clang::ASTContext &ctx, CapOf cap = nullptr);
// The largest fd count spelled anywhere under `stmt` (CMSG_LEN(...) expands to sums).
std::optional<std::int64_t> largestFdCountIn(const clang::Stmt *stmt, const clang::ASTContext &ctx,
                                             CapOf cap = nullptr);

// Source edits.
// The statement's range with a trailing ';', invalid when it starts or ends in a macro.
clang::CharSourceRange statementRange(const clang::Stmt *stmt, const clang::ASTContext &ctx);
// `range` grown to whole lines when nothing else is on them (and the newline before them);
// otherwise with the blanks after it, so clang's fix-it merging and clangd read the same.
clang::CharSourceRange wholeLines(clang::CharSourceRange range, const clang::ASTContext &ctx);
std::string indentationAt(clang::SourceLocation loc, const clang::ASTContext &ctx);

} // namespace afunix::analysis
