// Section C of kernel-behaviour.md: init_on_alloc / init_on_free have no runtime knob, so the
// state is read from what the kernel says about itself, most authoritative first: the boot log's
// "mem auto-init:" line (the state actually in effect), the command line (overrides the
// default), the build config (the default).
#include <cerrno>
#include <fcntl.h>
#include <fstream>
#include <spawn.h>
#include <sstream>
#include <sys/klog.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "afunix/kernel/Experiments.h"
#include "Sockets.h"

extern char **environ;

namespace afunix::kernel {

namespace {

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return "";
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// /proc/config.gz decompressed by gzip(1) rather than a new library dependency.
std::string gunzip(const std::string &path, std::string &error) {
  int pipefd[2];
  if (pipe2(pipefd, O_CLOEXEC) != 0) {
    error = "pipe2: " + errnoName(errno);
    return "";
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipefd[1], STDOUT_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  const char *argv[] = {"gzip", "-dc", path.c_str(), nullptr};
  pid_t pid;
  int rc = posix_spawnp(&pid, "gzip", &actions, nullptr, const_cast<char **>(argv), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(pipefd[1]);
  std::string out;
  if (rc != 0) {
    error = "gzip: " + errnoName(rc);
    close(pipefd[0]);
    return "";
  }
  out = readUntilEof(pipefd[0]);
  close(pipefd[0]);
  int status = waitForChild(pid);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    error = "gzip -dc " + path + " failed";
  return out;
}

bool parseBool(const std::string &word, int &value) {
  // kstrtobool: 1/y/Y/on and 0/n/N/off
  if (word == "1" || word == "y" || word == "Y" || word == "on" || word == "yes") {
    value = 1;
    return true;
  }
  if (word == "0" || word == "n" || word == "N" || word == "off" || word == "no") {
    value = 0;
    return true;
  }
  return false;
}

const char *onOff(int v) { return v == 1 ? "on" : v == 0 ? "off" : "unknown"; }

} // namespace

bool parseCmdlineFlag(const std::string &cmdline, const std::string &name, int &value) {
  std::istringstream words(cmdline);
  std::string word;
  bool found = false;
  while (words >> word) {
    if (word == "--")
      break; // the rest goes to init
    if (word.rfind(name + "=", 0) == 0) {
      int v;
      if (parseBool(word.substr(name.size() + 1), v)) {
        value = v; // the last occurrence wins, as in the kernel
        found = true;
      }
    }
  }
  return found;
}

bool parseConfigFlag(const std::string &config, const std::string &symbol, int &value) {
  std::istringstream lines(config);
  std::string line;
  while (std::getline(lines, line)) {
    if (line == symbol + "=y") {
      value = 1;
      return true;
    }
    if (line == "# " + symbol + " is not set") {
      value = 0;
      return true;
    }
  }
  return false;
}

bool parseAutoInitLine(const std::string &log, int &alloc, int &free) {
  std::size_t at = log.rfind("mem auto-init:");
  if (at == std::string::npos)
    return false;
  std::size_t end = log.find('\n', at);
  std::string line = log.substr(at, end == std::string::npos ? std::string::npos : end - at);
  auto state = [&](const char *label, int &out) {
    std::size_t p = line.find(label);
    if (p == std::string::npos)
      return false;
    p += std::string(label).size();
    if (line.compare(p, 2, "on") == 0) out = 1;
    else if (line.compare(p, 3, "off") == 0) out = 0;
    else return false;
    return true;
  };
  return state("heap alloc:", alloc) && state("heap free:", free);
}

MeminitState detectMeminit() {
  MeminitState s;
  utsname u{};
  uname(&u);
  // Build defaults first; each later, more authoritative source overrides what it knows.
  std::string config, configSource, error;
  if (access("/proc/config.gz", R_OK) == 0) {
    config = gunzip("/proc/config.gz", error);
    configSource = "/proc/config.gz";
  }
  if (config.empty()) {
    std::string path = std::string("/boot/config-") + u.release;
    config = readFile(path);
    configSource = config.empty() ? "" : path;
  }
  int alloc = -1, free = -1;
  if (!config.empty()) {
    int a = -1, f = -1;
    bool ha = parseConfigFlag(config, "CONFIG_INIT_ON_ALLOC_DEFAULT_ON", a);
    bool hf = parseConfigFlag(config, "CONFIG_INIT_ON_FREE_DEFAULT_ON", f);
    if (ha || hf) {
      s.evidence.push_back(configSource + ": CONFIG_INIT_ON_ALLOC_DEFAULT_ON " + onOff(a) +
                           ", CONFIG_INIT_ON_FREE_DEFAULT_ON " + onOff(f) + " (build defaults)");
      alloc = a;
      free = f;
      s.source = "kernel config (" + configSource + ")";
    }
  } else {
    s.evidence.push_back("no kernel config readable (/proc/config.gz, /boot/config-" +
                         std::string(u.release) + ")" + (error.empty() ? "" : ": " + error));
  }
  std::string cmdline = readFile("/proc/cmdline");
  int c = -1;
  bool cmdAlloc = parseCmdlineFlag(cmdline, "init_on_alloc", c);
  if (cmdAlloc) {
    alloc = c;
    s.evidence.push_back(std::string("/proc/cmdline: init_on_alloc=") + onOff(c));
  }
  bool cmdFree = parseCmdlineFlag(cmdline, "init_on_free", c);
  if (cmdFree) {
    free = c;
    s.evidence.push_back(std::string("/proc/cmdline: init_on_free=") + onOff(c));
  }
  if (cmdAlloc || cmdFree)
    s.source = "/proc/cmdline";
  else if (!cmdline.empty())
    s.evidence.push_back("/proc/cmdline: no init_on_alloc= / init_on_free=");
  // The boot log states what is in effect. Reading it may need privilege (dmesg_restrict).
  int size = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, nullptr, 0);
  std::string log;
  if (size > 0) {
    log.resize(static_cast<std::size_t>(size));
    int n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, log.data(), size);
    log.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
  }
  int la = -1, lf = -1;
  if (!log.empty() && parseAutoInitLine(log, la, lf)) {
    std::size_t at = log.rfind("mem auto-init:");
    std::size_t end = log.find('\n', at);
    s.evidence.push_back("boot log: " + log.substr(at, end - at));
    if ((alloc != -1 && alloc != la) || (free != -1 && free != lf))
      s.evidence.push_back("the boot log disagrees with the config/command line; it wins");
    alloc = la;
    free = lf;
    s.source = "boot log (mem auto-init line)";
  } else {
    s.evidence.push_back(log.empty() ? "boot log unreadable (" + errnoName(errno) +
                                           "; dmesg_restrict needs CAP_SYSLOG)"
                                     : "boot log: no 'mem auto-init:' line (ring buffer wrapped?)");
  }
  s.initOnAlloc = alloc;
  s.initOnFree = free;
  if (s.source.empty())
    s.source = "unknown";
  return s;
}

Observation meminitExperiment() {
  Observation o;
  o.experiment = "meminit";
  MeminitState s = detectMeminit();
  auto v = [](int x) { return x < 0 ? Value::null() : Value::of(x == 1); };
  o.set("meminit.init_on_alloc", v(s.initOnAlloc));
  o.set("meminit.init_on_free", v(s.initOnFree));
  o.set("meminit.source", Value::of(s.source));
  for (auto &e : s.evidence)
    o.note(e);
  if (s.initOnAlloc == 1 || s.initOnFree == 1)
    o.implies("Every AF_UNIX skb is zeroed (init_on_alloc) and/or wiped on free (init_on_free); "
              "there is no per-allocation opt-out. Expect a few % more sys time for chatty IPC "
              "(seed: hackbench +6.84% with init_on_alloc=1, +7.71% sys with init_on_free=1); "
              "fewer, larger messages amortise it. Measure with 'afunix-probe bench meminit'.");
  else if (s.initOnAlloc == 0 && s.initOnFree == 0)
    o.implies("Heap auto-init is off: AF_UNIX skbs are not zeroed. A kernel or boot with "
              "init_on_alloc=1 (Debian 13, Ubuntu, Fedora, Arch defaults) costs chatty IPC a few "
              "%; compare with 'afunix-probe bench meminit' on both.");
  else
    o.implies("The auto-init state could not be determined; run as root to read the boot log.");
  if (s.initOnAlloc < 0 && s.initOnFree < 0)
    o.skip("no source told the init_on_alloc/init_on_free state");
  return o;
}

} // namespace afunix::kernel
