#include "FactsBinary.h"

#include <cstring>
#include <type_traits>

namespace afunix::facts {

namespace {

constexpr char kMagic[4] = {'A', 'F', 'X', 'B'};

// Integers are LEB128 varints (signed ones zigzag-encoded); an Id is 0 for kNone and id + 1
// otherwise; a string is its length and its bytes; a list is its length and its entries.
class Encoder {
public:
  explicit Encoder(std::string &out) : Out(out) {}
  static constexpr bool kReading = false;

  void varint(std::uint64_t value) { putVarint(Out, value); }
  void u32(std::uint32_t &value) { varint(value); }
  void s64(std::int64_t &value) {
    varint((static_cast<std::uint64_t>(value) << 1) ^ static_cast<std::uint64_t>(value >> 63));
  }
  void i32(int &value) {
    std::int64_t wide = value;
    s64(wide);
  }
  void id(Id &value) { varint(value == kNone ? 0 : std::uint64_t(value) + 1); }
  void flag(bool &value) { varint(value ? 1 : 0); }
  void text(std::string &value) { putString(Out, value); }
  template <typename E> void enumeration(E &value) { varint(static_cast<std::uint64_t>(value)); }
  void optional(std::optional<std::int64_t> &value) {
    bool present = value.has_value();
    flag(present);
    if (present)
      s64(*value);
  }
  template <typename T, typename F> void list(std::vector<T> &items, F each) {
    varint(items.size());
    for (T &item : items)
      each(item);
  }

private:
  std::string &Out;
};

class Decoder {
public:
  explicit Decoder(llvm::StringRef bytes) : In(bytes) {}
  static constexpr bool kReading = true;
  std::string Error;

  bool fail(const std::string &what) {
    if (Error.empty())
      Error = what;
    In = llvm::StringRef(); // nothing more is read
    return false;
  }
  std::size_t remaining() const { return In.size(); }

  std::uint64_t varint() {
    // Most values (ids, kinds, flags, small lengths) are one byte: read here, not by a call.
    if (!In.empty() && !(static_cast<std::uint8_t>(In.front()) & 0x80)) {
      std::uint64_t value = static_cast<std::uint8_t>(In.front());
      In = In.drop_front();
      return value;
    }
    std::uint64_t value = 0;
    if (!getVarint(In, value))
      fail("truncated");
    return value;
  }
  void u32(std::uint32_t &value) {
    std::uint64_t v = varint();
    if (v > UINT32_MAX)
      fail("an integer is out of range");
    value = static_cast<std::uint32_t>(v);
  }
  void s64(std::int64_t &value) {
    std::uint64_t v = varint();
    value = static_cast<std::int64_t>((v >> 1) ^ (~(v & 1) + 1));
  }
  void i32(int &value) {
    std::int64_t wide = 0;
    s64(wide);
    if (wide < INT32_MIN || wide > INT32_MAX)
      fail("an integer is out of range");
    value = static_cast<int>(wide);
  }
  void id(Id &value) {
    std::uint64_t v = varint();
    if (v > UINT32_MAX) // id + 1 never exceeds kNone
      fail("an index is out of range");
    value = v == 0 ? kNone : static_cast<Id>(v - 1);
  }
  void flag(bool &value) {
    std::uint64_t v = varint();
    if (v > 1)
      fail("a flag is neither 0 nor 1");
    value = v == 1;
  }
  void text(std::string &value) {
    llvm::StringRef bytes;
    if (std::size_t size = In.empty() ? 0x80 : static_cast<std::uint8_t>(In.front()); size < 0x80 && size < In.size()) {
      bytes = In.substr(1, size); // a short string: its length is one byte
      In = In.drop_front(1 + size);
    } else if (!getString(In, bytes)) {
      fail("a string runs past the end");
    }
    value.assign(bytes.data(), bytes.size());
  }
  template <typename E> void enumeration(E &value) {
    std::uint64_t v = varint();
    value = static_cast<E>(v > 255 ? 255 : v);
    if (std::strcmp(name(value), "?") == 0) // the names FactsIO knows are the values that exist
      fail("an enumeration has an unknown value");
  }
  void optional(std::optional<std::int64_t> &value) {
    bool present = false;
    flag(present);
    value.reset();
    if (present) {
      std::int64_t v = 0;
      s64(v);
      value = v;
    }
  }
  template <typename T, typename F> void list(std::vector<T> &items, F each) {
    std::uint64_t size = varint();
    // Every entry takes at least one byte: a length past the end is damage, not a huge table.
    if (size > remaining()) {
      fail("a table runs past the end");
      return;
    }
    items.resize(size);
    for (T &item : items) {
      each(item);
      if (!Error.empty())
        return;
    }
  }

private:
  llvm::StringRef In;
};

// The layout, once for both directions.
template <typename IO> void transfer(IO &io, Unit &u) {
  io.text(u.mainFile);
  io.list(u.files, [&](std::string &s) { io.text(s); });
  io.list(u.digests, [&](std::string &s) { io.text(s); });
  io.list(u.places, [&](Place &p) {
    io.text(p.key);
    io.enumeration(p.kind);
    io.text(p.name);
    io.id(p.function);
    io.i32(p.index);
    io.id(p.base);
    io.id(p.field);
    io.list(p.records, [&](std::string &s) { io.text(s); });
  });
  io.list(u.sites, [&](Site &s) {
    io.id(s.file);
    io.u32(s.offset);
    io.u32(s.line);
    io.u32(s.column);
    io.u32(s.length);
    io.id(s.function);
    io.id(s.block);
    io.u32(s.element);
    io.id(s.loop);
    io.text(s.text);
    io.text(s.var);
  });
  io.list(u.statements, [&](Statement &s) {
    io.id(s.file);
    io.u32(s.begin);
    io.u32(s.end);
    io.u32(s.removeBegin);
    io.u32(s.removeEnd);
    io.u32(s.latestDeclaration);
    io.u32(s.block);
    io.text(s.text);
    io.text(s.indentation);
    io.flag(s.plainSocket);
    io.flag(s.followsCall);
    io.flag(s.labelled);
    io.u32(s.movableAbove);
    io.enumeration(s.moveStop);
    io.u32(s.moveStopLine);
    io.text(s.moveStopName);
    io.list(s.companions, [&](Companion &c) {
      io.u32(c.begin);
      io.u32(c.removeBegin);
      io.u32(c.removeEnd);
      io.text(c.text);
    });
  });
  io.list(u.loops, [&](Loop &l) {
    io.id(l.function);
    io.id(l.parent);
    io.id(l.site);
    io.flag(l.errnoRetry);
    io.flag(l.controlOnce);
    io.flag(l.oneMessage);
    io.optional(l.trips);
  });
  io.list(u.functions, [&](Function &f) {
    io.text(f.key);
    io.text(f.name);
    io.flag(f.defined);
    io.id(f.file);
    io.u32(f.params);
    io.list(f.paramIsInt, [&](Id &p) { io.u32(p); });
    io.list(f.successors, [&](std::vector<std::uint32_t> &block) {
      io.list(block, [&](std::uint32_t &b) { io.u32(b); });
    });
    io.list(f.idom, [&](Id &d) { io.id(d); });
    io.id(f.entry);
    io.id(f.credentialEvidence);
    io.enumeration(f.credentialOutcome);
    io.list(f.controlCallees, [&](Id &c) { io.id(c); });
    io.list(f.controlBuffers, [&](Id &b) { io.id(b); });
    io.list(f.overrides, [&](Id &o) { io.id(o); });
    io.flag(f.buildsScmRights);
    io.flag(f.buildsScmCredentials);
    io.flag(f.addressEscapes);
    io.flag(f.system);
    io.flag(f.method);
  });
  io.list(u.creates, [&](Create &c) {
    io.id(c.place);
    io.id(c.site);
    io.enumeration(c.how);
    io.enumeration(c.family);
    io.text(c.familyName);
    io.i32(c.type);
    io.id(c.peer);
    io.id(c.listener);
    io.i32(c.end);
    io.id(c.statement);
    io.text(c.creator);
    io.text(c.origin);
    io.text(c.handover);
    io.list(c.handoverNames, [&](std::string &n) { io.text(n); });
    io.i32(c.familyParam);
    io.i32(c.typeParam);
    io.id(c.familyFrom);
  });
  io.list(u.options, [&](OptionSet &o) {
    io.id(o.place);
    io.id(o.site);
    io.enumeration(o.option);
    io.enumeration(o.value);
    io.flag(o.throughWrapper);
    io.flag(o.familyGuarded);
    io.id(o.statement);
    io.i32(o.optionParam);
    io.i32(o.valueParam);
    io.i32(o.levelParam);
  });
  io.list(u.lifecycle, [&](LifecycleEvent &e) {
    io.id(e.place);
    io.id(e.site);
    io.enumeration(e.kind);
    io.id(e.statement);
    io.text(e.address.path);
    io.i32(e.address.param);
    io.text(e.maker);
  });
  io.list(u.receives, [&](Receive &r) {
    io.id(r.place);
    io.id(r.site);
    io.enumeration(r.kind);
  });
  io.list(u.received, [&](Received &r) {
    io.id(r.place);
    io.id(r.site);
  });
  io.list(u.payloads, [&](Payload &p) {
    io.id(p.place);
    io.id(p.site);
    io.flag(p.many);
    io.s64(p.count);
    io.flag(p.boundedArray);
    io.i32(p.countParam);
  });
  io.list(u.sends, [&](Send &s) {
    io.id(s.channel);
    io.id(s.site);
    io.i32(s.msghdrParam);
    io.flag(s.dontWait);
    io.flag(s.stopsOnEagain);
  });
  io.list(u.writes, [&](Write &w) {
    io.id(w.place);
    io.id(w.site);
    io.flag(w.credentials);
    io.text(w.address.path);
    io.i32(w.address.param);
  });
  io.list(u.limits, [&](Limit &l) {
    io.id(l.site);
    io.s64(l.count);
    io.enumeration(l.where);
  });
  io.list(u.flows, [&](Flow &f) {
    io.id(f.from);
    io.id(f.to);
    io.enumeration(f.kind);
    io.id(f.site);
    io.flag(f.exact);
  });
  auto argument = [&](Argument &a) {
    io.id(a.place);
    io.enumeration(a.mode);
    io.text(a.text);
    io.text(a.var);
    io.text(a.constant);
    io.s64(a.number);
    io.i32(a.param);
    io.flag(a.exact);
  };
  auto call = [&](Call &c) {
    io.id(c.site);
    io.id(c.caller);
    io.id(c.callee);
    io.id(c.target);
    io.list(c.args, argument);
    argument(c.receiver);
    io.flag(c.passesControl);
  };
  io.list(u.calls, call);
  io.list(u.indirectCalls, call);
  io.list(u.points, [&](Points &p) {
    io.id(p.place);
    io.id(p.target);
    io.id(p.function);
    io.i32(p.constant);
  });
  io.list(u.containers, [&](ContainerOf &c) {
    io.id(c.place);
    io.id(c.pointer);
    io.text(c.member);
  });
  io.list(u.callbacks, [&](Callback &c) {
    io.id(c.site);
    io.id(c.socket);
    io.id(c.callee);
    io.i32(c.param);
    io.text(c.registrar);
  });
  io.list(u.untracked, [&](Id &p) { io.id(p); });
  io.list(u.services, [&](ServiceSocket &v) {
    io.enumeration(v.manager);
    io.id(v.site);
    io.text(v.unit);
    io.text(v.name);
    io.i32(v.index);
    io.text(v.address);
    io.enumeration(v.family);
    io.i32(v.type);
    io.enumeration(v.passcred);
    io.id(v.passcredSite);
    io.flag(v.accept);
    io.list(v.programs, [&](std::string &p) { io.text(p); });
    io.id(v.enableAt);
    io.u32(v.enableLength);
    io.text(v.enableText);
    io.id(v.removeAt);
    io.u32(v.removeLength);
  });
  io.text(u.target);
  io.flag(u.skipped);
}

} // namespace

void putVarint(std::string &out, std::uint64_t value) {
  do {
    std::uint8_t byte = value & 0x7f;
    value >>= 7;
    out.push_back(static_cast<char>(byte | (value ? 0x80 : 0)));
  } while (value);
}

void putString(std::string &out, llvm::StringRef value) {
  putVarint(out, value.size());
  out.append(value.data(), value.size());
}

bool getVarint(llvm::StringRef &in, std::uint64_t &value) {
  value = 0;
  for (unsigned shift = 0; shift < 64 && !in.empty(); shift += 7) {
    auto byte = static_cast<std::uint8_t>(in.front());
    in = in.drop_front();
    value |= std::uint64_t(byte & 0x7f) << shift;
    if (!(byte & 0x80))
      return true;
  }
  return false;
}

bool getString(llvm::StringRef &in, llvm::StringRef &value) {
  std::uint64_t size = 0;
  if (!getVarint(in, size) || size > in.size())
    return false;
  value = in.take_front(size);
  in = in.drop_front(size);
  return true;
}

bool getStrings(llvm::StringRef &in, std::vector<std::string> &strings) {
  std::uint64_t count = 0;
  if (!getVarint(in, count) || count > in.size())
    return false;
  strings.resize(count);
  for (std::string &value : strings) {
    llvm::StringRef bytes;
    if (!getString(in, bytes))
      return false;
    value = bytes.str();
  }
  return true;
}

void encodeUnit(const Unit &unit, std::string &out) {
  out.append(kMagic, sizeof kMagic);
  Encoder io(out);
  io.varint(kBinaryLayoutVersion);
  io.varint(kFormatVersion);
  transfer(io, const_cast<Unit &>(unit)); // the encoder only reads
}

std::string encodeUnit(const Unit &unit) {
  std::string out;
  encodeUnit(unit, out);
  return out;
}

llvm::Expected<Unit> decodeUnit(llvm::StringRef bytes) {
  auto error = [](const std::string &what) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), what);
  };
  if (!bytes.starts_with(llvm::StringRef(kMagic, sizeof kMagic)))
    return error("not binary facts");
  Decoder io(bytes.drop_front(sizeof kMagic));
  std::uint64_t layout = io.varint(), version = io.varint();
  if (!io.Error.empty())
    return error("damaged binary facts: " + io.Error);
  if (layout != kBinaryLayoutVersion || version != kFormatVersion)
    return error("binary facts of layout " + std::to_string(layout) + ", format version " +
                 std::to_string(version) + "; this afunix-check reads layout " +
                 std::to_string(kBinaryLayoutVersion) + ", version " +
                 std::to_string(kFormatVersion));
  Unit unit;
  transfer(io, unit);
  if (io.Error.empty() && io.remaining())
    io.fail("bytes after the end");
  if (!io.Error.empty())
    return error("damaged binary facts: " + io.Error);
  if (std::string wrong = checkUnit(unit); !wrong.empty())
    return error("damaged binary facts: " + wrong);
  return unit;
}

std::string checkUnit(const Unit &u) {
  std::string error;
  auto fail = [&](const std::string &what) {
    if (error.empty())
      error = what;
  };
  // `id` names an entry of a table of `size` (or is kNone where that is allowed).
  auto ref = [&](Id id, std::size_t size, const char *where, bool required = false) {
    if (id == kNone ? required : id >= size)
      fail(std::string(where) + (id == kNone ? " is missing" : " does not name an entry"));
  };
  std::size_t files = u.files.size(), places = u.places.size(), sites = u.sites.size(),
              statements = u.statements.size(), loops = u.loops.size(),
              functions = u.functions.size();
  if (!u.digests.empty() && u.digests.size() != files)
    fail("digests: not one per file");
  for (const Function &f : u.functions) {
    if (f.key.empty())
      fail("functions: an entry has no key");
    ref(f.file, files, "functions: file");
    for (Id p : f.paramIsInt)
      if (p >= f.params)
        fail("functions: fd_params names no parameter");
    std::size_t blocks = f.successors.size();
    if (blocks == 0 ? f.entry != kNone || !f.idom.empty() : f.idom.size() != blocks)
      fail("cfg: idom and successors differ in length");
    if (blocks)
      ref(f.entry, blocks, "cfg: entry", true);
    for (const std::vector<std::uint32_t> &next : f.successors)
      for (std::uint32_t b : next)
        ref(b, blocks, "cfg successors", true);
    for (Id d : f.idom)
      ref(d, blocks, "cfg idom");
    ref(f.credentialEvidence, sites, "functions: credential_evidence");
    for (Id c : f.controlCallees)
      ref(c, functions, "control_callees", true);
    for (Id b : f.controlBuffers)
      ref(b, places, "control_buffers", true);
    for (Id o : f.overrides)
      ref(o, functions, "overrides", true);
  }
  for (const Place &p : u.places) {
    if (p.key.empty())
      fail("places: an entry has no key");
    ref(p.function, functions, "places: function");
    ref(p.base, places, "places: base");
    ref(p.field, places, "places: field");
  }
  for (const Site &s : u.sites) {
    ref(s.file, files, "sites: file");
    ref(s.function, functions, "sites: function");
    ref(s.loop, loops, "sites: loop");
    if (s.block != kNone && s.function != kNone && s.function < functions &&
        s.block >= u.functions[s.function].successors.size())
      fail("sites: block " + std::to_string(s.block) + " outside the " +
           std::to_string(u.functions[s.function].successors.size()) + "-block CFG of " +
           u.functions[s.function].name + " (line " + std::to_string(s.line) + ")");
  }
  for (const Statement &s : u.statements) {
    ref(s.file, files, "statements: file");
    if (s.end < s.begin || s.removeEnd < s.removeBegin || s.movableAbove > s.begin)
      fail("statements: a range ends before it begins");
  }
  for (const Loop &l : u.loops) {
    ref(l.function, functions, "loops: function");
    ref(l.parent, loops, "loops: parent");
    ref(l.site, sites, "loops: site");
  }
  for (const Create &c : u.creates) {
    ref(c.place, places, "creates: place", true);
    ref(c.site, sites, "creates: site");
    ref(c.peer, places, "creates: peer");
    ref(c.listener, places, "creates: listener");
    ref(c.familyFrom, places, "creates: family_from");
    ref(c.statement, statements, "creates: statement");
  }
  for (const OptionSet &o : u.options) {
    ref(o.place, places, "options: place", true);
    ref(o.site, sites, "options: site", true);
    ref(o.statement, statements, "options: statement");
  }
  for (const LifecycleEvent &e : u.lifecycle) {
    ref(e.place, places, "lifecycle: place", true);
    ref(e.site, sites, "lifecycle: site", true);
    ref(e.statement, statements, "lifecycle: statement");
  }
  for (const Receive &r : u.receives) {
    ref(r.place, places, "receives: place", true);
    ref(r.site, sites, "receives: site", true);
  }
  for (const Payload &p : u.payloads) {
    ref(p.place, places, "payloads: place");
    ref(p.site, sites, "payloads: site", true);
  }
  for (const Received &r : u.received) {
    ref(r.place, places, "received: place");
    ref(r.site, sites, "received: site", true);
  }
  for (const Send &s : u.sends) {
    ref(s.channel, places, "sends: channel");
    ref(s.site, sites, "sends: site", true);
  }
  for (const Limit &l : u.limits)
    ref(l.site, sites, "limits: site", true);
  for (const Flow &f : u.flows) {
    ref(f.from, places, "flows: from", true);
    ref(f.to, places, "flows: to", true);
    ref(f.site, sites, "flows: site");
  }
  auto checkCall = [&](const Call &c, bool indirect) {
    ref(c.site, sites, "calls: site", true);
    ref(c.caller, functions, "calls: caller");
    ref(c.callee, functions, "calls: callee", !indirect);
    ref(c.target, places, "calls: target", indirect);
    ref(c.receiver.place, places, "call receiver: place");
    for (const Argument &a : c.args) {
      ref(a.place, places, "call args: place");
      if (a.place == kNone && (a.mode == ArgMode::Address || a.mode == ArgMode::Array))
        fail("call args: an address or array argument names no place");
    }
  };
  for (const Call &c : u.calls)
    checkCall(c, false);
  for (const Call &c : u.indirectCalls)
    checkCall(c, true);
  for (const Points &p : u.points) {
    ref(p.place, places, "points: place", true);
    ref(p.target, places, "points: target");
    ref(p.function, functions, "points: function");
    if ((p.target != kNone) + (p.function != kNone) + (p.constant >= 0) != 1)
      fail("points: an entry names not exactly one of an object, a function and a constant");
  }
  for (const ContainerOf &c : u.containers) {
    ref(c.place, places, "containers: place", true);
    ref(c.pointer, places, "containers: pointer", true);
  }
  for (const Callback &c : u.callbacks) {
    ref(c.site, sites, "callbacks: site", true);
    ref(c.socket, places, "callbacks: socket", true);
    ref(c.callee, functions, "callbacks: callee", true);
  }
  for (Id p : u.untracked)
    ref(p, places, "untracked", true);
  for (const Write &w : u.writes) {
    ref(w.place, places, "writes: place", true);
    ref(w.site, sites, "writes: site", true);
  }
  for (const ServiceSocket &v : u.services) {
    ref(v.site, sites, "services: site", true);
    ref(v.passcredSite, sites, "services: passcred_site");
    ref(v.enableAt, sites, "services: enable_at", true);
    ref(v.removeAt, sites, "services: remove_at");
  }
  return error;
}

} // namespace afunix::facts
