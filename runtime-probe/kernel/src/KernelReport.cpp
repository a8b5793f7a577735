#include "afunix/kernel/KernelReport.h"

#include <cstdio>
#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <sys/utsname.h>
#include <unistd.h>

#include "afunix/RuleCatalog.h"
#include "afunix/kernel/ExperimentRegistry.h"
#include "afunix/kernel/Experiments.h"

namespace afunix::kernel {

namespace {

struct Planned {
  const char *name;
  std::function<Observation()> run; // empty: registered but not built in (a test catches it)
  double timeoutSeconds;
  bool heavy;
  bool sharesInflight;
};

// Ordered tree of dotted keys, for nested JSON.
struct Node {
  std::vector<std::pair<std::string, std::unique_ptr<Node>>> children;
  bool leaf = false;
  Value value;

  Node &child(const std::string &name) {
    for (auto &c : children)
      if (c.first == name)
        return *c.second;
    children.emplace_back(name, std::make_unique<Node>());
    return *children.back().second;
  }
  void put(const std::string &dotted, const Value &v) {
    std::size_t dot = dotted.find('.');
    if (dot == std::string::npos) {
      Node &n = child(dotted);
      n.leaf = true;
      n.value = v;
      return;
    }
    child(dotted.substr(0, dot)).put(dotted.substr(dot + 1), v);
  }
};

std::string quote(const std::string &s) { return Value::of(s).toJson(); }

void emit(const Node &node, std::string &out, int indent) {
  if (node.leaf) {
    out += node.value.toJson();
    return;
  }
  out += "{";
  bool first = true;
  for (const auto &[name, child] : node.children) {
    out += first ? "\n" : ",\n";
    first = false;
    out += std::string(static_cast<std::size_t>(indent + 2), ' ') + quote(name) + ": ";
    emit(*child, out, indent + 2);
  }
  out += "\n" + std::string(static_cast<std::size_t>(indent), ' ') + "}";
}

std::string stringArray(const std::vector<std::string> &items, int indent) {
  if (items.empty())
    return "[]";
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i)
    out += (i ? ",\n" : "\n") + std::string(static_cast<std::size_t>(indent + 2), ' ') +
           quote(items[i]);
  return out + "\n" + std::string(static_cast<std::size_t>(indent), ' ') + "]";
}

} // namespace

const std::vector<std::string> &documentedKeys() {
  static const std::vector<std::string> keys = {
      "kernel.release",
      "probe.uid",
      "probe.netns",
      "probe.quick",
      "probe.fds_before",
      "probe.fds_after",
      "probe.children_left",
      "probe.clean",
      "creds.default_attach",
      "creds.late_passcred",
      "creds.embryo_attach",
      "creds.explicit_creds_need_receiver_passcred",
      "creds.delivery_needs_receiver_passcred",
      "creds.listener_inherit",
      "creds.table.stream.write.late",
      "creds.embryo_late.stream.write",
      "features.so_passpidfd",
      "features.so_peerpidfd",
      "features.so_passrights",
      "passcred.inet",
      "passcred.inet_passpidfd",
      "fds.max_per_message",
      "fds.over_limit_errno",
      "fds.etoomanyrefs_at",
      "fds.etoomanyrefs_rlimit",
      "gc.unix_fd_wait.idle_no_fd_ns",
      "gc.unix_fd_wait.idle_unix_fd_ns",
      "gc.unix_fd_wait.no_fd_ns",
      "gc.unix_fd_wait.unix_fd_ns",
      "gc.unix_fd_wait.no_fd_cycles_ns",
      "gc.unix_fd_wait.unix_fd_cycles_ns",
      "gc.unix_fd_wait.unix_fd_cycles_p99_ns",
      "gc.unix_fd_wait.inflight",
      "gc.unix_fd_wait.samples",
      "gc.unix_fd_wait.ratio",
      "gc.unix_fd_wait.waits",
      "gc.unix_fd_wait.no_fd_waits",
      "fds.limit_total.two_cmsgs_over",
      "fds.limit_total.two_cmsgs_at_limit",
      "fds.limit_total.one_cmsg_at_limit",
      "fds.etoomanyrefs_exempt.none",
      "fds.etoomanyrefs_exempt.cap_sys_resource",
      "fds.etoomanyrefs_exempt.cap_sys_admin",
      "gc.conditions.idle_unix_fd_ns",
      "gc.conditions.below_unix_fd_ns",
      "gc.conditions.below_close_unix_fd_ns",
      "gc.conditions.above_unix_fd_ns",
      "gc.conditions.above_other_fd_ns",
      "gc.conditions.above_no_fd_ns",
      "gc.conditions.above_other_uid_unix_fd_ns",
      "gc.conditions.collected_unix_fd_ns",
      "gc.conditions.inflight_below",
      "gc.conditions.inflight_above",
      "gc.conditions.below_waits",
      "gc.conditions.close_starts_wait",
      "gc.conditions.above_waits",
      "gc.conditions.other_fd_waits",
      "gc.conditions.no_fd_waits",
      "gc.conditions.other_uid_waits",
      "gc.conditions.collected_waits",
      "gc.conditions.release_starts_run",
      "gc.shapes.as_selftest",
      "gc.shapes.stream.triangle.left",
      "fd_cycle.own_queue_needs_gc",
      "fd_cycle.stream.own_queue_left",
      "fd_cycle.stream.over_itself_left",
      "fd_cycle.connected_own_queue_left",
      "fd_cycle.own_address_left",
      "fd_cycle.other_address_left",
      "fd_cycle.unconnected_self_send",
      "creds.without_passcred.never_delivered",
      "passcred.handed_over.queued_before",
      "passcred.handed_over.sent_after",
      "passcred.handed_over.never_enabled",
      "passcred.accepted_late.stream.before_accept",
      "passcred.accepted_late.stream.between",
      "passcred.accepted_late.stream.after",
      "passcred.accepted_late.stream.read_before",
      "passcred.dgram_late.before",
      "passcred.dgram_late.after",
      "passcred.socketpair_late.stream",
      "passcred.client_late.after_request",
      "passcred.client_late.before_request",
      "passcred.listener_after_listen.connected_before",
      "passcred.listener_after_listen.connected_after",
      "passcred.listener_after_accept.accepted_before",
      "meminit.init_on_alloc",
      "meminit.init_on_free",
      "meminit.source",
  };
  return keys;
}

const Value *KernelReport::get(const std::string &key) const {
  for (const auto &o : observations)
    if (const Value *v = o.get(key))
      return v;
  return nullptr;
}

bool KernelReport::allRan() const {
  for (const auto &o : observations)
    if (o.status == Status::Failed || o.status == Status::TimedOut)
      return false;
  return true;
}

KernelReport runKernelReport(const KernelReportOptions &options) {
  KernelReport report;
  report.quick = options.quick;
  report.uid = static_cast<long long>(getuid());
  utsname u{};
  uname(&u);
  report.release = u.release;
  report.fdsBefore = countOpenFds();

  const double t = options.timeoutSeconds;
  GcOptions gc;
  gc.inflight = options.gcInflight;
  gc.samples = options.gcSamples;
  gc.timeBudgetSeconds = t * 0.8; // finish with what was measured before the hard kill
  GcConditionsOptions conditions;
  conditions.timeBudgetSeconds = t * 0.8;
  // The experiment functions, by the names of afunix/kernel/ExperimentRegistry.h (checked below).
  const std::map<std::string, std::function<Observation()>> functions = {
      {"creds", credentialsExperiment},
      {"listener_inherit", listenerInheritExperiment},
      {"features", featuresExperiment},
      {"passcred_inet", passcredInetExperiment},
      {"accept_needs_listener", acceptNeedsListenerExperiment},
      {"fd_limit", fdLimitExperiment},
      {"fd_limit_total", fdLimitTotalExperiment},
      {"etoomanyrefs", [] { return tooManyRefsExperiment(64); }},
      {"etoomanyrefs_exempt", tooManyRefsExemptExperiment},
      {"gc", [gc] { return gcExperiment(gc); }},
      {"gc_wait_conditions", [conditions] { return gcWaitConditionsExperiment(conditions); }},
      {"gc_shapes", gcShapesExperiment},
      {"fd_cycle_own_queue", fdCycleOwnQueueExperiment},
      {"fd_cycle_own_address", fdCycleOwnAddressExperiment},
      {"creds_without_passcred", credsWithoutPasscredExperiment},
      {"passcred_handed_over", passcredHandedOverExperiment},
      {"passcred_accepted_late", passcredAcceptedLateExperiment},
      {"passcred_dgram_late", passcredDgramLateExperiment},
      {"passcred_socketpair_late", passcredSocketpairLateExperiment},
      {"passcred_client_late", passcredClientLateExperiment},
      {"passcred_listener_after_listen", passcredListenerAfterListenExperiment},
      {"passcred_listener_after_accept", passcredListenerAfterAcceptExperiment},
      {"meminit", meminitExperiment},
  };
  std::vector<Planned> plan;
  for (const ExperimentKey &key : kExperimentKeys) {
    if (!options.only.empty() &&
        std::find(options.only.begin(), options.only.end(), key.name) == options.only.end())
      continue;
    auto it = functions.find(key.name);
    plan.push_back({key.name, it == functions.end() ? nullptr : it->second, t, key.heavy,
                    key.inflight});
  }
  Isolation isolation;
  isolation.privateNetwork = options.privateNetwork;
  // ETOOMANYREFS counts a user's fds in flight, the GC counts everyone's: two runs at once would
  // measure each other. They take turns (InflightLock); one that cannot get its turn reports
  // nothing rather than a disturbed figure.
  std::unique_ptr<InflightLock> lock;
  std::size_t lastSharing = 0;
  for (std::size_t i = 0; i < plan.size(); ++i)
    if (plan[i].sharesInflight)
      lastSharing = i;
  for (std::size_t index = 0; index < plan.size(); ++index) {
    const Planned &p = plan[index];
    std::string name = p.name;
    if ((options.quick && p.heavy) || !p.run) {
      Observation skipped;
      skipped.experiment = name;
      if (!p.run)
        skipped.fail("registered in ExperimentRegistry.h but not built into this afunix-probe");
      else
        skipped.skip("--quick");
      report.observations.push_back(skipped);
      continue;
    }
    bool sharesInflight = p.sharesInflight;
    if (sharesInflight && !lock)
      lock = std::make_unique<InflightLock>(2 * t);
    if (sharesInflight && !lock->held()) {
      Observation skipped;
      skipped.experiment = name;
      skipped.skip(std::string("another afunix-probe held ") + InflightLock::name() + " for " +
                   std::to_string(static_cast<int>(lock->waitedSeconds())) +
                   " s: its fds in flight would have disturbed this measurement");
      report.observations.push_back(skipped);
      continue;
    }
    isolation.timeoutSeconds = p.timeoutSeconds;
    Observation o = runIsolated(p.name, p.run, isolation);
    if (sharesInflight && lock->waitedSeconds() >= 0.1)
      o.note("waited " + std::to_string(static_cast<int>(lock->waitedSeconds() * 10) / 10.0).substr(0, 4) +
             " s for another afunix-probe run to finish its in-flight measurements");
    report.observations.push_back(std::move(o));
    if (index == lastSharing)
      lock.reset(); // the in-flight experiments are done: another run may take its turn
  }
  lock.reset();
  for (const auto &o : report.observations)
    if (!o.evidence.empty() && o.evidence.front().rfind("ran in a child process, ", 0) == 0) {
      report.netns = o.evidence.front().substr(24);
      break;
    }
  report.fdsAfter = countOpenFds();
  report.childrenLeft = !noChildrenLeft();
  return report;
}

std::string toJson(const KernelReport &r) {
  Node root;
  root.put("kernel.release", Value::of(r.release));
  root.put("probe.uid", Value::of(r.uid));
  root.put("probe.netns", r.netns.empty() ? Value::null() : Value::of(r.netns));
  root.put("probe.quick", Value::of(r.quick));
  root.put("probe.fds_before", Value::of(r.fdsBefore));
  root.put("probe.fds_after", Value::of(r.fdsAfter));
  root.put("probe.children_left", Value::of(r.childrenLeft));
  root.put("probe.clean", Value::of(r.clean()));
  for (const auto &key : documentedKeys())
    if (key.rfind("kernel.", 0) != 0 && key.rfind("probe.", 0) != 0) {
      const Value *v = r.get(key);
      root.put(key, v ? *v : Value::null());
    }
  for (const auto &o : r.observations)
    for (const auto &[key, value] : o.values)
      root.put(key, value);
  std::string out;
  emit(root, out, 0);
  out.resize(out.size() - 2); // reopen the top-level object for the experiments array
  out += ",\n  \"experiments\": [";
  for (std::size_t i = 0; i < r.observations.size(); ++i) {
    const Observation &o = r.observations[i];
    out += i ? ",\n" : "\n";
    char secs[32];
    std::snprintf(secs, sizeof secs, "%.3f", o.seconds);
    out += "    {\n      \"name\": " + quote(o.experiment) + ",\n      \"status\": " +
           quote(statusName(o.status)) + ",\n      \"reason\": " +
           (o.reason.empty() ? std::string("null") : quote(o.reason)) +
           ",\n      \"seconds\": " + secs + ",\n      \"verdict\": " +
           (o.verdict.empty() ? std::string("null") : quote(o.verdict)) + ",\n      \"evidence\": " +
           stringArray(o.evidence, 6) + ",\n      \"implies\": " +
           stringArray(o.implications, 6) + ",\n      \"rules\": " + stringArray(o.rules, 6) +
           "\n    }";
  }
  out += "\n  ]\n}\n";
  return out;
}

std::string toText(const KernelReport &r) {
  std::string out = "afunix-probe kernel: Linux " + r.release + " (reported only; every answer "
                    "below was measured)\n";
  out += "experiments ran as uid " + std::to_string(r.uid) + ", " +
         (r.netns.empty() ? std::string("-") : r.netns) + "\n";
  for (const auto &o : r.observations) {
    char head[160];
    std::snprintf(head, sizeof head, "\n[%s] %s (%.2f s)", statusName(o.status),
                  o.experiment.c_str(), o.seconds);
    out += head;
    if (!o.reason.empty())
      out += ": " + o.reason;
    out += "\n";
    for (const auto &[key, value] : o.values) {
      if (key.rfind("creds.table.", 0) == 0 || key.rfind("creds.embryo_late.", 0) == 0)
        continue; // printed as a table below
      out += "  " + key + " = " + value.toText() + "\n";
    }
    if (o.experiment == "creds" && o.get("creds.table.stream.write.late")) {
      out += "  what the reader got (R=receiver S=sender N=neither L=late B=both):\n";
      out += "    type       method         R      S      N      L      B      embryo+L\n";
      for (const char *type : {"stream", "dgram", "seqpacket"})
        for (const char *method : {"write", "sendmsg", "sendmsg_creds"}) {
          char row[200];
          std::string cells;
          for (const char *t : {"receiver", "sender", "neither", "late", "both"}) {
            const Value *v = o.get(std::string("creds.table.") + type + "." + method + "." + t);
            char cell[32];
            std::snprintf(cell, sizeof cell, "%-7s", v ? v->text.c_str() : "-");
            cells += cell;
          }
          const Value *e = o.get(std::string("creds.embryo_late.") + type + "." + method);
          std::snprintf(row, sizeof row, "    %-10s %-14s %s%s\n", type, method, cells.c_str(),
                        e ? e->text.c_str() : "");
          out += row;
        }
    }
    if (!o.verdict.empty())
      out += "  what the kernel did: " + o.verdict + "\n";
    for (const auto &e : o.evidence)
      out += "  - " + e + "\n";
    for (const auto &i : o.implications)
      out += "  implies: " + i + "\n";
    for (const auto &id : o.rules) {
      const catalog::Rule *rule = catalog::findRule(id);
      out += "  rule " + id + (rule ? std::string(": ") + rule->title : " (not in the catalog)") +
             "\n";
    }
  }
  char tail[200];
  std::snprintf(tail, sizeof tail, "\ncleanup: %d fds before, %d after; %s\n", r.fdsBefore,
                r.fdsAfter, r.childrenLeft ? "CHILD PROCESSES LEFT" : "no child process left");
  out += tail;
  return out;
}

} // namespace afunix::kernel
