#include "Rules.h"

#include "Queries.h"

#include <map>
#include <set>

namespace afunix::rules {

using namespace analysis;

static bool familyAccepts(facts::Option option, facts::Family family) {
  if (option == facts::Option::PassPidfd)
    return family == facts::Family::Unix;
  return family == facts::Family::Unix || family == facts::Family::Netlink ||
         family == facts::Family::Bluetooth;
}

namespace {
std::string familyOfService(const facts::ServiceSocket &socket) {
  if (socket.family == facts::Family::Other && llvm::StringRef(socket.address).starts_with("vsock:"))
    return "AF_VSOCK";
  return facts::name(socket.family);
}

// PassCredentials=yes in a socket unit applies to each of its sockets, also the inet ones, where
// the service manager's setsockopt() fails since 6.16 (systemd logs it and goes on).
void serviceUnits(RuleContext &ctx) {
  const Program &P = ctx.P;
  const auto *chosen = ctx.variant("service-unit");
  if (!chosen)
    return;
  // Only the units of what is being checked: beside its sources, starting one of its programs,
  // or handing a socket to its code (a whole repository's other units are someone else's).
  std::set<Id> handedToCode;
  for (Id c = 0; c < P.creates.size(); ++c)
    for (Id s : handoverOf(P, c).sockets)
      handedToCode.insert(s);
  auto belongs = [&](Id i) {
    const facts::ServiceSocket &socket = P.services[i];
    llvm::StringRef file = P.files[P.sites[socket.site].file];
    return handedToCode.count(i) ||
           (!P.sourceDirectory.empty() && file.starts_with(P.sourceDirectory + "/")) ||
           llvm::any_of(socket.programs, [&](const std::string &p) { return P.targets.count(p) != 0; });
  };
  std::map<Id, std::vector<Id>> byLine; // PassCredentials= line -> its unit's sockets
  for (Id i = 0; i < P.services.size(); ++i)
    if (P.services[i].passcred == facts::Tri::True && P.services[i].passcredSite != kNone &&
        P.services[i].manager == facts::Manager::Systemd && belongs(i))
      byLine[P.services[i].passcredSite].push_back(i);
  for (const auto &[line, sockets] : byLine) {
    std::vector<Id> wrong;
    for (Id i : sockets) {
      facts::Family family = P.services[i].family;
      if (family != facts::Family::Unknown && !familyAccepts(facts::Option::PassCred, family))
        wrong.push_back(i);
    }
    if (wrong.empty())
      continue;
    const facts::ServiceSocket &first = P.services[wrong.front()];
    Report &r = ctx.report(line, *chosen,
                           {{"unit", first.unit},
                            {"address", first.address},
                            {"family", familyOfService(first)}});
    for (Id i : wrong)
      ctx.note(r, P.services[i].site, familyOfService(P.services[i]) + " socket " +
                                          P.services[i].address + " of " + P.services[i].unit);
    // When no socket of the unit can use it, the setting goes; otherwise the unit needs splitting.
    if (wrong.size() == sockets.size() && first.removeAt != kNone) {
      const facts::Site &at = P.sites[first.removeAt];
      r.fixes.push_back({at.file, at.offset, first.removeLength, "",
                         "Remove PassCredentials= from " + first.unit});
    }
  }
}
} // namespace

void passcredWrongFamily(RuleContext &ctx) {
  const Program &P = ctx.P;
  serviceUnits(ctx);
  const auto *chosen = ctx.variant("default");
  if (!chosen)
    return;
  constexpr std::size_t kMaxOriginNotes = 3;
  for (const facts::OptionSet &option : P.options) {
    // Code that tests the family first (if (family == AF_UNIX) ...) already does the right thing.
    if (option.familyGuarded)
      continue;
    if (!ctx.spend(P.originsOf(option.place).size() + 1))
      return;
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
