// Queries over the linked program that several rules share: whether SO_PASSCRED reaches a
// socket where it gates delivery, the order of two facts along the calls that join them, what
// kind of fd an origin is, and every send of fds with its wrappers expanded to their callers.
#pragma once

#include "Program.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace afunix::analysis {

// A socket the program creates itself (socket(), socketpair(), accept(), a configured producer).
bool createdHere(facts::CreateHow how);
// An SO_PASSCRED whose value is not a constant 0.
bool enablesPasscred(const facts::OptionSet &option);

enum class Passcred { Enabled, Never, Unknown };

// The sockets of the project's service files (Program::services) that an inherited socket may be:
// matched by how the code asks for it (facts::Create::handover: the n-th socket-activation fd, one
// picked by FileDescriptorName=, an Android control socket by name) and, when the code is compiled
// into a program that some matching socket's service runs, by that program. `passcred` is True
// when every one of them is configured with SO_PASSCRED, False when none is, else Maybe.
struct Handover {
  std::vector<Id> sockets;
  facts::Tri passcred = facts::Tri::Maybe;
};
Handover handoverOf(const Program &program, Id origin);
// For messages: who hands the socket over ("systemd's foo.socket", "init (service logd)") and the
// one change that enables SO_PASSCRED there.
std::string handoverName(const Program &program, const Handover &handover, const facts::Create &create);
std::string handoverAdvice(const Program &program, const Handover &handover, const facts::Create &create);

class CredentialQueries {
public:
  explicit CredentialQueries(const Program &program);
  // Enabling SO_PASSCRED options (indices into options) that reach the origin.
  const std::vector<Id> &optionsOn(Id origin) const;
  // bind()/listen()/connect() calls (indices into lifecycle) on the origin.
  std::vector<Id> eventsOn(Id origin, facts::Lifecycle kind) const;
  // Whether SO_PASSCRED reaches the socket where it gates delivery: on the socket itself or, for
  // an accepted socket, on its listener (inherited since 3.12).
  Passcred reaching(Id origin) const;
  // An enabling SO_PASSCRED on the origin that may run before every `kind` call on it (unordered
  // facts count as before: the rules would rather miss than guess); kNone when none does.
  Id enabledBefore(Id origin, facts::Lifecycle kind) const;
  // The accept()ed sockets whose listener may be `origin`.
  const std::vector<Id> &acceptedFrom(Id origin) const;
  // A recvmsg() whose function looks at SCM_CREDENTIALS (Program::credentialEvidence), on the
  // socket or on a socket accepted from it; kNone when the program has none.
  Id credentialRead(Id origin) const;
  // Whether the program accept()s on the listener `origin` and reads no credentials from what it
  // accepts, with every connection in its view: no recvmsg() of the program looks at credentials
  // at all (not only none the value flow links to a connection), none sent in SCM_RIGHTS to
  // another process, none returned from a function nothing in the program calls, none handed to
  // a function outside the program's sources and system headers (a project's function whose body
  // was not analysed may read them). Not followed: a connection stored in an object handed over by
  // address to a bodyless callee, or stored through an out-parameter of an uncalled function.
  bool connectionsUnread(Id origin) const;
  // The accept()ed sockets of the listener `origin` and of its copies per call (Program::clonesOf).
  std::vector<Id> connectionsOf(Id origin) const;
  // What says the socket is an AF_UNIX one although its socket() call does not name the family:
  // a bind()/connect() to a sun_path, the service files' sockets it may be, all AF_UNIX.
  bool unixByUse(Id origin) const;
  // A socket the program only ever listens on (a listen() and no connect() on it): no message is
  // ever read from it (experiment accept_needs_listener: recvmsg() on a listener fails).
  bool onlyListening(Id origin) const;

  // Order of two facts on one origin (site and the place the fact is on), in one function or
  // seen from a function that reaches both through calls passing the socket.
  bool mayPrecede(Id origin, Id siteA, Id placeA, Id siteB, Id placeB, bool unknown) const;
  // Some run from `start` (a socket's creation, an accept()) reaches `a` and then `b` without
  // running `start` again: in a loop that makes a new socket each turn, what happens to the
  // previous turn's socket does not count. Decided in the innermost function that sees all three.
  bool inOneRun(Id origin, Id start, Id startPlace, Id a, Id placeA, Id b, Id placeB, bool unknown) const;
  // `then` runs after `first`: on some path first and then `then`, on none the other way round.
  bool mustFollow(Id origin, Id first, Id placeFirst, Id then, Id placeThen, bool unknown) const;
  // Where that is decided: the two sites (the facts themselves, or the calls that lead to them)
  // in the function that orders them; nothing when they are not ordered so.
  std::optional<std::pair<Id, Id>> following(Id origin, Id first, Id placeFirst, Id then,
                                             Id placeThen) const;

  // The sites that stand for `site` (a fact on `place`, reached by `origin`) in each function up
  // to three calls above it: the fact itself, and the calls that lead to it. Memoised: the
  // credential rules ask it of every pair of facts that meet on a socket.
  using SeenFrom = std::map<Id, std::vector<Id>>;
  std::shared_ptr<const SeenFrom> seen(Id origin, Id site, Id place) const;

private:
  // A recvmsg() in a function that looks at SCM_CREDENTIALS (Program::credentialEvidence).
  bool readsCredentials(const facts::Receive &receive) const;

  const Program &P;
  mutable std::map<std::tuple<Id, Id, Id>, std::shared_ptr<const SeenFrom>> SeenCache;
  std::vector<std::vector<Id>> Options;               // by origin
  std::vector<std::vector<Id>> Events;                // by origin
  std::vector<std::vector<Id>> Accepted;              // by listener origin
};

// ---------------------------------------------------------------------------------------------
// Paired endpoints: a server and the clients that connect to its address.

// The sun_paths an address may be: its own constant, or the constants the callers of its
// function pass for its parameter.
std::vector<std::string> addressesOf(const Program &program, const facts::Address &address, Id site);

struct Client {
  Id origin = kNone; // the client's socket
  Id at = kNone;     // its connect() (or sendto()) naming the server's address
  Id place = kNone;  // the place that fact is on
};
// Every socket of the program that connect()s or sendto()s to an address `server` is bound to (by
// bind(), or by the socket unit a service manager made it from).
std::vector<Client> clientsOf(const Program &program, const CredentialQueries &queries, Id server);

// The servers a client socket meets: the sockets bound (or, for a service manager's socket, whose
// unit listens) at an address the client connect()s or sendto()s to. The reverse of clientsOf.
std::vector<Id> serversOf(const Program &program, const CredentialQueries &queries, Id client);

// What a client does before its first message, as far as a late SO_PASSCRED at the server goes.
enum class ClientStart {
  Unknown,          // it writes nothing the program shows, or nothing can be said
  EnablesPasscred,  // SO_PASSCRED on its own socket before each write: credentials are attached
                    // to every message (the kernel attaches them at send time)
  SendsCredentials, // every sendmsg() attaches SCM_CREDENTIALS, which survive a late enable
  WaitsForServer,   // it receives before each write: it writes only once the server has
  SendsAtOnce,      // some write may come before anything from the server
};
struct ClientVerdict {
  ClientStart start = ClientStart::Unknown;
  Id site = kNone; // the option, the write, or the receive it waits with
};
ClientVerdict clientStart(const Program &program, const CredentialQueries &queries, const Client &client);

// What a server's answers carry, as far as a late SO_PASSCRED at the client goes: the sockets it
// answers on (its accepted connections, or itself for a datagram server) have SO_PASSCRED before
// every write (set there, on the listener before listen(), or by its socket unit), or every write
// attaches SCM_CREDENTIALS. Either way the kernel attaches credentials when it queues the answer.
enum class ServerAnswers {
  Unknown,          // it writes without credentials, or nothing can be said
  EnablesPasscred,
  SendsCredentials,
};
struct ServerVerdict {
  ServerAnswers answers = ServerAnswers::Unknown;
  Id site = kNone; // the option, the socket unit's line, or a write
};
ServerVerdict serverAnswers(const Program &program, const CredentialQueries &queries, Id server);

enum class FdKind { UnixSocket, OtherSocket, NotSocket, Unknown };
FdKind fdKind(const facts::Create &create);

// One level of a send of fds: the sendmsg() itself, then each wrapper call up to the caller that
// supplies its arguments.
struct SendLevel {
  Id site = kNone;
  Id function = kNone;
  Id loop = kNone;
  Id channel = kNone;
  std::string channelText, channelVar;
  std::string callee; // the wrapper called here ("" at the sendmsg() itself)
  bool channelExact = true; // false: an argument read out of an object picked at run time
};
struct PayloadFd {
  Id place = kNone;
  Id site = kNone; // the write into the control message
  bool many = false;
  std::int64_t count = -1;
  bool boundedArray = false;
  int countParam = -1; // the count is this parameter of the function at the current level
  std::string text, var;
  bool exact = true; // false: an argument read out of an object picked at run time
};
struct SendSite {
  std::vector<SendLevel> levels; // [0] = sendmsg(), back() = where it is judged and reported
  std::vector<PayloadFd> payload; // as seen at back()
  // levels[1] is a call of a queuing function: the fd is stored into an array of a struct (or a
  // global) there, and levels[0] is the flush function's sendmsg() that sends what was queued.
  bool queued = false;
};
// Every send of SCM_RIGHTS fds. A wrapper whose channel or fds are parameters (or fields of a
// struct parameter: c->fd) is expanded to each call of it in the program, with the caller's
// arguments put in; with no caller it stays. A flush whose fds were queued by another function
// (Program::queueParams) is expanded to each call of the queuing function instead. At most
// kMaxSendPaths sites come from one send (see expandSends()).
std::vector<SendSite> expandSends(const Program &program);
class RuleContext;
// expandSends() of the rule's program, once per evaluation (fd-flood, fd-cycle and fd-limit ask).
struct SharedQueries {
  std::optional<std::vector<SendSite>> sends;
};
const std::vector<SendSite> &sendsOf(RuleContext &context);
inline constexpr std::size_t kMaxSendPaths = 4096;

// The loops around `loop` (itself first, then each enclosing one), each once. Every walk up the
// loops of a program goes through these: the link merges loops by their site, and two loops of
// one macro expansion share a site (`#define EACH_PAIR(i, j) for (...) for (...)`), so a loop
// can be its own parent. A walk that trusted the parents would never end.
std::vector<Id> loopsAround(const Program &program, Id loop);
bool loopEncloses(const Program &program, Id outer, Id inner);

// Event-loop callbacks: per function, the registration that has an event loop call it with an fd
// (a facts::Callback, a table of callbacks, a struct pollfd handed to it), or kNone. A thread's
// start routine (pthread_create) runs once, not per event: it is not one.
std::vector<Id> eventRegistrations(const Program &program);
// The event callback whose calls reach `function` (itself, or a caller up to three calls up), and
// the functions from that callback down to `function`.
struct EventChain {
  Id callback = kNone;     // the callback function
  Id registration = kNone; // the site that registers it
  std::vector<Id> functions;
};
std::optional<EventChain> eventChain(const Program &program, const std::vector<Id> &registrations,
                                     Id function);

// The origins of the elements of an array place (`fds`, `sv`), and of the array itself.
std::vector<Id> elementOrigins(const Program &program, Id array);

} // namespace afunix::analysis
