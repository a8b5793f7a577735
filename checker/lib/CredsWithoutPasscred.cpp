#include "Rules.h"

#include "Queries.h"

#include <map>
#include <set>

namespace afunix::rules {

using namespace analysis;

// A finding names at most this many sockets in notes (a merged place can carry thousands).
constexpr std::size_t kMaxOriginNotes = 3;

void noteListener(RuleContext &ctx, Report &report, const facts::Create &accepted) {
  if (accepted.how != facts::CreateHow::Accept || accepted.listener == kNone)
    return;
  ctx.note(report, accepted.site, "accept() here");
  for (Id listener : ctx.P.listenersOf(accepted))
    ctx.note(report, ctx.P.creates[listener].site,
             ctx.P.creates[listener].how == facts::CreateHow::External
                 ? "the program takes the listening socket over here"
                 : "listening socket created here");
}

namespace {
// The calls that hand `origin` to the parameter `place`; a flow with no call of its own (a virtual
// call reaching an overrider) is followed back to the call that made it.
std::vector<Id> passingCalls(const Program &P, Id origin, Id place, int depth = 0) {
  std::vector<Id> out;
  for (const facts::Flow *edge : P.arrivals(origin, place)) {
    if (edge->site != kNone) {
      out.push_back(edge->site);
    } else if (depth < 4) {
      for (Id site : passingCalls(P, origin, edge->from, depth + 1))
        out.push_back(site);
    }
  }
  return out;
}

// passingCalls(), without the calls through a pointer when some other call (or a registration)
// hands the origin over too: an event loop's dispatcher runs every entry's callback, and the
// registration that names this reader is where its socket meets it (one finding, not one at the
// registration and one in the dispatcher).
std::vector<Id> namingCalls(const Program &P, const std::set<Id> &throughPointer, Id origin, Id place) {
  std::vector<Id> all = passingCalls(P, origin, place), named;
  for (Id call : all)
    if (!throughPointer.count(call))
      named.push_back(call);
  return named.empty() ? all : named;
}

// A read on a field of the object a pointer points to (*param:f#this.fd_, *local:f:s.fd): the
// pointer's place and the path below the object (".fd_"); nothing for any other place.
std::optional<std::pair<Id, std::string>> objectPath(const Program &P, Id place) {
  Id at = place;
  while (at != kNone && P.places[at].kind == facts::PlaceKind::Member)
    at = P.places[at].base;
  if (at == place || at == kNone || P.places[at].kind != facts::PlaceKind::Deref || P.places[at].base == kNone)
    return std::nullopt;
  return std::make_pair(P.places[at].base, P.places[place].key.substr(P.places[at].key.size()));
}

// Each entry that hands the reading function its objects (Program::objectsPerEntry(): a call of
// a method on two objects of one class, a registration of each object's handle), with the
// origins that reach the read's path below the objects of that entry.
std::vector<std::pair<Id, std::vector<Id>>> originsPerEntry(RuleContext &ctx, Id pointer, const std::string &path) {
  const Program &P = ctx.P;
  std::vector<std::pair<Id, std::vector<Id>>> out;
  std::size_t asked = 0;
  std::vector<Program::ObjectEntry> entries = P.objectsPerEntry(pointer, &asked);
  if (!ctx.spend(asked))
    return out;
  for (const Program::ObjectEntry &entry : entries) {
    if (entry.site == kNone)
      continue;
    std::vector<Id> origins;
    bool complete = true;
    for (Id object : entry.objects) {
      Id below = P.placeByKey(P.places[object].key + path);
      if (below == kNone) {
        complete = false;
        break;
      }
      for (Id origin : P.originsOf(below))
        if (!llvm::is_contained(origins, origin))
          origins.push_back(origin);
    }
    if (complete && !origins.empty())
      out.emplace_back(entry.site, std::move(origins));
  }
  return out;
}
} // namespace

// The variant worded for what the check does without credentials (its function's outcome):
// `base` ("default" words it without a prefix), "<base>-fails-open" or "<base>-fails-closed".
const ::afunix::catalog::Variant *outcomeVariant(RuleContext &ctx, Id evidence, const std::string &base) {
  const Program &P = ctx.P;
  Id function = evidence == kNone ? kNone : P.sites[evidence].function;
  facts::CredentialOutcome outcome =
      function == kNone ? facts::CredentialOutcome::Unknown : P.functions[function].credentialOutcome;
  std::string prefix = base == "default" ? "" : base + "-";
  if (outcome == facts::CredentialOutcome::FailsOpen)
    return ctx.variant(prefix + "fails-open");
  if (outcome == facts::CredentialOutcome::FailsClosed)
    return ctx.variant(prefix + "fails-closed");
  return ctx.variant(base);
}

// The socket a service manager hands over behind `origin`: itself, or the listener it was
// accepted from; kNone for a socket the program makes.
Id handedOverOrigin(const Program &P, Id origin) {
  const facts::Create &create = P.creates[origin];
  if (create.how == facts::CreateHow::External)
    return origin;
  if (create.how == facts::CreateHow::Accept && create.listener != kNone)
    for (Id listener : P.listenersOf(create))
      if (P.creates[listener].how == facts::CreateHow::External)
        return listener;
  return kNone;
}

void noteServiceFiles(RuleContext &ctx, Report &report, const std::vector<Id> &handed) {
  const Program &P = ctx.P;
  std::vector<Id> sockets;
  for (Id origin : handed) {
    for (Id s : handoverOf(P, origin).sockets)
      if (!llvm::is_contained(sockets, s))
        sockets.push_back(s);
    Id site = P.creates[origin].site;
    if (llvm::none_of(report.notes, [&](const ReportNote &n) { return n.site == site; }))
      ctx.note(report, site, "the program takes the socket over here");
  }
  for (Id s : sockets) {
    const facts::ServiceSocket &socket = P.services[s];
    ctx.note(report, socket.site,
             socket.manager == facts::Manager::AndroidInit
                 ? "init creates socket " + socket.name + " for " + socket.unit + " here, without +passcred"
                 : socket.unit + " hands this socket over, without PassCredentials=yes");
  }
  if (sockets.empty())
    return;
  const facts::ServiceSocket &first = P.services[sockets.front()];
  for (Id s : sockets)
    if (P.services[s].enableAt != first.enableAt || P.services[s].enableText != first.enableText)
      return; // several files to edit: no one fix
  const facts::Site &at = P.sites[first.enableAt];
  report.fixes.push_back({at.file, at.offset, first.enableLength, first.enableText, serviceFixTitle(first)});
}

// Where the credentials are looked for, and what happens when there are none.
std::string evidenceNote(const Program &P, Id evidence) {
  Id function = evidence == kNone ? kNone : P.sites[evidence].function;
  switch (function == kNone ? facts::CredentialOutcome::Unknown : P.functions[function].credentialOutcome) {
  case facts::CredentialOutcome::FailsOpen:
    return "the credentials are looked for here; with none the peer is accepted";
  case facts::CredentialOutcome::FailsClosed:
    return "the credentials are looked for here; with none the peer is refused";
  case facts::CredentialOutcome::Unknown:
    break;
  }
  return "the credentials are looked for here";
}

namespace {
// Credentials read from sockets that a service manager made without SO_PASSCRED (`missing`, each
// handed over itself or accepted from a listener that was): reported at the read, where the
// credentials are looked for, since the fix is in the service file, not at any call.
void reportHandedOver(RuleContext &ctx, Id read, Id evidence, const std::vector<Id> &missing,
                      const std::vector<Id> &passedAt) {
  const Program &P = ctx.P;
  std::vector<Id> handed;
  for (Id origin : missing)
    if (Id h = handedOverOrigin(P, origin); h != kNone && !llvm::is_contained(handed, h))
      handed.push_back(h);
  const auto *variant = outcomeVariant(ctx, evidence, "handed-over");
  if (!variant || handed.empty())
    return;
  const facts::Create &create = P.creates[handed.front()];
  Handover handover = handoverOf(P, handed.front());
  Report &r = ctx.report(read, *variant,
                         {{"socket", P.sites[read].text},
                          {"handover", handoverName(P, handover, create)},
                          {"advice", handoverAdvice(P, handover, create)}});
  ctx.note(r, evidence, evidenceNote(P, evidence));
  for (Id call : passedAt)
    ctx.note(r, call, "the socket is passed here");
  for (Id origin : missing)
    noteListener(ctx, r, P.creates[origin]);
  noteServiceFiles(ctx, r, handed);
}
} // namespace

void credsWithoutPasscred(RuleContext &ctx) {
  const Program &P = ctx.P;
  CredentialQueries queries(P);
  std::set<Id> reportedCalls, throughPointer;
  for (const facts::Call &call : P.indirectCalls)
    throughPointer.insert(call.site);
  for (const facts::Receive &read : P.receives) {
    if (read.kind != facts::ReceiveKind::Recvmsg)
      continue;
    const facts::Site &site = P.sites[read.site];
    // Only a recvmsg() whose function (or a function it hands the control data to) looks at
    // the credentials.
    Id evidence = site.function == kNone ? kNone : P.credentialEvidence(site.function);
    if (evidence == kNone)
      continue;
    std::vector<Id> missing; // known sockets that reach the read without SO_PASSCRED
    bool anyKnown = false, anyEnabled = false;
    if (!ctx.spend(P.originsOf(read.place).size() + 1))
      return;
    // A listener an event loop hands every callback is never read: recvmsg() on a listening
    // socket fails (experiment accept_needs_listener).
    std::vector<Id> readable;
    for (Id origin : P.originsOf(read.place))
      if (!queries.onlyListening(origin))
        readable.push_back(origin);
    for (Id origin : readable) {
      Passcred state = queries.reaching(origin);
      if (state == Passcred::Enabled)
        anyEnabled = true;
      else if (state == Passcred::Never)
        missing.push_back(origin);
      anyKnown |= state != Passcred::Unknown;
    }
    bool param = P.places[read.place].kind == facts::PlaceKind::Param;
    // Read through an object a pointer points to (a parameter, `this`, a local set from one), with
    // sockets of both kinds there: judged at each call or registration, by the object it hands
    // over. Only entries whose object's sockets are all known and none has it are reported.
    if (!missing.empty() && anyEnabled && !param)
      if (auto path = objectPath(P, read.place)) {
        const auto *chosen = outcomeVariant(ctx, evidence, "parameter");
        for (const auto &[at, origins] : originsPerEntry(ctx, path->first, path->second)) {
          if (!chosen || !ctx.spend(origins.size()))
            break;
          if (!llvm::all_of(origins, [&](Id o) { return queries.reaching(o) == Passcred::Never; }) ||
              llvm::any_of(origins, [&](Id o) { return handedOverOrigin(P, o) != kNone; }) ||
              !reportedCalls.insert(at).second)
            continue;
          const facts::Create &create = P.creates[origins.front()];
          Report &r = ctx.report(at, *chosen, {{"socket", site.text}, {"origin", create.origin}});
          if (origins.size() == 1)
            if (std::optional<ReportEdit> fix = enablePasscredEarly(P, queries, origins.front()))
              r.fixes.push_back(*fix);
          ctx.note(r, read.site, "credentials are read here");
          if (create.how != facts::CreateHow::Accept)
            ctx.note(r, create.site, "socket created here");
          noteListener(ctx, r, create);
        }
        continue;
      }
    // A place that merges several sockets (an epoll data.fd, a union) where one has SO_PASSCRED
    // is not evidence that this one lacks it.
    if (missing.empty() || (anyEnabled && !param)) {
      if (ctx.Options.pedantic && !anyKnown && !anyEnabled)
        if (const auto *chosen = ctx.variant("unknown-origin")) {
          Report &r = ctx.report(read.site, *chosen, {{"socket", site.text}});
          ctx.note(r, evidence, evidenceNote(P, evidence));
        }
      continue;
    }

    if (param) {
      // A helper reading from its parameter is judged at each call that hands it a socket
      // without SO_PASSCRED; a call that may also pass an enabled socket is not.
      const auto *chosen = outcomeVariant(ctx, evidence, "parameter");
      if (!chosen)
        continue;
      std::map<Id, bool> callEnabled;
      for (Id origin : readable)
        for (Id call : namingCalls(P, throughPointer, origin, read.place))
          callEnabled[call] |= queries.reaching(origin) == Passcred::Enabled;
      std::vector<Id> handed, handedCalls;
      for (Id origin : missing) {
        const facts::Create &create = P.creates[origin];
        if (handedOverOrigin(P, origin) != kNone) {
          handed.push_back(origin);
          for (Id call : namingCalls(P, throughPointer, origin, read.place))
            if (!callEnabled[call] && !llvm::is_contained(handedCalls, call))
              handedCalls.push_back(call);
          continue;
        }
        std::vector<Id> calls;
        for (Id call : namingCalls(P, throughPointer, origin, read.place))
          if (!callEnabled[call])
            calls.push_back(call);
        for (Id at : calls) {
          if (!reportedCalls.insert(at).second)
            continue;
          Report &r = ctx.report(at, *chosen, {{"socket", site.text}, {"origin", create.origin}});
          if (std::optional<ReportEdit> fix = enablePasscredEarly(P, queries, origin))
            r.fixes.push_back(*fix);
          ctx.note(r, read.site, "credentials are read here");
          if (create.how != facts::CreateHow::Accept)
            ctx.note(r, create.site, "socket created here");
          noteListener(ctx, r, create);
        }
      }
      if (!handedCalls.empty())
        reportHandedOver(ctx, read.site, evidence, handed, handedCalls);
      continue;
    }

    // Every such socket comes from a service manager: the fix is in its configuration.
    if (llvm::all_of(missing, [&](Id o) { return handedOverOrigin(P, o) != kNone; })) {
      reportHandedOver(ctx, read.site, evidence, missing, {});
      continue;
    }
    const auto *chosen = outcomeVariant(ctx, evidence, "default");
    if (!chosen)
      continue;
    Report &r = ctx.report(read.site, *chosen, {{"socket", site.text}});
    if (missing.size() == 1)
      if (std::optional<ReportEdit> fix = enablePasscredEarly(P, queries, missing.front()))
        r.fixes.push_back(*fix);
    ctx.note(r, evidence, evidenceNote(P, evidence));
    for (std::size_t i = 0; i < missing.size(); ++i) {
      if (i == kMaxOriginNotes) {
        ctx.note(r, read.site, "and " + std::to_string(missing.size() - i) + " more such sockets");
        break;
      }
      const facts::Create &create = P.creates[missing[i]];
      if (create.how != facts::CreateHow::Accept)
        ctx.note(r, create.site, "socket created here, never given SO_PASSCRED");
      noteListener(ctx, r, create);
    }
  }
}

} // namespace afunix::rules
