#include "Program.h"

#include "Queries.h"

#include "afunix/KernelConstants.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/xxhash.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <set>
#include <sys/mman.h>

namespace afunix::analysis {

namespace {

const std::vector<Id> &none() {
  static const std::vector<Id> empty;
  return empty;
}

void unionInto(std::vector<Id> &into, const std::vector<Id> &from) {
  if (from.empty())
    return;
  std::vector<Id> merged;
  merged.reserve(into.size() + from.size());
  std::set_union(into.begin(), into.end(), from.begin(), from.end(), std::back_inserter(merged));
  into.swap(merged);
}

} // namespace

// ---------------------------------------------------------------------------------------------
// Key indexes

std::uint64_t KeyIndex::hashOf(llvm::StringRef key) {
  return llvm::xxh3_64bits(llvm::ArrayRef<std::uint8_t>(reinterpret_cast<const std::uint8_t *>(key.data()), key.size()));
}

void KeyIndex::resize(std::size_t slots) {
  std::size_t size = 16;
  while (size < slots)
    size *= 2;
  Slots.assign(size, Slot{});
  Mask = size - 1;
}

void KeyIndex::reserve(std::size_t keys) {
  if (Count == 0 && keys * 10 > Slots.size() * 7)
    resize(keys * 10 / 7 + 1);
}

// ---------------------------------------------------------------------------------------------
// Merging units

UnitOutline UnitOutline::of(const facts::Unit &unit) {
  UnitOutline outline;
  for (const facts::Function &f : unit.functions)
    if (f.defined && f.file != kNone && f.file < unit.files.size())
      outline.definitions.emplace_back(f.key, unit.files[f.file]);
  outline.places = unit.places.size();
  outline.functions = unit.functions.size();
  outline.sites = unit.sites.size();
  outline.calls = unit.calls.size();
  outline.flows = unit.flows.size() + unit.calls.size();
  for (const facts::Call &call : unit.calls)
    outline.flows += call.args.size();
  outline.skipped = unit.skipped;
  return outline;
}

std::unique_ptr<Program> Program::link(const std::vector<const facts::Unit *> &units,
                                       const std::vector<facts::Unit *> &movable) {
  std::vector<UnitOutline> outlines;
  std::vector<std::size_t> present; // the units' indices, past the null ones
  outlines.reserve(units.size());
  for (std::size_t i = 0; i < units.size(); ++i)
    if (units[i]) {
      outlines.push_back(UnitOutline::of(*units[i]));
      present.push_back(i);
    }
  llvm::Expected<std::unique_ptr<Program>> program =
      link(outlines, [&](std::size_t k, facts::Unit &) -> llvm::Expected<LoadedUnit> {
        std::size_t i = present[k];
        return LoadedUnit{units[i], i < movable.size() && movable[i] == units[i] ? movable[i] : nullptr};
      });
  return llvm::cantFail(std::move(program)); // units in memory load without error
}

// A large program's link walks hundreds of MiB of tables and strings: with 4 KiB pages, a TLB
// miss per lookup and a page fault per page (on a 20,000-unit link, a fifth of its CPU was page
// faults). Room for them is taken from the heap once, marked for transparent huge pages (where the
// kernel gives them on request) and given back, so that what the link makes next is made there.
// Only for a large program: a small one would pay for zeroing 2 MiB pages it hardly uses (with the
// whole heap in huge pages a one-file run took twice as long). With afunix-check's malloc settings
// (checker/cli/Main.cpp) the room stays in the heap; elsewhere it may be unmapped again, harmless.
static void adviseHugePagesFor(std::size_t units) {
  constexpr std::size_t kLargeProgram = 2000, kBytesPerUnit = 32 << 10; // 34 KiB peak per unit measured
  constexpr std::size_t kHugePage = 2 << 20, kChunk = 256 << 20;
  if (units < kLargeProgram)
    return;
  std::vector<void *> chunks;
  for (std::size_t left = units * kBytesPerUnit; left > 0;) {
    std::size_t size = std::min(left, kChunk);
    left -= size;
    void *chunk = std::malloc(size);
    if (!chunk)
      break;
    chunks.push_back(chunk);
    std::uintptr_t begin = (reinterpret_cast<std::uintptr_t>(chunk) + kHugePage - 1) & ~(kHugePage - 1);
    std::uintptr_t end = (reinterpret_cast<std::uintptr_t>(chunk) + size) & ~(kHugePage - 1);
    if (end > begin)
      (void)madvise(reinterpret_cast<void *>(begin), end - begin, MADV_HUGEPAGE); // advice: may be refused
  }
  for (void *chunk : chunks)
    std::free(chunk);
}

llvm::Expected<std::unique_ptr<Program>> Program::link(const std::vector<UnitOutline> &outlines,
                                                       UnitLoader load) {
  adviseHugePagesFor(outlines.size());
  auto program = std::make_unique<Program>();
  // A function defined in two source files (each program of a database its own handle_client(),
  // two libraries that both define udev_monitor_enable_receiving()) is two functions: each
  // definition keeps its facts, and a call from elsewhere may reach either.
  llvm::StringMap<llvm::StringRef> definedIn; // function -> the first file defining it
  for (const UnitOutline &outline : outlines)
    for (const auto &[key, file] : outline.definitions) {
      auto [first, fresh] = definedIn.try_emplace(key, file);
      if (!fresh && first->second != file)
        program->Duplicated.insert(key.str());
    }
  definedIn.clear();
  program->reserveFor(outlines);
  for (std::size_t i = 0; i < outlines.size(); ++i) {
    facts::Unit scratch;
    llvm::Expected<LoadedUnit> loaded = load(i, scratch);
    if (!loaded)
      return loaded.takeError();
    program->mergeUnit(*loaded->unit, loaded->movable);
    program->noteSourceOf(*loaded->unit);
    if (loaded->movable && loaded->movable != &scratch) {
      // Its facts freed now, so the tables the link grows next reuse that memory instead of fresh
      // pages. What its owner may still read of it stays.
      facts::Unit kept;
      kept.mainFile = std::move(loaded->movable->mainFile);
      kept.target = std::move(loaded->movable->target);
      kept.services = std::move(loaded->movable->services);
      kept.skipped = loaded->movable->skipped;
      *loaded->movable = std::move(kept);
    }
  }
  program->finishLink();
  return program;
}

void Program::indexReturns() {
  ReturnPlaces.assign(functions.size(), kNone);
  for (Id p = 0; p < places.size(); ++p)
    if (llvm::StringRef key(places[p].key); key.starts_with("r:"))
      if (Id fn = functionByKey(key.drop_front(2)); fn != kNone)
        ReturnPlaces[fn] = p;
}

Id Program::functionByKey(llvm::StringRef key) const {
  return FunctionIds.find(key, [this](Id id) { return functionKeyOf(id); });
}

Id Program::placeByKey(llvm::StringRef key) const {
  return PlaceIds.find(key, [this](Id id) { return placeKeyOf(id); });
}

std::pair<Id, bool> Program::siteAt(Id file, std::uint32_t offset, const std::string &text) {
  auto [head, fresh] = SitesAt.try_emplace({file, offset}, kNone);
  for (Id id = head->second; id != kNone; id = NextSiteAt[id])
    if (sites[id].text == text)
      return {id, false};
  // The caller appends the site as sites[id].
  Id id = static_cast<Id>(sites.size());
  NextSiteAt.resize(id + 1, kNone);
  NextSiteAt[id] = head->second;
  head->second = id;
  return {id, true};
}

void Program::noteSourceOf(const facts::Unit &unit) {
  // What the compiled sources say about the project: where they live, what they are built into.
  if (!unit.services.empty() || unit.mainFile.empty())
    return;
  if (!unit.target.empty())
    targets.insert(unit.target);
  // Relative paths too (--relative-paths): "main.c" lies in "".
  llvm::StringRef dir = llvm::sys::path::parent_path(unit.mainFile);
  if (!SawSource) {
    sourceDirectory = dir.str();
    SawSource = true;
    return;
  }
  while (!sourceDirectory.empty() && !(dir == sourceDirectory || dir.starts_with(sourceDirectory + "/")))
    sourceDirectory = llvm::sys::path::parent_path(sourceDirectory).str();
}

void Program::finishLink() {
  indexReturns();
  deriveFlows();
  dropFallbacks();
  specializeReturns();
  index();
  clonePerCall();
  resolveObjects();
  index();
  shareControlEvidence();
  addRoots();
  propagate();
  indexListeners();
  linkReceivedFds();
  indexListenerViews();
  inheritListenerFamilies();
}

void Program::reserveFor(const std::vector<UnitOutline> &outlines) {
  // The units' own counts bound the program's (facts that several units share count once): room
  // made once, instead of tables that grow by doubling, each step copying and touching new memory
  // (a 100,000-unit link has three million places).
  std::size_t placeCount = 0, functionCount = 0, siteCount = 0, flowCount = 0, callCount = 0;
  for (const UnitOutline &outline : outlines) {
    placeCount += outline.places;
    functionCount += outline.functions;
    siteCount += outline.sites;
    flowCount += outline.flows;
    callCount += outline.calls;
  }
  places.reserve(placeCount);
  PlaceIds.reserve(placeCount);
  functions.reserve(functionCount);
  FunctionIds.reserve(functionCount);
  sites.reserve(siteCount);
  NextSiteAt.reserve(siteCount);
  SitesAt.reserve(siteCount);
  // The rounds derive more flows (resolved loads and stores, calls bound through pointers) before
  // findAccessors() drops some: 1.36 times the units' flows at the peak on the 30,000-file
  // synthetic database. Twice as many are reserved, as a bound (pages are only touched as they
  // are used).
  flows.reserve(2 * flowCount);
  FlowKeys.reserve(flowCount);
  calls.reserve(callCount);
  CallKeys.reserve(callCount);
}

void Program::mergeUnit(const facts::Unit &u, facts::Unit *movable) {
  // Strings and vectors the program keeps are moved out of a unit nobody reads again (`movable`
  // is then `u` itself); read every field a fact needs before moving the fact.
  auto mapped = [](const std::vector<Id> &map, Id id) { return id == kNone ? kNone : map[id]; };

  std::vector<Id> fileMap(u.files.size());
  for (std::size_t i = 0; i < u.files.size(); ++i) {
    auto [it, fresh] = FileIds.try_emplace(u.files[i], files.size());
    if (fresh) {
      files.push_back(u.files[i]);
      digests.push_back(i < u.digests.size() ? u.digests[i] : "");
      unitOf.push_back(u.mainFile);
      targetOf.push_back(u.target);
    }
    fileMap[i] = it->second;
  }

  // This unit's own definitions of duplicated functions get keys of their own.
  std::map<std::string, std::string> renamed;
  for (const facts::Function &f : u.functions)
    if (f.defined && Duplicated.count(f.key) && f.file < u.files.size()) {
      renamed[f.key] = f.key + "@" + u.files[f.file];
      Definitions[f.key].insert(renamed[f.key]);
      DefinitionOf[renamed[f.key]] = f.key;
    }
  auto functionKey = [&](const std::string &key) -> const std::string & {
    if (renamed.empty())
      return key;
    auto it = renamed.find(key);
    return it == renamed.end() ? key : it->second;
  };
  auto placeKey = [&](const std::string &key) {
    // What a place is reached through counts too: *p:f#0.sock is the object f's own parameter
    // points to (an access path keeps its root's key after its derefs).
    std::size_t derefs = key.find_first_not_of('*');
    if (derefs == std::string::npos)
      return key;
    std::string root = key.substr(derefs);
    for (const auto &[plain, own] : renamed)
      for (const char *prefix : {"p:", "r:", "l:"})
        if (llvm::StringRef(root).starts_with(std::string(prefix) + plain)) {
          char next = root.size() > plain.size() + 2 ? root[plain.size() + 2] : '\0';
          if (next == '#' || next == ':' || next == '\0' || next == '.' || next == '[')
            return key.substr(0, derefs) + prefix + own + root.substr(plain.size() + 2);
        }
    return key;
  };

  // Functions: the unit that defines one gives its file and CFG; flags from every unit.
  std::vector<Id> functionMap(u.functions.size());
  for (std::size_t i = 0; i < u.functions.size(); ++i) {
    const facts::Function &f = u.functions[i];
    auto [id, fresh] = FunctionIds.insert(functionKey(f.key), functions.size(),
                                          [this](Id known) { return functionKeyOf(known); });
    functionMap[i] = id;
    if (fresh) {
      facts::Function copy;
      copy.key = functionKey(f.key);
      copy.name = movable ? std::string(std::move(movable->functions[i].name)) : f.name;
      copy.system = f.system;
      functions.push_back(std::move(copy));
    }
    facts::Function &g = functions[id];
    g.params = std::max(g.params, f.params);
    for (Id p : f.paramIsInt)
      if (!llvm::is_contained(g.paramIsInt, p))
        g.paramIsInt.push_back(p);
    g.buildsScmRights |= f.buildsScmRights;
    g.buildsScmCredentials |= f.buildsScmCredentials;
    g.addressEscapes |= f.addressEscapes;
    g.method |= f.method;
    if (g.credentialOutcome == facts::CredentialOutcome::Unknown)
      g.credentialOutcome = f.credentialOutcome;
    if (f.defined && !g.defined) {
      g.defined = true;
      g.file = mapped(fileMap, f.file);
    }
    if (!f.successors.empty() && g.successors.empty()) {
      if (movable) {
        g.successors = std::move(movable->functions[i].successors);
        g.idom = std::move(movable->functions[i].idom);
      } else {
        g.successors = f.successors;
        g.idom = f.idom;
      }
      g.entry = f.entry;
    }
  }
  for (std::size_t i = 0; i < u.functions.size(); ++i) {
    facts::Function &g = functions[functionMap[i]];
    for (Id callee : u.functions[i].controlCallees)
      if (!llvm::is_contained(g.controlCallees, functionMap[callee]))
        g.controlCallees.push_back(functionMap[callee]);
    for (Id base : u.functions[i].overrides)
      if (!llvm::is_contained(g.overrides, functionMap[base]))
        g.overrides.push_back(functionMap[base]);
  }

  std::vector<Id> placeMap(u.places.size());
  for (std::size_t i = 0; i < u.places.size(); ++i) {
    const facts::Place &p = u.places[i];
    // An inherited fd (c:3, a socket-activation fd) is the process's: one place per program built,
    // not one for the database, whose other programs' fd 3 are other sockets.
    bool inherited = !u.target.empty() && llvm::StringRef(p.key).starts_with("c:");
    std::string owned; // the key when it is not the unit's own (most are: no copy)
    if (!renamed.empty())
      owned = placeKey(p.key);
    if (inherited)
      owned = (owned.empty() ? p.key : owned) + "@" + u.target;
    const std::string &key = owned.empty() ? p.key : owned;
    auto [id, fresh] = PlaceIds.insert(key, places.size(), [this](Id known) { return placeKeyOf(known); });
    placeMap[i] = id;
    if (fresh) {
      facts::Place copy = movable ? facts::Place(std::move(movable->places[i])) : p; // (p is moved from too)
      if (!owned.empty())
        copy.key = std::move(owned); // else copy.key is the unit's own key already
      copy.function = mapped(functionMap, copy.function);
      copy.base = kNone; // below, once every base is mapped
      copy.field = kNone;
      places.push_back(std::move(copy));
    }
  }
  for (std::size_t i = 0; i < u.places.size(); ++i) {
    if (u.places[i].base != kNone && places[placeMap[i]].base == kNone)
      places[placeMap[i]].base = placeMap[u.places[i].base];
    if (u.places[i].field != kNone && places[placeMap[i]].field == kNone)
      places[placeMap[i]].field = placeMap[u.places[i].field];
  }

  // Sites are one per expression: a header's function seen by several units has one set.
  std::vector<Id> siteMap(u.sites.size());
  for (std::size_t i = 0; i < u.sites.size(); ++i) {
    const facts::Site &s = u.sites[i];
    Id file = mapped(fileMap, s.file);
    auto [id, fresh] = siteAt(file, s.offset, s.text);
    siteMap[i] = id;
    if (fresh) {
      facts::Site copy = movable ? facts::Site(std::move(movable->sites[i])) : s;
      copy.file = file;
      copy.function = mapped(functionMap, s.function);
      copy.loop = kNone; // below
      // A position is only meaningful in the CFG it was taken from.
      if (copy.block != kNone &&
          (copy.function == kNone || copy.block >= functions[copy.function].successors.size()))
        copy.block = kNone;
      sites.push_back(std::move(copy));
    }
  }
  std::vector<Id> loopMap(u.loops.size());
  for (std::size_t i = 0; i < u.loops.size(); ++i) {
    const facts::Loop &l = u.loops[i];
    Id site = mapped(siteMap, l.site);
    auto [it, fresh] = LoopIds.try_emplace(site, loops.size());
    loopMap[i] = it->second;
    if (fresh) {
      facts::Loop copy = l;
      copy.function = mapped(functionMap, l.function);
      copy.site = site;
      copy.parent = kNone;
      loops.push_back(copy);
    }
  }
  for (std::size_t i = 0; i < u.loops.size(); ++i)
    // Two loops of one macro expansion share a site and so one loop here: never its own parent.
    if (u.loops[i].parent != kNone && loops[loopMap[i]].parent == kNone &&
        loopMap[u.loops[i].parent] != loopMap[i])
      loops[loopMap[i]].parent = loopMap[u.loops[i].parent];
  for (std::size_t i = 0; i < u.sites.size(); ++i)
    if (u.sites[i].loop != kNone && sites[siteMap[i]].loop == kNone)
      sites[siteMap[i]].loop = loopMap[u.sites[i].loop];
  for (std::size_t i = 0; i < u.functions.size(); ++i)
    if (u.functions[i].credentialEvidence != kNone &&
        functions[functionMap[i]].credentialEvidence == kNone)
      functions[functionMap[i]].credentialEvidence = siteMap[u.functions[i].credentialEvidence];
  for (std::size_t i = 0; i < u.functions.size(); ++i)
    for (Id buffer : u.functions[i].controlBuffers)
      if (std::vector<Id> &buffers = functions[functionMap[i]].controlBuffers;
          !llvm::is_contained(buffers, placeMap[buffer]))
        buffers.push_back(placeMap[buffer]);

  std::vector<Id> statementMap(u.statements.size());
  for (std::size_t i = 0; i < u.statements.size(); ++i) {
    const facts::Statement &s = u.statements[i];
    Id file = mapped(fileMap, s.file);
    auto [it, fresh] = StatementIds.try_emplace({file, s.begin}, statements.size());
    statementMap[i] = it->second;
    if (fresh) {
      facts::Statement copy = s;
      copy.file = file;
      // Compound statement ids are per unit: make them per program.
      copy.block = static_cast<std::uint32_t>(unitCount * 1000003u + s.block);
      statements.push_back(std::move(copy));
    }
  }

  // Facts, each once.
  auto seen = [](auto &set, auto key) { return !set.insert(key).second; };
  for (const facts::Create &c : u.creates) {
    Id place = placeMap[c.place];
    facts::Create copy = c;
    copy.place = place;
    copy.site = mapped(siteMap, c.site);
    copy.peer = mapped(placeMap, c.peer);
    copy.listener = mapped(placeMap, c.listener);
    copy.familyFrom = mapped(placeMap, c.familyFrom);
    copy.statement = mapped(statementMap, c.statement);
    if (auto [it, fresh] = CreateOfPlace.try_emplace(place, creates.size()); !fresh) {
      // A place several units make (an inherited fd number, c:3, is one place for the program):
      // the site first in file order stands, whatever order the units are merged in (a partial
      // run merges the checked files first).
      auto where = [&](const facts::Create &made) {
        const facts::Site *s = made.site == kNone ? nullptr : &sites[made.site];
        return std::make_tuple(s == nullptr, s && s->file != kNone ? llvm::StringRef(files[s->file]) : "",
                               s ? s->offset : 0u);
      };
      if (where(copy) < where(creates[it->second]))
        creates[it->second] = std::move(copy);
      continue;
    }
    CreatedPlaces.insert(place);
    creates.push_back(std::move(copy));
  }
  for (const facts::OptionSet &o : u.options) {
    facts::OptionSet copy = o;
    copy.place = placeMap[o.place];
    copy.site = siteMap[o.site];
    copy.statement = mapped(statementMap, o.statement);
    if (!seen(OptionKeys, std::make_pair(copy.site, copy.place)))
      options.push_back(copy);
  }
  for (const facts::LifecycleEvent &l : u.lifecycle) {
    facts::LifecycleEvent copy = l;
    copy.place = placeMap[l.place];
    copy.site = siteMap[l.site];
    copy.statement = mapped(statementMap, l.statement);
    if (!seen(LifecycleKeys, std::make_pair(copy.site, copy.place)))
      lifecycle.push_back(copy);
  }
  for (const facts::Receive &r : u.receives) {
    facts::Receive copy = r;
    copy.place = placeMap[r.place];
    copy.site = siteMap[r.site];
    if (!seen(ReceiveKeys, std::make_pair(copy.site, copy.place)))
      receives.push_back(copy);
  }
  for (const facts::Payload &p : u.payloads) {
    facts::Payload copy = p;
    copy.place = mapped(placeMap, p.place);
    copy.site = siteMap[p.site];
    if (!seen(PayloadKeys, copy.site))
      payloads.push_back(copy);
  }
  for (const facts::Received &r : u.received) {
    facts::Received copy = r;
    copy.place = mapped(placeMap, r.place);
    copy.site = siteMap[r.site];
    if (!seen(ReceivedKeys, copy.site))
      received.push_back(copy);
  }
  for (const facts::Send &s : u.sends) {
    facts::Send copy = s;
    copy.channel = mapped(placeMap, s.channel);
    copy.site = siteMap[s.site];
    if (!seen(SendKeys, copy.site))
      sends.push_back(copy);
  }
  for (const facts::Write &w : u.writes) {
    facts::Write copy = w;
    copy.place = placeMap[w.place];
    copy.site = siteMap[w.site];
    if (!seen(WriteKeys, std::make_pair(copy.site, copy.place)))
      writes.push_back(copy);
  }
  for (const facts::Limit &l : u.limits) {
    facts::Limit copy = l;
    copy.site = siteMap[l.site];
    if (!seen(LimitKeys, copy.site))
      limits.push_back(copy);
  }
  for (const facts::Flow &f : u.flows) {
    facts::Flow copy = f;
    copy.from = placeMap[f.from];
    copy.to = placeMap[f.to];
    copy.site = mapped(siteMap, f.site);
    if (seen(FlowKeys, flowKey(copy.from, copy.to, copy.kind, copy.exact)))
      continue;
    // (No value moves along an alias: it says which fields are one, for counterpart().)
    if (copy.kind == facts::FlowKind::Alias) {
      FieldAliases[copy.from].push_back(copy.to);
      FieldAliases[copy.to].push_back(copy.from);
      continue;
    }
    flows.push_back(copy);
  }
  // The unit's calls, direct (once per site and callee) or through a pointer (once per site and
  // pointer), in the program's numbering.
  auto sameArguments = [&](const facts::Call &known, const facts::Call &c) {
    if (known.args.size() != c.args.size() || known.receiver.place != mapped(placeMap, c.receiver.place))
      return false;
    for (std::size_t i = 0; i < c.args.size(); ++i)
      if (known.args[i].place != mapped(placeMap, c.args[i].place))
        return false;
    return true;
  };
  auto mergeCalls = [&](const std::vector<facts::Call> &unitCalls, std::vector<facts::Call> *movableCalls,
                        bool direct, std::vector<facts::Call> &into) {
    for (std::size_t i = 0; i < unitCalls.size(); ++i) {
      const facts::Call &c = unitCalls[i];
      Id site = siteMap[c.site], to = direct ? functionMap[c.callee] : placeMap[c.target];
      if (direct) {
        auto [known, fresh] = CallKeys.try_emplace(std::make_pair(site, to), static_cast<Id>(into.size()));
        if (!fresh && sameArguments(into[known->second], c))
          continue;
      } else if (seen(IndirectKeys, std::make_pair(site, to))) {
        continue;
      }
      facts::Call copy = movableCalls ? facts::Call(std::move((*movableCalls)[i])) : c; // (c is moved from too)
      copy.site = site;
      copy.caller = mapped(functionMap, copy.caller);
      for (facts::Argument &a : copy.args)
        a.place = mapped(placeMap, a.place);
      copy.receiver.place = mapped(placeMap, copy.receiver.place);
      (direct ? copy.callee : copy.target) = to;
      into.push_back(std::move(copy));
    }
  };
  mergeCalls(u.calls, movable ? &movable->calls : nullptr, /*direct=*/true, calls);
  mergeCalls(u.indirectCalls, movable ? &movable->indirectCalls : nullptr, /*direct=*/false, indirectCalls);
  for (const facts::Points &pt : u.points) {
    // The constant too (bind_listen(AF_INET6, ...)): dropped here, it reached the link as a place
    // given nothing.
    facts::Points copy{placeMap[pt.place], mapped(placeMap, pt.target), mapped(functionMap, pt.function),
                       pt.constant};
    if (!seen(PointsKeys, std::make_tuple(copy.place, copy.target, copy.function, copy.constant)))
      points.push_back(copy);
  }
  for (const facts::ContainerOf &c : u.containers)
    if (!seen(ContainerKeys, std::make_tuple(placeMap[c.place], placeMap[c.pointer], c.member)))
      containers.push_back({placeMap[c.place], placeMap[c.pointer], c.member});
  for (const facts::Callback &c : u.callbacks) {
    facts::Callback copy = c;
    copy.site = siteMap[c.site];
    copy.socket = placeMap[c.socket];
    copy.callee = functionMap[c.callee];
    if (!seen(CallbackKeys, std::make_tuple(copy.site, copy.callee, copy.param)))
      callbacks.push_back(std::move(copy));
  }
  for (Id place : u.untracked)
    Untracked.insert(placeMap[place]);
  for (const facts::ServiceSocket &v : u.services) {
    facts::ServiceSocket copy = v;
    copy.site = siteMap[v.site];
    copy.passcredSite = mapped(siteMap, v.passcredSite);
    copy.enableAt = siteMap[v.enableAt];
    copy.removeAt = mapped(siteMap, v.removeAt);
    if (!seen(ServiceKeys, copy.site))
      services.push_back(std::move(copy));
  }
  ++unitCount;
}

// ---------------------------------------------------------------------------------------------
// Flows the units leave to the link

Id Program::internPlace(const std::string &key, facts::PlaceKind kind, const std::string &name,
                        Id function, int index, Id base) {
  auto [id, fresh] = PlaceIds.insert(key, places.size(), [this](Id known) { return placeKeyOf(known); });
  if (fresh)
    places.push_back({key, kind, name, function, index, base});
  return id;
}

Id Program::paramPlace(Id function, unsigned index) {
  auto [known, fresh] = ParamPlaceIds.try_emplace({function, static_cast<int>(index)}, kNone);
  if (fresh)
    known->second = internPlace("p:" + functions[function].key + "#" + std::to_string(index), facts::PlaceKind::Param,
                        "parameter " + std::to_string(index + 1), function, static_cast<int>(index), kNone);
  return known->second;
}

Id Program::writeTarget(Id place) {
  // As the extractor's: a write into an element of a pointer parameter is the callee's out place,
  // which flows on to its own callers and into the element its body reads.
  const facts::Place &p = places[place];
  if (p.kind != facts::PlaceKind::Element || p.base == kNone || places[p.base].kind != facts::PlaceKind::Param)
    return place;
  std::string key = facts::outKey(p.key);
  bool fresh = placeByKey(key) == kNone;
  facts::Place copy = p;
  Id out = internPlace(key, facts::PlaceKind::Element, copy.name, copy.function, copy.index, copy.base);
  if (fresh)
    addDerived(out, place, facts::FlowKind::Assign, kNone, true);
  return out;
}

Id Program::elementPlace(Id base, int index) {
  auto [known, fresh] = ElementPlaceIds.try_emplace({base, index}, kNone);
  if (fresh) {
    std::string suffix = index < 0 ? "[*]" : "[" + std::to_string(index) + "]";
    const facts::Place &b = places[base]; // (the arguments are made before internPlace grows places)
    known->second = internPlace(b.key + suffix, facts::PlaceKind::Element, b.name + suffix, b.function, index, base);
  }
  return known->second;
}

Graph Program::flowsByPlace(bool into) const {
  return makeGraph(places.size(), [&](auto add) {
    for (Id f = 0; f < flows.size(); ++f)
      add(into ? flows[f].to : flows[f].from, f);
  });
}

void Program::addDerived(Id from, Id to, facts::FlowKind kind, Id site, bool exact) {
  if (from == kNone || to == kNone || from == to)
    return;
  if (FlowKeys.insert(flowKey(from, to, kind, exact)).second)
    flows.push_back({from, to, kind, site, exact});
}

void Program::deriveCallFlows(const facts::Call &c, llvm::function_ref<void(Id, Id, bool)> into) {
  auto flow = [&](Id from, Id to, bool exact) {
    if (into)
      into(from, to, exact);
    else
      addDerived(from, to, facts::FlowKind::Argument, c.site, exact);
  };
  for (unsigned i = 0; i < c.args.size(); ++i) {
    const facts::Argument &a = c.args[i];
    if (a.mode == facts::ArgMode::None ||
        (a.place == kNone && a.mode != facts::ArgMode::Value && a.mode != facts::ArgMode::Constant))
      continue;
    Id param = paramPlace(c.callee, i);
    if (a.mode == facts::ArgMode::Constant) {
      if (!into)
        Written.insert(param); // written, with no socket
      continue;
    }
    switch (a.mode) {
    case facts::ArgMode::Value:
      if (a.place == kNone) {
        if (!into)
          Untracked.insert(param); // passed something we cannot follow
      }
      else
        flow(a.place, param, a.exact);
      break;
    case facts::ArgMode::Address: {
      // f(&fd) into int *p: the caller's fd is the callee's *p, and what the callee writes
      // into *p (its out place, if it writes one) comes back into the caller's fd.
      Id deref = elementPlace(param, 0);
      flow(a.place, deref, true);
      if (Id out = placeByKey(facts::outKey(places[deref].key)); out != kNone)
        flow(out, writeTarget(a.place), true);
      break;
    }
    case facts::ArgMode::Array:
      // An array passed on: its first two elements, the socketpair() ends, in and back out; a
      // pointer to fds passed on (a local, a field, a call's value) holds its fds itself.
      flow(a.place, param, false);
      for (int k = 0; k < 2; ++k) {
        Id mine = elementPlace(a.place, k), theirs = elementPlace(param, k);
        flow(mine, theirs, true);
        if (Id out = placeByKey(facts::outKey(places[theirs].key)); out != kNone)
          flow(out, writeTarget(mine), true);
      }
      break;
    case facts::ArgMode::None:
    case facts::ArgMode::Constant:
      break;
    }
  }
  // `this` of a member function: the address of the object it is called on.
  if (c.receiver.mode == facts::ArgMode::Value && functions[c.callee].method) {
    Id self = thisPlace(c.callee);
    if (c.receiver.place == kNone) {
      if (!into)
        Untracked.insert(self);
    }
    else
      flow(c.receiver.place, self, true);
  }
}

Id Program::thisPlace(Id function) {
  auto [known, fresh] = ParamPlaceIds.try_emplace({function, -1}, kNone);
  if (fresh)
    known->second = internPlace("p:" + functions[function].key + "#this", facts::PlaceKind::Param, "this", function, -1,
                        kNone);
  return known->second;
}

void Program::deriveFlows() {
  // Arguments into parameters, wherever the callee is defined.
  for (const facts::Call &c : calls)
    deriveCallFlows(c);
  for (const facts::Callback &c : callbacks)
    addDerived(c.socket, paramPlace(c.callee, static_cast<unsigned>(c.param)),
               facts::FlowKind::Callback, c.site, true);
  // A call of a function defined twice reaches either definition. The parameters (p:<key>#...)
  // and returns (r:<key>) of each such function, found in one pass over the places (a key may
  // hold '#' itself: each one is tried, and a place may be of two keys), then linked in the order
  // of the definitions. (Not a pass over every place for each definition: eudev has hundreds.)
  std::map<llvm::StringRef, std::vector<Id>> placesOfDefined;
  if (!Definitions.empty())
    for (Id p = 0, count = places.size(); p < count; ++p) {
      llvm::StringRef key(places[p].key);
      if (key.starts_with("r:")) {
        if (auto it = Definitions.find(key.drop_front(2).str()); it != Definitions.end())
          placesOfDefined[it->first].push_back(p);
        continue;
      }
      if (!key.starts_with("p:"))
        continue;
      for (std::size_t hash = key.find('#', 2); hash != llvm::StringRef::npos; hash = key.find('#', hash + 1))
        if (auto it = Definitions.find(key.slice(2, hash).str()); it != Definitions.end())
          placesOfDefined[it->first].push_back(p);
    }
  for (const auto &[plain, owns] : Definitions)
    for (const std::string &own : owns)
      for (Id p : placesOfDefined[plain]) {
        llvm::StringRef key(places[p].key);
        if (key.starts_with("r:")) {
          addDerived(placeByKey("r:" + own), p, facts::FlowKind::Return, kNone, true);
          continue;
        }
        Id target = placeByKey("p:" + own + key.substr(plain.size() + 2).str());
        addDerived(p, target, facts::FlowKind::Argument, kNone, true);
      }
  // A call of a virtual method reaches every overrider.
  for (Id f = 0; f < functions.size(); ++f)
    for (Id base : functions[f].overrides) {
      for (unsigned i = 0; i < functions[f].params; ++i) {
        Id from = placeByKey("p:" + functions[base].key + "#" + std::to_string(i));
        Id to = placeByKey("p:" + functions[f].key + "#" + std::to_string(i));
        if (from != kNone && to != kNone)
          addDerived(from, to, facts::FlowKind::Argument, kNone, true);
      }
      Id from = returnPlace(f);
      Id to = returnPlace(base);
      if (from != kNone && to != kNone)
        addDerived(from, to, facts::FlowKind::Return, kNone, true);
      Id baseThis = placeByKey("p:" + functions[base].key + "#this");
      if (baseThis != kNone && functions[f].method)
        addDerived(baseThis, thisPlace(f), facts::FlowKind::Argument, kNone, true);
    }
  // fds[i] reads every element; which one is not known, so the fd is no longer "the same".
  std::size_t count = places.size();
  for (Id p = 0; p < count; ++p)
    if (places[p].kind == facts::PlaceKind::Element && places[p].index >= 0 &&
        places[p].base != kNone) {
      Id any = placeByKey(places[places[p].base].key + "[*]");
      if (any != kNone)
        addDerived(p, any, facts::FlowKind::Element, kNone, false);
    }
}

void Program::dropFallbacks() {
  // A callback's struct parameter that a registration reaches holds what it was registered with,
  // not everything ever stored in that field.
  std::set<Id> registered;
  for (const facts::Flow &f : flows)
    if (f.kind == facts::FlowKind::Callback)
      registered.insert(f.to);
  std::vector<facts::Flow> kept;
  kept.reserve(flows.size());
  for (const facts::Flow &f : flows)
    if (f.kind != facts::FlowKind::Fallback || !registered.count(f.to))
      kept.push_back(f);
  flows = std::move(kept);
}

void Program::specializeReturns() {
  // What one call of a program function gets back, when the function's return can only be:
  // - one of its parameters (through its locals, dup(), fcntl(F_DUPFD)), or what a pointer
  //   parameter points to (int t = *p; *p = -1; return t;): each call's value gets that call's
  //   arguments, not the function's return place, which holds every caller's sockets;
  // - a socket it makes and nothing else touches (pa_socket_cloexec(): socket() with
  //   SOCK_CLOEXEC, a fallback without): each call's value is a socket of its own, made at the
  //   call. One socket for all of them would give a server's listener the options, binds and
  //   accepts of every client made with the same helper.
  const Graph incoming = flowsByPlace(/*into=*/true), outgoing = flowsByPlace(/*into=*/false);
  std::map<Id, Id> createdBy; // place -> its (first) create
  for (Id c = 0; c < creates.size(); ++c)
    createdBy.emplace(creates[c].place, c);
  // Places a fact reads: a socket that reaches one inside a maker (an option set, a bind, a
  // callee that listens) is configured there, and stays the one socket it is.
  std::vector<char> used(places.size(), 0);
  auto use = [&](Id place) {
    if (place != kNone && place < used.size())
      used[place] = 1;
  };
  forEachFactPlace(use);
  for (const facts::Write &w : writes)
    use(w.place);
  for (const facts::Callback &c : callbacks)
    use(c.socket);
  for (const facts::Create &c : creates)
    use(c.peer);
  // A defined function whose return nothing with an fd reaches: its own returns are constants
  // and negated values, or the results of functions like it (systemd's negative_errno(), the
  // log_*_errno() helpers that return -ERRNO_VALUE(error)). Its call contributes nothing, so a
  // function returning either its parameter or such a call still passes its parameter through
  // (RET_NERRNO(socket(...))). Conservative: recursion, and walks past kReturnWalkLimit places,
  // count as "may return an fd".
  constexpr std::size_t kReturnWalkLimit = 4096;
  std::vector<signed char> noFdMemo(functions.size(), -1); // -1 unknown, 0 may, 1 none, 2 deciding
  std::function<bool(Id)> returnsNoFd = [&](Id callee) -> bool {
    if (callee == kNone || callee >= functions.size())
      return false;
    if (noFdMemo[callee] >= 0)
      return noFdMemo[callee] == 1;
    noFdMemo[callee] = 2;
    bool none = functions[callee].defined;
    Id ret = none ? returnPlace(callee) : kNone;
    if (ret != kNone && (CreatedPlaces.count(ret) || Untracked.count(ret) || createdBy.count(ret)))
      none = false;
    std::set<Id> seen{ret};
    std::vector<Id> work;
    if (ret != kNone)
      work.push_back(ret);
    while (none && !work.empty()) {
      Id at = work.back();
      work.pop_back();
      for (Id f : incoming[at]) {
        Id from = flows[f].from;
        if (!seen.insert(from).second)
          continue;
        const facts::Place &p = places[from];
        if (seen.size() > kReturnWalkLimit || Untracked.count(from) || createdBy.count(from)) {
          none = false;
          break;
        }
        if (p.kind == facts::PlaceKind::Return && p.function != callee) {
          if (!returnsNoFd(p.function)) {
            none = false;
            break;
          }
          continue;
        }
        if (p.function != callee || (p.kind != facts::PlaceKind::Local && p.kind != facts::PlaceKind::Value)) {
          none = false;
          break;
        }
        work.push_back(from);
      }
    }
    noFdMemo[callee] = none ? 1 : 0;
    return none;
  };
  std::set<Id> removed; // flows from a return place into a call's value, replaced
  for (Id fn = 0; fn < functions.size(); ++fn) {
    if (!functions[fn].defined)
      continue;
    Id ret = returnPlace(fn);
    if (ret == kNone || CreatedPlaces.count(ret) || Untracked.count(ret))
      continue;
    // Back from the return through the function's own locals and values, to its parameters,
    // what they point to, and the sockets it makes.
    std::set<int> params, pointedTo;
    std::vector<Id> made; // creates of socket() in this function
    bool other = false;
    std::set<Id> seen{ret};
    std::vector<Id> work{ret};
    while (!work.empty() && !other) {
      Id at = work.back();
      work.pop_back();
      // *p of a pointer parameter: what each caller's &fd names comes in by Argument flows (the
      // ones replaced per call below); what the function itself writes into *p is followed on.
      const facts::Place &here = places[at];
      bool deref = here.kind == facts::PlaceKind::Element && here.index == 0 && here.base != kNone &&
                   places[here.base].kind == facts::PlaceKind::Param && places[here.base].function == fn;
      if (deref)
        pointedTo.insert(places[here.base].index);
      for (Id f : incoming[at]) {
        if (deref && flows[f].kind == facts::FlowKind::Argument)
          continue;
        Id from = flows[f].from;
        const facts::Place &p = places[from];
        if (p.kind == facts::PlaceKind::Param && p.function == fn) {
          params.insert(p.index);
          continue;
        }
        if (auto c = createdBy.find(from); c != createdBy.end()) {
          const facts::Create &create = creates[c->second];
          if (create.how != facts::CreateHow::Socket || create.site == kNone || sites[create.site].function != fn) {
            other = true; // accept(), a socketpair() end, another function's socket
            break;
          }
          if (seen.insert(from).second)
            made.push_back(c->second);
          continue;
        }
        // The result of a call that never returns an fd adds nothing.
        if (p.kind == facts::PlaceKind::Return && p.function != fn && returnsNoFd(p.function))
          continue;
        if (p.kind == facts::PlaceKind::Value && p.function == fn && llvm::StringRef(p.key).starts_with("v:r:") &&
            !incoming[from].empty() && std::all_of(incoming[from].begin(), incoming[from].end(), [&](Id g) {
              const facts::Place &q = places[flows[g].from];
              return q.kind == facts::PlaceKind::Return && q.function != fn && returnsNoFd(q.function);
            }))
          continue;
        // Anything but the function's own locals and values (a field, a global, another
        // function's result, a value it cannot follow) is neither.
        if (p.function != fn || p.kind == facts::PlaceKind::Field || p.kind == facts::PlaceKind::Global ||
            p.kind == facts::PlaceKind::Return || Untracked.count(from) ||
            (p.kind == facts::PlaceKind::Value && llvm::StringRef(p.key).starts_with("v:r:"))) {
          other = true;
          break;
        }
        if (seen.insert(from).second)
          work.push_back(from);
      }
    }
    bool passThrough = !params.empty() || !pointedTo.empty();
    if (other || (passThrough ? !made.empty() : made.empty()))
      continue;
    if (!passThrough) {
      // A maker: forward from what it makes, nothing on the way may be read by a fact, here or in
      // a function it hands the fd to (pa_make_fd_cloexec(fd) only sets FD_CLOEXEC).
      std::set<Id> reached;
      for (Id c : made)
        reached.insert(creates[c].place);
      work.assign(reached.begin(), reached.end());
      while (!work.empty() && !other) {
        Id at = work.back();
        work.pop_back();
        other = used[at];
        for (Id f : outgoing[at])
          if (flows[f].to != ret && reached.insert(flows[f].to).second)
            work.push_back(flows[f].to);
      }
      if (other)
        continue;
    }
    for (Id c = 0; c < calls.size(); ++c) {
      const facts::Call &call = calls[c];
      if (call.callee != fn || call.site == kNone)
        continue;
      const facts::Site &site = sites[call.site];
      Id value = placeByKey(facts::callValueKey(functions[fn].key, files[site.file], site.offset));
      if (value == kNone || CreatedPlaces.count(value))
        continue;
      for (Id f : incoming[value])
        if (flows[f].from == ret)
          removed.insert(f);
      if (!passThrough) {
        facts::Create own = creates[made.front()];
        own.place = value;
        own.site = call.site;
        // socket(family, type, 0) of the maker's parameters: this call's constants, or the
        // caller's own parameters (the site is now the caller's, and so are the indices).
        auto fromThisCall = [&](int &param) -> std::int64_t {
          if (param < 0)
            return -1;
          const facts::Argument *arg =
              static_cast<std::size_t>(param) < call.args.size() ? &call.args[param] : nullptr;
          param = arg && arg->number < 0 ? arg->param : -1;
          return arg ? arg->number : -1;
        };
        if (std::int64_t family = fromThisCall(own.familyParam); family >= 0) {
          own.family = facts::familyFromValue(family);
          own.familyName = facts::name(own.family);
        }
        if (std::int64_t type = fromThisCall(own.typeParam); type >= 0)
          own.type = static_cast<int>(type & kernel::kSockTypeMask);
        own.origin = functions[fn].name + "()" +
                     (call.caller != kNone ? " in " + functions[call.caller].name + "()" : std::string());
        creates.push_back(std::move(own));
        CreatedPlaces.insert(value);
        continue;
      }
      for (int i : params) {
        if (i < 0 || static_cast<std::size_t>(i) >= call.args.size())
          continue;
        const facts::Argument &arg = call.args[i];
        if (arg.mode != facts::ArgMode::Value)
          continue;
        if (arg.place == kNone)
          Untracked.insert(value);
        else
          addDerived(arg.place, value, facts::FlowKind::Return, call.site, true);
      }
      for (int i : pointedTo) {
        if (i < 0 || static_cast<std::size_t>(i) >= call.args.size())
          continue;
        const facts::Argument &arg = call.args[i];
        if (arg.mode == facts::ArgMode::Address && arg.place != kNone)
          addDerived(arg.place, value, facts::FlowKind::Return, call.site, true); // f(&fd)
        else if (arg.mode == facts::ArgMode::Array && arg.place != kNone)
          addDerived(elementPlace(arg.place, 0), value, facts::FlowKind::Return, call.site, true);
        else
          Untracked.insert(value); // a pointer we cannot follow
      }
    }
  }
  if (removed.empty())
    return;
  std::vector<facts::Flow> kept;
  kept.reserve(flows.size());
  for (Id f = 0; f < flows.size(); ++f)
    if (!removed.count(f))
      kept.push_back(flows[f]);
  flows = std::move(kept);
}

std::vector<bool> Program::calledFunctions() const {
  std::vector<bool> called(functions.size(), false);
  for (const facts::Call &c : calls)
    called[c.callee] = true;
  for (const facts::Callback &c : callbacks)
    called[c.callee] = true;
  // A callback an event loop model hands its user data (facts::FlowKind::Callback into a parameter).
  for (const facts::Flow &f : flows)
    if (f.kind == facts::FlowKind::Callback && places[f.to].kind == facts::PlaceKind::Param &&
        places[f.to].function != kNone)
      called[places[f.to].function] = true;
  for (Id f = 0; f < functions.size(); ++f)
    for (Id base : functions[f].overrides)
      if (called[base])
        called[f] = true;
  return called;
}

void Program::index() {
  CallsOf.assign(functions.size(), {});
  CallsIn.assign(functions.size(), {});
  Called.assign(functions.size(), false);
  for (Id i = 0; i < calls.size(); ++i) {
    CallsOf[calls[i].callee].push_back(i);
    if (calls[i].caller != kNone)
      CallsIn[calls[i].caller].push_back(i);
  }
  Called = calledFunctions();
  // A virtual call names the base method; it runs each overrider.
  CallsReachingOverrider.clear();
  for (Id f = 0; f < functions.size(); ++f)
    if (!functions[f].overrides.empty()) {
      std::vector<Id> reaching = CallsOf[f];
      for (Id base : functions[f].overrides)
        llvm::append_range(reaching, CallsOf[base]);
      std::sort(reaching.begin(), reaching.end());
      reaching.erase(std::unique(reaching.begin(), reaching.end()), reaching.end());
      CallsReachingOverrider[f] = std::move(reaching);
    }
  // Credential evidence: the function itself or a function it hands its control data to.
  std::vector<std::vector<Id>> controlCallees(functions.size());
  for (Id f = 0; f < functions.size(); ++f)
    controlCallees[f] = functions[f].controlCallees;
  for (const facts::Call &c : calls)
    if (c.passesControl && c.caller != kNone && !llvm::is_contained(controlCallees[c.caller], c.callee))
      controlCallees[c.caller].push_back(c.callee);
  Evidence.assign(functions.size(), kNone);
  for (Id f = 0; f < functions.size(); ++f) {
    std::vector<Id> work{f};
    std::set<Id> visited;
    while (!work.empty() && Evidence[f] == kNone) {
      Id g = work.back();
      work.pop_back();
      if (!visited.insert(g).second)
        continue;
      if (functions[g].credentialEvidence != kNone)
        Evidence[f] = functions[g].credentialEvidence;
      for (Id callee : controlCallees[g])
        work.push_back(callee);
    }
  }
  Summaries.assign(functions.size(), {});
  SummaryDone.assign(functions.size(), false);
}

// ---------------------------------------------------------------------------------------------
// Objects: pointers, the places reached through them, calls through them

namespace {
// Strongly connected components in reverse topological order (sinks first): component k's
// places are members.of(k), and `of[p]` is p's component.
struct Components {
  Graph members;
  std::vector<Id> of;
  std::size_t size() const { return members.size(); }
};
Components components(const Graph &out);

// Where a merged set holds more objects (ids below `objectEnd`) than `objectLimit`, they stand
// for any object (`unknown`), as a per-type analysis has them; `*widened` counts such sets.
struct Widening {
  Id objectEnd = 0;
  std::size_t objectLimit = 0; // 0: never
  Id unknown = 0;
  std::size_t *widened = nullptr;
};

// What reaches each place along `out` from the values made at `seeds`, sharing one set among
// places that only pass on what one predecessor holds.
PlaceSets propagateSets(const Graph &out, const Graph &seeds, const Widening &widening = {}) {
  const std::size_t n = out.size();
  const Components sccs = components(out);
  const std::vector<Id> &sccOf = sccs.of;
  PlaceSets result(n);
  std::vector<Id> setOf(sccs.size(), kNone); // per component: its set in `result`
  const Graph preds = makeGraph(sccs.size(), [&](auto add) {
    for (Id p = 0; p < n; ++p)
      for (Id to : out.of(p))
        if (sccOf[to] != sccOf[p])
          add(sccOf[to], sccOf[p]);
  });
  // Tarjan yields sinks first: walk backwards for sources first.
  std::vector<Id> own;
  for (std::size_t k = sccs.size(); k-- > 0;) {
    own.clear();
    for (Id p : sccs.members.of(k))
      if (p < seeds.size())
        own.insert(own.end(), seeds[p].begin(), seeds[p].end());
    std::sort(own.begin(), own.end());
    own.erase(std::unique(own.begin(), own.end()), own.end());
    Id shared = kNone;
    bool single = own.empty();
    for (Id pred : preds.of(k)) {
      if (setOf[pred] == kNone || result.set(setOf[pred]).empty())
        continue;
      if (shared == kNone)
        shared = setOf[pred];
      else if (shared != setOf[pred])
        single = false;
    }
    if (single) {
      setOf[k] = shared;
      continue;
    }
    // All the predecessors' values at once, then one sort: merging them one by one cost
    // O(predecessors x values), quadratic for a helper called from every file (write_all()
    // with 10,000 callers: 0.76 s of a 10,000-unit link).
    llvm::SmallDenseSet<Id, 8> seen;
    for (Id pred : preds.of(k))
      if (setOf[pred] != kNone && seen.insert(setOf[pred]).second)
        own.insert(own.end(), result.set(setOf[pred]).begin(), result.set(setOf[pred]).end());
    std::sort(own.begin(), own.end());
    own.erase(std::unique(own.begin(), own.end()), own.end());
    if (widening.objectLimit != 0) {
      auto objectsEnd = std::lower_bound(own.begin(), own.end(), widening.objectEnd);
      if (static_cast<std::size_t>(objectsEnd - own.begin()) > widening.objectLimit) {
        own.erase(own.begin(), objectsEnd);
        if (own.empty() || own.back() != widening.unknown)
          own.push_back(widening.unknown); // the largest id: the set stays sorted
        ++*widening.widened;
      }
    }
    setOf[k] = result.add(own);
  }
  for (Id p = 0; p < n; ++p)
    result.share(p, setOf[sccOf[p]]);
  return result;
}
} // namespace

// ---------------------------------------------------------------------------------------------
// Constructors, per call: a function that returns an object (or a socket) it makes itself gives
// each caller an object of its own, with what the function stores in it for that call. Without
// this one allocation site stands for every caller's object, and a client's connection and a
// server's accepted ones (one conn_new() for both) would be one.

namespace {
constexpr std::size_t kCloneMaxPlaces = 400;   // a constructor's own places
constexpr std::size_t kCloneMaxCalls = 200;    // its calls in the program
constexpr std::size_t kCloneBudget = 400000;   // places made by cloning, for the whole program
} // namespace

void Program::clonePerCall() {
  std::size_t n = places.size();
  std::vector<std::vector<Id>> owned(functions.size());
  for (Id p = 0; p < n; ++p)
    if (places[p].function != kNone)
      owned[places[p].function].push_back(p);
  const Graph incoming = flowsByPlace(/*into=*/true);
  const Graph pointsAt = makeGraph(n, [&](auto add) {
    for (Id i = 0; i < points.size(); ++i)
      add(points[i].place, i);
  });
  std::map<Id, Id> createdBy;
  for (Id c = 0; c < creates.size(); ++c)
    createdBy.emplace(creates[c].place, c);

  // A constructor: its return holds only what it makes (objects it allocates, sockets it creates,
  // what other constructors it calls make), through its own places.
  std::vector<int> memo(functions.size(), -1); // -1 unknown, 0 no, 1 yes, 2 being decided
  std::function<bool(Id)> constructor = [&](Id fn) -> bool {
    if (memo[fn] >= 0)
      return memo[fn] == 1;
    memo[fn] = 2;
    bool ok = false;
    Id ret = returnPlace(fn);
    if (functions[fn].defined && ret != kNone && owned[fn].size() <= kCloneMaxPlaces &&
        callsOf(fn).size() <= kCloneMaxCalls && !Untracked.count(ret)) {
      bool other = false, made = false;
      std::set<Id> seen{ret};
      std::vector<Id> work{ret};
      while (!work.empty() && !other) {
        Id at = work.back();
        work.pop_back();
        for (Id e : incoming[at]) {
          Id from = flows[e].from;
          const facts::Place &pl = places[from];
          if (pl.function != fn || pl.kind == facts::PlaceKind::Param || Untracked.count(from) ||
              derefRoot(from) != kNone) {
            // A call value of another constructor is what it makes; anything else is not ours.
            Id callee = kNone;
            if (pl.function == fn && pl.kind == facts::PlaceKind::Value &&
                llvm::StringRef(pl.key).starts_with("v:r:") && flows[e].kind == facts::FlowKind::Return)
              callee = places[flows[e].from].function;
            if (flows[e].kind == facts::FlowKind::Return && places[flows[e].from].kind == facts::PlaceKind::Return)
              callee = places[flows[e].from].function;
            if (callee != kNone && callee != fn && constructor(callee)) {
              made = true;
              continue;
            }
            other = true;
            break;
          }
          for (Id i : pointsAt[from])
            if (points[i].target != kNone && places[points[i].target].function == fn)
              made = true;
          if (auto c = createdBy.find(from); c != createdBy.end())
            made = true;
          if (seen.insert(from).second)
            work.push_back(from);
        }
      }
      ok = made && !other;
    }
    memo[fn] = ok ? 1 : 0;
    return ok;
  };
  // A function that calls the function it is handed (a helper registering the callback it is
  // given with an event loop, a `for_each(list, fn, data)`, a `const std::function<void(int)> &fn`
  // called): made per call too, so each call's function is called with that call's arguments, not
  // with every caller's. (Not a call through a table its parameter points to, `s->ops->handler()`:
  // most C functions of an object with an ops table are that, and a clone each would spend the
  // budget the constructors need.)
  // The parameter of `fn` whose function a call through `place` calls, if any.
  auto calledParam = [&](Id place, Id fn) -> std::optional<int> {
    const facts::Place *p = &places[place];
    if (p->kind == facts::PlaceKind::Member && llvm::StringRef(p->key).ends_with(facts::kCallableMember) && p->base != kNone)
      p = &places[p->base]; // a std::function's target
    if (p->kind == facts::PlaceKind::Deref && p->base != kNone)
      p = &places[p->base]; // handed by reference
    if (p->kind == facts::PlaceKind::Param && p->function == fn)
      return p->index;
    return std::nullopt;
  };
  std::set<std::pair<Id, int>> calledParams; // (function, its parameter whose function it calls)
  for (const facts::Call &call : indirectCalls)
    if (call.caller != kNone && call.target != kNone)
      if (std::optional<int> param = calledParam(call.target, call.caller))
        calledParams.insert({call.caller, *param});
  // A helper that hands its parameter on to one that calls it (watch() to start(), which registers
  // it) calls it too, so it is made per call as well, and its callers' functions do not meet in
  // the inner one's clone. To a fixed point: each round adds a pair or ends.
  for (bool grew = true; grew;) {
    grew = false;
    for (const facts::Call &call : calls) {
      if (call.caller == kNone || call.callee == kNone)
        continue;
      for (unsigned i = 0; i < call.args.size(); ++i) {
        Id passed = call.args[i].place;
        if (passed == kNone || !calledParams.count({call.callee, static_cast<int>(i)}))
          continue;
        if (std::optional<int> param = calledParam(passed, call.caller))
          grew |= calledParams.insert({call.caller, *param}).second;
      }
    }
  }
  std::vector<bool> callsThroughParam(functions.size(), false);
  for (const auto &[fn, param] : calledParams)
    callsThroughParam[fn] = true;
  auto higherOrder = [&](Id fn) {
    return callsThroughParam[fn] && functions[fn].defined && owned[fn].size() <= kCloneMaxPlaces &&
           callsOf(fn).size() <= kCloneMaxCalls;
  };
  // A function that makes a socket, or sets an option on, binds, listens or connects a socket of
  // its own places (a wrapper handed the fd, a method on its object's handle, an init(s) filling
  // s->fd): made per call too when more than one call reaches it, so each caller's socket is its
  // own and ordered by that call, not by every caller's (control.EnableCredentials() before
  // control.Listen(), events' after its own).
  // What a function was handed: a place reached from one of its parameters (or `this`) through
  // members, elements and pointers.
  // (An address taken of such a place, `&s->pipe` handed to a library, is one too.)
  std::function<bool(Id, Id, int)> handedFrom = [&](Id place, Id fn, int budget) {
    for (int depth = 0; place != kNone && place < n && depth < 16; ++depth) {
      const facts::Place &at = places[place];
      if (at.kind == facts::PlaceKind::Param)
        return at.function == fn;
      if (at.kind != facts::PlaceKind::Member && at.kind != facts::PlaceKind::Element &&
          at.kind != facts::PlaceKind::Deref) {
        if (budget > 0)
          for (Id i : pointsAt[place])
            if (points[i].target != kNone && handedFrom(points[i].target, fn, budget - 1))
              return true;
        return false;
      }
      place = at.base;
    }
    return false;
  };
  auto handedTo = [&](Id place, Id fn) { return handedFrom(place, fn, 2); };
  // Only a socket it was handed, or one it reads out of what it was handed (`int fd = s->fd;`,
  // uv_fileno(&s->pipe, &fd)), or, for one it makes, stores into what it was handed (init(s)
  // filling s->fd): a function working on its own locals or a global (haproxy's log socket, made
  // on first use) is the same for every caller, and a clone of it and its callers buys nothing.
  std::vector<bool> actsOnSocket(functions.size(), false);
  auto acts = [&](Id place) {
    if (place == kNone || place >= n || places[place].function == kNone)
      return;
    Id fn = places[place].function;
    // A few steps back through the function's own places (a local's definition, then its use).
    std::vector<Id> work{place};
    for (int step = 0; step < 4 && !work.empty() && !actsOnSocket[fn]; ++step) {
      std::vector<Id> next;
      for (Id p : work) {
        if (handedTo(p, fn)) {
          actsOnSocket[fn] = true;
          break;
        }
        for (Id e : incoming[p])
          if (Id from = flows[e].from; from < n && places[from].function == fn)
            next.push_back(from);
      }
      work = std::move(next);
    }
  };
  const Graph outgoingBeforeClones = flowsByPlace(/*into=*/false);
  auto makes = [&](Id place) {
    if (place == kNone || place >= n || places[place].function == kNone)
      return;
    Id fn = places[place].function;
    for (Id e : outgoingBeforeClones[place]) {
      Id to = flows[e].to;
      bool handed = handedTo(to, fn);
      for (Id e2 : outgoingBeforeClones[to]) // through a local first: `int fd = socket(); s->fd = fd;`
        handed = handed || handedTo(flows[e2].to, fn);
      if (handed) {
        actsOnSocket[fn] = true;
        return;
      }
    }
  };
  for (const facts::OptionSet &o : options)
    acts(o.place);
  for (const facts::LifecycleEvent &e : lifecycle)
    acts(e.place);
  // One that registers a socket or handle it was handed with an event loop a model names (a
  // constructor starting its own member's uv_poll_t with `this` as the handle's data): each call's
  // registration hands the callback that call's object alone, which a rule can then tell apart
  // (Program::objectsPerEntry()). Not a guessed registration (atomicio(read, fd, ...) passes an fd
  // and a function too: openssh's callers of it, cloned, cost 60% more places for nothing), and
  // of a model's flows only those its `passes` make into a callback's parameter at the call.
  std::set<Id> guessed; // the sites of guessed registrations, whose flows deriveFlows() made
  for (const facts::Callback &c : callbacks)
    if (c.registrar == facts::kGuessedRegistrar)
      guessed.insert(c.site);
    else
      acts(c.socket);
  for (const facts::Flow &f : flows)
    if (f.kind == facts::FlowKind::Callback && f.site != kNone && !guessed.count(f.site) &&
        places[f.to].kind == facts::PlaceKind::Param)
      acts(f.from);
  // One that makes a socket (into its caller's object, a global): a socket per call, as a
  // constructor's return is. (Constructors are cloned as such already.)
  for (const facts::Create &c : creates)
    if (c.how == facts::CreateHow::Socket || c.how == facts::CreateHow::Socketpair ||
        c.how == facts::CreateHow::Accept || c.how == facts::CreateHow::Producer)
      makes(c.place);
  // (Not a recvmsg(): the credential rule judges a reader per call already, at the call that hands
  // it a socket without the option, CredsWithoutPasscred.cpp.) A function that hands what it was
  // handed to one that does acts on it too (server_enable(s) calling set_passcred(s->fd)), to a
  // fixed point over the calls.
  for (bool grew = true; grew;) {
    grew = false;
    for (const facts::Call &call : calls) {
      if (call.caller == kNone || call.callee == kNone || !actsOnSocket[call.callee] || actsOnSocket[call.caller])
        continue;
      // Only what the caller was handed itself (its parameter, what it points to, `this`): a
      // function that hands the callee a socket of its own locals is the same for every caller.
      auto handed = [&](const facts::Argument &a) { return handedTo(a.place, call.caller); };
      if (handed(call.receiver) || llvm::any_of(call.args, handed)) // a method's object is its receiver
        actsOnSocket[call.caller] = grew = true;
    }
  }
  // Also one called once, from a function that is cloned: without a clone inside each of that
  // one's, its parameter would get every clone's socket again (a method's private helper). To a
  // fixed point over the calls.
  std::vector<bool> wrapper(functions.size(), false);
  // Not a wrapper that takes the option as a parameter (SetFlag(level, option, on)): its option is
  // made per call at each call already (liftOptions()), through the copies of those calls too.
  std::vector<bool> namesOption(functions.size(), false);
  for (const facts::OptionSet &o : options)
    if (o.optionParam >= 0 && o.site != kNone && sites[o.site].function != kNone)
      namesOption[sites[o.site].function] = true;
  auto eligible = [&](Id fn) {
    return actsOnSocket[fn] && !namesOption[fn] && functions[fn].defined && owned[fn].size() <= kCloneMaxPlaces &&
           !callsOf(fn).empty() && callsOf(fn).size() <= kCloneMaxCalls;
  };
  for (Id fn = 0; fn < functions.size(); ++fn)
    wrapper[fn] = eligible(fn) && callsOf(fn).size() >= 2;
  for (bool grew = true; grew;) {
    grew = false;
    for (Id fn = 0; fn < functions.size(); ++fn) {
      if (wrapper[fn] || !eligible(fn))
        continue;
      for (Id c : callsOf(fn)) {
        Id caller = calls[c].caller;
        if (caller != kNone && caller != fn && (wrapper[caller] || constructor(caller) || higherOrder(caller))) {
          wrapper[fn] = grew = true;
          break;
        }
      }
    }
  }
  auto socketWrapper = [&](Id fn) { return static_cast<bool>(wrapper[fn]); };
  auto cloned = [&](Id fn) { return constructor(fn) || higherOrder(fn) || socketWrapper(fn); };

  const Graph &outgoing = outgoingBeforeClones;
  std::size_t budget = kCloneBudget;
  std::vector<Id> cloning; // the functions whose clones enclose the one being made
  std::vector<Id> cloningAt; // and the calls each of those clones, and the one being made, is for
  const std::size_t indirectBeforeClones = indirectCalls.size();
  constexpr std::size_t kMaxCloneDepth = 8;
  std::vector<Id> removed; // argument and return flows of the calls now served by clones
  // One clone of `fn` for its call at `site`, places named with `prefix`; `map` holds what is
  // already cloned around it (an outer constructor's places), and gets fn's. Constructors it
  // calls are cloned inside it the same way.
  std::function<void(Id, Id, const std::string &, std::map<Id, Id> &)> cloneFor =
      [&](Id fn, Id site, const std::string &prefix, std::map<Id, Id> &map) {
        auto mine = [&](Id p) { return p != kNone && p < n && places[p].function == fn; };
        cloningAt.push_back(site);
        std::size_t chain = CloneCallChains.size();
        CloneCallChains.push_back(cloningAt);
        auto clonePlace = [&](Id p, auto &self) -> Id {
          if (auto it = map.find(p); it != map.end())
            return it->second;
          const facts::Place pl = places[p];
          Id id;
          if (pl.kind == facts::PlaceKind::Member && pl.base != kNone) {
            Id base = self(pl.base, self);
            std::string name = pl.key.substr(places[pl.base].key.size());
            id = internPlace(places[base].key + name, pl.kind, pl.name, pl.function, pl.index, base);
            places[id].field = pl.field;
          } else if (pl.kind == facts::PlaceKind::Element && pl.base != kNone) {
            id = elementPlace(self(pl.base, self), pl.index);
          } else if (pl.kind == facts::PlaceKind::Deref && pl.base != kNone) {
            Id base = self(pl.base, self);
            id = internPlace("*" + places[base].key, pl.kind, pl.name, pl.function, pl.index, base);
          } else {
            id = internPlace(prefix + pl.key, pl.kind, pl.name, pl.function, pl.index, kNone);
            CloneOfRoot.emplace(id, chain);
            // A template's place is every instantiation's (ExtractorImpl.h, typed()), and units
            // may instantiate it differently: each record any unit gives it.
            for (const std::string &record : pl.records)
              if (!llvm::is_contained(places[id].records, record))
                places[id].records.push_back(record);
          }
          map[p] = id;
          if (Untracked.count(p))
            Untracked.insert(id);
          if (Written.count(p))
            Written.insert(id);
          return id;
        };
        auto clone = [&](Id p) { return mine(p) ? clonePlace(p, clonePlace) : (map.count(p) ? map[p] : p); };
        for (Id p : owned[fn])
          clone(p);
        // A clone's parameters hold what this call passes, not what any caller does: a constant
        // (-1 for "make your own socket") gives the parameter nothing, unknown only if untracked.
        for (Id c : callsOf(fn))
          if (calls[c].site == site)
            for (unsigned i = 0; i < calls[c].args.size(); ++i) {
              auto it = map.find(placeByKey("p:" + functions[fn].key + "#" + std::to_string(i)));
              if (it == map.end())
                continue;
              const facts::Argument &a = calls[c].args[i];
              Untracked.erase(it->second);
              Written.erase(it->second);
              if (a.mode == facts::ArgMode::Constant)
                Written.insert(it->second);
              else if (a.mode == facts::ArgMode::Value && a.place == kNone)
                Untracked.insert(it->second);
            }
        // Every clone costs budget, even one of a function without places of its own: constructors
        // that call each other would otherwise nest without end (lldpd).
        budget -= std::min(budget, std::max<std::size_t>(1, owned[fn].size()));
        // Constructors it calls: a clone of their own inside this one, unless already being cloned
        // around it (recursion) or nested too deep.
        cloning.push_back(fn);
        std::set<Id> nested;
        for (Id c : callsIn(fn)) {
          const facts::Call &call = calls[c];
          if (call.callee == fn || !cloned(call.callee) || budget == 0 || nested.count(call.site) ||
              llvm::is_contained(cloning, call.callee) || cloning.size() >= kMaxCloneDepth)
            continue;
          nested.insert(call.site);
          std::map<Id, Id> inner = map;
          cloneFor(call.callee, call.site, prefix + "@" + std::to_string(call.site) + ":", inner);
        }
        cloning.pop_back();
        const facts::Site &at = sites[site];
        std::string value = facts::callValueKey(functions[fn].key, files[at.file], at.offset);
        auto ours = [&](Id e) {
          const facts::Flow &f = flows[e];
          bool in = mine(f.to) && !mine(f.from), out = mine(f.from) && !mine(f.to);
          if (in && f.kind == facts::FlowKind::Argument && f.site != site)
            return false; // another caller's argument
          if ((in || out) && f.site != kNone && nested.count(f.site))
            return false; // a nested constructor's call: its clone has it
          if (in && f.kind == facts::FlowKind::Return && places[f.from].kind == facts::PlaceKind::Return &&
              places[f.from].function != kNone && cloned(places[f.from].function))
            return false; // what a nested clone returns: its clone's
          if (out && f.kind == facts::FlowKind::Return && places[f.from].kind == facts::PlaceKind::Return) {
            // Back to the caller: into this call's value (or its members) only.
            llvm::StringRef to(places[f.to].key);
            return to == value || to.starts_with(value + ".");
          }
          return true;
        };
        std::set<Id> done;
        for (Id p : owned[fn])
          for (llvm::ArrayRef<Id> edges : {incoming[p], outgoing[p]})
            for (Id e : edges)
              if (done.insert(e).second && ours(e)) {
                facts::Flow f = flows[e];
                addDerived(clone(f.from), clone(f.to), f.kind, f.site, f.exact);
              }
        // This call's own argument flows, onto the clone's places: the link keeps one flow per pair
        // of places, so a second call passing the same place (`w(fd); w(fd);`) has none of its own.
        for (Id c : callsOf(fn))
          if (calls[c].site == site)
            deriveCallFlows(calls[c], [&](Id from, Id to, bool exact) {
              addDerived(clone(from), clone(to), facts::FlowKind::Argument, site, exact);
            });
        for (Id p : owned[fn])
          for (Id i : pointsAt[p]) {
            facts::Points pt = points[i];
            pt.place = clone(pt.place);
            if (pt.target != kNone)
              pt.target = clone(pt.target);
            points.push_back(pt);
          }
        // The facts about its places, each made once more for this call.
        auto again = [&](auto &list, auto member) {
          std::size_t count = list.size();
          for (std::size_t i = 0; i < count; ++i)
            if (mine(list[i].*member)) {
              auto copy = list[i];
              copy.*member = clone(copy.*member);
              list.push_back(copy);
            }
        };
        std::size_t createsBefore = creates.size();
        for (Id c = 0; c < createsBefore; ++c)
          if (mine(creates[c].place)) {
            facts::Create copy = creates[c];
            copy.place = clone(copy.place);
            ClonesOf[c].push_back(creates.size());
            creates.push_back(std::move(copy));
          }
        const facts::Call *through = nullptr;
        for (Id c : callsOf(fn))
          if (calls[c].site == site)
            through = &calls[c];
        for (std::size_t c = createsBefore; c < creates.size(); ++c) {
          facts::Create &made = creates[c];
          CreatedPlaces.insert(made.place);
          // socket(family, type, 0) of parameters: this call's constants.
          if (through && made.familyParam >= 0 && static_cast<std::size_t>(made.familyParam) < through->args.size() &&
              through->args[made.familyParam].number >= 0) {
            made.family = facts::familyFromValue(through->args[made.familyParam].number);
            made.familyName = facts::name(made.family);
            made.familyParam = -1;
          }
          if (through && made.typeParam >= 0 && static_cast<std::size_t>(made.typeParam) < through->args.size() &&
              through->args[made.typeParam].number >= 0) {
            made.type = static_cast<int>(through->args[made.typeParam].number & kernel::kSockTypeMask);
            made.typeParam = -1;
          }
          made.peer = made.peer == kNone ? kNone : clone(made.peer);
          made.listener = made.listener == kNone ? kNone : clone(made.listener);
          made.familyFrom = made.familyFrom == kNone ? kNone : clone(made.familyFrom);
          if (Id caller = at.function; caller != kNone)
            made.origin += " (called from " + functions[caller].name + "())";
          if (made.familyParam >= 0 || made.typeParam >= 0 || made.familyFrom != kNone)
            ConstantFrom[c] = {made.familyParam >= 0 ? clone(paramPlace(fn, static_cast<unsigned>(made.familyParam)))
                                                     : made.familyFrom,
                               made.typeParam >= 0 ? clone(paramPlace(fn, static_cast<unsigned>(made.typeParam))) : kNone};
        }
        again(options, &facts::OptionSet::place);
        again(lifecycle, &facts::LifecycleEvent::place);
        std::size_t receivesBefore = receives.size();
        again(receives, &facts::Receive::place);
        std::size_t receivesAfter = receives.size(), receivedBefore = received.size();
        again(payloads, &facts::Payload::place);
        again(received, &facts::Received::place);
        // A receiving helper made per call (receive_fd(channel) returning the fd it read): each
        // copy's fds come over the channel of its own call.
        for (std::size_t r = receivedBefore; r < received.size(); ++r)
          for (std::size_t i = receivesBefore; i < receivesAfter; ++i)
            if (receives[i].kind == facts::ReceiveKind::Recvmsg)
              ReceivedOver[r].push_back(receives[i].place);
        again(sends, &facts::Send::channel);
        again(writes, &facts::Write::place);
        again(callbacks, &facts::Callback::socket);
        // Its direct calls, on this clone's places (what a setter stores into the clone's objects,
        // what a getter reads from them); a nested constructor's call is its clone's.
        for (Id c : callsIn(fn)) {
          if (nested.count(calls[c].site) || calls[c].target != kNone)
            continue;
          ClonedCall copy{calls[c], kNone};
          // Only places and modes are read from a copy: its texts would cost memory per clone.
          auto onClone = [&](facts::Argument &a) {
            std::string().swap(a.text); // (clear() would keep the copies' buffers)
            std::string().swap(a.var);
            std::string().swap(a.constant);
            if (a.place != kNone)
              a.place = clone(a.place);
          };
          onClone(copy.call.receiver);
          for (facts::Argument &a : copy.call.args)
            onClone(a);
          const facts::Site &called = sites[copy.call.site];
          if (Id v = placeByKey(facts::callValueKey(functions[copy.call.callee].key, files[called.file], called.offset));
              v != kNone)
            copy.value = clone(v);
          ClonedCalls.push_back(std::move(copy));
        }
        // The function's own calls through pointers, not the copies earlier clones made of them
        // (those have the same caller: copying them too doubled the list with every clone).
        for (std::size_t i = 0; i < indirectBeforeClones; ++i)
          if (indirectCalls[i].caller == fn) {
            facts::Call copy = indirectCalls[i];
            copy.target = clone(copy.target);
            for (facts::Argument &a : copy.args)
              if (a.place != kNone)
                a.place = clone(a.place);
            indirectCalls.push_back(copy);
          }
        cloningAt.pop_back();
      };

  FlowCountBeforeClones = flows.size();
  // Constructors first: the budget goes to them before the helpers that call what they are handed,
  // and to both before the wrappers of a socket call.
  std::vector<Id> order;
  for (int kind : {0, 1, 2})
    for (Id fn = 0; fn < functions.size(); ++fn)
      if (kind == 0   ? constructor(fn)
          : kind == 1 ? !constructor(fn) && higherOrder(fn)
                      : !constructor(fn) && !higherOrder(fn) && socketWrapper(fn))
        order.push_back(fn);
  for (Id fn : order) {
    if (budget == 0)
      break;
    // Only the program's outermost calls: a function called from another that is cloned is
    // cloned inside that one's clones.
    for (Id c : std::vector<Id>(callsOf(fn))) {
      const facts::Call &call = calls[c];
      if (call.caller == kNone || call.caller == fn || cloned(call.caller) || budget == 0)
        continue;
      std::string prefix = "@" + std::to_string(call.site) + ":";
      std::map<Id, Id> map;
      cloneFor(fn, call.site, prefix, map);
      ServedByClones.insert(fn);
      // The call now reaches the clone only: its arguments no longer go into the function's own
      // parameters, nor does the function's own return come back to it.
      const facts::Site &s = sites[call.site];
      Id value = placeByKey(facts::callValueKey(functions[fn].key, files[s.file], s.offset));
      for (Id e = 0; e < FlowCountBeforeClones; ++e) {
        const facts::Flow &f = flows[e];
        bool argument = f.kind == facts::FlowKind::Argument && f.site == call.site &&
                        places[f.to].function == fn;
        bool back = f.kind == facts::FlowKind::Return && places[f.from].function == fn &&
                    (f.to == value || (value != kNone && places[f.to].kind == facts::PlaceKind::Member &&
                                       llvm::StringRef(places[f.to].key).starts_with(places[value].key + ".")));
        if (argument || back)
          removed.push_back(e);
      }
    }
  }
  if (removed.empty())
    return;
  std::sort(removed.begin(), removed.end());
  removed.erase(std::unique(removed.begin(), removed.end()), removed.end());
  std::vector<facts::Flow> kept;
  kept.reserve(flows.size());
  for (Id f = 0; f < flows.size(); ++f)
    if (!std::binary_search(removed.begin(), removed.end(), f))
      kept.push_back(flows[f]);
  flows = std::move(kept);
}

namespace {
// A function other translation units may call: its USR has no file in it (c:@F@name, not
// c:file.c@F@name as a static function's has) and no anonymous namespace (@aN@).
bool externallyVisible(const facts::Function &f) {
  llvm::StringRef key(f.key);
  return key.starts_with("c:@") && !key.contains("@aN@");
}
// A field's place key, f:<record>::<field>, as its record and its field's name; both empty for
// any other key.
std::pair<llvm::StringRef, llvm::StringRef> fieldKeyParts(llvm::StringRef key) {
  if (!key.consume_front("f:"))
    return {};
  std::size_t at = key.rfind("::");
  return at == llvm::StringRef::npos ? std::pair<llvm::StringRef, llvm::StringRef>()
                                     : std::make_pair(key.take_front(at), key.drop_front(at + 2));
}
llvm::StringRef recordOfField(llvm::StringRef key) { return fieldKeyParts(key).first; }
} // namespace

void Program::seedEscapedObjects() {
  // A library's API: udev_monitor_new_from_socket() returns a monitor nothing in the library uses;
  // its user hands it back to udev_monitor_enable_receiving(), which the library's own daemon
  // calls with other monitors. Only the objects that do leave, and only into parameters of their
  // record: merging every object of the record (a per-type analysis) is what per-object fields
  // are there to avoid.
  std::map<Id, std::set<std::string>> recordsOfObject;
  std::map<std::string, std::set<Id>> paramsOfRecord; // a parameter once, whatever fields it reads
  for (Id p = 0; p < places.size(); ++p) {
    const facts::Place &at = places[p];
    if (at.kind != facts::PlaceKind::Member || at.field == kNone || at.base == kNone)
      continue;
    llvm::StringRef record = recordOfField(places[at.field].key);
    if (record.empty())
      continue;
    const facts::Place &base = places[at.base];
    if (ObjectIds.count(at.base))
      recordsOfObject[at.base].insert(record.str());
    else if (base.kind == facts::PlaceKind::Deref && base.base != kNone &&
             places[base.base].kind == facts::PlaceKind::Param && places[base.base].function != kNone &&
             externallyVisible(functions[places[base.base].function]))
      paramsOfRecord[record.str()].insert(base.base);
  }
  for (Id fn = 0; fn < functions.size(); ++fn) {
    const facts::Function &f = functions[fn];
    if (!f.defined || (fn < Called.size() && Called[fn]) || !externallyVisible(f) || f.name == "main")
      continue;
    Id ret = returnPlace(fn);
    if (Addresses.at(ret).empty())
      continue;
    for (Id v : Addresses.at(ret)) {
      if (v >= ObjectPlaces.size())
        continue; // a function, a constant, or unknown
      auto records = recordsOfObject.find(ObjectPlaces[v]);
      if (records == recordsOfObject.end())
        continue;
      for (const std::string &record : records->second)
        for (Id param : paramsOfRecord[record]) {
          if (AddressSeeds.size() <= param)
            AddressSeeds.resize(places.size());
          if (!llvm::is_contained(AddressSeeds[param], v))
            AddressSeeds[param].push_back(v);
        }
    }
  }
}

Id Program::derefRoot(Id place) {
  if (place < DerefRoots.size() && DerefRoots[place] != kNone + 1)
    return DerefRoots[place];
  Id root = kNone;
  for (Id p = place; p != kNone;) {
    const facts::Place &at = places[p];
    if (at.kind == facts::PlaceKind::Deref) {
      root = p;
      break;
    }
    if (at.kind != facts::PlaceKind::Member && at.kind != facts::PlaceKind::Element)
      break;
    p = at.base;
  }
  if (DerefRoots.size() <= place)
    DerefRoots.resize(places.size(), kNone + 1);
  DerefRoots[place] = root;
  return root;
}

Id Program::storeSide(Id place) {
  // A place reached through a pointer is two: what is stored through the pointer goes to every
  // object the pointer may point to (from the store side), what is read comes from them (into
  // the place itself). One place would join the objects into one.
  if (derefRoot(place) == kNone || place == derefRoot(place))
    return place;
  auto it = StoreSides.find(place);
  if (it != StoreSides.end())
    return it->second;
  facts::Place p = places[place];
  Id side = internPlace(p.key + "=", p.kind, p.name, p.function, p.index, kNone);
  StoreSides[place] = side;
  StoreSideIds.insert(side);
  StoreSideOf[side] = place;
  return side;
}

Id Program::derefOf(Id pointer) {
  if (places[pointer].kind == facts::PlaceKind::Value)
    for (const facts::Points &pt : points) // &x: x itself
      if (pt.place == pointer && pt.target != kNone)
        return pt.target;
  const facts::Place p = places[pointer];
  return internPlace("*" + p.key, facts::PlaceKind::Deref, "*" + p.name, p.function, -1, pointer);
}

Id Program::addressValue(Id object) {
  auto [it, fresh] = ObjectIds.try_emplace(object, ObjectPlaces.size());
  if (fresh)
    ObjectPlaces.push_back(object);
  return it->second;
}

// Access paths longer than this (a list walked through `next` in a loop, a tree of objects
// reached through one another) stand for every object of their record: the per-type place, as
// unknownCounterpart() gives. Without a bound each round of resolveObjects() makes longer ones.
static constexpr int kMaxAccessPath = 6;

// The field a member place names: its key is <base key>.<field>, but a clone's base may have a
// key of its own.
static std::string memberName(const std::vector<facts::Place> &places, Id member) {
  llvm::StringRef key = places[member].key, baseKey = places[places[member].base].key;
  if (key.starts_with(baseKey) && key.size() > baseKey.size() + 1)
    return key.drop_front(baseKey.size() + 1).str();
  return key.rsplit('.').second.str();
}

Id Program::counterpart(Id place, Id deref, Id object) {
  if (place == deref)
    return object;
  int length = 0;
  for (Id at = object; at != kNone && length <= kMaxAccessPath; at = places[at].base)
    ++length;
  for (Id at = place; at != kNone && at != deref && length <= kMaxAccessPath; at = places[at].base)
    ++length;
  if (length > kMaxAccessPath)
    return unknownCounterpart(place);
  const facts::Place p = places[place]; // a copy: interning below may move the table
  Id base = counterpart(p.base, deref, object);
  if (base == kNone)
    return kNone;
  if (p.kind == facts::PlaceKind::Element)
    return elementPlace(base, p.index);
  // A pointer converted to another record (container_of, a first-member cast, a pool allocator's
  // memory handed out as every type) reaches the field's place for every object of its record,
  // as a per-type analysis has it. Paths of fields no object has would otherwise multiply with
  // every record the pointer is converted to (nginx's queues and pools: past 10 GB).
  // Unless the two records share the field (a common initial sequence: the uv_stream_t a
  // uv_pipe_t is handed on as, a sockaddr_un read as a sockaddr): then it is the object's own
  // field of its record.
  Id field = p.field;
  std::string name;
  if (p.kind == facts::PlaceKind::Member && !mayBeOfRecord(base, field)) {
    field = aliasedField(base, field);
    if (field == kNone)
      return unknownCounterpart(place);
    name = fieldKeyParts(places[field].key).second.str();
  } else {
    // A member: the same name under the object.
    name = memberName(places, place);
  }
  const facts::Place b = places[base];
  std::string display = b.kind == facts::PlaceKind::Deref ? places[b.base].name + "->" + name : b.name + "." + name;
  Id id = internPlace(b.key + "." + name, facts::PlaceKind::Member, display, b.function, -1, base);
  places[id].field = field;
  return id;
}

Id Program::aliasedField(Id object, Id field) const {
  auto aliases = FieldAliases.find(field);
  if (aliases == FieldAliases.end())
    return kNone;
  for (Id other : aliases->second)
    if (mayBeOfRecord(object, other))
      return other;
  return kNone;
}

bool Program::mayBeOfRecord(Id object, Id field) const {
  // A library holder's fd (uv_poll_init() into a uv_poll_t, a member of the program's struct) is a
  // member no record declares: any object may keep one.
  if (field == kNone || facts::isHolderFieldKey(places[field].key))
    return true;
  Id at = object;
  while (at != kNone && places[at].kind == facts::PlaceKind::Element)
    at = places[at].base;
  if (at == kNone)
    return true;
  const facts::Place &p = places[at];
  const std::vector<std::string> *records = nullptr;
  switch (p.kind) {
  case facts::PlaceKind::Member:
    if (p.field == kNone)
      return true;
    records = &places[p.field].records;
    break;
  case facts::PlaceKind::Field:
  case facts::PlaceKind::Local:
  case facts::PlaceKind::Param:
  case facts::PlaceKind::Global:
    records = &p.records;
    break;
  default:
    return true; // an allocation or a temporary may be any record (malloc'd memory has no type)
  }
  return llvm::is_contained(*records, recordOfField(places[field].key));
}

Id Program::unknownCounterpart(Id place) {
  // Through a pointer from outside: the same place of every object of the record, as a per-type
  // analysis has it: the record's field place (f:conn::fd), and below it the rest of the path
  // (f:conn::hdr.fd, f:EventLoop::callbacks_[*].second). Elements of an array of objects stand
  // for any of them.
  std::vector<Id> steps;
  for (Id at = place; at != kNone && (places[at].kind == facts::PlaceKind::Member ||
                                      places[at].kind == facts::PlaceKind::Element);
       at = places[at].base)
    steps.push_back(at);
  Id current = kNone;
  for (std::size_t i = steps.size(); i-- > 0;) {
    const facts::Place step = places[steps[i]];
    if (current == kNone) {
      if (step.kind == facts::PlaceKind::Member && step.field != kNone)
        current = step.field;
      continue;
    }
    if (step.kind == facts::PlaceKind::Element) {
      current = elementPlace(current, step.index);
      continue;
    }
    std::string name = memberName(places, steps[i]);
    const facts::Place base = places[current];
    current = internPlace(base.key + "." + name, facts::PlaceKind::Member, base.name + "." + name, kNone, -1, current);
    places[current].field = step.field;
  }
  return current;
}

std::vector<Id> Program::objectsAt(Id pointer, bool *unknown) const {
  std::vector<Id> out;
  if (unknown)
    *unknown = false;
  if (Addresses.at(pointer).empty())
    return out;
  for (Id v : Addresses.at(pointer)) {
    if (v == kUnknownObject) {
      if (unknown)
        *unknown = true;
    } else if (v < ObjectPlaces.size()) {
      out.push_back(ObjectPlaces[v]);
    }
  }
  return out;
}

std::vector<Id> Program::functionsAt(Id pointer) const {
  std::vector<Id> out;
  if (Addresses.at(pointer).empty())
    return out;
  for (Id v : Addresses.at(pointer))
    if (v < kConstantBase && v >= ObjectPlaces.size() && v - ObjectPlaces.size() < FunctionValues.size())
      out.push_back(FunctionValues[v - ObjectPlaces.size()]);
  return out;
}

std::vector<Program::ObjectEntry> Program::objectsPerEntry(Id pointer, std::size_t *asked) const {
  std::size_t visits = 0;
  auto mergeBySite = [](std::vector<ObjectEntry> &entries) {
    std::vector<ObjectEntry> merged;
    for (ObjectEntry &e : entries) {
      auto same = llvm::find_if(merged, [&](const ObjectEntry &m) { return m.site == e.site; });
      if (same == merged.end()) {
        merged.push_back(std::move(e));
        continue;
      }
      unionInto(same->objects, e.objects);
    }
    entries = std::move(merged);
  };
  // The entries of the objects `place` holds; nullopt when they are not told apart by calls.
  std::function<std::optional<std::vector<ObjectEntry>>(Id, int)> split;
  // What a call (or registration) at `site` hands over in `argument`: one entry, or the entries
  // of the argument's own function when it holds several objects and they can be told apart.
  auto entriesOf = [&](Id argument, Id site, int depth, std::vector<ObjectEntry> &out) {
    if (++visits > kMaxEntryVisits)
      return; // an entry left out is one not judged
    bool unknown = false;
    std::vector<Id> objects = objectsAt(argument, &unknown);
    if (unknown || objects.empty())
      return; // an object from elsewhere (or none): this entry is not judged
    llvm::sort(objects);
    if (objects.size() > 1)
      if (std::optional<std::vector<ObjectEntry>> below = split(argument, depth + 1); below && !below->empty()) {
        out.insert(out.end(), below->begin(), below->end());
        return;
      }
    out.push_back({site, std::move(objects)});
  };
  split = [&](Id place, int depth) -> std::optional<std::vector<ObjectEntry>> {
    if (place == kNone || place >= places.size() || depth > kMaxEntryDepth || ++visits > kMaxEntryVisits)
      return std::nullopt;
    const facts::Place &at = places[place];
    std::vector<ObjectEntry> out;
    switch (at.kind) {
    case facts::PlaceKind::Param: {
      if (at.function == kNone)
        return std::nullopt;
      // Its calls (each call's own argument: two calls passing one place share one flow), then
      // every flow into it: registrations, calls through pointers, and a clone's arguments, at the
      // call the clone was made for (the registration inside a constructor is one site for all).
      for (Id c : callsReaching(at.function))
        entriesOf(calls[c].argumentPlace(at.index), calls[c].site, depth, out);
      if (place < Incoming.size())
        for (Id e : Incoming[place]) {
          const facts::Flow &f = flows[e];
          if (f.kind != facts::FlowKind::Argument && f.kind != facts::FlowKind::Callback)
            continue;
          llvm::ArrayRef<Id> chain = cloneCalls(f.from);
          if (!chain.empty())
            entriesOf(f.from, chain.back(), depth, out);
          else if (f.kind == facts::FlowKind::Callback && f.site != kNone)
            entriesOf(f.from, f.site, depth, out);
          else if (f.site == kNone && places[f.from].kind == facts::PlaceKind::Param) // an overridden method's
            if (std::optional<std::vector<ObjectEntry>> base = split(f.from, depth + 1))
              out.insert(out.end(), base->begin(), base->end());
        }
      break;
    }
    case facts::PlaceKind::Member: {
      // A pointer kept below what another points to (*handle.data): each entry of that pointer's
      // objects, with the pointer each of them keeps there.
      Id root = place;
      while (root != kNone && places[root].kind == facts::PlaceKind::Member)
        root = places[root].base;
      if (root == kNone || places[root].kind != facts::PlaceKind::Deref)
        return std::nullopt;
      std::string path = at.key.substr(places[root].key.size());
      std::optional<std::vector<ObjectEntry>> outer = split(places[root].base, depth + 1);
      if (!outer)
        return std::nullopt;
      for (const ObjectEntry &entry : *outer) {
        ObjectEntry inner{entry.site, {}};
        for (Id object : entry.objects) {
          Id kept = placeByKey(places[object].key + path);
          bool unknown = false;
          std::vector<Id> objects = kept == kNone ? std::vector<Id>() : objectsAt(kept, &unknown);
          if (kept == kNone || unknown)
            return std::nullopt; // an object whose pointer there is not known: not told apart
          llvm::sort(objects);
          unionInto(inner.objects, objects);
        }
        if (!inner.objects.empty())
          out.push_back(std::move(inner));
      }
      break;
    }
    case facts::PlaceKind::Local: {
      // A local pointer set in its function only (`struct source *s = handle->data;`): what each
      // of its values holds.
      if (place >= Incoming.size() || Incoming[place].empty())
        return std::nullopt;
      for (Id e : Incoming[place]) {
        const facts::Flow &f = flows[e];
        if ((f.kind != facts::FlowKind::Init && f.kind != facts::FlowKind::Assign) ||
            places[f.from].function != at.function)
          return std::nullopt;
        std::optional<std::vector<ObjectEntry>> from = split(f.from, depth + 1);
        if (!from)
          return std::nullopt;
        out.insert(out.end(), from->begin(), from->end());
      }
      break;
    }
    default:
      return std::nullopt;
    }
    mergeBySite(out);
    return out;
  };
  std::optional<std::vector<ObjectEntry>> entries = split(pointer, 0);
  if (asked)
    *asked = std::min(visits, kMaxEntryVisits);
  return entries ? std::move(*entries) : std::vector<ObjectEntry>();
}

std::vector<int> Program::constantsAt(Id place) const {
  std::vector<int> out;
  if (Addresses.at(place).empty())
    return out;
  for (Id v : Addresses.at(place))
    if (v >= kConstantBase && v != kUnknownObject)
      out.push_back(static_cast<int>(v - kConstantBase));
  return out;
}

void Program::specialiseFamilies() {
  // socket(family, type, 0) with the family a parameter, or read out of an object
  // (socket(a->sa->sa_family, ...)): the constants that reach that place.
  // One socket per family when callers pass several (a helper making both AF_UNIX and AF_INET6
  // listeners): what is done to it is done to each, and each is judged by its own family.
  std::size_t count = creates.size();
  for (Id c = 0; c < count; ++c) {
    auto from = ConstantFrom.find(c);
    if (from == ConstantFrom.end())
      continue;
    auto [familyPlace, typePlace] = from->second;
    if (typePlace != kNone && creates[c].typeParam >= 0) {
      std::vector<int> types;
      for (int v : constantsAt(typePlace))
        if (v >= facts::kSocketTypeConstant)
          types.push_back(v - facts::kSocketTypeConstant);
      if (types.size() == 1) {
        creates[c].type = types[0];
        creates[c].typeParam = -1;
      }
    }
    if (familyPlace == kNone || (creates[c].familyParam < 0 && creates[c].familyFrom == kNone))
      continue;
    std::vector<int> families;
    for (int v : constantsAt(familyPlace))
      if (v < facts::kSocketTypeConstant)
        families.push_back(v);
    if (families.empty())
      continue;
    creates[c].familyParam = -1;
    creates[c].familyFrom = kNone;
    for (std::size_t i = 0; i < families.size(); ++i) {
      facts::Create made = creates[c];
      made.family = facts::familyFromValue(families[i]);
      made.familyName = facts::name(made.family);
      if (families.size() > 1)
        made.origin += " (called with " + made.familyName + ")";
      if (i == 0) {
        creates[c] = made;
        continue;
      }
      for (auto &[original, clones] : ClonesOf)
        if (llvm::is_contained(clones, c))
          clones.push_back(creates.size());
      creates.push_back(made);
    }
  }
}

std::vector<Id> Program::throughPointer(Id place) const {
  std::vector<Id> out;
  if (place == kNone)
    return out;
  Id root = place;
  while (root != kNone && (places[root].kind == facts::PlaceKind::Member || places[root].kind == facts::PlaceKind::Element))
    root = places[root].base;
  if (root == kNone || places[root].kind != facts::PlaceKind::Deref)
    return out;
  std::string suffix = places[place].key.substr(places[root].key.size());
  for (Id object : objectsAt(places[root].base))
    if (Id there = placeByKey(places[object].key + suffix); there != kNone)
      out.push_back(there);
  return out;
}

void Program::resolveObjects() {
  // Function values get ids after every object, so objects found later are numbered first:
  // function values are kept apart as FunctionValues and renumbered into the sets each round.
  for (const facts::Points &pt : points)
    if (pt.target != kNone)
      addressValue(pt.target);
  // Flows into places reached through a pointer are stores: they go to the store side. A
  // registration that hands a callback its fd in a struct (pfd->fd) says what the callback reads.
  std::size_t count = flows.size();
  for (Id f = 0; f < count; ++f) {
    Id to = flows[f].to;
    if (derefRoot(to) == kNone || to == derefRoot(to))
      continue;
    if (flows[f].kind == facts::FlowKind::Callback) {
      RegisteredMembers.insert(to);
      continue;
    }
    flows[f].to = storeSide(to);
  }
  for (facts::Create &c : creates)
    if (derefRoot(c.place) != kNone && c.place != derefRoot(c.place)) {
      Id side = storeSide(c.place);
      CreatedPlaces.insert(side);
      c.place = side;
      if (c.peer != kNone)
        c.peer = storeSide(c.peer);
    }
  // An object written by code we cannot see (untracked: epoll_wait()'s events, or through a
  // pointer from outside) holds in its fields what any object of its record may.
  for (Id p = 0, n = places.size(); p < n; ++p) {
    if (places[p].kind != facts::PlaceKind::Member && places[p].kind != facts::PlaceKind::Element)
      continue;
    bool outside = false;
    for (Id at = places[p].base; at != kNone && !outside; at = places[at].base) {
      outside = Untracked.count(at) != 0;
      if (places[at].kind != facts::PlaceKind::Member && places[at].kind != facts::PlaceKind::Element)
        break;
    }
    Id shared = outside ? unknownCounterpart(p) : kNone;
    if (shared != kNone && shared != p)
      addDerived(shared, p, facts::FlowKind::Resolved, kNone, true);
  }
  // Every store into a field also reaches the field's place for every object of its record: what a
  // pointer from outside may read.
  for (Id p = 0, n = places.size(); p < n; ++p) {
    const facts::Place &at = places[p];
    if (at.kind != facts::PlaceKind::Member && at.kind != facts::PlaceKind::Element)
      continue;
    Id shared = unknownCounterpart(p);
    if (shared != kNone && shared != p)
      addDerived(storeSide(p), shared, facts::FlowKind::Resolved, kNone, true);
  }
  findAccessors();
  for (Id c = 0; c < creates.size(); ++c) {
    const facts::Create &made = creates[c];
    Id fn = made.site == kNone ? kNone : sites[made.site].function;
    if (fn == kNone || (made.familyParam < 0 && made.typeParam < 0 && made.familyFrom == kNone) ||
        ConstantFrom.count(c))
      continue;
    ConstantFrom[c] = {made.familyParam >= 0 ? paramPlace(fn, static_cast<unsigned>(made.familyParam)) : made.familyFrom,
                       made.typeParam >= 0 ? paramPlace(fn, static_cast<unsigned>(made.typeParam)) : kNone};
  }
  // First what the program itself says; then pointers that may come from outside: parameters of
  // functions nobody in the program calls (after calls through pointers are found), values we
  // could not follow.
  // Last, parameters read through that still point nowhere: an address the analysis lost on the
  // way (a pointer to a pointer filled through a macro's statement expression, a cast it does not
  // follow) stands for any object, as the field's place of a per-type analysis does. So does a
  // local loaded from the field of an object the analysis cannot see (p = s->ports with s from
  // outside, a list head filled by a macro the model loses: systemd's LIST_PREPEND()): what the
  // field holds is what any store put there. Other locals that point nowhere join nothing in: an
  // iterator or reference into a local container (a range-for over a vector of pollfds) would
  // otherwise read every pollfd's fd.
  for (int phase = 0; phase < 3; ++phase) {
    SeedUnknown = phase >= 1;
    if (phase == 2) {
      // Only loads out of an object the analysis cannot see (reached through a pointer that
      // points to some unknown object): a load out of known objects that still points nowhere
      // reads nothing any store put there, and standing for any object would double the link's
      // work on large programs (PipeWire: 53 s to 142 s) for nothing.
      std::set<Id> loadedFromField;
      for (const facts::Flow &f : flows) {
        if (places[f.to].kind != facts::PlaceKind::Local || places[f.from].kind != facts::PlaceKind::Member)
          continue;
        Id root = derefRoot(f.from);
        bool unknown = false;
        if (root != kNone)
          objectsAt(places[root].base, &unknown);
        if (unknown)
          loadedFromField.insert(f.to);
      }
      for (Id p = 0; p < places.size(); ++p)
        if (places[p].kind == facts::PlaceKind::Deref) {
          Id pointer = places[p].base;
          // A parameter of a function whose calls its clones now serve points nowhere because no
          // call is left to hand it anything: the function's own facts stand for no call, not for
          // every object.
          bool param = pointer != kNone && places[pointer].kind == facts::PlaceKind::Param &&
                       !ServedByClones.count(places[pointer].function);
          bool lost = pointer != kNone && (param || loadedFromField.count(pointer));
          if (lost && Addresses.at(pointer).empty())
            LostPointers.push_back(pointer);
        }
      if (LostPointers.empty())
        break;
    }
    for (int round = 0; round < 64 && resolveRound(); ++round) {
    }
    if (phase == 0) {
      // A function the program calls through the pointers that hold it has callers we see: its
      // address does not escape to code we cannot see for that.
      for (const auto &[call, fn] : BoundCalls)
        functions[fn].addressEscapes = false;
      seedEscapedObjects();
    }
  }
  // An option named by a parameter is one only where it was lifted to a caller's constant.
  options.erase(std::remove_if(options.begin(), options.end(),
                               [](const facts::OptionSet &o) { return o.optionParam >= 0; }),
                options.end());
  specialiseFamilies();
  // socket(family, ...) of a parameter, in a function that is not cloned per call: the callers'
  // constant when they all agree.
  for (facts::Create &c : creates) {
    if (c.familyParam < 0 || c.site == kNone || sites[c.site].function == kNone)
      continue;
    std::set<std::int64_t> values;
    bool unknown = false;
    for (Id call : callsOf(sites[c.site].function)) {
      const std::vector<facts::Argument> &args = calls[call].args;
      if (static_cast<std::size_t>(c.familyParam) < args.size() && args[c.familyParam].number >= 0)
        values.insert(args[c.familyParam].number);
      else
        unknown = true;
    }
    if (values.size() == 1 && !unknown) {
      c.family = facts::familyFromValue(*values.begin());
      c.familyName = facts::name(c.family);
    }
  }
}

std::optional<int> Program::storedParam(Id source, Id fn) {
  if (std::optional<int> param = paramOf(source, fn))
    return param;
  Id root = derefRoot(source);
  if (root == kNone || root == source)
    return std::nullopt; // *p itself: what p points to is an object, not a value it holds
  return paramOf(places[root].base, fn);
}

Id Program::functionOfPath(Id place) {
  Id root = derefRoot(place);
  return root == kNone || places[root].base == kNone ? kNone : places[places[root].base].function;
}

std::optional<int> Program::paramOf(Id place, Id fn) const {
  const facts::Place &p = places[place];
  if (p.kind != facts::PlaceKind::Param || p.function != fn)
    return std::nullopt;
  return p.index; // -1: this
}

// Getters and setters, per call: a function that only returns what it reads through a parameter
// (int conn_fd(struct conn *c) { return c->fd; }, UnixSocket::fd() { return fd_; }) gives each
// caller what the objects it passes hold, and one that only stores a parameter through another
// (set_fd(c, fd), SetFd(fd) { fd_ = fd; }) stores each caller's value into that caller's objects.
// Without this every caller would read and write every caller's objects.
void Program::findAccessors() {
  const Graph incoming = flowsByPlace(/*into=*/true);
  std::set<Id> getters;
  for (Id fn = 0; fn < functions.size(); ++fn) {
    if (!functions[fn].defined)
      continue;
    Id ret = returnPlace(fn);
    if (ret == kNone || CreatedPlaces.count(ret) || Untracked.count(ret))
      continue;
    std::vector<Access> loads;
    bool other = false;
    std::set<Id> seen{ret};
    std::vector<Id> work{ret};
    while (!work.empty() && !other) {
      Id at = work.back();
      work.pop_back();
      for (Id e : incoming[at]) {
        Id from = flows[e].from;
        const facts::Place &pl = places[from];
        Id root = derefRoot(from);
        if (root != kNone && root != from && flows[e].kind != facts::FlowKind::Resolved) {
          std::optional<int> param = paramOf(places[root].base, fn);
          if (!param) {
            other = true;
            break;
          }
          loads.push_back({fn, *param, root, from, kNone});
          continue;
        }
        if (pl.function != fn || pl.kind == facts::PlaceKind::Param || Untracked.count(from) ||
            CreatedPlaces.count(from) || flows[e].kind == facts::FlowKind::Resolved) {
          other = true;
          break;
        }
        if (seen.insert(from).second)
          work.push_back(from);
      }
    }
    if (other || loads.empty())
      continue;
    getters.insert(fn);
    Accessors.insert(Accessors.end(), loads.begin(), loads.end());
  }
  // The functions only calls reach (not an event loop's callback, nor an address taken for
  // elsewhere): what a new kind of setter stores is made at calls only, so it is one only there.
  std::vector<bool> onlyCalled(functions.size(), false);
  for (const facts::Call &call : calls)
    if (call.callee != kNone)
      onlyCalled[call.callee] = true;
  for (const facts::Callback &callback : callbacks)
    if (callback.callee != kNone)
      onlyCalled[callback.callee] = false;
  for (Id fn = 0; fn < functions.size(); ++fn)
    if (functions[fn].addressEscapes)
      onlyCalled[fn] = false;
  // Setters: a parameter stored through another parameter (c->fd = fd; fd_ = fd), or what is
  // read through one (a move constructor's fd_ = std::exchange(other.fd_, -1)): per call, from
  // the objects that caller passes.
  for (Id f = 0; f < flows.size(); ++f) {
    const facts::Flow &flow = flows[f];
    if (!StoreSideIds.count(flow.to) || flows[f].kind == facts::FlowKind::Resolved)
      continue;
    Id fn = places[flow.from].function;
    if (fn == kNone)
      fn = functionOfPath(flow.from);
    std::optional<int> source = fn == kNone ? std::nullopt : storedParam(flow.from, fn);
    if (!source || (*source < 0 && places[flow.from].kind == facts::PlaceKind::Param))
      continue;
    if (places[flow.from].kind != facts::PlaceKind::Param && !onlyCalled[fn])
      continue;
    // The place the store side stands for, and the parameter it is reached through.
    Id target = StoreSideOf.count(flow.to) ? StoreSideOf[flow.to] : kNone;
    Id root = target == kNone ? kNone : derefRoot(target);
    std::optional<int> via = root == kNone ? std::nullopt : paramOf(places[root].base, fn);
    if (!via)
      continue;
    Accessors.push_back({fn, *via, root, target, flow.from});
    flows[f].from = flows[f].to; // the flow is made per call instead (a self-loop is inert)
  }
  forwardSetters(getters, onlyCalled);
  // A getter's own return no longer reaches its callers: each call gets what it reads.
  std::vector<facts::Flow> kept;
  kept.reserve(flows.size());
  for (const facts::Flow &f : flows) {
    if (f.from == f.to)
      continue;
    const facts::Place &from = places[f.from];
    if (f.kind == facts::FlowKind::Return && from.kind == facts::PlaceKind::Return && getters.count(from.function) &&
        llvm::StringRef(places[f.to].key).starts_with("v:r:"))
      continue;
    kept.push_back(f);
  }
  flows = std::move(kept);
  // Rebuilt, not patched: the passes before this one drop flows and retarget stores to their
  // store sides without telling FlowKeys, and a flow dropped may be derived anew later.
  FlowKeys.clear();
  for (const facts::Flow &f : flows)
    FlowKeys.insert(flowKey(f.from, f.to, f.kind, f.exact));
}

// Setters through setters: a function that hands its parameter to a setter, for an object it
// reaches through another parameter of its own, is a setter of that path too (a constructor
// initialising a member object, Handle(int fd) : data_(fd) {}; wrap(c, fd) { set_fd(c, fd); }).
// Its calls then store per call, and the inner call stores nothing of its own: it would store
// every caller's value into every caller's object. Rounds until nothing new, as deep as
// kMaxForwardedSetters (a setter of a setter of a setter...).
void Program::forwardSetters(const std::set<Id> &getters, const std::vector<bool> &onlyCalled) {
  constexpr int kMaxForwardedSetters = 4;
  // The value of each call of a getter: what that call reads (rvalue.release() in a move
  // constructor reads the moved-from object's fd).
  // (Copies: the loop below adds to Accessors.)
  std::map<Id, std::pair<const facts::Call *, Access>> getterCalls;
  {
    std::map<Id, Access> loadOf;
    for (const Access &a : Accessors)
      if (a.source == kNone && getters.count(a.function))
        loadOf.emplace(a.function, a);
    for (const facts::Call &call : calls)
      if (auto load = loadOf.find(call.callee); load != loadOf.end()) {
        const facts::Site &site = sites[call.site];
        if (Id value = placeByKey(facts::callValueKey(functions[call.callee].key, files[site.file], site.offset));
            value != kNone)
          getterCalls[value] = {&call, load->second};
      }
  }
  // `place` (a path below `deref`) read from the object `through`: the caller's place for it,
  // if that is a path from one of the caller's parameters.
  auto pathFromCaller = [&](Id place, Id deref, Id through, Id caller) -> Id {
    Id from = counterpart(place, deref, through);
    Id root = from == kNone ? kNone : derefRoot(from);
    return root != kNone && root == derefRoot(through) && paramOf(places[root].base, caller) ? from : kNone;
  };
  std::size_t from = 0;
  for (int round = 0; round < kMaxForwardedSetters && from < Accessors.size(); ++round) {
    std::map<Id, std::vector<std::size_t>> setters; // function -> its setters found last round
    for (std::size_t i = from; i < Accessors.size(); ++i)
      if (Accessors[i].source != kNone)
        setters[Accessors[i].function].push_back(i);
    from = Accessors.size();
    for (const facts::Call &call : calls) {
      auto it = setters.find(call.callee);
      Id caller = call.caller;
      if (it == setters.end() || caller == kNone || caller == call.callee || !functions[caller].defined ||
          !onlyCalled[caller])
        continue;
      for (std::size_t i : it->second) {
        const Access a = Accessors[i]; // a copy: push_back below may move the table
        Id object = call.argumentPlace(a.param) == kNone ? kNone : derefOf(call.argumentPlace(a.param));
        Id root = object == kNone ? kNone : derefRoot(object);
        std::optional<int> via = root == kNone ? std::nullopt : paramOf(places[root].base, caller);
        if (!via)
          continue;
        // What the caller stores: its own parameter, a path from one (other.fd_), or what a
        // getter's call reads from one (other.release()).
        Id value = kNone;
        if (places[a.source].kind == facts::PlaceKind::Param) {
          Id passed = call.argumentPlace(places[a.source].index);
          if (passed == kNone)
            continue;
          if (std::optional<int> param = paramOf(passed, caller)) {
            if (*param >= 0) // (`this` itself stored is an address, not what a setter keeps)
              value = passed;
          } else if (storedParam(passed, caller)) {
            value = passed;
          } else if (auto getter = getterCalls.find(passed); getter != getterCalls.end()) {
            const auto [read, load] = getter->second;
            if (Id pointer = read->argumentPlace(load.param); pointer != kNone)
              value = pathFromCaller(load.place, load.deref, derefOf(pointer), caller);
          }
        } else if (Id sourceRoot = derefRoot(a.source); sourceRoot != kNone) {
          // A path from another of the setter's parameters: the same path from the caller's.
          Id pointer = call.argumentPlace(places[places[sourceRoot].base].index);
          if (pointer != kNone)
            value = pathFromCaller(a.source, sourceRoot, derefOf(pointer), caller);
        }
        if (value == kNone)
          continue;
        // (A path too long, or of a field the object's record lacks, is a per-type place: not
        // reached through the parameter, so nothing this function stores per call.)
        Id target = counterpart(a.place, a.deref, object);
        if (target == kNone || derefRoot(target) != root)
          continue;
        Accessors.push_back({caller, *via, root, target, value});
        ForwardedStores.insert({call.site, i});
      }
    }
  }
}

void Program::instantiateAccessors() {
  if (Accessors.empty())
    return;
  std::map<Id, std::vector<const Access *>> byFunction;
  for (const Access &a : Accessors)
    byFunction[a.function].push_back(&a);
  // An object a setter takes by value (Session(std::unique_ptr<Transport> t) : t_(std::move(t)))
  // is not an argument's place: the call copies it into the parameter by flows of its own, which
  // carry no site. Those from the calling function stand for what its calls store (two such calls
  // in one function share them; every caller's, as the parameter has them, would join the program).
  std::map<std::pair<Id, Id>, std::vector<Id>> copiedIn; // (parameter, calling function) -> copies
  {
    // (A mark per place, not a set: this scans every flow in every round.)
    std::vector<bool> byValue(places.size(), false);
    bool any = false;
    for (const Access &a : Accessors)
      if (a.source != kNone && places[a.source].kind == facts::PlaceKind::Param)
        byValue[a.source] = any = true;
    if (any)
      for (const facts::Flow &f : flows)
        if (f.kind == facts::FlowKind::Argument && f.to < byValue.size() && byValue[f.to] &&
            places[f.from].function != kNone)
          copiedIn[{f.to, places[f.from].function}].push_back(f.from);
  }
  // `clone`: the index of a clone's call in ClonedCalls (-1: a program call), whose site it shares.
  auto instantiate = [&](const facts::Call &call, Id value, long clone) {
    auto it = byFunction.find(call.callee);
    if (it == byFunction.end())
      return;
    for (const Access *a : it->second) {
      if (ForwardedStores.count({call.site, static_cast<std::size_t>(a - Accessors.data())}))
        continue;
      Id pointer = call.argumentPlace(a->param);
      if (Addresses.at(pointer).empty())
        continue;
      Id stored = kNone;
      const std::vector<Id> *copies = nullptr;
      std::vector<Id> readFrom; // a setter of a path (other.fd_): that path of each object passed
      if (Id sourceRoot = a->source == kNone ? kNone : derefRoot(a->source); sourceRoot != kNone) {
        int index = places[places[sourceRoot].base].index;
        Id from = call.argumentPlace(index);
        if (from == kNone)
          continue;
        for (Id v : Addresses.at(from))
          if (v == kUnknownObject || v < ObjectPlaces.size())
            if (Id there = v == kUnknownObject ? unknownCounterpart(a->source)
                                               : counterpart(a->source, sourceRoot, ObjectPlaces[v]);
                there != kNone)
              readFrom.push_back(there);
        if (readFrom.empty())
          continue;
        copies = &readFrom;
      } else if (a->source != kNone) { // a setter: what this caller passes for the stored parameter
        int index = places[a->source].index;
        if (index < 0 || static_cast<std::size_t>(index) >= call.args.size() ||
            call.args[index].mode == facts::ArgMode::Constant)
          continue;
        stored = call.args[index].place;
        if (stored == kNone && call.args[index].mode == facts::ArgMode::None)
          if (auto copied = copiedIn.find({a->source, call.caller}); copied != copiedIn.end())
            copies = &copied->second;
        if (stored == kNone && !copies)
          continue;
      } else if (value == kNone) {
        continue;
      }
      // Several places copied to several objects meet in one place of the call first: the flows
      // grow as their sum, not their product (a copy between two pointers to 256 objects each).
      if (copies && copies->size() > 1) {
        const facts::Site &site = sites[call.site];
        std::string key = facts::setterCopyKey(places[a->source].key, files[site.file], site.offset);
        if (clone >= 0)
          key += "#" + std::to_string(clone);
        std::string name = places[a->source].name; // a copy: interning may move the table
        Id copy = internPlace(key, facts::PlaceKind::Value, name, kNone, -1, kNone);
        for (Id from : *copies)
          addDerived(from, copy, facts::FlowKind::Argument, call.site, true);
        stored = copy;
        copies = nullptr;
      }
      for (Id v : Addresses.at(pointer)) {
        if (v != kUnknownObject && v >= ObjectPlaces.size())
          continue;
        Id there = v == kUnknownObject ? unknownCounterpart(a->place) : counterpart(a->place, a->deref, ObjectPlaces[v]);
        if (there == kNone)
          continue;
        if (a->source != kNone) {
          for (Id from : copies ? *copies : std::vector<Id>{stored}) {
            addDerived(from, storeSide(there), facts::FlowKind::Argument, call.site, true);
            SetterVia[{from, storeSide(there)}] = a->source;
          }
        } else
          addDerived(there, value, facts::FlowKind::Return, call.site, true);
      }
    }
  };
  for (const facts::Call &call : calls) {
    if (!byFunction.count(call.callee))
      continue;
    const facts::Site &site = sites[call.site];
    instantiate(call,
                placeByKey(call.target != kNone ? facts::indirectValueKey(files[site.file], site.offset)
                                                : facts::callValueKey(functions[call.callee].key, files[site.file],
                                                                      site.offset)),
                -1);
  }
  for (std::size_t i = 0; i < ClonedCalls.size(); ++i)
    instantiate(ClonedCalls[i].call, ClonedCalls[i].value, static_cast<long>(i));
}

// An option whose name (and value) a helper takes as parameters (SetFlag(level, option, on)):
// one option per call that passes SO_PASSCRED (or SO_PASSSEC, SO_PASSPIDFD), at the call, on
// the caller's socket. A caller that passes its own parameter on is lifted again, to its callers.
void Program::liftOptions() {
  const std::size_t extracted = options.size();
  for (std::size_t i = 0; i < options.size(); ++i) {
    if (options[i].optionParam < 0)
      continue;
    const facts::OptionSet option = options[i];
    Id fn = sites[option.site].function;
    if (fn == kNone)
      continue;
    // The program's calls, and their copies in the clones of their callers (on the clones' places,
    // named as the program's call is: a copy keeps no texts).
    std::vector<std::pair<const facts::Call *, const facts::Call *>> reaching; // (as written, on places)
    for (Id c : callsOf(fn))
      reaching.push_back({&calls[c], &calls[c]});
    for (const ClonedCall &copy : ClonedCalls)
      if (copy.call.callee == fn)
        for (Id c : callsOf(fn))
          if (calls[c].site == copy.call.site)
            reaching.push_back({&calls[c], &copy.call});
    for (const auto &[written, onPlaces] : reaching) {
      const facts::Call &call = *onPlaces;
      if (static_cast<std::size_t>(option.optionParam) >= call.args.size())
        continue;
      const facts::Argument &name = call.args[option.optionParam];
      std::optional<facts::Option> named =
          name.number >= 0 ? facts::optionFromValue(name.number) : std::nullopt;
      if (!named && name.param < 0)
        continue;
      int levelParam = -1;
      if (option.levelParam >= 0 && static_cast<std::size_t>(option.levelParam) < call.args.size()) {
        const facts::Argument &level = call.args[option.levelParam];
        if (level.number >= 0 && level.number != kernel::kSolSocket)
          continue; // socket_set_option(fd, af, IP_TTL, IPV6_UNICAST_HOPS, ...): 16 at IPPROTO_IPV6
        levelParam = level.number < 0 ? level.param : -1;
      }
      // A wrapper call the extractor already took for an option (it names the constant and passes
      // an fd) is that option.
      const facts::Site &callSite = sites[call.site];
      bool known = false; // (not one lifted here: each copy of a call in a clone is lifted too)
      for (std::size_t o = 0; o < extracted; ++o)
        known |= sites[options[o].site].file == callSite.file && sites[options[o].site].offset == callSite.offset;
      if (known)
        continue;
      facts::OptionSet lifted = option;
      lifted.site = call.site;
      lifted.throughWrapper = true;
      lifted.optionParam = named ? -1 : name.param;
      lifted.levelParam = named ? -1 : levelParam;
      if (named)
        lifted.option = *named;
      lifted.valueParam = -1;
      if (option.valueParam >= 0 && static_cast<std::size_t>(option.valueParam) < call.args.size()) {
        const facts::Argument &value = call.args[option.valueParam];
        lifted.value = value.number >= 0 ? (value.number ? facts::Tri::True : facts::Tri::False) : facts::Tri::Maybe;
        if (value.number < 0 && value.param >= 0)
          lifted.valueParam = value.param;
      }
      lifted.statement = statementAt(call.site);
      // The socket: what the caller passes for the parameter the option is set on, or the same
      // member of the objects it passes.
      std::vector<Id> placesThere;
      Id root = derefRoot(option.place);
      const facts::Place at = places[root != kNone ? places[root].base : option.place];
      if (at.kind == facts::PlaceKind::Param && at.function == fn) {
        Id arg = call.argumentPlace(at.index);
        if (arg == kNone)
          continue;
        // The same path from what the caller passes: c->fd of the callee is arg->fd of the
        // caller, resolved like any place reached through a pointer (and lifted again when the
        // caller passes its own parameter on).
        if (root == kNone)
          placesThere.push_back(arg);
        else
          placesThere.push_back(counterpart(option.place, root, derefOf(arg)));
      } else {
        placesThere.push_back(option.place);
      }
      // The socket as the caller names it, for messages.
      if (at.kind == facts::PlaceKind::Param && at.function == fn) {
        const facts::Argument *named = at.index < 0 ? &written->receiver
                                       : static_cast<std::size_t>(at.index) < written->args.size() ? &written->args[at.index]
                                                                                                  : nullptr;
        if (named) {
          facts::Site copy = callSite;
          copy.text = root == kNone ? named->text : sites[option.site].text;
          copy.var = named->var;
          auto [id, fresh] = siteAt(copy.file, copy.offset, copy.text);
          if (fresh)
            sites.push_back(copy);
          lifted.site = id;
        }
      }
      for (Id place : placesThere) {
        if (place == kNone)
          continue;
        lifted.place = place;
        if (OptionKeys.insert({lifted.site, lifted.place}).second)
          options.push_back(lifted);
      }
    }
  }
}

Id Program::statementAt(Id site) const {
  // The innermost statement of the program that holds the site.
  const facts::Site &s = sites[site];
  Id best = kNone;
  for (Id i = 0; i < statements.size(); ++i) {
    const facts::Statement &st = statements[i];
    if (st.file == s.file && st.begin <= s.offset && s.offset < st.end &&
        (best == kNone || st.end - st.begin < statements[best].end - statements[best].begin))
      best = i;
  }
  return best;
}

bool Program::resolveRound() {
  std::size_t n = places.size();
  if (DerefRoots.size() < n)
    DerefRoots.resize(n, kNone + 1);
  // Seeds: objects where their address is taken, functions where they are named. (Ids made
  // first: makeGraph() asks for the seeds twice.)
  std::vector<Id> objectOfPoints(points.size(), kNone), functionOfPoints(points.size(), kNone);
  for (Id i = 0; i < points.size(); ++i)
    if (points[i].target != kNone)
      objectOfPoints[i] = addressValue(points[i].target);
  Id base = ObjectPlaces.size();
  for (Id i = 0; i < points.size(); ++i)
    if (points[i].function != kNone) {
      auto [it, fresh] = FunctionValueIds.try_emplace(points[i].function, FunctionValues.size());
      if (fresh)
        FunctionValues.push_back(points[i].function);
      functionOfPoints[i] = base + it->second;
    }
  std::vector<bool> called;
  if (SeedUnknown)
    called = calledFunctions();
  const Graph seeds = makeGraph(n, [&](auto add) {
    for (Id i = 0; i < points.size(); ++i) {
      const facts::Points &pt = points[i];
      if (objectOfPoints[i] != kNone)
        add(pt.place, objectOfPoints[i]);
      if (pt.constant >= 0)
        add(pt.place, kConstantBase + static_cast<Id>(pt.constant));
      if (functionOfPoints[i] != kNone)
        add(pt.place, functionOfPoints[i]);
    }
    for (Id p = 0; p < AddressSeeds.size() && p < n; ++p)
      for (Id value : AddressSeeds[p])
        add(p, value);
    if (!SeedUnknown)
      return;
    // (A place may get kUnknownObject twice: propagateSets sorts and dedupes seeds.)
    for (Id p : Untracked)
      if (p < n)
        add(p, kUnknownObject);
    for (Id p = 0; p < n; ++p) {
      const facts::Place &at = places[p];
      if (at.kind == facts::PlaceKind::Param && at.function != kNone &&
          (!called[at.function] || functions[at.function].addressEscapes))
        add(p, kUnknownObject);
    }
    for (Id p : LostPointers)
      if (p < n)
        add(p, kUnknownObject);
  });
  const Graph out = makeGraph(n, [&](auto add) {
    for (const facts::Flow &f : flows)
      add(f.from, f.to);
  });
  // Object ids above were fixed before function ids were: keep them apart in the sets (function
  // ids are `base + i`, objects found this round get ids >= base only next round).
  Addresses = propagateSets(out, seeds, {base, kMaxObjectsPerPointer, kUnknownObject, &widenedPointerSets});
  // Renumber function values past the objects this round knows of; objects added below get new
  // ids, so function values are told apart by FunctionBase next time.
  std::size_t flowsBefore = flows.size(), callsBefore = calls.size(), optionsBefore = options.size();
  // (Addresses is set once a round, above: what this refers to stays while the round runs.)
  auto valuesAt = [&](Id place) -> llvm::ArrayRef<Id> { return Addresses.at(place); };
  // Places reached through a pointer: the same place of each object it points to.
  auto scanChildren = [&] {
    for (; ChildrenScanned < places.size(); ++ChildrenScanned) {
      Id p = ChildrenScanned;
      if (places[p].kind == facts::PlaceKind::Deref && !DerefChildren.count(p)) {
        Derefs.push_back(p);
        DerefChildren[p];
      }
      Id root = derefRoot(p);
      if (root != kNone && root != p && places[p].key.back() != '=')
        DerefChildren[root].push_back(p);
    }
  };
  scanChildren();
  // The addresses of members of what a pointer points to (&p->sub), by that pointer's deref: asked
  // for every object of every deref below, so indexed once a round.
  std::unordered_map<Id, std::vector<Id>> memberAddressesUnder;
  for (Id i = 0; i < points.size(); ++i)
    if (points[i].target != kNone)
      if (Id root = derefRoot(points[i].target); root != kNone)
        memberAddressesUnder[root].push_back(i);
  for (std::size_t d = 0; d < Derefs.size(); ++d) {
    Id deref = Derefs[d];
    Id pointer = places[deref].base;
    std::vector<Id> &children = DerefChildren[deref];
    for (Id v : valuesAt(pointer)) {
      if (v != kUnknownObject && v >= base)
        continue; // a function or a constant
      std::size_t &done = ResolvedDerefs[{deref, v}];
      Id object = v == kUnknownObject ? kNone : ObjectPlaces[v];
      // A load of the whole value (c = *it over a vector of pointers, a pointer to a pointer)
      // reads what the object holds. (A store `*pp = c` is an out-parameter's element, not this.)
      if (object != kNone && object != deref)
        addDerived(object, deref, facts::FlowKind::Resolved, kNone, true);
      for (; done < children.size(); ++done) {
        Id child = children[done];
        if (RegisteredMembers.count(child))
          continue; // what a registration hands the callback (pfd->fd), not every object's
        Id there = object == kNone ? unknownCounterpart(child) : counterpart(child, deref, object);
        if (there == kNone || there == child)
          continue;
        addDerived(storeSide(child), storeSide(there), facts::FlowKind::Resolved, kNone, true);
        addDerived(there, child, facts::FlowKind::Resolved, kNone, true);
        LoadVia[{there, child}] = {deref, v};
      }
      // The address of a member of what the pointer points to (&p->sub) is that member's.
      if (object != kNone)
        for (Id i : memberAddressesUnder[deref]) {
            const facts::Points pt = points[i]; // a copy: counterpart() may add places, not points
            Id there = counterpart(pt.target, deref, object);
            if (there == kNone)
              continue;
            Id value = addressValue(there);
            if (AddressSeeds.size() <= pt.place)
              AddressSeeds.resize(places.size());
            if (!llvm::is_contained(AddressSeeds[pt.place], value))
              AddressSeeds[pt.place].push_back(value);
          }
    }
    scanChildren(); // counterparts made above may be children of this or another Deref
  }
  // container_of(p, T, member): for each object p points to that is that member of an object,
  // the address of that object.
  bool containersSeeded = false;
  for (const facts::ContainerOf &c : containers) {
    std::string suffix = "." + c.member;
    bool unnamed = false;
    for (Id v : valuesAt(c.pointer)) {
      if (v != kUnknownObject && v >= base)
        continue; // a function or a constant
      Id whole = kNone;
      if (v != kUnknownObject) {
        llvm::StringRef key = places[ObjectPlaces[v]].key;
        if (key.consume_back(suffix))
          whole = placeByKey(key);
        if (Id root = whole == kNone ? kNone : derefRoot(whole); root != kNone) {
          // *q.member: the objects q points to are in this set too, as their members.
          bool unknown = false;
          if (!objectsAt(places[root].base, &unknown).empty() && !unknown)
            continue;
          whole = kNone;
        }
      }
      if (whole == kNone) {
        unnamed = true;
        continue;
      }
      Id value = addressValue(whole);
      if (AddressSeeds.size() <= c.place)
        AddressSeeds.resize(places.size());
      if (!llvm::is_contained(AddressSeeds[c.place], value)) {
        AddressSeeds[c.place].push_back(value);
        containersSeeded = true;
      }
    }
    // Where no object can be named for some value (some object we cannot see, a member of one
    // reached through a pointer that points nowhere known, something that is no such member),
    // the pointer's own values flow on too: a field read through one finds no place below it and
    // reads its record's field, what every object of the record holds, as a per-type analysis
    // does. (A flow, not seeds of the unknown object or of each value: on haproxy's lists the
    // unknown object cost 58% more CPU, and seeds, sets not shared, tripled unit's memory.)
    if (unnamed)
      addDerived(c.pointer, c.place, facts::FlowKind::Resolved, kNone, true);
  }
  instantiateAccessors();
  liftOptions();
  // Calls through pointers: every function that reaches the pointer.
  for (Id i = 0; i < indirectCalls.size(); ++i) {
    const facts::Call &call = indirectCalls[i];
    for (Id v : valuesAt(call.target)) {
      if (v == kUnknownObject || v >= kConstantBase || v < base || v - base >= FunctionValues.size())
        continue;
      Id fn = FunctionValues[v - base];
      if (!BoundCalls.insert({i, fn}).second)
        continue;
      facts::Call bound = call;
      bound.callee = fn;
      deriveCallFlows(bound);
      const facts::Site &site = sites[call.site];
      Id value = placeByKey(facts::indirectValueKey(files[site.file], site.offset));
      Id ret = returnPlace(fn);
      if (value != kNone && ret != kNone)
        addDerived(ret, value, facts::FlowKind::Return, call.site, true);
      // Object results come back member by member (a copy: counterpart() adds places, and
      // so members to the index).
      if (value != kNone && ret != kNone)
        for (Id p : std::vector<Id>(membersOf(ret)))
          addDerived(p, counterpart(p, ret, value), facts::FlowKind::Return, call.site, true);
      if (CallKeys.try_emplace(std::make_pair(bound.site, bound.callee), static_cast<Id>(calls.size())).second)
        calls.push_back(std::move(bound));
    }
  }
  // Objects found this round change what function value ids mean: a new round renumbers.
  return flows.size() != flowsBefore || calls.size() != callsBefore || ObjectPlaces.size() > base ||
         options.size() != optionsBefore || containersSeeded;
}

const std::vector<Id> &Program::membersOf(Id base) {
  // A place's kind and base never change once it is made: index the places made since last time.
  for (; MembersIndexed < places.size(); ++MembersIndexed)
    if (places[MembersIndexed].kind == facts::PlaceKind::Member && places[MembersIndexed].base != kNone)
      MembersByBase[places[MembersIndexed].base].push_back(MembersIndexed);
  auto it = MembersByBase.find(base);
  return it == MembersByBase.end() ? none() : it->second;
}

// ---------------------------------------------------------------------------------------------
// Origins of what nobody in the program writes

void Program::addRoots() {
  std::size_t n = places.size();
  Incoming = flowsByPlace(/*into=*/true);
  Outgoing = flowsByPlace(/*into=*/false);
  std::vector<bool> created(n, false);
  for (const facts::Create &c : creates)
    created[c.place] = true;
  // Only places that lead to a fact need an origin.
  std::vector<bool> relevant(n, false);
  std::vector<Id> work;
  auto mark = [&](Id id) {
    if (id != kNone && !relevant[id]) {
      relevant[id] = true;
      work.push_back(id);
    }
  };
  forEachFactPlace(mark);
  for (const facts::Call &c : calls)
    for (const facts::Argument &a : c.args)
      if (a.mode == facts::ArgMode::Value)
        mark(a.place); // wrapper expansion resolves arguments
  while (!work.empty()) {
    Id id = work.back();
    work.pop_back();
    for (Id e : Incoming[id])
      mark(flows[e].from);
  }
  // The roots first, then their origins in one allocation: a Create is large, and a 100,000-file
  // link has hundreds of thousands of roots (growing by doubling moved them a quarter of this).
  auto escapes = [&](const facts::Place &place) {
    return place.kind == facts::PlaceKind::Param && place.function != kNone &&
           functions[place.function].addressEscapes;
  };
  std::vector<Id> roots;
  for (Id id = 0; id < n; ++id) {
    if (!relevant[id] || created[id])
      continue;
    const facts::Place &place = places[id];
    if (StoreSideIds.count(id))
      continue; // a store side: what is stored through a pointer, nothing of its own
    // A member of an object holds what is stored in it: with nothing stored, nothing (a pointer
    // from outside reads the record's field place, which is a root).
    // The return of a function defined in the program that nothing flows into returns no fd:
    // its return statements give constants and negated values (-errno) only; a value the
    // extractor could not follow would have made it untracked.
    bool returnsNothing = place.kind == facts::PlaceKind::Return && place.function != kNone &&
                          functions[place.function].defined;
    // A parameter of a function whose calls its clones serve gets nothing from outside: no call
    // is left to hand it anything (see ServedByClones).
    bool servedParam = place.kind == facts::PlaceKind::Param && place.function != kNone &&
                       ServedByClones.count(place.function);
    bool root = Incoming[id].empty() && !Written.count(id) && !servedParam && place.kind != facts::PlaceKind::Local &&
                place.kind != facts::PlaceKind::Element && place.kind != facts::PlaceKind::Value &&
                place.kind != facts::PlaceKind::Member && place.kind != facts::PlaceKind::Deref &&
                place.kind != facts::PlaceKind::Object && !returnsNothing;
    if (root || Untracked.count(id) || escapes(place))
      roots.push_back(id);
  }
  creates.reserve(creates.size() + roots.size());
  for (Id id : roots) {
    const facts::Place &place = places[id];
    facts::Create c;
    c.place = id;
    if (place.kind == facts::PlaceKind::Param && place.function != kNone &&
        !Called[place.function] && !escapes(place) && !Untracked.count(id)) {
      c.how = facts::CreateHow::Parameter;
      c.origin = "parameter '" + place.name + "' of " + functions[place.function].name +
                 "(), which has no caller in the program";
    } else {
      c.how = facts::CreateHow::Unknown;
      c.origin = "'" + place.name + "', whose value comes from elsewhere";
    }
    creates.push_back(std::move(c));
  }
}

// ---------------------------------------------------------------------------------------------
// Propagation over strongly connected components, in topological order; components that only
// pass on what one predecessor holds share its set.

namespace {
// Iterative Tarjan: components in reverse topological order (sinks first).
Components components(const Graph &out) {
  const std::size_t n = out.size();
  std::vector<int> indexOf(n, -1), low(n, 0);
  std::vector<bool> onStack(n, false);
  std::vector<Id> stack;
  Components result;
  result.of.assign(n, 0);
  result.members.targets.reserve(n);
  int counter = 0;
  struct Frame {
    Id node;
    std::size_t next;
  };
  std::vector<Frame> frames;
  for (Id start = 0; start < n; ++start) {
    if (indexOf[start] >= 0)
      continue;
    frames.push_back({start, 0});
    indexOf[start] = low[start] = counter++;
    stack.push_back(start);
    onStack[start] = true;
    while (!frames.empty()) {
      Frame &frame = frames.back();
      llvm::ArrayRef<Id> successors = out.of(frame.node);
      if (frame.next < successors.size()) {
        Id to = successors[frame.next++];
        if (indexOf[to] < 0) {
          indexOf[to] = low[to] = counter++;
          stack.push_back(to);
          onStack[to] = true;
          frames.push_back({to, 0});
        } else if (onStack[to]) {
          low[frame.node] = std::min(low[frame.node], indexOf[to]);
        }
        continue;
      }
      Id node = frame.node;
      frames.pop_back();
      if (!frames.empty())
        low[frames.back().node] = std::min(low[frames.back().node], low[node]);
      if (low[node] == indexOf[node]) {
        Id component = static_cast<Id>(result.size());
        Id member;
        do {
          member = stack.back();
          stack.pop_back();
          onStack[member] = false;
          result.members.targets.push_back(member);
          result.of[member] = component;
        } while (member != node);
        result.members.offsets.push_back(static_cast<Id>(result.members.targets.size()));
      }
    }
  }
  return result;
}
} // namespace

void Program::propagate() {
  std::size_t n = places.size();
  const Graph createdAt = makeGraph(n, [&](auto add) {
    for (Id c = 0; c < creates.size(); ++c)
      add(creates[c].place, c);
  });
  auto run = [&](bool exactOnly, PlaceSets &result) {
    const Graph out = makeGraph(n, [&](auto add) {
      for (const facts::Flow &f : flows)
        if (!exactOnly || f.exact)
          add(f.from, f.to);
    });
    result = propagateSets(out, createdAt);
  };
  run(false, Origins);
  run(true, Exact);
  keepLibrariesApart(Origins);
  keepLibrariesApart(Exact);
}

// fds received with SCM_RIGHTS (facts::Received) are, besides what other programs send, what
// this one sends to the socket they are read from: over the other end of a socketpair() (a
// process and its forked child), or between the clients of an address (connect(), sendto()) and
// the server bound to it or the connections accepted there, paired as the credential rules pair
// them. A flow from each such payload into the received value, then propagation again: a received
// socket may itself carry fds (two rounds at most). Not followed: addresses built at run time.
void Program::linkReceivedFds() {
  if (received.empty() || payloads.empty())
    return;
  // The functions that handle one message with a function: those it hands its msghdr or
  // cmsghdr to (a recvmsg()/sendmsg() wrapper) and those that hand it theirs (a parsing or
  // building helper), transitively, up to a bound.
  std::vector<std::vector<Id>> sharing(functions.size());
  auto share = [&](Id a, Id b) {
    sharing[a].push_back(b);
    sharing[b].push_back(a);
  };
  for (Id f = 0; f < functions.size(); ++f)
    for (Id callee : functions[f].controlCallees)
      share(f, callee);
  for (const facts::Call &c : calls)
    if (c.passesControl && c.caller != kNone)
      share(c.caller, c.callee);
  auto handling = [&](Id function) {
    if (function == kNone)
      return std::set<Id>();
    std::set<Id> out{function};
    std::vector<Id> work{function};
    while (!work.empty() && out.size() < 64) {
      Id f = work.back();
      work.pop_back();
      for (Id other : sharing[f])
        if (out.insert(other).second)
          work.push_back(other);
    }
    return out;
  };
  auto functionOf = [&](Id site) { return site == kNone ? kNone : sites[site].function; };
  for (int round = 0; round < 2; ++round) {
    // Peers as the credential rules pair them (Queries.h): a server's clients by the address they
    // connect or send to, a client's servers by the one it names, with callers' constants.
    CredentialQueries queries(*this);
    auto peersOf = [&](Id origin, std::set<Id> &peers) {
      const facts::Create &c = creates[origin];
      if (c.how == facts::CreateHow::Socketpair && c.peer != kNone)
        for (Id other : originsOf(c.peer))
          peers.insert(other);
      if (c.how == facts::CreateHow::Accept && c.listener != kNone) {
        for (Id listener : listenersOf(c))
          for (const Client &client : clientsOf(*this, queries, listener))
            peers.insert(client.origin);
        return;
      }
      for (Id server : serversOf(*this, queries, origin)) {
        peers.insert(server); // a datagram server
        for (Id accepted : queries.acceptedFrom(server))
          peers.insert(accepted);
      }
    };
    // Where each payload goes: the origins of the channels of the sends that handle its message.
    std::vector<std::set<Id>> sentOver(payloads.size());
    for (Id i = 0; i < payloads.size(); ++i) {
      std::set<Id> senders = handling(functionOf(payloads[i].site));
      for (const facts::Send &s : sends)
        if (senders.count(functionOf(s.site)))
          for (Id origin : originsOf(s.channel))
            sentOver[i].insert(origin);
    }
    // A payload of many fds (an array, a vector, through a pointer): each element's place.
    std::vector<std::vector<Id>> elementsOf;
    auto sources = [&](const facts::Payload &pl) {
      if (!pl.many)
        return std::vector<Id>{pl.place};
      if (elementsOf.empty()) {
        elementsOf.resize(places.size());
        for (Id p = 0; p < places.size(); ++p)
          if (places[p].base != kNone && places[p].kind == facts::PlaceKind::Element)
            elementsOf[places[p].base].push_back(p);
      }
      std::vector<Id> arrays = throughPointer(pl.place), out;
      arrays.push_back(pl.place);
      for (Id array : arrays)
        if (array < elementsOf.size())
          llvm::append_range(out, elementsOf[array]);
      return out;
    };
    std::size_t before = flows.size();
    for (Id ri = 0; ri < received.size(); ++ri) {
      const facts::Received &r = received[ri];
      std::set<Id> peers;
      if (auto own = ReceivedOver.find(ri); own != ReceivedOver.end()) {
        for (Id channel : own->second)
          for (Id origin : originsOf(channel))
            peersOf(origin, peers);
      } else {
        std::set<Id> readers = handling(functionOf(r.site));
        for (const facts::Receive &rc : receives)
          if (rc.kind == facts::ReceiveKind::Recvmsg && readers.count(functionOf(rc.site)))
            for (Id origin : originsOf(rc.place))
              peersOf(origin, peers);
      }
      if (peers.empty())
        continue;
      for (Id i = 0; i < payloads.size(); ++i) {
        const facts::Payload &pl = payloads[i];
        if (pl.place != kNone && llvm::any_of(sentOver[i], [&](Id origin) { return peers.count(origin) > 0; }))
          for (Id source : sources(pl))
            addDerived(source, r.place, facts::FlowKind::Assign, r.site, /*exact=*/false);
      }
    }
    if (flows.size() == before)
      break;
    Incoming = flowsByPlace(/*into=*/true);
    propagate();
    Listeners.clear(); // who may listen depends on the origins
    indexListeners();
  }
}

void Program::keepLibrariesApart(PlaceSets &sets) {
  // Two libraries of one database that define the same functions (eudev's libudev and
  // libudev-legacy): a call reaches either definition, so one library's objects reach the other's
  // code (udevd's monitor comes back from both copies of udev_monitor_new_from_netlink() and goes
  // into both copies of udev_monitor_enable_receiving()). A program links one of them: in one
  // definition, a socket made in a file that holds another definition of the same function is
  // the other library's, never seen there.
  if (DefinitionOf.empty())
    return;
  std::map<std::string, std::set<Id>> filesDefining; // plain key -> files of its definitions
  for (const facts::Function &f : functions)
    if (auto it = DefinitionOf.find(f.key); it != DefinitionOf.end() && f.file != kNone)
      filesDefining[it->second].insert(f.file);
  for (Id p = 0; p < sets.size() && p < places.size(); ++p) {
    if (sets.at(p).empty())
      continue;
    Id fn = ownerFunction(p);
    if (fn == kNone)
      continue;
    auto plain = DefinitionOf.find(functions[fn].key);
    if (plain == DefinitionOf.end())
      continue;
    const std::set<Id> &others = filesDefining[plain->second];
    auto foreign = [&](Id c) {
      Id site = creates[c].site;
      Id file = site == kNone ? kNone : sites[site].file;
      return file != kNone && file != functions[fn].file && others.count(file);
    };
    if (std::none_of(sets.at(p).begin(), sets.at(p).end(), foreign))
      continue;
    std::vector<Id> kept;
    for (Id c : sets.at(p))
      if (!foreign(c))
        kept.push_back(c);
    sets.share(p, sets.add(std::move(kept)));
  }
}

Id Program::ownerFunction(Id place) const {
  std::size_t steps = 0;
  while (place != kNone && places[place].function == kNone && steps++ < places.size())
    place = places[place].base;
  return place == kNone ? kNone : places[place].function;
}

const std::vector<Id> &Program::originsOf(Id place) const {
  return Origins.at(place);
}

const std::vector<Id> &Program::listenersOf(const facts::Create &accepted) const {
  auto it = Listeners.find(accepted.listener);
  return it == Listeners.end() ? none() : it->second;
}

void Program::indexListeners() {
  for (const facts::Create &c : creates) {
    if (c.how != facts::CreateHow::Accept || c.listener == kNone || Listeners.count(c.listener))
      continue;
    std::vector<Id> &listening = Listeners[c.listener];
    for (Id origin : originsOf(c.listener)) {
      const facts::Create &made = creates[origin];
      if (made.how != facts::CreateHow::NotSocket && made.how != facts::CreateHow::Accept &&
          made.how != facts::CreateHow::Socketpair && made.type != kernel::kSockDgram)
        listening.push_back(origin);
    }
  }
}

std::vector<llvm::ArrayRef<Id>> Program::listenerViewsOf(Id accepted) const {
  if (auto it = ListenerViews.find(accepted); it != ListenerViews.end())
    return {it->second.begin(), it->second.end()};
  const std::vector<Id> &all = listenersOf(creates[accepted]);
  if (all.empty())
    return {};
  return {llvm::ArrayRef<Id>(all)};
}

std::optional<std::vector<Id>> Program::programsReaching(Id function) const {
  // Bounds the walk up the callers on a large link; past it the function counts as everyone's.
  constexpr std::size_t kMaxWalk = 200000;
  if (function == kNone || function >= Callers.size())
    return std::nullopt;
  if (auto it = ProgramsReaching.find(function); it != ProgramsReaching.end())
    return it->second;
  std::optional<std::vector<Id>> result = std::vector<Id>();
  llvm::DenseSet<Id> seen{function};
  std::vector<Id> work{function};
  while (!work.empty() && result) {
    Id at = work.back();
    work.pop_back();
    if (std::binary_search(Mains.begin(), Mains.end(), at)) {
      result->push_back(at);
      continue;
    }
    llvm::ArrayRef<Id> from = Callers[at];
    if (from.empty() || seen.size() > kMaxWalk)
      result.reset(); // entered from outside the database (or too far to tell)
    for (Id caller : from) {
      if (caller == kNone) {
        result.reset(); // called from a global initialiser's table
        break;
      }
      if (seen.insert(caller).second)
        work.push_back(caller);
    }
  }
  if (result && (result->empty() || result->size() > kMaxPrograms))
    result.reset();
  if (result)
    llvm::sort(*result);
  ProgramsReaching[function] = result;
  return result;
}

void Program::indexListenerViews() {
  for (Id f = 0; f < functions.size(); ++f)
    if (functions[f].defined && functions[f].name == "main")
      Mains.push_back(f);
  if (Mains.size() < 2)
    return;
  auto split = [&](const facts::Create &c) {
    return c.how == facts::CreateHow::Accept && c.listener != kNone && listenersOf(c).size() >= 2;
  };
  if (llvm::none_of(creates, split))
    return;
  Callers = makeGraph(functions.size(), [&](auto add) {
    // A call through a pointer is not an edge: the pointer holds what the code that took the
    // function's address stored, and that code runs only in its own programs, while the call (an
    // event loop's dispatcher) runs in all of them, with the merged table's every callback.
    for (const facts::Call &call : calls)
      if (call.callee != kNone && call.target == kNone)
        add(call.callee, call.caller);
    for (const facts::Callback &cb : callbacks)
      if (cb.callee != kNone)
        add(cb.callee, cb.site == kNone ? kNone : sites[cb.site].function);
    // A function whose address is taken runs where the code that takes it runs: the statement
    // that moves its address (&fn:...: one place per function) on, or the function the place
    // holding it belongs to (kNone: a global initialiser's table, every program's).
    for (const facts::Points &pt : points) {
      if (pt.function == kNone)
        continue;
      if (Id owner = ownerFunction(pt.place); owner != kNone) {
        add(pt.function, owner);
        continue;
      }
      for (Id e : Outgoing[pt.place]) {
        const facts::Flow &f = flows[e];
        add(pt.function, f.site != kNone ? sites[f.site].function : ownerFunction(f.to));
      }
    }
    // An overrider runs wherever its base is called; a file's own definition of a function two
    // files define, wherever the function is.
    for (Id f = 0; f < functions.size(); ++f)
      for (Id base : functions[f].overrides)
        add(f, base);
    for (const auto &[plain, own] : Definitions)
      if (Id called = functionByKey(plain); called != kNone)
        for (const std::string &key : own)
          if (Id defined = functionByKey(key); defined != kNone && defined != called)
            add(defined, called);
  });
  auto maker = [&](Id origin) {
    Id site = creates[origin].site;
    return site == kNone ? kNone : sites[site].function;
  };
  for (Id c = 0; c < creates.size(); ++c) {
    if (!split(creates[c]))
      continue;
    const std::vector<Id> &all = listenersOf(creates[c]);
    std::vector<std::optional<std::vector<Id>>> programsOf;
    std::set<Id> programs; // those some listener is made in only some programs of
    for (Id listener : all) {
      programsOf.push_back(programsReaching(maker(listener)));
      if (programsOf.back())
        programs.insert(programsOf.back()->begin(), programsOf.back()->end());
    }
    if (programs.empty())
      continue;
    std::optional<std::vector<Id>> running = programsReaching(sites[creates[c].site].function);
    auto viewOf = [&](std::optional<Id> program) {
      std::vector<Id> view;
      for (std::size_t i = 0; i < all.size(); ++i)
        if (!programsOf[i] || (program && std::binary_search(programsOf[i]->begin(), programsOf[i]->end(), *program)))
          view.push_back(all[i]);
      return view;
    };
    std::set<std::vector<Id>> views;
    for (Id program : programs)
      if (!running || std::binary_search(running->begin(), running->end(), program))
        if (std::vector<Id> view = viewOf(program); !view.empty())
          views.insert(std::move(view));
    // The programs none of the listeners names see only the listeners every program makes.
    if (!running || llvm::any_of(*running, [&](Id program) { return !programs.count(program); }))
      if (std::vector<Id> view = viewOf(std::nullopt); !view.empty())
        views.insert(std::move(view));
    if (views.empty() || (views.size() == 1 && *views.begin() == all))
      continue;
    ListenerViews[c].assign(views.begin(), views.end());
  }
}

bool Program::reaches(Id origin, Id place) const {
  return Origins.contains(place, origin);
}

bool Program::reachesExactly(Id origin, Id place) const {
  return Exact.contains(place, origin);
}

bool Program::storedInto(Id place) const {
  if (place == kNone || place >= Incoming.size())
    return false;
  for (Id e : Incoming[place])
    if (flows[e].kind != facts::FlowKind::Fallback && flows[e].kind != facts::FlowKind::Callback &&
        flows[e].kind != facts::FlowKind::Argument)
      return true;
  return false;
}

std::vector<const facts::Flow *> Program::arrivals(Id origin, Id place) const {
  std::vector<const facts::Flow *> out;
  if (place == kNone || place >= Incoming.size())
    return out;
  for (Id e : Incoming[place])
    if (reaches(origin, flows[e].from))
      out.push_back(&flows[e]);
  return out;
}

void Program::inheritListenerFamilies() {
  // Accepted sockets have their listener's family and type.
  for (facts::Create &c : creates) {
    if (c.how != facts::CreateHow::Accept || c.listener == kNone)
      continue;
    std::optional<facts::Family> family;
    std::string name;
    int type = -1;
    bool agree = true;
    for (Id listener : listenersOf(c)) {
      const facts::Create &origin = creates[listener];
      if (family && (*family != origin.family || type != origin.type))
        agree = false;
      family = origin.family;
      name = origin.familyName;
      type = origin.type;
    }
    if (family && agree) {
      c.family = *family;
      c.familyName = name;
      c.type = type;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Functions

const std::vector<Id> &Program::callsOf(Id function) const {
  return function < CallsOf.size() ? CallsOf[function] : none();
}

const std::vector<Id> &Program::callsReaching(Id function) const {
  if (auto it = CallsReachingOverrider.find(function); it != CallsReachingOverrider.end())
    return it->second;
  return callsOf(function);
}

const std::vector<Id> &Program::callsIn(Id function) const {
  return function < CallsIn.size() ? CallsIn[function] : none();
}

// A receive whose function fills a buffer it is given (msg.msg_control = oob->buf) reads the
// credentials a function looks at in the same buffer of the same object: unit's nxt_recvmsg()
// fills the read handler's local oob, which nxt_socket_msg_oob_get() then walks. Run after
// resolveObjects(): a buffer reached through a pointer is named by the objects it points to.
// Precision lost: objects are per allocation site, not per call, so a wrapper whose callers
// pass several buffers reads credentials for all of them once one of them is looked at.
void Program::shareControlEvidence() {
  std::vector<std::vector<std::string>> buffersOf(functions.size());
  std::map<std::string, Id> lookedAt; // a buffer's name -> where its credentials are looked at
  for (Id f = 0; f < functions.size(); ++f) {
    for (Id buffer : functions[f].controlBuffers)
      for (std::string &name : controlBufferNames(buffer, /*depth=*/2))
        if (!llvm::is_contained(buffersOf[f], name))
          buffersOf[f].push_back(std::move(name));
    if (Evidence[f] != kNone)
      for (const std::string &name : buffersOf[f])
        lookedAt.emplace(name, Evidence[f]);
  }
  if (lookedAt.empty())
    return;
  for (Id f = 0; f < functions.size(); ++f)
    if (Evidence[f] == kNone)
      for (const std::string &name : buffersOf[f])
        if (auto it = lookedAt.find(name); it != lookedAt.end()) {
          Evidence[f] = it->second;
          break;
        }
}

// Names that identify a control buffer across functions: a buffer reached through a pointer
// (oob->buf, *p) by the same buffer of each object the pointer points to; a pointer by the
// objects it points to, or, for a parameter nothing is known to point with, by what its
// callers pass (`depth` calls up); anything else by its own key.
std::vector<std::string> Program::controlBufferNames(Id buffer, int depth) const {
  std::vector<std::string> names;
  Id root = buffer;
  while (root != kNone &&
         (places[root].kind == facts::PlaceKind::Member || places[root].kind == facts::PlaceKind::Element))
    root = places[root].base;
  if (root != kNone && places[root].kind == facts::PlaceKind::Deref) {
    std::string suffix = places[buffer].key.substr(places[root].key.size());
    for (Id object : objectsAt(places[root].base))
      names.push_back(places[object].key + suffix);
  } else {
    for (Id object : objectsAt(buffer))
      names.push_back(places[object].key);
    const facts::Place &place = places[buffer];
    if (names.empty() && depth > 0 && place.kind == facts::PlaceKind::Param && place.function != kNone &&
        place.index >= 0)
      for (Id c : callsReaching(place.function))
        if (static_cast<std::size_t>(place.index) < calls[c].args.size() &&
            calls[c].args[place.index].place != kNone)
          llvm::append_range(names, controlBufferNames(calls[c].args[place.index].place, depth - 1));
  }
  if (names.empty())
    names.push_back(places[buffer].key);
  return names;
}

Id Program::credentialEvidence(Id function) const {
  return function < Evidence.size() ? Evidence[function] : kNone;
}

bool Program::hasCaller(Id function) const { return function < Called.size() && Called[function]; }

bool Program::receivesOnParam(Id function, unsigned param) const {
  auto key = std::make_pair(function, param);
  if (auto it = ReceivesOnParamCache.find(key); it != ReceivesOnParamCache.end())
    return it->second;
  ReceivesOnParamCache[key] = false; // recursion guard
  Id place = placeByKey("p:" + functions[function].key + "#" + std::to_string(param));
  bool result = false;
  if (place != kNone) {
    // On the parameter itself, or on a field of the struct it points to (c->fd).
    const std::string &key = places[place].key;
    auto names = [&](const std::string &var) {
      return var == key || llvm::StringRef(var).starts_with(key + ".");
    };
    for (const facts::Receive &r : receives)
      if (r.place == place || (sites[r.site].function == function && names(sites[r.site].var))) {
        result = true;
        break;
      }
    if (!result)
      for (Id c : callsIn(function)) {
        const facts::Call &call = calls[c];
        for (unsigned i = 0; i < call.args.size() && !result; ++i)
          if (call.args[i].place == place || (!call.args[i].var.empty() && call.args[i].var == key))
            result = receivesOnParam(call.callee, i);
        if (result)
          break;
      }
  }
  ReceivesOnParamCache[key] = result;
  return result;
}

Id Program::copiedByCall(Id param, Id caller) const {
  if (param == kNone || caller == kNone)
    return kNone;
  Id copied = kNone;
  auto from = [&](Id into, bool part) {
    if (into == kNone || into >= Incoming.size())
      return true;
    for (Id e : Incoming[into]) {
      const facts::Flow &f = flows[e];
      if (f.kind != facts::FlowKind::Argument || places[f.from].function != caller)
        continue;
      Id object = part ? places[f.from].base : f.from;
      if (object == kNone || (copied != kNone && copied != object))
        return false;
      copied = object;
    }
    return true;
  };
  const std::string &key = places[param].key;
  if (!from(param, false) || !from(placeByKey(key + "[*]"), true))
    return kNone;
  return copied;
}

std::vector<Id> Program::queueParams(Id place, Id except) const {
  // Backwards from `place` along flows: a parameter of another function whose value was stored
  // into a field or a global on the way (q->fds[q->n++] = fd) is a queuing parameter. The walk
  // stops at parameters: their callers are the queuing calls.
  std::vector<Id> out;
  if (place == kNone || place >= Incoming.size())
    return out;
  // A queue: an element at a run-time index of an array in a struct or a global (q->fds[q->n++]),
  // not a struct's own fd (s->fd), which is the object's socket rather than a queue of them.
  auto stored = [&](Id p) {
    if (auto side = StoreSideOf.find(p); side != StoreSideOf.end())
      p = side->second; // what is stored through a pointer: the place it stands for
    if (places[p].kind != facts::PlaceKind::Element || places[p].index >= 0)
      return false;
    for (p = places[p].base; p != kNone; p = places[p].base)
      if (places[p].kind == facts::PlaceKind::Field || places[p].kind == facts::PlaceKind::Global ||
          places[p].kind == facts::PlaceKind::Member || places[p].kind == facts::PlaceKind::Deref)
        return true;
    return false;
  };
  std::set<std::pair<Id, bool>> visited{{place, stored(place)}};
  std::vector<std::tuple<Id, bool, int>> work{{place, stored(place), 0}};
  while (!work.empty()) {
    auto [p, crossed, depth] = work.back();
    work.pop_back();
    if (depth > 8)
      continue;
    for (Id e : Incoming[p]) {
      const facts::Flow &f = flows[e];
      // What a setter stores for its caller (put(q, fd): q->fds[q->n++] = fd, made per call):
      // through the setter's parameter, which is the queue.
      if (auto via = SetterVia.find({f.from, f.to}); via != SetterVia.end()) {
        Id param = via->second;
        if ((crossed || stored(f.to)) && places[param].function != except && !llvm::is_contained(out, param))
          out.push_back(param);
        continue;
      }
      if (f.kind == facts::FlowKind::Argument || f.kind == facts::FlowKind::Callback ||
          f.kind == facts::FlowKind::Fallback)
        continue; // into a parameter from its callers: the parameter is where the walk ends
      const facts::Place &from = places[f.from];
      bool now = crossed || stored(f.from);
      // The parameter, or the elements of a container it holds or points to (Send(std::vector<int>
      // fds) queuing Message{std::move(fds)}): returned as found, the caller reads which.
      Id param = f.from;
      if (from.kind == facts::PlaceKind::Element && from.index < 0 && from.base != kNone) {
        param = from.base;
        if (places[param].kind == facts::PlaceKind::Deref && places[param].base != kNone)
          param = places[param].base;
      }
      if (places[param].kind == facts::PlaceKind::Param && from.function != kNone && from.function != except) {
        if (now && !llvm::is_contained(out, f.from))
          out.push_back(f.from);
        continue;
      }
      if (visited.insert({f.from, now}).second)
        work.push_back({f.from, now, depth + 1});
    }
  }
  return out;
}

const Summary &Program::summary(Id function) const {
  if (SummaryDone[function])
    return Summaries[function];
  SummaryDone[function] = true;
  Summary &s = Summaries[function];
  s.function = function;
  s.params.assign(functions[function].params, {});
  for (unsigned i = 0; i < s.params.size(); ++i) {
    Id place = placeByKey("p:" + functions[function].key + "#" + std::to_string(i));
    if (place == kNone)
      continue;
    // The facts a socket in this parameter reaches: places its origins share with the parameter
    // downstream of it, found by following flows forward.
    std::set<Id> downstream{place};
    std::vector<Id> work{place};
    while (!work.empty()) {
      Id p = work.back();
      work.pop_back();
      for (Id e : Outgoing[p])
        if (downstream.insert(flows[e].to).second)
          work.push_back(flows[e].to);
    }
    ParamEffects &e = s.params[i];
    for (const facts::OptionSet &o : options)
      if (o.option == facts::Option::PassCred && o.value != facts::Tri::False && downstream.count(o.place) &&
          e.passcred == kNone)
        e.passcred = o.site;
    for (const facts::LifecycleEvent &l : lifecycle)
      if (downstream.count(l.place)) {
        Id &slot = l.kind == facts::Lifecycle::Listen ? e.listens : e.bindsOrConnects;
        if (slot == kNone)
          slot = l.site;
      }
    for (const facts::Create &c : creates)
      if (c.how == facts::CreateHow::Accept && c.listener != kNone && downstream.count(c.listener) &&
          e.acceptsOn == kNone)
        e.acceptsOn = c.site;
    for (const facts::Receive &r : receives)
      if (downstream.count(r.place)) {
        if (e.receives == kNone)
          e.receives = r.site;
        if (r.kind == facts::ReceiveKind::Recvmsg && e.readsCredentials == kNone &&
            credentialEvidence(sites[r.site].function) != kNone)
          e.readsCredentials = r.site;
      }
    for (const facts::Send &snd : sends)
      if (snd.channel != kNone && downstream.count(snd.channel) && e.sendsFdsOver == kNone)
        e.sendsFdsOver = snd.site;
    for (const facts::Payload &pl : payloads)
      if (pl.place != kNone && downstream.count(pl.place) && e.sentAsFd == kNone)
        e.sentAsFd = pl.site;
  }
  Id ret = returnPlace(function);
  if (ret != kNone) {
    std::optional<facts::Family> family;
    bool agree = true;
    for (Id origin : originsOf(ret)) {
      const facts::Create &c = creates[origin];
      if (c.how == facts::CreateHow::NotSocket || c.how == facts::CreateHow::Unknown ||
          c.how == facts::CreateHow::Parameter)
        continue;
      if (family && *family != c.family)
        agree = false;
      family = c.family;
    }
    s.returnsSocket = family.has_value();
    if (family && agree)
      s.returns = *family;
  }
  return s;
}

// ---------------------------------------------------------------------------------------------
// Order

bool Program::blockReaches(Id function, Id from, Id to) const {
  auto key = std::make_pair(function, from);
  auto it = Reach.find(key);
  if (it == Reach.end()) {
    const auto &succ = functions[function].successors;
    llvm::BitVector seen(succ.size());
    std::vector<Id> work(succ[from].begin(), succ[from].end());
    while (!work.empty()) {
      Id b = work.back();
      work.pop_back();
      if (b >= succ.size() || seen.test(b))
        continue;
      seen.set(b);
      work.insert(work.end(), succ[b].begin(), succ[b].end());
    }
    it = Reach.emplace(key, std::move(seen)).first;
  }
  return to < it->second.size() && it->second.test(to);
}

bool Program::mayPrecede(Id a, Id b, bool unknown) const {
  const facts::Site &sa = sites[a], &sb = sites[b];
  if (sa.function == kNone || sa.function != sb.function || sa.block == kNone || sb.block == kNone)
    return unknown;
  if (sa.block == sb.block && sa.element < sb.element)
    return true;
  return blockReaches(sa.function, sa.block, sb.block);
}

bool Program::mustFollow(Id a, Id b, bool unknown) const {
  const facts::Site &sa = sites[a], &sb = sites[b];
  if (sa.function == kNone || sa.function != sb.function || sa.block == kNone || sb.block == kNone)
    return unknown;
  if (sa.block == sb.block)
    return sa.element < sb.element;
  // b only runs after a: a's block dominates b's.
  const facts::Function &f = functions[sa.function];
  std::size_t guard = f.idom.size();
  for (Id block = sb.block; block != kNone && block < f.idom.size() && guard-- > 0; block = f.idom[block])
    if (block == sa.block)
      return true;
  return false;
}

llvm::ArrayRef<Id> Program::cloneCalls(Id place) const {
  Id root = place;
  for (int depth = 0; root != kNone && places[root].base != kNone && depth < 64; ++depth)
    root = places[root].base;
  auto it = root == kNone ? CloneOfRoot.end() : CloneOfRoot.find(root);
  return it == CloneOfRoot.end() ? llvm::ArrayRef<Id>() : llvm::ArrayRef<Id>(CloneCallChains[it->second]);
}

std::vector<Id> Program::callSitesReaching(Id origin, Id place) const {
  std::vector<Id> out;
  // Backwards from `place` along flows that carry the origin; an argument flow into a callee is
  // seen from the caller at its call site, and the walk goes on into the caller's callers. Read
  // through a pointer (c->fd in a helper), the fd came from an object: the call sites are then
  // those that hand the helper that object, found the same way from the pointer.
  auto holds = [&](Id value, bool address, Id at) {
    if (!address)
      return reaches(value, at);
    return Addresses.contains(at, value);
  };
  // Once the path has come out of a getter or a field (a Return or a load), a call it passes may
  // only have stored the socket (a constructor keeping it in this->fd_) before the fact happens
  // elsewhere: such a call counts only when it runs `place`'s function (its callee is that
  // function or calls it, within 6 calls).
  Id target = places[place].function;
  std::map<Id, bool> runsTarget;
  std::map<Id, std::vector<Id>> registers; // function -> the callbacks it registers, made on first use
  auto runs = [&](Id callee) {
    if (target == kNone || callee == kNone || callee == target)
      return true;
    auto [it, fresh] = runsTarget.try_emplace(callee, false);
    if (!fresh)
      return it->second;
    if (registers.empty())
      for (const facts::Callback &cb : callbacks)
        registers[sites[cb.site].function].push_back(cb.callee);
    std::set<Id> seen{callee};
    std::vector<std::pair<Id, int>> below{{callee, 0}};
    while (!below.empty() && !it->second) {
      auto [fn, depth] = below.back();
      below.pop_back();
      if (depth >= 6)
        continue;
      for (Id c : callsIn(fn)) {
        Id next = calls[c].callee;
        if (next == target) {
          it->second = true;
          break;
        }
        if (seen.insert(next).second)
          below.push_back({next, depth + 1});
      }
      if (auto registered = registers.find(fn); registered != registers.end())
        for (Id next : registered->second) {
          if (next == target) {
            it->second = true;
            break;
          }
          if (seen.insert(next).second)
            below.push_back({next, depth + 1});
        }
    }
    return it->second;
  };
  std::set<std::tuple<Id, Id, bool, bool>> visited{{place, origin, false, true}};
  std::vector<std::tuple<Id, Id, bool, int, bool>> work{{place, origin, false, 0, true}};
  while (!work.empty()) {
    auto [p, value, address, depth, direct] = work.back();
    work.pop_back();
    if (depth > 8 || p >= Incoming.size())
      continue;
    for (Id e : Incoming[p]) {
      const facts::Flow &f = flows[e];
      if (!holds(value, address, f.from))
        continue;
      if ((f.kind == facts::FlowKind::Argument || f.kind == facts::FlowKind::Callback) &&
          f.site != kNone && !llvm::is_contained(out, f.site) && (direct || runs(places[f.to].function)))
        out.push_back(f.site);
      bool stillDirect = direct && f.kind != facts::FlowKind::Return && f.kind != facts::FlowKind::Resolved;
      if (visited.insert({f.from, value, address, stillDirect}).second)
        work.push_back({f.from, value, address, depth + 1, stillDirect});
      if (f.kind == facts::FlowKind::Resolved)
        if (auto via = LoadVia.find({f.from, f.to}); via != LoadVia.end() && via->second.second != kUnknownObject) {
          Id pointer = places[via->second.first].base;
          if (visited.insert({pointer, via->second.second, true, direct}).second)
            work.push_back({pointer, via->second.second, true, depth + 1, direct});
        }
    }
  }
  return out;
}

std::string Program::display(Id place) const {
  if (place == kNone)
    return "?";
  const facts::Place &p = places[place];
  std::string fn = p.function != kNone ? functions[p.function].name : "";
  switch (p.kind) {
  case facts::PlaceKind::Param:
    return "param:" + fn + "#" + (p.index < 0 ? std::string("this") : std::to_string(p.index));
  case facts::PlaceKind::Return:
    return "ret:" + fn;
  case facts::PlaceKind::Field:
    return "field:" + p.name;
  case facts::PlaceKind::Member: {
    if (auto side = StoreSideOf.find(place); side != StoreSideOf.end()) // what is stored through a pointer
      return display(side->second) + "=";
    return display(p.base) + "." + memberName(places, place);
  }
  case facts::PlaceKind::Deref:
    return "*" + display(p.base);
  case facts::PlaceKind::Object:
    return "object:" + p.name;
  case facts::PlaceKind::Global:
    return "global:" + p.name;
  case facts::PlaceKind::Element: {
    if (auto side = StoreSideOf.find(place); side != StoreSideOf.end())
      return display(side->second) + "=";
    std::string suffix = p.index < 0 ? "[*]" : "[" + std::to_string(p.index) + "]";
    return display(p.base) + suffix;
  }
  case facts::PlaceKind::Value:
    if (llvm::StringRef(p.key).starts_with("c:"))
      return "const:" + llvm::StringRef(p.key).drop_front(2).split('@').first.str();
    return "value:" + p.name;
  case facts::PlaceKind::Local: {
    // l:<function key>:<name>@<declaration>[#<definition> | @<use>]
    llvm::StringRef key(p.key);
    std::size_t at = key.rfind(":" + p.name + "@");
    llvm::StringRef rest = at == llvm::StringRef::npos ? "" : key.substr(at + 1 + p.name.size() + 1);
    std::string suffix;
    if (std::size_t hash = rest.find('#'); hash != llvm::StringRef::npos)
      suffix = "#def";
    else if (rest.count('@'))
      suffix = "@use";
    return "local:" + fn + ":" + p.name + suffix;
  }
  }
  return p.key;
}

std::string Program::dump() const {
  std::string out;
  auto line = [&](Id site) { return site == kNone ? std::string("?") : std::to_string(sites[site].line); };
  // What the rules see at a fact's socket: the origins the link resolved (the "why no finding"
  // question starts here).
  auto origins = [&](Id place) {
    const std::vector<Id> &set = originsOf(place);
    std::string text = "\n  origins"; // a line of its own under the fact's
    if (set.empty())
      return text + " none";
    constexpr std::size_t kShown = 32;
    for (std::size_t i = 0; i < set.size() && i < kShown; ++i) {
      const facts::Create &c = creates[set[i]];
      text += " [" + std::string(facts::name(c.how)) + " " + display(c.place) + " line " + line(c.site) + "]";
    }
    if (set.size() > kShown)
      text += " +" + std::to_string(set.size() - kShown);
    return text;
  };
  // Which functions a call reaches that the link has a body for: a unit defining one in a run
  // and not in another changes every fact past the call.
  std::vector<bool> called(functions.size());
  for (const facts::Call &c : calls)
    called[c.callee] = true;
  for (Id f = 0; f < functions.size(); ++f)
    if (called[f] && !functions[f].system) {
      out += "function " + functions[f].name + (functions[f].defined ? " defined" : "") + " params " +
             std::to_string(functions[f].params) + "\n";
      for (Id buffer : functions[f].controlBuffers)
        out += "  control buffer " + display(buffer) +
               (credentialEvidence(f) != kNone ? " (credentials looked at)" : "") + "\n";
    }
  for (const facts::Create &c : creates) {
    out += "create " + std::string(facts::name(c.how)) + " " + display(c.place) + " line " + line(c.site);
    if (c.family != facts::Family::Unknown)
      out += " family " + std::string(facts::name(c.family));
    if (c.type >= 0)
      out += " type " + std::to_string(c.type);
    if (c.peer != kNone)
      out += " peer " + display(c.peer);
    if (c.listener != kNone)
      out += " listener " + display(c.listener);
    if (!c.handover.empty())
      out += " handover " + c.handover;
    for (const std::string &n : c.handoverNames)
      out += " name " + n;
    out += "\n";
  }
  for (const facts::ServiceSocket &v : services) {
    out += "service " + std::string(facts::name(v.manager)) + " " + v.unit + " '" + v.name + "'";
    if (v.index >= 0)
      out += " index " + std::to_string(v.index);
    out += " " + v.address + " family " + facts::name(v.family) + " type " + std::to_string(v.type) +
           " passcred " + facts::name(v.passcred) + (v.accept ? " accept" : "");
    for (const std::string &p : v.programs)
      out += " program " + p;
    out += " line " + line(v.site) + "\n";
  }
  for (const facts::OptionSet &o : options)
    out += "option " + std::string(facts::name(o.option)) + " " + facts::name(o.value) + " " +
           display(o.place) + " line " + line(o.site) + (o.throughWrapper ? " wrapper" : "") +
           (o.familyGuarded ? " guarded" : "") + origins(o.place) + "\n";
  auto address = [](const facts::Address &a) {
    return (a.path.empty() ? "" : " address " + a.path) +
           (a.param >= 0 ? " address_param " + std::to_string(a.param) : "");
  };
  for (const facts::LifecycleEvent &l : lifecycle)
    out += std::string(facts::name(l.kind)) + " " + display(l.place) + " line " + line(l.site) +
           address(l.address) + (l.maker.empty() ? "" : " by " + l.maker) + origins(l.place) + "\n";
  for (const facts::Write &w : writes)
    out += "write " + display(w.place) + " line " + line(w.site) + (w.credentials ? " credentials" : "") +
           address(w.address) + "\n";
  for (const facts::Receive &r : receives) {
    out += "receive " + std::string(facts::name(r.kind)) + " " + display(r.place) + " line " + line(r.site);
    Id fn = sites[r.site].function;
    if (r.kind == facts::ReceiveKind::Recvmsg && fn != kNone && credentialEvidence(fn) != kNone)
      out += " reads_credentials";
    out += origins(r.place) + "\n";
  }
  for (const facts::Send &s : sends)
    out += "send " + display(s.channel) + " line " + line(s.site) +
           (s.msghdrParam >= 0 ? " msghdr_param " + std::to_string(s.msghdrParam) : "") +
           (s.dontWait ? " dont_wait" : "") + (s.stopsOnEagain ? " stops_on_eagain" : "") + origins(s.channel) +
           "\n";
  for (const facts::Payload &p : payloads)
    out += "payload " + display(p.place) + " line " + line(p.site) + (p.many ? " many" : "") +
           (p.count >= 0 ? " count " + std::to_string(p.count) : "") + "\n";
  for (const facts::Received &r : received)
    out += "received " + display(r.place) + " line " + line(r.site) + origins(r.place) + "\n";
  for (const facts::Limit &l : limits)
    out += "limit " + std::string(facts::name(l.where)) + " " + std::to_string(l.count) + " line " +
           line(l.site) + "\n";
  for (const facts::Callback &c : callbacks)
    out += "callback " + display(c.socket) + " -> " + functions[c.callee].name + "#" +
           std::to_string(c.param) + " line " + line(c.site) + " (" + c.registrar + ")\n";
  for (const facts::Call &c : calls) {
    out += "call " + functions[c.callee].name + " line " + line(c.site);
    for (const facts::Argument &a : c.args)
      out += " " + (a.mode == facts::ArgMode::None ? std::string("-") : std::string(facts::name(a.mode)) + ":" + display(a.place)) +
             (a.constant.empty() ? "" : "\"" + a.constant + "\"");
    out += "\n";
  }
  for (const facts::Flow &f : flows)
    out += "flow " + display(f.from) + " -> " + display(f.to) + " " + facts::name(f.kind) +
           (f.exact ? "" : " inexact") + "\n";
  for (const facts::Points &pt : points)
    out += "points " + display(pt.place) + " -> " +
           (pt.target != kNone     ? display(pt.target)
            : pt.function != kNone ? "function " + functions[pt.function].name
                                   : "constant " + std::to_string(pt.constant)) +
           "\n";
  for (const facts::Call &c : indirectCalls)
    out += "indirect call " + display(c.target) + " line " + line(c.site) + "\n";
  for (Id p = 0; p < places.size() && p < Addresses.size(); ++p) {
    if (places[p].kind != facts::PlaceKind::Deref)
      continue;
    bool unknown = false;
    std::vector<Id> objects = objectsAt(places[p].base, &unknown);
    if (objects.empty() && !unknown)
      continue;
    out += "resolves " + display(p) + " ->";
    for (Id o : objects)
      out += " " + display(o);
    out += unknown ? " (unknown)\n" : "\n";
  }
  for (const facts::Loop &l : loops)
    out += "loop line " + line(l.site) + (l.errnoRetry ? " errno_retry" : "") +
           (l.controlOnce ? " control_once" : "") + (l.oneMessage ? " one_message" : "") +
           (l.trips ? " trips " + std::to_string(*l.trips) : "") + "\n";
  return out;
}

bool Program::loopEncloses(Id outer, Id inner) const {
  std::size_t steps = 0; // a cycle of parents ends the walk (loopsAround() in Queries.h says why)
  for (Id l = inner; l != kNone && steps++ <= loops.size(); l = loops[l].parent)
    if (l == outer)
      return true;
  return false;
}

} // namespace afunix::analysis
