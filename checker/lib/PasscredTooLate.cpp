#include "Rules.h"

#include "Queries.h"

#include "afunix/KernelConstants.h"

namespace afunix::rules {

using namespace analysis;

namespace {

using Variant = ::afunix::catalog::Variant;
using Fill = std::map<std::string, std::string>;

// The family a socket() call names, when it names one that is not AF_UNIX: SO_PASSCRED never
// delivered anything there (and fails since 6.16: afunix-passcred-wrong-family's case).
bool otherFamily(facts::Family family) {
  return family != facts::Family::Unknown && family != facts::Family::Unix;
}

// What each variant's window is and what it loses, for the wording of a finding on a socket
// nothing shows to be AF_UNIX (unknown-family).
struct Window {
  const char *variant, *window, *loss;
};
constexpr Window kWindows[] = {
    {"accepted-socket", "after accept()",
     "messages the client sends between accept() and this call arrive with pid=0 uid=65534 gid=65534"},
    {"accepted-socket-after-read", "after the server read from the connection",
     "that read gets no credentials, and messages sent between accept() and this call arrive with "
     "pid=0 uid=65534 gid=65534"},
    {"dgram-after-bind", "after bind()",
     "datagrams queued before this call arrive with pid=0 uid=65534 gid=65534"},
    {"listener-after-listen", "after listen()",
     "clients that connect before this call get no credentials at all (Linux 6.16+)"},
    {"listener-after-accept", "after accept() on it",
     "connections accepted before this call get no credentials at all"},
    {"handed-over", "only here, though it was made elsewhere",
     "messages queued before this call arrive with pid=0 uid=65534 gid=65534"},
    {"handed-over-listener", "only here, on a listener made elsewhere",
     "connections pending before this call get no credentials at all (Linux 6.16+)"},
    {"external-socket", "only here, though it was made elsewhere",
     "messages queued before this call arrive with pid=0 uid=65534 gid=65534"},
};

class TooLate {
public:
  TooLate(RuleContext &ctx) : Ctx(ctx), P(ctx.P), Q(ctx.P) {}

  void run() {
    for (const facts::OptionSet &option : P.options) {
      if (!enablesPasscred(option))
        continue;
      if (Ctx.Exhausted)
        break;
      check(option);
    }
    // A socket that may not be AF_UNIX gets no edit: on another family the inserted call fails.
    for (Report &r : Ctx.Reports)
      if (r.variant == "unknown-family")
        r.fixes.clear();
  }

private:
  // One enabling SO_PASSCRED: the first origin it may be on that makes a finding decides.
  void check(const facts::OptionSet &option) {
    for (Id origin : P.originsOf(option.place)) {
      if (!Ctx.spend())
        return;
      const facts::Create &create = P.creates[origin];
      if (otherFamily(create.family))
        continue;
      bool reported = false;
      if (create.how == facts::CreateHow::External) {
        reported = checkHandedOver(option, origin);
      } else if (create.how == facts::CreateHow::Accept) {
        reported = checkAccepted(option, origin);
      } else if (createdHere(create.how)) {
        facts::Lifecycle kind = create.type == kernel::kSockDgram ? facts::Lifecycle::Bind : facts::Lifecycle::Listen;
        // A socketpair() end never listens (experiment accept_needs_listener: listen() on it
        // fails): a listen() a shared field or table links it to is another socket's.
        bool neverListens = create.how == facts::CreateHow::Socketpair && kind == facts::Lifecycle::Listen;
        reported = (!neverListens && checkAfter(option, origin, kind)) || checkRequester(option, origin);
      }
      if (reported)
        return;
    }
  }

  // Why a late SO_PASSCRED loses nothing, peer by peer (for --pedantic's withheld note).
  enum class Harmless { PeerEnables, PeerSendsCredentials, PeerWaits };
  struct Paired {
    bool harmless = false; // every peer makes the late SO_PASSCRED harmless
    Id atOnce = kNone;     // a client's write that may come before it
    std::vector<std::pair<Id, Harmless>> why; // each harmless peer: the site that shows it
  };
  // The clients of the servers' addresses (Queries.h: clientsOf), as they bear on `option`, late
  // on the accepted or bound socket `late`: harmless when each client enables SO_PASSCRED itself
  // before it writes, attaches SCM_CREDENTIALS to what it sends (they survive a late enable), or
  // writes only after receiving from the server, which writes only after the option.
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
      if (!Ctx.spend()) {
        out.harmless = false;
        break;
      }
      ClientVerdict v = clientStart(P, Q, c);
      switch (v.start) {
      case ClientStart::EnablesPasscred:
        out.why.push_back({v.site, Harmless::PeerEnables});
        break;
      case ClientStart::SendsCredentials:
        out.why.push_back({v.site, Harmless::PeerSendsCredentials});
        break;
      case ClientStart::WaitsForServer:
        out.harmless &= serverWritesOnlyAfter(option, late);
        out.why.push_back({v.site, Harmless::PeerWaits});
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

  // The peers that answer a client's requests (the servers at its address, a socketpair's other
  // end): harmless when each attaches credentials to its answers itself.
  Paired judgeServers(const std::vector<Id> &servers) {
    Paired out;
    out.harmless = !servers.empty();
    for (Id server : servers) {
      ServerVerdict v = serverAnswers(P, Q, server);
      if (v.answers == ServerAnswers::EnablesPasscred)
        out.why.push_back({v.site, Harmless::PeerEnables});
      else if (v.answers == ServerAnswers::SendsCredentials)
        out.why.push_back({v.site, Harmless::PeerSendsCredentials});
      else {
        out.harmless = false;
        if (out.atOnce == kNone)
          out.atOnce = v.site;
      }
    }
    return out;
  }

  // --pedantic: the finding `wouldBe` is withheld because every peer makes it harmless; say why.
  void reportWithheld(Id site, const facts::OptionSet &option, const char *wouldBe, const Paired &paired,
                      bool servers) {
    bool enables = false, sends = false, waits = false;
    for (const auto &[at, why] : paired.why) {
      enables |= why == Harmless::PeerEnables;
      sends |= why == Harmless::PeerSendsCredentials;
      waits |= why == Harmless::PeerWaits;
    }
    std::string who = servers ? "every peer that answers it" : "every client of its address in the program";
    std::string reason;
    if (enables + sends + waits > 1)
      reason = who + " enables SO_PASSCRED on its own socket before sending, attaches SCM_CREDENTIALS "
                     "to each message, or writes only after the server (see the notes)";
    else if (enables)
      reason = who + " enables SO_PASSCRED on its own socket before sending, so the kernel attaches "
                     "credentials to each of its messages when it queues them";
    else if (sends)
      reason = who + " attaches SCM_CREDENTIALS to each message, and explicit credentials are "
                     "delivered whenever the reader enables SO_PASSCRED";
    else
      reason = who + " writes only after the server has, and the server writes only after this call";
    Report *r = withhold(site, option, wouldBe, reason);
    if (!r)
      return;
    for (const auto &[at, why] : paired.why)
      Ctx.note(*r, at,
               why == Harmless::PeerEnables
                   ? (servers ? "this peer has SO_PASSCRED before it answers: its answers carry credentials"
                              : "this client enables SO_PASSCRED before it sends: its messages carry credentials")
               : why == Harmless::PeerSendsCredentials
                   ? "SCM_CREDENTIALS attached to each message here"
                   : "this client writes only after receiving from the server");
  }

  // --pedantic: the withheld note for `wouldBe`, saying `reason`; nullptr when not reported.
  Report *withhold(Id site, const facts::OptionSet &option, const char *wouldBe, const std::string &reason) {
    if (!Ctx.Options.pedantic || !Ctx.variant(wouldBe))
      return nullptr;
    const Variant *chosen = Ctx.variant("withheld");
    if (!chosen)
      return nullptr;
    return &Ctx.report(site, *chosen, {{"socket", P.sites[option.site].text}, {"variant", wouldBe}, {"reason", reason}});
  }

  // The variant to report as `id`, or, for a socket nothing shows to be AF_UNIX (its socket()
  // call does not name the family, no sun_path, no AF_UNIX socket unit) and from which nothing in
  // the program reads credentials, the note `unknown-family`: it may well be a TCP socket (a
  // getaddrinfo() result, a service manager's socket of any kind), where SO_PASSCRED never
  // delivered anything. nullptr when neither applies to the target kernel.
  const Variant *weigh(const char *id, Id origin, Fill &fill) {
    const Variant *chosen = Ctx.variant(id);
    if (!chosen)
      return nullptr;
    const facts::Create &create = P.creates[origin];
    if (create.family == facts::Family::Unix || Q.unixByUse(origin) || Q.credentialRead(origin) != kNone)
      return chosen;
    const Variant *note = Ctx.variant("unknown-family");
    if (!note)
      return nullptr;
    for (const Window &w : kWindows)
      if (llvm::StringRef(id) == w.variant) {
        fill["window"] = w.window;
        fill["loss"] = w.loss;
      }
    return note;
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

  // Whether the socket is a listener: something accept()s on it or listen()s on it, or the
  // service files' sockets it may be are all stream listeners (Accept=no).
  bool isListener(Id origin) {
    if (!Q.acceptedFrom(origin).empty() || !Q.eventsOn(origin, facts::Lifecycle::Listen).empty())
      return true;
    Handover handover = handoverOf(P, origin);
    return !handover.sockets.empty() && llvm::all_of(handover.sockets, [&](Id s) {
      const facts::ServiceSocket &socket = P.services[s];
      return !socket.accept && (socket.type == kernel::kSockStream || socket.type == kernel::kSockSeqpacket);
    });
  }

  // SO_PASSCRED set by the program on a socket a service manager made: late, unless the manager
  // enabled it before handing it over (then this call is redundant, not late). On a listener,
  // what is lost is different: a connection pending when it is handed over (the one that started
  // the service, with socket activation) never gets the flag on 6.16+, so it gets no credentials
  // at all; 3.12-6.15 copy the flag at accept().
  bool checkHandedOver(const facts::OptionSet &option, Id origin) {
    const facts::Create &create = P.creates[origin];
    Handover handover = handoverOf(P, origin);
    if (handover.passcred == facts::Tri::True)
      return false;
    // Some of the sockets it may be enable it and some do not: which one this is, we cannot tell.
    if (handover.passcred == facts::Tri::Maybe && !handover.sockets.empty())
      return false;
    // The unit's sockets it may be are all of another family (ListenStream=8080): never a window
    // here, and the unit's PassCredentials= is afunix-passcred-wrong-family's business.
    if (!handover.sockets.empty() && llvm::all_of(handover.sockets, [&](Id s) {
          return otherFamily(P.services[s].family);
        }))
      return false;
    bool listener = isListener(origin);
    const char *id = listener ? "handed-over-listener" : create.handover.empty() ? "external-socket" : "handed-over";
    Fill fill{{"socket", P.sites[option.site].text},
              {"origin", create.origin},
              {"handover", handoverName(P, handover, create)},
              {"advice", handoverAdvice(P, handover, create)}};
    const Variant *chosen = weigh(id, origin, fill);
    if (!chosen)
      return false;
    Report &r = Ctx.report(option.site, *chosen, fill);
    if (create.handover.empty() && !listener)
      Ctx.note(r, create.site, "the socket comes from outside the program here");
    else
      noteServiceFiles(Ctx, r, {origin});
    return true;
  }

  // Whether none of `listeners` gives `accepted` SO_PASSCRED; `handed` gets those a service
  // manager made without it.
  bool noListenerEnablesIt(llvm::ArrayRef<Id> listeners, const facts::Create &accepted, std::vector<Id> &handed) {
    handed.clear();
    for (Id listener : listeners) {
      const facts::Create &made = P.creates[listener];
      if (otherFamily(made.family))
        return false;
      // A listener from elsewhere may have SO_PASSCRED from its creator: its configuration says.
      if (made.how == facts::CreateHow::External) {
        if (handoverOf(P, listener).passcred != facts::Tri::False || !Q.optionsOn(listener).empty())
          return false;
        handed.push_back(listener);
        continue;
      }
      if (!createdHere(made.how))
        return false;
      // On the listener before listen(), or before this accept(): the accepted socket inherits it
      // (at accept() on 3.12-6.15). On 6.16+ a client that connected before the listener's option
      // does not, which is the listener's own finding (listener-after-listen), not this one.
      if (Q.enabledBefore(listener, facts::Lifecycle::Listen) != kNone)
        return false;
      for (Id o : Q.optionsOn(listener))
        if (!Ctx.spend() || Q.mayPrecede(listener, P.options[o].site, P.options[o].place, accepted.site, accepted.listener,
                         /*unknown=*/true))
          return false;
    }
    return true;
  }

  bool checkAccepted(const facts::OptionSet &option, Id origin) {
    const facts::Create &accepted = P.creates[origin];
    if (accepted.listener == kNone)
      return false;
    // Each program that runs this accept() has its own listeners (listenerViewsOf()): the first
    // whose listeners all leave the accepted socket without SO_PASSCRED is the one reported.
    std::vector<Id> listeners, handed; // handed: listeners a service manager made without it
    for (llvm::ArrayRef<Id> view : P.listenerViewsOf(origin))
      if (noListenerEnablesIt(view, accepted, handed)) {
        listeners.assign(view.begin(), view.end());
        break;
      }
    if (listeners.empty())
      return false;
    // The server reads from the connection before enabling it: what it read came without
    // credentials on every connection, not only when a client is quick.
    // Within one connection: from its accept(), a read and then the option (in a loop, the
    // previous connection's read does not come before this one's option).
    Id readFirst = kNone;
    for (const facts::Receive &read : P.receives)
      if (P.reaches(origin, read.place) &&
          Q.inOneRun(origin, accepted.site, accepted.place, read.site, read.place, option.site, option.place,
                     Q.mayPrecede(origin, read.site, read.place, option.site, option.place, false))) {
        readFirst = read.site;
        break;
      }
    const char *variantId = readFirst != kNone ? "accepted-socket-after-read" : "accepted-socket";
    Paired paired = judgeClients(listeners, option, origin);
    if (paired.harmless) {
      reportWithheld(option.site, option, variantId, paired, false);
      return false;
    }
    if (!handed.empty() && handed.size() != listeners.size())
      return false; // some made here, some handed over: no one place to fix
    Fill fill{{"socket", P.sites[option.site].text}};
    const Variant *chosen = weigh(variantId, origin, fill);
    if (!chosen)
      return false;
    Report &r = Ctx.report(option.site, *chosen, fill);
    if (!handed.empty()) {
      Ctx.note(r, accepted.site, "accept() here");
      if (readFirst != kNone)
        Ctx.note(r, readFirst, "the connection is read from here first");
      noteServiceFiles(Ctx, r, handed);
      noteClient(r, paired);
      return true;
    }
    std::vector<Id> listens = Q.eventsOn(listeners.front(), facts::Lifecycle::Listen);
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
      if (!Ctx.spend())
        return false;
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
      if (!Ctx.spend())
        return false;
      const facts::OptionSet &other = P.options[o];
      if (&other != &option &&
          Q.mayPrecede(origin, other.site, other.place, before->site, before->place, /*unknown=*/true))
        return false;
    }
    // How long the window is: a listener that may accept() before the option hands out
    // connections that never get SO_PASSCRED (on every kernel since 3.12), not just the
    // instructions between listen() and the option that only 6.16 turned into a window.
    Id acceptedBefore = kNone;
    if (kind == facts::Lifecycle::Listen)
      for (Id a : Q.acceptedFrom(origin)) {
        const facts::Create &c = P.creates[a];
        if (c.site != kNone &&
            Q.mayPrecede(origin, c.site, c.listener, option.site, option.place, /*unknown=*/false)) {
          acceptedBefore = c.site;
          break;
        }
      }
    const char *variantId = kind == facts::Lifecycle::Bind ? "dgram-after-bind"
                            : acceptedBefore != kNone      ? "listener-after-accept"
                                                           : "listener-after-listen";
    // What a listener's late option loses is credentials on its connections: where the program
    // accepts them and reads none (mpd enables it and checks peers with SO_PEERCRED), nothing.
    if (kind == facts::Lifecycle::Listen && Q.connectionsUnread(origin)) {
      if (Report *r = withhold(decided.second, option, variantId,
                               "nothing in the program reads SCM_CREDENTIALS, and none of the connections "
                               "accepted on it is handed to code outside the program"))
        for (Id a : Q.connectionsOf(origin))
          if (P.creates[a].site != kNone)
            Ctx.note(*r, P.creates[a].site, "a connection accepted here, never read for credentials");
      return false;
    }
    // Across functions the finding is where the order is decided: the call that enables it,
    // after the call that binds or listens.
    bool lifted = decided.second != option.site;
    // A datagram server's clients may make it harmless; a listener's cannot: since 6.16 a
    // connection made before the option never gets it, whatever the client does.
    Paired paired;
    if (kind == facts::Lifecycle::Bind) {
      paired = judgeClients({origin}, option, origin);
      if (paired.harmless) {
        reportWithheld(decided.second, option, variantId, paired, false);
        return false;
      }
    }
    Fill fill{{"socket", P.sites[option.site].text}};
    const Variant *chosen = weigh(variantId, origin, fill);
    if (!chosen)
      return false;
    Report &r = Ctx.report(decided.second, *chosen, fill);
    // Fix: move the option's statement before the call it must precede, when both sit in one
    // block and nothing between them changes what it reads (or what does moves along with it).
    std::string unfixed; // why there is no fix-it, for the note
    std::string call = lifecycleCallName(kind);
    // Bound inside a library's call: when that call also made it, no statement of the program
    // comes between the two. After a library object's method (acceptor.listen()) the option's
    // statement may move above that call's, but nothing is written before it (its socket
    // argument is an object, not an fd).
    bool madeThere = !before->maker.empty() && P.creates[origin].site == before->site;
    if (madeThere) {
      unfixed = before->maker + "() makes the socket and " + (kind == facts::Lifecycle::Bind ? "binds" : "listens on") +
                " it in one call; make it with socket(), enable SO_PASSCRED, then " +
                (kind == facts::Lifecycle::Bind ? "bind()" : "bind() and listen()");
    } else if (!lifted && decided.first == before->site) {
      if (option.statement != kNone && before->statement != kNone) {
        MovePlan plan = moveAbove(P, P.statements[option.statement], P.statements[before->statement], kind);
        r.fixes = std::move(plan.edits);
        if (r.fixes.empty())
          unfixed = "moving it above " + call + " is not safe: " + plan.why;
      } else if (option.statement == kNone && option.optionParam < 0 && option.throughWrapper &&
                 before->statement != kNone) {
        // Instantiated per call from a wrapper that takes the option (Set(SOL_SOCKET, SO_PASSCRED,
        // 1)): the facts keep the wrapper's statement, not the call's.
        unfixed = "it is enabled by a call of a wrapper that takes the option, which the fix-it does not move";
      } else {
        unfixed = "it or " + call + " is not a whole statement of a block (it is part of a macro or a condition)";
      }
    } else if (!before->maker.empty()) {
      unfixed = "enable SO_PASSCRED before " + before->maker + "(), a library's call in another statement";
    }
    // Otherwise (the call binds or listens in another function or file, or cannot move): enable
    // it right before that call, bringing its own value; the late one is then redundant. Only
    // when the late call surely enables it: a value computed at run time may mean "off".
    if (r.fixes.empty() && before->maker.empty() && Q.eventsOn(origin, kind).size() == 1) {
      if (option.value == facts::Tri::True && sharedWithOtherSockets(P, *before))
        unfixed += (unfixed.empty() ? "" : "; ") + std::string("enabling it before ") + call +
                   " there would enable it on every other socket that reaches that " + call;
      else if (option.value == facts::Tri::True)
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
    if (madeThere) {
      Ctx.note(r, before->site, "socket created by " + before->maker + "(), which " +
                                    (kind == facts::Lifecycle::Bind ? "binds it" : "listens on it") + " before returning");
    } else if (!before->maker.empty()) {
      Ctx.note(r, before->site, before->maker + "() " + (kind == facts::Lifecycle::Bind ? "binds it" : "listens on it") + " here");
      Ctx.note(r, P.creates[origin].site, "socket created here");
    } else {
      Ctx.note(r, before->site, kind == facts::Lifecycle::Bind ? "bind() here" : "listen() here");
      Ctx.note(r, P.creates[origin].site, "socket created here");
    }
    noteClient(r, paired);
    return true;
  }

  // The requesting side: a client (a connect()ed socket, a socketpair() end) that sends and only
  // then enables SO_PASSCRED to check who answers. A peer that answers at once has queued its
  // answer before the option: it arrives with pid=0 uid=65534 (measured on 6.18, like every
  // message queued before a late enable). Only where the program reads credentials from it.
  bool checkRequester(const facts::OptionSet &option, Id origin) {
    const facts::Create &create = P.creates[origin];
    bool pairEnd = create.how == facts::CreateHow::Socketpair;
    if (!Q.eventsOn(origin, facts::Lifecycle::Listen).empty() || !Q.eventsOn(origin, facts::Lifecycle::Bind).empty())
      return false;
    std::vector<Id> connects = Q.eventsOn(origin, facts::Lifecycle::Connect);
    if (!pairEnd && connects.empty())
      return false;
    Id read = Q.credentialRead(origin);
    if (read == kNone)
      return false;
    const facts::Write *request = nullptr;
    std::pair<Id, Id> decided;
    for (const facts::Write &w : P.writes) {
      if (!P.reaches(origin, w.place))
        continue;
      if (auto pair = Q.following(origin, w.site, w.place, option.site, option.place)) {
        request = &w;
        decided = *pair;
        break;
      }
    }
    if (!request)
      return false;
    // Another SO_PASSCRED that may come before the request makes this one redundant.
    for (Id o : Q.optionsOn(origin)) {
      const facts::OptionSet &other = P.options[o];
      if (!Ctx.spend() ||
          (&other != &option &&
           Q.mayPrecede(origin, other.site, other.place, request->site, request->place, /*unknown=*/true)))
        return false;
    }
    // Peers that attach credentials to their answers themselves make it harmless.
    std::vector<Id> peers = pairEnd ? P.originsOf(create.peer) : serversOf(P, Q, origin);
    Paired paired = judgeServers(peers);
    if (paired.harmless) {
      reportWithheld(decided.second, option, "client-after-send", paired, true);
      return false;
    }
    const Variant *chosen = Ctx.variant("client-after-send");
    if (!chosen)
      return false;
    bool lifted = decided.second != option.site;
    Report &r = Ctx.report(decided.second, *chosen, {{"socket", P.sites[option.site].text}});
    if (std::optional<ReportEdit> fix = enablePasscredEarly(P, Q, origin))
      r.fixes.push_back(*fix);
    if (lifted)
      Ctx.note(r, option.site, "SO_PASSCRED is enabled here");
    if (decided.first != request->site)
      Ctx.note(r, decided.first, "the request is sent in this call");
    Ctx.note(r, request->site, "the request is sent here, before SO_PASSCRED is enabled");
    if (connects.size() == 1)
      Ctx.note(r, P.lifecycle[connects.front()].site, "connect() here");
    Ctx.note(r, read, "the answer's credentials are read here");
    Ctx.note(r, create.site, "socket created here");
    if (paired.atOnce != kNone)
      Ctx.note(r, paired.atOnce, "the peer answers here, without credentials of its own");
    return true;
  }

  RuleContext &Ctx;
  const Program &P;
  CredentialQueries Q;
};

} // namespace

void passcredTooLate(RuleContext &ctx) { TooLate(ctx).run(); }

} // namespace afunix::rules
