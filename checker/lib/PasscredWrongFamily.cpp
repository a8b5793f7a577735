#include "Rules.h"

namespace afunix::rules {

using namespace analysis;

static bool familyAccepts(facts::Option option, facts::Family family) {
  if (option == facts::Option::PassPidfd)
    return family == facts::Family::Unix;
  return family == facts::Family::Unix || family == facts::Family::Netlink ||
         family == facts::Family::Bluetooth;
}

void passcredWrongFamily(RuleContext &ctx) {
  const Program &P = ctx.P;
  const auto *chosen = ctx.variant("default");
  if (!chosen)
    return;
  constexpr std::size_t kMaxOriginNotes = 3;
  for (const facts::OptionSet &option : P.options) {
    // Code that tests the family first (if (family == AF_UNIX) ...) already does the right thing.
    if (option.familyGuarded)
      continue;
    std::vector<Id> wrong;
    for (Id origin : P.originsOf(option.place)) {
      const facts::Create &create = P.creates[origin];
      // Unknown family (a variable, a socket from elsewhere): nothing to say.
      if (create.family != facts::Family::Unknown && !familyAccepts(option.option, create.family))
        wrong.push_back(origin);
    }
    if (wrong.empty())
      continue;
    const facts::Create &first = P.creates[wrong.front()];
    std::string valid = option.option == facts::Option::PassPidfd ? "AF_UNIX"
                                                                  : "AF_UNIX, AF_NETLINK and AF_BLUETOOTH";
    auto familyText = [](const facts::Create &c) {
      return c.familyName.empty() ? std::string(facts::name(c.family)) : c.familyName;
    };
    Report &r = ctx.report(option.site, *chosen,
                           {{"option", facts::name(option.option)},
                            {"socket", P.sites[option.site].text},
                            {"family", familyText(first)},
                            {"valid_families", valid}});
    for (std::size_t i = 0; i < wrong.size(); ++i) {
      if (i == kMaxOriginNotes) {
        ctx.note(r, option.site, "and " + std::to_string(wrong.size() - i) + " more such sockets");
        break;
      }
      const facts::Create &create = P.creates[wrong[i]];
      if (create.how == facts::CreateHow::Accept)
        noteListener(ctx, r, create); // the family is the listener's
      else
        ctx.note(r, create.site, "socket created here with " + familyText(create));
      for (const facts::Flow *edge : P.arrivals(wrong[i], option.place))
        if (edge->kind == facts::FlowKind::Argument)
          ctx.note(r, edge->site, "the socket is passed here");
    }
  }
}

} // namespace afunix::rules
