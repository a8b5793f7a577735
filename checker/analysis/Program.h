// The link: the facts of any number of translation units merged into one program (keys that
// name the same place, function or site in several units become one), the flows the units leave
// to the link (call arguments into parameters wherever the callee is defined, callbacks, virtual
// overriders, elements read at a run-time index), the origins of places nobody in the program
// writes, then propagation: which origins reach which place. Rules (Rules.h) only query this.
#pragma once

#include "Facts.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <algorithm>
#include <map>
#include <unordered_map>
#include <set>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace afunix::analysis {

using facts::Id;
using facts::kNone;

// Ids of keys a table of the program holds (a place's or a function's `key`), found by the key's
// hash: a slot is the hash's high half and the id, so a lookup touches one slot and, only when
// the halves agree, the key it stands for. A map owning copies of the keys (llvm::StringMap) cost
// a second copy of three million keys, an allocation each, on a 100,000-file link.
class KeyIndex {
public:
  // Room for this many keys without growing (before the first insert).
  void reserve(std::size_t keys);
  // The id `key` was given, or kNone; `keyOf(id)` is the key of an id given before.
  template <typename KeyOf> Id find(llvm::StringRef key, const KeyOf &keyOf) const {
    if (Slots.empty())
      return kNone;
    std::uint64_t hash = hashOf(key);
    for (std::size_t at = hash & Mask;; at = (at + 1) & Mask) {
      const Slot &slot = Slots[at];
      if (slot.id == kNone)
        return kNone;
      if (slot.tag == tagOf(hash) && keyOf(slot.id) == key)
        return slot.id;
    }
  }
  // `key`'s id: the one given before, or `fresh` (then the caller makes keyOf(fresh) `key` before
  // the next call); the flag says which.
  template <typename KeyOf> std::pair<Id, bool> insert(llvm::StringRef key, Id fresh, const KeyOf &keyOf) {
    if ((Count + 1) * 10 > Slots.size() * 7)
      grow(keyOf);
    std::uint64_t hash = hashOf(key);
    for (std::size_t at = hash & Mask;; at = (at + 1) & Mask) {
      Slot &slot = Slots[at];
      if (slot.id == kNone) {
        slot = {tagOf(hash), fresh};
        ++Count;
        return {fresh, true};
      }
      if (slot.tag == tagOf(hash) && keyOf(slot.id) == key)
        return {slot.id, false};
    }
  }

private:
  struct Slot {
    std::uint32_t tag = 0;
    Id id = kNone;
  };
  static std::uint64_t hashOf(llvm::StringRef key);
  static std::uint32_t tagOf(std::uint64_t hash) { return static_cast<std::uint32_t>(hash >> 32); }
  template <typename KeyOf> void grow(const KeyOf &keyOf) {
    std::vector<Slot> old = std::move(Slots);
    resize(old.size() * 2);
    for (const Slot &slot : old)
      if (slot.id != kNone) {
        std::uint64_t hash = hashOf(keyOf(slot.id));
        std::size_t at = hash & Mask;
        while (Slots[at].id != kNone)
          at = (at + 1) & Mask;
        Slots[at] = slot;
      }
  }
  void resize(std::size_t slots);
  std::vector<Slot> Slots;
  std::size_t Mask = 0, Count = 0;
};

// A graph over ids in compressed rows: the successors of `p` are targets[offsets[p],
// offsets[p + 1]). One allocation per array, not one per node: the link's graphs have millions of
// places, most with one successor or none.
struct Graph {
  std::vector<Id> offsets{0}, targets;
  std::size_t size() const { return offsets.size() - 1; }
  llvm::ArrayRef<Id> of(Id p) const {
    return llvm::ArrayRef<Id>(targets).slice(offsets[p], offsets[p + 1] - offsets[p]);
  }
  llvm::ArrayRef<Id> operator[](Id p) const { return of(p); }
};

// The graph of `n` nodes whose edges `edges(add)` gives, calling add(from, to) for each (it is
// called twice: once to count, once to fill); each node's successors in the order given.
template <class Edges> Graph makeGraph(std::size_t n, Edges edges) {
  Graph g;
  g.offsets.assign(n + 1, 0);
  edges([&](Id from, Id) { ++g.offsets[from + 1]; });
  for (std::size_t p = 0; p < n; ++p)
    g.offsets[p + 1] += g.offsets[p];
  g.targets.resize(g.offsets[n]);
  std::vector<Id> next(g.offsets.begin(), g.offsets.end() - 1);
  edges([&](Id from, Id to) { g.targets[next[from]++] = to; });
  return g;
}

// A set of ids (origins, address values) for each place, each distinct set stored once: the places
// of a cycle share one, and so do places that only pass on what one predecessor holds. Four bytes
// a place, not a reference-counted pointer: the link's rounds remake these for millions of places.
class PlaceSets {
public:
  PlaceSets() = default;
  // `places` places, none with a set yet.
  explicit PlaceSets(std::size_t places) : SetOf(places, kNone) {}
  std::size_t size() const { return SetOf.size(); }
  // Ascending; empty for a place without a set (kNone and places made after the sets included).
  const std::vector<Id> &at(Id place) const {
    static const std::vector<Id> kEmpty;
    return place < SetOf.size() && SetOf[place] != kNone ? Sets[SetOf[place]] : kEmpty;
  }
  bool contains(Id place, Id value) const {
    const std::vector<Id> &set = at(place);
    return std::binary_search(set.begin(), set.end(), value);
  }
  // A new set (ascending) and its index, for share().
  Id add(std::vector<Id> set) {
    Sets.push_back(std::move(set));
    return static_cast<Id>(Sets.size() - 1);
  }
  const std::vector<Id> &set(Id index) const { return Sets[index]; }
  // Gives `place` the set `index` (kNone: none).
  void share(Id place, Id index) {
    if (place >= SetOf.size())
      SetOf.resize(place + 1, kNone);
    SetOf[place] = index;
  }

private:
  std::vector<Id> SetOf; // per place: an index into Sets, or kNone
  std::vector<std::vector<Id>> Sets;
};

// What a function does to the sockets in its parameters and returns, over the whole program.
struct ParamEffects {
  Id passcred = kNone;   // site of an SO_PASSCRED that may enable it
  Id readsCredentials = kNone;
  Id listens = kNone;    // listen() on it
  Id acceptsOn = kNone;  // accept() on it
  Id bindsOrConnects = kNone;
  Id sendsFdsOver = kNone;
  Id sentAsFd = kNone;
  Id receives = kNone;
};
struct Summary {
  Id function = kNone;
  std::vector<ParamEffects> params; // by position
  facts::Family returns = facts::Family::Unknown; // a socket of this family, when all agree
  bool returnsSocket = false;
};

// What the link must know of a unit before it merges any: the functions it defines (one defined
// in two files is two functions, so a unit's keys depend on every other unit) and how many facts
// it holds (the program's room, made once). A shard file stores it beside each unit's facts, so
// the link of shards decodes each unit only when it merges it (the units' memory reused unit
// after unit instead of all of them held at once).
struct UnitOutline {
  // Function key and the file defining it. The strings may point into the unit or the shard file
  // they were read from: they are read only before the first unit is merged.
  std::vector<std::pair<llvm::StringRef, llvm::StringRef>> definitions;
  std::size_t places = 0, functions = 0, sites = 0, calls = 0;
  // The flows the link will hold for it: its own and one per call and per argument (deriveFlows).
  std::size_t flows = 0;
  bool skipped = false; // facts::Unit::skipped

  static UnitOutline of(const facts::Unit &unit);
};

class Program {
public:
  // Merges and propagates. Units need not be distinct: facts seen twice count once. A unit that
  // `movable` also holds at its index is read for the last time: its strings and vectors may be
  // moved into the program (it is left valid, its contents unspecified).
  static std::unique_ptr<Program> link(const std::vector<const facts::Unit *> &units,
                                       const std::vector<facts::Unit *> &movable = {});
  // The same link over units loaded one at a time, in order: `load(i, scratch)` gives unit i of
  // `outlines`, decoded into `scratch` (freed once merged) or one that lives on. Its `movable` is
  // the unit itself when it is read for the last time (as `movable` above). An error from `load`
  // ends the link with it.
  struct LoadedUnit {
    const facts::Unit *unit = nullptr;
    facts::Unit *movable = nullptr;
  };
  using UnitLoader = llvm::function_ref<llvm::Expected<LoadedUnit>(std::size_t, facts::Unit &)>;
  static llvm::Expected<std::unique_ptr<Program>> link(const std::vector<UnitOutline> &outlines,
                                                       UnitLoader load);

  // Tables (indices are program-wide).
  std::vector<std::string> files;
  std::vector<std::string> digests; // per file, as the first unit that saw it parsed it ("" unknown)
  std::vector<std::string> unitOf;  // per file: the main file of the first unit that saw it
  std::vector<std::string> targetOf; // per file: the target (Unit::target) of that unit
  std::vector<facts::Function> functions;
  std::vector<facts::Place> places;
  std::vector<facts::Site> sites;
  std::vector<facts::Statement> statements;
  std::vector<facts::Loop> loops;
  std::vector<facts::Create> creates;
  std::vector<facts::OptionSet> options;
  std::vector<facts::LifecycleEvent> lifecycle;
  std::vector<facts::Receive> receives;
  std::vector<facts::Payload> payloads;
  std::vector<facts::Received> received;
  std::vector<facts::Send> sends;
  std::vector<facts::Write> writes;
  std::vector<facts::Limit> limits;
  std::vector<facts::Flow> flows;
  std::vector<facts::Call> calls;
  std::vector<facts::Callback> callbacks;
  std::vector<facts::Points> points;
  std::vector<facts::ContainerOf> containers;
  // Calls through pointers, as extracted; each function the link finds at one becomes a Call in
  // `calls` too (Call::target kept).
  std::vector<facts::Call> indirectCalls;
  std::vector<facts::ServiceSocket> services; // from service files (ServiceFiles.h)

  std::size_t unitCount = 0;
  // The directory the compiled sources share, and the targets (Unit::target) they are built into.
  std::string sourceDirectory;
  std::set<std::string> targets;

  // --- origins ---------------------------------------------------------------------------------
  // Indices into creates() of every origin that can reach `place`, ascending.
  const std::vector<Id> &originsOf(Id place) const;
  bool reaches(Id origin, Id place) const;
  // The origins of `accepted`'s listener (an accept()ed Create) that can be listening: not a
  // pipe or other non-socket, an accepted socket or a socketpair() end (connected), nor a
  // datagram socket. accept() on those fails (experiment accept_needs_listener), so an event
  // loop's table that hands its acceptor every fd it holds does not make them listeners.
  const std::vector<Id> &listenersOf(const facts::Create &accepted) const;
  // The copies of a socket made in a function that is cloned per call (a function returning a
  // socket it makes: each caller gets its own): what is done to each caller's socket is done to
  // one of them. Empty for any other create.
  llvm::ArrayRef<Id> clonesOf(Id create) const {
    auto it = ClonesOf.find(create);
    return it == ClonesOf.end() ? llvm::ArrayRef<Id>() : llvm::ArrayRef<Id>(it->second);
  }
  // The calls a place of a per-call clone was made for (clonePerCall()), outermost first: the
  // call in a function that is not cloned, then the calls inside each enclosing clone. Empty for
  // a place of no clone. A clone's facts are reached through these calls only, not through every
  // call of their function.
  llvm::ArrayRef<Id> cloneCalls(Id place) const;
  // The same listeners seen from each program of the database that runs the accept() (the
  // creates index `accepted`): one list per program, as far as the programs' listeners differ.
  // A database builds several programs (a daemon, its examples and tests) around one library,
  // whose objects the link merges: an event loop's table holds every program's fds. A program
  // runs only the code its main() reaches, so a listener made in code only another main()
  // reaches is never its accept()'s. One list, listenersOf(), when the programs do not tell the
  // listeners apart (see programsReaching()).
  std::vector<llvm::ArrayRef<Id>> listenerViewsOf(Id accepted) const;
  // The main() functions whose calls, registrations or address-taking reach `function`, in id
  // order; nullopt when code outside the database may run it (a function nothing in it calls: a
  // library's export, a constructor, a handler installed from a table in a global initialiser),
  // or when more than kMaxPrograms programs reach it.
  std::optional<std::vector<Id>> programsReaching(Id function) const;
  static constexpr std::size_t kMaxPrograms = 64;
  // Reaches along flows that keep the fd itself (no dup(), no run-time array index).
  bool reachesExactly(Id origin, Id place) const;
  // The flows into `place` whose source holds `origin` (how it arrived), in program order.
  std::vector<const facts::Flow *> arrivals(Id origin, Id place) const;
  // Whether the function `place` belongs to stores into it (not only what flows in from callers,
  // registrations or the field's other objects).
  bool storedInto(Id place) const;

  // --- functions -------------------------------------------------------------------------------
  Id functionByKey(llvm::StringRef key) const;
  const std::vector<Id> &callsOf(Id function) const;   // calls whose callee is `function`
  // callsOf(), and for an overrider also the calls of the virtual methods it overrides: the calls
  // that may run it (a base's args are the overrider's; the call's callee names the base).
  const std::vector<Id> &callsReaching(Id function) const;
  const std::vector<Id> &callsIn(Id function) const;   // calls made inside `function`
  // Where `function` (or a function it hands its control data to) looks at SCM_CREDENTIALS.
  Id credentialEvidence(Id function) const;
  // Whether `function` receives on its parameter `param` (directly or through callees).
  bool receivesOnParam(Id function, unsigned param) const;
  const Summary &summary(Id function) const;
  // Parameters of functions other than `except` whose fds reach `place` after being stored in a
  // field or a global: the fd argument of a queuing function (queue_fd(q, fd) storing into
  // q->fds[]) when `place` is what a flush function sends; or the elements of a container
  // parameter (`p#1[*]`, `*p#1[*]`) when the queuing function takes its fds as one.
  std::vector<Id> queueParams(Id place, Id except) const;
  // The object of `caller` that its call copies into the by-value parameter `param` of class type
  // (std::span<const int> fds, a struct): the call's argument is then no place, and the copy is
  // flows of its own into the parameter and its elements. kNone unless one object.
  Id copiedByCall(Id param, Id caller) const;
  // Functions nobody in the program calls (and whose address does not escape).
  bool hasCaller(Id function) const;

  // --- order -----------------------------------------------------------------------------------
  // Within one function, from its CFG skeleton; across functions `unknown`, unless `a` reaches
  // b's function through calls that pass the socket (see lift()).
  // mayPrecede: some path runs `a` and then `b`. mustFollow: `b` only ever runs after `a`.
  bool mayPrecede(Id a, Id b, bool unknown) const;
  bool mustFollow(Id a, Id b, bool unknown) const;
  // The call sites through which `origin` reaches `place` (a parameter a callee sets an option
  // on, say), and the call sites that reach those callers in turn: where the callee's fact
  // happens, seen from each caller up the chain. Empty when the origin gets there otherwise.
  std::vector<Id> callSitesReaching(Id origin, Id place) const;

  // --- loops -----------------------------------------------------------------------------------
  bool loopEncloses(Id outer, Id inner) const; // inner is outer or nested in it

  // --- objects ---------------------------------------------------------------------------------
  // The places whose address reaches `pointer`: objects (a struct variable, a heap allocation, a
  // member of another object), ascending; `unknown` is set when the pointer may come from outside.
  std::vector<Id> objectsAt(Id pointer, bool *unknown = nullptr) const;
  // The functions a pointer may hold (callbacks, table entries).
  std::vector<Id> functionsAt(Id pointer) const;
  // The objects `pointer` holds, told apart by where they come in: for a pointer read through a
  // parameter (itself, *p.data, a local set from either), each call or registration that reaches
  // the parameter with the objects it hands over, asked again of its own function's parameter
  // while it hands over several (up to kMaxEntryDepth calls up). The site of an entry is that
  // call, or, for an argument made in a per-call clone, the call the clone was made for: one
  // static callback every object registers from its constructor is told apart at each
  // construction. Empty when the objects cannot be told apart; unknown objects drop an entry, and
  // so does the bound (kMaxEntryVisits places asked; `asked` gets how many were).
  struct ObjectEntry {
    Id site = kNone;
    std::vector<Id> objects;
  };
  std::vector<ObjectEntry> objectsPerEntry(Id pointer, std::size_t *asked = nullptr) const;
  static constexpr int kMaxEntryDepth = 6;
  static constexpr std::size_t kMaxEntryVisits = 512;

  // The socket constants (Points::constant) that reach a place: the families a caller may pass.
  std::vector<int> constantsAt(Id place) const;
  // For a place reached through a pointer (*p, p->fds), the same place of each object the pointer
  // points to that the program has (their elements are what the pointer's elements are).
  std::vector<Id> throughPointer(Id place) const;
  // A pointer that may point to more objects than this points to any object of the records it is
  // read as (the per-type places), as in a per-type analysis: without a bound one pool
  // allocator's memory handed out as every record (nginx) makes every pointer point to thousands
  // of objects (past 10 GB). How many sets were so widened while linking is counted.
  static constexpr std::size_t kMaxObjectsPerPointer = 256;
  std::size_t widenedPointerSets = 0;
  std::size_t objectCount() const { return ObjectPlaces.size(); }
  // Programs of the database (main() definitions), and the accept()s judged per program
  // (listenerViewsOf() holds more than the one merged list, or a narrower one).
  std::size_t programCount() const { return Mains.size(); }
  std::size_t acceptsSplitByProgram() const { return ListenerViews.size(); }

  // Debug and test rendering, one line per fact in a stable order, with readable place names
  // ("param:use#0", "local:f:fd", "field:server::fd"); `afunix-check --dump-facts` prints it.
  std::string dump() const;
  std::string display(Id place) const;

  // The place with this key, or kNone.
  Id placeByKey(llvm::StringRef key) const;
  // The return place of a function (r:<key>), or kNone.
  Id returnPlace(Id function) const { return function < ReturnPlaces.size() ? ReturnPlaces[function] : kNone; }
  std::string describe(Id place) const { return place == kNone ? "?" : places[place].key; }

private:
  void reserveFor(const std::vector<UnitOutline> &outlines);
  void mergeUnit(const facts::Unit &unit, facts::Unit *movable);
  void noteSourceOf(const facts::Unit &unit);
  void finishLink();
  void deriveFlows();
  // The flows a call makes into its callee's parameters (and back out through them). With
  // `into`, each goes there instead (a per-call clone's copy of the call's own flows: the link
  // keeps one flow per pair of places, so a second call passing the same place has none of its own).
  void deriveCallFlows(const facts::Call &call,
                       llvm::function_ref<void(Id from, Id to, bool exact)> into = nullptr);
  Id thisPlace(Id function);
  void dropFallbacks();
  void addRoots();
  void propagate();
  void keepLibrariesApart(PlaceSets &sets);
  // Objects: which objects (and functions) reach each pointer, what a place reached through a
  // pointer is in each of them, and which functions a call through a pointer calls.
  void resolveObjects();
  // Objects handed out of the program (returned by a function nothing in it calls) may come back
  // into any exported function that takes a pointer to their record.
  void seedEscapedObjects();
  // Constructors (functions that make and return what they make) and functions that call the
  // function they are handed, copied per outermost call (docs/facts-format.md, "Objects").
  void clonePerCall();
  void findAccessors();
  void forwardSetters(const std::set<Id> &getters, const std::vector<bool> &onlyCalled);
  // The parameter `place` is of function `fn` (-1: this), if it is one.
  std::optional<int> paramOf(Id place, Id fn) const;
  // The parameter of `fn` a stored value comes from: the parameter itself, or the parameter a
  // path it is read through starts at (other.fd_: -1 is this).
  std::optional<int> storedParam(Id source, Id fn);
  // The function whose parameter a path through a pointer starts at (*p.fd: p's).
  Id functionOfPath(Id place);
  void liftOptions();
  Id statementAt(Id site) const;
  void instantiateAccessors();
  // A getter's load (source kNone) or a setter's store (source: the stored parameter) through the
  // parameter `param` (-1: this), made per call.
  struct Access {
    Id function;
    int param;
    Id deref, place, source;
  };
  std::vector<Access> Accessors;
  // (call site, index in Accessors): a setter's store that a call no longer makes on its own,
  // because the calling function is a setter of the same path and stores per call of its own.
  std::set<std::pair<Id, std::size_t>> ForwardedStores;
  // The calls a per-call clone makes (clonePerCall()), on the clone's places:
  // getters and setters are made per call, so a clone's calls need their own. `value` is the
  // clone's place for the call's value (kNone: none). They are not program calls: the call graph
  // and the rules see each site once.
  struct ClonedCall {
    facts::Call call;
    Id value;
  };
  std::vector<ClonedCall> ClonedCalls;
  std::map<Id, std::vector<Id>> ClonesOf; // a constructor's create -> its copies, one per call
  std::vector<std::vector<Id>> CloneCallChains;  // per clone: the calls it was made for (cloneCalls())
  std::unordered_map<Id, std::size_t> CloneOfRoot; // a clone's root place (no base) -> its chain
  std::map<Id, std::vector<Id>> ReceivedOver; // a copy's received fds -> the copy's recvmsg() channels
  std::map<std::pair<Id, Id>, Id> SetterVia; // a store a setter makes per call -> its parameter
  std::map<Id, std::pair<Id, Id>> ConstantFrom; // create -> the places its family and type come from
  void specialiseFamilies();
  void linkReceivedFds();
  std::size_t FlowCountBeforeClones = 0;
  bool resolveRound();
  Id derefRoot(Id place);
  Id storeSide(Id place);
  Id counterpart(Id place, Id deref, Id object);
  Id unknownCounterpart(Id place);
  // Whether `object` may be an object of `record` (the record of a field place): false only when
  // it is a field (or an element of one) whose type is known to be another record.
  bool mayBeOfRecord(Id object, Id field) const;
  // Field places that name the same storage as another record's (Alias facts: a common initial
  // sequence of two records a pointer is converted between), both ways.
  std::unordered_map<Id, llvm::SmallVector<Id, 2>> FieldAliases;
  // The field of `object`'s own record that `field` names through such a conversion; kNone if none.
  Id aliasedField(Id object, Id field) const;
  Id addressValue(Id object);
  Id derefOf(Id pointer); // what a pointer place points to: *p, or x for &x
  void inheritListenerFamilies();
  void index();
  // Functions the program calls: by calls, as callbacks, as overriders of a called method.
  std::vector<bool> calledFunctions() const;
  // Credential evidence shared through a control buffer (Function::controlBuffers).
  void shareControlEvidence();
  std::vector<std::string> controlBufferNames(Id buffer, int depth) const;
  bool blockReaches(Id function, Id from, Id to) const;
  Id internPlace(const std::string &key, facts::PlaceKind kind, const std::string &name,
                 Id function, int index, Id base);
  Id paramPlace(Id function, unsigned index);
  Id elementPlace(Id base, int index);
  void addDerived(Id from, Id to, facts::FlowKind kind, Id site, bool exact);
  // The flows into (or out of) each place, by flow index.
  Graph flowsByPlace(bool into) const;
  Id writeTarget(Id place);
  void specializeReturns();
  // The places the rules' facts are about: options, lifecycle events, receives, payloads, send
  // channels and accepting listeners (kNone included; callers skip it).
  template <class Visit> void forEachFactPlace(Visit &&visit) const {
    for (const facts::OptionSet &f : options)
      visit(f.place);
    for (const facts::LifecycleEvent &f : lifecycle)
      visit(f.place);
    for (const facts::Receive &f : receives)
      visit(f.place);
    for (const facts::Payload &f : payloads)
      visit(f.place);
    for (const facts::Received &f : received)
      visit(f.place);
    for (const facts::Send &f : sends)
      visit(f.channel);
    for (const facts::Create &c : creates)
      visit(c.listener);
  }

  llvm::StringMap<Id> FileIds;
  // listenersOf(), by the place accept() was given.
  void indexListeners();
  llvm::DenseMap<Id, std::vector<Id>> Listeners;
  // listenerViewsOf(), by the accept()'s create; only accepts whose programs' listeners differ.
  void indexListenerViews();
  llvm::DenseMap<Id, std::vector<std::vector<Id>>> ListenerViews;
  // programsReaching(): the functions each function is called, registered or taken from
  // (kNone: from outside any function), and the main() definitions.
  Graph Callers;
  std::vector<Id> Mains;
  mutable llvm::DenseMap<Id, std::optional<std::vector<Id>>> ProgramsReaching;
  // The function a place belongs to, through the places it is part of.
  Id ownerFunction(Id place) const;
  KeyIndex FunctionIds, PlaceIds;
  // What the indexes compare a key with.
  llvm::StringRef functionKeyOf(Id id) const { return functions[id].key; }
  llvm::StringRef placeKeyOf(Id id) const { return places[id].key; }
  // Every pass asks for functions' return places; only the merge makes them (later places are
  // parameters, members, elements, store sides and clones, whose keys start otherwise).
  void indexReturns();
  std::vector<Id> ReturnPlaces;
  // The places paramPlace()/thisPlace() (index -1) and elementPlace() made or found, by their
  // parts: each is asked for once per call argument, and its key is a string to build and hash.
  llvm::DenseMap<std::pair<Id, int>, Id> ParamPlaceIds, ElementPlaceIds;
  // Sites by file and offset, then text (a chain through NextSiteAt: one or two per offset).
  llvm::DenseMap<std::pair<Id, std::uint32_t>, Id> SitesAt;
  std::vector<Id> NextSiteAt;
  // The site of this expression and whether it is new (then the caller appends it to sites).
  std::pair<Id, bool> siteAt(Id file, std::uint32_t offset, const std::string &text);
  llvm::DenseMap<std::pair<Id, std::uint32_t>, Id> StatementIds;
  std::map<Id, Id> LoopIds; // by site (kNone too)
  // What was merged already: facts of a header seen by several units count once. (Hashed: a
  // 100,000-unit link asks them tens of millions of times; none is iterated where order matters,
  // and no key is kNone, a hash table's empty key.)
  llvm::DenseSet<Id> CreatedPlaces, PayloadKeys, ReceivedKeys, SendKeys, LimitKeys, Untracked, ServiceKeys;
  llvm::DenseMap<Id, Id> CreateOfPlace; // place -> its create, while units are merged
  std::set<Id> Written; // parameters some call passes a constant that is not an fd
  std::set<std::string> Duplicated;                        // functions defined in two files
  bool SawSource = false; // sourceDirectory holds the first compiled source's directory
  std::map<std::string, std::set<std::string>> Definitions; // their per-file keys
  std::map<std::string, std::string> DefinitionOf;          // a per-file key -> the plain one
  // Keyed by a site or place first, never kNone (so never a hash table's empty key, all kNone).
  llvm::DenseSet<std::pair<Id, Id>> OptionKeys, LifecycleKeys, ReceiveKeys, WriteKeys, IndirectKeys;
  // (site, callee) -> the first such call: a template's call one unit instantiates with other
  // arguments than another unit (a `const T &` bound to an int value, or to an object's address)
  // is kept as a second call of that site.
  llvm::DenseMap<std::pair<Id, Id>, Id> CallKeys;
  llvm::DenseSet<std::tuple<Id, Id, Id, int>> PointsKeys;
  std::set<std::tuple<Id, Id, std::string>> ContainerKeys;
  // A flow's identity for de-duplication: from, to, kind, exact (the site is not part of it).
  using FlowKey = std::tuple<Id, Id, int, int>;
  static FlowKey flowKey(Id from, Id to, facts::FlowKind kind, bool exact) {
    return {from, to, static_cast<int>(kind), static_cast<int>(exact)};
  }
  llvm::DenseSet<FlowKey> FlowKeys;
  llvm::DenseSet<std::tuple<Id, Id, int>> CallbackKeys;

  PlaceSets Origins, Exact;
  // Address values (resolveObjects): ids [0, ObjectPlaces.size()) are objects, then functions by
  // FunctionValues index; kUnknownObject is what a pointer from outside may point to.
  static constexpr Id kUnknownObject = 0x7fffffff;
  static constexpr Id kConstantBase = 0x70000000; // + Points::constant: a socket constant
  std::vector<Id> ObjectPlaces, FunctionValues;
  llvm::DenseMap<Id, Id> ObjectIds, FunctionValueIds; // place / function -> value id
  PlaceSets Addresses;                                 // per place
  std::vector<std::vector<Id>> AddressSeeds;           // per place: value ids made there
  std::vector<Id> DerefRoots;                          // per place (derefRoot), kNone: none
  std::vector<Id> Derefs;                              // every Deref place
  llvm::DenseMap<Id, std::vector<Id>> DerefChildren;   // Deref -> its Members and Elements
  Id ChildrenScanned = 0;                              // places sorted into DerefChildren
  llvm::DenseMap<std::pair<Id, Id>, std::size_t> ResolvedDerefs; // (Deref, value) -> children done
  llvm::DenseSet<std::pair<Id, Id>> BoundCalls;        // (indirect call, function)
  // The Member places of each base, in id order, and how many places are indexed so far: indexed
  // as asked, since the link keeps making places (a place's kind and base, once merged, stay).
  const std::vector<Id> &membersOf(Id base);
  std::map<Id, std::vector<Id>> MembersByBase;
  Id MembersIndexed = 0;
  llvm::DenseMap<Id, Id> StoreSides;                   // place -> its store side
  llvm::DenseSet<Id> StoreSideIds;
  llvm::DenseMap<Id, Id> StoreSideOf; // store side -> the place it stands for
  llvm::DenseSet<Id> RegisteredMembers;                // a registration writes their fd (pfd->fd)
  llvm::DenseMap<std::pair<Id, Id>, std::pair<Id, Id>> LoadVia; // (from, to) of a load -> (Deref, value)
  bool SeedUnknown = false;
  std::vector<Id> LostPointers; // read through, pointing nowhere after the first phases
  std::set<Id> ServedByClones;  // functions some of whose calls a per-call clone serves
  std::vector<std::vector<Id>> CallsOf, CallsIn;
  llvm::DenseMap<Id, std::vector<Id>> CallsReachingOverrider;
  Graph Incoming, Outgoing; // flows by place
  std::vector<Id> Evidence;
  mutable std::vector<Summary> Summaries;
  mutable std::vector<bool> SummaryDone;
  std::vector<bool> Called;
  mutable llvm::DenseMap<std::pair<Id, unsigned>, bool> ReceivesOnParamCache;
  mutable std::map<std::pair<Id, Id>, llvm::BitVector> Reach; // (function, block) -> blocks
};

} // namespace afunix::analysis
