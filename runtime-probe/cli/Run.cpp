// afunix-probe run: runs a program with libafunix-probe.so preloaded, follows its fork/exec
// children (each writes its own report file), merges the reports and exits with the program's
// status. Everything that can be checked is checked before the program runs (options, the report
// file, the library, the binary); signals sent to `run` reach the program; the summary never goes
// to the program's stdout.
#include "Commands.h"
#include "RunMerge.h"

#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <dirent.h>
#include <elf.h>
#include <fcntl.h>
#include <string>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <map>
#include <vector>

extern char **environ;

namespace afunix::probe {

namespace {

// Exit codes of `run` itself (the program's own status is passed through otherwise).
constexpr int kExitUsage = 2;
constexpr int kExitOutput = 74;        // the summary could not be written (sysexits EX_IOERR)
constexpr int kExitCannotAttach = 125; // static/setuid binary, missing library: nothing was run
constexpr int kExitNotExecutable = 126;
constexpr int kExitNotFound = 127;

constexpr const char *kRunUsage =
    "usage: afunix-probe run [OPTIONS] -- CMD ARGS...\n"
    "\n"
    "Runs CMD with libafunix-probe.so preloaded. Every process image (fork and exec children too)\n"
    "writes its own report; the merged summary opens with the findings, grouped by rule and call\n"
    "site (function, file and line, with the stack and the socket), and goes to stderr or FILE,\n"
    "never to the program's stdout.\n"
    "  --report FILE        write the summary to FILE instead of stderr (checked before CMD runs;\n"
    "                       a symlink is followed only where the kernel's protected_symlinks would)\n"
    "  --format FMT         text (default), json, or sarif (SARIF 2.1.0: findings at their source\n"
    "                       lines, the same writer as afunix-check's)\n"
    "  --out DIR            keep the per-process reports, and the JSON summary\n"
    "                       (afunix-probe-run.<pid>.<ns>.json, for afunix-check --runtime-evidence),\n"
    "                       in DIR (default: a temporary directory, removed afterwards)\n"
    "  --error-exitcode N   exit with N (1-255) when a finding was reported, as valgrind does\n"
    "  --sarif-root DIR     SARIF artifact URIs relative to DIR (default: the current directory)\n"
    "  --html FILE          also write the run as a self-contained HTML page: the findings at their\n"
    "                       source lines with stacks and sockets, latency histograms and fds in\n"
    "                       flight over time as charts, the process tree\n"
    "  --sites              also record where the program made its socket calls, so that\n"
    "                       afunix-check --runtime-unexercised can name the calls never reached\n"
    "  --fix passcred       enable SO_PASSCRED where the program listens on or reads credentials from\n"
    "                       an AF_UNIX socket without it (opt-in compatibility mode; every place is\n"
    "                       reported)\n"
    "SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2 sent to `run` are passed to the program;\n"
    "what the processes reported is still merged.\n"
    "Environment passed on: AFUNIX_PROBE_TIMING, AFUNIX_PROBE_TIMING_SAMPLE, AFUNIX_PROBE_SLOW_NS,\n"
    "AFUNIX_PROBE_INTERVAL, AFUNIX_PROBE_STACKS; AFUNIX_PROBE_SYMBOLIZER chooses the symbolizer\n"
    "(default llvm-symbolizer-19, llvm-symbolizer, then addr2line; 'none' for module+offset).\n"
    "Exit status: the program's (128+N if killed by signal N), or N from --error-exitcode; 2 usage\n"
    "error; 74 the summary could not be written; 125 cannot attach; 126 not executable; 127 not\n"
    "found.\n";

int usage(const std::string &message) {
  std::fprintf(stderr, "afunix-probe run: %s\n\n%s", message.c_str(), kRunUsage);
  return kExitUsage;
}

std::string selfDirectory() {
  char path[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
  if (n <= 0)
    return ".";
  path[n] = 0;
  std::string s = path;
  return s.substr(0, s.rfind('/'));
}

// The library next to the tool: build/bin/../lib and <prefix>/bin/../lib (install layout).
std::string findLibrary() {
  if (const char *explicitPath = std::getenv("AFUNIX_PROBE_LIBRARY"); explicitPath && *explicitPath)
    return explicitPath;
  std::string dir = selfDirectory();
  for (const char *relative : {"/../lib/libafunix-probe.so", "/../lib64/libafunix-probe.so",
                               "/../lib/x86_64-linux-gnu/libafunix-probe.so"}) {
    std::string candidate = dir + relative;
    char resolved[PATH_MAX];
    if (access(candidate.c_str(), R_OK) == 0 && realpath(candidate.c_str(), resolved))
      return resolved;
  }
  return dir + "/../lib/libafunix-probe.so";
}

// execvp's search, done here so the binary can be inspected before it runs.
std::string resolveCommand(const std::string &command) {
  if (command.find('/') != std::string::npos)
    return command;
  const char *path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= dirs.size()) {
    std::size_t end = dirs.find(':', start);
    if (end == std::string::npos)
      end = dirs.size();
    std::string dir = dirs.substr(start, end - start);
    std::string candidate = (dir.empty() ? "." : dir) + "/" + command;
    if (access(candidate.c_str(), X_OK) == 0)
      return candidate;
    start = end + 1;
  }
  return "";
}

// Why LD_PRELOAD would not reach this binary, or "" if it will.
std::string attachProblem(const std::string &path, int depth = 0) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0)
    return "";
  if ((st.st_mode & S_ISUID && st.st_uid != getuid()) || (st.st_mode & S_ISGID && st.st_gid != getgid()))
    return path + " is setuid/setgid: the dynamic loader ignores LD_PRELOAD for it (secure execution)";
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return "";
  unsigned char header[256] = {};
  ssize_t n = pread(fd, header, sizeof header - 1, 0);
  std::string problem;
  if (n >= 2 && header[0] == '#' && header[1] == '!' && depth == 0) {
    std::string line(reinterpret_cast<char *>(header) + 2, static_cast<std::size_t>(n - 2));
    line = line.substr(0, line.find('\n'));
    std::size_t b = line.find_first_not_of(" \t");
    if (b != std::string::npos) {
      std::string interpreter = line.substr(b, line.find_first_of(" \t", b) - b);
      problem = attachProblem(interpreter, depth + 1);
    }
  } else if (n >= static_cast<ssize_t>(sizeof(Elf64_Ehdr)) && !std::memcmp(header, ELFMAG, SELFMAG)) {
    if (header[EI_CLASS] != ELFCLASS64) {
      problem = path + " is a 32-bit program: the 64-bit probe library cannot be preloaded into it";
    } else {
      Elf64_Ehdr eh;
      std::memcpy(&eh, header, sizeof eh);
      bool interp = false;
      for (int i = 0; i < eh.e_phnum; ++i) {
        Elf64_Phdr ph;
        if (pread(fd, &ph, sizeof ph, static_cast<off_t>(eh.e_phoff + static_cast<uint64_t>(i) * eh.e_phentsize)) !=
            static_cast<ssize_t>(sizeof ph))
          break;
        interp |= ph.p_type == PT_INTERP;
      }
      if (!interp)
        problem = path + " is statically linked (no PT_INTERP): there is no dynamic loader to preload the probe";
    }
  }
  close(fd);
  return problem;
}

uint64_t realtimeNs() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}


#ifdef AFUNIX_PROBE_SANITIZER_RUNTIME
constexpr const char *kSanitizerRuntime = AFUNIX_PROBE_SANITIZER_RUNTIME;
#else
constexpr const char *kSanitizerRuntime = "";
#endif

// ---- the summary's destination --------------------------------------------------------------

// Opens --report FILE before the program runs, so a bad path costs nothing. It refuses what
// fs.protected_symlinks and fs.protected_regular refuse, even where they are off: in a sticky
// world-writable directory (/tmp), a symlink or an existing file owned by someone else (neither
// us nor the directory's owner) is someone else's trap, not our report file.
int openReportFile(const std::string &path, std::string &error) {
  if (path.empty()) {
    error = "--report needs a file name";
    return -1;
  }
  std::string dir = path.find('/') == std::string::npos ? "." : path.substr(0, path.rfind('/'));
  if (dir.empty())
    dir = "/";
  struct stat dirStat, fileStat;
  bool stickyShared = stat(dir.c_str(), &dirStat) == 0 && (dirStat.st_mode & S_ISVTX) && (dirStat.st_mode & S_IWOTH);
  bool exists = lstat(path.c_str(), &fileStat) == 0;
  uid_t me = geteuid();
  if (exists && stickyShared && fileStat.st_uid != me && fileStat.st_uid != dirStat.st_uid &&
      (S_ISLNK(fileStat.st_mode) || S_ISREG(fileStat.st_mode))) {
    error = path + " is a " + (S_ISLNK(fileStat.st_mode) ? "symbolic link" : "file") + " owned by uid " +
            std::to_string(fileStat.st_uid) + " in the shared sticky directory " + dir +
            ": not written (choose another path)";
    return -1;
  }
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 0644);
  if (fd < 0) {
    error = path + ": " + std::strerror(errno);
    return -1;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !(S_ISREG(st.st_mode) || S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) {
    close(fd);
    error = path + ": not a regular file, a FIFO or a terminal";
    return -1;
  }
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

bool writeAll(int fd, const std::string &text) {
  for (std::size_t done = 0; done < text.size();) {
    ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

// ---- signals ---------------------------------------------------------------------------------

constexpr int kForwarded[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};
volatile sig_atomic_t gChild = 0;      // the program, while it runs
volatile sig_atomic_t gLateSignal = 0; // a signal that came after it ended: for its descendants

// A signal someone sent to `run` goes to the program. One the terminal generated (Ctrl-C,
// Ctrl-\, hangup: si_code SI_KERNEL) already reached the program, which is in the same
// foreground process group, and is not sent twice.
void forward(int sig, siginfo_t *info, void *) {
  if (info && info->si_code > 0)
    return;
  int saved = errno;
  if (gChild > 0)
    kill(static_cast<pid_t>(gChild), sig);
  else
    gLateSignal = sig;
  errno = saved;
}

// Children of this process (the program's orphaned descendants we now parent), from /proc.
std::vector<pid_t> ownChildren() {
  std::vector<pid_t> pids;
  std::string path = "/proc/self/task/" + std::to_string(getpid()) + "/children";
  if (FILE *f = std::fopen(path.c_str(), "r")) {
    long pid;
    while (std::fscanf(f, "%ld", &pid) == 1)
      pids.push_back(static_cast<pid_t>(pid));
    std::fclose(f);
  }
  return pids;
}

// ---- the report directory ------------------------------------------------------------------------

// Processes that drop privileges (nginx workers, setpriv, su) must still be able to write their
// reports: when `run` runs as root, the directory it makes is sticky and writable for everyone
// (1733: no one can list it or remove another's file; reports are created O_EXCL|O_NOFOLLOW).
void openUpForPrivilegeDrops(const std::string &dir) {
  if (geteuid() == 0)
    chmod(dir.c_str(), 01733);
}

// Why a process that dropped privileges could not create its report in `dir`: a directory on the
// way that others cannot search, or `dir` itself not writable by others. "" when it can.
std::string closedToOthers(const std::string &dir, const struct stat &dirStat) {
  if (!(dirStat.st_mode & S_IWOTH))
    return "--out " + dir + " is writable by its owner only";
  for (std::string path = dir; path.size() > 1;) {
    path = path.substr(0, path.rfind('/'));
    if (path.empty())
      path = "/";
    struct stat st;
    if (stat(path.c_str(), &st) == 0 && !(st.st_mode & S_IXOTH))
      return path + " (above --out " + dir + ") cannot be searched by other users";
  }
  return "";
}

} // namespace

int runCommand(int argc, char **argv) {
  std::string outDir, format = "text", reportPath, sarifRoot, htmlPath;
  bool fixPasscred = false, haveReport = false, sites = false;
  int errorExitCode = 0;
  int i = 1;
  for (; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--") {
      ++i;
      break;
    }
    if (arg == "--help" || arg == "-h") {
      std::fputs(kRunUsage, stdout);
      return std::fflush(stdout) == 0 && !std::ferror(stdout) ? 0 : kExitOutput;
    }
    std::string name = arg, value;
    bool inlineValue = false;
    if (arg.rfind("--", 0) == 0 && arg.find('=') != std::string::npos) {
      name = arg.substr(0, arg.find('='));
      value = arg.substr(arg.find('=') + 1);
      inlineValue = true;
    }
    auto takeValue = [&](const char *what) -> bool {
      if (!inlineValue) {
        if (i + 1 >= argc || !std::strcmp(argv[i + 1], "--")) {
          usage(name + " needs " + what + (i + 1 < argc ? " (got '--')" : ""));
          return false;
        }
        value = argv[++i];
      }
      if (value.empty()) {
        usage(name + " needs " + what + " (got an empty value)");
        return false;
      }
      return true;
    };
    if (name == "--out") {
      if (!takeValue("a directory"))
        return kExitUsage;
      outDir = value;
    } else if (name == "--format") {
      if (!takeValue("text, json or sarif"))
        return kExitUsage;
      format = value;
      if (format != "text" && format != "json" && format != "sarif")
        return usage("--format must be text, json or sarif, got '" + printable(format) + "'");
    } else if (name == "--report") {
      if (!takeValue("a file"))
        return kExitUsage;
      if (value == "-")
        return usage("--report -: the program's stdout is its own; give a file, or leave --report out for stderr");
      reportPath = value;
      haveReport = true;
    } else if (name == "--html") {
      if (!takeValue("a file"))
        return kExitUsage;
      htmlPath = value;
    } else if (name == "--sarif-root") {
      if (!takeValue("a directory"))
        return kExitUsage;
      sarifRoot = value;
    } else if (name == "--error-exitcode") {
      if (!takeValue("an exit code"))
        return kExitUsage;
      char *end = nullptr;
      long n = std::strtol(value.c_str(), &end, 10);
      if (*end || n < 1 || n > 255)
        return usage("--error-exitcode takes 1..255, got '" + printable(value) + "'");
      errorExitCode = static_cast<int>(n);
    } else if (arg == "--sites") {
      sites = true;
    } else if (name == "--fix") {
      if (!takeValue("what to fix"))
        return kExitUsage;
      if (value != "passcred")
        return usage("--fix only knows 'passcred', got '" + printable(value) + "'");
      fixPasscred = true;
    } else if (!arg.empty() && arg[0] == '-') {
      return usage("unknown option '" + printable(arg) + "'");
    } else {
      break; // the command itself, without "--"
    }
  }
  if (i >= argc)
    return usage("no command to run (expected: -- CMD ARGS...)");
  if (!argv[i][0])
    return usage("the command name is empty");
  std::vector<std::string> command(argv + i, argv + argc);
  if (format == "sarif" && !sarifAvailable()) {
    std::string out, error;
    renderSummarySarif(RunSummary{}, "", out, error);
    std::fprintf(stderr, "afunix-probe run: --format sarif: %s\n", error.c_str());
    return kExitUsage;
  }

  if (!htmlPath.empty()) {
    std::string error;
    if (!writeHtmlFile(htmlPath, "", /*checkOnly=*/true, error)) {
      std::fprintf(stderr, "afunix-probe run: --html: %s\n", printable(error).c_str());
      return kExitUsage;
    }
  }
  // The summary's destination first: a bad --report must not cost a whole run.
  int reportFd = 2;
  if (haveReport) {
    std::string error;
    reportFd = openReportFile(reportPath, error);
    if (reportFd < 0) {
      std::fprintf(stderr, "afunix-probe run: cannot write --report %s\n", printable(error).c_str());
      return kExitUsage;
    }
  }

  std::string library = findLibrary();
  if (access(library.c_str(), R_OK) != 0) {
    std::fprintf(stderr, "afunix-probe run: cannot attach: probe library %s not found (set AFUNIX_PROBE_LIBRARY)\n",
                 printable(library).c_str());
    return kExitCannotAttach;
  }
  std::string resolved = resolveCommand(command[0]);
  if (resolved.empty() || access(resolved.c_str(), F_OK) != 0) {
    std::fprintf(stderr, "afunix-probe run: %s: command not found\n", printable(command[0]).c_str());
    return kExitNotFound;
  }
  if (access(resolved.c_str(), X_OK) != 0) {
    std::fprintf(stderr, "afunix-probe run: %s: not executable\n", printable(resolved).c_str());
    return kExitNotExecutable;
  }
  if (std::string problem = attachProblem(resolved); !problem.empty()) {
    std::fprintf(stderr, "afunix-probe run: cannot attach: %s\n", printable(problem).c_str());
    return kExitCannotAttach;
  }

  bool temporary = outDir.empty();
  if (temporary) {
    const char *tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/afunix-probe.XXXXXX";
    std::vector<char> buf(pattern.begin(), pattern.end());
    buf.push_back(0);
    if (!mkdtemp(buf.data())) {
      std::fprintf(stderr, "afunix-probe run: cannot create a report directory in %s: %s\n", printable(pattern).c_str(),
                   std::strerror(errno));
      return kExitCannotAttach;
    }
    outDir = buf.data();
    openUpForPrivilegeDrops(outDir);
  } else if (mkdir(outDir.c_str(), 0700) == 0) {
    openUpForPrivilegeDrops(outDir);
  } else if (errno != EEXIST) {
    std::fprintf(stderr, "afunix-probe run: cannot create --out %s: %s\n", printable(outDir).c_str(), std::strerror(errno));
    return kExitCannotAttach;
  }
  char absolute[PATH_MAX];
  if (!realpath(outDir.c_str(), absolute)) {
    std::fprintf(stderr, "afunix-probe run: --out %s: %s\n", printable(outDir).c_str(), std::strerror(errno));
    return kExitCannotAttach;
  }
  outDir = absolute;
  struct stat outStat;
  if (stat(outDir.c_str(), &outStat) != 0 || !S_ISDIR(outStat.st_mode) || access(outDir.c_str(), W_OK | X_OK) != 0) {
    std::fprintf(stderr, "afunix-probe run: --out %s is not a writable directory\n", printable(outDir).c_str());
    return kExitCannotAttach;
  }
  if (geteuid() == 0)
    if (std::string blocker = closedToOthers(outDir, outStat); !blocker.empty())
      std::fprintf(stderr, "afunix-probe run: note: %s: processes that drop privileges cannot report there "
                           "(they are listed as missing)\n",
                   printable(blocker).c_str());

  std::string preload = library;
  if (*kSanitizerRuntime)
    preload = std::string(kSanitizerRuntime) + ":" + preload; // the sanitizer runtime must come first
  if (const char *existing = std::getenv("LD_PRELOAD"); existing && *existing)
    preload += std::string(":") + existing;

  // Orphaned descendants (a child that outlives its parent) are reparented to us, so their
  // reports are complete before the merge.
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  uint64_t launched = realtimeNs();
  int errorPipe[2];
  if (pipe2(errorPipe, O_CLOEXEC) != 0) {
    std::perror("afunix-probe run: pipe");
    return kExitCannotAttach;
  }
  // Signals to forward are held until the program's pid is known.
  sigset_t forwarded, previousMask;
  sigemptyset(&forwarded);
  for (int sig : kForwarded)
    sigaddset(&forwarded, sig);
  sigprocmask(SIG_BLOCK, &forwarded, &previousMask);
  struct sigaction forwarding = {}, previous[sizeof kForwarded / sizeof *kForwarded];
  forwarding.sa_sigaction = forward;
  forwarding.sa_flags = SA_SIGINFO; // no SA_RESTART: waitpid() returns to look at late signals
  sigemptyset(&forwarding.sa_mask);
  for (std::size_t s = 0; s < sizeof kForwarded / sizeof *kForwarded; ++s)
    sigaction(kForwarded[s], &forwarding, &previous[s]);
  std::fflush(nullptr);
  pid_t child = fork();
  if (child < 0) {
    std::perror("afunix-probe run: fork");
    return kExitCannotAttach;
  }
  if (child == 0) {
    for (std::size_t s = 0; s < sizeof kForwarded / sizeof *kForwarded; ++s)
      sigaction(kForwarded[s], &previous[s], nullptr);
    sigprocmask(SIG_SETMASK, &previousMask, nullptr);
    // The probe's environment is the program's only: `run` itself (and the symbolizer it starts
    // later) must not be probed into the report directory.
    setenv("LD_PRELOAD", preload.c_str(), 1);
    setenv("AFUNIX_PROBE_DIR", outDir.c_str(), 1);
    setenv("AFUNIX_PROBE_FORMAT", "json", 1); // the merge reads JSON
    if (fixPasscred)
      setenv("AFUNIX_PROBE_FIX", "passcred", 1);
    if (sites)
      setenv("AFUNIX_PROBE_SITES", "1", 1);
    std::vector<char *> args;
    for (auto &a : command)
      args.push_back(a.data());
    args.push_back(nullptr);
    execv(resolved.c_str(), args.data());
    int err = errno;
    ssize_t ignored = write(errorPipe[1], &err, sizeof err);
    (void)ignored;
    _exit(kExitNotExecutable);
  }
  gChild = child;
  sigprocmask(SIG_SETMASK, &previousMask, nullptr);
  close(errorPipe[1]);
  int execError = 0;
  while (read(errorPipe[0], &execError, sizeof execError) < 0 && errno == EINTR) {
  }
  close(errorPipe[0]);

  std::map<int, int> reaped;
  int status = 0, exitStatus = 0;
  for (;;) {
    pid_t got = waitpid(child, &status, 0);
    if (got == child)
      break;
    if (got < 0 && errno != EINTR) {
      status = 0;
      break;
    }
  }
  gChild = 0;
  reaped[child] = status;
  if (WIFEXITED(status))
    exitStatus = WEXITSTATUS(status);
  else if (WIFSIGNALED(status))
    exitStatus = 128 + WTERMSIG(status);
  // Descendants still running are waited for: their reports are written when they exit. A signal
  // that reaches `run` now goes to them.
  for (;;) {
    if (int sig = gLateSignal) {
      gLateSignal = 0;
      for (pid_t pid : ownChildren())
        kill(pid, sig);
    }
    int descendantStatus = 0;
    pid_t got = waitpid(-1, &descendantStatus, 0);
    if (got > 0)
      reaped[got] = descendantStatus;
    else if (errno != EINTR)
      break;
  }
  for (std::size_t s = 0; s < sizeof kForwarded / sizeof *kForwarded; ++s)
    sigaction(kForwarded[s], &previous[s], nullptr);
  if (execError) {
    std::fprintf(stderr, "afunix-probe run: cannot run %s: %s\n", printable(resolved).c_str(), std::strerror(execError));
    return execError == ENOENT ? kExitNotFound : kExitNotExecutable;
  }

  char cwd[PATH_MAX];
  RunSummaryInput in;
  in.command = command;
  in.library = library;
  in.reportDir = outDir;
  in.exitStatus = exitStatus;
  in.launchedNs = launched;
  in.reaped = reaped;
  in.symbolizer = std::getenv("AFUNIX_PROBE_SYMBOLIZER") ? std::getenv("AFUNIX_PROBE_SYMBOLIZER") : "";
  in.relativeTo = getcwd(cwd, sizeof cwd) ? cwd : "";
  std::vector<std::string> problems;
  RunSummary summary = summarize(in, problems);
  for (const auto &p : problems)
    std::fprintf(stderr, "afunix-probe run: %s\n", p.c_str());

  std::string text, error;
  if (format == "json") {
    text = renderSummaryJson(summary);
  } else if (format == "sarif") {
    if (!renderSummarySarif(summary, sarifRoot.empty() ? in.relativeTo : sarifRoot, text, error))
      std::fprintf(stderr, "afunix-probe run: --format sarif: %s\n", error.c_str());
  } else {
    text = renderSummaryText(summary);
  }
  // The program is done: from here on only our own writes, whose errors (EFBIG past ulimit -f,
  // EPIPE) are reported rather than fatal.
  signal(SIGPIPE, SIG_IGN);
  signal(SIGXFSZ, SIG_IGN);
  // Kept with the per-process reports: what `afunix-check --runtime-evidence DIR` reads.
  if (!temporary) {
    std::string name = outDir + "/afunix-probe-run." + std::to_string(getpid()) + "." + std::to_string(launched) + ".json";
    int fd = open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0 || !writeAll(fd, renderSummaryJson(summary)))
      std::fprintf(stderr, "afunix-probe run: cannot write %s: %s\n", printable(name).c_str(), std::strerror(errno));
    if (fd >= 0)
      close(fd);
  }
  int result = errorExitCode && !summary.findings.empty() ? errorExitCode : exitStatus;
  if (!htmlPath.empty()) {
    std::string html;
    if (!renderSummaryHtml(summary, html, error) || !writeHtmlFile(htmlPath, html, false, error)) {
      std::fprintf(stderr, "afunix-probe run: --html: %s\n", printable(error).c_str());
      result = kExitOutput;
    }
  }
  struct stat reportStat;
  if (reportFd != 2 && fstat(reportFd, &reportStat) == 0 && S_ISREG(reportStat.st_mode))
    (void)!ftruncate(reportFd, 0); // a write error below reports any problem with the file
  if (!text.empty() && !writeAll(reportFd, text)) {
    int err = errno;
    std::fprintf(stderr, "afunix-probe run: cannot write the summary to %s: %s\n",
                 haveReport ? printable(reportPath).c_str() : "stderr", std::strerror(err));
    result = kExitOutput;
  }
  if (reportFd != 2 && close(reportFd) != 0 && result != kExitOutput) {
    std::fprintf(stderr, "afunix-probe run: cannot write the summary to %s: %s\n", printable(reportPath).c_str(),
                 std::strerror(errno));
    result = kExitOutput;
  }
  if (text.empty())
    result = kExitOutput;
  if (temporary) {
    // Only our own report files, then the (now empty) directory.
    if (DIR *dir = opendir(outDir.c_str())) {
      while (dirent *entry = readdir(dir))
        if (!std::strncmp(entry->d_name, "afunix-probe.", 13))
          unlinkat(dirfd(dir), entry->d_name, 0);
      closedir(dir);
    }
    rmdir(outDir.c_str());
  }
  return result;
}

} // namespace afunix::probe
