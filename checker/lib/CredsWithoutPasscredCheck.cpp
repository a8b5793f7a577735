#include "CredsWithoutPasscredCheck.h"

#include <map>
#include <set>

namespace clang::tidy::afunix {

void CredsWithoutPasscredCheck::checkModel(const SocketModel &model) {
  std::set<unsigned> reportedArguments; // raw encodings of call-site arguments already reported
  for (const ReadCredsFact &read : model.credentialReads()) {
    std::vector<unsigned> missing; // known sockets that reach the read without SO_PASSCRED
    bool anyKnown = false;
    bool anyEnabled = false;
    for (unsigned origin : model.originsOf(read.loc)) {
      Passcred state = passcredReaching(model, origin);
      if (state == Passcred::Enabled)
        anyEnabled = true;
      else if (state == Passcred::Never)
        missing.push_back(origin);
      if (state != Passcred::Unknown)
        anyKnown = true;
    }

    if (missing.empty() || (anyEnabled && model.location(read.loc).kind != LocKind::Param)) {
      // Only sockets from elsewhere reach this read (their creator may enable SO_PASSCRED), or
      // some socket that reaches it does have SO_PASSCRED: a place that merges several sockets
      // (an epoll data.fd, a union) is not evidence that this one lacks it.
      if (pedantic() && !anyKnown && !anyEnabled)
        if (const auto *chosen = variant("unknown-origin")) {
          report(read.site, *chosen, {{"socket", read.site.socketText}});
          note(read.evidence, "the credentials are looked for here");
        }
      continue;
    }

    const SocketLocation &readLoc = model.location(read.loc);
    if (readLoc.kind == LocKind::Param) {
      // A helper reading from its parameter is judged at each call that hands it a socket
      // without SO_PASSCRED; a call whose argument may also be an enabled socket is not.
      const auto *chosen = variant("parameter");
      if (!chosen)
        continue;
      std::map<unsigned, bool> callEnabled; // arrival argument -> some origin through it enabled
      for (unsigned origin : model.originsOf(read.loc))
        if (const FlowEdge *edge = model.arrivalEdge(origin, read.loc))
          callEnabled[edge->loc.getRawEncoding()] |=
              passcredReaching(model, origin) == Passcred::Enabled;
      for (unsigned origin : missing) {
        const FlowEdge *edge = model.arrivalEdge(origin, read.loc);
        const CreateFact &create = model.creates()[origin];
        SourceLocation at = edge ? edge->loc : read.site.loc;
        if (edge && callEnabled[at.getRawEncoding()])
          continue;
        if (!reportedArguments.insert(at.getRawEncoding()).second)
          continue;
        report(at, *chosen, {{"socket", read.site.socketText}, {"origin", create.origin}});
        note(read.site.loc, "credentials are read here");
        if (create.how != CreateHow::Accept)
          note(create.site.loc, "socket created here");
        noteListener(model, create);
      }
      continue;
    }

    const auto *chosen = variant("default");
    if (!chosen)
      continue;
    report(read.site, *chosen, {{"socket", read.site.socketText}});
    note(read.evidence, "the credentials are looked for here");
    for (size_t i = 0; i < missing.size(); ++i) {
      if (i == kMaxOriginNotes) {
        note(read.site.loc, "and " + std::to_string(missing.size() - i) + " more such sockets");
        break;
      }
      const CreateFact &create = model.creates()[missing[i]];
      if (create.how != CreateHow::Accept)
        note(create.site.loc, "socket created here, never given SO_PASSCRED");
      noteListener(model, create);
    }
  }
}

} // namespace clang::tidy::afunix
