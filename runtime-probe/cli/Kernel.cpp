// afunix-probe kernel: what the running kernel really does with AF_UNIX credentials, fd passing
// and memory auto-init, measured with real sockets (runtime-probe/kernel/).
#include "Commands.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "afunix/kernel/KernelReport.h"

namespace afunix::probe {

namespace {

constexpr const char *kKernelUsage =
    "usage: afunix-probe kernel [--format text|json] [--quick] [--timeout SECONDS]\n"
    "                           [--gc-inflight N] [--no-netns]\n"
    "       afunix-probe kernel --compare OLD.json NEW.json [--format text|json]\n"
    "\n"
    "Runs one experiment per AF_UNIX behaviour on real sockets (credentials truth table,\n"
    "listener flag inheritance, SO_PASSPIDFD/SO_PEERPIDFD/SO_PASSRIGHTS, SO_PASSCRED on inet,\n"
    "SCM_MAX_FD, ETOOMANYREFS, unix GC wait, memory auto-init), each in a child process in a\n"
    "private network namespace when permitted, each killed after --timeout seconds (default 60).\n"
    "  --quick          skip the GC experiment (it puts ~17000 sockets in flight for seconds)\n"
    "  --gc-inflight N  AF_UNIX sockets to keep in flight for the GC experiment (default 17000)\n"
    "  --no-netns       do not try unshare(CLONE_NEWNET)\n"
    "  --compare OLD NEW  compare two --format json reports: what changed, what it breaks and\n"
    "                   which rule finds the code; exit 1 if a change breaks programs, else 0\n"
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
    } else if (arg == "--quick") {
      options.quick = true;
    } else if (arg == "--no-netns") {
      options.privateNetwork = false;
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
    return kernelCompare(compare[0], compare[1], json);
  kernel::KernelReport report = kernel::runKernelReport(options);
  std::string out = json ? kernel::toJson(report) : kernel::toText(report);
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
  if (!report.clean())
    return 4;
  return report.allRan() ? 0 : 3;
}

} // namespace afunix::probe
