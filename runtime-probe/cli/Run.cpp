// afunix-probe run: runs a program with libafunix-probe.so preloaded, follows its fork/exec
// children (each writes its own report file), merges the reports and exits with the program's
// status.
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
#include <vector>

extern char **environ;

namespace afunix::probe {

namespace {

// Exit codes of `run` itself (the program's own status is passed through otherwise).
constexpr int kExitUsage = 2;
constexpr int kExitCannotAttach = 125; // static/setuid binary, missing library: nothing was run
constexpr int kExitNotExecutable = 126;
constexpr int kExitNotFound = 127;

constexpr const char *kRunUsage =
    "usage: afunix-probe run [--out DIR] [--format text|json] [--report FILE] [--fix passcred] -- CMD ARGS...\n"
    "\n"
    "Runs CMD with libafunix-probe.so preloaded. Every process image (fork and exec children too)\n"
    "writes its own report into DIR; the merged summary goes to stdout (or FILE).\n"
    "  --out DIR        keep the per-process reports in DIR (default: a temporary directory)\n"
    "  --format FMT     summary format: text (default) or json\n"
    "  --report FILE    write the summary to FILE instead of stdout\n"
    "  --fix passcred   enable SO_PASSCRED where the program listens on or reads credentials from an\n"
    "                   AF_UNIX socket without it (opt-in compatibility mode; every place is reported)\n"
    "Environment passed on: AFUNIX_PROBE_TIMING=0, AFUNIX_PROBE_SLOW_NS, AFUNIX_PROBE_INTERVAL.\n"
    "Exit status: the program's (128+N if killed by signal N); 2 usage error; 125 cannot attach;\n"
    "126 not executable; 127 not found.\n";

int usage(const char *message) {
  std::fprintf(stderr, "afunix-probe run: %s\n\n%s", message, kRunUsage);
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

} // namespace

int runCommand(int argc, char **argv) {
  std::string outDir, format = "text", reportFile;
  bool fixPasscred = false;
  int i = 1;
  for (; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](const char *name) -> const char * {
      if (i + 1 >= argc) {
        usage((std::string(name) + " needs a value").c_str());
        return nullptr;
      }
      return argv[++i];
    };
    if (arg == "--") {
      ++i;
      break;
    }
    if (arg == "--help" || arg == "-h") {
      std::fputs(kRunUsage, stdout);
      return 0;
    }
    if (arg == "--out") {
      const char *v = value("--out");
      if (!v)
        return kExitUsage;
      outDir = v;
    } else if (arg == "--format") {
      const char *v = value("--format");
      if (!v)
        return kExitUsage;
      format = v;
      if (format != "text" && format != "json")
        return usage(("--format must be text or json, got '" + format + "'").c_str());
    } else if (arg == "--report") {
      const char *v = value("--report");
      if (!v)
        return kExitUsage;
      reportFile = v;
    } else if (arg == "--fix") {
      const char *v = value("--fix");
      if (!v)
        return kExitUsage;
      if (std::string(v) != "passcred")
        return usage(("--fix only knows 'passcred', got '" + std::string(v) + "'").c_str());
      fixPasscred = true;
    } else if (!arg.empty() && arg[0] == '-') {
      return usage(("unknown option '" + arg + "'").c_str());
    } else
      break; // the command itself, without "--"
  }
  if (i >= argc)
    return usage("no command to run (expected: -- CMD ARGS...)");
  std::vector<std::string> command(argv + i, argv + argc);

  std::string library = findLibrary();
  if (access(library.c_str(), R_OK) != 0) {
    std::fprintf(stderr, "afunix-probe run: cannot attach: probe library %s not found (set AFUNIX_PROBE_LIBRARY)\n",
                 library.c_str());
    return kExitCannotAttach;
  }
  std::string resolved = resolveCommand(command[0]);
  if (resolved.empty() || access(resolved.c_str(), F_OK) != 0) {
    std::fprintf(stderr, "afunix-probe run: %s: command not found\n", command[0].c_str());
    return kExitNotFound;
  }
  if (access(resolved.c_str(), X_OK) != 0) {
    std::fprintf(stderr, "afunix-probe run: %s: not executable\n", resolved.c_str());
    return kExitNotExecutable;
  }
  if (std::string problem = attachProblem(resolved); !problem.empty()) {
    std::fprintf(stderr, "afunix-probe run: cannot attach: %s\n", problem.c_str());
    return kExitCannotAttach;
  }

  bool temporary = outDir.empty();
  if (temporary) {
    const char *tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/afunix-probe.XXXXXX";
    std::vector<char> buf(pattern.begin(), pattern.end());
    buf.push_back(0);
    if (!mkdtemp(buf.data())) {
      std::fprintf(stderr, "afunix-probe run: cannot create a report directory in %s: %s\n", pattern.c_str(),
                   std::strerror(errno));
      return kExitCannotAttach;
    }
    outDir = buf.data();
  } else if (mkdir(outDir.c_str(), 0700) != 0 && errno != EEXIST) {
    std::fprintf(stderr, "afunix-probe run: cannot create --out %s: %s\n", outDir.c_str(), std::strerror(errno));
    return kExitCannotAttach;
  }
  char absolute[PATH_MAX];
  if (!realpath(outDir.c_str(), absolute)) {
    std::fprintf(stderr, "afunix-probe run: --out %s: %s\n", outDir.c_str(), std::strerror(errno));
    return kExitCannotAttach;
  }
  outDir = absolute;
  if (access(outDir.c_str(), W_OK | X_OK) != 0) {
    std::fprintf(stderr, "afunix-probe run: --out %s is not writable\n", outDir.c_str());
    return kExitCannotAttach;
  }

  std::string preload = library;
  if (*kSanitizerRuntime)
    preload = std::string(kSanitizerRuntime) + ":" + preload; // the sanitizer runtime must come first
  if (const char *existing = std::getenv("LD_PRELOAD"); existing && *existing)
    preload += std::string(":") + existing;
  setenv("LD_PRELOAD", preload.c_str(), 1);
  setenv("AFUNIX_PROBE_DIR", outDir.c_str(), 1);
  setenv("AFUNIX_PROBE_FORMAT", "json", 1); // the merge reads JSON
  if (fixPasscred)
    setenv("AFUNIX_PROBE_FIX", "passcred", 1);

  // Orphaned descendants (a child that outlives its parent) are reparented to us, so their
  // reports are complete before the merge.
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  uint64_t launched = realtimeNs();
  int errorPipe[2];
  if (pipe2(errorPipe, O_CLOEXEC) != 0) {
    std::perror("afunix-probe run: pipe");
    return kExitCannotAttach;
  }
  std::fflush(nullptr);
  pid_t child = fork();
  if (child < 0) {
    std::perror("afunix-probe run: fork");
    return kExitCannotAttach;
  }
  if (child == 0) {
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
  close(errorPipe[1]);
  // Like a shell running a foreground job: the terminal's signals go to the program.
  struct sigaction ignore = {}, oldInt, oldQuit;
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGINT, &ignore, &oldInt);
  sigaction(SIGQUIT, &ignore, &oldQuit);
  int execError = 0;
  if (read(errorPipe[0], &execError, sizeof execError) != sizeof execError)
    execError = 0;
  close(errorPipe[0]);

  int status = 0, exitStatus = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status))
    exitStatus = WEXITSTATUS(status);
  else if (WIFSIGNALED(status))
    exitStatus = 128 + WTERMSIG(status);
  // Descendants still running are waited for: their reports are written when they exit.
  while (waitpid(-1, nullptr, 0) > 0 || errno == EINTR) {
  }
  sigaction(SIGINT, &oldInt, nullptr);
  sigaction(SIGQUIT, &oldQuit, nullptr);
  if (execError) {
    std::fprintf(stderr, "afunix-probe run: cannot run %s: %s\n", resolved.c_str(), std::strerror(execError));
    return execError == ENOENT ? kExitNotFound : kExitNotExecutable;
  }

  RunSummaryInput in{command, library, outDir, exitStatus, launched};
  std::vector<std::string> problems;
  std::string summary = mergeReports(in, format, problems);
  for (const auto &p : problems)
    std::fprintf(stderr, "afunix-probe run: %s\n", p.c_str());
  if (reportFile.empty() || reportFile == "-") {
    std::fputs(summary.c_str(), stdout);
    std::fflush(stdout);
  } else if (FILE *f = std::fopen(reportFile.c_str(), "w")) {
    std::fputs(summary.c_str(), f);
    std::fclose(f);
  } else {
    std::fprintf(stderr, "afunix-probe run: cannot write --report %s: %s\n", reportFile.c_str(), std::strerror(errno));
  }
  if (temporary) {
    // Only our own report files, then the (now empty) directory.
    std::string cleanup = outDir;
    if (DIR *dir = opendir(cleanup.c_str())) {
      while (dirent *entry = readdir(dir))
        if (!std::strncmp(entry->d_name, "afunix-probe.", 13))
          unlinkat(dirfd(dir), entry->d_name, 0);
      closedir(dir);
    }
    rmdir(cleanup.c_str());
  }
  return exitStatus;
}

} // namespace afunix::probe
