#include "Rules.h"

#include "Queries.h"

#include "afunix/KernelConstants.h"

#include <set>

namespace afunix::rules {

using namespace analysis;

namespace {

// A channel made in this very loop (a fresh accept() per turn) gets one message each: what is
// in flight is bounded by the connections, not by this loop.
bool channelMadeIn(const Program &P, Id loop, Id channel) {
  const std::vector<Id> &origins = P.originsOf(channel);
  if (origins.empty())
    return false;
  for (Id origin : origins) {
    Id site = P.creates[origin].site;
    if (site == kNone || !P.loopEncloses(loop, P.sites[site].loop))
      return false;
  }
  return true;
}

// Whether `loop` (in `function`) receives from the channel in each turn: recv/recvmsg/read/...
// on the same socket, directly or through a function that receives on its parameter. A channel
// we cannot name (a call result, a dereference) is matched by any receive: the rule would rather
// miss a flood than call an acknowledged loop unbounded.
bool receivesInLoop(const Program &P, Id loop, Id function, const SendLevel &level) {
  bool anyChannel = level.channelVar.empty();
  for (const facts::Receive &r : P.receives) {
    const facts::Site &site = P.sites[r.site];
    if (site.function != function || !P.loopEncloses(loop, site.loop))
      continue;
    if (anyChannel || site.var == level.channelVar)
      return true;
  }
  for (Id c : P.callsIn(function)) {
    const facts::Call &call = P.calls[c];
    if (!P.loopEncloses(loop, P.sites[call.site].loop))
      continue;
    for (unsigned i = 0; i < call.args.size(); ++i)
      if (call.args[i].mode != facts::ArgMode::None &&
          (anyChannel || call.args[i].var == level.channelVar) && P.receivesOnParam(call.callee, i))
        return true;
  }
  return false;
}

} // namespace

void fdFlood(RuleContext &ctx) {
  const Program &P = ctx.P;
  const auto *chosen = ctx.kernelVariant("since-6.8");
  if (!chosen)
    return;
  std::set<Id> reported;
  for (const SendSite &site : expandSends(P)) {
    const PayloadFd *socketPayload = nullptr;
    std::vector<Id> origins;
    bool certain = false, manyPerMessage = false;
    for (const PayloadFd &payload : site.payload) {
      std::vector<Id> set = payload.many ? elementOrigins(P, payload.place) : P.originsOf(payload.place);
      bool unix = false, all = !set.empty();
      for (Id o : set) {
        bool isUnix = fdKind(P.creates[o]) == FdKind::UnixSocket;
        unix |= isUnix;
        all &= isUnix;
      }
      if (!unix)
        continue; // known non-sockets and fds of unknown origin are not reported
      if (!socketPayload) {
        socketPayload = &payload;
        origins = set;
        certain = all;
      }
      // A run-time count is bounded only by the array it is copied from.
      if (payload.many && payload.count < 0 && !payload.boundedArray)
        manyPerMessage = true;
    }
    if (!socketPayload)
      continue;

    // Loops around the send, innermost first, then the loops around each caller.
    Id unboundedLoop = kNone;
    bool acknowledged = false;
    for (const SendLevel &level : site.levels) {
      for (Id loop = level.loop; loop != kNone; loop = P.loops[loop].parent) {
        const facts::Loop &l = P.loops[loop];
        if (l.errnoRetry)
          continue; // resends the same message, adds no fds in flight
        if (channelMadeIn(P, loop, level.channel))
          continue;
        if (receivesInLoop(P, loop, level.function, level)) {
          acknowledged = true;
          break;
        }
        // A loop with a small constant trip count adds a bounded number of fds.
        if (l.trips && *l.trips <= kernel::kScmMaxFd)
          continue;
        unboundedLoop = loop;
        break;
      }
      if (acknowledged || unboundedLoop != kNone)
        break;
    }
    if (acknowledged || (unboundedLoop == kNone && !manyPerMessage))
      continue;

    const SendLevel &primary = site.levels.back();
    if (!reported.insert(primary.site).second)
      continue;
    const std::string &fdText = socketPayload->text;
    const std::string &overText = primary.channelText;
    std::string what = socketPayload->many ? "passing AF_UNIX sockets from '" + fdText + "'"
                       : certain           ? "passing AF_UNIX socket '" + fdText + "'"
                                           : "passing '" + fdText + "', possibly an AF_UNIX socket,";
    std::string how, bound;
    if (unboundedLoop != kNone) {
      how = site.levels.size() > 1 ? "in a loop (through '" + primary.callee + "')" : "in a loop";
      bound = "receive an acknowledgement from the peer on '" + overText +
              "' in each iteration, or send in chunks of at most " +
              std::to_string(kernel::kScmMaxFd) + " fds and wait for each";
    } else {
      how = "with a run-time number of them in one message";
      bound = "send them in chunks of at most " + std::to_string(kernel::kScmMaxFd) +
              " and wait for the peer's acknowledgement of each";
    }
    Report &r = ctx.report(primary.site, *chosen,
                           {{"what", what}, {"socket", overText}, {"how", how}, {"bound", bound}});
    for (Id o : origins)
      if (fdKind(P.creates[o]) == FdKind::UnixSocket) {
        ctx.note(r, P.creates[o].site, "socket created here");
        break;
      }
    if (unboundedLoop != kNone)
      ctx.note(r, P.loops[unboundedLoop].site, "loop here");
    if (site.levels.size() > 1)
      ctx.note(r, site.levels.front().site, "sent here");
  }
}

} // namespace afunix::rules
