// Fd-passing facts of one translation unit: every sendmsg() whose function builds an SCM_RIGHTS
// message, the fds copied into its payload, the channel it goes over, and the loops around it;
// wrappers such as send_fd(int over, int fd) are expanded to their call sites in the TU, so a
// send is judged by what its callers pass. Fd origins (socket(), socketpair() ends, accept(),
// pipe(), open(), ...) are resolved on demand along assignments, initialisations, struct fields,
// constant-index array elements, call arguments and return values.
//
// The index is built by one RecursiveASTVisitor walk of the TU (system headers skipped), only in
// TUs that call sendmsg() at all, and shared by the afunix-fd-* checks of that TU.
#pragma once

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSet.h"

#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace clang::tidy::afunix::fd {

// Library headers hold declarations, not the program's sends: the fd walkers skip them, which
// keeps each walk proportional to the project's own code.
inline bool declaredInSystemHeader(const Decl *d, const SourceManager &sm) {
  return !isa<TranslationUnitDecl>(d) && d->getLocation().isValid() &&
         sm.isInSystemHeader(sm.getExpansionLoc(d->getLocation()));
}

// SCM_MAX_FD: the kernel refuses more fds in one SCM_RIGHTS message with EINVAL.
inline constexpr int64_t kScmMaxFd = 253;

enum class FdKind { UnixSocket, OtherSocket, NotSocket, Unknown };

// Where an fd value comes from.
struct FdOrigin {
  FdKind kind = FdKind::Unknown;
  const CallExpr *creator = nullptr; // socket(), socketpair(), accept(), pipe(), open(), ...
  int index = -1;                    // socketpair()/pipe() end; -1 otherwise
  // False when the value went through an array element with a run-time index: the same creator
  // then stands for many sockets, so "same origin" no longer means "same socket".
  bool exact = true;
  bool operator==(const FdOrigin &o) const {
    return kind == o.kind && creator == o.creator && index == o.index && exact == o.exact;
  }
};

struct OriginSet {
  std::vector<FdOrigin> origins;
  bool any(FdKind kind) const;
  const FdOrigin *first(FdKind kind) const;
  void add(const FdOrigin &origin);
  void add(const OriginSet &other);
};

// A loop in some function; loops nest through `parent` (within one function).
struct LoopNode {
  const Stmt *loop = nullptr;
  const LoopNode *parent = nullptr;
};

struct CallRecord {
  const CallExpr *call = nullptr;
  const FunctionDecl *function = nullptr; // enclosing function, nullptr at file scope
  const LoopNode *loop = nullptr;         // innermost enclosing loop in that function
};

// One fd (or array of fds) written into an SCM_RIGHTS payload.
struct PayloadFd {
  const Expr *fd = nullptr; // the fd value, or the array/pointer the fds are copied from
  bool many = false;        // an array or a loop of fds in one message
  std::optional<int64_t> count; // fds per message when a constant says so
  const Stmt *write = nullptr;  // the memcpy() or store into CMSG_DATA
};

// One level of a send: the sendmsg() itself (level 0) or a call of a wrapper around it.
struct SendLevel {
  const CallExpr *call = nullptr;
  const FunctionDecl *function = nullptr;
  const LoopNode *loop = nullptr;
  const Expr *over = nullptr; // the channel as spelled at this level
};

// A send of SCM_RIGHTS fds, expanded to the outermost call site that supplies its arguments.
struct SendSite {
  std::vector<SendLevel> levels; // [0] = sendmsg(), back() = where it is judged and reported
  const Expr *over = nullptr;    // the channel at back()
  std::vector<PayloadFd> payload; // as seen at back()
};

class FdFacts {
public:
  // The facts of the TU of `context`, built on first use and shared while any check holds them.
  static std::shared_ptr<FdFacts> shared(ASTContext &context);
  explicit FdFacts(ASTContext &context);

  ASTContext &context() const { return *Ctx; }
  const std::vector<SendSite> &sends() const { return Sends; }

  // Origins of an fd value; `producers` are project functions that return AF_UNIX sockets.
  OriginSet resolve(const Expr *value, const llvm::StringSet<> &producers) const;
  // Origins of the elements of an array or pointer (`fds`, `fds + i`, `sv`).
  OriginSet resolveElements(const Expr *array, const llvm::StringSet<> &producers) const;

  // Whether `loop` (in `function`) receives from `channel` in each turn: recv/recvmsg/read/...
  // on the same location, directly or through a TU function that receives on its parameter.
  bool receivesInLoop(const LoopNode *loop, const FunctionDecl *function,
                      const Expr *channel) const;
  // A constant upper bound on the number of turns (`for (i = 0; i < 16; i++)`), if visible.
  std::optional<int64_t> constantTrips(const Stmt *loop) const;
  // A loop that only retries on errno (`do r = sendmsg(...); while (r < 0 && errno == EINTR);`,
  // TEMP_FAILURE_RETRY): it resends the same message, it does not add fds in flight.
  static bool isErrnoRetry(const Stmt *loop);

  // Calls of connect() in `function` whose socket argument can be `origin`.
  bool connectsInFunction(const FunctionDecl *function, const FdOrigin &origin,
                          const llvm::StringSet<> &producers) const;
  const CallRecord *recordOf(const CallExpr *call) const;

  // Same place: same variable, same field of the same object, same constant array element.
  static bool sameLocation(const Expr *a, const Expr *b);
  std::string text(const Expr *expr) const;

  // Implementation data filled by the index walk (FdPassingFacts.cpp).
  struct StoreKey {
    const ValueDecl *decl;
    int64_t index; // -1 whole value, >= 0 constant element, -2 element at a run-time index
    bool operator==(const StoreKey &o) const { return decl == o.decl && index == o.index; }
  };
  struct StoreKeyInfo {
    static StoreKey getEmptyKey() { return {nullptr, INT64_MIN}; }
    static StoreKey getTombstoneKey() { return {nullptr, INT64_MIN + 1}; }
    static unsigned getHashValue(const StoreKey &k) {
      return llvm::hash_combine(k.decl, k.index);
    }
    static bool isEqual(const StoreKey &a, const StoreKey &b) { return a == b; }
  };

private:
  friend class FdIndexBuilder;
  void buildSends();
  void collectPayload(const FunctionDecl *function, const CallRecord &sendmsg,
                      std::vector<PayloadFd> &out) const;
  bool isCmsgData(const Expr *expr, const FunctionDecl *function) const;
  void resolveInto(const Expr *value, const llvm::StringSet<> &producers, OriginSet &out,
                   int depth, bool exact) const;
  void resolveElementInto(const Expr *array, int64_t index, const llvm::StringSet<> &producers,
                          OriginSet &out, int depth, bool exact) const;
  void resolveStores(const StoreKey &key, const llvm::StringSet<> &producers, OriginSet &out,
                     int depth, bool exact) const;
  void resolveCall(const CallExpr *call, const llvm::StringSet<> &producers, OriginSet &out,
                   int depth, bool exact) const;
  bool receivesOnParam(const FunctionDecl *function, unsigned param, int depth) const;

  ASTContext *Ctx;
  std::deque<LoopNode> Loops;
  std::vector<CallRecord> Calls;
  llvm::DenseMap<const CallExpr *, unsigned> CallIndex;
  llvm::DenseMap<const FunctionDecl *, std::vector<unsigned>> CallsIn;  // calls inside a function
  llvm::DenseMap<const FunctionDecl *, std::vector<unsigned>> CallersOf; // calls of a function
  llvm::DenseMap<StoreKey, std::vector<const Expr *>, StoreKeyInfo> Stores;
  // Arrays filled by socketpair()/pipe() (key: the array's declaration).
  llvm::DenseMap<const ValueDecl *, std::vector<const CallExpr *>> OutParams;
  llvm::DenseMap<const FunctionDecl *, std::vector<const Expr *>> Returns;
  // Stores `lhs = rhs` per function, with their loop (payload writes into CMSG_DATA).
  struct Assignment {
    const BinaryOperator *op;
    const LoopNode *loop;
  };
  llvm::DenseMap<const FunctionDecl *, std::vector<Assignment>> AssignsIn;
  // Pointer variables initialised or assigned from CMSG_DATA(...).
  llvm::DenseSet<const VarDecl *> CmsgDataPointers;
  llvm::DenseSet<const FunctionDecl *> ScmRightsFunctions;
  std::vector<unsigned> SendmsgCalls;
  std::vector<SendSite> Sends;
  mutable llvm::DenseMap<std::pair<const FunctionDecl *, unsigned>, bool> ReceivesOnParamCache;
};

} // namespace clang::tidy::afunix::fd
