#include "afunix/Models.h"

#include "Validator.h"

#include <algorithm>
#include <dirent.h>
#include <fstream>
#include <optional>
#include <sstream>

namespace afunix::rules {
namespace {

const std::set<std::string> kFamilies = {"AF_UNIX", "AF_NETLINK", "AF_BLUETOOTH", "AF_INET", "AF_INET6"};
const std::set<std::string> kSocketTypes = {"SOCK_STREAM", "SOCK_DGRAM", "SOCK_SEQPACKET"};
const std::set<std::string> kOwnerEffects = {"socket", "bind", "listen"};
const std::set<std::string> kMethodEffects = {"socket", "bind", "listen", "accept", "option", "connect", "send"};
const std::set<std::string> kFunctionEffects = {"connect", "send"};
const std::set<std::string> kHolderEffects = {"bind", "listen", "connect", "accept"};
const std::set<std::string> kOptions = {"SO_PASSCRED", "SO_PASSSEC", "SO_PASSPIDFD"};
const std::set<std::string> kWrappedCalls = {"sendmsg", "recvmsg"};

// A C or C++ name: what a call's callee or a class is matched against (ns::name allowed).
bool isName(const std::string &s) {
  if (s.empty() || s.back() == ':')
    return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    bool digit = c >= '0' && c <= '9';
    if (!alpha && !(digit && i > 0) && !(c == ':' && i > 0))
      return false;
  }
  return true;
}

class ModelReader {
public:
  ModelReader(Validator &v) : v_(v) {}

  // `qualified`: ns::name allowed. Functions are matched by their plain name and the option form
  // separates fields with ':', so only classes (fd owners, containers), and fd senders (whose
  // other fields are numbers, read from the end), may be qualified.
  std::string name(const YAML::Node &entry, const char *key, const std::string &field,
                   bool qualified = false) {
    std::string value = v_.scalar(entry, key, field + "." + key, true);
    if (!value.empty() && !isName(value))
      v_.error(entry[key], field + "." + key, "'" + value + "' is not a function or class name");
    else if (!qualified && value.find(':') != std::string::npos)
      v_.error(entry[key], field + "." + key,
               "'" + value + "': a function is named without its namespace or class");
    return value;
  }

  // An argument position: required unless `fallback` is given.
  int position(const YAML::Node &entry, const char *key, const std::string &field,
               std::optional<int> fallback = std::nullopt) {
    YAML::Node node = entry[key];
    if (!node.IsDefined() || node.IsNull()) {
      if (!fallback)
        v_.error(entry, field + "." + key, "is required");
      return fallback.value_or(-1);
    }
    int value = -1;
    if (!node.IsScalar() || !YAML::convert<int>::decode(node, value) || value < 0 || value > kMaxArgumentPosition) {
      v_.error(node, field + "." + key, "must be an argument position (0 for the first)");
      return -1;
    }
    return value;
  }

  // A mapping whose keys pass `keyOk` and whose values are one of `values` (methods: {listen:
  // listen}); each bad key or value is an error of its own.
  std::vector<std::pair<std::string, std::string>> mapping(const YAML::Node &entry, const char *key,
                                                           const std::string &field, const std::string &what,
                                                           bool (*keyOk)(const std::string &),
                                                           const std::string &badKey,
                                                           const std::set<std::string> &values) {
    std::vector<std::pair<std::string, std::string>> out;
    YAML::Node node = entry[key];
    if (!node.IsDefined() || node.IsNull())
      return out;
    if (!node.IsMap()) {
      v_.error(node, field + "." + key, "must be a mapping of " + what);
      return out;
    }
    for (const auto &item : node) {
      std::string name = item.first.IsScalar() ? item.first.Scalar() : "";
      std::string value = item.second.IsScalar() ? item.second.Scalar() : "";
      if (!keyOk(name))
        v_.error(item.first, field + "." + key, "'" + name + "' " + badKey);
      else if (!values.count(value)) {
        std::string list;
        for (const std::string &allowed : values)
          list += (list.empty() ? "" : ", ") + allowed;
        v_.error(item.second, field + "." + key + "." + name, "must be one of: " + list);
      } else
        out.emplace_back(name, value);
    }
    return out;
  }

  // A list of plain names (a class's methods): each that is not one is an error of its own.
  std::vector<std::string> names(const YAML::Node &entry, const char *key, const std::string &field) {
    std::vector<std::string> out;
    YAML::Node node = entry[key];
    if (!node.IsDefined() || node.IsNull())
      return out;
    if (!node.IsSequence()) {
      v_.error(node, field + "." + key, "must be a list of method names");
      return out;
    }
    for (std::size_t i = 0; i < node.size(); ++i) {
      std::string name = node[i].IsScalar() ? node[i].Scalar() : "";
      if (!isName(name) || name.find(':') != std::string::npos)
        v_.error(node[i], field + "." + key + "[" + std::to_string(i) + "]",
                 "'" + name + "' is not a method name (no class or namespace)");
      else
        out.push_back(name);
    }
    return out;
  }

  // A mapping of argument positions to the callback's parameter positions (passes: {5: 3}).
  std::vector<std::pair<int, int>> positionPairs(const YAML::Node &entry, const char *key, const std::string &field) {
    std::vector<std::pair<int, int>> out;
    YAML::Node node = entry[key];
    if (!node.IsDefined() || node.IsNull())
      return out;
    if (!node.IsMap()) {
      v_.error(node, field + "." + key, "must be a mapping of argument positions to parameter positions ({5: 3})");
      return out;
    }
    for (const auto &pair : node) {
      int from = -1, to = -1;
      auto inRange = [](int position) { return position >= 0 && position <= kMaxArgumentPosition; };
      bool ok = pair.first.IsScalar() && YAML::convert<int>::decode(pair.first, from) && inRange(from) &&
                pair.second.IsScalar() && YAML::convert<int>::decode(pair.second, to) && inRange(to);
      if (!ok)
        v_.error(pair.first, field + "." + key,
                 "'" + (pair.first.IsScalar() ? pair.first.Scalar() : std::string("?")) +
                     "' is not an argument position mapped to a parameter position (0 for the first)");
      else
        out.emplace_back(from, to);
    }
    return out;
  }

  bool flag(const YAML::Node &entry, const char *key, const std::string &field) {
    YAML::Node node = entry[key];
    if (!node.IsDefined() || node.IsNull())
      return false;
    bool value = false;
    if (!node.IsScalar() || !YAML::convert<bool>::decode(node, value))
      v_.error(node, field + "." + key, "must be true or false");
    return value;
  }

  // Runs `read` on each entry of the list `key` (a sequence of mappings with `allowed` fields);
  // an entry with an error adds nothing.
  template <typename Read>
  void list(const YAML::Node &node, const char *key, const std::set<std::string> &allowed, Read read) {
    YAML::Node items = node[key];
    if (!items.IsDefined() || items.IsNull())
      return;
    if (!items.IsSequence()) {
      v_.error(items, key, "must be a list");
      return;
    }
    for (std::size_t i = 0; i < items.size(); ++i) {
      std::string field = std::string(key) + "[" + std::to_string(i) + "]";
      int before = v_.count();
      if (!v_.expectMap(items[i], field, allowed))
        continue;
      read(items[i], field, [&] { return v_.count() == before; });
    }
  }

  Validator &v_;
};

} // namespace

bool parseModels(const YAML::Node &node, const std::string &fileName, Models &out,
                 std::vector<CatalogError> &errors) {
  Validator v(fileName, errors);
  if (node.IsNull() || !node.IsDefined())
    return true;
  if (!v.expectMap(node, "", {"event_loops", "fd_holders", "holder_calls", "allocators", "socket_makers",
                              "option_wrappers", "external_sockets", "fd_owner_classes",
                              "syscall_wrappers", "message_queues", "fd_senders", "containers",
                              "receivers", "channel_views"}))
    return false;
  ModelReader r(v);
  Models read;
  r.list(node, "event_loops", {"function", "fd", "callback", "callback_fd", "accepts", "passes"},
         [&](const YAML::Node &e, const std::string &field, auto clean) {
           EventLoopModel m;
           m.function = r.name(e, "function", field);
           m.passes = r.positionPairs(e, "passes", field);
           // A loop that is handed only user data (a deferred call, a thread) has no fd.
           bool fdless = e["passes"].IsDefined() && !e["fd"].IsDefined() && !e["callback_fd"].IsDefined();
           m.fd = r.position(e, "fd", field, fdless ? std::optional<int>(-1) : std::nullopt);
           m.callback = r.position(e, "callback", field);
           m.callbackFd = r.position(e, "callback_fd", field, fdless ? std::optional<int>(-1) : std::nullopt);
           m.accepts = r.flag(e, "accepts", field);
           if (clean() && m.fd >= 0 && m.fd == m.callback)
             v.error(e, field, "fd and callback are the same argument");
           if (clean() && m.fd < 0 && m.accepts)
             v.error(e, field, "accepts needs the listener's argument (fd)");
           for (const auto &[argument, parameter] : m.passes)
             if (clean() && argument == m.callback)
               v.error(e, field + ".passes", "the callback is not its own argument");
           if (clean())
             read.eventLoops.push_back(std::move(m));
         });
  r.list(node, "fd_holders", {"store", "fd", "load", "load_out", "name", "holder"},
         [&](const YAML::Node &e, const std::string &field, auto clean) {
           FdHolderModel m;
           m.store = r.name(e, "store", field);
           m.fd = r.position(e, "fd", field);
           m.load = r.name(e, "load", field);
           m.loadOut = r.position(e, "load_out", field, -1);
           m.name = r.name(e, "name", field);
           m.holder = r.position(e, "holder", field, -1);
           if (clean() && m.holder >= 0 && m.holder == m.fd)
             v.error(e, field, "fd and holder are the same argument");
           if (clean())
             read.fdHolders.push_back(std::move(m));
         });
  r.list(node, "holder_calls", {"function", "holder", "does", "name", "into", "family", "type"},
         [&](const YAML::Node &e, const std::string &field, auto clean) {
           HolderCallModel m;
           m.function = r.name(e, "function", field);
           m.holder = r.position(e, "holder", field);
           m.does = v.scalar(e, "does", field + ".does", true);
           v.oneOf(e, "does", field + ".does", m.does, kHolderEffects);
           m.name = r.name(e, "name", field);
           m.into = r.position(e, "into", field, -1);
           m.family = v.scalar(e, "family", field + ".family", false);
           v.oneOf(e, "family", field + ".family", m.family, kFamilies);
           m.type = v.scalar(e, "type", field + ".type", false);
           v.oneOf(e, "type", field + ".type", m.type, kSocketTypes);
           if (clean() && (m.does == "accept") != (m.into >= 0))
             v.error(e, field + ".into", m.into >= 0 ? "only an accept puts a socket into another holder"
                                                     : "an accept needs the holder it accepts into");
           if (clean() && m.into >= 0 && m.into == m.holder)
             v.error(e, field, "holder and into are the same argument");
           if (clean() && !m.family.empty() && m.does != "bind" && m.does != "connect")
             v.error(e, field + ".family", "only a bind or a connect makes the holder's socket");
           if (clean() && !m.type.empty() && m.family.empty())
             v.error(e, field + ".type", "a type without a family: the call makes no socket");
           if (clean() && m.does == "listen" && m.type == "SOCK_DGRAM")
             v.error(e, field + ".type", "a SOCK_DGRAM socket cannot listen");
           if (clean())
             read.holderCalls.push_back(std::move(m));
         });
  r.list(node, "allocators", {"function"}, [&](const YAML::Node &e, const std::string &field, auto clean) {
    std::string name = r.name(e, "function", field);
    if (clean())
      read.allocators.push_back(name);
  });
  r.list(node, "socket_makers", {"function", "family", "type", "type_arg", "binds", "listens"},
         [&](const YAML::Node &e, const std::string &field, auto clean) {
           SocketMakerModel m;
           m.function = r.name(e, "function", field);
           std::string family = v.scalar(e, "family", field + ".family", false);
           v.oneOf(e, "family", field + ".family", family, kFamilies);
           if (!family.empty())
             m.family = family;
           m.type = v.scalar(e, "type", field + ".type", false);
           v.oneOf(e, "type", field + ".type", m.type, kSocketTypes);
           m.typeArg = r.position(e, "type_arg", field, -1);
           m.binds = r.flag(e, "binds", field);
           m.listens = r.flag(e, "listens", field);
           if (clean() && !m.type.empty() && m.typeArg >= 0)
             v.error(e, field, "type and type_arg both say the socket's type: give one");
           if (clean() && m.listens && m.type == "SOCK_DGRAM")
             v.error(e, field + ".listens", "a SOCK_DGRAM socket cannot listen");
           m.binds |= m.listens; // listen() needs a bound socket
           if (clean())
             read.socketMakers.push_back(std::move(m));
         });
  r.list(node, "option_wrappers", {"function", "option"},
         [&](const YAML::Node &e, const std::string &field, auto clean) {
           std::string name = r.name(e, "function", field);
           std::string option = v.scalar(e, "option", field + ".option", false);
           v.oneOf(e, "option", field + ".option", option, kOptions);
           if (clean())
             read.optionWrappers.emplace_back(name, option.empty() ? "SO_PASSCRED" : option);
         });
  r.list(node, "external_sockets", {"function"}, [&](const YAML::Node &e, const std::string &field, auto clean) {
    std::string name = r.name(e, "function", field);
    if (clean())
      read.externalSockets.push_back(name);
  });
  r.list(node, "fd_owner_classes", {"class", "methods", "constructors", "type", "families", "functions"},
         [&](const YAML::Node &e, const std::string &field, auto clean) {
           FdOwnerClassModel m;
           m.name = r.name(e, "class", field, /*qualified=*/true);
           m.type = v.scalar(e, "type", field + ".type", false);
           v.oneOf(e, "type", field + ".type", m.type, kSocketTypes);
           m.methods = r.mapping(e, "methods", field, "method names to socket, bind, listen, accept, option, connect or send",
                                 [](const std::string &k) { return isName(k) && k.find(':') == std::string::npos; },
                                 "is not a method name", kMethodEffects);
           m.functions = r.mapping(e, "functions", field, "free function names to connect or send",
                                   [](const std::string &k) { return isName(k) && k.find(':') == std::string::npos; },
                                   "is not a function name", kFunctionEffects);
           m.families = r.mapping(e, "families", field, "type name words to families",
                                  [](const std::string &k) { return !k.empty() && k.find_first_of("|+=;, ") == std::string::npos; },
                                  "is not a word of a type name", kFamilies);
           r.list(e, "constructors", {"argument", "does"},
                  [&](const YAML::Node &c, const std::string &inner, auto) {
                    std::string word = r.name(c, "argument", field + "." + inner);
                    std::string effect = v.scalar(c, "does", field + "." + inner + ".does", true);
                    v.oneOf(c, "does", field + "." + inner + ".does", effect, kOwnerEffects);
                    if (kOwnerEffects.count(effect) && !word.empty())
                      m.constructors.emplace_back(word, effect);
                  });
           if (clean())
             read.fdOwnerClasses.push_back(std::move(m));
         });
  r.list(node, "syscall_wrappers", {"function", "as", "first_arg", "number"},
         [&](const YAML::Node &e, const std::string &field, auto clean) {
           SyscallWrapperModel m;
           m.function = r.name(e, "function", field);
           m.call = v.scalar(e, "as", field + ".as", true);
           v.oneOf(e, "as", field + ".as", m.call, kWrappedCalls);
           m.firstArg = r.position(e, "first_arg", field);
           YAML::Node numbers = e["number"];
           if (numbers.IsDefined() && !numbers.IsNull()) {
             if (!numbers.IsSequence()) {
               v.error(numbers, field + ".number", "must be a list of names (SYS_sendmsg, __NR_sendmsg)");
             } else {
               for (std::size_t i = 0; i < numbers.size(); ++i) {
                 std::string name = numbers[i].IsScalar() ? numbers[i].Scalar() : "";
                 if (!isName(name) || name.find(':') != std::string::npos)
                   v.error(numbers[i], field + ".number[" + std::to_string(i) + "]", "must be a C identifier");
                 else
                   m.numbers.push_back(name);
               }
               if (clean() && m.firstArg == 0)
                 v.error(e, field + ".first_arg", "must be 1 or more when the call is picked by its number");
             }
           }
           if (clean())
             read.syscallWrappers.push_back(std::move(m));
         });
  r.list(node, "message_queues", {"function", "message", "fds", "count"},
         [&](const YAML::Node &e, const std::string &field, auto clean) {
           MessageQueueModel m;
           m.function = r.name(e, "function", field);
           m.message = r.position(e, "message", field);
           m.fds = r.name(e, "fds", field);
           m.count = r.name(e, "count", field);
           if (clean() && m.fds == m.count)
             v.error(e, field, "fds and count are the same field");
           if (clean())
             read.messageQueues.push_back(std::move(m));
         });
  r.list(node, "fd_senders", {"function", "socket", "fds", "count", "variadic", "holder"},
         [&](const YAML::Node &e, const std::string &field, auto clean) {
           FdSenderModel m;
           m.function = r.name(e, "function", field, /*qualified=*/true);
           m.socket = r.position(e, "socket", field);
           m.fds = r.position(e, "fds", field);
           m.count = r.position(e, "count", field, -1);
           m.variadic = r.flag(e, "variadic", field);
           if (e["holder"].IsDefined() && !e["holder"].IsNull())
             m.holder = r.name(e, "holder", field);
           if (clean() && (m.socket == m.fds || m.socket == m.count || m.fds == m.count))
             v.error(e, field, "socket, fds and count are the same argument");
           if (clean() && m.variadic && m.count >= 0)
             v.error(e, field, "variadic fds are counted by the call's arguments: give no count");
           if (clean() && m.variadic && m.socket > m.fds)
             v.error(e, field, "variadic fds are the last arguments: the socket comes before them");
           if (clean() && !m.holder.empty() && (m.variadic || m.count >= 0))
             v.error(e, field + ".holder", "a holder keeps one fd: give no count and no variadic fds");
           if (clean())
             read.fdSenders.push_back(std::move(m));
         });
  r.list(node, "containers", {"class", "adds", "data"},
         [&](const YAML::Node &e, const std::string &field, auto clean) {
           ContainerModel m;
           m.name = r.name(e, "class", field, /*qualified=*/true);
           m.adds = r.names(e, "adds", field);
           m.data = r.names(e, "data", field);
           if (clean())
             read.containers.push_back(std::move(m));
         });
  r.list(node, "receivers", {"function", "socket"}, [&](const YAML::Node &e, const std::string &field, auto clean) {
    ReceiverModel m;
    m.function = r.name(e, "function", field);
    m.socket = r.position(e, "socket", field);
    if (clean())
      read.receivers.push_back(std::move(m));
  });
  r.list(node, "channel_views", {"function", "of"}, [&](const YAML::Node &e, const std::string &field, auto clean) {
    ChannelViewModel m;
    m.function = r.name(e, "function", field);
    m.of = r.position(e, "of", field);
    if (clean())
      read.channelViews.push_back(std::move(m));
  });
  auto append = [](auto &to, auto &from) { to.insert(to.end(), from.begin(), from.end()); };
  append(out.eventLoops, read.eventLoops);
  append(out.fdHolders, read.fdHolders);
  append(out.holderCalls, read.holderCalls);
  append(out.allocators, read.allocators);
  append(out.socketMakers, read.socketMakers);
  append(out.optionWrappers, read.optionWrappers);
  append(out.externalSockets, read.externalSockets);
  append(out.fdOwnerClasses, read.fdOwnerClasses);
  append(out.syscallWrappers, read.syscallWrappers);
  append(out.messageQueues, read.messageQueues);
  append(out.fdSenders, read.fdSenders);
  append(out.containers, read.containers);
  append(out.receivers, read.receivers);
  append(out.channelViews, read.channelViews);
  return v.count() == 0;
}

bool parseModelsText(const std::string &yamlText, const std::string &fileName, Models &out,
                     std::vector<CatalogError> &errors) {
  YAML::Node node;
  try {
    node = YAML::Load(yamlText);
  } catch (const YAML::Exception &e) {
    CatalogError error;
    error.file = fileName;
    error.line = e.mark.is_null() ? 0 : e.mark.line + 1;
    error.column = e.mark.is_null() ? 0 : e.mark.column + 1;
    error.message = "not valid YAML: " + e.msg;
    errors.push_back(std::move(error));
    return false;
  }
  try {
    return parseModels(node, fileName, out, errors);
  } catch (const YAML::Exception &e) {
    CatalogError error;
    error.file = fileName;
    error.message = e.what();
    errors.push_back(std::move(error));
    return false;
  }
}

bool loadModelsDirectory(const std::string &directory, Models &out,
                         std::vector<CatalogError> &errors) {
  std::vector<std::string> names;
  if (DIR *dir = opendir(directory.c_str())) {
    while (dirent *entry = readdir(dir)) {
      std::string name = entry->d_name;
      if (name.size() > 5 && name.compare(name.size() - 5, 5, ".yaml") == 0)
        names.push_back(name);
    }
    closedir(dir);
  } else {
    CatalogError error;
    error.file = directory;
    error.message = "cannot read the models directory";
    errors.push_back(std::move(error));
    return false;
  }
  std::sort(names.begin(), names.end());
  bool ok = true;
  for (const std::string &name : names) {
    std::string path = directory + "/" + name;
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    ok &= parseModelsText(text.str(), path, out, errors);
  }
  return ok;
}

std::map<std::string, std::string> modelOptions(const Models &models) {
  std::map<std::string, std::string> out;
  auto add = [&](const char *option, const std::string &item) {
    std::string &list = out[option];
    list += (list.empty() ? "" : ";") + item;
  };
  for (const EventLoopModel &m : models.eventLoops) {
    std::string item = m.function + ":" + std::to_string(m.fd) + ":" + std::to_string(m.callback) + ":" +
                       std::to_string(m.callbackFd) + (m.accepts ? ":accepts" : "");
    for (const auto &[argument, parameter] : m.passes)
      item += ":" + std::to_string(argument) + ">" + std::to_string(parameter);
    add("CallbackRegistrars", item);
  }
  for (const FdHolderModel &m : models.fdHolders)
    add("FdHolders", m.store + ":" + std::to_string(m.fd) + ":" + m.load + ":" + std::to_string(m.loadOut) +
                         ":" + m.name + ":" + std::to_string(m.holder));
  // FUNCTION:HOLDER_ARG:EFFECT:NAME:INTO_ARG[:FAMILY:TYPE]
  for (const HolderCallModel &m : models.holderCalls) {
    std::string item = m.function + ":" + std::to_string(m.holder) + ":" + m.does + ":" + m.name + ":" +
                       std::to_string(m.into);
    if (!m.family.empty())
      item += ":" + m.family + ":" + m.type;
    add("HolderCalls", item);
  }
  for (const std::string &name : models.allocators)
    add("Allocators", name);
  for (const SocketMakerModel &m : models.socketMakers) {
    std::string item = m.function + ":" + m.family + ":" +
                       (m.typeArg >= 0 ? "arg" + std::to_string(m.typeArg) : m.type) + ":" +
                       (m.listens ? "listens" : m.binds ? "binds" : "");
    while (item.back() == ':')
      item.pop_back();
    add("SocketProducers", item);
  }
  for (const auto &[name, option] : models.optionWrappers)
    add("OptionWrappers", name + ":" + option);
  for (const std::string &name : models.externalSockets)
    add("ExternalSocketSources", name);
  // CLASS[|METHOD=EFFECT+...[|WORD=EFFECT+...[|TYPE[|WORD=FAMILY+...[|FUNCTION=EFFECT+...]]]]]
  // (`,` and `;` separate entries).
  for (const FdOwnerClassModel &m : models.fdOwnerClasses) {
    auto pairs = [](const std::vector<std::pair<std::string, std::string>> &list) {
      std::string out;
      for (const auto &[key, effect] : list)
        out += (out.empty() ? "" : "+") + key + "=" + effect;
      return out;
    };
    std::string item = m.name + "|" + pairs(m.methods) + "|" + pairs(m.constructors) + "|" + m.type + "|" +
                       pairs(m.families) + "|" + pairs(m.functions);
    while (item.back() == '|')
      item.pop_back();
    add("FdOwnerClasses", item);
  }
  for (const SyscallWrapperModel &m : models.syscallWrappers) {
    std::string item = m.function + ":" + m.call + ":" + std::to_string(m.firstArg);
    for (std::size_t i = 0; i < m.numbers.size(); ++i)
      item += (i ? "|" : ":") + m.numbers[i];
    add("SyscallWrappers", item);
  }
  for (const MessageQueueModel &m : models.messageQueues)
    add("MessageQueues", m.function + ":" + std::to_string(m.message) + ":" + m.fds + ":" + m.count);
  for (const FdSenderModel &m : models.fdSenders)
    add("FdSenders", m.function + ":" + std::to_string(m.socket) + ":" + std::to_string(m.fds) +
                         (m.variadic ? "..." : "") + (m.count >= 0 ? ":" + std::to_string(m.count) : "") +
                         (m.holder.empty() ? "" : ":holder=" + m.holder));
  for (const ReceiverModel &m : models.receivers)
    add("Receivers", m.function + ":" + std::to_string(m.socket));
  for (const ChannelViewModel &m : models.channelViews)
    add("ChannelViews", m.function + ":" + std::to_string(m.of));
  // CLASS[|ADD+ADD...[|DATA+DATA...]]
  for (const ContainerModel &m : models.containers) {
    auto joined = [](const std::vector<std::string> &names) {
      std::string out;
      for (const std::string &name : names)
        out += (out.empty() ? "" : "+") + name;
      return out;
    };
    std::string item = m.name + "|" + joined(m.adds) + "|" + joined(m.data);
    while (item.back() == '|')
      item.pop_back();
    add("Containers", item);
  }
  return out;
}

} // namespace afunix::rules
