// The rules: one function per catalog rule, each a query over the linked program (Program.h)
// that reports through a RuleContext. AfunixChecks.cpp registers them, once, for every front end.
#pragma once

#include <optional>

#include "Queries.h"
#include "Report.h"

namespace afunix::rules {

// afunix-creds-without-passcred: recvmsg() looks for SCM_CREDENTIALS on a socket that never gets
// SO_PASSCRED (on itself, or on the listener an accepted socket inherits it from).
void credsWithoutPasscred(analysis::RuleContext &context);
// afunix-passcred-too-late: SO_PASSCRED enabled after peers can already queue data.
void passcredTooLate(analysis::RuleContext &context);
// afunix-passcred-wrong-family: SO_PASSCRED/SO_PASSSEC/SO_PASSPIDFD on a family that refuses it.
void passcredWrongFamily(analysis::RuleContext &context);
// afunix-fd-flood: AF_UNIX socket fds passed with nothing bounding how many are in flight.
void fdFlood(analysis::RuleContext &context);
// afunix-fd-cycle: a socket sent over itself or its peer: garbage only the GC can reclaim.
void fdCycle(analysis::RuleContext &context);
// afunix-fd-limit: an SCM_RIGHTS message sized for more than SCM_MAX_FD fds.
void fdLimit(analysis::RuleContext &context);

// Notes shared by the credential rules: for an accepted socket, where it was accepted and where
// its listener was created.
void noteListener(analysis::RuleContext &context, analysis::Report &report,
                  const facts::Create &accepted);
// For sockets a service manager hands over (origins with CreateHow::External): a note where the
// program takes each over and at each socket of the project's service files it may be, and the
// fix-it in that file when one edit enables SO_PASSCRED for all of them.
void noteServiceFiles(analysis::RuleContext &context, analysis::Report &report,
                      const std::vector<facts::Id> &handedOver);

// Whether sockets made by other socket() (or accept()) calls reach the call too: a helper's
// bind(fd, ...), a constructor copied per call. An edit there would change them as well.
bool sharedWithOtherSockets(const analysis::Program &program, const facts::LifecycleEvent &event);

// Fix-its that enable SO_PASSCRED (PasscredFixes.cpp): the block they insert, the edit that
// inserts it right before a bind()/listen()/connect() statement on a plain socket expression,
// and the one edit that enables it on `origin` before anything can be queued to it (before its
// listener's only listen(), its only bind() or connect(), right after its socketpair()); nothing
// when that is not one clear edit.
std::string enablePasscredBlock(const std::string &socket);
std::optional<analysis::ReportEdit> enableBefore(const analysis::Program &program,
                                                 const facts::LifecycleEvent &event);
std::optional<analysis::ReportEdit> enablePasscredEarly(const analysis::Program &program,
                                                        const analysis::CredentialQueries &queries,
                                                        facts::Id origin);

// Moving statement `moved` (a late SO_PASSCRED call) above `target` (the `kind` call it must
// precede), with the statements that give what it reads its value (facts::Statement::companions):
// the edits, or why it cannot move (MoveSafety.h decided how far it can go).
struct MovePlan {
  std::vector<analysis::ReportEdit> edits; // empty: no move
  std::string why;                         // then: what stops it, for the finding's note
};
MovePlan moveAbove(const analysis::Program &program, const facts::Statement &moved,
                   const facts::Statement &target, facts::Lifecycle kind);

// "bind()", "listen()", "connect()".
const char *lifecycleCallName(facts::Lifecycle kind);

// The title of the fix-it that enables SO_PASSCRED in a service file's socket.
std::string serviceFixTitle(const facts::ServiceSocket &socket);

} // namespace afunix::rules
