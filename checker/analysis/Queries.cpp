#include "Queries.h"

#include "Report.h"

#include "llvm/ADT/STLExtras.h"

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
// Sockets handed over by a service manager

Handover handoverOf(const Program &P, Id origin) {
  Handover out;
  const facts::Create &create = P.creates[origin];
  if (create.how != facts::CreateHow::External || create.handover.empty())
    return out;
  llvm::StringRef how = create.handover;
  std::vector<Id> matched;
  for (Id i = 0; i < P.services.size(); ++i) {
    const facts::ServiceSocket &socket = P.services[i];
    llvm::StringRef rest = how;
    if (rest.consume_front("android:")) {
      if (socket.manager == facts::Manager::AndroidInit && socket.name == rest)
        matched.push_back(i);
    } else if (rest.consume_front("listen-fd:") && socket.manager == facts::Manager::Systemd) {
      // sd_listen_fds_with_names(): the name decides, whatever the position.
      if (!create.handoverNames.empty()) {
        if (llvm::is_contained(create.handoverNames, socket.name))
          matched.push_back(i);
      } else if (rest == "*" || rest == std::to_string(socket.index)) {
        matched.push_back(i);
      }
    }
  }
  // A socket whose service runs another program of this project is not this program's.
  Id file = create.site == kNone ? kNone : P.sites[create.site].file;
  const std::string target = file == kNone ? "" : P.targetOf[file];
  bool targetIsService = !target.empty() && llvm::any_of(P.services, [&](const facts::ServiceSocket &s) {
    return llvm::is_contained(s.programs, target);
  });
  for (Id i : matched) {
    const facts::ServiceSocket &socket = P.services[i];
    if (!targetIsService || socket.programs.empty() || llvm::is_contained(socket.programs, target))
      out.sockets.push_back(i);
  }
  if (out.sockets.empty())
    return out;
  bool all = true, none = true;
  for (Id i : out.sockets) {
    all &= P.services[i].passcred == facts::Tri::True;
    none &= P.services[i].passcred == facts::Tri::False;
  }
  out.passcred = all ? facts::Tri::True : none ? facts::Tri::False : facts::Tri::Maybe;
  return out;
}

namespace {
std::string fileName(const Program &P, Id site) {
  if (site == kNone || P.sites[site].file == kNone)
    return "";
  llvm::StringRef path = P.files[P.sites[site].file];
  return path.substr(path.rfind('/') + 1).str();
}
} // namespace

std::string handoverName(const Program &P, const Handover &handover, const facts::Create &create) {
  if (handover.sockets.size() == 1) {
    const facts::ServiceSocket &s = P.services[handover.sockets.front()];
    if (s.manager == facts::Manager::AndroidInit)
      return "init (" + s.unit + " in " + fileName(P, s.site) + ")";
    return "systemd (" + s.unit + ")";
  }
  if (!handover.sockets.empty()) {
    std::string units;
    for (Id i : handover.sockets)
      if (units.find(P.services[i].unit) == std::string::npos)
        units += (units.empty() ? "" : ", ") + P.services[i].unit;
    return P.services[handover.sockets.front()].manager == facts::Manager::AndroidInit
               ? "init (" + units + ")"
               : "systemd (" + units + ")";
  }
  llvm::StringRef how = create.handover;
  if (how.starts_with("android:"))
    return "init (" + create.origin + ")";
  if (how.starts_with("listen-fd:"))
    return (create.creator == "SD_LISTEN_FDS_START" ? "the service manager (" : "the parent process (") +
           create.origin + ")";
  return create.origin;
}

std::string handoverAdvice(const Program &P, const Handover &handover, const facts::Create &create) {
  if (handover.sockets.size() == 1) {
    const facts::ServiceSocket &s = P.services[handover.sockets.front()];
    if (s.manager == facts::Manager::AndroidInit)
      return "add +passcred to the type of socket " + s.name + " in " + fileName(P, s.site);
    return "set PassCredentials=yes in " + s.unit;
  }
  if (!handover.sockets.empty())
    return P.services[handover.sockets.front()].manager == facts::Manager::AndroidInit
               ? "add +passcred to the socket's type in the .rc entries that declare it"
               : "set PassCredentials=yes in the socket units that hand it over";
  llvm::StringRef how = create.handover;
  if (how.consume_front("android:"))
    return "add +passcred to the type of socket " + how.str() + " in the service's init .rc entry";
  if (how.starts_with("listen-fd:"))
    return create.creator == "SD_LISTEN_FDS_START"
               ? "set PassCredentials=yes in the socket unit that hands it over"
               : "have the process that passes it enable SO_PASSCRED before handing it over "
                 "(PassCredentials=yes if that is a systemd socket unit)";
  return "have the socket's creator enable it (e.g. PassCredentials=yes for systemd units)";
}

// ---------------------------------------------------------------------------------------------
// Paired endpoints

std::vector<std::string> addressesOf(const Program &P, const facts::Address &address, Id site) {
  std::vector<std::string> out;
  if (!address.path.empty())
    out.push_back(address.path);
  Id function = site == kNone ? kNone : P.sites[site].function;
  if (address.param >= 0 && function != kNone)
    for (Id c : P.callsReaching(function)) {
      const facts::Call &call = P.calls[c];
      if (static_cast<std::size_t>(address.param) < call.args.size()) {
        const std::string &constant = call.args[address.param].constant;
        if (!constant.empty() && !llvm::is_contained(out, constant))
          out.push_back(constant);
      }
    }
  return out;
}

std::vector<Client> clientsOf(const Program &P, const CredentialQueries &Q, Id server) {
  std::set<std::string> bound;
  for (Id e : Q.eventsOn(server, facts::Lifecycle::Bind))
    for (const std::string &a : addressesOf(P, P.lifecycle[e].address, P.lifecycle[e].site))
      bound.insert(a);
  for (Id s : handoverOf(P, server).sockets)
    if (P.services[s].family == facts::Family::Unix)
      bound.insert(P.services[s].address);
  std::vector<Client> out;
  if (bound.empty())
    return out;
  auto add = [&](Id place, Id at) {
    for (Id origin : P.originsOf(place))
      if (origin != server && createdHere(P.creates[origin].how))
        out.push_back({origin, at, place});
  };
  for (const facts::LifecycleEvent &e : P.lifecycle)
    if (e.kind == facts::Lifecycle::Connect)
      for (const std::string &a : addressesOf(P, e.address, e.site))
        if (bound.count(a)) {
          add(e.place, e.site);
          break;
        }
  for (const facts::Write &w : P.writes)
    for (const std::string &a : addressesOf(P, w.address, w.site))
      if (bound.count(a)) {
        add(w.place, w.site);
        break;
      }
  return out;
}

namespace {
// Whether the write may run before the option on the same socket: on some path from the
// socket's creation (a loop that makes a new socket each turn starts over there), or, when the
// creation is not in view, on some path at all.
bool mayComeFirst(const Program &P, const CredentialQueries &Q, Id origin, const facts::Write &w,
                  const facts::OptionSet &option) {
  const facts::Create &create = P.creates[origin];
  if (create.site != kNone && P.sites[create.site].function != kNone)
    return Q.inOneRun(origin, create.site, create.place, w.site, w.place, option.site, option.place,
                      Q.mayPrecede(origin, w.site, w.place, option.site, option.place, false));
  return Q.mayPrecede(origin, w.site, w.place, option.site, option.place, false);
}
} // namespace

ClientVerdict clientStart(const Program &P, const CredentialQueries &Q, const Client &client) {
  const std::vector<Id> &options = Q.optionsOn(client.origin);
  std::vector<const facts::Write *> writes;
  for (const facts::Write &w : P.writes)
    if (P.reaches(client.origin, w.place))
      writes.push_back(&w);
  if (writes.empty())
    return options.empty() ? ClientVerdict{} : ClientVerdict{ClientStart::EnablesPasscred, P.options[options.front()].site};
  // Each write must carry credentials: attached by its sendmsg(), by the client's own SO_PASSCRED
  // set before it (an option the write may precede does not count: what it sent first went out
  // without), or the write waits for the server: in its function, a receive that every path to
  // the write passes; across functions, one that is ordered before it.
  Id enabledAt = kNone, waitedWith = kNone;
  for (const facts::Write *w : writes) {
    if (w->credentials)
      continue;
    Id option = kNone;
    for (Id o : options)
      if (!mayComeFirst(P, Q, client.origin, *w, P.options[o])) {
        option = P.options[o].site;
        break;
      }
    if (option != kNone) {
      if (enabledAt == kNone)
        enabledAt = option;
      continue;
    }
    Id before = kNone;
    for (const facts::Receive &r : P.receives) {
      if (!P.reaches(client.origin, r.place))
        continue;
      bool ordered = P.sites[r.site].function == P.sites[w->site].function
                         ? P.mustFollow(r.site, w->site, false)
                         : Q.mustFollow(client.origin, r.site, r.place, w->site, w->place, false);
      if (ordered) {
        before = r.site;
        break;
      }
    }
    if (before == kNone)
      return {ClientStart::SendsAtOnce, w->site};
    if (waitedWith == kNone)
      waitedWith = before;
  }
  if (waitedWith != kNone)
    return {ClientStart::WaitsForServer, waitedWith};
  if (enabledAt != kNone)
    return {ClientStart::EnablesPasscred, enabledAt};
  return {ClientStart::SendsCredentials, writes.front()->site};
}

std::vector<Id> serversOf(const Program &P, const CredentialQueries &Q, Id client) {
  std::set<std::string> wanted;
  for (Id e : Q.eventsOn(client, facts::Lifecycle::Connect))
    for (const std::string &a : addressesOf(P, P.lifecycle[e].address, P.lifecycle[e].site))
      wanted.insert(a);
  for (const facts::Write &w : P.writes)
    if (w.address.known() && P.reaches(client, w.place))
      for (const std::string &a : addressesOf(P, w.address, w.site))
        wanted.insert(a);
  std::vector<Id> out;
  if (wanted.empty())
    return out;
  for (Id origin = 0; origin < P.creates.size(); ++origin) {
    if (origin == client)
      continue;
    bool meets = false;
    for (Id e : Q.eventsOn(origin, facts::Lifecycle::Bind))
      for (const std::string &a : addressesOf(P, P.lifecycle[e].address, P.lifecycle[e].site))
        meets |= wanted.count(a) != 0;
    for (Id s : handoverOf(P, origin).sockets)
      meets |= P.services[s].family == facts::Family::Unix && wanted.count(P.services[s].address) != 0;
    if (meets)
      out.push_back(origin);
  }
  return out;
}

ServerVerdict serverAnswers(const Program &P, const CredentialQueries &Q, Id server) {
  bool listener = !Q.eventsOn(server, facts::Lifecycle::Listen).empty() || !Q.acceptedFrom(server).empty();
  // Set on the listener before listen(), or by the unit that made it: every connection has it
  // (inherited), and a socket with SO_PASSCRED attaches credentials to what it sends.
  Handover handover = handoverOf(P, server);
  if (handover.passcred == facts::Tri::True)
    return {ServerAnswers::EnablesPasscred, P.services[handover.sockets.front()].passcredSite};
  if (Id option = Q.enabledBefore(server, listener ? facts::Lifecycle::Listen : facts::Lifecycle::Bind);
      option != kNone)
    return {ServerAnswers::EnablesPasscred, option};
  std::vector<Id> answering = listener ? Q.acceptedFrom(server) : std::vector<Id>{server};
  Id enabledAt = kNone;
  bool any = false, allCredentials = true;
  for (Id socket : answering)
    for (const facts::Write &w : P.writes) {
      if (!P.reaches(socket, w.place))
        continue;
      any = true;
      if (w.credentials)
        continue;
      allCredentials = false;
      Id option = kNone;
      for (Id o : Q.optionsOn(socket))
        if (!mayComeFirst(P, Q, socket, w, P.options[o])) {
          option = P.options[o].site;
          break;
        }
      if (option == kNone)
        return {ServerAnswers::Unknown, w.site};
      if (enabledAt == kNone)
        enabledAt = option;
    }
  if (!any)
    return {};
  return allCredentials ? ServerVerdict{ServerAnswers::SendsCredentials, kNone}
                        : ServerVerdict{ServerAnswers::EnablesPasscred, enabledAt};
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
  Accepted.assign(P.creates.size(), {});
  for (Id c = 0; c < P.creates.size(); ++c)
    if (P.creates[c].how == facts::CreateHow::Accept && P.creates[c].listener != kNone)
      for (Id listener : P.listenersOf(P.creates[c]))
        Accepted[listener].push_back(c);
}

const std::vector<Id> &CredentialQueries::optionsOn(Id origin) const { return Options[origin]; }

const std::vector<Id> &CredentialQueries::acceptedFrom(Id origin) const { return Accepted[origin]; }

Id CredentialQueries::enabledBefore(Id origin, facts::Lifecycle kind) const {
  std::vector<Id> events = eventsOn(origin, kind);
  for (Id o : Options[origin]) {
    const facts::OptionSet &option = P.options[o];
    bool beforeAll = true;
    for (Id e : events)
      if (!mayPrecede(origin, option.site, option.place, P.lifecycle[e].site, P.lifecycle[e].place,
                      /*unknown=*/true))
        beforeAll = false;
    if (beforeAll)
      return option.site;
  }
  return kNone;
}

bool CredentialQueries::readsCredentials(const facts::Receive &receive) const {
  Id function = P.sites[receive.site].function;
  return receive.kind == facts::ReceiveKind::Recvmsg && function != kNone &&
         P.credentialEvidence(function) != kNone;
}

Id CredentialQueries::credentialRead(Id origin) const {
  auto readOn = [&](Id socket) {
    for (const facts::Receive &r : P.receives)
      if (readsCredentials(r) && P.reaches(socket, r.place))
        return r.site;
    return kNone;
  };
  if (Id at = readOn(origin); at != kNone)
    return at;
  for (Id accepted : Accepted[origin])
    if (Id at = readOn(accepted); at != kNone)
      return at;
  return kNone;
}

std::vector<Id> CredentialQueries::connectionsOf(Id origin) const {
  std::vector<Id> out = Accepted[origin];
  for (Id copy : P.clonesOf(origin))
    for (Id c : connectionsOf(copy))
      if (!llvm::is_contained(out, c))
        out.push_back(c);
  return out;
}

bool CredentialQueries::connectionsUnread(Id origin) const {
  // A function cloned per call: its own socket stands for every caller's copy, so each copy
  // must be unread too (the original's connections are the callers' not cloned, if any).
  llvm::ArrayRef<Id> clones = P.clonesOf(origin);
  if (!llvm::all_of(clones, [&](Id copy) { return connectionsUnread(copy); }))
    return false;
  const std::vector<Id> &connections = Accepted[origin];
  if (connections.empty())
    return !clones.empty();
  // No recvmsg() anywhere in the program looks at credentials: a connection the value flow loses
  // (into an object it does not follow) must not make a read look absent (vsomeip's accepted
  // Boost.Asio sockets, read through connection objects, are).
  if (llvm::any_of(P.receives, [&](const facts::Receive &r) { return readsCredentials(r); }))
    return false;
  auto reachedByAny = [&](Id place) {
    if (place == kNone)
      return false;
    if (P.reaches(origin, place))
      return true;
    return llvm::any_of(connections, [&](Id c) { return P.reaches(c, place); });
  };
  for (const facts::Payload &payload : P.payloads)
    if (reachedByAny(payload.place))
      return false;
  // Returned from a function nothing in the program calls (a library's API): its callers are
  // out of view. (main()'s return value is an exit status.)
  for (Id f = 0; f < P.functions.size(); ++f)
    if (P.callsReaching(f).empty() && P.functions[f].name != "main" && reachedByAny(P.returnPlace(f)))
      return false;
  for (const facts::Call &call : P.calls) {
    if (call.callee == kNone)
      continue;
    const facts::Function &callee = P.functions[call.callee];
    if (callee.defined || callee.system)
      continue;
    if (reachedByAny(call.receiver.place) ||
        llvm::any_of(call.args, [&](const facts::Argument &a) { return reachedByAny(a.place); }))
      return false;
  }
  return true;
}

bool CredentialQueries::onlyListening(Id origin) const {
  facts::CreateHow how = P.creates[origin].how;
  if (how != facts::CreateHow::Socket && how != facts::CreateHow::Producer)
    return false;
  bool listens = false;
  for (Id e : Events[origin]) {
    if (P.lifecycle[e].kind == facts::Lifecycle::Connect)
      return false;
    listens |= P.lifecycle[e].kind == facts::Lifecycle::Listen;
  }
  return listens;
}

bool CredentialQueries::unixByUse(Id origin) const {
  for (Id e : Events[origin])
    if (P.lifecycle[e].kind != facts::Lifecycle::Listen && P.lifecycle[e].address.known())
      return true;
  Handover handover = handoverOf(P, origin);
  if (!handover.sockets.empty() && llvm::all_of(handover.sockets, [&](Id s) {
        return P.services[s].family == facts::Family::Unix;
      }))
    return true;
  // An accepted socket is what its listener is.
  const facts::Create &create = P.creates[origin];
  if (create.how == facts::CreateHow::Accept && create.listener != kNone)
    return llvm::any_of(P.listenerViewsOf(origin), [&](llvm::ArrayRef<Id> listeners) {
      return llvm::all_of(listeners, [&](Id l) {
        return P.creates[l].family == facts::Family::Unix || (l != origin && unixByUse(l));
      });
    });
  return false;
}

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
  if (create.how == facts::CreateHow::External) {
    // Its creator may have enabled it: the project's service files say whether it did.
    facts::Tri configured = handoverOf(P, origin).passcred;
    return configured == facts::Tri::True    ? Passcred::Enabled
           : configured == facts::Tri::False ? Passcred::Never
                                             : Passcred::Unknown;
  }
  if (!createdHere(create.how))
    return Passcred::Unknown;
  // Only unix and netlink sockets deliver SCM_CREDENTIALS at all.
  if (create.family != facts::Family::Unknown && create.family != facts::Family::Unix &&
      create.family != facts::Family::Netlink)
    return Passcred::Unknown;
  if (create.how != facts::CreateHow::Accept)
    return Passcred::Never;
  if (create.listener == kNone)
    return Passcred::Unknown;
  auto fromListeners = [&](llvm::ArrayRef<Id> listeners) {
    Passcred result = Passcred::Never;
    for (Id listener : listeners) {
      if (!Options[listener].empty())
        return Passcred::Enabled;
      if (P.creates[listener].how == facts::CreateHow::External) {
        facts::Tri configured = handoverOf(P, listener).passcred;
        if (configured == facts::Tri::True)
          return Passcred::Enabled;
        if (configured == facts::Tri::Maybe)
          result = Passcred::Unknown;
      } else if (!createdHere(P.creates[listener].how)) {
        result = Passcred::Unknown;
      }
    }
    return result;
  };
  // One program of the database whose listeners never enable it is enough: its connections
  // never have it (listenerViewsOf()).
  std::vector<llvm::ArrayRef<Id>> views = P.listenerViewsOf(origin);
  if (views.empty())
    return Passcred::Unknown;
  Passcred result = Passcred::Enabled;
  for (llvm::ArrayRef<Id> view : views) {
    Passcred seen = fromListeners(view);
    if (seen == Passcred::Never)
      return Passcred::Never;
    if (seen == Passcred::Unknown)
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
  // A fact of a per-call clone happens through the calls the clone was made for, not through
  // every call of its function: above those, any call of the outermost caller.
  if (llvm::ArrayRef<Id> chain = p.cloneCalls(place); !chain.empty()) {
    for (Id call : chain)
      add(call);
    work = {{p.sites[chain.front()].function, static_cast<int>(chain.size())}};
  }
  std::set<Id> visited;
  while (!work.empty()) {
    auto [function, depth] = work.back();
    work.pop_back();
    if (function == kNone || depth >= 3 || !visited.insert(function).second)
      continue;
    for (Id c : p.callsReaching(function)) {
      add(p.calls[c].site);
      work.push_back({p.calls[c].caller, depth + 1});
    }
  }
  return out;
}
} // namespace

std::shared_ptr<const CredentialQueries::SeenFrom> CredentialQueries::seen(Id origin, Id site, Id place) const {
  // Bounded: past this many entries the cache starts again (what callers hold stays valid).
  constexpr std::size_t kSeenCacheEntries = 100000;
  auto key = std::make_tuple(origin, site, place);
  if (auto it = SeenCache.find(key); it != SeenCache.end())
    return it->second;
  if (SeenCache.size() >= kSeenCacheEntries)
    SeenCache.clear();
  auto made = std::make_shared<const SeenFrom>(seenFrom(P, origin, site, place));
  SeenCache.emplace(key, made);
  return made;
}

bool CredentialQueries::mayPrecede(Id origin, Id a, Id placeA, Id b, Id placeB, bool unknown) const {
  if (P.sites[a].function == P.sites[b].function)
    return P.mayPrecede(a, b, unknown);
  std::shared_ptr<const SeenFrom> fromAHeld = seen(origin, a, placeA);
  const SeenFrom &fromA = *fromAHeld;
  std::shared_ptr<const SeenFrom> fromBHeld = seen(origin, b, placeB);
  const SeenFrom &fromB = *fromBHeld;
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

namespace {
// Within one function: some path runs `a` and then `b` without running `barrier` in between
// (`barrier` may be `a` itself: without running it again). Positions are CFG skeleton blocks and
// the order inside a block.
bool pathAvoiding(const Program &P, Id a, Id b, Id barrier) {
  const facts::Site &A = P.sites[a], &B = P.sites[b], &X = P.sites[barrier];
  auto between = [&](std::uint32_t after, std::uint32_t before) {
    return X.element > after && X.element < before;
  };
  if (A.block == B.block && A.element < B.element)
    return !(X.block == A.block && between(A.element, B.element));
  if (X.block == A.block && X.element > A.element)
    return false; // leaving a's block runs the barrier
  const auto &successors = P.functions[A.function].successors;
  std::vector<bool> seen(successors.size());
  std::vector<Id> work(successors[A.block].begin(), successors[A.block].end());
  while (!work.empty()) {
    Id block = work.back();
    work.pop_back();
    if (block >= successors.size() || seen[block])
      continue;
    seen[block] = true;
    if (block == B.block && !(X.block == block && X.element < B.element))
      return true;
    if (X.block == block)
      continue;
    work.insert(work.end(), successors[block].begin(), successors[block].end());
  }
  return false;
}
} // namespace

bool CredentialQueries::inOneRun(Id origin, Id start, Id startPlace, Id a, Id placeA, Id b, Id placeB,
                                 bool unknown) const {
  auto known = [&](Id x, Id y, Id z) {
    return P.sites[x].block != kNone && P.sites[y].block != kNone && P.sites[z].block != kNone;
  };
  Id fn = P.sites[start].function;
  if (fn != kNone && P.sites[a].function == fn && P.sites[b].function == fn)
    return known(start, a, b) ? pathAvoiding(P, start, a, start) && pathAvoiding(P, a, b, start) : unknown;
  std::shared_ptr<const SeenFrom> fromStartHeld = seen(origin, start, startPlace);
  const SeenFrom &fromStart = *fromStartHeld;
  std::shared_ptr<const SeenFrom> fromAHeld = seen(origin, a, placeA);
  const SeenFrom &fromA = *fromAHeld;
  std::shared_ptr<const SeenFrom> fromBHeld = seen(origin, b, placeB);
  const SeenFrom &fromB = *fromBHeld;
  for (const auto &[function, starts] : fromStart) {
    auto ia = fromA.find(function), ib = fromB.find(function);
    if (function == kNone || ia == fromA.end() || ib == fromB.end())
      continue;
    bool decided = false;
    for (Id s : starts)
      for (Id x : ia->second)
        for (Id y : ib->second) {
          if (!known(s, x, y))
            continue;
          decided = true;
          if (pathAvoiding(P, s, x, s) && pathAvoiding(P, x, y, s))
            return true;
        }
    if (decided)
      return false;
  }
  return unknown;
}

bool CredentialQueries::mustFollow(Id origin, Id first, Id placeFirst, Id then, Id placeThen,
                                   bool unknown) const {
  if (P.sites[first].function == P.sites[then].function) {
    if (P.sites[first].block == kNone || P.sites[then].block == kNone)
      return unknown;
    return following(origin, first, placeFirst, then, placeThen).has_value();
  }
  std::shared_ptr<const SeenFrom> fromFirstHeld = seen(origin, first, placeFirst);
  const SeenFrom &fromFirst = *fromFirstHeld;
  std::shared_ptr<const SeenFrom> fromThenHeld = seen(origin, then, placeThen);
  const SeenFrom &fromThen = *fromThenHeld;
  for (const auto &[function, firsts] : fromFirst)
    if (function != kNone && fromThen.count(function))
      return following(origin, first, placeFirst, then, placeThen).has_value();
  return unknown;
}

std::optional<std::pair<Id, Id>> CredentialQueries::following(Id origin, Id first, Id placeFirst,
                                                              Id then, Id placeThen) const {
  // `then` comes after `first`: some path runs first and then `then`, none the other way round
  // on the same socket. (Not dominance: a bind() inside an `if` still comes before the
  // setsockopt() after it.) A way back from `then` to `first` that makes the socket again (a
  // loop that opens one socket per turn: socket(), bind(), setsockopt()) reaches a new socket.
  const facts::Create &create = P.creates[origin];
  std::shared_ptr<const SeenFrom> fromCreate; // asked only when there is a way back
  auto after = [&](Id x, Id y) {
    if (!P.mayPrecede(x, y, false))
      return false;
    if (!P.mayPrecede(y, x, true))
      return true;
    if (create.site == kNone || P.sites[create.site].block == kNone)
      return false;
    if (!fromCreate)
      fromCreate = seen(origin, create.site, create.place);
    auto made = fromCreate->find(P.sites[x].function);
    if (made == fromCreate->end() || made->second.empty())
      return false;
    for (Id m : made->second) {
      if (m == x)
        return true; // x makes the socket it binds: every way back to x makes a new one
      if (P.sites[m].block == kNone || pathAvoiding(P, y, x, m))
        return false;
    }
    return true;
  };
  if (P.sites[first].function == P.sites[then].function) {
    if (after(first, then))
      return std::make_pair(first, then);
    return std::nullopt;
  }
  std::shared_ptr<const SeenFrom> fromFirstHeld = seen(origin, first, placeFirst);
  const SeenFrom &fromFirst = *fromFirstHeld;
  std::shared_ptr<const SeenFrom> fromThenHeld = seen(origin, then, placeThen);
  const SeenFrom &fromThen = *fromThenHeld;
  // The innermost function that sees both decides: every way `then` is reached from it comes
  // after one `first`. A function that reaches both through one call of its own (init() calling
  // init_helper(), which listens and then enables the option) is not it: that call's callee
  // orders them.
  for (const auto &[function, firsts] : fromFirst) {
    auto it = fromThen.find(function);
    if (function == kNone || it == fromThen.end())
      continue;
    if (llvm::any_of(firsts, [&](Id x) { return llvm::is_contained(it->second, x); }))
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
  // An array reached through a pointer (const std::vector<int> &fds, s->fds): the elements of
  // the arrays it points to.
  std::vector<Id> arrays{array};
  for (Id there : program.throughPointer(array))
    arrays.push_back(there);
  for (Id p = 0; p < program.places.size(); ++p)
    if (llvm::is_contained(arrays, program.places[p].base))
      for (Id origin : program.originsOf(p))
        out.push_back(origin);
  for (Id there : arrays)
    for (Id origin : program.originsOf(there))
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

// *fds where fds is the function's pointer or reference parameter (const std::vector<int> &fds):
// the parameter's position.
int pointeeParamIndex(const Program &p, Id place, Id function) {
  if (place == kNone || p.places[place].kind != facts::PlaceKind::Deref)
    return -1;
  return paramIndex(p, p.places[place].base, function);
}

// c->fd (or c->hdr.fds[0]) where c is the function's parameter: the parameter's position, and the
// place c points to (*c) the member hangs off.
int paramFieldIndex(const Program &p, Id place, Id function, Id *deref = nullptr) {
  if (place == kNone || function == kNone)
    return -1;
  Id at = place;
  while (at != kNone && (p.places[at].kind == facts::PlaceKind::Member ||
                         p.places[at].kind == facts::PlaceKind::Element))
    at = p.places[at].base;
  if (at == place || at == kNone || p.places[at].kind != facts::PlaceKind::Deref)
    return -1;
  Id param = p.places[at].base;
  const facts::Place &pl = p.places[param];
  if (pl.kind != facts::PlaceKind::Param || pl.function != function || pl.index < 0)
    return -1;
  if (deref)
    *deref = at;
  return pl.index;
}

// The caller's name for the callee's `c->fd`: the struct argument's name with the same fields.
std::string substituteVar(const Program &p, const std::string &var, Id function, const facts::Call &call) {
  for (unsigned i = 0; i < call.args.size(); ++i) {
    std::string key = "p:" + p.functions[function].key + "#" + std::to_string(i);
    if (var == key)
      return call.args[i].var;
    if (llvm::StringRef(var).starts_with(key + "."))
      return call.args[i].var.empty() ? "" : call.args[i].var + var.substr(key.size());
  }
  return var;
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
    fd.countParam = pl.countParam;
    fd.text = p.sites[pl.site].text;
    fd.var = p.sites[pl.site].var;
    Id writeLoop = p.sites[pl.site].loop;
    if (writeLoop != kNone && !loopEncloses(p, writeLoop, p.sites[send].loop)) {
      fd.many = true;
      fd.count = -1;
      fd.countParam = -1;
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

std::vector<Id> loopsAround(const Program &p, Id loop) {
  std::vector<Id> chain;
  for (; loop != kNone && loop < p.loops.size() && !llvm::is_contained(chain, loop);
       loop = p.loops[loop].parent)
    chain.push_back(loop);
  return chain;
}

bool loopEncloses(const Program &p, Id outer, Id inner) {
  return outer != kNone && llvm::is_contained(loopsAround(p, inner), outer);
}

const std::vector<SendSite> &sendsOf(RuleContext &context) {
  if (!context.Shared)
    context.Shared = std::make_shared<SharedQueries>();
  if (!context.Shared->sends)
    context.Shared->sends = expandSends(context.P);
  return *context.Shared->sends;
}

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
      for (Id c : p.callsReaching(site.function)) {
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
    if (s.payload.empty())
      continue;
    // A flush of what another function queued: judged at each call of the queuing function.
    bool queued = false;
    for (const PayloadFd &fd : s.payload) {
      // Fds from the function's own parameter (fds, *fds): a wrapper's, judged at its callers.
      if (fd.place == kNone || paramIndex(p, fd.place, site.function) >= 0 ||
          pointeeParamIndex(p, fd.place, site.function) >= 0)
        continue;
      // A container's fds are its elements: the walk back starts from them too (m.fds.data()
      // of a queued message, which the queuing function filled from its parameter).
      std::vector<Id> sent{fd.place};
      if (fd.many)
        for (Id there : p.throughPointer(fd.place))
          sent.push_back(there);
      std::vector<Id> queuing;
      for (Id at : llvm::ArrayRef(sent)) {
        std::vector<Id> from = p.queueParams(at, site.function);
        if (fd.many)
          if (Id elements = p.placeByKey(p.places[at].key + "[*]"); elements != kNone)
            llvm::append_range(from, p.queueParams(elements, site.function));
        for (Id found : from)
          if (!llvm::is_contained(queuing, found))
            queuing.push_back(found);
      }
      for (Id found : queuing) {
        // The parameter itself, or the elements of the container it holds (by value) or points to.
        Id param = found;
        bool elements = false, throughPointer = false;
        if (p.places[param].kind == facts::PlaceKind::Element) {
          elements = true;
          param = p.places[param].base;
        }
        if (elements && p.places[param].kind == facts::PlaceKind::Deref) {
          throughPointer = true;
          param = p.places[param].base;
        }
        Id queue = p.places[param].function;
        int index = p.places[param].index;
        for (Id c : p.callsReaching(queue)) {
          const facts::Call &call = p.calls[c];
          if (call.caller == site.function || index < 0 || static_cast<std::size_t>(index) >= call.args.size())
            continue;
          facts::Argument arg = call.args[index];
          if (elements) {
            // The caller's container: the object it copies in, or the one its reference names.
            Id container = kNone;
            if (!throughPointer && arg.mode == facts::ArgMode::None) {
              container = p.copiedByCall(param, call.caller);
            } else if (throughPointer && arg.mode == facts::ArgMode::Value) {
              bool unknown = false;
              std::vector<Id> objects = p.objectsAt(arg.place, &unknown);
              if (objects.size() == 1 && !unknown)
                container = objects.front();
            } else if (arg.mode == facts::ArgMode::Array) {
              container = arg.place;
            }
            if (container == kNone)
              continue;
            arg.place = container;
            arg.mode = facts::ArgMode::Array;
          }
          if (arg.mode == facts::ArgMode::None || arg.mode == facts::ArgMode::Constant)
            continue;
          SendSite q;
          SendLevel level = callLevel(p, call);
          level.channel = base.channel;
          level.channelText = base.channelText;
          level.channelVar = ""; // the flush's channel, not named in the queuing caller
          q.levels = {base, level};
          PayloadFd queuedFd;
          queuedFd.place = arg.place;
          queuedFd.site = fd.site;
          queuedFd.many = arg.mode == facts::ArgMode::Array;
          queuedFd.boundedArray = true; // what one message carries is the flush's business
          queuedFd.text = arg.text;
          queuedFd.var = arg.var;
          q.payload = {queuedFd};
          q.queued = true;
          work.push_back(std::move(q));
          queued = true;
        }
      }
    }
    if (!queued)
      work.push_back(std::move(s));
  }

  // Wrappers: judged at each call site in the program, with the arguments put in. Each call of a
  // wrapper of a wrapper is a path of its own (F callers at each of four levels: F^4 sites for
  // one sendmsg(), a million for F = 32, and every rule walks each). Past kMaxSendPaths sites
  // from one send the rest are judged where the expansion stopped, at a wrapper's call of the
  // wrapper below it: its arguments are still the wrapper's parameters, whose origins the link
  // follows from every caller, so the judgement stands, one level in.
  std::map<Id, std::size_t> paths; // per send site (levels.front()): sites made from it
  for (const SendSite &site : work)
    ++paths[site.levels.front().site];
  while (!work.empty()) {
    SendSite site = std::move(work.back());
    work.pop_back();
    const SendLevel &top = site.levels.back();
    Id fn = top.function;
    bool usesParam = paramIndex(p, top.channel, fn) >= 0 || paramFieldIndex(p, top.channel, fn) >= 0;
    for (const PayloadFd &fd : site.payload)
      usesParam |= paramIndex(p, fd.place, fn) >= 0 || paramFieldIndex(p, fd.place, fn) >= 0 ||
                   pointeeParamIndex(p, fd.place, fn) >= 0;
    std::size_t &made = paths[site.levels.front().site];
    if (!usesParam || fn == kNone || p.callsReaching(fn).empty() || site.levels.size() > 4 ||
        made + p.callsReaching(fn).size() > kMaxSendPaths) {
      out.push_back(std::move(site));
      continue;
    }
    bool expanded = false;
    for (Id c : p.callsReaching(fn)) {
      const facts::Call &call = p.calls[c];
      if (call.caller == fn)
        continue; // recursion
      auto substitute = [&](Id &place, std::string &text, std::string &var, bool &exact) {
        if (place == kNone)
          return true; // nothing known to carry over
        int param = paramIndex(p, place, fn);
        if (param < 0) {
          // c->fd: the place stays (what the field holds), named as the caller names it; or,
          // when the caller hands over a local struct only it fills in (&ch) and the callee
          // does not store into c->fd itself, what the caller stored in ch.fd.
          Id deref = kNone;
          // *fds of a reference or pointer parameter (const std::vector<int> &fds): the caller's.
          // The place becomes the one object this caller hands over, when the argument points to
          // one only: the callee's *fds holds what every caller's object holds, and a finding at
          // this caller must name this caller's fds, not another caller's.
          if (int index = pointeeParamIndex(p, place, fn); index >= 0 && static_cast<std::size_t>(index) < call.args.size()) {
            llvm::StringRef named(call.args[index].text);
            named.consume_front("&");
            text = named.str();
            var = call.args[index].var;
            bool unknown = false;
            std::vector<Id> objects = p.objectsAt(call.args[index].place, &unknown);
            if (objects.size() == 1 && !unknown) {
              place = objects[0];
              exact = exact && call.args[index].exact;
            }
            return true;
          }
          if (int field = paramFieldIndex(p, place, fn, &deref); field >= 0) {
            var = substituteVar(p, var, fn, call);
            if (static_cast<std::size_t>(field) < call.args.size()) {
              // The one object this caller hands over: the same member of it.
              bool unknown = false;
              std::vector<Id> objects = p.objectsAt(call.args[field].place, &unknown);
              if (objects.size() == 1 && !unknown && deref != kNone &&
                  llvm::StringRef(p.places[place].key).starts_with(p.places[deref].key)) {
                std::string suffix = p.places[place].key.substr(p.places[deref].key.size());
                Id own = p.placeByKey(p.places[objects[0]].key + suffix);
                if (own != kNone) {
                  place = own;
                  exact = exact && call.args[field].exact;
                }
              }
            }
          }
          return true;
        }
        if (static_cast<std::size_t>(param) >= call.args.size())
          return false;
        Id callee = place;
        place = call.args[param].place;
        // An object passed by value (std::span<const int>): the caller's object it is copied from.
        if (place == kNone && call.args[param].mode == facts::ArgMode::None)
          place = p.copiedByCall(callee, call.caller);
        text = call.args[param].text;
        var = call.args[param].var;
        exact = exact && call.args[param].exact;
        return true;
      };
      SendSite outer = site;
      SendLevel level = callLevel(p, call);
      level.channel = top.channel;
      level.channelText = top.channelText;
      level.channelVar = top.channelVar;
      level.channelExact = top.channelExact;
      bool ok = substitute(level.channel, level.channelText, level.channelVar, level.channelExact);
      for (PayloadFd &fd : outer.payload) {
        // The caller hands an array for the fds (fds, v.data()), not the address of one fd.
        int fdsParam = paramIndex(p, fd.place, fn);
        bool handsArray = fdsParam >= 0 && static_cast<std::size_t>(fdsParam) < call.args.size() &&
                          call.args[fdsParam].mode == facts::ArgMode::Array;
        // The count is the size of the container the fds are read from (fds.size() of a
        // `const std::vector<int> &fds`): one is its one element, not the container.
        bool countsTheFds = fd.countParam >= 0 && (fd.countParam == fdsParam ||
                                                   fd.countParam == pointeeParamIndex(p, fd.place, fn));
        ok = ok && substitute(fd.place, fd.text, fd.var, fd.exact);
        // A count taken from a parameter: this caller's constant, or its own parameter.
        if (fd.countParam >= 0) {
          const facts::Argument *countArg = static_cast<std::size_t>(fd.countParam) < call.args.size()
                                                ? &call.args[fd.countParam] : nullptr;
          fd.countParam = -1;
          if (countArg && countArg->number >= 0) {
            fd.count = countArg->number;
            // One fd is the value handed over, unless that is an array: then its elements (any of
            // them: a count of one does not say which).
            fd.many = countArg->number != 1 || handsArray || countsTheFds;
          } else if (countArg && countArg->param >= 0) {
            fd.countParam = countArg->param;
          }
        }
      }
      if (!ok)
        continue;
      outer.levels.push_back(std::move(level));
      work.push_back(std::move(outer));
      ++made;
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

// ---------------------------------------------------------------------------------------------
// Event-loop callbacks

std::vector<Id> eventRegistrations(const Program &p) {
  std::vector<Id> out(p.functions.size(), kNone);
  std::set<Id> threads; // registrations that start a thread: run once
  for (const facts::Callback &c : p.callbacks)
    if (c.registrar == "pthread_create")
      threads.insert(c.site);
  // A table of callbacks is registered where an fd flows into the table.
  std::map<Id, Id> tableRegistration;
  for (const facts::Flow &f : p.flows)
    if (f.kind == facts::FlowKind::Callback && f.site != kNone && !tableRegistration.count(f.to))
      tableRegistration[f.to] = f.site;
  for (const facts::Flow &f : p.flows) {
    if (f.kind != facts::FlowKind::Callback)
      continue;
    Id fn = p.places[f.to].function;
    if (fn == kNone || out[fn] != kNone)
      continue;
    Id site = f.site;
    if (site == kNone)
      if (auto it = tableRegistration.find(f.from); it != tableRegistration.end())
        site = it->second;
    if (site == kNone || threads.count(site))
      continue;
    out[fn] = site;
  }
  return out;
}

std::optional<EventChain> eventChain(const Program &p, const std::vector<Id> &registrations, Id function) {
  if (function == kNone)
    return std::nullopt;
  // Breadth first up the callers: the nearest callback.
  std::map<Id, Id> calledFrom{{function, kNone}}; // function -> the function it was reached from
  std::vector<std::pair<Id, int>> level{{function, 0}};
  for (std::size_t next = 0; next < level.size(); ++next) {
    auto [fn, depth] = level[next];
    if (fn < registrations.size() && registrations[fn] != kNone) {
      EventChain chain;
      chain.callback = fn;
      chain.registration = registrations[fn];
      for (Id at = fn; at != kNone; at = calledFrom[at])
        chain.functions.push_back(at);
      return chain;
    }
    if (depth >= 3)
      continue;
    for (Id c : p.callsReaching(fn)) {
      Id caller = p.calls[c].caller;
      if (caller != kNone && calledFrom.emplace(caller, fn).second)
        level.push_back({caller, depth + 1});
    }
  }
  return std::nullopt;
}

} // namespace afunix::analysis
