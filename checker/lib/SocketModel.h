// The shared socket model: per translation unit, the facts every afunix check needs (where
// sockets are created, which options they get, bind/listen/connect, credential reads, fd sends)
// and the flow edges between the places a socket fd can live. Extracted in one pass with AST
// matchers, then propagated: each location learns which creations ("origins") can reach it.
//
// Locations are stable keys ("field:server::fd", "param:read_creds#0") so facts stay plain data
// that a later cross-TU phase can serialise and merge.
#pragma once

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/Basic/SourceLocation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace clang {
class CFG;
} // namespace clang

namespace clang::tidy::afunix {

using LocId = unsigned;
inline constexpr LocId kNoLoc = ~0u;

// CallSite: the value of one creating call (socket(), accept(), a producer, an external source)
// or an inherited fd spelled as a constant (3, SD_LISTEN_FDS_START + n).
enum class LocKind { Local, Param, Field, Global, Element, Return, CallSite };

// One place a socket fd can live.
struct SocketLocation {
  LocKind kind = LocKind::Local;
  std::string key;   // stable: same key for the same place in every TU (fields, globals, returns)
  std::string name;  // for messages: "fd", "s->fd" is spelled per fact (see Site::socketText)
  const Decl *decl = nullptr;                // VarDecl, ParmVarDecl, FieldDecl or FunctionDecl
  const FunctionDecl *function = nullptr;    // Local/Param/Return: the owning function
  unsigned index = 0;                        // Param: position; Element: constant index
  LocId base = kNoLoc;                       // Element: the array's location
};

// Where a fact happened: the call (or expression), its function, and the statement to order by.
struct Site {
  const Expr *expr = nullptr;             // the call: socket(), setsockopt(), recvmsg(), ...
  const FunctionDecl *function = nullptr; // enclosing function (nullptr at file scope)
  SourceLocation loc;
  std::string socketText; // the socket argument as spelled at this site ("s->fd", "sv[1]")
};

enum class CreateHow {
  Socket,     // socket()
  Socketpair, // socketpair(): `peer` is the other end
  Accept,     // accept()/accept4(): `listener` is where the listening socket lives
  Producer,   // a configured SocketProducers function
  External,   // inherited: sd_listen_fds / SD_LISTEN_FDS_START, numbered fd, android control
              // socket, a configured ExternalSocketSources function
  Parameter,  // a parameter of a function with no caller in this TU (public entry)
  Unknown,    // a field/global never assigned here, a call to an unknown function
};

enum class Family { Unknown, Unix, Netlink, Bluetooth, Inet, Inet6, Other };

// A place a socket comes from. Origins flow along edges to every location they can reach.
struct CreateFact {
  LocId loc = kNoLoc;
  Site site;
  CreateHow how = CreateHow::Unknown;
  Family family = Family::Unknown;
  std::string familyName; // as spelled (AF_LOCAL, PF_UNIX) or "AF_INET"; "" when unknown
  int type = -1;          // SOCK_STREAM/DGRAM/SEQPACKET with flags masked; -1 = unknown
  LocId peer = kNoLoc;    // Socketpair
  LocId listener = kNoLoc; // Accept
  std::string origin;     // for messages: "socket() in main", "SD_LISTEN_FDS_START"
};

enum class SockOption { PassCred, PassSec, PassPidfd };
enum class Tri { False, True, Maybe };

struct OptionFact {
  LocId loc = kNoLoc;
  Site site;
  SockOption option = SockOption::PassCred;
  Tri value = Tri::Maybe;
  bool throughWrapper = false; // not setsockopt() itself
  bool familyGuarded = false;  // inside an `if` that tests the family (AF_UNIX, SO_DOMAIN)
};

enum class Lifecycle { Bind, Listen, Connect };

struct LifecycleFact {
  LocId loc = kNoLoc;
  Site site;
  Lifecycle kind = Lifecycle::Bind;
};

// recvmsg() whose control data is compared with SCM_CREDENTIALS or read as struct ucred.
struct ReadCredsFact {
  LocId loc = kNoLoc;
  Site site;
  SourceLocation evidence; // the SCM_CREDENTIALS comparison or the ucred read
};

// sendmsg() with SCM_RIGHTS (filled by the fd-passing extractor, see addExtractor).
struct SendFdsFact {
  LocId over = kNoLoc;
  Site site;
  std::vector<LocId> fds;          // locations of the fds passed, when known
  bool inLoop = false;             // the sendmsg() sits in a loop
  bool acknowledgedInLoop = false; // the loop also waits for the peer (recv/poll) each turn
  int count = -1;                  // fds per message when constant; -1 unknown
};

enum class FlowKind { Init, Assign, Argument, Return, Element };

struct FlowEdge {
  LocId from = kNoLoc;
  LocId to = kNoLoc;
  FlowKind kind = FlowKind::Assign;
  SourceLocation loc;
};

// Project configuration (check options, see AfunixCheckBase).
struct ModelConfig {
  // name -> family spelled ("AF_UNIX" when only the name is given)
  llvm::StringMap<std::string> socketProducers;
  // name -> option the wrapper sets (SO_PASSCRED when only the name is given)
  llvm::StringMap<SockOption> optionWrappers;
  std::vector<std::string> externalSources;

  // "a;b:AF_INET" lists, as the options are written.
  static ModelConfig parse(llvm::StringRef producers, llvm::StringRef wrappers,
                           llvm::StringRef externals);
  std::string fingerprint() const;
};

class SocketModel;
// An extra fact extractor run after the built-in ones and before propagation (fd-passing facts).
using Extractor = void (*)(SocketModel &model, ASTContext &context);

class SocketModel {
public:
  // Extracts and propagates the facts of the whole TU.
  static std::unique_ptr<SocketModel> build(ASTContext &context, const ModelConfig &config,
                                            llvm::ArrayRef<Extractor> extra = {});

  // The model of the current TU, built once and shared by every check (per thread: clangd builds
  // ASTs on several). Call resetShared() from onStartOfTranslationUnit.
  static const SocketModel &shared(ASTContext &context, const ModelConfig &config);
  static void resetShared();
  // Extractors that shared() runs (register once, e.g. from a check constructor).
  static void addSharedExtractor(Extractor extractor);

  ASTContext &context() const { return *Ctx; }
  const ModelConfig &config() const { return Config; }

  const std::vector<SocketLocation> &locations() const { return Locations; }
  const SocketLocation &location(LocId id) const { return Locations[id]; }
  const std::vector<CreateFact> &creates() const { return Creates; }
  const std::vector<OptionFact> &options() const { return Options; }
  const std::vector<LifecycleFact> &lifecycle() const { return Lifecycles; }
  const std::vector<ReadCredsFact> &credentialReads() const { return Reads; }
  const std::vector<SendFdsFact> &fdSends() const { return Sends; }
  const std::vector<FlowEdge> &flows() const { return Flows; }

  // Indices into creates() of every origin that can reach `loc` (after propagation), ascending.
  const std::vector<unsigned> &originsOf(LocId loc) const;
  // Every location origin `create` reaches (after propagation).
  std::vector<LocId> reachOf(unsigned create) const;
  // How origin `create` first arrived at `loc` (the edge), or nullptr when created there.
  const FlowEdge *arrivalEdge(unsigned create, LocId loc) const;

  // The location an expression denotes (a variable, parameter, field, array element, a call's
  // return value), or std::nullopt. Creates the location when new (for extractors).
  std::optional<LocId> locationOf(const Expr *expr, const FunctionDecl *function);

  // Control flow order of two sites. Only within one function; across functions every answer is
  // the conservative one given by the caller (`unknown`).
  // mayPrecede: some path runs `a` and then `b`.
  // mustFollow: `b` only ever runs after `a` (a reaches b and b never reaches a).
  bool mayPrecede(const Site &a, const Site &b, bool unknown) const;
  bool mustFollow(const Site &a, const Site &b, bool unknown) const;

  // For extractors.
  void addSendFds(SendFdsFact fact) { Sends.push_back(std::move(fact)); }
  void addFlow(LocId from, LocId to, FlowKind kind, SourceLocation loc);
  unsigned addCreate(CreateFact fact);

  // Debug/test rendering: one line per fact, stable order.
  std::string dump() const;
  std::string describe(LocId loc) const { return loc == kNoLoc ? "?" : Locations[loc].key; }

  SocketModel(ASTContext &context, const ModelConfig &config);
  ~SocketModel();

private:
  friend class ModelBuilder;
  LocId intern(LocKind kind, std::string key, std::string name, const Decl *decl,
               const FunctionDecl *function, unsigned index = 0, LocId base = kNoLoc);
  std::optional<LocId> varLocation(const VarDecl *var);
  void propagate();
  const CFG *cfgOf(const FunctionDecl *function) const;
  // Position of a site's expression in its function's CFG: block id and element index.
  std::optional<std::pair<unsigned, unsigned>> cfgPosition(const Site &site) const;
  bool blockReaches(const FunctionDecl *function, unsigned from, unsigned to) const;

  ASTContext *Ctx;
  ModelConfig Config;
  std::vector<SocketLocation> Locations;
  llvm::StringMap<LocId> ByKey;
  std::vector<CreateFact> Creates;
  std::vector<OptionFact> Options;
  std::vector<LifecycleFact> Lifecycles;
  std::vector<ReadCredsFact> Reads;
  std::vector<SendFdsFact> Sends;
  std::vector<FlowEdge> Flows;
  // Propagation result: per location, origin indices; per (origin, location), arrival edge.
  std::vector<std::vector<unsigned>> Origins;
  llvm::DenseMap<std::pair<unsigned, LocId>, unsigned> Arrival; // -> index into Flows

  struct FunctionCfg;
  mutable llvm::DenseMap<const FunctionDecl *, std::unique_ptr<FunctionCfg>> Cfgs;
};

// Names for messages.
llvm::StringRef optionName(SockOption option);
llvm::StringRef familyName(Family family);
llvm::StringRef createHowName(CreateHow how);

} // namespace clang::tidy::afunix
