#include "FactsIO.h"

#include "InputFiles.h"
#include "afunix/KernelConstants.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"

#include <array>
#include <optional>

namespace afunix::facts {

namespace json = llvm::json;

// ---------------------------------------------------------------------------------------------
// Enum names: what messages print and what the file stores.

namespace {
template <typename E, std::size_t N> struct Names {
  std::array<const char *, N> names;
  const char *of(E value) const {
    auto index = static_cast<std::size_t>(value);
    return index < N ? names[index] : "?";
  }
  std::optional<E> parse(llvm::StringRef text) const {
    for (std::size_t i = 0; i < N; ++i)
      if (text == names[i])
        return static_cast<E>(i);
    return std::nullopt;
  }
};

constexpr Names<PlaceKind, 10> kPlaceKinds{
    {"local", "param", "field", "global", "element", "return", "value", "member", "deref", "object"}};
constexpr Names<CreateHow, 8> kCreateHows{
    {"socket", "socketpair", "accept", "producer", "external", "not-socket", "parameter", "unknown"}};
constexpr Names<Family, 7> kFamilies{
    {"unknown", "AF_UNIX", "AF_NETLINK", "AF_BLUETOOTH", "AF_INET", "AF_INET6", "other"}};
constexpr Names<Option, 3> kOptions{{"SO_PASSCRED", "SO_PASSSEC", "SO_PASSPIDFD"}};
constexpr Names<Tri, 3> kTris{{"false", "true", "maybe"}};
constexpr Names<Lifecycle, 3> kLifecycles{{"bind", "listen", "connect"}};
constexpr Names<ReceiveKind, 2> kReceiveKinds{{"recvmsg", "other"}};
constexpr Names<LimitWhere, 4> kLimitWheres{{"cmsg_len", "payload_copy", "buffer_size", "queued_message"}};
constexpr Names<FlowKind, 9> kFlowKinds{
    {"init", "assign", "argument", "return", "element", "callback", "fallback", "resolved", "alias"}};
constexpr Names<ArgMode, 5> kArgModes{{"none", "value", "address", "array", "constant"}};
constexpr Names<CredentialOutcome, 3> kOutcomes{{"unknown", "fails-open", "fails-closed"}};
constexpr Names<Manager, 2> kManagers{{"systemd", "android-init"}};
constexpr Names<MoveStop, 10> kMoveStops{{"unmovable", "block-start", "label", "directive", "macro",
                                          "sets", "defines", "uses", "calls", "limit"}};
} // namespace

Family familyFromValue(std::int64_t value) {
  switch (value) {
  case kernel::kAfUnix: // == AF_LOCAL
    return Family::Unix;
  case kernel::kAfNetlink:
    return Family::Netlink;
  case kernel::kAfBluetooth:
    return Family::Bluetooth;
  case kernel::kAfInet:
    return Family::Inet;
  case kernel::kAfInet6:
    return Family::Inet6;
  default:
    return Family::Other;
  }
}

std::optional<Option> optionFromValue(std::int64_t value) {
  switch (value) {
  case kernel::kSoPassCred:
    return Option::PassCred;
  case kernel::kSoPassSec:
    return Option::PassSec;
  case kernel::kSoPassPidfd:
    return Option::PassPidfd;
  default:
    return std::nullopt;
  }
}

const char *name(PlaceKind kind) { return kPlaceKinds.of(kind); }
const char *name(CreateHow how) { return kCreateHows.of(how); }
const char *name(Family family) { return kFamilies.of(family); }
const char *name(Option option) { return kOptions.of(option); }
const char *name(Tri value) { return kTris.of(value); }
const char *name(Lifecycle kind) { return kLifecycles.of(kind); }
const char *name(ReceiveKind kind) { return kReceiveKinds.of(kind); }
const char *name(LimitWhere where) { return kLimitWheres.of(where); }
const char *name(FlowKind kind) { return kFlowKinds.of(kind); }
const char *name(ArgMode mode) { return kArgModes.of(mode); }
const char *name(CredentialOutcome outcome) { return kOutcomes.of(outcome); }
const char *name(Manager manager) { return kManagers.of(manager); }
const char *name(MoveStop stop) { return kMoveStops.of(stop); }

// ---------------------------------------------------------------------------------------------
// Writing. Defaults (kNone, -1, false, "") are left out; the reader puts them back.

namespace {

class Writer {
public:
  explicit Writer(llvm::raw_ostream &out) : J(out) {}

  void id(llvm::StringRef key, Id value) {
    if (value != kNone)
      J.attribute(key, static_cast<std::int64_t>(value));
  }
  void integer(llvm::StringRef key, std::int64_t value, std::int64_t skip) {
    if (value != skip)
      J.attribute(key, value);
  }
  void flag(llvm::StringRef key, bool value) {
    if (value)
      J.attribute(key, true);
  }
  void text(llvm::StringRef key, const std::string &value) {
    if (!value.empty())
      J.attribute(key, value);
  }
  void strings(llvm::StringRef key, const std::vector<std::string> &values) {
    if (values.empty())
      return;
    J.attributeArray(key, [&] {
      for (const std::string &v : values)
        J.value(v);
    });
  }
  template <typename T> void ids(llvm::StringRef key, const std::vector<T> &values) {
    if (values.empty())
      return;
    J.attributeArray(key, [&] {
      for (T v : values)
        J.value(static_cast<std::int64_t>(v));
    });
  }
  template <typename T, typename F> void array(llvm::StringRef key, const std::vector<T> &items, F each) {
    J.attributeArray(key, [&] {
      for (const T &item : items)
        J.object([&] { each(item); });
    });
  }

  json::OStream J;
};

} // namespace

void writeUnit(const Unit &u, llvm::raw_ostream &out) {
  Writer w(out);
  auto &j = w.J;
  j.object([&] {
    j.attribute("format", "afunix-facts");
    j.attribute("version", kFormatVersion);
    j.attribute("main_file", u.mainFile);
    j.attributeArray("files", [&] {
      for (const std::string &f : u.files)
        j.value(f);
    });
    j.attributeArray("digests", [&] {
      for (const std::string &d : u.digests)
        j.value(d);
    });
    w.array("functions", u.functions, [&](const Function &f) {
      j.attribute("key", f.key);
      w.text("name", f.name);
      w.flag("defined", f.defined);
      w.id("file", f.file);
      w.integer("params", f.params, 0);
      w.ids("fd_params", f.paramIsInt);
      if (!f.successors.empty()) {
        j.attributeObject("cfg", [&] {
          j.attribute("entry", static_cast<std::int64_t>(f.entry));
          j.attributeArray("successors", [&] {
            for (const auto &succ : f.successors)
              j.array([&] {
                for (std::uint32_t s : succ)
                  j.value(static_cast<std::int64_t>(s));
              });
          });
          j.attributeArray("idom", [&] {
            for (Id d : f.idom)
              j.value(d == kNone ? std::int64_t(-1) : std::int64_t(d));
          });
        });
      }
      w.id("credential_evidence", f.credentialEvidence);
      if (f.credentialOutcome != CredentialOutcome::Unknown)
        j.attribute("credential_check", name(f.credentialOutcome));
      w.ids("control_callees", f.controlCallees);
      w.ids("control_buffers", f.controlBuffers);
      w.ids("overrides", f.overrides);
      w.flag("builds_scm_rights", f.buildsScmRights);
      w.flag("builds_scm_credentials", f.buildsScmCredentials);
      w.flag("address_escapes", f.addressEscapes);
      w.flag("system", f.system);
      w.flag("method", f.method);
    });
    w.array("places", u.places, [&](const Place &p) {
      j.attribute("key", p.key);
      j.attribute("kind", name(p.kind));
      w.text("name", p.name);
      w.id("function", p.function);
      w.integer("index", p.index, -1);
      w.id("base", p.base);
      w.id("field", p.field);
      w.strings("records", p.records);
    });
    w.array("sites", u.sites, [&](const Site &s) {
      w.id("file", s.file);
      j.attribute("offset", static_cast<std::int64_t>(s.offset));
      j.attribute("line", static_cast<std::int64_t>(s.line));
      j.attribute("column", static_cast<std::int64_t>(s.column));
      w.integer("length", s.length, 0);
      w.id("function", s.function);
      w.id("block", s.block);
      if (s.block != kNone)
        j.attribute("element", static_cast<std::int64_t>(s.element));
      w.id("loop", s.loop);
      w.text("text", s.text);
      w.text("var", s.var);
    });
    w.array("statements", u.statements, [&](const Statement &s) {
      w.id("file", s.file);
      j.attribute("begin", static_cast<std::int64_t>(s.begin));
      j.attribute("end", static_cast<std::int64_t>(s.end));
      j.attribute("remove_begin", static_cast<std::int64_t>(s.removeBegin));
      j.attribute("remove_end", static_cast<std::int64_t>(s.removeEnd));
      w.integer("latest_declaration", s.latestDeclaration, 0);
      j.attribute("block", static_cast<std::int64_t>(s.block));
      j.attribute("text", s.text);
      w.text("indentation", s.indentation);
      w.flag("plain_socket", s.plainSocket);
      w.flag("follows_call", s.followsCall);
      w.flag("labelled", s.labelled);
      j.attribute("movable_above", static_cast<std::int64_t>(s.movableAbove));
      j.attribute("move_stop", name(s.moveStop));
      w.integer("move_stop_line", s.moveStopLine, 0);
      w.text("move_stop_name", s.moveStopName);
      if (!s.companions.empty())
        w.array("companions", s.companions, [&](const Companion &c) {
          j.attribute("begin", static_cast<std::int64_t>(c.begin));
          j.attribute("remove_begin", static_cast<std::int64_t>(c.removeBegin));
          j.attribute("remove_end", static_cast<std::int64_t>(c.removeEnd));
          j.attribute("text", c.text);
        });
    });
    w.array("loops", u.loops, [&](const Loop &l) {
      w.id("function", l.function);
      w.id("parent", l.parent);
      w.id("site", l.site);
      w.flag("errno_retry", l.errnoRetry);
      w.flag("control_once", l.controlOnce);
      w.flag("one_message", l.oneMessage);
      if (l.trips)
        j.attribute("trips", *l.trips);
    });
    w.array("creates", u.creates, [&](const Create &c) {
      j.attribute("place", static_cast<std::int64_t>(c.place));
      w.id("site", c.site);
      j.attribute("how", name(c.how));
      if (c.family != Family::Unknown)
        j.attribute("family", name(c.family));
      w.text("family_name", c.familyName);
      w.integer("type", c.type, -1);
      w.id("peer", c.peer);
      w.id("listener", c.listener);
      w.integer("end", c.end, -1);
      w.id("statement", c.statement);
      w.text("creator", c.creator);
      w.text("origin", c.origin);
      w.text("handover", c.handover);
      w.strings("handover_names", c.handoverNames);
      w.integer("family_param", c.familyParam, -1);
      w.integer("type_param", c.typeParam, -1);
      w.id("family_from", c.familyFrom);
    });
    w.array("options", u.options, [&](const OptionSet &o) {
      j.attribute("place", static_cast<std::int64_t>(o.place));
      j.attribute("site", static_cast<std::int64_t>(o.site));
      j.attribute("option", name(o.option));
      j.attribute("value", name(o.value));
      w.flag("wrapper", o.throughWrapper);
      w.flag("family_guarded", o.familyGuarded);
      w.id("statement", o.statement);
      w.integer("option_param", o.optionParam, -1);
      w.integer("value_param", o.valueParam, -1);
      w.integer("level_param", o.levelParam, -1);
    });
    w.array("lifecycle", u.lifecycle, [&](const LifecycleEvent &l) {
      j.attribute("place", static_cast<std::int64_t>(l.place));
      j.attribute("site", static_cast<std::int64_t>(l.site));
      j.attribute("kind", name(l.kind));
      w.id("statement", l.statement);
      w.text("address", l.address.path);
      w.integer("address_param", l.address.param, -1);
      w.text("maker", l.maker);
    });
    w.array("receives", u.receives, [&](const Receive &r) {
      j.attribute("place", static_cast<std::int64_t>(r.place));
      j.attribute("site", static_cast<std::int64_t>(r.site));
      j.attribute("kind", name(r.kind));
    });
    w.array("payloads", u.payloads, [&](const Payload &p) {
      w.id("place", p.place);
      j.attribute("site", static_cast<std::int64_t>(p.site));
      w.flag("many", p.many);
      w.integer("count", p.count, -1);
      w.flag("bounded_array", p.boundedArray);
      w.integer("count_param", p.countParam, -1);
    });
    w.array("received", u.received, [&](const Received &r) {
      w.id("place", r.place);
      j.attribute("site", static_cast<std::int64_t>(r.site));
    });
    w.array("sends", u.sends, [&](const Send &s) {
      w.id("channel", s.channel);
      j.attribute("site", static_cast<std::int64_t>(s.site));
      w.integer("msghdr_param", s.msghdrParam, -1);
      w.flag("dont_wait", s.dontWait);
      w.flag("stops_on_eagain", s.stopsOnEagain);
    });
    if (!u.writes.empty())
      w.array("writes", u.writes, [&](const Write &x) {
        j.attribute("place", static_cast<std::int64_t>(x.place));
        j.attribute("site", static_cast<std::int64_t>(x.site));
        w.flag("credentials", x.credentials);
        w.text("address", x.address.path);
        w.integer("address_param", x.address.param, -1);
      });
    w.array("limits", u.limits, [&](const Limit &l) {
      j.attribute("site", static_cast<std::int64_t>(l.site));
      j.attribute("count", l.count);
      j.attribute("where", name(l.where));
    });
    w.array("flows", u.flows, [&](const Flow &f) {
      j.attribute("from", static_cast<std::int64_t>(f.from));
      j.attribute("to", static_cast<std::int64_t>(f.to));
      j.attribute("kind", name(f.kind));
      w.id("site", f.site);
      if (!f.exact)
        j.attribute("exact", false);
    });
    auto argument = [&](const Argument &a) {
      if (a.mode != ArgMode::None)
        j.attribute("mode", name(a.mode));
      w.id("place", a.place);
      w.text("text", a.text);
      w.text("var", a.var);
      w.text("constant", a.constant);
      w.integer("number", a.number, -1);
      w.integer("param", a.param, -1);
      if (!a.exact)
        j.attribute("exact", false);
    };
    auto call = [&](const Call &c) {
      j.attribute("site", static_cast<std::int64_t>(c.site));
      w.id("caller", c.caller);
      w.id("callee", c.callee);
      w.id("target", c.target);
      j.attributeArray("args", [&] {
        for (const Argument &a : c.args)
          j.object([&] { argument(a); });
      });
      if (c.receiver.mode != ArgMode::None)
        j.attributeObject("receiver", [&] { argument(c.receiver); });
      w.flag("passes_control", c.passesControl);
    };
    w.array("calls", u.calls, call);
    if (!u.indirectCalls.empty())
      w.array("indirect_calls", u.indirectCalls, call);
    if (!u.points.empty())
      w.array("points", u.points, [&](const Points &p) {
        j.attribute("place", static_cast<std::int64_t>(p.place));
        w.id("target", p.target);
        w.id("function", p.function);
        w.integer("constant", p.constant, -1);
      });
    if (!u.containers.empty())
      w.array("containers", u.containers, [&](const ContainerOf &c) {
        j.attribute("place", static_cast<std::int64_t>(c.place));
        j.attribute("pointer", static_cast<std::int64_t>(c.pointer));
        j.attribute("member", c.member);
      });
    w.array("callbacks", u.callbacks, [&](const Callback &c) {
      j.attribute("site", static_cast<std::int64_t>(c.site));
      j.attribute("socket", static_cast<std::int64_t>(c.socket));
      j.attribute("callee", static_cast<std::int64_t>(c.callee));
      j.attribute("param", c.param);
      w.text("registrar", c.registrar);
    });
    w.ids("untracked", u.untracked);
    if (!u.services.empty())
      w.array("services", u.services, [&](const ServiceSocket &v) {
        j.attribute("manager", name(v.manager));
        j.attribute("site", static_cast<std::int64_t>(v.site));
        j.attribute("unit", v.unit);
        w.text("name", v.name);
        w.integer("index", v.index, -1);
        w.text("address", v.address);
        if (v.family != Family::Unknown)
          j.attribute("family", name(v.family));
        w.integer("type", v.type, -1);
        j.attribute("passcred", name(v.passcred));
        w.id("passcred_site", v.passcredSite);
        w.flag("accept", v.accept);
        w.strings("programs", v.programs);
        j.attribute("enable_at", static_cast<std::int64_t>(v.enableAt));
        w.integer("enable_length", v.enableLength, 0);
        j.attribute("enable_text", v.enableText);
        w.id("remove_at", v.removeAt);
        w.integer("remove_length", v.removeLength, 0);
      });
    w.text("target", u.target);
    if (u.skipped)
      j.attribute("skipped", true);
  });
}

std::string writeUnit(const Unit &unit) {
  std::string text;
  llvm::raw_string_ostream out(text);
  writeUnit(unit, out);
  return text;
}

// ---------------------------------------------------------------------------------------------
// Reading, with every index checked against its table.

namespace {

class Reader {
public:
  std::string Error;

  bool fail(const std::string &what) {
    if (Error.empty())
      Error = what;
    return false;
  }

  const json::Array *array(const json::Object &o, llvm::StringRef key, const char *where) {
    const json::Value *v = o.get(key);
    if (!v)
      return &Empty;
    const json::Array *a = v->getAsArray();
    if (!a)
      fail(std::string(where) + ": '" + key.str() + "' is not an array");
    return a;
  }
  std::int64_t integer(const json::Object &o, llvm::StringRef key, std::int64_t fallback,
                       const char *where) {
    const json::Value *v = o.get(key);
    if (!v)
      return fallback;
    std::optional<std::int64_t> i = v->getAsInteger();
    if (!i) {
      fail(std::string(where) + ": '" + key.str() + "' is not an integer");
      return fallback;
    }
    return *i;
  }
  std::uint32_t unsignedInt(const json::Object &o, llvm::StringRef key, const char *where) {
    std::int64_t v = integer(o, key, 0, where);
    if (v < 0 || v > UINT32_MAX)
      fail(std::string(where) + ": '" + key.str() + "' is out of range");
    return static_cast<std::uint32_t>(v);
  }
  // An index into a table of `size` entries, or kNone when absent.
  Id ref(const json::Object &o, llvm::StringRef key, std::size_t size, const char *where,
         bool required = false) {
    const json::Value *v = o.get(key);
    if (!v) {
      if (required)
        fail(std::string(where) + ": '" + key.str() + "' is missing");
      return kNone;
    }
    std::optional<std::int64_t> i = v->getAsInteger();
    if (!i || *i < 0 || static_cast<std::size_t>(*i) >= size) {
      fail(std::string(where) + ": '" + key.str() + "' does not name an entry");
      return kNone;
    }
    return static_cast<Id>(*i);
  }
  Id refValue(const json::Value &v, std::size_t size, const char *where) {
    std::optional<std::int64_t> i = v.getAsInteger();
    if (!i || *i < 0 || static_cast<std::size_t>(*i) >= size) {
      fail(std::string(where) + ": an index does not name an entry");
      return kNone;
    }
    return static_cast<Id>(*i);
  }
  bool flag(const json::Object &o, llvm::StringRef key, bool fallback = false) {
    const json::Value *v = o.get(key);
    if (!v)
      return fallback;
    std::optional<bool> b = v->getAsBoolean();
    if (!b)
      fail("'" + key.str() + "' is not a boolean");
    return b.value_or(fallback);
  }
  std::vector<std::string> strings(const json::Object &o, llvm::StringRef key, const char *where) {
    std::vector<std::string> out;
    if (const json::Array *a = array(o, key, where))
      for (const json::Value &v : *a) {
        std::optional<llvm::StringRef> s = v.getAsString();
        if (!s) {
          fail(std::string(where) + ": '" + key.str() + "' holds a non-string");
          break;
        }
        out.push_back(s->str());
      }
    return out;
  }
  std::string text(const json::Object &o, llvm::StringRef key) {
    const json::Value *v = o.get(key);
    if (!v)
      return "";
    std::optional<llvm::StringRef> s = v->getAsString();
    if (!s)
      fail("'" + key.str() + "' is not a string");
    return s ? s->str() : "";
  }
  template <typename E, std::size_t N>
  E enumeration(const json::Object &o, llvm::StringRef key, const Names<E, N> &names, E fallback,
                const char *where, bool required = true) {
    const json::Value *v = o.get(key);
    if (!v) {
      if (required)
        fail(std::string(where) + ": '" + key.str() + "' is missing");
      return fallback;
    }
    std::optional<llvm::StringRef> s = v->getAsString();
    std::optional<E> e = s ? names.parse(*s) : std::nullopt;
    if (!e) {
      fail(std::string(where) + ": '" + key.str() + "' has an unknown value");
      return fallback;
    }
    return *e;
  }
  // Calls each(object) for each entry of o[key] that is an object.
  template <typename F> void each(const json::Object &o, llvm::StringRef key, const char *where, F f) {
    const json::Array *a = array(o, key, where);
    if (!a)
      return;
    for (const json::Value &v : *a) {
      const json::Object *item = v.getAsObject();
      if (!item) {
        fail(std::string(where) + ": an entry is not an object");
        return;
      }
      f(*item);
      if (!Error.empty())
        return;
    }
  }

private:
  json::Array Empty;
};

} // namespace

llvm::Expected<Unit> readUnit(llvm::StringRef text) {
  std::string why;
  std::optional<json::Value> parsed = ::afunix::analysis::parseJson(text, why);
  if (!parsed)
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "not a facts file: " + why);
  const json::Object *root = parsed->getAsObject();
  if (!root || root->getString("format") != std::optional<llvm::StringRef>("afunix-facts"))
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "not a facts file");
  std::optional<std::int64_t> version = root->getInteger("version");
  if (version != kFormatVersion)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "facts format version " + (version ? std::to_string(*version) : std::string("?")) +
            ", this afunix-check reads version " + std::to_string(kFormatVersion));

  Reader r;
  Unit u;
  u.mainFile = r.text(*root, "main_file");
  if (const json::Array *files = r.array(*root, "files", "files"))
    for (const json::Value &v : *files) {
      std::optional<llvm::StringRef> s = v.getAsString();
      if (!s) {
        r.fail("files: an entry is not a string");
        break;
      }
      u.files.push_back(s->str());
    }
  if (const json::Array *digests = r.array(*root, "digests", "digests"))
    for (const json::Value &v : *digests)
      u.digests.push_back(v.getAsString().value_or("").str());
  if (!u.digests.empty() && u.digests.size() != u.files.size())
    r.fail("digests: not one per file");
  // Sizes first: entries refer to each other in both directions.
  auto sizeOf = [&](llvm::StringRef key) -> std::size_t {
    const json::Value *v = root->get(key);
    const json::Array *a = v ? v->getAsArray() : nullptr;
    return a ? a->size() : 0;
  };
  std::size_t nFunctions = sizeOf("functions"), nPlaces = sizeOf("places"), nSites = sizeOf("sites"),
              nStatements = sizeOf("statements"), nLoops = sizeOf("loops"), nFiles = u.files.size();

  r.each(*root, "functions", "functions", [&](const json::Object &o) {
    Function f;
    f.key = r.text(o, "key");
    if (f.key.empty())
      r.fail("functions: an entry has no key");
    f.name = r.text(o, "name");
    f.defined = r.flag(o, "defined");
    f.file = r.ref(o, "file", nFiles, "functions");
    f.params = r.unsignedInt(o, "params", "functions");
    if (const json::Array *a = r.array(o, "fd_params", "functions"))
      for (const json::Value &v : *a) {
        std::optional<std::int64_t> i = v.getAsInteger();
        if (!i || *i < 0 || *i >= f.params)
          r.fail("functions: fd_params names no parameter");
        else
          f.paramIsInt.push_back(static_cast<Id>(*i));
      }
    if (const json::Object *cfg = o.getObject("cfg")) {
      const json::Array *succ = r.array(*cfg, "successors", "cfg");
      std::size_t blocks = succ ? succ->size() : 0;
      f.entry = r.ref(*cfg, "entry", blocks, "cfg", true);
      if (succ)
        for (const json::Value &v : *succ) {
          const json::Array *list = v.getAsArray();
          if (!list) {
            r.fail("cfg: successors entry is not an array");
            break;
          }
          f.successors.emplace_back();
          for (const json::Value &s : *list)
            f.successors.back().push_back(r.refValue(s, blocks, "cfg successors"));
        }
      if (const json::Array *idom = r.array(*cfg, "idom", "cfg")) {
        if (idom->size() != blocks)
          r.fail("cfg: idom and successors differ in length");
        for (const json::Value &v : *idom) {
          std::optional<std::int64_t> i = v.getAsInteger();
          if (i && *i == -1)
            f.idom.push_back(kNone);
          else
            f.idom.push_back(r.refValue(v, blocks, "cfg idom"));
        }
      }
    }
    f.credentialEvidence = r.ref(o, "credential_evidence", nSites, "functions");
    f.credentialOutcome = r.enumeration(o, "credential_check", kOutcomes, CredentialOutcome::Unknown,
                                        "functions", false);
    if (const json::Array *a = r.array(o, "control_callees", "functions"))
      for (const json::Value &v : *a)
        f.controlCallees.push_back(r.refValue(v, nFunctions, "control_callees"));
    if (const json::Array *a = r.array(o, "control_buffers", "functions"))
      for (const json::Value &v : *a)
        f.controlBuffers.push_back(r.refValue(v, nPlaces, "control_buffers"));
    if (const json::Array *a = r.array(o, "overrides", "functions"))
      for (const json::Value &v : *a)
        f.overrides.push_back(r.refValue(v, nFunctions, "overrides"));
    f.buildsScmRights = r.flag(o, "builds_scm_rights");
    f.buildsScmCredentials = r.flag(o, "builds_scm_credentials");
    f.addressEscapes = r.flag(o, "address_escapes");
    f.system = r.flag(o, "system");
    f.method = r.flag(o, "method");
    u.functions.push_back(std::move(f));
  });
  r.each(*root, "places", "places", [&](const json::Object &o) {
    Place p;
    p.key = r.text(o, "key");
    if (p.key.empty())
      r.fail("places: an entry has no key");
    p.kind = r.enumeration(o, "kind", kPlaceKinds, PlaceKind::Local, "places");
    p.name = r.text(o, "name");
    p.function = r.ref(o, "function", nFunctions, "places");
    p.index = static_cast<int>(r.integer(o, "index", -1, "places"));
    p.base = r.ref(o, "base", nPlaces, "places");
    p.field = r.ref(o, "field", nPlaces, "places");
    p.records = r.strings(o, "records", "places");
    u.places.push_back(std::move(p));
  });
  r.each(*root, "sites", "sites", [&](const json::Object &o) {
    Site s;
    s.file = r.ref(o, "file", nFiles, "sites");
    s.offset = r.unsignedInt(o, "offset", "sites");
    s.line = r.unsignedInt(o, "line", "sites");
    s.column = r.unsignedInt(o, "column", "sites");
    s.length = r.unsignedInt(o, "length", "sites");
    s.function = r.ref(o, "function", nFunctions, "sites");
    s.block = r.unsignedInt(o, "block", "sites");
    if (!o.get("block"))
      s.block = kNone;
    s.element = r.unsignedInt(o, "element", "sites");
    s.loop = r.ref(o, "loop", nLoops, "sites");
    s.text = r.text(o, "text");
    s.var = r.text(o, "var");
    u.sites.push_back(std::move(s));
  });
  r.each(*root, "statements", "statements", [&](const json::Object &o) {
    Statement s;
    s.file = r.ref(o, "file", nFiles, "statements");
    s.begin = r.unsignedInt(o, "begin", "statements");
    s.end = r.unsignedInt(o, "end", "statements");
    s.removeBegin = r.unsignedInt(o, "remove_begin", "statements");
    s.removeEnd = r.unsignedInt(o, "remove_end", "statements");
    s.latestDeclaration = r.unsignedInt(o, "latest_declaration", "statements");
    s.block = r.unsignedInt(o, "block", "statements");
    s.text = r.text(o, "text");
    s.indentation = r.text(o, "indentation");
    s.plainSocket = r.flag(o, "plain_socket");
    s.followsCall = r.flag(o, "follows_call");
    s.labelled = r.flag(o, "labelled");
    s.movableAbove = r.unsignedInt(o, "movable_above", "statements");
    s.moveStop = r.enumeration(o, "move_stop", kMoveStops, MoveStop::Unmovable, "statements");
    s.moveStopLine = r.unsignedInt(o, "move_stop_line", "statements");
    s.moveStopName = r.text(o, "move_stop_name");
    r.each(o, "companions", "statements", [&](const json::Object &c) {
      Companion companion;
      companion.begin = r.unsignedInt(c, "begin", "statements: companions");
      companion.removeBegin = r.unsignedInt(c, "remove_begin", "statements: companions");
      companion.removeEnd = r.unsignedInt(c, "remove_end", "statements: companions");
      companion.text = r.text(c, "text");
      s.companions.push_back(std::move(companion));
    });
    if (s.end < s.begin || s.removeEnd < s.removeBegin || s.movableAbove > s.begin)
      r.fail("statements: a range ends before it begins");
    u.statements.push_back(std::move(s));
  });
  r.each(*root, "loops", "loops", [&](const json::Object &o) {
    Loop l;
    l.function = r.ref(o, "function", nFunctions, "loops");
    l.parent = r.ref(o, "parent", nLoops, "loops");
    l.site = r.ref(o, "site", nSites, "loops");
    l.errnoRetry = r.flag(o, "errno_retry");
    l.controlOnce = r.flag(o, "control_once");
    l.oneMessage = r.flag(o, "one_message");
    if (o.get("trips"))
      l.trips = r.integer(o, "trips", 0, "loops");
    u.loops.push_back(l);
  });
  r.each(*root, "creates", "creates", [&](const json::Object &o) {
    Create c;
    c.place = r.ref(o, "place", nPlaces, "creates", true);
    c.site = r.ref(o, "site", nSites, "creates");
    c.how = r.enumeration(o, "how", kCreateHows, CreateHow::Unknown, "creates");
    c.family = r.enumeration(o, "family", kFamilies, Family::Unknown, "creates", false);
    c.familyName = r.text(o, "family_name");
    c.type = static_cast<int>(r.integer(o, "type", -1, "creates"));
    c.peer = r.ref(o, "peer", nPlaces, "creates");
    c.listener = r.ref(o, "listener", nPlaces, "creates");
    c.end = static_cast<int>(r.integer(o, "end", -1, "creates"));
    c.statement = r.ref(o, "statement", nStatements, "creates");
    c.creator = r.text(o, "creator");
    c.origin = r.text(o, "origin");
    c.handover = r.text(o, "handover");
    c.handoverNames = r.strings(o, "handover_names", "creates");
    c.familyParam = static_cast<int>(r.integer(o, "family_param", -1, "creates"));
    c.typeParam = static_cast<int>(r.integer(o, "type_param", -1, "creates"));
    c.familyFrom = r.ref(o, "family_from", nPlaces, "creates");
    u.creates.push_back(std::move(c));
  });
  r.each(*root, "options", "options", [&](const json::Object &o) {
    OptionSet f;
    f.place = r.ref(o, "place", nPlaces, "options", true);
    f.site = r.ref(o, "site", nSites, "options", true);
    f.option = r.enumeration(o, "option", kOptions, Option::PassCred, "options");
    f.value = r.enumeration(o, "value", kTris, Tri::Maybe, "options");
    f.throughWrapper = r.flag(o, "wrapper");
    f.familyGuarded = r.flag(o, "family_guarded");
    f.statement = r.ref(o, "statement", nStatements, "options");
    f.optionParam = static_cast<int>(r.integer(o, "option_param", -1, "options"));
    f.valueParam = static_cast<int>(r.integer(o, "value_param", -1, "options"));
    f.levelParam = static_cast<int>(r.integer(o, "level_param", -1, "options"));
    u.options.push_back(f);
  });
  r.each(*root, "lifecycle", "lifecycle", [&](const json::Object &o) {
    LifecycleEvent f;
    f.place = r.ref(o, "place", nPlaces, "lifecycle", true);
    f.site = r.ref(o, "site", nSites, "lifecycle", true);
    f.kind = r.enumeration(o, "kind", kLifecycles, Lifecycle::Bind, "lifecycle");
    f.statement = r.ref(o, "statement", nStatements, "lifecycle");
    f.address.path = r.text(o, "address");
    f.address.param = static_cast<int>(r.integer(o, "address_param", -1, "lifecycle"));
    f.maker = r.text(o, "maker");
    u.lifecycle.push_back(f);
  });
  r.each(*root, "receives", "receives", [&](const json::Object &o) {
    Receive f;
    f.place = r.ref(o, "place", nPlaces, "receives", true);
    f.site = r.ref(o, "site", nSites, "receives", true);
    f.kind = r.enumeration(o, "kind", kReceiveKinds, ReceiveKind::Other, "receives");
    u.receives.push_back(f);
  });
  r.each(*root, "payloads", "payloads", [&](const json::Object &o) {
    Payload f;
    f.place = r.ref(o, "place", nPlaces, "payloads");
    f.site = r.ref(o, "site", nSites, "payloads", true);
    f.many = r.flag(o, "many");
    f.count = r.integer(o, "count", -1, "payloads");
    f.boundedArray = r.flag(o, "bounded_array");
    f.countParam = static_cast<int>(r.integer(o, "count_param", -1, "payloads"));
    u.payloads.push_back(f);
  });
  r.each(*root, "received", "received", [&](const json::Object &o) {
    Received f;
    f.place = r.ref(o, "place", nPlaces, "received");
    f.site = r.ref(o, "site", nSites, "received", true);
    u.received.push_back(f);
  });
  r.each(*root, "sends", "sends", [&](const json::Object &o) {
    Send f;
    f.channel = r.ref(o, "channel", nPlaces, "sends");
    f.site = r.ref(o, "site", nSites, "sends", true);
    f.msghdrParam = static_cast<int>(r.integer(o, "msghdr_param", -1, "sends"));
    f.dontWait = r.flag(o, "dont_wait");
    f.stopsOnEagain = r.flag(o, "stops_on_eagain");
    u.sends.push_back(f);
  });
  r.each(*root, "writes", "writes", [&](const json::Object &o) {
    Write f;
    f.place = r.ref(o, "place", nPlaces, "writes", true);
    f.site = r.ref(o, "site", nSites, "writes", true);
    f.credentials = r.flag(o, "credentials");
    f.address.path = r.text(o, "address");
    f.address.param = static_cast<int>(r.integer(o, "address_param", -1, "writes"));
    u.writes.push_back(f);
  });
  r.each(*root, "limits", "limits", [&](const json::Object &o) {
    Limit f;
    f.site = r.ref(o, "site", nSites, "limits", true);
    f.count = r.integer(o, "count", 0, "limits");
    f.where = r.enumeration(o, "where", kLimitWheres, LimitWhere::CmsgLen, "limits");
    u.limits.push_back(f);
  });
  r.each(*root, "flows", "flows", [&](const json::Object &o) {
    Flow f;
    f.from = r.ref(o, "from", nPlaces, "flows", true);
    f.to = r.ref(o, "to", nPlaces, "flows", true);
    f.kind = r.enumeration(o, "kind", kFlowKinds, FlowKind::Assign, "flows");
    f.site = r.ref(o, "site", nSites, "flows");
    f.exact = r.flag(o, "exact", true);
    u.flows.push_back(f);
  });
  auto argument = [&](const json::Object &a) {
    Argument arg;
    arg.mode = r.enumeration(a, "mode", kArgModes, ArgMode::None, "call args", false);
    arg.place = r.ref(a, "place", nPlaces, "call args");
    arg.text = r.text(a, "text");
    arg.var = r.text(a, "var");
    arg.constant = r.text(a, "constant");
    arg.number = r.integer(a, "number", -1, "call args");
    arg.param = static_cast<int>(r.integer(a, "param", -1, "call args"));
    arg.exact = r.flag(a, "exact", true);
    if (arg.place == kNone && (arg.mode == ArgMode::Address || arg.mode == ArgMode::Array))
      r.fail("call args: an address or array argument names no place");
    return arg;
  };
  auto call = [&](const json::Object &o, bool indirect) {
    Call c;
    c.site = r.ref(o, "site", nSites, "calls", true);
    c.caller = r.ref(o, "caller", nFunctions, "calls");
    c.callee = r.ref(o, "callee", nFunctions, "calls", !indirect);
    c.target = r.ref(o, "target", nPlaces, "calls", indirect);
    r.each(o, "args", "call args", [&](const json::Object &a) { c.args.push_back(argument(a)); });
    if (const json::Object *receiver = o.getObject("receiver"))
      c.receiver = argument(*receiver);
    c.passesControl = r.flag(o, "passes_control");
    return c;
  };
  r.each(*root, "calls", "calls", [&](const json::Object &o) { u.calls.push_back(call(o, false)); });
  r.each(*root, "indirect_calls", "indirect calls",
         [&](const json::Object &o) { u.indirectCalls.push_back(call(o, true)); });
  r.each(*root, "points", "points", [&](const json::Object &o) {
    Points p;
    p.place = r.ref(o, "place", nPlaces, "points", true);
    p.target = r.ref(o, "target", nPlaces, "points");
    p.function = r.ref(o, "function", nFunctions, "points");
    p.constant = static_cast<int>(r.integer(o, "constant", -1, "points"));
    if ((p.target != kNone) + (p.function != kNone) + (p.constant >= 0) != 1)
      r.fail("points: an entry names not exactly one of an object, a function and a constant");
    u.points.push_back(p);
  });
  r.each(*root, "containers", "containers", [&](const json::Object &o) {
    ContainerOf c;
    c.place = r.ref(o, "place", nPlaces, "containers", true);
    c.pointer = r.ref(o, "pointer", nPlaces, "containers", true);
    c.member = r.text(o, "member");
    u.containers.push_back(std::move(c));
  });
  r.each(*root, "callbacks", "callbacks", [&](const json::Object &o) {
    Callback c;
    c.site = r.ref(o, "site", nSites, "callbacks", true);
    c.socket = r.ref(o, "socket", nPlaces, "callbacks", true);
    c.callee = r.ref(o, "callee", nFunctions, "callbacks", true);
    c.param = static_cast<int>(r.integer(o, "param", -1, "callbacks"));
    c.registrar = r.text(o, "registrar");
    u.callbacks.push_back(std::move(c));
  });
  if (const json::Array *a = r.array(*root, "untracked", "untracked"))
    for (const json::Value &v : *a)
      u.untracked.push_back(r.refValue(v, nPlaces, "untracked"));
  r.each(*root, "services", "services", [&](const json::Object &o) {
    ServiceSocket v;
    v.manager = r.enumeration(o, "manager", kManagers, Manager::Systemd, "services");
    v.site = r.ref(o, "site", nSites, "services", true);
    v.unit = r.text(o, "unit");
    v.name = r.text(o, "name");
    v.index = static_cast<int>(r.integer(o, "index", -1, "services"));
    v.address = r.text(o, "address");
    v.family = r.enumeration(o, "family", kFamilies, Family::Unknown, "services", false);
    v.type = static_cast<int>(r.integer(o, "type", -1, "services"));
    v.passcred = r.enumeration(o, "passcred", kTris, Tri::Maybe, "services");
    v.passcredSite = r.ref(o, "passcred_site", nSites, "services");
    v.accept = r.flag(o, "accept");
    v.programs = r.strings(o, "programs", "services");
    v.enableAt = r.ref(o, "enable_at", nSites, "services", true);
    v.enableLength = r.unsignedInt(o, "enable_length", "services");
    v.enableText = r.text(o, "enable_text");
    v.removeAt = r.ref(o, "remove_at", nSites, "services");
    v.removeLength = r.unsignedInt(o, "remove_length", "services");
    u.services.push_back(std::move(v));
  });
  u.target = r.text(*root, "target");
  u.skipped = root->getBoolean("skipped").value_or(false);
  // Cross-table consistency the indices alone do not show.
  for (const Site &s : u.sites)
    if (s.block != kNone && s.function != kNone && s.block >= u.functions[s.function].successors.size())
      r.fail("sites: block outside its function's CFG");
  if (!r.Error.empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "damaged facts file: " + r.Error);
  return u;
}

} // namespace afunix::facts
