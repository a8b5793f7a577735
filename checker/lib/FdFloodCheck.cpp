#include "FdFloodCheck.h"

#include "llvm/ADT/DenseSet.h"

namespace clang::tidy::afunix {

using fd::FdKind;

namespace {

// An array declared with at most SCM_MAX_FD elements bounds a run-time count copied from it.
bool boundedArray(const Expr *array) {
  const Expr *e = array ? array->IgnoreParenImpCasts() : nullptr;
  if (!e)
    return false;
  if (const auto *type = dyn_cast<ConstantArrayType>(e->getType().getTypePtr()->getUnqualifiedDesugaredType()))
    return type->getSize().getZExtValue() <= fd::kScmMaxFd;
  return false;
}

std::string calleeText(const CallExpr *call) {
  if (const FunctionDecl *fn = call->getDirectCallee())
    return fn->getNameAsString();
  return "a wrapper";
}

} // namespace

bool FdFloodCheck::channelMadeIn(const fd::FdFacts &facts, const fd::LoopNode *loop,
                                 const Expr *channel) const {
  fd::OriginSet origins = facts.resolve(channel, Producers);
  if (origins.origins.empty())
    return false;
  for (const fd::FdOrigin &origin : origins.origins) {
    const fd::CallRecord *made = origin.creator ? facts.recordOf(origin.creator) : nullptr;
    bool inside = false;
    for (const fd::LoopNode *n = made ? made->loop : nullptr; n && !inside; n = n->parent)
      inside = n == loop;
    if (!inside)
      return false;
  }
  return true;
}

void FdFloodCheck::checkSends(const fd::FdFacts &facts) {
  llvm::DenseSet<const CallExpr *> reported;
  for (const fd::SendSite &site : facts.sends()) {
    const fd::PayloadFd *socketPayload = nullptr;
    const fd::FdOrigin *created = nullptr;
    bool certain = false;
    bool manyPerMessage = false;
    fd::OriginSet origins;
    for (const fd::PayloadFd &payload : site.payload) {
      fd::OriginSet set = payload.many ? facts.resolveElements(payload.fd, Producers)
                                       : facts.resolve(payload.fd, Producers);
      if (!set.any(FdKind::UnixSocket))
        continue; // known non-sockets and fds of unknown origin are not reported
      if (!socketPayload) {
        socketPayload = &payload;
        origins = set;
        certain = std::all_of(set.origins.begin(), set.origins.end(), [](const fd::FdOrigin &o) {
          return o.kind == FdKind::UnixSocket;
        });
      }
      // A run-time count is bounded only by the array it is copied from.
      if (payload.many && !payload.count && !boundedArray(payload.fd))
        manyPerMessage = true;
    }
    if (!socketPayload)
      continue;
    created = origins.first(FdKind::UnixSocket);

    // Loop membership from the AST, innermost loop first, then the loops around each caller.
    const Stmt *unboundedLoop = nullptr;
    bool acknowledged = false;
    for (const fd::SendLevel &level : site.levels) {
      for (const fd::LoopNode *loop = level.loop; loop; loop = loop->parent) {
        if (fd::FdFacts::isErrnoRetry(loop->loop))
          continue;
        // A channel made in this very loop (a fresh accept() per turn) gets one message each:
        // what is in flight is bounded by the connections, not by this loop.
        if (channelMadeIn(facts, loop, level.over))
          continue;
        if (facts.receivesInLoop(loop, level.function, level.over)) {
          acknowledged = true;
          break;
        }
        // A loop with a small constant trip count adds a bounded number of fds.
        if (std::optional<int64_t> trips = facts.constantTrips(loop->loop);
            trips && *trips <= fd::kScmMaxFd)
          continue;
        unboundedLoop = loop->loop;
        break;
      }
      if (acknowledged || unboundedLoop)
        break;
    }
    if (acknowledged || (!unboundedLoop && !manyPerMessage))
      continue;

    const CallExpr *primary = site.levels.back().call;
    if (!reported.insert(primary).second)
      continue;
    std::string fdText = facts.text(socketPayload->fd);
    std::string overText = facts.text(site.over);
    std::string what = socketPayload->many ? "passing AF_UNIX sockets from '" + fdText + "'"
                       : certain         ? "passing AF_UNIX socket '" + fdText + "'"
                                         : "passing '" + fdText + "', possibly an AF_UNIX socket,";
    std::string how;
    std::string bound;
    if (unboundedLoop) {
      how = site.levels.size() > 1 ? "in a loop (through '" + calleeText(primary) + "')" : "in a loop";
      bound = "receive an acknowledgement from the peer on '" + overText +
              "' in each iteration, or send in chunks of at most 253 fds and wait for each";
    } else {
      how = "with a run-time number of them in one message";
      bound = "send them in chunks of at most 253 and wait for the peer's acknowledgement of each";
    }
    diag(primary->getBeginLoc(),
         message(kernelVariant(), {{"what", what}, {"socket", overText}, {"how", how}, {"bound", bound}}),
         severity());
    if (created && created->creator)
      diag(created->creator->getBeginLoc(), "socket created here", DiagnosticIDs::Note);
    if (unboundedLoop)
      diag(unboundedLoop->getBeginLoc(), "loop here", DiagnosticIDs::Note);
    if (site.levels.size() > 1)
      diag(site.levels.front().call->getBeginLoc(), "sent here", DiagnosticIDs::Note);
  }
}

} // namespace clang::tidy::afunix
