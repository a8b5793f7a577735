#include "Queries.h"

#include <algorithm>
#include <map>
#include <set>

namespace afunix::analysis {

bool createdHere(facts::CreateHow how) {
  return how == facts::CreateHow::Socket || how == facts::CreateHow::Socketpair ||
         how == facts::CreateHow::Accept || how == facts::CreateHow::Producer;
}

bool enablesPasscred(const facts::OptionSet &option) {
  return option.option == facts::Option::PassCred && option.value != facts::Tri::False;
}

// ---------------------------------------------------------------------------------------------
// Credentials

CredentialQueries::CredentialQueries(const Program &program) : P(program) {
  Options.assign(P.creates.size(), {});
  Events.assign(P.creates.size(), {});
  for (Id o = 0; o < P.options.size(); ++o)
    if (enablesPasscred(P.options[o]))
      for (Id origin : P.originsOf(P.options[o].place))
        Options[origin].push_back(o);
  for (Id e = 0; e < P.lifecycle.size(); ++e)
    for (Id origin : P.originsOf(P.lifecycle[e].place))
      Events[origin].push_back(e);
}

const std::vector<Id> &CredentialQueries::optionsOn(Id origin) const { return Options[origin]; }

std::vector<Id> CredentialQueries::eventsOn(Id origin, facts::Lifecycle kind) const {
  std::vector<Id> out;
  for (Id e : Events[origin])
    if (P.lifecycle[e].kind == kind)
      out.push_back(e);
  return out;
}

Passcred CredentialQueries::reaching(Id origin) const {
  if (!Options[origin].empty())
    return Passcred::Enabled;
  const facts::Create &create = P.creates[origin];
  if (!createdHere(create.how))
    return Passcred::Unknown; // its creator may have enabled it (PassCredentials=yes)
  // Only unix and netlink sockets deliver SCM_CREDENTIALS at all.
  if (create.family != facts::Family::Unknown && create.family != facts::Family::Unix &&
      create.family != facts::Family::Netlink)
    return Passcred::Unknown;
  if (create.how != facts::CreateHow::Accept)
    return Passcred::Never;
  if (create.listener == kNone || P.originsOf(create.listener).empty())
    return Passcred::Unknown;
  Passcred result = Passcred::Never;
  for (Id listener : P.originsOf(create.listener)) {
    if (!Options[listener].empty())
      return Passcred::Enabled;
    if (!createdHere(P.creates[listener].how))
      result = Passcred::Unknown;
  }
  return result;
}

namespace {
// A site, seen from the functions up the call chain: the calls that pass the origin into its
// function, and the calls of its function (and of their callers) at all, grouped by function.
std::map<Id, std::vector<Id>> seenFrom(const Program &p, Id origin, Id site, Id place) {
  std::map<Id, std::vector<Id>> out;
  auto add = [&](Id at) {
    std::vector<Id> &list = out[p.sites[at].function];
    if (!llvm::is_contained(list, at))
      list.push_back(at);
  };
  add(site);
  for (Id call : p.callSitesReaching(origin, place))
    add(call);
  std::vector<std::pair<Id, int>> work{{p.sites[site].function, 0}};
  std::set<Id> visited;
  while (!work.empty()) {
    auto [function, depth] = work.back();
    work.pop_back();
    if (function == kNone || depth >= 3 || !visited.insert(function).second)
      continue;
    for (Id c : p.callsOf(function)) {
      add(p.calls[c].site);
      work.push_back({p.calls[c].caller, depth + 1});
    }
  }
  return out;
}
} // namespace

bool CredentialQueries::mayPrecede(Id origin, Id a, Id placeA, Id b, Id placeB, bool unknown) const {
  if (P.sites[a].function == P.sites[b].function)
    return P.mayPrecede(a, b, unknown);
  auto fromA = seenFrom(P, origin, a, placeA);
  auto fromB = seenFrom(P, origin, b, placeB);
  bool common = false;
  for (const auto &[function, sitesA] : fromA) {
    auto it = fromB.find(function);
    if (function == kNone || it == fromB.end())
      continue;
    for (Id x : sitesA)
      for (Id y : it->second) {
        if (P.sites[x].block == kNone || P.sites[y].block == kNone)
          continue;
        common = true;
        if (P.mayPrecede(x, y, unknown))
          return true;
      }
  }
  return common ? false : unknown;
}

bool CredentialQueries::mustFollow(Id origin, Id first, Id placeFirst, Id then, Id placeThen,
                                   bool unknown) const {
  if (P.sites[first].function == P.sites[then].function) {
    if (P.sites[first].block == kNone || P.sites[then].block == kNone)
      return unknown;
    return following(origin, first, placeFirst, then, placeThen).has_value();
  }
  auto fromFirst = seenFrom(P, origin, first, placeFirst);
  auto fromThen = seenFrom(P, origin, then, placeThen);
  for (const auto &[function, firsts] : fromFirst)
    if (function != kNone && fromThen.count(function))
      return following(origin, first, placeFirst, then, placeThen).has_value();
  return unknown;
}

std::optional<std::pair<Id, Id>> CredentialQueries::following(Id origin, Id first, Id placeFirst,
                                                              Id then, Id placeThen) const {
  // `then` comes after `first`: some path runs first and then `then`, none the other way round.
  // (Not dominance: a bind() inside an `if` still comes before the setsockopt() after it.)
  auto after = [&](Id x, Id y) { return P.mayPrecede(x, y, false) && !P.mayPrecede(y, x, true); };
  if (P.sites[first].function == P.sites[then].function) {
    if (after(first, then))
      return std::make_pair(first, then);
    return std::nullopt;
  }
  auto fromFirst = seenFrom(P, origin, first, placeFirst);
  auto fromThen = seenFrom(P, origin, then, placeThen);
  // The innermost function that sees both decides: every way `then` is reached from it comes
  // after one `first`.
  for (const auto &[function, firsts] : fromFirst) {
    auto it = fromThen.find(function);
    if (function == kNone || it == fromThen.end())
      continue;
    for (Id x : firsts) {
      bool all = !it->second.empty();
      for (Id y : it->second)
        all = all && after(x, y);
      if (all)
        return std::make_pair(x, it->second.front());
    }
    return std::nullopt;
  }
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// Fd passing

FdKind fdKind(const facts::Create &create) {
  if (create.how == facts::CreateHow::NotSocket)
    return FdKind::NotSocket;
  switch (create.family) {
  case facts::Family::Unix:
    return FdKind::UnixSocket;
  case facts::Family::Unknown:
    return FdKind::Unknown;
  default:
    return FdKind::OtherSocket;
  }
}

std::vector<Id> elementOrigins(const Program &program, Id array) {
  std::vector<Id> out = program.originsOf(array);
  if (array == kNone)
    return out;
  for (Id p = 0; p < program.places.size(); ++p)
    if (program.places[p].base == array)
      for (Id origin : program.originsOf(p))
        out.push_back(origin);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

namespace {

int paramIndex(const Program &p, Id place, Id function) {
  if (place == kNone || function == kNone)
    return -1;
  const facts::Place &pl = p.places[place];
  return pl.kind == facts::PlaceKind::Param && pl.function == function ? pl.index : -1;
}

// What `function` writes into the control message of a sendmsg() at `send`: a write in a loop
// that does not also hold the sendmsg() fills one message with many fds.
std::vector<PayloadFd> payloadsIn(const Program &p, const std::vector<std::vector<Id>> &byFunction,
                                  Id function, Id send) {
  std::vector<PayloadFd> out;
  if (function == kNone)
    return out;
  for (Id i : byFunction[function]) {
    const facts::Payload &pl = p.payloads[i];
    PayloadFd fd;
    fd.place = pl.place;
    fd.site = pl.site;
    fd.many = pl.many;
    fd.count = pl.count;
    fd.boundedArray = pl.boundedArray;
    fd.text = p.sites[pl.site].text;
    fd.var = p.sites[pl.site].var;
    Id writeLoop = p.sites[pl.site].loop;
    if (writeLoop != kNone && !p.loopEncloses(writeLoop, p.sites[send].loop)) {
      fd.many = true;
      fd.count = -1;
    }
    out.push_back(std::move(fd));
  }
  return out;
}

SendLevel callLevel(const Program &p, const facts::Call &call) {
  SendLevel level;
  level.site = call.site;
  level.function = call.caller;
  level.loop = p.sites[call.site].loop;
  level.callee = p.functions[call.callee].name;
  return level;
}

} // namespace

std::vector<SendSite> expandSends(const Program &p) {
  std::vector<std::vector<Id>> byFunction(p.functions.size());
  for (Id i = 0; i < p.payloads.size(); ++i)
    if (Id f = p.sites[p.payloads[i].site].function; f != kNone)
      byFunction[f].push_back(i);

  std::vector<SendSite> work, out;
  for (const facts::Send &send : p.sends) {
    const facts::Site &site = p.sites[send.site];
    SendLevel base;
    base.site = send.site;
    base.function = site.function;
    base.loop = site.loop;
    base.channel = send.channel;
    base.channelText = site.text;
    base.channelVar = site.var;
    if (site.function != kNone && send.msghdrParam >= 0 && !p.functions[site.function].buildsScmRights) {
      // A sendmsg() helper that takes the msghdr: the message is built by callers that name
      // SCM_RIGHTS; judge it there.
      for (Id c : p.callsOf(site.function)) {
        const facts::Call &call = p.calls[c];
        if (call.caller == kNone || !p.functions[call.caller].buildsScmRights)
          continue;
        SendLevel outer = callLevel(p, call);
        int param = paramIndex(p, send.channel, site.function);
        if (param >= 0) {
          if (static_cast<std::size_t>(param) >= call.args.size())
            continue;
          outer.channel = call.args[param].place;
          outer.channelText = call.args[param].text;
          outer.channelVar = call.args[param].var;
        } else {
          outer.channel = send.channel;
          outer.channelText = site.text;
          outer.channelVar = site.var;
        }
        SendSite s;
        s.levels = {base, outer};
        s.payload = payloadsIn(p, byFunction, call.caller, call.site);
        if (!s.payload.empty())
          work.push_back(std::move(s));
      }
      continue;
    }
    SendSite s;
    s.levels = {base};
    s.payload = payloadsIn(p, byFunction, site.function, send.site);
    if (!s.payload.empty())
      work.push_back(std::move(s));
  }

  // Wrappers: judged at each call site in the program, with the arguments put in.
  while (!work.empty()) {
    SendSite site = std::move(work.back());
    work.pop_back();
    const SendLevel &top = site.levels.back();
    Id fn = top.function;
    bool usesParam = paramIndex(p, top.channel, fn) >= 0;
    for (const PayloadFd &fd : site.payload)
      usesParam |= paramIndex(p, fd.place, fn) >= 0;
    if (!usesParam || fn == kNone || p.callsOf(fn).empty() || site.levels.size() > 4) {
      out.push_back(std::move(site));
      continue;
    }
    bool expanded = false;
    for (Id c : p.callsOf(fn)) {
      const facts::Call &call = p.calls[c];
      if (call.caller == fn)
        continue; // recursion
      auto substitute = [&](Id &place, std::string &text, std::string &var) {
        int param = paramIndex(p, place, fn);
        if (param < 0)
          return true;
        if (static_cast<std::size_t>(param) >= call.args.size())
          return false;
        place = call.args[param].place;
        text = call.args[param].text;
        var = call.args[param].var;
        return true;
      };
      SendSite outer = site;
      SendLevel level = callLevel(p, call);
      level.channel = top.channel;
      level.channelText = top.channelText;
      level.channelVar = top.channelVar;
      bool ok = substitute(level.channel, level.channelText, level.channelVar);
      for (PayloadFd &fd : outer.payload)
        ok = ok && substitute(fd.place, fd.text, fd.var);
      if (!ok)
        continue;
      outer.levels.push_back(std::move(level));
      work.push_back(std::move(outer));
      expanded = true;
    }
    if (!expanded)
      out.push_back(std::move(site));
  }
  // Stable order: by the primary site.
  std::sort(out.begin(), out.end(), [&](const SendSite &a, const SendSite &b) {
    Id sa = a.levels.back().site, sb = b.levels.back().site;
    return std::make_tuple(p.sites[sa].file, p.sites[sa].offset, a.levels.front().site) <
           std::make_tuple(p.sites[sb].file, p.sites[sb].offset, b.levels.front().site);
  });
  return out;
}

} // namespace afunix::analysis
