#include "Rules.h"

#include "Queries.h"

#include <set>

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
  for (const SendSite &site : expandSends(P)) {
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
      if (!payload.var.empty() && payload.var == primary.channelVar) {
        variant = "self";
        created = singleOrigin(P, payload.place);
      } else {
        Id a = singleOrigin(P, payload.place), b = singleOrigin(P, primary.channel);
        if (a == kNone || b == kNone)
          continue;
        const facts::Create &ca = P.creates[a], &cb = P.creates[b];
        created = a;
        if (a == b) {
          variant = "self";
        } else if (ca.site == cb.site && createdBy(ca, {"socketpair"})) {
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
