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
  for (Id listener : ctx.P.originsOf(accepted.listener))
    ctx.note(report, ctx.P.creates[listener].site, "listening socket created here");
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
} // namespace

// The variant worded for what the check does without credentials (its function's outcome).
const ::afunix::catalog::Variant *outcomeVariant(RuleContext &ctx, Id evidence, bool parameter) {
  const Program &P = ctx.P;
  Id function = evidence == kNone ? kNone : P.sites[evidence].function;
  facts::CredentialOutcome outcome =
      function == kNone ? facts::CredentialOutcome::Unknown : P.functions[function].credentialOutcome;
  const char *id = parameter ? "parameter" : "default";
  if (outcome == facts::CredentialOutcome::FailsOpen)
    id = parameter ? "parameter-fails-open" : "fails-open";
  else if (outcome == facts::CredentialOutcome::FailsClosed)
    id = parameter ? "parameter-fails-closed" : "fails-closed";
  return ctx.variant(id);
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

void credsWithoutPasscred(RuleContext &ctx) {
  const Program &P = ctx.P;
  CredentialQueries queries(P);
  std::set<Id> reportedCalls;
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
    for (Id origin : P.originsOf(read.place)) {
      Passcred state = queries.reaching(origin);
      if (state == Passcred::Enabled)
        anyEnabled = true;
      else if (state == Passcred::Never)
        missing.push_back(origin);
      anyKnown |= state != Passcred::Unknown;
    }
    bool param = P.places[read.place].kind == facts::PlaceKind::Param;
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
      const auto *chosen = outcomeVariant(ctx, evidence, /*parameter=*/true);
      if (!chosen)
        continue;
      std::map<Id, bool> callEnabled;
      for (Id origin : P.originsOf(read.place))
        for (Id call : passingCalls(P, origin, read.place))
          callEnabled[call] |= queries.reaching(origin) == Passcred::Enabled;
      for (Id origin : missing) {
        const facts::Create &create = P.creates[origin];
        std::vector<Id> calls;
        for (Id call : passingCalls(P, origin, read.place))
          if (!callEnabled[call])
            calls.push_back(call);
        for (Id at : calls) {
          if (!reportedCalls.insert(at).second)
            continue;
          Report &r = ctx.report(at, *chosen, {{"socket", site.text}, {"origin", create.origin}});
          ctx.note(r, read.site, "credentials are read here");
          if (create.how != facts::CreateHow::Accept)
            ctx.note(r, create.site, "socket created here");
          noteListener(ctx, r, create);
        }
      }
      continue;
    }

    const auto *chosen = outcomeVariant(ctx, evidence, /*parameter=*/false);
    if (!chosen)
      continue;
    Report &r = ctx.report(read.site, *chosen, {{"socket", site.text}});
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
