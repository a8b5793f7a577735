// The socket facts of one translation unit, as plain data: what the extractor (Extract.h) reads
// out of the AST, what is written to a facts file (FactsIO.h, docs/facts-format.md), and what the
// link (Program.h) merges into one program. No clang type appears here.
//
// Vocabulary:
//   place   where an fd value can live: a local, a parameter (function + position), a field
//           (record + name), a global, an array element, a function's return value, or the value
//           of one creating call. Keys mean the same in every TU.
//   origin  a Create: where a socket (or a known non-socket fd) comes from.
//   flow    an edge between two places (initialisation, assignment, argument, return, element).
//   fact    what happens to the socket at a place: an option, bind/listen/connect, a receive, a
//           send of fds, an fd count written into a control message.
//   site    where a fact happened: file offset and line, the function, the position in its CFG,
//           the innermost loop.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace afunix::facts {

// Every field below is written and read in two places: FactsIO.cpp (JSON) and FactsBinary.cpp
// (binary, transfer() and checkUnit()); facts_binary_test fails when they disagree.
// Bumped whenever a facts file written by an older afunix-check would be read wrongly.
inline constexpr int kFormatVersion = 10;

using Id = std::uint32_t;
inline constexpr Id kNone = UINT32_MAX;

// ---------------------------------------------------------------------------------------------
// Places

enum class PlaceKind : std::uint8_t {
  Local,   // l:<function>:<name>@<offset>, or one definition of it (…#<def offset>)
  Param,   // p:<function>#<index>
  Field,   // f:<record>::<field>
  Global,  // g:<variable USR>
  Element, // <base key>[<index>] or <base key>[*] (an index known only at run time); o:<that key>
           // for what a callee writes into an element of a pointer parameter (outKey)
  Return,  // r:<function>
  Value,   // v:<callee>@<file>:<offset> (the fd one call creates), v:r:<function>@<file>:<offset>
           // (what one call of a program function returns: callValueKey), or c:<constant> (inherited fd)
  // The value flow of objects (docs/facts-format.md, "Objects"): a struct or class is an object,
  // a pointer (or a reference, or `this`) holds the addresses of objects (Points), and a field is
  // a place of each object, not one place of its record.
  Member,  // <base key>.<field>: a field of the object `base` (a local, global or parameter of
           // record type, an Object, a Deref, an Element or another Member)
  Deref,   // *<base key>: whatever object the pointer place `base` points to; the link resolves it
           // to the objects that reach `base`
  Object,  // h:<file>:<offset> (a heap allocation), t:<file>:<offset> (a temporary or a closure)
};

struct Place {
  std::string key;
  PlaceKind kind = PlaceKind::Local;
  std::string name;        // for messages: "fd", "sv[1]", "Server::fd_", "make_socket()"
  Id function = kNone;     // Local/Param/Return: owning function (index into Unit::functions)
  int index = -1;          // Param: position; Element: constant index (-1: run-time index)
  Id base = kNone;         // Element: the array's place; Member: the object; Deref: the pointer
  Id field = kNone;        // Member of a record field: the field's place for every object of the
                           // record (f:<record>::<field>), where objects the link cannot name meet
  // Field, Local, Param, Global of struct or class type (or an array of them): the records its
  // value is, its own first, then (C++) its bases; empty for any other type. The link builds a
  // path below an object only along fields of records the object is (docs/facts-format.md,
  // "Objects").
  std::vector<std::string> records;
};

// ---------------------------------------------------------------------------------------------
// Sites and functions

struct Site {
  Id file = kNone;          // index into Unit::files
  std::uint32_t offset = 0; // byte offset of the expression's start (expansion location)
  std::uint32_t line = 0, column = 0;
  std::uint32_t length = 0; // the expression's length when it ends on the same line, else 0
  Id function = kNone;      // enclosing function; kNone at file scope
  Id block = kNone;         // CFG block of the function's skeleton (kNone: not in the skeleton)
  std::uint32_t element = 0; // position in that block
  Id loop = kNone;           // innermost enclosing loop (index into Unit::loops)
  std::string text;          // the socket argument as written ("s->fd", "sv[1]")
  std::string var;           // what it names: a place key without definitions ("" = not a variable)
};

// Why a statement cannot move further up its block (for fix-its that move it).
enum class MoveStop : std::uint8_t {
  Unmovable,  // the statement itself holds a label, a directive or assembly, or is in a macro
  BlockStart, // nothing stops it before the first statement of its block
  Label,      // a statement that is or holds a goto label, case or default
  Directive,  // a preprocessor directive
  Macro,      // a statement that begins or ends inside a macro expansion, or in another file
  Sets,       // a statement that changes what it reads and cannot move with it
  Defines,    // the definition of what it reads, which cannot move with it
  Uses,       // a statement that looks at what it (or what moves with it) changes
  Calls,      // a call or a write through a pointer that may change a global or aliased variable
  Limit,      // too many statements to look at
};

// A statement that moves along with another one (Statement::companions).
struct Companion {
  std::uint32_t begin = 0;
  std::uint32_t removeBegin = 0, removeEnd = 0;
  std::string text;
};

// A statement around a fact, for fix-its that move or insert whole statements.
struct Statement {
  Id file = kNone;
  std::uint32_t begin = 0, end = 0;          // the statement, with its ';'
  std::uint32_t removeBegin = 0, removeEnd = 0; // what removing it takes (whole lines when alone)
  std::uint32_t latestDeclaration = 0;       // latest local declaration the statement uses
  std::uint32_t block = 0;                   // the compound statement holding it (per unit)
  std::string text;                          // its source
  std::string indentation;                   // the whitespace that starts its line
  bool plainSocket = false;                  // the socket argument is a variable/field/element
  // Code inserted after the statement runs right after its call: the statement is the call (an
  // expression or declaration), or an `if` testing it whose only branch leaves.
  bool followsCall = false;
  // It is a jump target (a label, case or default): code inserted before it is skipped by a jump.
  bool labelled = false;
  // How far up its block it may move (MoveSafety.h): the begin of the farthest earlier statement
  // it can be put above (== begin: none), with `companions`, and why not further (on which line,
  // about which variable).
  std::uint32_t movableAbove = 0;
  MoveStop moveStop = MoveStop::Unmovable;
  std::uint32_t moveStopLine = 0;
  std::string moveStopName;
  // Statements that give what it reads its value (`on = 1;` after listen()), nearest first: a
  // move above one of them takes it along, in source order, before the moved statement.
  std::vector<Companion> companions;
};

struct Loop {
  Id function = kNone;
  Id parent = kNone;        // enclosing loop in the same function
  Id site = kNone;          // the loop statement
  bool errnoRetry = false;  // only repeats on errno (EINTR retry): resends the same message
  bool controlOnce = false; // its body clears msg_control/msg_controllen and never sets it again:
                            // the fds go with the first turn only (a short stream write finished)
  bool oneMessage = false;  // walks one received message's cmsgs (c = CMSG_NXTHDR(&m, c)) or
                            // the fds of one cmsg: that message bounds its turns
  std::optional<std::int64_t> trips; // a constant bound on its turns
};

// What a credential check does when no SCM_CREDENTIALS arrives.
enum class CredentialOutcome : std::uint8_t {
  Unknown,
  FailsOpen,   // "if credentials are present, check them": the peer is accepted unchecked
  FailsClosed, // a missing cmsg is refused: every peer is
};

struct Function {
  std::string key;  // USR; a file-local function's USR names its file
  std::string name; // for messages
  bool defined = false;
  Id file = kNone;  // where it is defined
  std::uint32_t params = 0;
  std::vector<Id> paramIsInt; // parameter positions that can hold an fd (int or an fd owner)
  // CFG skeleton (only for functions with socket calls): successors per block, immediate
  // dominators (kNone for the entry and unreachable blocks), the entry block.
  std::vector<std::vector<std::uint32_t>> successors;
  std::vector<Id> idom;
  Id entry = kNone;
  Id credentialEvidence = kNone;   // site where SCM_CREDENTIALS / struct ucred is looked at
  CredentialOutcome credentialOutcome = CredentialOutcome::Unknown;
  std::vector<Id> controlCallees;  // functions handed this function's msghdr/cmsghdr
  // What its msghdrs' msg_control is set from (oob->buf, control, &cmsg): a receive reads the
  // credentials another function looks at when both name the same buffer of one object.
  std::vector<Id> controlBuffers;
  std::vector<Id> overrides;       // virtual methods this one overrides (transitively)
  bool buildsScmRights = false;    // names SCM_RIGHTS other than in a comparison
  bool buildsScmCredentials = false; // names SCM_CREDENTIALS other than in a comparison
  bool addressEscapes = false;     // address taken for something other than a known callback
  bool system = false;             // declared in a system header (never analysed)
  bool method = false;             // a C++ member function with `this` (p:<key>#this)
};

// ---------------------------------------------------------------------------------------------
// Facts

enum class CreateHow : std::uint8_t {
  Socket,     // socket()
  Socketpair, // socketpair(): `peer` is the other end
  Accept,     // accept()/accept4()/an event loop's accepting listener: `listener`
  Producer,   // a configured SocketProducers function
  External,   // inherited: sd_listen_fds, SD_LISTEN_FDS_START, fd 3, a control socket by name
  NotSocket,  // pipe(), open(), eventfd(), ...: an fd that is known not to be a socket
  Parameter,  // a parameter of a function nobody calls (added by the link)
  Unknown,    // a value from somewhere we cannot see (added by the link)
};

enum class Family : std::uint8_t { Unknown, Unix, Netlink, Bluetooth, Inet, Inet6, Other };

struct Create {
  Id place = kNone;
  Id site = kNone;
  CreateHow how = CreateHow::Unknown;
  Family family = Family::Unknown;
  std::string familyName; // as written (AF_LOCAL, PF_UNIX), "" when unknown
  int type = -1;          // SOCK_STREAM/DGRAM/SEQPACKET, flags masked; -1 unknown
  Id peer = kNone;        // Socketpair: the other end's place
  Id listener = kNone;    // Accept: the listening socket's place
  int end = -1;           // Socketpair/pipe: which end
  Id statement = kNone;   // Socketpair: the statement of the call (for fix-its after it)
  std::string creator;    // the call: "socket", "accept4", "pipe2", "sd_listen_fds"
  std::string origin;     // for messages: "socket() in main()", "socket activation, SD_LISTEN_FDS_START"
  // External: how the program asks for the socket, which says which configured socket it is:
  //   "listen-fd:N"   the N-th socket-activation fd (SD_LISTEN_FDS_START + N, fd 3 + N)
  //   "listen-fd:*"   one of them, picked at run time
  //   "android:NAME"  android_get_control_socket("NAME")
  //   ""              not known (a configured ExternalSocketSources function, an inherited fd
  //                   that is not a socket-activation fd)
  std::string handover;
  // listen-fd sockets taken by sd_listen_fds_with_names(): the names the function compares the
  // fds' names with (FileDescriptorName=); empty when it does not.
  std::vector<std::string> handoverNames;
  // socket(family, type, ...) with the family or type taken from a parameter of its function
  // (bind_listen(int family, ...)): each caller's constant decides (the link specialises).
  int familyParam = -1;
  int typeParam = -1;
  // socket(a->sa->sa_family, ...), socket(conf->family, ...): the place the family is read from
  // when it is neither a constant nor a parameter; the constants that reach it decide (one
  // socket per family, as for familyParam).
  Id familyFrom = kNone;
};

enum class Option : std::uint8_t { PassCred, PassSec, PassPidfd };
enum class Tri : std::uint8_t { False, True, Maybe };

struct OptionSet {
  Id place = kNone;
  Id site = kNone;
  Option option = Option::PassCred;
  Tri value = Tri::Maybe;
  bool throughWrapper = false; // not setsockopt() itself
  bool familyGuarded = false;  // under a condition that tests the family
  Id statement = kNone;        // index into Unit::statements
  // setsockopt(fd_, level, option, &value, ...) in a function whose `option` (and value) are its
  // parameters (SetFlag(level, option, on)): an option only where a caller passes one of the
  // constants; the link makes one OptionSet per such call, on the caller's socket.
  int optionParam = -1;
  int valueParam = -1;
  // With optionParam: the level is this parameter too (setsockopt_int(fd, level, opt, v)); a
  // caller passing another level than SOL_SOCKET sets no credential option.
  int levelParam = -1;
};

enum class Lifecycle : std::uint8_t { Bind, Listen, Connect };

// The AF_UNIX address a bind(), connect() or sendto() names: the sun_path the function fills in
// ("/run/app.sock"; an abstract name as "@name"), or the parameter of its function the path comes
// from (the callers' constants then name it). Paired by it, a server and its clients meet.
struct Address {
  std::string path;
  int param = -1;
  bool known() const { return !path.empty() || param >= 0; }
};

struct LifecycleEvent {
  Id place = kNone;
  Id site = kNone;
  Lifecycle kind = Lifecycle::Bind;
  Id statement = kNone;
  Address address; // bind() and connect()
  // A socket maker that binds or listens before it returns (models.md, socket_makers): the event
  // is at its call, and nothing can come between it and the socket's creation.
  std::string maker;
};

enum class ReceiveKind : std::uint8_t { Recvmsg, Other }; // Other: recv/recvfrom/read/readv/recvmmsg

struct Receive {
  Id place = kNone;
  Id site = kNone;
  ReceiveKind kind = ReceiveKind::Other;
};

// An fd (or an array of them) written into an SCM_RIGHTS payload (memcpy into CMSG_DATA, a store
// through a CMSG_DATA pointer).
struct Payload {
  Id place = kNone;         // the fd, or the array the fds come from; kNone when not a place
  Id site = kNone;          // the write
  bool many = false;        // an array or a loop of fds in one message
  std::int64_t count = -1;  // fds per message when constant
  bool boundedArray = false; // copied from an array declared with at most SCM_MAX_FD elements
  int countParam = -1;       // otherwise the count is this parameter of its function (sizeof(int) * n)
};

// fds read out of a received SCM_RIGHTS message (*(int *)CMSG_DATA(c), fds[i] of a pointer into
// it, memcpy(&fd, CMSG_DATA(c), n)): `place` is the value they arrive as, one per read
// (v:SCM_RIGHTS@<file>:<offset>), with an unknown create of its own (another program's fds); the
// link adds what the program itself sends to the socket it is read from (linkReceivedFds).
struct Received {
  Id place = kNone;
  Id site = kNone;
};

// A sendmsg(). Its payload is what its function writes into CMSG_DATA; a helper that only passes
// a msghdr parameter on (`msghdrParam`) takes the payload its callers build.
struct Send {
  Id channel = kNone;
  Id site = kNone;
  int msghdrParam = -1;
  bool dontWait = false;      // its flags include MSG_DONTWAIT: never waits for room at the peer
  bool stopsOnEagain = false; // its function leaves when errno is EAGAIN/EWOULDBLOCK (no retry)
};

// Data written to a socket (send(), sendto(), sendmsg(), write(), writev()): what a client does
// first decides whether a server's late SO_PASSCRED loses its credentials.
struct Write {
  Id place = kNone;
  Id site = kNone;
  bool credentials = false; // a sendmsg() whose function attaches SCM_CREDENTIALS
  Address address;          // sendto(), or sendmsg() with msg_name: where it goes
};

// QueuedMessage: a message queued with a library the model catalog knows (message_queues), sent
// later in one sendmsg() with all its fds.
enum class LimitWhere : std::uint8_t { CmsgLen, PayloadCopy, BufferSize, QueuedMessage };

// An SCM_RIGHTS message sized for more than SCM_MAX_FD fds.
struct Limit {
  Id site = kNone;
  std::int64_t count = 0;
  LimitWhere where = LimitWhere::CmsgLen;
};

// Fallback: what a callback's struct parameter holds (pfd->fd) when the link finds no
// registration that says which fd it is called with: everything stored in that field.
// Resolved (added by the link): between a place reached through a pointer (a Member or Element
// of a Deref) and the same place of an object the pointer points to.
// Alias: no value moves. Between two Field places, one of each of two records a pointer is
// converted between ((uv_stream_t *)&pipe, (struct sockaddr *)&sun): fields of their common
// initial sequence, which C lets either record's name read (C11 6.5.2.3p6).
enum class FlowKind : std::uint8_t { Init, Assign, Argument, Return, Element, Callback, Fallback, Resolved, Alias };

struct Flow {
  Id from = kNone;
  Id to = kNone;
  FlowKind kind = FlowKind::Assign;
  Id site = kNone;
  bool exact = true; // false through dup() or a run-time array index: many sockets, one place
};

enum class ArgMode : std::uint8_t {
  None,    // not an fd
  Value,   // an fd: flows into the parameter
  Address, // &fd into an int *: the callee's (*p) and the caller's fd are one place
  Array,   // sv into an int *: the callee's p[0], p[1] and sv[0], sv[1]
  Constant, // a number that is not an fd (-1, 0): the parameter gets no socket from this call
};

struct Argument {
  Id place = kNone;
  ArgMode mode = ArgMode::None;
  std::string text; // as written, for messages
  std::string var;  // Site::var of the argument
  std::string constant; // a string constant that looks like a socket path ("/run/x", "@x")
  std::int64_t number = -1; // a non-negative integer constant (a count a callee may use)
  int param = -1;           // an integer that is the caller's own parameter, passed on as is
  bool exact = true;        // false: read out of an object picked at run time (procs[i].fd)
};

// A place that holds the address of an object (p = &conn, p = malloc(...), `this` of a
// constructor's object), of a function (cb = on_read, .dispatch = my_dispatch, a lambda), or a
// socket constant the program hands on (bind_listen(AF_INET6, ...), a.family = AF_UNIX).
struct Points {
  Id place = kNone;
  Id target = kNone;   // the object's place, or kNone
  Id function = kNone; // the function, or kNone
  int constant = -1;   // an address family (AF_INET6: 10), or kSocketTypeConstant + a socket type
};
inline constexpr int kSocketTypeConstant = 256;

// `place` holds the address of the object that holds, at member path `member` ("socket",
// "link.node"), what `pointer` points to: container_of(p, T, socket), written as
// (T *)((char *)p - offsetof(T, socket)), with p as an integer ((uintptr_t)p), offsetof() as
// (size_t)&((T *)0)->socket, or inside a statement expression (the kernel's). The link gives
// `place` the object whose member that is, for each object `pointer` points to that is such a
// member; where a value of `pointer` names no such object, `pointer`'s values flow on into `place`
// (Program::resolveRound), so nothing is read less than without the fact.
struct ContainerOf {
  Id place = kNone;
  Id pointer = kNone;
  std::string member;
};

// A call of a function that is not a socket API call (those become facts). The link turns its
// arguments into flows into the callee's parameters wherever the callee is defined.
struct Call {
  Id site = kNone;
  Id caller = kNone;
  Id callee = kNone;
  std::vector<Argument> args;
  bool passesControl = false; // hands a msghdr/cmsghdr to the callee
  // A member call: what becomes the callee's `this` (the address of the object it is called on).
  Argument receiver;
  // A call through a pointer (Unit::indirectCalls: callee is kNone): the place of the pointer;
  // the link calls every function (and closure) that reaches it.
  Id target = kNone;

  // What it passes for its callee's parameter `index` (-1: the receiver), or kNone.
  Id argumentPlace(int index) const {
    return index < 0 ? receiver.place
                     : (static_cast<std::size_t>(index) < args.size() ? args[index].place : kNone);
  }
};

// A socket registered with a function that an event loop calls with it: the link adds a flow from
// the socket into the callback's parameter.
struct Callback {
  Id site = kNone;
  Id socket = kNone;   // place of the registered fd
  Id callee = kNone;   // the callback
  int param = -1;      // the callback's parameter that receives the fd
  std::string registrar; // "sd_event_add_io", "g_unix_fd_add", or kGuessedRegistrar
};
// The registrar of a project's own call that passes an fd together with a function: a guess that
// the function is called with the fd (atomicio(read, fd, ...) is one too), not a known loop.
inline constexpr const char *kGuessedRegistrar = "a call passing both";

// A socket that a service manager creates and hands to the program, read from its configuration
// (a systemd socket unit, an Android init .rc file), not from C: what it is set up with before
// the program runs.
enum class Manager : std::uint8_t { Systemd, AndroidInit };

struct ServiceSocket {
  Manager manager = Manager::Systemd;
  Id site = kNone;        // the ListenStream=/ListenDatagram=/... or `socket` line
  std::string unit;       // "foo.socket"; Android: "service foo"
  std::string name;       // FileDescriptorName= (by default the unit's name); Android: the socket name
  int index = -1;         // systemd: its position among the unit's fds (it is fd 3 + index)
  std::string address;    // as written: "/run/foo.sock", "@foo", "8080"
  Family family = Family::Unknown;
  int type = -1;          // SOCK_STREAM/DGRAM/SEQPACKET; -1 unknown
  Tri passcred = Tri::False; // PassCredentials= / +passcred; Maybe when set by a template value
  Id passcredSite = kNone;   // the PassCredentials= line or the type token
  bool accept = false;       // Accept=yes: the program gets each connection, not the listener
  std::vector<std::string> programs; // base names of what the socket starts (ExecStart=, service path)
  // The one edit that enables SO_PASSCRED there: at `enableAt` (a site: file and offset) replace
  // `enableLength` bytes with `enableText` (insert a PassCredentials=yes line, rewrite
  // PassCredentials=no, add +passcred to the type).
  Id enableAt = kNone;
  std::uint32_t enableLength = 0;
  std::string enableText;
  // The edit that removes the PassCredentials= line (kNone when there is none).
  Id removeAt = kNone;
  std::uint32_t removeLength = 0;
};

struct Unit {
  std::string mainFile;            // absolute
  std::vector<std::string> files;  // every file a site points into
  std::vector<std::string> digests; // contentDigest() of each file as it was parsed
  std::vector<Place> places;
  std::vector<Site> sites;
  std::vector<Statement> statements;
  std::vector<Loop> loops;
  std::vector<Function> functions; // every function a fact, call or place refers to
  std::vector<Create> creates;
  std::vector<OptionSet> options;
  std::vector<LifecycleEvent> lifecycle;
  std::vector<Receive> receives;
  std::vector<Payload> payloads;
  std::vector<Received> received;
  std::vector<Send> sends;
  std::vector<Write> writes;
  std::vector<Limit> limits;
  std::vector<Flow> flows;
  std::vector<Call> calls;
  std::vector<Callback> callbacks;
  std::vector<Points> points;
  std::vector<ContainerOf> containers;
  std::vector<Call> indirectCalls; // calls through pointers (Call::target)
  std::vector<Id> untracked;       // places written with values we cannot follow
  std::vector<ServiceSocket> services; // only in the units read from service files
  // The program or library the unit is compiled into, from its compile command's output path
  // ("foo" for meson's foo.p/ and CMake's foo.dir/); "" when the command does not say.
  std::string target;
  // Never parsed: the prefilter found that the file names nothing that can change the findings
  // (engine/Prefilter.h). Its unit holds no facts; a shard or stored facts file says so.
  bool skipped = false;
};

// Keys both the extractor and the link make: the out side of a pointer parameter's element (what
// the callee writes there for its callers), and the value of one call of a program function.
inline std::string outKey(const std::string &elementKey) { return "o:" + elementKey; }
// A value one expression makes (a socket maker's fd, dup()'s, container_of()'s address): v:<what>@<file>:<offset>.
inline std::string valueKey(const std::string &what, const std::string &file, std::uint32_t offset) {
  return "v:" + what + "@" + file + ":" + std::to_string(offset);
}
inline std::string callValueKey(const std::string &callee, const std::string &file, std::uint32_t offset) {
  return valueKey("r:" + callee, file, offset);
}
// What a call through a pointer gives back (Unit::indirectCalls), fed by what each function the
// link finds there returns.
inline std::string indirectValueKey(const std::string &file, std::uint32_t offset) {
  return callValueKey("*", file, offset);
}
// What one call of a setter copies out of the objects its source path reaches (the link's own;
// docs/facts-format.md, "Keys that mean the same in every unit").
inline std::string setterCopyKey(const std::string &sourceKey, const std::string &file, std::uint32_t offset) {
  return "v:s:" + sourceKey + "@" + file + ":" + std::to_string(offset);
}

// What a std::function (or another callable object) calls: a member of the object, holding the
// function's or the closure's address.
inline constexpr std::string_view kCallableMember = "<callable>";
// The fd a library object keeps (models' fd_holders): a member of each holder object that no
// record of the program declares, and the field place every holder of that model shares
// (f:GIOChannel::<fd>, read through a holder from outside, as a record's field is).
inline constexpr std::string_view kHolderFdMember = "<fd>";
inline std::string holderFieldKey(const std::string &holderName) {
  return "f:" + holderName + "::" + std::string(kHolderFdMember);
}
inline bool isHolderFieldKey(std::string_view key) {
  return key.starts_with("f:") && key.ends_with(kHolderFdMember) &&
         key.substr(0, key.size() - kHolderFdMember.size()).ends_with("::");
}

// The family an AF_* value names (AF_LOCAL is AF_UNIX), and the option an SO_* value names.
Family familyFromValue(std::int64_t value);
std::optional<Option> optionFromValue(std::int64_t value);

// Names for messages and the facts format.
const char *name(PlaceKind kind);
const char *name(CreateHow how);
const char *name(Family family);
const char *name(Option option);
const char *name(Tri value);
const char *name(Lifecycle kind);
const char *name(ReceiveKind kind);
const char *name(LimitWhere where);
const char *name(FlowKind kind);
const char *name(ArgMode mode);
const char *name(CredentialOutcome outcome);
const char *name(Manager manager);
const char *name(MoveStop stop);

} // namespace afunix::facts
