#include "Rules.h"

#include "Queries.h"

namespace afunix::rules {

using namespace analysis;

namespace {

constexpr int kSockDgram = 2;

class TooLate {
public:
  TooLate(RuleContext &ctx) : Ctx(ctx), P(ctx.P), Q(ctx.P) {}

  void run() {
    for (const facts::OptionSet &option : P.options) {
      if (!enablesPasscred(option))
        continue;
      for (Id origin : P.originsOf(option.place)) {
        const facts::Create &create = P.creates[origin];
        // SO_PASSCRED never did anything on inet sockets (afunix-passcred-wrong-family's case).
        if (create.family != facts::Family::Unknown && create.family != facts::Family::Unix)
          continue;
        if (create.how == facts::CreateHow::External) {
          if (checkHandedOver(option, origin))
            break;
          continue;
        }
        if (create.how == facts::CreateHow::Accept) {
          if (checkAccepted(option, origin))
            break;
          continue;
        }
        if (!createdHere(create.how))
          continue;
        facts::Lifecycle kind = create.type == kSockDgram ? facts::Lifecycle::Bind : facts::Lifecycle::Listen;
        if (checkAfter(option, origin, kind))
          break;
      }
    }
  }

private:
  struct Paired {
    bool harmless = false; // every client makes the late SO_PASSCRED harmless
    Id atOnce = kNone;     // a client's write that may come before it
  };
  // The clients of the servers' addresses (Queries.h: clientsOf), as they bear on `option`, late
  // on the accepted or bound socket `late`: harmless when each client enables SO_PASSCRED itself,
  // attaches SCM_CREDENTIALS to what it sends (they survive a late enable), or writes only after
  // receiving from the server, which writes only after the option.
  Paired judgeClients(const std::vector<Id> &servers, const facts::OptionSet &option, Id late) {
    Paired out;
    std::vector<Client> clients;
    for (Id server : servers)
      for (const Client &c : clientsOf(P, Q, server))
        clients.push_back(c);
    if (clients.empty())
      return out;
    out.harmless = true;
    for (const Client &c : clients) {
      ClientVerdict v = clientStart(P, Q, c);
      switch (v.start) {
      case ClientStart::EnablesPasscred:
      case ClientStart::SendsCredentials:
        break;
      case ClientStart::WaitsForServer:
        out.harmless &= serverWritesOnlyAfter(option, late);
        break;
      case ClientStart::SendsAtOnce:
        if (out.atOnce == kNone)
          out.atOnce = v.site;
        out.harmless = false;
        break;
      case ClientStart::Unknown:
        out.harmless = false;
        break;
      }
    }
    return out;
  }

  // The server writes on `late` (its greeting, its answers) only after `option`: a client that
  // waits for it writes after the option too. A server that never writes leaves it waiting for
  // nothing, so that is not enough.
  bool serverWritesOnlyAfter(const facts::OptionSet &option, Id late) {
    bool any = false;
    for (const facts::Write &w : P.writes) {
      if (!P.reaches(late, w.place))
        continue;
      any = true;
      bool after = P.sites[w.site].function == P.sites[option.site].function
                       ? P.mustFollow(option.site, w.site, false)
                       : Q.mustFollow(late, option.site, option.place, w.site, w.place, false);
      if (!after)
        return false;
    }
    return any;
  }

  void insertBefore(Report &r, const facts::LifecycleEvent &event) {
    if (std::optional<ReportEdit> edit = enableBefore(P, event))
      r.fixes.push_back(*edit);
  }

  void noteClient(Report &r, const Paired &paired) {
    if (paired.atOnce != kNone)
      Ctx.note(r, paired.atOnce,
               "a client writes here right after connecting, before the server enables SO_PASSCRED");
  }

  // SO_PASSCRED set by the program on a socket a service manager made: late, unless the manager
  // enabled it before handing it over (then this call is redundant, not late).
  bool checkHandedOver(const facts::OptionSet &option, Id origin) {
    const facts::Create &create = P.creates[origin];
    Handover handover = handoverOf(P, origin);
    if (handover.passcred == facts::Tri::True)
      return false;
    // Some of the sockets it may be enable it and some do not: which one this is, we cannot tell.
    if (handover.passcred == facts::Tri::Maybe && !handover.sockets.empty())
      return false;
    if (create.handover.empty()) {
      const auto *chosen = Ctx.variant("external-socket");
      if (!chosen)
        return false;
      Report &r = Ctx.report(option.site, *chosen,
                             {{"socket", P.sites[option.site].text}, {"origin", create.origin}});
      Ctx.note(r, create.site, "the socket comes from outside the program here");
      return true;
    }
    const auto *chosen = Ctx.variant("handed-over");
    if (!chosen)
      return false;
    Report &r = Ctx.report(option.site, *chosen,
                           {{"socket", P.sites[option.site].text},
                            {"handover", handoverName(P, handover, create)},
                            {"advice", handoverAdvice(P, handover, create)}});
    noteServiceFiles(Ctx, r, {origin});
    return true;
  }


  // Whether SO_PASSCRED reaches `origin` at a point that may run before every `kind` call on it
  // (unordered facts count as before: the rule would rather miss than guess).
  bool enabledBefore(Id origin, facts::Lifecycle kind) {
    std::vector<Id> events = Q.eventsOn(origin, kind);
    for (Id o : Q.optionsOn(origin)) {
      const facts::OptionSet &option = P.options[o];
      bool beforeAll = true;
      for (Id e : events)
        if (!Q.mayPrecede(origin, option.site, option.place, P.lifecycle[e].site, P.lifecycle[e].place,
                          /*unknown=*/true))
          beforeAll = false;
      if (beforeAll)
        return true;
    }
    return false;
  }

  bool checkAccepted(const facts::OptionSet &option, Id origin) {
    const facts::Create &accepted = P.creates[origin];
    if (accepted.listener == kNone)
      return false;
    const std::vector<Id> &listeners = P.originsOf(accepted.listener);
    if (listeners.empty())
      return false;
    std::vector<Id> handed; // listeners a service manager made without SO_PASSCRED
    for (Id listener : listeners) {
      const facts::Create &made = P.creates[listener];
      // A listener from elsewhere may have SO_PASSCRED from its creator: its configuration says.
      if (made.how == facts::CreateHow::External) {
        if (handoverOf(P, listener).passcred != facts::Tri::False || !Q.optionsOn(listener).empty())
          return false;
        handed.push_back(listener);
        continue;
      }
      if (!createdHere(made.how))
        return false;
      if (enabledBefore(listener, facts::Lifecycle::Listen))
        return false;
    }
    Paired paired = judgeClients(listeners, option, origin);
    if (paired.harmless)
      return false;
    // The server reads from the connection before enabling it: what it read came without
    // credentials on every connection, not only when a client is quick.
    Id readFirst = kNone;
    for (const facts::Receive &read : P.receives)
      if (P.reaches(origin, read.place) &&
          Q.mayPrecede(origin, read.site, read.place, option.site, option.place, /*unknown=*/false)) {
        readFirst = read.site;
        break;
      }
    const char *variantId = readFirst != kNone ? "accepted-socket-after-read" : "accepted-socket";
    if (!handed.empty()) {
      if (handed.size() != listeners.size())
        return false; // some made here, some handed over: no one place to fix
      const auto *chosen = Ctx.variant(variantId);
      if (!chosen)
        return false;
      Report &r = Ctx.report(option.site, *chosen, {{"socket", P.sites[option.site].text}});
      Ctx.note(r, accepted.site, "accept() here");
      if (readFirst != kNone)
        Ctx.note(r, readFirst, "the connection is read from here first");
      noteServiceFiles(Ctx, r, handed);
      noteClient(r, paired);
      return true;
    }
    const auto *chosen = Ctx.variant(variantId);
    if (!chosen)
      return false;
    std::vector<Id> listens = Q.eventsOn(listeners.front(), facts::Lifecycle::Listen);
    Report &r = Ctx.report(option.site, *chosen, {{"socket", P.sites[option.site].text}});
    if (readFirst != kNone)
      Ctx.note(r, readFirst, "the connection is read from here first");
    // Fix: enable it on the listener right before its only listen(), when that call is a plain
    // statement on a plain socket expression and the late call surely enables it.
    if (listeners.size() == 1 && listens.size() == 1) {
      if (option.value == facts::Tri::True)
        insertBefore(r, P.lifecycle[listens.front()]);
      else
        Ctx.note(r, option.site, "no fix-it: enabling it on the listener before listen() would "
                                 "decide a value the program computes at run time");
    }
    Ctx.note(r, accepted.site, "accept() here");
    for (Id listener : listeners)
      Ctx.note(r, P.creates[listener].site,
               "listening socket created here, without SO_PASSCRED before listen()");
    if (listens.size() == 1)
      Ctx.note(r, P.lifecycle[listens.front()].site, "listen() here");
    noteClient(r, paired);
    return true;
  }

  bool checkAfter(const facts::OptionSet &option, Id origin, facts::Lifecycle kind) {
    const facts::LifecycleEvent *before = nullptr;
    std::pair<Id, Id> decided;
    for (Id e : Q.eventsOn(origin, kind)) {
      const facts::LifecycleEvent &event = P.lifecycle[e];
      if (auto pair = Q.following(origin, event.site, event.place, option.site, option.place)) {
        before = &event;
        decided = *pair;
        break;
      }
    }
    if (!before)
      return false;
    // Another SO_PASSCRED that may come first makes this one redundant, not late.
    for (Id o : Q.optionsOn(origin)) {
      const facts::OptionSet &other = P.options[o];
      if (&other != &option &&
          Q.mayPrecede(origin, other.site, other.place, before->site, before->place, /*unknown=*/true))
        return false;
    }
    // A datagram server's clients may make it harmless; a listener's cannot: since 6.16 a
    // connection made before the option never gets it, whatever the client does.
    Paired paired;
    if (kind == facts::Lifecycle::Bind) {
      paired = judgeClients({origin}, option, origin);
      if (paired.harmless)
        return false;
    }
    // How long the window is: a listener that may accept() before the option hands out
    // connections that never get SO_PASSCRED (on every kernel since 3.12), not just the few
    // instructions between listen() and the option that only 6.16 turned into a window.
    Id acceptedBefore = kNone;
    if (kind == facts::Lifecycle::Listen)
      for (const facts::Create &c : P.creates)
        if (c.how == facts::CreateHow::Accept && c.listener != kNone && c.site != kNone &&
            P.reaches(origin, c.listener) &&
            Q.mayPrecede(origin, c.site, c.listener, option.site, option.place, /*unknown=*/false)) {
          acceptedBefore = c.site;
          break;
        }
    const char *variantId = kind == facts::Lifecycle::Bind ? "dgram-after-bind"
                            : acceptedBefore != kNone      ? "listener-after-accept"
                                                           : "listener-after-listen";
    const auto *chosen = Ctx.variant(variantId);
    if (!chosen)
      return false;
    // Across functions the finding is where the order is decided: the call that enables it,
    // after the call that binds or listens.
    bool lifted = decided.second != option.site;
    Report &r = Ctx.report(decided.second, *chosen, {{"socket", P.sites[option.site].text}});
    // Fix: move the option's statement before the call it must precede, when both sit in one
    // block and nothing between them changes what it reads (or what does moves along with it).
    std::string unfixed; // why there is no fix-it, for the note
    std::string call = lifecycleCallName(kind);
    if (!lifted && decided.first == before->site) {
      if (option.statement != kNone && before->statement != kNone) {
        MovePlan plan = moveAbove(P, P.statements[option.statement], P.statements[before->statement], kind);
        r.fixes = std::move(plan.edits);
        if (r.fixes.empty())
          unfixed = "moving it above " + call + " is not safe: " + plan.why;
      } else {
        unfixed = "it or " + call + " is not a whole statement of a block (it is part of a macro or a condition)";
      }
    }
    // Otherwise (the call binds or listens in another function or file, or cannot move): enable
    // it right before that call, bringing its own value; the late one is then redundant. Only
    // when the late call surely enables it: a value computed at run time may mean "off".
    if (r.fixes.empty() && Q.eventsOn(origin, kind).size() == 1) {
      if (option.value == facts::Tri::True)
        insertBefore(r, *before);
      else
        unfixed += (unfixed.empty() ? "" : "; ") +
                   std::string("enabling it before ") + call +
                   " instead would decide a value the program computes at run time";
    }
    if (r.fixes.empty() && !unfixed.empty())
      Ctx.note(r, decided.second, "no fix-it: " + unfixed);
    if (acceptedBefore != kNone)
      Ctx.note(r, acceptedBefore, "connections accepted here may come before SO_PASSCRED is enabled");
    if (lifted)
      Ctx.note(r, option.site, "SO_PASSCRED is enabled here");
    if (decided.first != before->site)
      Ctx.note(r, decided.first, kind == facts::Lifecycle::Bind ? "the socket is bound in this call"
                                                                : "the socket listens from this call");
    Ctx.note(r, before->site, kind == facts::Lifecycle::Bind ? "bind() here" : "listen() here");
    Ctx.note(r, P.creates[origin].site, "socket created here");
    noteClient(r, paired);
    return true;
  }

  RuleContext &Ctx;
  const Program &P;
  CredentialQueries Q;
};

} // namespace

void passcredTooLate(RuleContext &ctx) { TooLate(ctx).run(); }

} // namespace afunix::rules
