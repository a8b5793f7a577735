#include "Rules.h"

#include "afunix/KernelConstants.h"

#include <set>

namespace afunix::rules {

using namespace analysis;

const char *lifecycleCallName(facts::Lifecycle kind) {
  switch (kind) {
  case facts::Lifecycle::Bind:
    return "bind()";
  case facts::Lifecycle::Listen:
    return "listen()";
  case facts::Lifecycle::Connect:
    return "connect()";
  }
  return "the call";
}

namespace {
const char *callName(facts::Lifecycle kind) { return lifecycleCallName(kind); }
} // namespace

std::string enablePasscredBlock(const std::string &socket) {
  return "{ int afunix_on = 1; setsockopt(" + socket +
         ", SOL_SOCKET, SO_PASSCRED, &afunix_on, sizeof afunix_on); }";
}

bool sharedWithOtherSockets(const Program &P, const facts::LifecycleEvent &event) {
  // Every copy of the statement counts (the per-call clones of a constructor), and a socket is
  // where it is made: clones of one socket() are one socket. Only sockets the program makes:
  // an fd handed over on the path the code does not take there (journald's `if (fd < 0) { fd =
  // socket(); bind(fd); }`) merges in without a path, and is not bound there.
  std::set<Id> made;
  for (const facts::LifecycleEvent &e : P.lifecycle)
    if (e.site == event.site)
      for (Id o : P.originsOf(e.place))
        if (createdHere(P.creates[o].how))
          made.insert(P.creates[o].site);
  return made.size() != 1 || *made.begin() == kNone;
}

std::optional<ReportEdit> enableBefore(const Program &P, const facts::LifecycleEvent &event) {
  if (event.statement == kNone || !P.statements[event.statement].plainSocket)
    return std::nullopt;
  // An edit in code other sockets run through too (systemd's mac_selinux_bind() binds TCP
  // sockets as well) would enable it on them: the fix then belongs to a caller, the user's pick.
  if (sharedWithOtherSockets(P, event))
    return std::nullopt;
  const facts::Statement &at = P.statements[event.statement];
  // A jump to its label would skip what is inserted before it.
  if (at.labelled)
    return std::nullopt;
  const std::string &socket = P.sites[event.site].text;
  return ReportEdit{at.file, at.begin, 0, enablePasscredBlock(socket) + "\n" + at.indentation,
                    "Enable SO_PASSCRED on '" + socket + "' before " + callName(event.kind)};
}

MovePlan moveAbove(const Program &P, const facts::Statement &moved, const facts::Statement &target,
                   facts::Lifecycle kind) {
  MovePlan plan;
  if (moved.file != target.file || moved.block != target.block || target.begin >= moved.begin) {
    plan.why = "it and " + std::string(callName(kind)) + " are not in one block";
    return plan;
  }
  if (target.begin < moved.movableAbove) {
    std::string name = moved.moveStopName.empty() ? "" : "'" + moved.moveStopName + "' ";
    std::string line = moved.moveStopLine ? " on line " + std::to_string(moved.moveStopLine) : "";
    switch (moved.moveStop) {
    case facts::MoveStop::Unmovable:
      plan.why = "the call holds a label, a preprocessor directive or a macro boundary";
      break;
    case facts::MoveStop::BlockStart:
    case facts::MoveStop::Limit:
      plan.why = "too much code lies between them";
      break;
    case facts::MoveStop::Label:
      plan.why = "a label (a jump target) lies between them" + line;
      break;
    case facts::MoveStop::Directive:
      plan.why = "a preprocessor directive lies between them" + line;
      break;
    case facts::MoveStop::Macro:
      plan.why = "a macro expansion or an included file lies between them" + line;
      break;
    case facts::MoveStop::Sets:
      plan.why = (name.empty() ? "what it reads through a pointer " : name) +
                 "is changed between them" + line + ", by code that cannot move with it";
      break;
    case facts::MoveStop::Defines:
      plan.why = name + "is defined between them" + line + " with a value that cannot move with it";
      break;
    case facts::MoveStop::Uses:
      plan.why = "code between them" + line + " uses " + name + "which the move would change";
      break;
    case facts::MoveStop::Calls:
      plan.why = "a call or pointer write between them" + line + " may change " +
                 (name.empty() ? "what it reads" : name.substr(0, name.size() - 1));
      break;
    }
    return plan;
  }
  // What moves: the companions below the target, in source order, then the statement.
  std::string text, taken;
  for (auto it = moved.companions.rbegin(); it != moved.companions.rend(); ++it) {
    if (it->begin <= target.begin)
      continue;
    text += it->text + "\n" + target.indentation;
    plan.edits.push_back({moved.file, it->removeBegin, it->removeEnd - it->removeBegin, ""});
    taken += taken.empty() ? "'" + it->text + "'" : ", '" + it->text + "'";
  }
  text += moved.text + "\n" + target.indentation;
  plan.edits.push_back({moved.file, moved.removeBegin, moved.removeEnd - moved.removeBegin, ""});
  // Removals that touch are one removal: clang's fix-it merging would join them for clang-tidy
  // and not for every front end, and the edits must read the same everywhere.
  std::vector<ReportEdit> removals;
  for (const ReportEdit &e : plan.edits) {
    if (!removals.empty() && removals.back().offset + removals.back().length == e.offset)
      removals.back().length += e.length;
    else
      removals.push_back(e);
  }
  plan.edits = std::move(removals);
  plan.edits.insert(plan.edits.begin(), ReportEdit{target.file, target.begin, 0, text});
  plan.edits.front().title = "Move the SO_PASSCRED call" +
                             (taken.empty() || taken.size() > 40 ? std::string(taken.empty() ? "" : " and what it reads")
                                                                : " and " + taken) +
                             " above " + callName(kind);
  return plan;
}

std::optional<ReportEdit> enablePasscredEarly(const Program &P, const CredentialQueries &Q, Id origin) {
  const facts::Create &create = P.creates[origin];
  auto only = [&](Id o, facts::Lifecycle kind) -> std::optional<ReportEdit> {
    std::vector<Id> events = Q.eventsOn(o, kind);
    if (events.size() != 1)
      return std::nullopt;
    return enableBefore(P, P.lifecycle[events.front()]);
  };
  switch (create.how) {
  case facts::CreateHow::Accept: {
    // Accepted sockets inherit it from the listener: before the listener's only listen().
    // The listener of every program that runs this accept() (listenerViewsOf()), if only one.
    std::vector<llvm::ArrayRef<Id>> views = P.listenerViewsOf(origin);
    std::vector<Id> everywhere;
    for (Id l : P.listenersOf(create))
      if (!views.empty() && llvm::all_of(views, [&](llvm::ArrayRef<Id> v) { return llvm::is_contained(v, l); }))
        everywhere.push_back(l);
    if (everywhere.size() != 1)
      return std::nullopt;
    Id listener = everywhere.front();
    if (!createdHere(P.creates[listener].how))
      return std::nullopt;
    return only(listener, facts::Lifecycle::Listen);
  }
  case facts::CreateHow::Socket:
  case facts::CreateHow::Producer:
    // A datagram socket before its bind(); a connecting client before its connect().
    if (create.type == kernel::kSockDgram && !Q.eventsOn(origin, facts::Lifecycle::Bind).empty())
      return only(origin, facts::Lifecycle::Bind);
    if (Q.eventsOn(origin, facts::Lifecycle::Listen).empty())
      return only(origin, facts::Lifecycle::Connect);
    return std::nullopt;
  case facts::CreateHow::Socketpair: {
    // Right after the socketpair() that made it, before either end can be used.
    if (create.statement == kNone)
      return std::nullopt;
    const facts::Statement &at = P.statements[create.statement];
    const facts::Place &end = P.places[create.place];
    if (!at.followsCall || end.base == kNone || end.index < 0 ||
        P.places[end.base].kind != facts::PlaceKind::Local)
      return std::nullopt;
    return ReportEdit{at.file, at.end, 0, "\n" + at.indentation + enablePasscredBlock(end.name),
                      "Enable SO_PASSCRED on '" + end.name + "' right after socketpair()"};
  }
  default:
    return std::nullopt;
  }
}

std::string serviceFixTitle(const facts::ServiceSocket &socket) {
  if (socket.manager == facts::Manager::AndroidInit)
    return "Add +passcred to socket " + socket.name + " (" + socket.unit + ")";
  if (socket.enableLength > 0)
    return "Set PassCredentials=yes in " + socket.unit;
  return "Add PassCredentials=yes to " + socket.unit;
}

} // namespace afunix::rules
