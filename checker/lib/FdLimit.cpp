#include "Rules.h"

#include "afunix/KernelConstants.h"

#include <algorithm>
#include <set>

namespace afunix::rules {

using namespace analysis;

namespace {

// Whether `function` receives on some socket: recv()/recvmsg()/read() itself, or through a
// function that receives on an argument it is given (recvmsg_safe(fd, &mh, ...)).
bool receivesIn(const Program &P, Id function) {
  for (const facts::Receive &r : P.receives)
    if (P.sites[r.site].function == function)
      return true;
  for (Id c : P.callsIn(function)) {
    const facts::Call &call = P.calls[c];
    for (unsigned i = 0; i < call.args.size(); ++i)
      if (call.args[i].mode != facts::ArgMode::None && P.receivesOnParam(call.callee, i))
        return true;
  }
  return false;
}

} // namespace

void fdLimit(RuleContext &ctx) {
  const Program &P = ctx.P;
  const auto *chosen = ctx.variant("default");
  if (!chosen || (P.limits.empty() && P.sends.empty()))
    return;
  // Files where some function builds an SCM_RIGHTS message: a buffer at file scope counts there.
  std::set<Id> buildingFiles;
  for (const facts::Function &f : P.functions)
    if (f.buildsScmRights && f.file != kNone)
      buildingFiles.insert(f.file);
  // One finding per function (one message), at the place that decides its fd count: cmsg_len is
  // what the kernel reads, the payload copy fills it, the buffer only bounds it.
  std::vector<const facts::Limit *> limits;
  for (const facts::Limit &l : P.limits)
    limits.push_back(&l);
  std::sort(limits.begin(), limits.end(), [&](const facts::Limit *a, const facts::Limit *b) {
    return std::make_tuple(static_cast<int>(a->where), P.sites[a->site].file, P.sites[a->site].line, a->site) <
           std::make_tuple(static_cast<int>(b->where), P.sites[b->site].file, P.sites[b->site].line, b->site);
  });
  const std::vector<SendSite> &sends = sendsOf(ctx);
  std::set<Id> sending; // functions a sendmsg() is reached through, at any level
  for (const SendSite &send : sends)
    for (const SendLevel &level : send.levels)
      sending.insert(level.function);
  std::set<std::pair<Id, Id>> done; // (function, file)
  for (const facts::Limit *l : limits) {
    if (!ctx.spend())
      return;
    const facts::Site &site = P.sites[l->site];
    // Conservative: a count outside a function that names SCM_RIGHTS may size other control data.
    // A message queued with a modelled library is sent with all its fds in SCM_RIGHTS.
    bool rights = l->where == facts::LimitWhere::QueuedMessage ||
                  (site.function != kNone ? P.functions[site.function].buildsScmRights
                                          : buildingFiles.count(site.file) != 0);
    // A control buffer in a function that receives and sends nothing is a recvmsg() buffer: it
    // only has to be big enough, the 253-fd limit is the sender's.
    if (rights && l->where == facts::LimitWhere::BufferSize && site.function != kNone &&
        !sending.count(site.function) && receivesIn(P, site.function))
      continue;
    if (!rights || !done.insert({site.function, site.file}).second)
      continue;
    Report &r = ctx.report(l->site, *chosen, {{"count", std::to_string(l->count)}});
    if (l->where == facts::LimitWhere::QueuedMessage)
      ctx.note(r, l->site,
               "queued here for a library that sends each message with all its fds in one sendmsg() "
               "(the model catalog's message_queues)");
    std::set<std::uint32_t> noted{site.line};
    for (const facts::Limit *other : limits) {
      const facts::Site &o = P.sites[other->site];
      if (o.function != site.function || o.file != site.file || !noted.insert(o.line).second)
        continue;
      const char *what = other->where == facts::LimitWhere::CmsgLen         ? "cmsg_len is set for "
                         : other->where == facts::LimitWhere::PayloadCopy   ? "the payload of "
                         : other->where == facts::LimitWhere::QueuedMessage ? "a message of "
                                                                            : "the control buffer is sized for ";
      std::string text = std::string(what) + std::to_string(other->count) +
                         (other->where == facts::LimitWhere::PayloadCopy     ? " fds is copied here"
                          : other->where == facts::LimitWhere::QueuedMessage ? " fds is queued here, sent in one message"
                                                                             : " fds here");
      ctx.note(r, other->site, text);
    }
  }
  // A library that sends the fds it is given in one message (the model catalog's fd_senders,
  // ancil_send_fds(sock, fds, 300)): the call's count. (A send whose function builds no
  // SCM_RIGHTS message of its own is such a call: a sendmsg() is kept only where one is built.)
  for (const SendSite &send : sends) {
    if (!ctx.spend())
      return;
    const SendLevel &sender = send.levels.front();
    if (send.levels.size() != 1 || sender.function == kNone || P.functions[sender.function].buildsScmRights)
      continue;
    for (const PayloadFd &fd : send.payload) {
      // (Of the call itself: another sending call of the function has its own payload.)
      const facts::Site &at = P.sites[sender.site];
      if (fd.site == kNone || P.sites[fd.site].file != at.file || P.sites[fd.site].line != at.line ||
          fd.count <= kernel::kScmMaxFd)
        continue;
      Report &r = ctx.report(sender.site, *chosen, {{"count", std::to_string(fd.count)}});
      ctx.note(r, sender.site,
               "a library sends the fds it is given here in one sendmsg() (the model catalog's fd_senders)");
      break;
    }
  }
  // A wrapper that sends as many fds as its caller says: the caller's constant count
  // (SendAll(ch, fds.data(), fds.size()) with a std::array<int, 300>), at that call, unless the
  // wrapper's own message is reported above.
  std::set<Id> reportedAt;
  for (const SendSite &send : sends) {
    if (!ctx.spend())
      return;
    const SendLevel &sender = send.levels.front();
    if (send.levels.size() < 2 || send.queued || sender.function == kNone ||
        !P.functions[sender.function].buildsScmRights)
      continue;
    if (std::any_of(done.begin(), done.end(), [&](const auto &d) { return d.first == sender.function; }))
      continue;
    for (const PayloadFd &fd : send.payload) {
      if (fd.count <= kernel::kScmMaxFd)
        continue;
      Id at = send.levels.back().site;
      if (!reportedAt.insert(at).second)
        break;
      Report &r = ctx.report(at, *chosen, {{"count", std::to_string(fd.count)}});
      ctx.note(r, fd.site != kNone ? fd.site : sender.site,
               "the wrapper copies that many fds into one message here");
      break;
    }
  }
}

} // namespace afunix::rules
