#include "Program.h"

#include <algorithm>
#include <set>

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
// Merging units

std::unique_ptr<Program> Program::link(const std::vector<const facts::Unit *> &units) {
  auto program = std::make_unique<Program>();
  // A function defined in two source files (each program of a database its own handle_client(),
  // two libraries that both define udev_monitor_enable_receiving()) is two functions: each
  // definition keeps its facts, and a call from elsewhere may reach either.
  std::map<std::string, std::set<std::string>> definedIn;
  for (const facts::Unit *unit : units)
    if (unit)
      for (const facts::Function &f : unit->functions)
        if (f.defined && f.file != kNone && f.file < unit->files.size())
          definedIn[f.key].insert(unit->files[f.file]);
  for (const auto &[key, files] : definedIn)
    if (files.size() > 1)
      program->Duplicated.insert(key);
  for (const facts::Unit *unit : units)
    if (unit)
      program->mergeUnit(*unit);
  // What the compiled sources say about the project: where they live, what they are built into.
  for (const facts::Unit *unit : units) {
    if (!unit || !unit->services.empty() || unit->mainFile.empty())
      continue;
    if (!unit->target.empty())
      program->targets.insert(unit->target);
    llvm::StringRef dir = llvm::StringRef(unit->mainFile).rsplit('/').first;
    std::string &common = program->sourceDirectory;
    if (common.empty()) {
      common = dir.str();
      continue;
    }
    while (!common.empty() && !(dir == common || dir.starts_with(common + "/")))
      common = llvm::StringRef(common).rsplit('/').first.str();
  }
  program->deriveFlows();
  program->dropFallbacks();
  program->specializeReturns();
  program->index();
  program->addRoots();
  program->propagate();
  program->inheritListenerFamilies();
  return program;
}

Id Program::functionByKey(llvm::StringRef key) const {
  auto it = FunctionIds.find(key);
  return it == FunctionIds.end() ? kNone : it->second;
}

Id Program::placeByKey(llvm::StringRef key) const {
  auto it = PlaceIds.find(key);
  return it == PlaceIds.end() ? kNone : it->second;
}

void Program::mergeUnit(const facts::Unit &u) {
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
    }
  auto functionKey = [&](const std::string &key) {
    auto it = renamed.find(key);
    return it == renamed.end() ? key : it->second;
  };
  auto placeKey = [&](const std::string &key) {
    for (const auto &[plain, own] : renamed)
      for (const char *prefix : {"p:", "r:", "l:"})
        if (llvm::StringRef(key).starts_with(std::string(prefix) + plain)) {
          char next = key.size() > plain.size() + 2 ? key[plain.size() + 2] : '\0';
          if (next == '#' || next == ':' || next == '\0')
            return std::string(prefix) + own + key.substr(plain.size() + 2);
        }
    return key;
  };

  // Functions: the unit that defines one gives its file and CFG; flags from every unit.
  std::vector<Id> functionMap(u.functions.size());
  std::vector<bool> takeBody(u.functions.size(), false);
  for (std::size_t i = 0; i < u.functions.size(); ++i) {
    const facts::Function &f = u.functions[i];
    auto [it, fresh] = FunctionIds.try_emplace(functionKey(f.key), functions.size());
    functionMap[i] = it->second;
    if (fresh) {
      facts::Function copy;
      copy.key = functionKey(f.key);
      copy.name = f.name;
      copy.system = f.system;
      functions.push_back(std::move(copy));
    }
    facts::Function &g = functions[it->second];
    g.params = std::max(g.params, f.params);
    for (Id p : f.paramIsInt)
      if (!llvm::is_contained(g.paramIsInt, p))
        g.paramIsInt.push_back(p);
    g.buildsScmRights |= f.buildsScmRights;
    g.buildsScmCredentials |= f.buildsScmCredentials;
    g.addressEscapes |= f.addressEscapes;
    if (g.credentialOutcome == facts::CredentialOutcome::Unknown)
      g.credentialOutcome = f.credentialOutcome;
    if (f.defined && !g.defined) {
      g.defined = true;
      g.file = mapped(fileMap, f.file);
    }
    if (!f.successors.empty() && g.successors.empty()) {
      g.successors = f.successors;
      g.idom = f.idom;
      g.entry = f.entry;
      takeBody[i] = true;
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
    std::string key = renamed.empty() ? p.key : placeKey(p.key);
    auto [it, fresh] = PlaceIds.try_emplace(key, places.size());
    placeMap[i] = it->second;
    if (fresh) {
      facts::Place copy = p;
      copy.key = key;
      copy.function = mapped(functionMap, p.function);
      copy.base = kNone; // below, once every base is mapped
      places.push_back(std::move(copy));
    }
  }
  for (std::size_t i = 0; i < u.places.size(); ++i)
    if (u.places[i].base != kNone && places[placeMap[i]].base == kNone)
      places[placeMap[i]].base = placeMap[u.places[i].base];

  // Sites are one per expression: a header's function seen by several units has one set.
  std::vector<Id> siteMap(u.sites.size());
  for (std::size_t i = 0; i < u.sites.size(); ++i) {
    const facts::Site &s = u.sites[i];
    Id file = mapped(fileMap, s.file);
    auto [it, fresh] = SiteIds.try_emplace({file, s.offset, s.text}, sites.size());
    siteMap[i] = it->second;
    if (fresh) {
      facts::Site copy = s;
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
    if (u.loops[i].parent != kNone && loops[loopMap[i]].parent == kNone)
      loops[loopMap[i]].parent = loopMap[u.loops[i].parent];
  for (std::size_t i = 0; i < u.sites.size(); ++i)
    if (u.sites[i].loop != kNone && sites[siteMap[i]].loop == kNone)
      sites[siteMap[i]].loop = loopMap[u.sites[i].loop];
  for (std::size_t i = 0; i < u.functions.size(); ++i)
    if (u.functions[i].credentialEvidence != kNone &&
        functions[functionMap[i]].credentialEvidence == kNone)
      functions[functionMap[i]].credentialEvidence = siteMap[u.functions[i].credentialEvidence];

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
    if (CreatedPlaces.count(place))
      continue;
    CreatedPlaces.insert(place);
    facts::Create copy = c;
    copy.place = place;
    copy.site = mapped(siteMap, c.site);
    copy.peer = mapped(placeMap, c.peer);
    copy.listener = mapped(placeMap, c.listener);
    copy.statement = mapped(statementMap, c.statement);
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
    if (!seen(FlowKeys, std::make_tuple(copy.from, copy.to, static_cast<int>(copy.kind), copy.exact)))
      flows.push_back(copy);
  }
  for (const facts::Call &c : u.calls) {
    facts::Call copy = c;
    copy.site = siteMap[c.site];
    copy.caller = mapped(functionMap, c.caller);
    copy.callee = functionMap[c.callee];
    for (facts::Argument &a : copy.args)
      a.place = mapped(placeMap, a.place);
    if (!seen(CallKeys, std::make_pair(copy.site, copy.callee)))
      calls.push_back(std::move(copy));
  }
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
  auto [it, fresh] = PlaceIds.try_emplace(key, places.size());
  if (fresh)
    places.push_back({key, kind, name, function, index, base});
  return it->second;
}

Id Program::paramPlace(Id function, unsigned index) {
  const facts::Function &f = functions[function];
  return internPlace("p:" + f.key + "#" + std::to_string(index), facts::PlaceKind::Param,
                     "parameter " + std::to_string(index + 1), function, static_cast<int>(index), kNone);
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
  std::string suffix = index < 0 ? "[*]" : "[" + std::to_string(index) + "]";
  facts::Place b = places[base];
  return internPlace(b.key + suffix, facts::PlaceKind::Element, b.name + suffix, b.function, index,
                     base);
}

void Program::addDerived(Id from, Id to, facts::FlowKind kind, Id site, bool exact) {
  if (from == kNone || to == kNone || from == to)
    return;
  if (FlowKeys.insert(std::make_tuple(from, to, static_cast<int>(kind), exact)).second)
    flows.push_back({from, to, kind, site, exact});
}

void Program::deriveFlows() {
  // Arguments into parameters, wherever the callee is defined.
  for (const facts::Call &c : calls)
    for (unsigned i = 0; i < c.args.size(); ++i) {
      const facts::Argument &a = c.args[i];
      if (a.mode == facts::ArgMode::None ||
          (a.place == kNone && a.mode != facts::ArgMode::Value && a.mode != facts::ArgMode::Constant))
        continue;
      Id param = paramPlace(c.callee, i);
      if (a.mode == facts::ArgMode::Constant) {
        Written.insert(param); // written, with no socket
        continue;
      }
      switch (a.mode) {
      case facts::ArgMode::Value:
        if (a.place == kNone)
          Untracked.insert(param); // passed something we cannot follow
        else
          addDerived(a.place, param, facts::FlowKind::Argument, c.site, a.exact);
        break;
      case facts::ArgMode::Address: {
        // f(&fd) into int *p: the caller's fd is the callee's *p, and what the callee writes
        // into *p (its out place, if it writes one) comes back into the caller's fd.
        Id deref = elementPlace(param, 0);
        addDerived(a.place, deref, facts::FlowKind::Argument, c.site, true);
        if (Id out = placeByKey(facts::outKey(places[deref].key)); out != kNone)
          addDerived(out, writeTarget(a.place), facts::FlowKind::Argument, c.site, true);
        break;
      }
      case facts::ArgMode::Array:
        // An array passed on: its first two elements, the socketpair() ends, in and back out.
        for (int k = 0; k < 2; ++k) {
          Id mine = elementPlace(a.place, k), theirs = elementPlace(param, k);
          addDerived(mine, theirs, facts::FlowKind::Argument, c.site, true);
          if (Id out = placeByKey(facts::outKey(places[theirs].key)); out != kNone)
            addDerived(out, writeTarget(mine), facts::FlowKind::Argument, c.site, true);
        }
        break;
      case facts::ArgMode::None:
      case facts::ArgMode::Constant:
        break;
      }
    }
  for (const facts::Callback &c : callbacks)
    addDerived(c.socket, paramPlace(c.callee, static_cast<unsigned>(c.param)),
               facts::FlowKind::Callback, c.site, true);
  // A call of a function defined twice reaches either definition.
  for (const auto &[plain, owns] : Definitions)
    for (const std::string &own : owns) {
      std::size_t count = places.size();
      for (Id p = 0; p < count; ++p) {
        llvm::StringRef key(places[p].key);
        std::string mine;
        if (key.starts_with("p:" + plain + "#"))
          mine = "p:" + own + key.substr(plain.size() + 2).str();
        else if (key == "r:" + plain) {
          Id theirs = placeByKey("r:" + own);
          addDerived(theirs, p, facts::FlowKind::Return, kNone, true);
          continue;
        } else {
          continue;
        }
        Id target = placeByKey(mine);
        addDerived(p, target, facts::FlowKind::Argument, kNone, true);
      }
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
      Id from = placeByKey("r:" + functions[f].key);
      Id to = placeByKey("r:" + functions[base].key);
      if (from != kNone && to != kNone)
        addDerived(from, to, facts::FlowKind::Return, kNone, true);
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
  std::vector<std::vector<Id>> incoming(places.size()), outgoing(places.size());
  for (Id f = 0; f < flows.size(); ++f) {
    incoming[flows[f].to].push_back(f);
    outgoing[flows[f].from].push_back(f);
  }
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
  std::set<Id> removed; // flows from a return place into a call's value, replaced
  for (Id fn = 0; fn < functions.size(); ++fn) {
    if (!functions[fn].defined)
      continue;
    Id ret = placeByKey("r:" + functions[fn].key);
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

void Program::index() {
  CallsOf.assign(functions.size(), {});
  CallsIn.assign(functions.size(), {});
  Called.assign(functions.size(), false);
  for (Id i = 0; i < calls.size(); ++i) {
    CallsOf[calls[i].callee].push_back(i);
    if (calls[i].caller != kNone)
      CallsIn[calls[i].caller].push_back(i);
    Called[calls[i].callee] = true;
  }
  for (const facts::Callback &c : callbacks)
    Called[c.callee] = true;
  for (Id f = 0; f < functions.size(); ++f)
    for (Id base : functions[f].overrides)
      if (Called[base])
        Called[f] = true;
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
// Origins of what nobody in the program writes

void Program::addRoots() {
  std::size_t n = places.size();
  Incoming.assign(n, {});
  Outgoing.assign(n, {});
  for (Id i = 0; i < flows.size(); ++i) {
    Incoming[flows[i].to].push_back(i);
    Outgoing[flows[i].from].push_back(i);
  }
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
  for (Id id = 0; id < n; ++id) {
    if (!relevant[id] || created[id])
      continue;
    const facts::Place &place = places[id];
    bool root = Incoming[id].empty() && !Written.count(id) && place.kind != facts::PlaceKind::Local &&
                place.kind != facts::PlaceKind::Element && place.kind != facts::PlaceKind::Value;
    bool escaped = place.kind == facts::PlaceKind::Param && place.function != kNone &&
                   functions[place.function].addressEscapes;
    if (!root && !Untracked.count(id) && !escaped)
      continue;
    facts::Create c;
    c.place = id;
    if (place.kind == facts::PlaceKind::Param && place.function != kNone &&
        !Called[place.function] && !escaped && !Untracked.count(id)) {
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
std::vector<std::vector<Id>> components(std::size_t n, const std::vector<std::vector<Id>> &out) {
  std::vector<int> indexOf(n, -1), low(n, 0);
  std::vector<bool> onStack(n, false);
  std::vector<Id> stack;
  std::vector<std::vector<Id>> result;
  int counter = 0;
  struct Frame {
    Id node;
    std::size_t next;
  };
  for (Id start = 0; start < n; ++start) {
    if (indexOf[start] >= 0)
      continue;
    std::vector<Frame> frames{{start, 0}};
    indexOf[start] = low[start] = counter++;
    stack.push_back(start);
    onStack[start] = true;
    while (!frames.empty()) {
      Frame &frame = frames.back();
      if (frame.next < out[frame.node].size()) {
        Id to = out[frame.node][frame.next++];
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
        std::vector<Id> component;
        Id member;
        do {
          member = stack.back();
          stack.pop_back();
          onStack[member] = false;
          component.push_back(member);
        } while (member != node);
        result.push_back(std::move(component));
      }
    }
  }
  return result;
}
} // namespace

void Program::propagate() {
  std::size_t n = places.size();
  std::vector<std::vector<Id>> createdAt(n);
  for (Id c = 0; c < creates.size(); ++c)
    createdAt[creates[c].place].push_back(c);
  auto run = [&](bool exactOnly, std::vector<OriginSet> &result) {
    std::vector<std::vector<Id>> out(n);
    for (const facts::Flow &f : flows)
      if (!exactOnly || f.exact)
        out[f.from].push_back(f.to);
    std::vector<std::vector<Id>> sccs = components(n, out);
    std::vector<Id> sccOf(n);
    for (Id s = 0; s < sccs.size(); ++s)
      for (Id p : sccs[s])
        sccOf[p] = s;
    std::vector<OriginSet> sets(sccs.size());
    std::vector<std::vector<Id>> preds(sccs.size());
    for (Id p = 0; p < n; ++p)
      for (Id to : out[p])
        if (sccOf[to] != sccOf[p])
          preds[sccOf[to]].push_back(sccOf[p]);
    // Tarjan yields sinks first: walk backwards for sources first.
    for (std::size_t k = sccs.size(); k-- > 0;) {
      std::vector<Id> own;
      for (Id p : sccs[k])
        own.insert(own.end(), createdAt[p].begin(), createdAt[p].end());
      std::sort(own.begin(), own.end());
      own.erase(std::unique(own.begin(), own.end()), own.end());
      OriginSet shared;
      bool single = own.empty();
      for (Id pred : preds[k]) {
        if (!sets[pred] || sets[pred]->empty())
          continue;
        if (!shared)
          shared = sets[pred];
        else if (shared != sets[pred])
          single = false;
      }
      if (single) {
        sets[k] = shared;
        continue;
      }
      // All the predecessors' origins at once, then one sort: merging them one by one cost
      // O(predecessors x origins), quadratic for a helper called from every file (write_all()
      // with 10,000 callers: 0.76 s of a 10,000-unit link).
      std::set<const std::vector<Id> *> seen;
      for (Id pred : preds[k])
        if (sets[pred] && seen.insert(sets[pred].get()).second)
          own.insert(own.end(), sets[pred]->begin(), sets[pred]->end());
      std::sort(own.begin(), own.end());
      own.erase(std::unique(own.begin(), own.end()), own.end());
      sets[k] = std::make_shared<const std::vector<Id>>(std::move(own));
    }
    result.assign(n, nullptr);
    for (Id p = 0; p < n; ++p)
      result[p] = sets[sccOf[p]];
  };
  run(false, Origins);
  run(true, Exact);
}

const std::vector<Id> &Program::originsOf(Id place) const {
  if (place == kNone || place >= Origins.size() || !Origins[place])
    return none();
  return *Origins[place];
}

bool Program::reaches(Id origin, Id place) const {
  const std::vector<Id> &set = originsOf(place);
  return std::binary_search(set.begin(), set.end(), origin);
}

bool Program::reachesExactly(Id origin, Id place) const {
  if (place == kNone || place >= Exact.size() || !Exact[place])
    return false;
  return std::binary_search(Exact[place]->begin(), Exact[place]->end(), origin);
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
    for (Id listener : originsOf(c.listener)) {
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

const std::vector<Id> &Program::callsIn(Id function) const {
  return function < CallsIn.size() ? CallsIn[function] : none();
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
    if (places[p].kind != facts::PlaceKind::Element || places[p].index >= 0)
      return false;
    for (p = places[p].base; p != kNone; p = places[p].base)
      if (places[p].kind == facts::PlaceKind::Field || places[p].kind == facts::PlaceKind::Global)
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
      if (f.kind == facts::FlowKind::Argument || f.kind == facts::FlowKind::Callback ||
          f.kind == facts::FlowKind::Fallback)
        continue; // into a parameter from its callers: the parameter is where the walk ends
      const facts::Place &from = places[f.from];
      bool now = crossed || stored(f.from);
      if (from.kind == facts::PlaceKind::Param && from.function != kNone && from.function != except) {
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
  Id ret = placeByKey("r:" + functions[function].key);
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

std::vector<Id> Program::callSitesReaching(Id origin, Id place) const {
  std::vector<Id> out;
  // Backwards from `place` along flows that carry the origin; an argument flow into a callee is
  // seen from the caller at its call site, and the walk goes on into the caller's callers.
  std::set<Id> visited{place};
  std::vector<std::pair<Id, int>> work{{place, 0}};
  while (!work.empty()) {
    auto [p, depth] = work.back();
    work.pop_back();
    if (depth > 8 || p >= Incoming.size())
      continue;
    for (Id e : Incoming[p]) {
      const facts::Flow &f = flows[e];
      if (!reaches(origin, f.from))
        continue;
      if ((f.kind == facts::FlowKind::Argument || f.kind == facts::FlowKind::Callback) &&
          f.site != kNone && !llvm::is_contained(out, f.site))
        out.push_back(f.site);
      if (visited.insert(f.from).second)
        work.push_back({f.from, depth + 1});
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
    return "param:" + fn + "#" + std::to_string(p.index);
  case facts::PlaceKind::Return:
    return "ret:" + fn;
  case facts::PlaceKind::Field:
    if (p.function != kNone && p.index >= 0) // a parameter's own field: pfd->fd
      return "param:" + fn + "#" + std::to_string(p.index) + p.key.substr(p.key.rfind("->"));
    return "field:" + p.name;
  case facts::PlaceKind::Global:
    return "global:" + p.name;
  case facts::PlaceKind::Element: {
    std::string suffix = p.index < 0 ? "[*]" : "[" + std::to_string(p.index) + "]";
    return display(p.base) + suffix;
  }
  case facts::PlaceKind::Value:
    if (llvm::StringRef(p.key).starts_with("c:"))
      return "const:" + p.key.substr(2);
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
           (o.familyGuarded ? " guarded" : "") + "\n";
  auto address = [](const facts::Address &a) {
    return (a.path.empty() ? "" : " address " + a.path) +
           (a.param >= 0 ? " address_param " + std::to_string(a.param) : "");
  };
  for (const facts::LifecycleEvent &l : lifecycle)
    out += std::string(facts::name(l.kind)) + " " + display(l.place) + " line " + line(l.site) +
           address(l.address) + "\n";
  for (const facts::Write &w : writes)
    out += "write " + display(w.place) + " line " + line(w.site) + (w.credentials ? " credentials" : "") +
           address(w.address) + "\n";
  for (const facts::Receive &r : receives) {
    out += "receive " + std::string(facts::name(r.kind)) + " " + display(r.place) + " line " + line(r.site);
    Id fn = sites[r.site].function;
    if (r.kind == facts::ReceiveKind::Recvmsg && fn != kNone && credentialEvidence(fn) != kNone)
      out += " reads_credentials";
    out += "\n";
  }
  for (const facts::Send &s : sends)
    out += "send " + display(s.channel) + " line " + line(s.site) +
           (s.msghdrParam >= 0 ? " msghdr_param " + std::to_string(s.msghdrParam) : "") +
           (s.dontWait ? " dont_wait" : "") + (s.stopsOnEagain ? " stops_on_eagain" : "") + "\n";
  for (const facts::Payload &p : payloads)
    out += "payload " + display(p.place) + " line " + line(p.site) + (p.many ? " many" : "") +
           (p.count >= 0 ? " count " + std::to_string(p.count) : "") + "\n";
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
  for (const facts::Loop &l : loops)
    out += "loop line " + line(l.site) + (l.errnoRetry ? " errno_retry" : "") +
           (l.controlOnce ? " control_once" : "") +
           (l.trips ? " trips " + std::to_string(*l.trips) : "") + "\n";
  return out;
}

bool Program::loopEncloses(Id outer, Id inner) const {
  for (Id l = inner; l != kNone; l = loops[l].parent)
    if (l == outer)
      return true;
  return false;
}

} // namespace afunix::analysis
