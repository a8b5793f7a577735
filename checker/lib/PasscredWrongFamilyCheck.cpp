#include "PasscredWrongFamilyCheck.h"

namespace clang::tidy::afunix {

static bool familyAccepts(SockOption option, Family family) {
  if (option == SockOption::PassPidfd)
    return family == Family::Unix;
  return family == Family::Unix || family == Family::Netlink || family == Family::Bluetooth;
}

void PasscredWrongFamilyCheck::checkModel(const SocketModel &model) {
  const auto *chosen = variant("default");
  if (!chosen)
    return;
  for (const OptionFact &option : model.options()) {
    // Code that tests the family first (if (family == AF_UNIX) ...) already does the right thing.
    if (option.familyGuarded)
      continue;
    std::vector<unsigned> wrong;
    for (unsigned origin : model.originsOf(option.loc)) {
      const CreateFact &create = model.creates()[origin];
      // Unknown family (a variable, a socket from elsewhere): nothing to say.
      if (create.family != Family::Unknown && !familyAccepts(option.option, create.family))
        wrong.push_back(origin);
    }
    if (wrong.empty())
      continue;
    const CreateFact &first = model.creates()[wrong.front()];
    std::string valid = option.option == SockOption::PassPidfd
                            ? "AF_UNIX"
                            : "AF_UNIX, AF_NETLINK and AF_BLUETOOTH";
    report(option.site, *chosen,
           {{"option", optionName(option.option).str()},
            {"socket", option.site.socketText},
            {"family", first.familyName.empty() ? familyName(first.family).str() : first.familyName},
            {"valid_families", valid}});
    for (size_t i = 0; i < wrong.size(); ++i) {
      if (i == kMaxOriginNotes) {
        note(option.site.loc, "and " + std::to_string(wrong.size() - i) + " more such sockets");
        break;
      }
      unsigned origin = wrong[i];
      const CreateFact &create = model.creates()[origin];
      if (create.how == CreateHow::Accept)
        noteListener(model, create); // the family is the listener's
      else
        note(create.site.loc, "socket created here with " +
                                  (create.familyName.empty() ? familyName(create.family).str()
                                                             : create.familyName));
      if (const FlowEdge *edge = model.arrivalEdge(origin, option.loc);
          edge && edge->kind == FlowKind::Argument)
        note(edge->loc, "the socket is passed here");
    }
  }
}

} // namespace clang::tidy::afunix
