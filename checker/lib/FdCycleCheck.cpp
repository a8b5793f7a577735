#include "FdCycleCheck.h"

#include "llvm/ADT/DenseSet.h"

#include <optional>

namespace clang::tidy::afunix {

using fd::FdKind;

namespace {

bool calleeIs(const CallExpr *call, std::initializer_list<llvm::StringRef> names) {
  const FunctionDecl *fn = call ? call->getDirectCallee() : nullptr;
  if (!fn || !fn->getIdentifier())
    return false;
  for (llvm::StringRef name : names)
    if (fn->getName() == name)
      return true;
  return false;
}

// The one origin of a value, when it has exactly one that names a single socket.
const fd::FdOrigin *singleOrigin(const fd::OriginSet &set) {
  if (set.origins.size() != 1)
    return nullptr;
  const fd::FdOrigin &o = set.origins.front();
  // Through a run-time array index one creator stands for many sockets: not "the same" one.
  if (!o.creator || !o.exact || o.kind == FdKind::NotSocket || o.kind == FdKind::OtherSocket)
    return nullptr;
  return &o;
}

} // namespace

void FdCycleCheck::checkSends(const fd::FdFacts &facts) {
  llvm::DenseSet<const CallExpr *> reported;
  for (const fd::SendSite &site : facts.sends()) {
    for (const fd::PayloadFd &payload : site.payload) {
      if (payload.many)
        continue; // arrays: which element goes where is not known statically
      std::optional<fd::FdOrigin> created;
      std::string variant;
      std::string relation;
      if (fd::FdFacts::sameLocation(payload.fd, site.over)) {
        variant = "self";
        fd::OriginSet sent = facts.resolve(payload.fd, Producers);
        if (const fd::FdOrigin *one = singleOrigin(sent))
          created = *one;
      } else {
        fd::OriginSet sent = facts.resolve(payload.fd, Producers);
        fd::OriginSet over = facts.resolve(site.over, Producers);
        const fd::FdOrigin *a = singleOrigin(sent);
        const fd::FdOrigin *b = singleOrigin(over);
        if (!a || !b)
          continue;
        created = *a;
        if (a->creator == b->creator && a->index == b->index) {
          variant = "self";
        } else if (a->creator == b->creator && calleeIs(a->creator, {"socketpair"})) {
          variant = "peer";
          relation = "its socketpair() peer";
        } else {
          // connect() and accept() in one function: conservatively assumed to be the same
          // connection only when both ends are made there and the listener is AF_UNIX.
          const fd::FdOrigin *accepted = calleeIs(a->creator, {"accept", "accept4"}) ? a : b;
          const fd::FdOrigin *connecting = accepted == a ? b : a;
          if (!calleeIs(accepted->creator, {"accept", "accept4"}) ||
              !calleeIs(connecting->creator, {"socket"}) || accepted->kind != FdKind::UnixSocket)
            continue;
          const fd::CallRecord *acceptRecord = facts.recordOf(accepted->creator);
          const fd::CallRecord *socketRecord = facts.recordOf(connecting->creator);
          if (!acceptRecord || !socketRecord || acceptRecord->function != socketRecord->function ||
              !facts.connectsInFunction(acceptRecord->function, *connecting, Producers))
            continue;
          variant = "peer";
          relation = accepted == a ? "accept()ed from the listener it connect()s to"
                                   : "connect()ed to the listener it was accept()ed from";
        }
      }
      const CallExpr *primary = site.levels.back().call;
      if (!reported.insert(primary).second)
        continue;
      diag(primary->getBeginLoc(),
           message(variant, {{"socket", facts.text(payload.fd)},
                             {"peer", facts.text(site.over)},
                             {"relation", relation}}),
           severity());
      if (created && created->creator)
        diag(created->creator->getBeginLoc(), "socket created here", DiagnosticIDs::Note);
      if (site.levels.size() > 1)
        diag(site.levels.front().call->getBeginLoc(), "sent here", DiagnosticIDs::Note);
    }
  }
}

} // namespace clang::tidy::afunix
