#include "Rules.h"

#include "Queries.h"

#include <set>
#include <sys/socket.h>

namespace afunix::rules {

using namespace analysis;

namespace {

// The one origin of a place, when it has exactly one and the place holds that very fd (not a
// dup() of it, not an element read at a run-time index: then one creator stands for many).
Id singleOrigin(const Program &P, Id place) {
  const std::vector<Id> &origins = P.originsOf(place);
  if (origins.size() != 1)
    return kNone;
  Id o = origins.front();
  FdKind kind = fdKind(P.creates[o]);
  if (P.creates[o].site == kNone || kind == FdKind::NotSocket || kind == FdKind::OtherSocket ||
      !P.reachesExactly(o, place))
    return kNone;
  return o;
}

bool createdBy(const facts::Create &c, std::initializer_list<llvm::StringRef> names) {
  for (llvm::StringRef name : names)
    if (c.creator == name)
      return true;
  return false;
}

// Where the sendmsg() at `send` sends to (its msg_name), as the addresses it can name.
std::vector<std::string> destinationsOf(const Program &P, Id send) {
  const facts::Site &at = P.sites[send];
  for (const facts::Write &w : P.writes) {
    const facts::Site &ws = P.sites[w.site];
    if (ws.file == at.file && ws.offset == at.offset)
      return addressesOf(P, w.address, w.site);
  }
  return {};
}

// Whether the datagram socket of `origin` is bound to one of `addresses`.
bool boundTo(const Program &P, Id origin, const std::vector<std::string> &addresses) {
  for (const facts::LifecycleEvent &e : P.lifecycle)
    if (e.kind == facts::Lifecycle::Bind && P.reaches(origin, e.place))
      for (const std::string &a : addressesOf(P, e.address, e.site))
        if (llvm::is_contained(addresses, a))
          return true;
  return false;
}

// Whether what lands on the queue of `owner` is received there after the send at `send` (the
// recvmsg() in the same function, or in a function called there): it is received back before the
// sockets are closed, which is the fix, and nothing is left for the GC.
bool receivedBack(const Program &P, Id owner, Id send) {
  for (const facts::Receive &r : P.receives) {
    if (r.kind != facts::ReceiveKind::Recvmsg || !P.reaches(owner, r.place))
      continue;
    if (P.mustFollow(send, r.site, false))
      return true;
    for (Id call : P.callSitesReaching(owner, r.place))
      if (P.mustFollow(send, call, false))
        return true;
  }
  return false;
}

// Whether `function` connect()s the socket of `origin`.
bool connectsIn(const Program &P, Id function, Id origin) {
  for (const facts::LifecycleEvent &e : P.lifecycle)
    if (e.kind == facts::Lifecycle::Connect && P.sites[e.site].function == function &&
        P.reaches(origin, e.place))
      return true;
  return false;
}

} // namespace

void fdCycle(RuleContext &ctx) {
  const Program &P = ctx.P;
  std::set<Id> reported;
  for (const SendSite &site : sendsOf(ctx)) {
    if (!ctx.spend(site.payload.size() + 1))
      return;
    const SendLevel &primary = site.levels.back();
    for (const PayloadFd &payload : site.payload) {
      if (payload.many)
        continue; // arrays: which element goes where is not known statically
      // procs[slot].fd over procs[i].fd: one creation site stands for the sockets of many
      // objects; only the very same expression is known to be the same socket.
      if ((!payload.exact || !primary.channelExact) && payload.text != primary.channelText)
        continue;
      std::string variant, relation;
      Id created = kNone;
      Id a = singleOrigin(P, payload.place), b = singleOrigin(P, primary.channel);
      bool same = (!payload.var.empty() && payload.var == primary.channelVar) || (a != kNone && a == b);
      if (same) {
        // A socket sent over itself is queued on its peer, whose close frees it: no cycle. The
        // one exception: a datagram socket that sends itself to the address it is bound to.
        created = a != kNone ? a : b;
        if (created == kNone || P.creates[created].type != SOCK_DGRAM)
          continue;
        std::vector<std::string> to = destinationsOf(P, site.levels.front().site);
        if (to.empty() || !boundTo(P, created, to))
          continue;
        variant = "own-address";
      } else {
        if (a == kNone || b == kNone)
          continue;
        const facts::Create &ca = P.creates[a], &cb = P.creates[b];
        created = a;
        if (ca.site == cb.site && createdBy(ca, {"socketpair"})) {
          variant = "peer";
          relation = "its socketpair() peer";
        } else {
          // connect() and accept() in one function: conservatively the same connection only
          // when both ends are made there and the listener is AF_UNIX.
          Id accepted = createdBy(ca, {"accept", "accept4"}) ? a : b;
          Id connecting = accepted == a ? b : a;
          const facts::Create &acc = P.creates[accepted], &con = P.creates[connecting];
          if (!createdBy(acc, {"accept", "accept4"}) || !createdBy(con, {"socket"}) ||
              fdKind(acc) != FdKind::UnixSocket)
            continue;
          Id function = P.sites[acc.site].function;
          if (function == kNone || function != P.sites[con.site].function ||
              !connectsIn(P, function, connecting))
            continue;
          variant = "peer";
          relation = accepted == a ? "accept()ed from the listener it connect()s to"
                                   : "connect()ed to the listener it was accept()ed from";
        }
      }
      if (receivedBack(P, created, primary.site))
        continue;
      const auto *chosen = ctx.variant(variant);
      if (!chosen || !reported.insert(primary.site).second)
        continue;
      Report &r = ctx.report(primary.site, *chosen,
                             {{"socket", payload.text}, {"peer", primary.channelText}, {"relation", relation}});
      if (created != kNone)
        ctx.note(r, P.creates[created].site, "socket created here");
      if (site.levels.size() > 1)
        ctx.note(r, site.levels.front().site, "sent here");
    }
  }
}

} // namespace afunix::rules
