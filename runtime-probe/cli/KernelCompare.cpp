// afunix-probe kernel --compare OLD.json NEW.json: two `afunix-probe kernel --format json`
// reports, key by key (docs/kernel-report.md), as a person deciding on a kernel upgrade reads
// them: the behaviour changes that break programs first (what breaks, which rule finds the code),
// then harmless ones, keys only one report has, keys one side could not measure, and the
// measurements (nanoseconds: they differ between any two runs and decide nothing alone).
// Exit status: 0 nothing that breaks programs changed, 1 something did, 2 unreadable input.
#include "Commands.h"
#include "Json.h"
#include "ProbeHtml.h"
#include "ProbeReport.h"
#include "RunMerge.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace afunix::probe {

namespace {

struct Scalar {
  bool null = false;
  std::string text; // as printed: true/false, numbers, strings
};

void flatten(const YAML::Node &node, const std::string &prefix, std::map<std::string, Scalar> &out) {
  if (node.IsMap()) {
    for (const auto &kv : node) {
      std::string key = kv.first.as<std::string>();
      if (prefix.empty() && key == "experiments")
        continue;
      flatten(kv.second, prefix.empty() ? key : prefix + "." + key, out);
    }
  } else if (node.IsNull()) {
    out[prefix] = {true, "null"};
  } else if (node.IsScalar()) {
    out[prefix] = {node.Tag() != "!" && node.Scalar() == "null", node.Scalar()};
  } else {
    out[prefix] = {false, "(a list)"};
  }
}

struct Report {
  std::string file, release;
  std::map<std::string, Scalar> values;
  std::map<std::string, std::pair<std::string, std::string>> experiments; // name -> (status, reason)
};

std::optional<Report> load(const std::string &path, std::string &error) {
  std::string text;
  if (!readRegularFile(path, 16u << 20, text, error)) {
    error = path + ": " + error;
    return std::nullopt;
  }
  try {
    YAML::Node root = YAML::Load(text);
    if (!root.IsMap() || !root["kernel"] || !root["probe"] || !root["experiments"]) {
      error = path + ": not an `afunix-probe kernel --format json` report (no kernel, probe, experiments)";
      return std::nullopt;
    }
    Report r;
    r.file = path;
    flatten(root, "", r.values);
    r.release = r.values.count("kernel.release") ? r.values["kernel.release"].text : "?";
    for (const auto &e : root["experiments"])
      if (e.IsMap() && e["name"])
        r.experiments[e["name"].as<std::string>()] = {e["status"] ? e["status"].as<std::string>() : "?",
                                                      e["reason"] && !e["reason"].IsNull() ? e["reason"].as<std::string>() : ""};
    return r;
  } catch (const std::exception &e) {
    error = path + ": not valid JSON: " + e.what();
    return std::nullopt;
  }
}

// Keys that report the run (not the kernel) or a measurement, not a behaviour.
bool isRunDetail(const std::string &key) { return key.rfind("probe.", 0) == 0 || key == "kernel.release"; }
bool isMeasurement(const std::string &key) {
  if (key.rfind("gc.", 0) != 0)
    return key == "fds.etoomanyrefs_rlimit";
  return key.size() > 3 && (key.substr(key.size() - 3) == "_ns" || key.find(".ratio") != std::string::npos ||
                            key.find(".inflight") != std::string::npos || key.find(".samples") != std::string::npos);
}

struct Meaning {
  bool breaks;
  std::string what;
  std::string rules;
};

// What a change of a behaviour key means for programs (docs/before-you-upgrade.md, section 2).
Meaning meaningOf(const std::string &key, const std::string &from, const std::string &to) {
  auto is = [&](const char *k, const char *a, const char *b) { return key == k && from == a && to == b; };
  if (is("creds.late_passcred", "real", "pid0") || is("creds.default_attach", "true", "false"))
    return {true, "a reader that enables SO_PASSCRED after a peer could write now sees pid 0 / uid 65534 (nobody)",
            "afunix-passcred-too-late"};
  if (key == "creds.late_passcred" || key == "creds.default_attach")
    return {true, "what a late SO_PASSCRED reader receives changed: check its credential checks",
            "afunix-passcred-too-late"};
  if (is("creds.listener_inherit", "accept", "connect"))
    return {true, "SO_PASSCRED set on a listener after listen() no longer reaches clients that already connected",
            "afunix-passcred-too-late (listener-after-listen)"};
  if (key == "creds.listener_inherit")
    return {true, "accepted sockets inherit the listener's SO_PASSCRED differently", "afunix-passcred-too-late"};
  if (is("creds.embryo_attach", "false", "true"))
    return {false, "nothing breaks: messages queued before accept() carry real credentials again", ""};
  if (key == "creds.embryo_attach")
    return {true, "messages queued before accept() lose their credentials", "afunix-passcred-too-late"};
  if ((key == "passcred.inet" || key == "passcred.inet_passpidfd") && from == "ok")
    return {true, "setsockopt(SO_PASSCRED/SO_PASSSEC/SO_PASSPIDFD) on a non-unix socket now fails with " + to +
                      ": code that sets it on every socket and checks the result stops there",
            "afunix-passcred-wrong-family"};
  if (key == "passcred.inet" || key == "passcred.inet_passpidfd")
    return {false, "the option on non-unix sockets is accepted again", ""};
  if (key.rfind("features.", 0) == 0)
    return from == "false" ? Meaning{false, "a new feature: nothing breaks (receivers may now refuse fds or use pidfds)", ""}
                           : Meaning{true, "a feature programs may use is gone", ""};
  if (is("gc.unix_fd_wait.waits", "false", "true"))
    return {true, "fd-passing senders with >= 2024 fds in flight now wait for the unix GC (hundreds of times "
                  "slower with reference cycles)",
            "afunix-fd-flood, afunix-fd-cycle"};
  if (is("gc.unix_fd_wait.no_fd_waits", "true", "false"))
    return {false, "senders without fds no longer wait for the GC (only fd-passing senders do)", ""};
  if (key.rfind("gc.shapes.", 0) == 0 || key.rfind("fd_cycle.", 0) == 0)
    return {true, "what outlives the closes until a GC run (or what a GC run frees) changed",
            "afunix-fd-cycle"};
  if (key.rfind("gc.", 0) == 0)
    return {true, "who waits for the unix GC changed", "afunix-fd-flood, afunix-fd-cycle"};
  if (key.rfind("fds.limit_total.", 0) == 0)
    return {true, "how SCM_MAX_FD counts the SCM_RIGHTS cmsgs of a message changed", "afunix-fd-limit"};
  if (key.rfind("fds.etoomanyrefs_exempt.", 0) == 0)
    return {true, "who is exempt from ETOOMANYREFS changed", "afunix-fd-flood"};
  if (key.rfind("passcred.", 0) == 0)
    return {true, "what a late SO_PASSCRED loses changed", "afunix-passcred-too-late"};
  if (key == "fds.max_per_message" || key == "fds.over_limit_errno")
    return {true, "the most fds one SCM_RIGHTS message may carry changed", "afunix-fd-limit"};
  if (key == "fds.etoomanyrefs_at")
    return {true, "where ETOOMANYREFS starts for an unprivileged sender changed", "afunix-fd-flood"};
  if ((key == "meminit.init_on_alloc" || key == "meminit.init_on_free") && from == "false" && to == "true")
    return {false, "every skb is zeroed now: a few % more CPU for chatty IPC (bench meminit, bench hackbench)", ""};
  if (key.rfind("meminit.", 0) == 0)
    return {false, "memory auto-init changed (cost only)", ""};
  if (key.rfind("creds.table.", 0) == 0 || key.rfind("creds.embryo_late.", 0) == 0)
    return {true, "a cell of the credentials truth table changed: who receives which credentials",
            "afunix-passcred-too-late, afunix-creds-without-passcred"};
  if (key.rfind("creds.", 0) == 0)
    return {true, "credential delivery changed", "afunix-creds-without-passcred, afunix-passcred-too-late"};
  return {true, "changed; not classified by this afunix-probe: read it in docs/kernel-report.md", ""};
}

const char *kCompareUsage =
    "usage: afunix-probe kernel --compare OLD.json NEW.json [--format text|json] [--html FILE]\n";

} // namespace

int kernelCompare(const std::string &oldPath, const std::string &newPath, bool json, const std::string &htmlPath) {
  std::string error;
  if (!htmlPath.empty() && !writeHtmlFile(htmlPath, "", /*checkOnly=*/true, error)) {
    std::fprintf(stderr, "afunix-probe kernel --compare: --html: %s\n", printable(error).c_str());
    return 2;
  }
  std::optional<Report> before = load(oldPath, error);
  std::optional<Report> after = before ? load(newPath, error) : std::nullopt;
  if (!before || !after) {
    std::fprintf(stderr, "afunix-probe kernel --compare: %s\n\n%s", printable(error).c_str(), kCompareUsage);
    return 2;
  }
  using Change = KernelChange;
  KernelComparison comparison{oldPath, newPath, before->release, after->release};
  auto &[oldFile, newFile, oldRelease, newRelease, breaking, harmless, notCompared, measurements, onlyOld, onlyNew,
         durationsNs, experimentNotes, unchanged] = comparison;
  (void)oldFile, (void)newFile, (void)oldRelease, (void)newRelease;
  std::map<std::string, Scalar> all = before->values;
  all.insert(after->values.begin(), after->values.end());
  for (const auto &[key, ignored] : all) {
    if (isRunDetail(key))
      continue;
    auto a = before->values.find(key), b = after->values.find(key);
    if (key.rfind("gc.", 0) == 0 && key.size() > 3 && key.compare(key.size() - 3, 3, "_ns") == 0) {
      auto ns = [](const auto &it, const auto &end) {
        return it == end || it->second.null ? 0.0 : std::strtod(it->second.text.c_str(), nullptr);
      };
      durationsNs[key] = {ns(a, before->values.end()), ns(b, after->values.end())};
    }
    if (a == before->values.end()) {
      onlyNew.emplace_back(key, b->second.text);
      continue;
    }
    if (b == after->values.end()) {
      onlyOld.emplace_back(key, a->second.text);
      continue;
    }
    if (a->second.text == b->second.text) {
      ++unchanged;
      continue;
    }
    Change c{key, a->second.text, b->second.text, "", ""};
    if (isMeasurement(key))
      measurements.push_back(c);
    else if (a->second.null || b->second.null)
      notCompared.push_back(c);
    else {
      Meaning meaning = meaningOf(key, c.from, c.to);
      c.what = meaning.what;
      c.rules = meaning.rules;
      (meaning.breaks ? breaking : harmless).push_back(c);
    }
  }
  for (const auto &[name, status] : after->experiments) {
    auto old = before->experiments.find(name);
    std::string was = old == before->experiments.end() ? "absent" : old->second.first;
    if (was != status.first)
      experimentNotes.push_back(name + ": " + was + " -> " + status.first +
                                (status.second.empty() ? "" : " (" + status.second + ")"));
  }
  int status = breaking.empty() ? 0 : 1;
  if (!htmlPath.empty() && !writeHtmlFile(htmlPath, kernelCompareHtml(comparison), false, error)) {
    std::fprintf(stderr, "afunix-probe kernel --compare: --html: %s\n", printable(error).c_str());
    return 2;
  }
  if (json) {
    auto changes = [](const std::vector<Change> &list, bool withMeaning) {
      std::string s = "[";
      for (std::size_t i = 0; i < list.size(); ++i) {
        s += (i ? "," : "") + std::string("{\"key\":") + jsonString(list[i].key) + ",\"old\":" + jsonString(list[i].from) +
             ",\"new\":" + jsonString(list[i].to);
        if (withMeaning)
          s += ",\"what\":" + jsonString(list[i].what) + ",\"rules\":" + jsonString(list[i].rules);
        s += "}";
      }
      return s + "]";
    };
    auto only = [](const std::vector<std::pair<std::string, std::string>> &list) {
      std::string s = "[";
      for (std::size_t i = 0; i < list.size(); ++i)
        s += (i ? "," : "") + std::string("{\"key\":") + jsonString(list[i].first) + ",\"value\":" +
             jsonString(list[i].second) + "}";
      return s + "]";
    };
    std::string out = "{\"old\":{\"file\":" + jsonString(oldPath) + ",\"release\":" + jsonString(before->release) +
                      "},\"new\":{\"file\":" + jsonString(newPath) + ",\"release\":" + jsonString(after->release) +
                      "},\"breaking\":" + changes(breaking, true) + ",\"harmless\":" + changes(harmless, true) +
                      ",\"only_old\":" + only(onlyOld) + ",\"only_new\":" + only(onlyNew) +
                      ",\"not_compared\":" + changes(notCompared, false) + ",\"measurements\":" +
                      changes(measurements, false) + ",\"unchanged\":" + std::to_string(unchanged) +
                      ",\"experiments\":[";
    for (std::size_t i = 0; i < experimentNotes.size(); ++i)
      out += (i ? "," : "") + jsonString(experimentNotes[i]);
    out += "],\"exit_status\":" + std::to_string(status) + "}\n";
    std::fputs(out.c_str(), stdout);
    return status;
  }
  std::printf("afunix-probe kernel --compare: %s (Linux %s) -> %s (Linux %s)\n", printable(oldPath).c_str(),
              printable(before->release).c_str(), printable(newPath).c_str(), printable(after->release).c_str());
  if (breaking.empty())
    std::printf("\nno behaviour change that breaks programs\n");
  else
    std::printf("\nbehaviour changes that break programs (%zu):\n", breaking.size());
  for (const Change &c : breaking) {
    std::printf("  %s: %s -> %s\n    %s\n", c.key.c_str(), printable(c.from).c_str(), printable(c.to).c_str(),
                c.what.c_str());
    if (!c.rules.empty())
      std::printf("    afunix-check rules: %s\n", c.rules.c_str());
  }
  if (!harmless.empty()) {
    std::printf("\nother behaviour changes (%zu):\n", harmless.size());
    for (const Change &c : harmless)
      std::printf("  %s: %s -> %s\n    %s\n", c.key.c_str(), printable(c.from).c_str(), printable(c.to).c_str(),
                  c.what.c_str());
  }
  if (!onlyOld.empty() || !onlyNew.empty()) {
    std::printf("\nin one report only (%zu): an older or newer afunix-probe wrote the other\n",
                onlyOld.size() + onlyNew.size());
    for (const auto &[key, value] : onlyOld)
      std::printf("  %s = %s (old only)\n", key.c_str(), printable(value).c_str());
    for (const auto &[key, value] : onlyNew)
      std::printf("  %s = %s (new only)\n", key.c_str(), printable(value).c_str());
  }
  if (!notCompared.empty()) {
    std::printf("\nnot compared (%zu): measured on one side only (skipped or undecided on the other; the\n"
                "reason is in that report's experiments):\n",
                notCompared.size());
    for (const Change &c : notCompared)
      std::printf("  %s: %s -> %s\n", c.key.c_str(), printable(c.from).c_str(), printable(c.to).c_str());
  }
  if (!measurements.empty()) {
    std::printf("\nmeasurements (%zu; they differ between any two runs, decide nothing alone):\n", measurements.size());
    for (const Change &c : measurements)
      std::printf("  %s: %s -> %s\n", c.key.c_str(), printable(c.from).c_str(), printable(c.to).c_str());
  }
  if (!experimentNotes.empty()) {
    std::printf("\nexperiments that ran differently:\n");
    for (const std::string &n : experimentNotes)
      std::printf("  %s\n", printable(n).c_str());
  }
  std::printf("\n%d key%s unchanged. Exit status %d: %s\n", unchanged, unchanged == 1 ? "" : "s", status,
              status ? "a change breaks programs" : "nothing that breaks programs changed");
  return status;
}

} // namespace afunix::probe
