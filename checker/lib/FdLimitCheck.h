#pragma once

#include "FdCheckBase.h"

#include "llvm/ADT/DenseSet.h"

#include <vector>

namespace clang::tidy::afunix {

// afunix-fd-limit: an SCM_RIGHTS message sized for more than SCM_MAX_FD (253) fds, by a
// constant count, an int array, or CMSG_LEN/CMSG_SPACE(n * sizeof(int)): EINVAL on every kernel.
class FdLimitCheck : public FdCheckBase {
public:
  using FdCheckBase::FdCheckBase;
  void registerMatchers(ast_matchers::MatchFinder *finder) override {
    registerSendmsgMatcher(finder);
  }
  void onEndOfTranslationUnit() override;

private:
  void checkSends(const fd::FdFacts &) override {}

  // Where the message's fd count shows, in the order the kernel cares: cmsg_len is what it
  // reads, the payload copy is what fills it, the buffer only bounds it.
  enum class Where { CmsgLen, PayloadCopy, BufferSize };
  struct Candidate {
    Where where;
    const Stmt *node;
    int64_t count;
    const FunctionDecl *function;
    unsigned line;
  };
  friend class FdLimitWalker;
  void add(Where where, const Stmt *node, int64_t count, const FunctionDecl *function,
           ASTContext &context);

  std::vector<Candidate> Candidates;
  llvm::DenseSet<const FunctionDecl *> RightsFunctions;
  bool RightsAtFileScope = false;
};

} // namespace clang::tidy::afunix
