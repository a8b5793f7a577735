#include "Rules.h"

#include "afunix/KernelConstants.h"

namespace afunix::rules {

using namespace analysis;

std::string enablePasscredBlock(const std::string &socket) {
  return "{ int afunix_on = 1; setsockopt(" + socket +
         ", SOL_SOCKET, SO_PASSCRED, &afunix_on, sizeof afunix_on); }";
}

std::optional<ReportEdit> enableBefore(const Program &P, const facts::LifecycleEvent &event) {
  if (event.statement == kNone || !P.statements[event.statement].plainSocket)
    return std::nullopt;
  const facts::Statement &at = P.statements[event.statement];
  return ReportEdit{at.file, at.begin, 0,
                    enablePasscredBlock(P.sites[event.site].text) + "\n" + at.indentation};
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
    if (create.listener == kNone || P.originsOf(create.listener).size() != 1)
      return std::nullopt;
    Id listener = P.originsOf(create.listener).front();
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
    return ReportEdit{at.file, at.end, 0, "\n" + at.indentation + enablePasscredBlock(end.name)};
  }
  default:
    return std::nullopt;
  }
}

} // namespace afunix::rules
