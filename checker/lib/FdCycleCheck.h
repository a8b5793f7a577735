#pragma once

#include "FdCheckBase.h"

namespace clang::tidy::afunix {

// afunix-fd-cycle: an AF_UNIX socket sent over itself, its socketpair() peer, or a socket
// connected to it: once closed, garbage only the unix GC can reclaim.
class FdCycleCheck : public FdCheckBase {
public:
  using FdCheckBase::FdCheckBase;
  void registerMatchers(ast_matchers::MatchFinder *finder) override {
    registerSendmsgMatcher(finder);
  }

private:
  void checkSends(const fd::FdFacts &facts) override;
};

} // namespace clang::tidy::afunix
