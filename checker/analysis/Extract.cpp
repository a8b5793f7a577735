// The entry point, and the end of a unit: which functions escape, and only the places that can
// matter (ExtractorImpl.h says how the extractor is split).
#include "ExtractorImpl.h"

namespace afunix::analysis {

namespace extraction {

// ---------------------------------------------------------------------------------------------
// The end of the unit: which functions escape, and only the places that can matter.

void Extractor::finishUnit() {
  for (auto [ref, fn] : FunctionRefs)
    if (!ModeledRefs.count(ref) && fn->getNumParams() > 0) {
      bool fdParam = false;
      for (const ParmVarDecl *param : fn->parameters())
        fdParam |= holdsFd(param->getType());
      if (fdParam)
        U.functions[functionId(fn)].addressEscapes = true;
    }

  // fds[i] reads every element of the array; which one is not known, so not "the same" fd.
  for (Id id = 0, count = U.places.size(); id < count; ++id) {
    const facts::Place &p = U.places[id];
    if (p.kind == facts::PlaceKind::Element && p.index >= 0 && p.base != kNone)
      if (auto any = PlaceIds.find(U.places[p.base].key + "[*]"); any != PlaceIds.end())
        addFlow(id, any->second, facts::FlowKind::Element, /*exact=*/false);
  }

  // A local can be dropped when no socket can reach it or it leads to nothing: every other place
  // is seen by other TUs (parameters, returns, fields, globals, created values).
  std::size_t n = U.places.size();
  // Objects whose address is taken are reached through pointers the link resolves: their fields
  // are kept, and so are places reached through pointers and the pointers themselves.
  std::vector<char> addressed(n, 0);
  for (const facts::Points &pt : U.points)
    if (pt.target != kNone)
      addressed[pt.target] = 1;
  auto local = [&](Id id) {
    while (U.places[id].kind == facts::PlaceKind::Element || U.places[id].kind == facts::PlaceKind::Member) {
      if (addressed[id])
        return false;
      id = U.places[id].base;
    }
    return U.places[id].kind == facts::PlaceKind::Local && !addressed[id];
  };
  std::vector<std::vector<Id>> out(n), in(n);
  for (const facts::Flow &flow : U.flows) {
    out[flow.from].push_back(flow.to);
    in[flow.to].push_back(flow.from);
  }
  auto reach = [&](std::vector<char> &mark, const std::vector<std::vector<Id>> &edges) {
    std::vector<Id> work;
    for (Id id = 0; id < n; ++id)
      if (mark[id])
        work.push_back(id);
    while (!work.empty()) {
      Id id = work.back();
      work.pop_back();
      for (Id next : edges[id])
        if (!mark[next]) {
          mark[next] = 1;
          work.push_back(next);
        }
    }
  };
  std::vector<char> source(n, 0), sink(n, 0);
  for (Id id = 0; id < n; ++id)
    if (!local(id))
      source[id] = sink[id] = 1;
  // Elements hang off their base: keep the base wherever an element is kept.
  for (Id id : U.untracked)
    source[id] = 1;
  for (const facts::Received &r : U.received)
    source[r.place] = 1;
  for (const facts::Create &c : U.creates) {
    source[c.place] = 1;
    if (c.listener != kNone)
      sink[c.listener] = 1;
    if (c.familyFrom != kNone)
      sink[c.familyFrom] = 1; // the constants reaching it decide the family
    if (c.peer != kNone)
      sink[c.peer] = source[c.peer] = 1;
  }
  for (const facts::OptionSet &f : U.options)
    sink[f.place] = 1;
  for (const facts::LifecycleEvent &f : U.lifecycle)
    sink[f.place] = 1;
  for (const facts::Receive &f : U.receives)
    sink[f.place] = 1;
  for (const facts::Payload &f : U.payloads)
    if (f.place != kNone)
      sink[f.place] = 1;
  for (const facts::Send &f : U.sends)
    if (f.channel != kNone)
      sink[f.channel] = 1;
  for (const facts::Write &f : U.writes)
    sink[f.place] = 1;
  for (const facts::Function &f : U.functions)
    for (Id buffer : f.controlBuffers)
      sink[buffer] = 1; // named by what points to it (Program::controlBufferNames)
  for (const facts::Call &c : U.calls)
    for (const facts::Argument &a : c.args)
      if (a.place != kNone) {
        sink[a.place] = 1;
        // f(&fd), f(sv): the callee writes through the pointer, so the caller's place (and its
        // elements) can receive a socket the link will bring.
        if (a.mode == facts::ArgMode::Address || a.mode == facts::ArgMode::Array)
          source[a.place] = 1;
      }
  for (Id id = 0; id < n; ++id)
    if (U.places[id].base != kNone && source[U.places[id].base])
      source[id] = 1;
  for (const facts::Callback &c : U.callbacks)
    sink[c.socket] = 1;
  for (const facts::Points &pt : U.points)
    source[pt.place] = 1;
  for (const facts::ContainerOf &c : U.containers) {
    source[c.place] = 1;
    sink[c.pointer] = 1;
  }
  for (const facts::Call &c : U.indirectCalls) {
    sink[c.target] = 1;
    for (const facts::Argument &a : c.args)
      if (a.place != kNone)
        sink[a.place] = 1;
  }
  for (const facts::Call &c : U.calls)
    if (c.receiver.place != kNone)
      sink[c.receiver.place] = 1;
  for (Id id = 0; id < n; ++id)
    if (U.places[id].kind == facts::PlaceKind::Deref)
      sink[U.places[id].base] = source[id] = sink[id] = 1; // what it points to is found by the link
  // An array's elements are read where the array is (a payload copied from `fds`).
  for (Id id = 0; id < n; ++id)
    if (U.places[id].base != kNone && sink[U.places[id].base])
      sink[id] = 1;
  reach(source, out);
  reach(sink, in);
  std::vector<char> keep(n, 0);
  for (Id id = 0; id < n; ++id)
    keep[id] = !local(id) || (source[id] && sink[id]);
  // An element keeps its base (for keys and names), and fact places are always kept.
  for (Id id = 0; id < n; ++id)
    if (keep[id])
      for (Id base = U.places[id].base; base != kNone; base = U.places[base].base)
        keep[base] = 1;
  auto force = [&](Id id) {
    for (; id != kNone; id = U.places[id].base)
      keep[id] = 1;
  };
  for (const facts::Create &c : U.creates) {
    force(c.place);
    force(c.listener);
    force(c.peer);
    force(c.familyFrom);
  }
  for (const facts::OptionSet &f : U.options)
    force(f.place);
  for (const facts::LifecycleEvent &f : U.lifecycle)
    force(f.place);
  for (const facts::Receive &f : U.receives)
    force(f.place);
  for (const facts::Payload &f : U.payloads)
    force(f.place);
  for (const facts::Received &f : U.received)
    force(f.place);
  for (const facts::Send &f : U.sends)
    force(f.channel);
  for (const facts::Write &f : U.writes)
    force(f.place);
  for (const facts::Function &f : U.functions)
    for (Id buffer : f.controlBuffers)
      force(buffer);
  for (const facts::Callback &c : U.callbacks)
    force(c.socket);
  for (const facts::Points &pt : U.points) {
    force(pt.place);
    force(pt.target);
  }
  for (const facts::Call &c : U.indirectCalls)
    force(c.target);
  for (const facts::ContainerOf &c : U.containers) {
    force(c.place);
    force(c.pointer);
  }
  for (Id id = 0; id < n; ++id)
    if (U.places[id].kind == facts::PlaceKind::Deref && keep[id])
      force(id);
  // A kept member keeps its record's field place (where pointers from outside meet).
  for (Id id = 0; id < n; ++id)
    if (keep[id] && U.places[id].field != kNone)
      force(U.places[id].field);

  std::vector<Id> remap(n, kNone);
  std::vector<facts::Place> places;
  for (Id id = 0; id < n; ++id)
    if (keep[id]) {
      remap[id] = places.size();
      places.push_back(std::move(U.places[id]));
    }
  auto map = [&](Id &id) {
    if (id != kNone)
      id = remap[id];
  };
  for (facts::Place &p : places)
    map(p.base);
  U.places = std::move(places);
  std::vector<facts::Flow> flows;
  for (facts::Flow &f : U.flows)
    if (keep[f.from] && keep[f.to]) {
      map(f.from);
      map(f.to);
      flows.push_back(f);
    }
  U.flows = std::move(flows);
  std::vector<Id> untrackedKept;
  for (Id id : U.untracked)
    if (keep[id])
      untrackedKept.push_back(remap[id]);
  std::sort(untrackedKept.begin(), untrackedKept.end());
  untrackedKept.erase(std::unique(untrackedKept.begin(), untrackedKept.end()), untrackedKept.end());
  U.untracked = std::move(untrackedKept);
  for (facts::Create &c : U.creates) {
    map(c.place);
    map(c.listener);
    map(c.peer);
    map(c.familyFrom);
  }
  for (facts::OptionSet &f : U.options)
    map(f.place);
  for (facts::LifecycleEvent &f : U.lifecycle)
    map(f.place);
  for (facts::Receive &f : U.receives)
    map(f.place);
  for (facts::Payload &f : U.payloads)
    map(f.place);
  for (facts::Received &f : U.received)
    map(f.place);
  for (facts::Send &f : U.sends)
    map(f.channel);
  for (facts::Write &f : U.writes)
    map(f.place);
  for (facts::Function &f : U.functions)
    for (Id &buffer : f.controlBuffers)
      map(buffer);
  for (facts::Callback &c : U.callbacks)
    map(c.socket);
  for (facts::ContainerOf &c : U.containers) {
    map(c.place);
    map(c.pointer);
  }
  for (facts::Place &p : U.places)
    if (p.field != kNone)
      p.field = keep[p.field] ? remap[p.field] : kNone;
  std::vector<facts::Points> points;
  for (facts::Points &pt : U.points)
    if (keep[pt.place] && (pt.target == kNone || keep[pt.target])) {
      map(pt.place);
      map(pt.target);
      points.push_back(pt);
    }
  U.points = std::move(points);
  for (facts::Call &c : U.indirectCalls)
    map(c.target);
  auto mapArgument = [&](facts::Argument &a) {
    if (a.place == kNone)
      return;
    if (!keep[a.place]) {
      // No socket can reach it: nothing flows into the parameter from here.
      a.place = kNone;
      a.mode = facts::ArgMode::None;
    } else {
      map(a.place);
    }
  };
  for (std::vector<facts::Call> *list : {&U.calls, &U.indirectCalls})
    for (facts::Call &c : *list) {
      for (facts::Argument &a : c.args)
        mapArgument(a);
      mapArgument(c.receiver);
    }
}


} // namespace extraction

facts::Unit extractFacts(ASTContext &context, const ProjectOptions &options) {
  return extraction::Extractor(context, options).run();
}

} // namespace afunix::analysis
