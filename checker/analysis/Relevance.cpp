#include "Relevance.h"

#include "Program.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"

namespace afunix::analysis {

using facts::Id;
using facts::kNone;

namespace {

bool identifierChar(char c) { return llvm::isAlnum(c) || c == '_'; }

// Whether other files can name the function at all: not main(), not a static function of a main
// file (its USR names that file: c:server.c@F@helper).
bool nameableElsewhere(const facts::Function &f) {
  if (f.name == "main")
    return false;
  llvm::StringRef key = f.key;
  if (!key.consume_front("c:"))
    return true;
  llvm::StringRef file = key.take_until([](char c) { return c == '@'; });
  return !(file.ends_with(".c") || file.ends_with(".cc") || file.ends_with(".cpp") ||
           file.ends_with(".cxx") || file.ends_with(".C"));
}

} // namespace

std::string writtenName(llvm::StringRef qualified) {
  // A key (f:conn::fd, g:c:@x) or a message name (Server::send, make_socket(), s->fd).
  qualified = qualified.trim();
  while (qualified.ends_with("()"))
    qualified = qualified.drop_back(2);
  std::size_t end = qualified.size();
  while (end > 0 && !identifierChar(qualified[end - 1]))
    --end;
  std::size_t begin = end;
  while (begin > 0 && identifierChar(qualified[begin - 1]))
    --begin;
  llvm::StringRef name = qualified.slice(begin, end);
  if (name.empty() || llvm::isDigit(name.front()))
    return "";
  // operator<<, operator(): the operator itself is not written as a name.
  llvm::StringRef before = qualified.take_front(begin);
  if (name == "operator" || before.ends_with("operator"))
    return "";
  return name.str();
}

std::set<std::string> socketVocabulary(const ProjectOptions &options) {
  // What the extractor (Extract*.cpp) reads by name. A word missing here makes the prefilter skip
  // a file whose facts the extractor would write: run_expectations.py compares every testdata project
  // with and without the filter, and checker/test/vocabulary_test.py looks for the extractor's name
  // literals here.
  static const char *const builtin[] = {
      // calls
      "socket", "socketpair", "accept", "accept4", "paccept", "bind", "listen", "connect",
      "setsockopt", "recvmsg", "sendmsg", "recv", "recvfrom", "recvmmsg", "send", "sendto",
      "sendmmsg", "android_get_control_socket", "sd_listen_fds", "sd_listen_fds_with_names",
      // socket activation as a number
      "SD_LISTEN_FDS_START", "LISTEN_FDS_START",
      // options and control messages
      "SO_PASSCRED", "SO_PASSSEC", "SO_PASSPIDFD", "SO_DOMAIN", "SCM_RIGHTS", "SCM_CREDENTIALS",
      "CMSG_DATA", "CMSG_SPACE", "CMSG_LEN", "CMSG_FIRSTHDR", "CMSG_NXTHDR", "__cmsg_data",
      "cmsghdr", "msghdr", "mmsghdr", "ucred", "msg_control", "msg_controllen", "cmsg_len",
      "MSG_DONTWAIT",
      // addresses, families and types
      "sockaddr_un", "sun_path", "sockaddr", "sa_family", "sa_family_t", "__kernel_sa_family_t", "AF_UNIX", "AF_LOCAL", "PF_UNIX", "PF_LOCAL", "AF_NETLINK",
      "PF_NETLINK", "AF_BLUETOOTH", "PF_BLUETOOTH", "AF_INET", "PF_INET", "AF_INET6", "PF_INET6",
      "SOCK_STREAM", "SOCK_DGRAM", "SOCK_SEQPACKET", "SOCK_RAW"};
  std::set<std::string> words(std::begin(builtin), std::end(builtin));
  // The model catalog and the project's own models (both are in the options).
  for (const auto &entry : options.socketProducers)
    words.insert(entry.getKey().str());
  for (const auto &entry : options.optionWrappers)
    words.insert(entry.getKey().str());
  for (const std::string &name : options.externalSources)
    words.insert(writtenName(name));
  for (const std::string &name : options.fdOwnerClasses)
    words.insert(writtenName(name));
  for (const Registrar &r : options.registrars)
    words.insert(r.name);
  for (const FdHolder &h : options.fdHolders) {
    words.insert(h.store);
    words.insert(h.load);
  }
  for (const HolderCall &c : options.holderCalls)
    words.insert(c.name);
  for (const SyscallWrapper &w : options.syscallWrappers) {
    words.insert(w.name);
    for (const std::string &number : w.numbers)
      words.insert(number);
  }
  for (const MessageQueue &q : options.messageQueues)
    words.insert(q.name);
  for (const FdSender &f : options.fdSenders)
    words.insert(writtenName(f.name));
  for (const auto &entry : options.receivers)
    words.insert(entry.getKey().str());
  words.erase("");
  return words;
}

std::set<std::string> namesInFacts(const std::vector<const facts::Unit *> &units) {
  std::set<std::string> names;
  for (const facts::Unit *unit : units) {
    for (const facts::Function &f : unit->functions)
      if (!f.system && nameableElsewhere(f))
        names.insert(writtenName(f.name));
    for (const facts::Place &p : unit->places)
      if (p.kind == facts::PlaceKind::Field || p.kind == facts::PlaceKind::Global)
        names.insert(writtenName(p.name));
  }
  names.erase("");
  return names;
}

NamesThatMatter namesThatMatter(const Program &program) {
  const std::size_t places = program.places.size();
  // Places a socket may be in: reached by a socket's origin, or flowing into a place a fact is
  // about (whatever another file stores there may be a socket).
  std::vector<bool> matters(places);
  for (Id p = 0; p < places; ++p)
    for (Id origin : program.originsOf(p)) {
      facts::CreateHow how = program.creates[origin].how;
      if (how != facts::CreateHow::NotSocket && how != facts::CreateHow::Unknown &&
          how != facts::CreateHow::Parameter) {
        matters[p] = true;
        break;
      }
    }
  std::vector<std::vector<Id>> into(places);
  for (const facts::Flow &flow : program.flows)
    if (flow.from < places && flow.to < places)
      into[flow.to].push_back(flow.from);
  std::vector<Id> work;
  std::vector<bool> upstream(places);
  auto factAt = [&](Id place) {
    if (place < places && !upstream[place]) {
      upstream[place] = matters[place] = true;
      work.push_back(place);
    }
  };
  for (const facts::OptionSet &f : program.options)
    factAt(f.place);
  for (const facts::LifecycleEvent &f : program.lifecycle)
    factAt(f.place);
  for (const facts::Receive &f : program.receives)
    factAt(f.place);
  for (const facts::Payload &f : program.payloads)
    factAt(f.place);
  for (const facts::Received &f : program.received)
    factAt(f.place);
  for (const facts::Send &f : program.sends)
    factAt(f.channel);
  for (const facts::Write &f : program.writes)
    factAt(f.place);
  for (const facts::Callback &f : program.callbacks)
    factAt(f.socket);
  for (const facts::Create &c : program.creates) {
    factAt(c.listener);
    factAt(c.familyFrom); // what the family constant is copied through
  }
  while (!work.empty()) {
    Id p = work.back();
    work.pop_back();
    for (Id from : into[p])
      if (!upstream[from]) {
        upstream[from] = matters[from] = true;
        work.push_back(from);
      }
  }

  NamesThatMatter out;
  std::set<std::string> &names = out.used;
  // A function whose definition matters (what it does with what it is handed), wherever called.
  auto defineFunction = [&](Id function) {
    if (function != kNone && function < program.functions.size() &&
        !program.functions[function].system && !program.functions[function].defined &&
        nameableElsewhere(program.functions[function]))
      out.defined.insert(writtenName(program.functions[function].name));
  };
  // A function whose callers matter.
  auto nameFunction = [&](Id function) {
    if (function != kNone && function < program.functions.size() &&
        !program.functions[function].system && nameableElsewhere(program.functions[function]))
      names.insert(writtenName(program.functions[function].name));
  };
  // Functions that handle a socket: a fact in them, a parameter or return value a socket may be
  // in; then every function that calls one (callers order, loop around and hand on what they do).
  std::vector<bool> relevant(program.functions.size());
  auto mark = [&](Id site) {
    if (site != kNone && site < program.sites.size() && program.sites[site].function != kNone)
      relevant[program.sites[site].function] = true;
  };
  for (const facts::Create &c : program.creates)
    if (c.how != facts::CreateHow::NotSocket)
      mark(c.site);
  for (const facts::OptionSet &f : program.options)
    mark(f.site);
  for (const facts::LifecycleEvent &f : program.lifecycle)
    mark(f.site);
  for (const facts::Receive &f : program.receives)
    mark(f.site);
  for (const facts::Payload &f : program.payloads)
    mark(f.site);
  for (const facts::Received &f : program.received)
    mark(f.site);
  for (const facts::Send &f : program.sends)
    mark(f.site);
  for (const facts::Write &f : program.writes)
    mark(f.site);
  for (const facts::Limit &f : program.limits)
    mark(f.site);
  for (const facts::Callback &f : program.callbacks) {
    mark(f.site);
    defineFunction(f.callee);
  }
  for (Id f = 0; f < program.functions.size(); ++f) {
    const facts::Function &fn = program.functions[f];
    if (fn.credentialEvidence != kNone || fn.buildsScmRights || fn.buildsScmCredentials)
      relevant[f] = true;
  }
  // How another file names a place reached through objects and arrays: the innermost field
  // (s->conn.fd: `fd`, which any access names), or the global or field that is the place; and
  // the function whose parameter or return value the access goes through.
  auto nameOfPlace = [&](Id place) {
    bool named = false;
    for (int depth = 0; place != kNone && place < places && depth < 16; ++depth) {
      const facts::Place &p = program.places[place];
      switch (p.kind) {
      case facts::PlaceKind::Field:
        if (!named)
          out.fields.insert(writtenName(p.name));
        return;
      case facts::PlaceKind::Global:
        if (!named)
          names.insert(writtenName(p.name));
        return;
      case facts::PlaceKind::Member:
        if (!named && p.field != kNone && p.field < places)
          out.fields.insert(writtenName(program.places[p.field].name));
        named = true;
        place = p.base;
        break;
      case facts::PlaceKind::Element:
      case facts::PlaceKind::Deref:
        place = p.base;
        break;
      case facts::PlaceKind::Param:
      case facts::PlaceKind::Return:
        // A function that handles the socket: its callers matter. One whose body no parsed file
        // holds: its definition does.
        if (p.function != kNone && program.functions[p.function].defined)
          relevant[p.function] = true;
        else
          defineFunction(p.function);
        return;
      default:
        return;
      }
    }
  };
  for (Id p = 0; p < places; ++p)
    if (matters[p])
      nameOfPlace(p);
  // A call's value that matters: its callee makes or passes on the socket.
  for (const facts::Call &call : program.calls) {
    bool hands = call.passesControl || (call.receiver.place != kNone && call.receiver.place < places &&
                                        matters[call.receiver.place]);
    for (const facts::Argument &a : call.args)
      hands |= a.place != kNone && a.place < places && matters[a.place];
    if (hands)
      defineFunction(call.callee);
  }
  for (const facts::Call &call : program.indirectCalls) {
    bool hands = call.passesControl;
    for (const facts::Argument &a : call.args)
      hands |= a.place != kNone && a.place < places && matters[a.place];
    if (hands)
      nameOfPlace(call.target);
  }
  for (Id p = 0; p < places; ++p) {
    llvm::StringRef key = program.places[p].key;
    if (!matters[p] || !key.consume_front("v:r:"))
      continue;
    for (std::size_t at = key.find('@'); at != llvm::StringRef::npos; at = key.find('@', at + 1))
      if (Id callee = program.functionByKey(key.take_front(at)); callee != kNone) {
        defineFunction(callee);
        break;
      }
  }
  for (const facts::Points &p : program.points)
    defineFunction(p.function);
  for (bool changed = true; changed;) {
    changed = false;
    for (const facts::Call &call : program.calls)
      if (call.caller != kNone && call.callee != kNone && call.callee < relevant.size() &&
          relevant[call.callee] && !relevant[call.caller])
        changed = relevant[call.caller] = true;
  }
  for (Id f = 0; f < program.functions.size(); ++f)
    if (relevant[f])
      nameFunction(f);
  names.erase("");
  out.defined.erase("");
  out.fields.erase("");
  return out;
}

} // namespace afunix::analysis
