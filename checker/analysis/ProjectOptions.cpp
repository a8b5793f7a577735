#include "ProjectOptions.h"

#include "AstUtil.h"

#include "afunix/ModelCatalog.h"
#include "afunix/Models.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>

namespace afunix::analysis {

namespace {
// "a;b, c" -> {"a", "b", "c"}: both separators, as the options have always been written.
llvm::SmallVector<llvm::StringRef, 8> items(llvm::StringRef list) {
  llvm::SmallVector<llvm::StringRef, 8> out;
  llvm::SmallVector<llvm::StringRef, 8> parts;
  list.split(parts, ';', -1, false);
  for (llvm::StringRef part : parts)
    for (llvm::StringRef item : llvm::split(part, ','))
      if (!item.trim().empty())
        out.push_back(item.trim());
  return out;
}

// A C or C++ identifier; a C++ name is identifiers joined by `::` (ns::Class, ns::function).
bool isIdentifier(llvm::StringRef id) {
  return !id.empty() && !llvm::isDigit(id.front()) &&
         llvm::all_of(id, [](char c) { return llvm::isAlnum(c) || c == '_'; });
}
bool isQualifiedName(llvm::StringRef name) {
  llvm::SmallVector<llvm::StringRef, 4> ids;
  name.split(ids, "::");
  return llvm::all_of(ids, isIdentifier);
}
} // namespace

namespace {
// One option's list into `options`; `builtin` for the compiled-in model catalog.
void apply(ProjectOptions &options, llvm::StringRef option, llvm::StringRef value, bool builtin,
           llvm::function_ref<void(const std::string &)> error) {
  if (option == "SocketProducers")
    for (llvm::StringRef item : items(value)) {
      llvm::SmallVector<llvm::StringRef, 4> fields;
      item.split(fields, ':');
      fields.resize(4);
      llvm::StringRef name = fields[0].trim(), family = fields[1].trim(), type = fields[2].trim(),
                      state = fields[3].trim();
      std::string spelled = family.empty() ? "AF_UNIX" : family.str();
      std::optional<facts::Family> known = familyFromName(spelled);
      if (!known) {
        error("SocketProducers: unknown family '" + spelled + "' for '" + name.str() +
              "' (AF_UNIX, AF_NETLINK, AF_BLUETOOTH, AF_INET or AF_INET6)");
        continue;
      }
      SocketMaker maker;
      maker.family = *known;
      maker.familyName = spelled;
      unsigned arg = 0;
      if (type.consume_front("arg") && !type.getAsInteger(10, arg) && arg <= 64)
        maker.typeArg = static_cast<int>(arg);
      else if (std::optional<int> t = socketTypeFromName(type))
        maker.type = *t;
      else if (!type.empty()) {
        error("SocketProducers: unknown type '" + type.str() + "' for '" + name.str() +
              "' (SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET or argN)");
        continue;
      }
      if (state != "" && state != "binds" && state != "listens") {
        error("SocketProducers: unknown state '" + state.str() + "' for '" + name.str() +
              "' (binds or listens)");
        continue;
      }
      maker.listens = state == "listens";
      maker.binds = maker.listens || state == "binds";
      options.socketProducers[name] = maker;
    }
  if (option == "OptionWrappers")
    for (llvm::StringRef item : items(value)) {
      auto [name, which] = item.split(':');
      which = which.trim();
      std::optional<facts::Option> known =
          llvm::StringSwitch<std::optional<facts::Option>>(which)
              .Cases("", "SO_PASSCRED", facts::Option::PassCred)
              .Case("SO_PASSSEC", facts::Option::PassSec)
              .Case("SO_PASSPIDFD", facts::Option::PassPidfd)
              .Default(std::nullopt);
      if (!known) {
        error("OptionWrappers: unknown option '" + which.str() + "' for '" + name.trim().str() +
              "' (SO_PASSCRED, SO_PASSSEC or SO_PASSPIDFD)");
        continue;
      }
      options.optionWrappers[name.trim()] = *known;
    }
  if (option == "ExternalSocketSources")
    for (llvm::StringRef item : items(value))
      options.externalSources.push_back(item.str());
  if (option == "FdOwnerClasses")
    for (llvm::StringRef item : items(value)) {
      llvm::SmallVector<llvm::StringRef, 6> fields;
      item.split(fields, '|');
      fields.resize(6);
      std::string name = fields[0].trim().str();
      FdOwnerModel model;
      bool bad = false;
      enum class Of { Methods, Constructors, Functions };
      auto effects = [&](llvm::StringRef list, std::vector<std::pair<std::string, OwnerEffect>> &out, Of of) {
        llvm::SmallVector<llvm::StringRef, 4> pairs;
        list.split(pairs, '+', -1, false);
        for (llvm::StringRef pair : pairs) {
          auto [key, effect] = pair.split('=');
          std::optional<OwnerEffect> known = llvm::StringSwitch<std::optional<OwnerEffect>>(effect.trim())
                                                 .Case("socket", OwnerEffect::Socket)
                                                 .Case("bind", OwnerEffect::Bind)
                                                 .Case("listen", OwnerEffect::Listen)
                                                 .Case("accept", OwnerEffect::Accept)
                                                 .Case("option", OwnerEffect::Option)
                                                 .Case("connect", OwnerEffect::Connect)
                                                 .Case("send", OwnerEffect::Send)
                                                 .Default(std::nullopt);
          // A constructor accepts, sets and connects nothing: it makes its own object's socket. A
          // free function is read only for what it does to the object it is handed.
          if (known && ((of == Of::Constructors && *known > OwnerEffect::Listen) ||
                        (of == Of::Functions && *known != OwnerEffect::Connect && *known != OwnerEffect::Send)))
            known.reset();
          if (key.trim().empty() || !known) {
            error("FdOwnerClasses: '" + pair.str() + "' of '" + name + "' is not NAME=" +
                  (of == Of::Methods        ? "socket, bind, listen, accept, option, connect or send"
                   : of == Of::Constructors ? "socket, bind or listen"
                                            : "connect or send"));
            bad = true;
            continue;
          }
          out.emplace_back(key.trim().str(), *known);
        }
      };
      effects(fields[1], model.methods, Of::Methods);
      effects(fields[2], model.constructors, Of::Constructors);
      effects(fields[5], model.functions, Of::Functions);
      if (std::size_t colons = name.rfind("::"); colons != std::string::npos)
        model.scope = name.substr(0, colons);
      if (!fields[3].trim().empty()) {
        if (std::optional<int> type = socketTypeFromName(fields[3].trim()))
          model.type = *type;
        else {
          error("FdOwnerClasses: unknown type '" + fields[3].trim().str() + "' of '" + name + "'");
          bad = true;
        }
      }
      llvm::SmallVector<llvm::StringRef, 4> families;
      fields[4].split(families, '+', -1, false);
      for (llvm::StringRef pair : families) {
        auto [word, family] = pair.split('=');
        if (word.trim().empty() || !familyFromName(family.trim())) {
          error("FdOwnerClasses: '" + pair.str() + "' of '" + name + "' is not WORD=AF_UNIX, AF_NETLINK, "
                "AF_BLUETOOTH, AF_INET or AF_INET6");
          bad = true;
          continue;
        }
        model.families.emplace_back(word.trim().str(), family.trim().str());
      }
      if (bad || name.empty())
        continue;
      options.fdOwnerClasses.push_back(name);
      if (!model.methods.empty() || !model.constructors.empty() || model.type >= 0 || !model.families.empty() ||
          !model.functions.empty())
        options.fdOwnerModels[name] = std::move(model);
    }
  if (option == "Allocators")
    for (llvm::StringRef item : items(value))
      options.allocators[item] = !builtin;
  if (option == "CallbackRegistrars")
    for (llvm::StringRef item : items(value)) {
      llvm::SmallVector<llvm::StringRef, 8> fields;
      item.split(fields, ':');
      Registrar r;
      bool ok = fields.size() >= 4 && !fields[0].trim().empty() && !fields[1].trim().getAsInteger(10, r.fdArg) &&
                !fields[2].trim().getAsInteger(10, r.callbackArg) && !fields[3].trim().getAsInteger(10, r.param) &&
                r.callbackArg >= 0 && (r.fdArg >= 0) == (r.param >= 0) && r.fdArg >= -1 && r.param >= -1 &&
                std::max({r.fdArg, r.callbackArg, r.param}) <= rules::kMaxArgumentPosition;
      for (std::size_t i = 4; ok && i < fields.size(); ++i) {
        llvm::StringRef field = fields[i].trim();
        if (field == "accepts" && i == 4 && r.fdArg >= 0) {
          r.accepts = true;
          continue;
        }
        auto [argument, parameter] = field.split('>');
        int from = -1, to = -1;
        ok = !argument.getAsInteger(10, from) && !parameter.getAsInteger(10, to) && from >= 0 && to >= 0 &&
             std::max(from, to) <= rules::kMaxArgumentPosition;
        r.passes.emplace_back(from, to);
      }
      ok = ok && (r.fdArg >= 0 || !r.passes.empty());
      if (!ok) {
        error("CallbackRegistrars: '" + item.str() +
              "' is not NAME:FD_ARG:CALLBACK_ARG:PARAM[:accepts][:ARG>PARAM...] (positions from 0; FD_ARG and "
              "PARAM -1 for a registration handed only ARG>PARAM)");
        continue;
      }
      r.name = fields[0].trim().str();
      options.registrars.push_back(std::move(r));
    }
  if (option == "SyscallWrappers")
    for (llvm::StringRef item : items(value)) {
      llvm::SmallVector<llvm::StringRef, 4> fields;
      item.split(fields, ':');
      SyscallWrapper w;
      bool ok = (fields.size() == 3 || fields.size() == 4) && !fields[0].trim().empty() &&
                (fields[1].trim() == "sendmsg" || fields[1].trim() == "recvmsg") &&
                !fields[2].trim().getAsInteger(10, w.firstArg) && w.firstArg <= rules::kMaxArgumentPosition;
      if (ok && fields.size() == 4)
        for (llvm::StringRef number : llvm::split(fields[3], '|'))
          if (!number.trim().empty())
            w.numbers.push_back(number.trim().str());
      if (!ok || (fields.size() == 4 && (w.numbers.empty() || w.firstArg == 0))) {
        error("SyscallWrappers: '" + item.str() +
              "' is not NAME:sendmsg|recvmsg:FIRST_ARG[:NUMBER|NUMBER...] (positions from 0; with "
              "numbers, FIRST_ARG 1 or more)");
        continue;
      }
      w.name = fields[0].trim().str();
      w.call = fields[1].trim().str();
      w.builtin = builtin;
      options.syscallWrappers.push_back(std::move(w));
    }
  if (option == "MessageQueues")
    for (llvm::StringRef item : items(value)) {
      llvm::SmallVector<llvm::StringRef, 4> fields;
      item.split(fields, ':');
      MessageQueue q;
      bool ok = fields.size() == 4 && !fields[0].trim().empty() && !fields[2].trim().empty() &&
                !fields[3].trim().empty() && !fields[1].trim().getAsInteger(10, q.messageArg) &&
                q.messageArg <= 64;
      if (!ok) {
        error("MessageQueues: '" + item.str() + "' is not NAME:MESSAGE_ARG:FDS_FIELD:COUNT_FIELD (positions from 0)");
        continue;
      }
      q.name = fields[0].trim().str();
      q.fds = fields[2].trim().str();
      q.count = fields[3].trim().str();
      q.builtin = builtin;
      options.messageQueues.push_back(std::move(q));
    }
  if (option == "FdSenders")
    for (llvm::StringRef item : items(value)) {
      // The positions are the fields after the name, read from the end: a qualified name's `::`
      // splits too, and no part of a name is a number.
      llvm::SmallVector<llvm::StringRef, 8> parts;
      item.split(parts, ':');
      llvm::StringRef holder;
      bool holderNamed = !parts.empty() && parts.back().trim().starts_with("holder=");
      if (holderNamed) {
        holder = parts.back().trim().drop_front(llvm::StringRef("holder=").size());
        parts.pop_back();
      }
      llvm::SmallVector<llvm::StringRef, 3> fields;
      while (!parts.empty() && fields.size() < 3 && !parts.back().trim().empty() &&
             llvm::isDigit(parts.back().trim().front())) {
        fields.insert(fields.begin(), parts.back().trim());
        parts.pop_back();
      }
      llvm::StringRef name = item.take_front(parts.empty() ? 0 : parts.back().end() - item.begin()).trim();
      // (A stray `a:0` before the positions is no C++ name.)
      FdSender f;
      f.variadic = fields.size() >= 2 && fields[1].consume_back("...");
      unsigned count = 0;
      bool ok = (fields.size() == 2 || fields.size() == 3) && isQualifiedName(name) &&
                !fields[0].getAsInteger(10, f.socketArg) && f.socketArg <= 64 &&
                !fields[1].getAsInteger(10, f.fdsArg) && f.fdsArg <= 64 && f.fdsArg != f.socketArg &&
                (fields.size() == 2 || (!f.variadic && !fields[2].getAsInteger(10, count) && count <= 64 &&
                                        count != f.socketArg && count != f.fdsArg)) &&
                !(f.variadic && f.socketArg > f.fdsArg) &&
                // (A holder keeps one fd: no count, no variadic fds.)
                (!holderNamed || (isIdentifier(holder) && fields.size() == 2 && !f.variadic));
      if (!ok) {
        error("FdSenders: '" + item.str() +
              "' is not NAME:SOCKET_ARG:FDS_ARG[:COUNT_ARG], NAME:SOCKET_ARG:FIRST_FD_ARG... or "
              "NAME:SOCKET_ARG:FDS_ARG:holder=HOLDER (distinct positions from 0; variadic fds last)");
        continue;
      }
      f.name = name.str();
      f.countArg = fields.size() == 3 ? static_cast<int>(count) : -1;
      f.holder = holder.str();
      f.builtin = builtin;
      options.fdSenders.push_back(std::move(f));
    }
  if (option == "Containers")
    for (llvm::StringRef item : items(value)) {
      llvm::SmallVector<llvm::StringRef, 3> fields;
      item.split(fields, '|');
      ContainerClass c;
      c.name = fields[0].trim().str();
      bool ok = fields.size() <= 3 && isQualifiedName(fields[0].trim());
      for (std::size_t f = 1; ok && f < fields.size(); ++f) {
        llvm::SmallVector<llvm::StringRef, 4> methods;
        fields[f].split(methods, '+', -1, /*KeepEmpty=*/false);
        for (llvm::StringRef method : methods) {
          ok &= isIdentifier(method.trim());
          (f == 1 ? c.adds : c.data).push_back(method.trim().str());
        }
      }
      if (!ok) {
        error("Containers: '" + item.str() + "' is not CLASS[|ADD+ADD...[|DATA+DATA...]] (a class name, "
              "ns::Class allowed, then method names)");
        continue;
      }
      c.builtin = builtin;
      options.containers.push_back(std::move(c));
    }
  if (option == "Receivers" || option == "ChannelViews")
    for (llvm::StringRef item : items(value)) {
      auto [name, position] = item.split(':');
      ChannelCall c;
      if (!isIdentifier(name.trim()) || position.trim().getAsInteger(10, c.socketArg) || c.socketArg > 64) {
        error(option.str() + ": '" + item.str() + "' is not NAME:" +
              (option == "Receivers" ? "SOCKET_ARG" : "OF_ARG") + " (a function name, a position from 0)");
        continue;
      }
      c.builtin = builtin;
      (option == "Receivers" ? options.receivers : options.channelViews)[name.trim()] = c;
    }
  if (option == "FdHolders")
    for (llvm::StringRef item : items(value)) {
      llvm::SmallVector<llvm::StringRef, 6> fields;
      item.split(fields, ':');
      FdHolder h;
      bool ok = (fields.size() == 5 || fields.size() == 6) && !fields[0].trim().empty() &&
                !fields[2].trim().empty() && !fields[4].trim().empty() &&
                !fields[1].trim().getAsInteger(10, h.fdArg) && !fields[3].trim().getAsInteger(10, h.outArg) &&
                h.fdArg >= 0 && h.outArg >= -1 && std::max(h.fdArg, h.outArg) <= rules::kMaxArgumentPosition &&
                (fields.size() == 5 || (!fields[5].trim().getAsInteger(10, h.holderArg) && h.holderArg >= -1 &&
                                        h.holderArg <= rules::kMaxArgumentPosition && h.holderArg != h.fdArg));
      if (!ok) {
        error("FdHolders: '" + item.str() + "' is not STORE:FD_ARG:LOAD:OUT_ARG:NAME[:HOLDER_ARG] (OUT_ARG -1: "
              "LOAD returns the fd; HOLDER_ARG -1: STORE returns the holder)");
        continue;
      }
      h.store = fields[0].trim().str();
      h.load = fields[2].trim().str();
      h.name = fields[4].trim().str();
      options.fdHolders.push_back(std::move(h));
    }
  if (option == "HolderCalls")
    for (llvm::StringRef item : items(value)) {
      llvm::SmallVector<llvm::StringRef, 7> fields;
      item.split(fields, ':');
      HolderCall c;
      std::optional<OwnerEffect> effect;
      if (fields.size() >= 3)
        effect = llvm::StringSwitch<std::optional<OwnerEffect>>(fields[2].trim())
                     .Case("bind", OwnerEffect::Bind)
                     .Case("listen", OwnerEffect::Listen)
                     .Case("connect", OwnerEffect::Connect)
                     .Case("accept", OwnerEffect::Accept)
                     .Default(std::nullopt);
      auto position = [](llvm::StringRef field, int &out, int least) {
        return !field.trim().getAsInteger(10, out) && out >= least && out <= rules::kMaxArgumentPosition;
      };
      bool ok = (fields.size() == 5 || fields.size() == 7) && isIdentifier(fields[0].trim()) &&
                position(fields[1], c.holderArg, 0) && effect && !fields[3].trim().empty() &&
                position(fields[4], c.intoArg, -1) && (*effect == OwnerEffect::Accept) == (c.intoArg >= 0) &&
                c.intoArg != c.holderArg;
      if (ok && fields.size() == 7) {
        c.family = familyFromName(fields[5].trim());
        std::optional<int> type = socketTypeFromName(fields[6].trim());
        ok = c.family && (type || fields[6].trim().empty()) &&
             (*effect == OwnerEffect::Bind || *effect == OwnerEffect::Connect);
        c.familyName = fields[5].trim().str();
        c.type = type.value_or(-1);
      }
      if (!ok) {
        error("HolderCalls: '" + item.str() + "' is not FUNCTION:HOLDER_ARG:EFFECT:NAME:INTO_ARG[:FAMILY:TYPE] "
              "(EFFECT bind, listen, connect or accept; INTO_ARG the holder an accept fills, else -1; a FAMILY "
              "only for a bind or connect that makes the socket)");
        continue;
      }
      c.name = fields[0].trim().str();
      c.effect = *effect;
      c.holder = fields[3].trim().str();
      c.builtin = builtin;
      options.holderCalls.push_back(std::move(c));
    }
}
} // namespace

ProjectOptions
ProjectOptions::parse(llvm::function_ref<std::optional<std::string>(llvm::StringRef)> get,
                      llvm::function_ref<void(const std::string &)> error) {
  ProjectOptions options;
  for (const catalog::BuiltinModelOption &builtin : catalog::kBuiltinModelOptions)
    apply(options, builtin.option, builtin.value, true, [&](const std::string &message) {
      error("the built-in model catalog: " + message);
    });
  options.builtinRegistrars = options.registrars.size();
  options.builtinFdHolders = options.fdHolders.size();
  for (const char *option : {"SocketProducers", "OptionWrappers", "ExternalSocketSources",
                             "FdOwnerClasses", "Allocators", "CallbackRegistrars", "FdHolders", "HolderCalls",
                             "SyscallWrappers", "MessageQueues", "FdSenders", "Containers", "Receivers",
                             "ChannelViews"})
    if (std::optional<std::string> value = get(option))
      apply(options, option, *value, false, error);
  if (std::optional<std::string> value = get("Pedantic")) {
    llvm::StringRef v = llvm::StringRef(*value).trim();
    if (v.equals_insensitive("true") || v == "1")
      options.pedantic = true;
    else if (!v.empty() && !v.equals_insensitive("false") && v != "0")
      error("Pedantic: expected true or false, not '" + v.str() + "'");
  }
  if (std::optional<std::string> value = get("TargetKernel"); value && !value->empty()) {
    KernelVersion kernel;
    if (KernelVersion::parse(*value, kernel))
      options.targetKernel = kernel;
    else
      error("invalid TargetKernel '" + *value + "': expected a version such as 6.16");
  }
  return options;
}

std::string ProjectOptions::extractionFingerprint() const {
  std::vector<std::string> parts;
  for (const auto &entry : socketProducers) {
    const SocketMaker &m = entry.getValue();
    parts.push_back("p:" + entry.getKey().str() + ":" + facts::name(m.family) + ":" +
                    std::to_string(m.type) + ":" + std::to_string(m.typeArg) + ":" +
                    (m.listens ? "listens" : m.binds ? "binds" : ""));
  }
  for (const auto &entry : optionWrappers)
    parts.push_back("w:" + entry.getKey().str() + ":" + facts::name(entry.getValue()));
  for (const std::string &name : externalSources)
    parts.push_back("e:" + name);
  for (const std::string &name : fdOwnerClasses) {
    std::string part = "o:" + name;
    if (auto model = fdOwnerModels.find(name); model != fdOwnerModels.end()) {
      for (const auto &[method, effect] : model->second.methods)
        part += "|m" + method + "=" + std::to_string(static_cast<int>(effect));
      for (const auto &[word, effect] : model->second.constructors)
        part += "|c" + word + "=" + std::to_string(static_cast<int>(effect));
      part += "|t" + std::to_string(model->second.type);
      for (const auto &[word, family] : model->second.families)
        part += "|f" + word + "=" + family;
      for (const auto &[function, effect] : model->second.functions)
        part += "|g" + function + "=" + std::to_string(static_cast<int>(effect));
    }
    parts.push_back(part);
  }
  // The built-in catalog is the checker's (a shard or cache entry of another checker is refused
  // anyway): only what the project adds tells two runs' options apart.
  for (const Registrar &r : llvm::drop_begin(registrars, builtinRegistrars)) {
    std::string part = "r:" + r.name + ":" + std::to_string(r.fdArg) + ":" + std::to_string(r.callbackArg) + ":" +
                       std::to_string(r.param) + (r.accepts ? ":accepts" : "");
    for (const auto &[argument, parameter] : r.passes)
      part += ":" + std::to_string(argument) + ">" + std::to_string(parameter);
    parts.push_back(part);
  }
  for (const FdHolder &h : llvm::drop_begin(fdHolders, builtinFdHolders))
    parts.push_back("h:" + h.store + ":" + std::to_string(h.fdArg) + ":" + h.load + ":" +
                    std::to_string(h.outArg) + ":" + h.name + ":" + std::to_string(h.holderArg));
  for (const HolderCall &c : holderCalls)
    if (!c.builtin)
      parts.push_back("k:" + c.name + ":" + std::to_string(c.holderArg) + ":" +
                      std::to_string(static_cast<int>(c.effect)) + ":" + c.holder + ":" + std::to_string(c.intoArg) +
                      ":" + c.familyName + ":" + std::to_string(c.type));
  for (const SyscallWrapper &w : syscallWrappers)
    if (!w.builtin) {
      std::string item = "s:" + w.name + ":" + w.call + ":" + std::to_string(w.firstArg);
      for (const std::string &number : w.numbers)
        item += ":" + number;
      parts.push_back(item);
    }
  for (const MessageQueue &q : messageQueues)
    if (!q.builtin)
      parts.push_back("q:" + q.name + ":" + std::to_string(q.messageArg) + ":" + q.fds + ":" + q.count);
  for (const FdSender &f : fdSenders)
    if (!f.builtin)
      parts.push_back("d:" + f.name + ":" + std::to_string(f.socketArg) + ":" + std::to_string(f.fdsArg) +
                      (f.variadic ? "..." : "") + ":" + std::to_string(f.countArg) + ":" + f.holder);
  for (const ContainerClass &c : containers)
    if (!c.builtin) {
      std::string item = "c:" + c.name + "|";
      for (const std::string &method : c.adds)
        item += method + "+";
      item += "|";
      for (const std::string &method : c.data)
        item += method + "+";
      parts.push_back(item);
    }
  for (const auto &entry : allocators)
    if (entry.getValue())
      parts.push_back("a:" + entry.getKey().str());
  for (const auto &entry : receivers)
    if (!entry.getValue().builtin)
      parts.push_back("v:" + entry.getKey().str() + ":" + std::to_string(entry.getValue().socketArg));
  for (const auto &entry : channelViews)
    if (!entry.getValue().builtin)
      parts.push_back("x:" + entry.getKey().str() + ":" + std::to_string(entry.getValue().socketArg));
  if (relativePaths)
    parts.push_back("relative-paths");
  std::sort(parts.begin(), parts.end());
  std::string out;
  for (const std::string &part : parts)
    out += part + ";";
  return out;
}

const std::string &workingDirectory() {
  // Read once: the process never changes its working directory while it extracts.
  static const std::string directory = [] {
    llvm::SmallString<256> cwd;
    if (llvm::sys::fs::current_path(cwd))
      return std::string();
    llvm::sys::path::remove_dots(cwd, /*remove_dot_dot=*/true);
    return std::string(cwd);
  }();
  return directory;
}

std::string recordedPath(llvm::StringRef absolute, bool relativePaths) {
  const std::string &cwd = workingDirectory();
  if (!relativePaths || cwd.empty() || cwd == "/")
    return absolute.str();
  llvm::StringRef rest = absolute;
  if (!rest.consume_front(cwd))
    return absolute.str();
  if (rest.empty() || rest == "/")
    return "."; // the working directory itself (a compile command's directory)
  if (rest.consume_front("/"))
    return rest.str();
  return absolute.str();
}

} // namespace afunix::analysis
