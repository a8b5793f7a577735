// afunix-probe kernel: what the running kernel really does with AF_UNIX credentials, fd passing
// and memory auto-init, measured with real sockets (runtime-probe/kernel/).
#include "Commands.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "afunix/kernel/ExperimentRegistry.h"
#include "afunix/kernel/KernelReport.h"
#include "afunix/kernel/RulePages.h"

#include <cerrno>
#include <unistd.h>

namespace afunix::probe {

namespace {

constexpr const char *kKernelUsage =
    "usage: afunix-probe kernel [--format text|json] [--quick] [--timeout SECONDS]\n"
    "                           [--gc-inflight N] [--no-netns] [--only NAME,...]\n"
    "       afunix-probe kernel --rule-pages DIR [--timeout SECONDS]\n"
    "       afunix-probe kernel --compare OLD.json NEW.json [--format text|json] [--html FILE]\n"
    "\n"
    "Runs one experiment per AF_UNIX behaviour on real sockets (credentials truth table,\n"
    "listener flag inheritance, SO_PASSPIDFD/SO_PEERPIDFD/SO_PASSRIGHTS, SO_PASSCRED on inet,\n"
    "SCM_MAX_FD, ETOOMANYREFS, unix GC wait, memory auto-init), each in a child process in a\n"
    "private network namespace when permitted, each killed after --timeout seconds (default 60).\n"
    "  --quick          skip the GC experiment (it puts ~17000 sockets in flight for seconds)\n"
    "  --gc-inflight N  AF_UNIX sockets to keep in flight for the GC experiment (default 17000)\n"
    "  --no-netns       do not try unshare(CLONE_NEWNET)\n"
    "  --only NAME,...  run only these experiments (names: the `experiments` of the report)\n"
    "  --rule-pages DIR run the experiments the rule catalog names and write each rule page's\n"
    "                   \"Measured\" table in DIR (docs/rules): every message beside what the\n"
    "                   kernel did\n"
    "  --compare OLD NEW  compare two --format json reports: what changed, what it breaks and\n"
    "                   which rule finds the code; exit 1 if a change breaks programs, else 0\n"
    "  --html FILE      with --compare: also write the comparison as a self-contained HTML page\n"
    "                   (the changes as tables, the GC measurements as a chart)\n"
    "Keys of the JSON report: docs/kernel-report.md. Reading it: docs/before-you-upgrade.md.\n"
    "Exit status: 0 all experiments ran (skips included), 3 an experiment failed or timed out,\n"
    "4 the probe left fds or child processes behind, 2 usage error or unreadable report;\n"
    "--compare: 0 nothing that breaks programs changed, 1 something did.\n";

bool parsePositive(const char *text, double &out) {
  char *end = nullptr;
  double v = std::strtod(text, &end);
  if (!text[0] || *end || !(v > 0) || v > 86400)
    return false;
  out = v;
  return true;
}

} // namespace

int kernelCommand(int argc, char **argv) {
  kernel::KernelReportOptions options;
  bool json = false;
  std::vector<std::string> compare;
  std::string rulePages, htmlPath;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> const char * { return i + 1 < argc ? argv[++i] : nullptr; };
    if (arg == "--help" || arg == "-h") {
      std::fputs(kKernelUsage, stdout);
      return 0;
    } else if (arg == "--compare") {
      if (i + 2 >= argc) {
        std::fprintf(stderr, "afunix-probe kernel: --compare takes two reports: OLD.json NEW.json\n\n%s",
                     kKernelUsage);
        return 2;
      }
      compare = {argv[i + 1], argv[i + 2]};
      i += 2;
    } else if (arg == "--html") {
      const char *v = value();
      if (!v || !v[0]) {
        std::fprintf(stderr, "afunix-probe kernel: --html takes a file name\n\n%s", kKernelUsage);
        return 2;
      }
      htmlPath = v;
    } else if (arg == "--quick") {
      options.quick = true;
    } else if (arg == "--no-netns") {
      options.privateNetwork = false;
    } else if (arg == "--rule-pages") {
      const char *v = value();
      if (!v || !*v) {
        std::fprintf(stderr, "afunix-probe kernel: --rule-pages takes the directory of the rule pages\n\n%s",
                     kKernelUsage);
        return 2;
      }
      rulePages = v;
    } else if (arg == "--only" || arg.rfind("--only=", 0) == 0) {
      const char *v = arg == "--only" ? value() : argv[i] + 7;
      std::string list = v ? v : "";
      for (std::size_t start = 0; v && start <= list.size();) {
        std::size_t comma = list.find(',', start);
        std::string name = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        if (!kernel::findExperimentKey(name)) {
          std::string known;
          for (const auto &key : kernel::kExperimentKeys)
            known += std::string(known.empty() ? "" : ", ") + key.name;
          std::fprintf(stderr, "afunix-probe kernel: --only: no experiment named '%s' (%s)\n",
                       name.c_str(), known.c_str());
          return 2;
        }
        options.only.push_back(name);
        if (comma == std::string::npos)
          break;
        start = comma + 1;
      }
      if (!v || options.only.empty()) {
        std::fprintf(stderr, "afunix-probe kernel: --only takes experiment names\n\n%s", kKernelUsage);
        return 2;
      }
    } else if (arg == "--format" || arg.rfind("--format=", 0) == 0) {
      const char *v = arg == "--format" ? value() : argv[i] + 9;
      if (!v || (std::strcmp(v, "text") && std::strcmp(v, "json"))) {
        std::fprintf(stderr, "afunix-probe kernel: --format takes text or json\n\n%s",
                     kKernelUsage);
        return 2;
      }
      json = !std::strcmp(v, "json");
    } else if (arg == "--timeout") {
      const char *v = value();
      if (!v || !parsePositive(v, options.timeoutSeconds)) {
        std::fprintf(stderr, "afunix-probe kernel: --timeout takes a positive number of "
                             "seconds\n\n%s", kKernelUsage);
        return 2;
      }
    } else if (arg == "--gc-inflight") {
      const char *v = value();
      double n = 0;
      if (!v || !parsePositive(v, n) || n > 1 << 20) {
        std::fprintf(stderr, "afunix-probe kernel: --gc-inflight takes a count (1..1048576)\n");
        return 2;
      }
      options.gcInflight = static_cast<int>(n);
    } else {
      std::fprintf(stderr, "afunix-probe kernel: unknown option '%s'\n\n%s", arg.c_str(),
                   kKernelUsage);
      return 2;
    }
  }
  if (!compare.empty())
    return kernelCompare(compare[0], compare[1], json, htmlPath);
  if (!htmlPath.empty()) {
    std::fprintf(stderr, "afunix-probe kernel: --html goes with --compare\n\n%s", kKernelUsage);
    return 2;
  }
  if (!rulePages.empty()) {
    // Every page first, so that a bad directory is found before minutes of experiments.
    for (std::size_t r = 0; r < catalog::kRuleCount; ++r) {
      std::string path = rulePages + "/" + catalog::kRules[r].id + ".md";
      if (access(path.c_str(), R_OK | W_OK) != 0) {
        std::fprintf(stderr, "afunix-probe kernel: --rule-pages: %s: %s\n", path.c_str(), std::strerror(errno));
        return 2;
      }
    }
    options.only = kernel::linkedExperiments();
    kernel::KernelReport report = kernel::runKernelReport(options);
    int status = report.clean() ? (report.allRan() ? 0 : 3) : 4;
    for (std::size_t r = 0; r < catalog::kRuleCount; ++r) {
      std::string path = rulePages + "/" + catalog::kRules[r].id + ".md", error;
      bool changed = false;
      if (!kernel::writeMeasuredBlock(path, kernel::measuredBlock(catalog::kRules[r], report), changed, error)) {
        std::fprintf(stderr, "afunix-probe kernel: %s\n", error.c_str());
        status = 74;
        continue;
      }
      std::printf("%s: %s\n", path.c_str(), changed ? "updated" : "unchanged");
    }
    for (const auto &o : report.observations)
      if (o.status != kernel::Status::Ok)
        std::printf("%s: %s: %s\n", o.experiment.c_str(), kernel::statusName(o.status), o.reason.c_str());
    return status;
  }
  kernel::KernelReport report = kernel::runKernelReport(options);
  std::string out = json ? kernel::toJson(report) : kernel::toText(report);
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
  if (!report.clean())
    return 4;
  return report.allRan() ? 0 : 3;
}

} // namespace afunix::probe
