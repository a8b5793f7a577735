#pragma once

#include "FdCheckBase.h"

namespace clang::tidy::afunix {

// afunix-fd-flood: AF_UNIX socket fds passed with SCM_RIGHTS with nothing bounding how many are
// in flight (a loop with no receive from the peer, or a run-time number of sockets per message).
class FdFloodCheck : public FdCheckBase {
public:
  using FdCheckBase::FdCheckBase;
  void registerMatchers(ast_matchers::MatchFinder *finder) override {
    registerSendmsgMatcher(finder);
  }

private:
  void checkSends(const fd::FdFacts &facts) override;
  bool channelMadeIn(const fd::FdFacts &facts, const fd::LoopNode *loop,
                     const Expr *channel) const;
};

} // namespace clang::tidy::afunix
