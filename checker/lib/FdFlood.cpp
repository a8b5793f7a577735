#include "Rules.h"

#include "Queries.h"

#include "afunix/KernelConstants.h"

#include <map>
#include <optional>
#include <set>
#include <tuple>

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
    if (site == kNone || !loopEncloses(P, loop, P.sites[site].loop))
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
    if (site.function != function || !loopEncloses(P, loop, site.loop))
      continue;
    if (anyChannel || site.var == level.channelVar)
      return true;
  }
  for (Id c : P.callsIn(function)) {
    const facts::Call &call = P.calls[c];
    if (!loopEncloses(P, loop, P.sites[call.site].loop))
      continue;
    for (unsigned i = 0; i < call.args.size(); ++i) {
      const facts::Argument &arg = call.args[i];
      // The channel itself, or the struct it is a field of (wait_ack(conn) for conn.fd).
      bool names = arg.mode != facts::ArgMode::None && arg.var == level.channelVar;
      names |= !arg.var.empty() && llvm::StringRef(level.channelVar).starts_with(arg.var + ".");
      if ((anyChannel ? arg.mode != facts::ArgMode::None || !arg.var.empty() : names) &&
          P.receivesOnParam(call.callee, i))
        return true;
    }
  }
  return false;
}

// The sockets a channel may be that the program itself makes or is handed (not the values it
// cannot follow, such as the -1 it closes a field to).
std::vector<Id> knownOrigins(const Program &P, Id place) {
  std::vector<Id> out;
  for (Id o : P.originsOf(place))
    if (createdHere(P.creates[o].how) || P.creates[o].how == facts::CreateHow::External)
      out.push_back(o);
  return out;
}

// An origin made during the event: in one of the functions from the callback down to the send,
// or the connection the registrar itself accepts for the callback (evconnlistener).
bool madePerEvent(const Program &P, const EventChain &chain, Id origin) {
  const facts::Create &c = P.creates[origin];
  if (c.site == kNone)
    return false;
  if (c.site == chain.registration)
    return true;
  return llvm::is_contained(chain.functions, P.sites[c.site].function);
}

// What bounds the sends of one event (each a one-line reason), or "" when nothing does.
std::string eventBound(const Program &P, const SendSite &site, const EventChain &chain) {
  Id channel = site.levels.back().channel != kNone ? site.levels.back().channel : site.levels.front().channel;
  std::vector<Id> channels = knownOrigins(P, channel);
  std::vector<Id> functions = chain.functions;
  for (const SendLevel &level : site.levels)
    if (!llvm::is_contained(functions, level.function))
      functions.push_back(level.function);
  // The event's own handling receives from the peer on the channel: a request answered, one
  // reply's fds per request.
  for (const facts::Receive &r : P.receives) {
    if (!llvm::is_contained(functions, P.sites[r.site].function))
      continue;
    bool same = llvm::any_of(site.levels, [&](const SendLevel &l) {
      return l.function == P.sites[r.site].function && !l.channelVar.empty() && P.sites[r.site].var == l.channelVar;
    });
    for (Id o : channels)
      same |= P.reaches(o, r.place);
    if (same)
      return "receives on the channel";
  }
  // A channel made during the event (a connection accepted in the callback) gets one message per
  // event: what is in flight is bounded by the connections.
  if (!channels.empty() && llvm::all_of(channels, [&](Id o) { return madePerEvent(P, chain, o); }))
    return "channel made per event";
  // A datagram to a peer that stops at EAGAIN (MSG_DONTWAIT) and waits for the next event: the
  // peer's receive queue bounds what is in flight.
  const facts::Send *send = nullptr;
  for (const facts::Send &s : P.sends)
    if (s.site == site.levels.front().site)
      send = &s;
  if (send && send->dontWait && send->stopsOnEagain && !channels.empty() &&
      llvm::all_of(channels, [&](Id o) { return P.creates[o].type == kernel::kSockDgram; }))
    return "datagram with MSG_DONTWAIT, stops on EAGAIN";
  return "";
}

std::string where(const Program &P, Id site) {
  if (site == kNone)
    return "?";
  llvm::StringRef path = P.files[P.sites[site].file];
  return path.substr(path.rfind('/') + 1).str() + ":" + std::to_string(P.sites[site].line);
}

} // namespace

void fdFlood(RuleContext &ctx) {
  const Program &P = ctx.P;
  const auto *chosen = ctx.kernelVariant("since-6.8");
  if (!chosen)
    return;
  // The per-event wording for the same kernel.
  const ::afunix::catalog::Variant *perEvent = nullptr;
  if (!ctx.Options.targetKernel)
    perEvent = ctx.variant("per-event");
  else
    for (const char *id : {"per-event-before-6.8", "per-event", "per-event-since-6.19"})
      if (!perEvent)
        perEvent = ctx.variant(id);
  std::vector<Id> registrations = eventRegistrations(P);
  std::set<Id> reported;
  // Whether a loop receives on a channel depends on the loop, its function and the channel's
  // name only, and many expanded sites share them (every path through the same wrapper): asked
  // once each. Unmemoised, --pedantic walked every receive and call of the function again for
  // each loop of each level of each site.
  std::map<std::tuple<Id, Id, std::string>, bool> receives;
  auto receivesIn = [&](Id loop, Id function, const SendLevel &level) {
    auto [it, fresh] = receives.try_emplace({loop, function, level.channelVar}, false);
    if (fresh)
      it->second = receivesInLoop(P, loop, function, level);
    return it->second;
  };
  for (const SendSite &site : sendsOf(ctx)) {
    if (!ctx.spend(site.payload.size() + site.levels.size() + 1))
      return;
    const PayloadFd *socketPayload = nullptr, *unknownPayload = nullptr;
    std::vector<Id> origins;
    bool certain = false, manyPerMessage = false;
    for (const PayloadFd &payload : site.payload) {
      std::vector<Id> set = payload.many ? elementOrigins(P, payload.place) : P.originsOf(payload.place);
      bool unix = false, all = !set.empty(), unknown = set.empty();
      for (Id o : set) {
        FdKind kind = fdKind(P.creates[o]);
        unix |= kind == FdKind::UnixSocket;
        all &= kind == FdKind::UnixSocket;
        unknown |= kind == FdKind::Unknown;
      }
      if (!unix) {
        // Known non-sockets are never reported; fds of unknown type only as a pedantic note.
        if (unknown && !unknownPayload)
          unknownPayload = &payload;
        continue;
      }
      if (!socketPayload) {
        socketPayload = &payload;
        origins = set;
        certain = all;
      }
      // A run-time count is bounded only by the array it is copied from.
      if (payload.many && payload.count < 0 && !payload.boundedArray)
        manyPerMessage = true;
    }
    if (!socketPayload && !(ctx.Options.pedantic && unknownPayload))
      continue;

    // Loops around the send, innermost first, then the loops around each caller. A queued send's
    // flush loop sends whatever was queued: it repeats only what the queuing side repeats, and
    // bounds it when it receives from the peer per message.
    Id unboundedLoop = kNone, flushLoop = kNone;
    std::size_t loopLevel = site.levels.size() - 1;
    bool acknowledged = false;
    for (std::size_t i = 0; i < site.levels.size(); ++i) {
      const SendLevel &level = site.levels[i];
      for (Id loop : loopsAround(P, level.loop)) {
        const facts::Loop &l = P.loops[loop];
        if (l.errnoRetry || l.controlOnce)
          continue; // resends the same message, or the rest of it without its fds
        if (channelMadeIn(P, loop, level.channel))
          continue;
        if (receivesIn(loop, level.function, level)) {
          acknowledged = true;
          break;
        }
        if (site.queued && i == 0) {
          if (flushLoop == kNone)
            flushLoop = loop;
          continue;
        }
        // A loop with a small constant trip count adds a bounded number of fds, and so does a walk
        // of one received message's cmsgs or fds: the kernel puts one message's fds, at most
        // SCM_MAX_FD, in one SCM_RIGHTS cmsg. The loop around it (a receive loop) repeats them.
        if ((l.trips && *l.trips <= kernel::kScmMaxFd) || l.oneMessage)
          continue;
        unboundedLoop = loop;
        loopLevel = i;
        break;
      }
      if (acknowledged || unboundedLoop != kNone)
        break;
    }
    if (acknowledged)
      continue;

    // Reported once, at the statement to change: the send or wrapper call inside the loop that
    // repeats it (not at each caller that makes the socket concrete: those are notes).
    const SendLevel &primary = site.levels[loopLevel];
    const std::string &overText = site.levels.back().channelText;

    // No loop: once per event of an event-loop callback that reaches the send.
    std::optional<EventChain> event;
    std::string eventBoundedBy;
    if (unboundedLoop == kNone && !manyPerMessage) {
      if (!socketPayload || !perEvent)
        continue; // fds of unknown type are noted only where a loop repeats them
      event = eventChain(P, registrations, primary.function);
      if (!event)
        continue;
      // The fds must be made during the event (accepted, socketpair()ed): sockets that outlive
      // the events (listeners, a stored stream) are as many as the program holds.
      bool perEventFds = false, allPerEvent = true;
      for (Id o : origins)
        if (fdKind(P.creates[o]) == FdKind::UnixSocket) {
          bool made = madePerEvent(P, *event, o);
          perEventFds |= made;
          allPerEvent &= made;
        }
      if (!perEventFds || !allPerEvent)
        continue;
      if (!eventBound(P, site, *event).empty())
        continue;
    }
    if (!reported.insert(primary.site).second)
      continue;

    std::string how, bound;
    std::string flush = site.queued ? P.functions[site.levels.front().function].name : "";
    if (unboundedLoop != kNone) {
      how = site.queued ? "queued in a loop (with '" + primary.callee + "', sent by '" + flush + "')"
            : loopLevel > 0 ? "in a loop (through '" + primary.callee + "')"
                            : "in a loop";
      bound = "receive an acknowledgement from the peer on '" + overText +
              "' in each iteration, or send in chunks of at most " +
              std::to_string(kernel::kScmMaxFd) + " fds and wait for each";
    } else if (manyPerMessage) {
      how = "with a run-time number of them in one message";
      bound = "send them in chunks of at most " + std::to_string(kernel::kScmMaxFd) +
              " and wait for the peer's acknowledgement of each";
    } else {
      how = site.queued ? "(queued with '" + primary.callee + "', sent by '" + flush + "')"
            : site.levels.size() > 1 ? "(through '" + primary.callee + "')"
                                     : "";
      bound = "receive an acknowledgement from the peer on '" + overText +
              "' before sending the next, or send over a connection made for the event";
    }

    if (!socketPayload) {
      // --pedantic: fds whose type nothing in the program says.
      const auto *note = ctx.variant("unknown-fd");
      if (!note)
        continue;
      Report &r = ctx.report(primary.site, *note,
                             {{"fd", unknownPayload->text}, {"socket", overText}, {"how", how}, {"bound", bound}});
      if (unboundedLoop != kNone)
        ctx.note(r, P.loops[unboundedLoop].site, "loop here");
      if (site.levels.size() > 1)
        ctx.note(r, site.levels.front().site, "sent here");
      continue;
    }

    const std::string &fdText = socketPayload->text;
    std::string what = socketPayload->many ? "passing AF_UNIX sockets from '" + fdText + "'"
                       : certain           ? "passing AF_UNIX socket '" + fdText + "'"
                                           : "passing '" + fdText + "', possibly an AF_UNIX socket,";
    std::map<std::string, std::string> fill{{"what", what}, {"socket", overText}, {"how", how}, {"bound", bound}};
    if (event) {
      fill["callback"] = P.functions[event->callback].name;
      fill["registration"] = where(P, event->registration);
      if (!how.empty())
        fill["what"] = what + " " + how;
    }
    Report &r = ctx.report(primary.site, event ? *perEvent : *chosen, fill);
    for (Id o : origins)
      if (fdKind(P.creates[o]) == FdKind::UnixSocket) {
        ctx.note(r, P.creates[o].site, "socket created here");
        break;
      }
    if (unboundedLoop != kNone)
      ctx.note(r, P.loops[unboundedLoop].site, "loop here");
    if (event)
      ctx.note(r, event->registration,
               P.functions[event->callback].name + "() registered here: an event loop calls it once per event");
    if (site.levels.size() > 1 && loopLevel > 0)
      ctx.note(r, site.levels.front().site, site.queued ? "queued fds sent here by " + flush + "()" : "sent here");
    for (std::size_t outer = loopLevel + 1; outer < site.levels.size(); ++outer)
      ctx.note(r, site.levels[outer].site,
               "with '" + site.levels[outer].channelText + "' from " + P.functions[site.levels[outer].function].name + "()");
    if (flushLoop != kNone)
      ctx.note(r, P.loops[flushLoop].site, "every queued message sent in this loop, none waited for");
  }
}

} // namespace afunix::rules
