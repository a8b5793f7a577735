#include "afunix/kernel/Experiment.h"

#include "Sockets.h"

#include <cstddef>
#include <sys/socket.h>
#include <sys/un.h>
#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace afunix::kernel {

namespace {

std::string jsonEscape(std::string_view s) {
  std::string out;
  for (unsigned char c : s) {
    switch (c) {
    case '"': out += "\\\""; break;
    case '\\': out += "\\\\"; break;
    case '\n': out += "\\n"; break;
    case '\t': out += "\\t"; break;
    default:
      if (c < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", c);
        out += buf;
      } else {
        out += static_cast<char>(c);
      }
    }
  }
  return out;
}

// Line-oriented wire format between the experiment child and the parent: one record per line,
// newlines and backslashes escaped.
std::string escapeLine(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '\\') out += "\\\\";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

std::string unescapeLine(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size()) {
      ++i;
      out += s[i] == 'n' ? '\n' : s[i];
    } else {
      out += s[i];
    }
  }
  return out;
}

double monotonicSeconds() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

void writeAll(int fd, const std::string &data) {
  std::size_t done = 0;
  while (done < data.size()) {
    ssize_t n = write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return;
    done += static_cast<std::size_t>(n);
  }
}

} // namespace

std::string Value::toJson() const {
  switch (kind) {
  case Kind::Null: return "null";
  case Kind::Bool: return boolean ? "true" : "false";
  case Kind::Int: return std::to_string(integer);
  case Kind::Real: {
    if (!std::isfinite(real))
      return "null";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6g", real);
    return buf;
  }
  case Kind::Text: return "\"" + jsonEscape(text) + "\"";
  }
  return "null";
}

std::string Value::toText() const {
  if (kind == Kind::Text)
    return text;
  return toJson();
}

const char *statusName(Status status) {
  switch (status) {
  case Status::Ok: return "ok";
  case Status::Skipped: return "skipped";
  case Status::TimedOut: return "timeout";
  case Status::Failed: return "failed";
  }
  return "failed";
}

void Observation::set(const std::string &key, Value value) {
  for (auto &entry : values)
    if (entry.first == key) {
      entry.second = std::move(value);
      return;
    }
  values.emplace_back(key, std::move(value));
}

const Value *Observation::get(std::string_view key) const {
  for (const auto &entry : values)
    if (entry.first == key)
      return &entry.second;
  return nullptr;
}

void Observation::implies(std::string text, std::initializer_list<const char *> ruleIds) {
  implications.push_back(std::move(text));
  for (const char *id : ruleIds) {
    bool known = false;
    for (const auto &r : rules)
      known = known || r == id;
    if (!known)
      rules.emplace_back(id);
  }
}

std::string serialize(const Observation &o) {
  std::string out;
  auto line = [&](char tag, std::string_view text) {
    out += tag;
    out += ' ';
    out += escapeLine(text);
    out += '\n';
  };
  line('x', o.experiment);
  line('s', statusName(o.status));
  line('w', o.reason);
  line('t', std::to_string(o.seconds));
  for (const auto &[key, value] : o.values) {
    std::string rec = key + " ";
    switch (value.kind) {
    case Value::Kind::Null: rec += "n"; break;
    case Value::Kind::Bool: rec += value.boolean ? "b1" : "b0"; break;
    case Value::Kind::Int: rec += "i" + std::to_string(value.integer); break;
    case Value::Kind::Real: {
      char buf[64];
      std::snprintf(buf, sizeof buf, "r%.17g", value.real);
      rec += buf;
      break;
    }
    case Value::Kind::Text: rec += "s" + value.text; break;
    }
    line('v', rec);
  }
  for (const auto &e : o.evidence) line('e', e);
  for (const auto &i : o.implications) line('i', i);
  for (const auto &r : o.rules) line('r', r);
  line('d', o.verdict);
  line('z', "end");
  return out;
}

bool deserialize(std::string_view text, Observation &o) {
  bool complete = false;
  while (!text.empty()) {
    std::size_t nl = text.find('\n');
    if (nl == std::string_view::npos)
      return false;
    std::string_view raw = text.substr(0, nl);
    text.remove_prefix(nl + 1);
    if (raw.size() < 2)
      return false;
    char tag = raw[0];
    std::string body = unescapeLine(raw.substr(2));
    switch (tag) {
    case 'x': o.experiment = body; break;
    case 's':
      o.status = body == "ok" ? Status::Ok
                 : body == "skipped" ? Status::Skipped
                 : body == "timeout" ? Status::TimedOut
                                     : Status::Failed;
      break;
    case 'w': o.reason = body; break;
    case 't': o.seconds = std::strtod(body.c_str(), nullptr); break;
    case 'v': {
      std::size_t sp = body.find(' ');
      if (sp == std::string::npos || sp + 1 >= body.size())
        return false;
      std::string key = body.substr(0, sp);
      char kind = body[sp + 1];
      std::string rest = body.substr(sp + 2);
      if (kind == 'n') o.set(key, Value::null());
      else if (kind == 'b') o.set(key, Value::of(rest == "1"));
      else if (kind == 'i') o.set(key, Value::of(std::strtoll(rest.c_str(), nullptr, 10)));
      else if (kind == 'r') o.set(key, Value::of(std::strtod(rest.c_str(), nullptr)));
      else if (kind == 's') o.set(key, Value::of(rest));
      else return false;
      break;
    }
    case 'e': o.evidence.push_back(body); break;
    case 'i': o.implications.push_back(body); break;
    case 'r': o.rules.push_back(body); break;
    case 'd': o.verdict = body; break;
    case 'z': complete = true; break;
    default: return false;
    }
  }
  return complete;
}

Observation runIsolated(const std::string &name, const std::function<Observation()> &experiment,
                        const Isolation &isolation) {
  Observation result;
  result.experiment = name;
  double start = monotonicSeconds();
  int pipefd[2];
  if (pipe2(pipefd, O_CLOEXEC) != 0) {
    result.fail("pipe2: " + errnoName(errno));
    return result;
  }
  pid_t child = fork();
  if (child < 0) {
    int err = errno;
    close(pipefd[0]);
    close(pipefd[1]);
    result.fail("fork: " + errnoName(err));
    return result;
  }
  if (child == 0) {
    close(pipefd[0]);
    setpgid(0, 0); // a timed-out experiment is killed together with any helper it forked
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    std::string netns;
    if (isolation.privateNetwork) {
      if (unshare(CLONE_NEWNET) == 0)
        netns = "private network namespace";
      else
        netns = "shared network namespace (unshare(CLONE_NEWNET): " + errnoName(errno) + ")";
    } else {
      netns = "shared network namespace (isolation off)";
    }
    Observation o = experiment();
    o.experiment = name;
    o.evidence.insert(o.evidence.begin(), "ran in a child process, " + netns);
    writeAll(pipefd[1], serialize(o));
    _exit(0);
  }
  close(pipefd[1]);
  setpgid(child, child); // also from the parent, so the group exists before any kill below
  std::string data;
  bool timedOut = false;
  const double deadline = start + isolation.timeoutSeconds;
  for (;;) {
    double left = deadline - monotonicSeconds();
    if (left <= 0) {
      timedOut = true;
      break;
    }
    pollfd p{pipefd[0], POLLIN, 0};
    int r = poll(&p, 1, static_cast<int>(left * 1000) + 1);
    if (r < 0 && errno == EINTR)
      continue;
    if (r == 0)
      continue;
    char buf[4096];
    ssize_t n = read(pipefd[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    data.append(buf, static_cast<std::size_t>(n));
  }
  close(pipefd[0]);
  if (timedOut) {
    kill(-child, SIGKILL);
    kill(child, SIGKILL);
  }
  int status = waitForChild(child);
  // Helpers the child forked are in its process group; none may outlive the experiment.
  kill(-child, SIGKILL);
  result.seconds = monotonicSeconds() - start;
  if (timedOut) {
    result.status = Status::TimedOut;
    char buf[96];
    std::snprintf(buf, sizeof buf, "still running after %.1f s; killed", isolation.timeoutSeconds);
    result.reason = buf;
    return result;
  }
  Observation parsed;
  if (!deserialize(data, parsed)) {
    char buf[128];
    if (WIFSIGNALED(status))
      std::snprintf(buf, sizeof buf, "experiment process died with signal %d", WTERMSIG(status));
    else
      std::snprintf(buf, sizeof buf, "experiment process exited (status %d) without a result",
                    WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    result.fail(buf);
    return result;
  }
  parsed.seconds = result.seconds;
  return parsed;
}

int countOpenFds() {
  DIR *dir = opendir("/proc/self/fd");
  if (!dir)
    return -1;
  int count = 0;
  while (dirent *entry = readdir(dir))
    if (entry->d_name[0] != '.')
      ++count;
  closedir(dir);
  return count - 1; // the directory stream's own fd
}

bool noChildrenLeft() {
  int status;
  return waitpid(-1, &status, WNOHANG) < 0 && errno == ECHILD;
}

std::string errnoName(int err) {
  if (const char *name = strerrorname_np(err))
    return name;
  return "errno " + std::to_string(err);
}

} // namespace afunix::kernel

namespace afunix::kernel {

const char *InflightLock::name() { return "@afunix-probe-kernel-inflight"; }

InflightLock::InflightLock(double timeoutSeconds) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  const char *label = name() + 1;
  std::memcpy(addr.sun_path + 1, label, std::strlen(label));
  socklen_t length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + std::strlen(label));
  timespec start, now;
  clock_gettime(CLOCK_MONOTONIC, &start);
  for (;;) {
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
      return;
    if (bind(fd, reinterpret_cast<sockaddr *>(&addr), length) == 0) {
      fd_ = fd;
      return;
    }
    int err = errno;
    close(fd);
    clock_gettime(CLOCK_MONOTONIC, &now);
    waited_ = static_cast<double>(now.tv_sec - start.tv_sec) + static_cast<double>(now.tv_nsec - start.tv_nsec) / 1e9;
    if (err != EADDRINUSE || waited_ >= timeoutSeconds)
      return;
    usleep(100 * 1000);
  }
}

InflightLock::~InflightLock() {
  if (fd_ >= 0)
    close(fd_);
}

} // namespace afunix::kernel
