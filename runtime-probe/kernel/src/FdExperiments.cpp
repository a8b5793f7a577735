// Section B of kernel-behaviour.md, measured: SCM_MAX_FD, ETOOMANYREFS and the unix GC's cost.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <fstream>
#include <type_traits>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "Sockets.h"
#include <vector>
#include "afunix/kernel/Experiments.h"

namespace afunix::kernel {

namespace {

constexpr int kCapSysAdmin = 21;
constexpr int kCapSysResource = 24;

std::uint64_t nowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ull +
         static_cast<std::uint64_t>(ts.tv_nsec);
}

} // namespace

bool hasResourceOverride() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("CapEff:", 0) == 0) {
      unsigned long long caps = std::strtoull(line.c_str() + 7, nullptr, 16);
      return (caps >> kCapSysResource & 1) || (caps >> kCapSysAdmin & 1);
    }
  return false;
}

int sendFdsOnce(int count) {
  Pair p = unixPair(SOCK_STREAM);
  if (!p.a)
    return errno;
  // One open fd may be listed many times; /dev/null keeps sockets (and the GC) out of it.
  Fd devnull(open("/dev/null", O_RDONLY | O_CLOEXEC));
  if (!devnull)
    return errno;
  std::vector<int> fds(static_cast<std::size_t>(count), devnull.get());
  ssize_t n = sendWithFds(p.a.get(), fds.data(), count, MSG_DONTWAIT);
  return n == 1 ? 0 : errno;
}

Observation fdLimitExperiment() {
  Observation o;
  o.experiment = "fd_limit";
  int low = 1, high = 4096;
  int lowErr = sendFdsOnce(low), highErr = sendFdsOnce(high);
  if (lowErr != 0 || highErr == 0) {
    o.fail("expected 1 fd to pass and 4096 to be refused; got " +
           (lowErr ? errnoName(lowErr) : std::string("ok")) + " and " +
           (highErr ? errnoName(highErr) : std::string("ok")));
    o.set("fds.max_per_message", Value::null());
    return o;
  }
  int trials = 2;
  while (high - low > 1) { // invariant: low fds pass, high fds are refused
    int mid = low + (high - low) / 2;
    if (sendFdsOnce(mid) == 0)
      low = mid;
    else
      high = mid;
    ++trials;
  }
  int refusal = sendFdsOnce(low + 1);
  o.set("fds.max_per_message", Value::of(low));
  o.set("fds.over_limit_errno", Value::of(errnoName(refusal)));
  o.note("bisection over one-message SCM_RIGHTS sends (" + std::to_string(trials) + " trials): " +
         std::to_string(low) + " fds pass, " + std::to_string(low + 1) + " fail with " +
         errnoName(refusal));
  o.verdict = std::to_string(low) + " fds in one SCM_RIGHTS message were sent, " +
              std::to_string(low + 1) + " failed with " + errnoName(refusal);
  o.implies("At most " + std::to_string(low) + " fds fit in one SCM_RIGHTS message; more fail "
            "with " + errnoName(refusal) + " and nothing is sent: split into chunks.",
            {"afunix-fd-limit"});
  return o;
}

namespace {
// One measurement, in a child that drops to an unprivileged user: "at N", "stopped N ERRNO" or
// "fail WHAT ERRNO".
// `keepCap` >= 0: the unprivileged user keeps that one capability (effective and permitted);
// `maxSends`: give up (report "stopped N 0") after that many.
std::string measureTooManyRefs(int nofile, bool root, uid_t uid, gid_t gid, std::string &error,
                               int keepCap = -1, long maxSends = 100000);
} // namespace

Observation tooManyRefsExperiment(int nofile) {
  Observation o;
  o.experiment = "etoomanyrefs";
  o.set("fds.etoomanyrefs_at", Value::null());
  o.set("fds.etoomanyrefs_rlimit", Value::of(nofile));
  const bool root = geteuid() == 0;
  if (!root && hasResourceOverride()) {
    o.skip("this process has CAP_SYS_RESOURCE/CAP_SYS_ADMIN (exempt from ETOOMANYREFS) and is "
           "not root, so it cannot switch to an unprivileged user");
    return o;
  }
  uid_t uid = getuid();
  gid_t gid = getgid();
  if (root) {
    UnusedUser fresh = unusedUser();
    uid = fresh.uid;
    gid = fresh.gid;
  }
  // Measured twice: anything else of this user with fds in flight (another afunix-probe run, a
  // busy program) moves the count, and a figure that moved is not reported.
  std::string error;
  std::string first = measureTooManyRefs(nofile, root, uid, gid, error);
  std::string second = error.empty() ? measureTooManyRefs(nofile, root, uid, gid, error) : "";
  if (!error.empty()) {
    o.fail(error);
    return o;
  }
  long a = 0, b = 0, a2 = 0, b2 = 0;
  char what[32] = {};
  std::string user = root ? "uid " + std::to_string(uid) + " (no account has it)"
                          : "uid " + std::to_string(getuid()) + " (this user)";
  if (std::sscanf(first.c_str(), "at %ld %ld", &a, &b) == 2 && std::sscanf(second.c_str(), "at %ld %ld", &a2, &b2) == 2 &&
      a != a2) {
    o.note("as " + user + ": ETOOMANYREFS after " + std::to_string(a) + ", then after " + std::to_string(a2) +
           " one-fd messages: something else of this user had fds in flight meanwhile");
    o.fail("disturbed: two measurements disagree (" + std::to_string(a) + ", " + std::to_string(a2) +
           "); nothing reported");
    return o;
  }
  if (std::sscanf(first.c_str(), "at %ld %ld", &a, &b) == 2) {
    o.set("fds.etoomanyrefs_at", Value::of(static_cast<long long>(a)));
    o.note("as " + user + " with RLIMIT_NOFILE=" + std::to_string(nofile) + ": " +
           std::to_string(a) + " one-fd messages sent without receiving, the next sendmsg() "
           "failed with ETOOMANYREFS (twice the same; the count includes fds this user already had "
           "in flight elsewhere)");
    o.verdict = "with RLIMIT_NOFILE " + std::to_string(nofile) + ", an unprivileged user's one-fd "
                "sends failed with ETOOMANYREFS once its fds in flight (in this process and "
                "elsewhere) exceeded the limit";
    if (a != nofile + 1)
      o.note("not RLIMIT_NOFILE+1 = " + std::to_string(nofile + 1) + ": " + std::to_string(nofile + 1 - a) +
             " fds of this user were in flight elsewhere for the whole measurement");
    o.implies("A user's fds in flight (sent, not yet received, over all its processes) may not "
              "exceed the sender's RLIMIT_NOFILE: past it sendmsg() fails with ETOOMANYREFS. "
              "Bound the fds in flight: have the peer receive or acknowledge.",
              {"afunix-fd-flood"});
  } else if (std::sscanf(first.c_str(), "stopped %ld %ld", &a, &b) == 2) {
    o.note("as " + user + ": " + std::to_string(a) + " messages sent, then " +
           (b ? errnoName(static_cast<int>(b)) : std::string("gave up")) +
           " before any ETOOMANYREFS");
    o.skip("ETOOMANYREFS not reached: " + (b ? errnoName(static_cast<int>(b)) : "limit") +
           " after " + std::to_string(a) + " fds in flight");
  } else if (std::sscanf(first.c_str(), "fail %31s %ld", what, &a) == 2) {
    o.skip(std::string("cannot run as an unprivileged user: ") + what + " " +
           errnoName(static_cast<int>(a)));
  } else {
    o.fail("helper process ended without a result");
  }
  return o;
}

namespace {
std::string measureTooManyRefs(int nofile, bool root, uid_t uid, gid_t gid, std::string &error,
                               int keepCap, long maxSends) {
  int pipefd[2];
  if (pipe2(pipefd, O_CLOEXEC) != 0) {
    error = "pipe2: " + errnoName(errno);
    return "";
  }
  pid_t child = fork();
  if (child < 0) {
    error = "fork: " + errnoName(errno);
    close(pipefd[0]);
    close(pipefd[1]);
    return "";
  }
  if (child == 0) {
    close(pipefd[0]);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    char result[128];
    auto finish = [&](const char *fmt, long a, long b) {
      int len = std::snprintf(result, sizeof result, fmt, a, b);
      (void)!write(pipefd[1], result, static_cast<std::size_t>(len));
      _exit(0);
    };
    struct rlimit lim{static_cast<rlim_t>(nofile), static_cast<rlim_t>(nofile)};
    if (setrlimit(RLIMIT_NOFILE, &lim) != 0)
      finish("fail setrlimit %ld %ld", errno, 0);
    if (keepCap >= 0 && prctl(PR_SET_KEEPCAPS, 1) != 0)
      finish("fail keepcaps %ld %ld", errno, 0);
    if (root && (setgroups(0, nullptr) != 0 || setgid(gid) != 0 || setuid(uid) != 0))
      finish("fail drop-privileges %ld %ld", errno, 0);
    if (keepCap >= 0) {
      __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
      __user_cap_data_struct data[2] = {};
      data[keepCap / 32].effective = data[keepCap / 32].permitted = 1u << (keepCap % 32);
      if (syscall(SYS_capset, &header, data) != 0)
        finish("fail capset %ld %ld", errno, 0);
    }
    Pair carrier = unixPair(SOCK_STREAM);
    Pair payload = unixPair(SOCK_STREAM); // an AF_UNIX fd counts on every kernel version
    if (!carrier.a || !payload.a)
      finish("fail socketpair %ld %ld", errno, 0);
    int fd = payload.a.get();
    // Large enough that the carrier's buffer never fills before the limit matters.
    int big = 16 << 20;
    setsockopt(carrier.a.get(), SOL_SOCKET, SO_SNDBUF, &big, sizeof big);
    for (long sent = 0; sent < maxSends; ++sent) {
      if (sendWithFds(carrier.a.get(), &fd, 1, MSG_DONTWAIT) == 1)
        continue;
      if (errno == ETOOMANYREFS)
        finish("at %ld %ld", sent, 0);
      finish("stopped %ld %ld", sent, errno);
    }
    finish("stopped %ld %ld", maxSends, 0);
  }
  close(pipefd[1]);
  std::string line = readUntilEof(pipefd[0]);
  close(pipefd[0]);
  waitForChild(child);
  return line;
}
} // namespace

Observation tooManyRefsExemptExperiment() {
  Observation o;
  o.experiment = "etoomanyrefs_exempt";
  constexpr int kNofile = 32;
  constexpr long kSends = 4 * kNofile; // well past RLIMIT_NOFILE + 1
  const std::string base = "fds.etoomanyrefs_exempt.";
  for (const char *k : {"none", "cap_sys_resource", "cap_sys_admin"})
    o.set(base + k, Value::null());
  if (geteuid() != 0) {
    o.skip("needs root: to drop to an unprivileged user keeping one capability");
    return o;
  }
  const UnusedUser fresh = unusedUser();
  const uid_t uid = fresh.uid;
  const gid_t gid = fresh.gid;
  struct Case {
    const char *key;
    int cap;
    const char *label;
  };
  std::string summary;
  unsigned long long permitted = 0;
  {
    std::ifstream in("/proc/self/status");
    std::string line;
    while (std::getline(in, line))
      if (line.rfind("CapPrm:", 0) == 0)
        permitted = std::strtoull(line.c_str() + 7, nullptr, 16);
  }
  for (const Case &c : {Case{"none", -1, "no capability"}, Case{"cap_sys_resource", kCapSysResource, "only CAP_SYS_RESOURCE"},
                        Case{"cap_sys_admin", kCapSysAdmin, "only CAP_SYS_ADMIN"}}) {
    if (c.cap >= 0 && !(permitted >> c.cap & 1)) {
      o.note(std::string(c.label) + ": not measured, this process does not hold it (not in its "
             "permitted set, e.g. a container's bounding set)");
      summary += (summary.empty() ? "" : "; ") + std::string(c.label) + ": not measured here";
      continue;
    }
    std::string error;
    std::string got = measureTooManyRefs(kNofile, true, uid, gid, error, c.cap, kSends);
    long a = 0, b = 0;
    std::string result;
    if (!error.empty()) {
      o.fail(error);
      return o;
    }
    // The value says what happened, not after how many: the count includes whatever else of
    // this user is in flight on the machine (the evidence has it).
    if (std::sscanf(got.c_str(), "at %ld %ld", &a, &b) == 2)
      result = "ETOOMANYREFS";
    else if (std::sscanf(got.c_str(), "stopped %ld %ld", &a, &b) == 2 && b == 0)
      result = "no ETOOMANYREFS in " + std::to_string(a);
    else {
      o.fail(std::string(c.label) + ": " + got);
      return o;
    }
    o.set(base + c.key, Value::of(result));
    o.note(std::string("uid ") + std::to_string(uid) + " with " + c.label + ", RLIMIT_NOFILE " +
           std::to_string(kNofile) + ", one-fd messages never received: " + result +
           (result == "ETOOMANYREFS" ? " after " + std::to_string(a) : std::string()));
    summary += (summary.empty() ? "" : "; ") + std::string(c.label) + ": " + result;
  }
  o.verdict = "one-fd sends past RLIMIT_NOFILE (" + std::to_string(kNofile) + ") by an unprivileged user with " + summary;
  std::string exempt;
  for (const char *k : {"cap_sys_resource", "cap_sys_admin"})
    if (const Value *v = o.get(base + k); v && !v->isNull() && v->text.rfind("no ETOOMANYREFS", 0) == 0)
      exempt += std::string(exempt.empty() ? "" : " and ") + (k[8] == 'r' ? "CAP_SYS_RESOURCE" : "CAP_SYS_ADMIN");
  if (!exempt.empty())
    o.implies(exempt + " lifted the in-flight limit here: such a sender never sees ETOOMANYREFS, "
              "and nothing else bounds its fds in flight.",
              {"afunix-fd-flood"});
  return o;
}

// Two or more SCM_RIGHTS cmsgs in one message: SCM_MAX_FD counts their total.
int sendFdsInCmsgs(const std::vector<int> &counts) {
  Pair p = unixPair(SOCK_DGRAM);
  Fd devnull(open("/dev/null", O_RDONLY | O_CLOEXEC));
  if (!p.a || !devnull)
    return errno;
  std::size_t space = 0;
  for (int n : counts)
    space += CMSG_SPACE(sizeof(int) * static_cast<std::size_t>(n));
  std::vector<char> control(space, 0);
  char byte = 'x';
  iovec iov{&byte, 1};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control.data();
  msg.msg_controllen = control.size();
  cmsghdr *c = CMSG_FIRSTHDR(&msg);
  for (int n : counts) {
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int) * static_cast<std::size_t>(n));
    const int fd = devnull.get();
    for (int i = 0; i < n; ++i)
      std::memcpy(CMSG_DATA(c) + sizeof(int) * static_cast<std::size_t>(i), &fd, sizeof fd);
    c = CMSG_NXTHDR(&msg, c);
  }
  ssize_t r = sendmsg(p.a.get(), &msg, MSG_DONTWAIT);
  if (r == 1) {
    char buf;
    recvAndCloseFds(p.b.get(), &buf, 1, MSG_DONTWAIT);
    return 0;
  }
  return errno;
}

Observation fdLimitTotalExperiment() {
  Observation o;
  o.experiment = "fd_limit_total";
  const int half = kScmMaxFd / 2 + 1; // two of these exceed SCM_MAX_FD together, not alone
  int split = sendFdsInCmsgs({half, half});
  int fits = sendFdsInCmsgs({half, kScmMaxFd - half});
  int one = sendFdsInCmsgs({kScmMaxFd});
  auto answer = [](int err) { return err ? errnoName(err) : std::string("ok"); };
  o.set("fds.limit_total.two_cmsgs_over", Value::of(answer(split)));
  o.set("fds.limit_total.two_cmsgs_at_limit", Value::of(answer(fits)));
  o.set("fds.limit_total.one_cmsg_at_limit", Value::of(answer(one)));
  o.note("one message, two SCM_RIGHTS cmsgs of " + std::to_string(half) + " fds each (" +
         std::to_string(2 * half) + " in all): " + answer(split) + "; of " + std::to_string(half) +
         " and " + std::to_string(kScmMaxFd - half) + ": " + answer(fits) + "; one cmsg of " +
         std::to_string(kScmMaxFd) + ": " + answer(one));
  o.verdict = "two SCM_RIGHTS cmsgs of " + std::to_string(half) + " fds in one message: " +
              answer(split) + "; " + std::to_string(kScmMaxFd) + " fds split over two cmsgs: " +
              answer(fits) + ": the limit counts every SCM_RIGHTS cmsg of a message together";
  o.implies("At most SCM_MAX_FD fds per message, counted over all its SCM_RIGHTS cmsgs.",
            {"afunix-fd-limit"});
  return o;
}

// --- the GC -----------------------------------------------------------------------------------

std::uint64_t LatencyBlock::median() const { return percentile(0.5); }

std::uint64_t LatencyBlock::percentile(double p) const {
  if (ns.empty())
    return 0;
  std::vector<std::uint64_t> sorted = ns;
  std::size_t k = std::min(sorted.size() - 1, static_cast<std::size_t>(p * sorted.size()));
  std::nth_element(sorted.begin(), sorted.begin() + static_cast<long>(k), sorted.end());
  return sorted[k];
}

std::string log2Histogram(const LatencyBlock &block) {
  std::vector<std::uint64_t> buckets(64, 0);
  for (std::uint64_t v : block.ns) {
    int b = v == 0 ? 0 : 64 - __builtin_clzll(v);
    buckets[static_cast<std::size_t>(b)]++;
  }
  int first = 64, last = -1;
  std::uint64_t peak = 0;
  for (int i = 0; i < 64; ++i)
    if (buckets[static_cast<std::size_t>(i)]) {
      first = std::min(first, i);
      last = i;
      peak = std::max(peak, buckets[static_cast<std::size_t>(i)]);
    }
  std::string out = "     nsecs               : count     distribution\n";
  for (int i = first; i <= last; ++i) {
    std::uint64_t lo = i == 0 ? 0 : 1ull << (i - 1), hi = (1ull << i) - 1;
    std::uint64_t count = buckets[static_cast<std::size_t>(i)];
    int stars = peak ? static_cast<int>(count * 40 / peak) : 0;
    char line[160];
    std::snprintf(line, sizeof line, "%10llu -> %-10llu : %-8llu |%-40s|\n",
                  static_cast<unsigned long long>(lo), static_cast<unsigned long long>(hi),
                  static_cast<unsigned long long>(count), std::string(stars, '*').c_str());
    out += line;
  }
  return out;
}

namespace {

struct GcRig {
  Pair measure;  // dgram pair the timed sendmsg() calls go through
  Pair payload;  // payload.a is the AF_UNIX fd the fd-carrying sends pass
  std::uint64_t deadlineNs = 0;
  bool outOfTime = false;

  bool measureBlock(LatencyBlock &block, int samples, bool withFd) {
    block.ns.reserve(static_cast<std::size_t>(samples));
    int fd = payload.a.get();
    char byte;
    for (int i = 0; i < samples; ++i) {
      std::uint64_t t0 = nowNs();
      ssize_t n = sendWithFds(measure.a.get(), &fd, withFd ? 1 : 0);
      std::uint64_t t1 = nowNs();
      if (n != 1)
        return false;
      block.ns.push_back(t1 - t0);
      if (recvAndCloseFds(measure.b.get(), &byte, 1) != 1)
        return false;
      if ((i & 63) == 0 && t1 > deadlineNs) {
        outOfTime = true;
        return true;
      }
    }
    return true;
  }
};

// Puts `target` AF_UNIX socket references in flight on carrier.b's receive queue (reachable, so
// not garbage). With `cycles`, each pair x,y is first sent over itself (x in y's queue, y in x's
// queue): a reference cycle among in-flight sockets, which makes every GC run walk the graph.
// Returns the references put in flight.
int fillInflight(const Pair &carrier, int target, bool cycles, std::uint64_t deadlineNs,
                 std::string &note) {
  int inflight = 0;
  std::vector<int> batch;
  std::vector<Fd> holders;
  auto flush = [&]() -> bool {
    if (batch.empty())
      return true;
    ssize_t n = sendWithFds(carrier.a.get(), batch.data(), static_cast<int>(batch.size()));
    if (n != 1) {
      note = "carrier sendmsg: " + errnoName(errno);
      return false;
    }
    inflight += static_cast<int>(batch.size());
    batch.clear();
    holders.clear();
    return true;
  };
  while (inflight + static_cast<int>(batch.size()) + (cycles ? 2 : 0) < target) {
    if (nowNs() > deadlineNs) {
      note = "time budget spent while filling";
      break;
    }
    Pair p = unixPair(SOCK_STREAM);
    if (!p.a) {
      note = "socketpair: " + errnoName(errno);
      break;
    }
    if (cycles) {
      int x = p.a.get(), y = p.b.get();
      if (sendWithFds(y, &y, 1) != 1 || sendWithFds(x, &x, 1) != 1) {
        note = "cycle sendmsg: " + errnoName(errno);
        break;
      }
      inflight += 2;
      batch.push_back(x);
      holders.push_back(std::move(p.a));
    } else {
      batch.push_back(p.a.get());
      batch.push_back(p.b.get());
      holders.push_back(std::move(p.a));
      holders.push_back(std::move(p.b));
    }
    if (batch.size() >= 252 && !flush())
      break;
  }
  flush();
  return inflight;
}

// Takes back what fillInflight() put on carrier.b's queue and, for a cycle, what one end holds of
// its peer, so nothing is left for the GC: garbage counts as in flight for this user until a run
// frees it, and would make the next measurement's (or the next program's) sends wait.
void takeBackInflight(const Pair &carrier) {
  char buf[8];
  std::vector<int> held;
  while (recvFds(carrier.b.get(), buf, sizeof buf, held, MSG_DONTWAIT) > 0) {
  }
  for (int end : held) {
    // Receiving the peer off this end's queue and closing it frees the peer, and with it this
    // end's own reference queued there.
    while (recvAndCloseFds(end, buf, sizeof buf, MSG_DONTWAIT) > 0) {
    }
    close(end);
  }
}

} // namespace

namespace {

GcMeasurement measureGcWaitHere(const GcOptions &options) {
  GcMeasurement m;
  m.inflightRequested = options.inflight;
  const std::uint64_t deadline =
      nowNs() + static_cast<std::uint64_t>(options.timeBudgetSeconds * 1e9);
  // Holding a batch needs few fds, but a user without CAP_SYS_RESOURCE may have at most
  // RLIMIT_NOFILE fds in flight: raise the soft limit and stay below it.
  rlimit lim{};
  getrlimit(RLIMIT_NOFILE, &lim);
  if (lim.rlim_cur < lim.rlim_max) {
    lim.rlim_cur = lim.rlim_max;
    setrlimit(RLIMIT_NOFILE, &lim);
  }
  int allowed = options.inflight;
  if (!hasResourceOverride()) {
    long cap = lim.rlim_cur == RLIM_INFINITY ? 1L << 20 : static_cast<long>(lim.rlim_cur) - 16;
    if (cap < allowed) {
      allowed = static_cast<int>(std::max(0L, cap));
      m.limitNote = "capped at RLIMIT_NOFILE " + std::to_string(lim.rlim_cur) +
                    " - 16 (no CAP_SYS_RESOURCE: more would fail with ETOOMANYREFS)";
    }
  }
  constexpr int kHardCap = 1 << 17;
  if (allowed > kHardCap) {
    allowed = kHardCap;
    m.limitNote = "capped at " + std::to_string(kHardCap);
  }
  GcRig rig;
  rig.measure = unixPair(SOCK_DGRAM);
  rig.payload = unixPair(SOCK_STREAM);
  rig.deadlineNs = deadline;
  if (!rig.measure.a || !rig.payload.a) {
    m.error = "socketpair: " + errnoName(errno);
    return m;
  }
  const int idleSamples = std::min(options.samples, 1024);
  if (!rig.measureBlock(m.idleNoFd, idleSamples, false) ||
      !rig.measureBlock(m.idleUnixFd, idleSamples, true)) {
    m.error = "sendmsg: " + errnoName(errno);
    return m;
  }
  auto phase = [&](bool cycles, LatencyBlock &noFd, LatencyBlock &unixFd) -> bool {
    Pair carrier = unixPair(SOCK_STREAM);
    if (!carrier.a) {
      m.error = "socketpair: " + errnoName(errno);
      return false;
    }
    // Large messages of fds must not block on the carrier's buffer.
    int big = 64 << 20;
    setsockopt(carrier.a.get(), SOL_SOCKET, SO_SNDBUFFORCE, &big, sizeof big);
    std::string note;
    int reached = fillInflight(carrier, allowed, cycles, deadline, note);
    m.inflightReached = std::max(m.inflightReached, reached);
    if (!note.empty() && m.limitNote.empty() && reached < allowed - 3)
      m.limitNote = std::string(cycles ? "with cycles, " : "without cycles, ") +
                    std::to_string(reached) + " put in flight: " + note;
    bool ok = rig.measureBlock(noFd, options.samples, false) &&
              rig.measureBlock(unixFd, options.samples, true);
    if (!ok)
      m.error = "sendmsg while in flight: " + errnoName(errno);
    takeBackInflight(carrier);
    return ok;
  };
  if (options.withoutCycles && !rig.outOfTime) {
    if (!phase(false, m.noFd, m.unixFd))
      return m;
    m.ranWithout = true;
  }
  if (options.withCycles && !rig.outOfTime) {
    if (!phase(true, m.noFdCycles, m.unixFdCycles))
      return m;
    m.ranWith = true;
  }
  m.outOfTime = rig.outOfTime;
  return m;
}

// A GcMeasurement through a pipe: the numbers and strings, length-prefixed, in field order.
struct MeasurementWire {
  std::string bytes;
  std::size_t at = 0;
  bool ok = true;

  void put(std::uint64_t v) { bytes.append(reinterpret_cast<const char *>(&v), sizeof v); }
  void put(int v) { put(static_cast<std::uint64_t>(static_cast<std::int64_t>(v))); }
  void put(bool v) { put(static_cast<std::uint64_t>(v)); }
  void put(const std::string &text) {
    put(static_cast<std::uint64_t>(text.size()));
    bytes += text;
  }
  void put(const LatencyBlock &b) {
    put(static_cast<std::uint64_t>(b.ns.size()));
    for (std::uint64_t v : b.ns)
      put(v);
  }
  std::uint64_t number() {
    std::uint64_t v = 0;
    if (at + sizeof v > bytes.size()) {
      ok = false;
      return 0;
    }
    std::memcpy(&v, bytes.data() + at, sizeof v);
    at += sizeof v;
    return v;
  }
  std::string text() {
    std::uint64_t n = number();
    if (!ok || at + n > bytes.size()) {
      ok = false;
      return {};
    }
    std::string t = bytes.substr(at, n);
    at += n;
    return t;
  }
  LatencyBlock block() {
    LatencyBlock b;
    std::uint64_t n = number();
    for (std::uint64_t i = 0; ok && i < n; ++i)
      b.ns.push_back(number());
    return b;
  }
};

template <typename Wire> void wireFields(Wire &&visit, GcMeasurement &m) {
  visit(m.inflightRequested), visit(m.inflightReached), visit(m.limitNote), visit(m.idleNoFd),
      visit(m.idleUnixFd), visit(m.noFd), visit(m.unixFd), visit(m.noFdCycles),
      visit(m.unixFdCycles), visit(m.ranWithout), visit(m.ranWith), visit(m.outOfTime),
      visit(m.error);
}

GcMeasurement measureGcWaitAsUnusedUser(const GcOptions &options) {
  GcMeasurement m;
  int pipefd[2];
  if (pipe2(pipefd, O_CLOEXEC) != 0) {
    m.error = "pipe: " + errnoName(errno);
    return m;
  }
  const UnusedUser fresh = unusedUser();
  pid_t child = fork();
  if (child == 0) {
    close(pipefd[0]);
    // Without CAP_SYS_RESOURCE the uid may have at most RLIMIT_NOFILE fds in flight: raise it
    // while still root.
    rlim_t need = static_cast<rlim_t>(options.inflight) + 1024;
    rlimit lim{need, need};
    rlimit old{};
    getrlimit(RLIMIT_NOFILE, &old);
    if (old.rlim_max >= need)
      lim = {old.rlim_max, old.rlim_max};
    setrlimit(RLIMIT_NOFILE, &lim);
    GcMeasurement r;
    if (setgroups(0, nullptr) == 0 && setgid(fresh.gid) == 0 && setuid(fresh.uid) == 0)
      r = measureGcWaitHere(options);
    else
      r.error = "could not switch to an unused uid: " + errnoName(errno);
    MeasurementWire w;
    wireFields([&w](auto &field) { w.put(field); }, r);
    for (std::size_t off = 0; off < w.bytes.size();) {
      ssize_t n = write(pipefd[1], w.bytes.data() + off, w.bytes.size() - off);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      off += static_cast<std::size_t>(n);
    }
    _exit(0);
  }
  close(pipefd[1]);
  if (child < 0) {
    close(pipefd[0]);
    m.error = "fork: " + errnoName(errno);
    return m;
  }
  MeasurementWire w;
  w.bytes = readUntilEof(pipefd[0]);
  close(pipefd[0]);
  int status = waitForChild(child);
  wireFields(
      [&w](auto &field) {
        using Field = std::decay_t<decltype(field)>;
        if constexpr (std::is_same_v<Field, std::string>)
          field = w.text();
        else if constexpr (std::is_same_v<Field, LatencyBlock>)
          field = w.block();
        else
          field = static_cast<Field>(static_cast<std::int64_t>(w.number()));
      },
      m);
  if (!w.ok)
    m.error = "the measuring child (uid " + std::to_string(fresh.uid) + ") ended without a result";
  m.asUnusedUser = true;
  return m;
}

} // namespace

GcMeasurement measureGcWait(const GcOptions &options) {
  if (options.asUnusedUser && geteuid() == 0)
    return measureGcWaitAsUnusedUser(options);
  return measureGcWaitHere(options);
}

Observation gcExperiment(const GcOptions &options) {
  Observation o;
  o.experiment = "gc";
  GcMeasurement m = measureGcWait(options);
  const char *base = "gc.unix_fd_wait.";
  auto key = [&](const char *k) { return std::string(base) + k; };
  auto medianOrNull = [](const LatencyBlock &b) {
    return b.ns.empty() ? Value::null() : Value::of(static_cast<long long>(b.median()));
  };
  o.set(key("idle_no_fd_ns"), medianOrNull(m.idleNoFd));
  o.set(key("idle_unix_fd_ns"), medianOrNull(m.idleUnixFd));
  o.set(key("no_fd_ns"), medianOrNull(m.ranWithout ? m.noFd : m.noFdCycles));
  o.set(key("unix_fd_ns"), medianOrNull(m.unixFd));
  o.set(key("no_fd_cycles_ns"), medianOrNull(m.noFdCycles));
  o.set(key("unix_fd_cycles_ns"), medianOrNull(m.unixFdCycles));
  o.set(key("unix_fd_cycles_p99_ns"), m.unixFdCycles.ns.empty()
                                          ? Value::null()
                                          : Value::of(static_cast<long long>(
                                                m.unixFdCycles.percentile(0.99))));
  o.set(key("inflight"), Value::of(m.inflightReached));
  o.set(key("samples"), Value::of(options.samples));
  o.set(key("ratio"), Value::null());
  o.set(key("waits"), Value::null());
  o.set(key("no_fd_waits"), Value::null());
  if (!m.error.empty()) {
    o.fail(m.error);
    return o;
  }
  if (!m.limitNote.empty())
    o.note(std::to_string(m.inflightRequested) + " sockets in flight requested; " +
           m.limitNote);
  if (m.asUnusedUser)
    o.note("measured as an unused uid, so only the experiment's own fds count toward the 2024 "
           "a user needs in flight before its sends wait");
  if (m.outOfTime)
    o.note("time budget (" + std::to_string(options.timeBudgetSeconds) +
           " s) ran out; blocks are partial");
  const LatencyBlock &loaded = m.ranWith ? m.unixFdCycles : m.unixFd;
  const LatencyBlock &loadedNoFd = m.ranWith ? m.noFdCycles : m.noFd;
  if (loaded.ns.empty() || m.idleUnixFd.ns.empty()) {
    o.skip("no in-flight measurement was taken");
    return o;
  }
  // A median of a handful of sends says nothing: one scheduling hiccup would decide it.
  const std::size_t enough = static_cast<std::size_t>(std::min(options.samples, 64));
  if (loaded.ns.size() < enough || loadedNoFd.ns.size() < enough) {
    o.skip("time budget ran out after " + std::to_string(loaded.ns.size()) +
           " timed sends; raise --timeout");
    return o;
  }
  double noFd = static_cast<double>(std::max<std::uint64_t>(1, loadedNoFd.median()));
  double ratio = static_cast<double>(loaded.median()) / noFd;
  o.set(key("ratio"), Value::of(std::round(ratio * 10) / 10));
  // Every 6.8+ kernel lets a send wait only once its user has UNIX_INFLIGHT_SANE_USER fds in
  // flight; below that these numbers cannot show a wait. (The 16000 system-wide trigger is not a
  // floor: 6.18.44 made fd-carrying sends wait from 2024, without cycles of their own.)
  const std::string threshold = std::to_string(kUnixInflightSaneUser);
  if (m.inflightReached < kUnixInflightSaneUser) {
    o.note("only " + std::to_string(m.inflightReached) + " fds in flight: a send waits for the GC "
           "only once its user has " + threshold + ", so no wait can be observed");
    o.skip("could not put " + threshold + " AF_UNIX sockets in flight");
    return o;
  }
  // "Waits" = an fd-carrying send costs well over its idle cost (10x) with sockets in flight.
  bool waits = loaded.median() >= 10 * std::max<std::uint64_t>(1, m.idleUnixFd.median());
  bool noFdWaits = loadedNoFd.median() >= 10 * std::max<std::uint64_t>(1, m.idleNoFd.median());
  o.set(key("waits"), Value::of(waits));
  o.set(key("no_fd_waits"), Value::of(noFdWaits));
  char line[320];
  std::snprintf(line, sizeof line,
                "median ns per 1-byte dgram sendmsg(), %d calls per block: idle no fd %llu, idle "
                "AF_UNIX fd %llu; %d in flight: no fd %llu, AF_UNIX fd %llu",
                options.samples, static_cast<unsigned long long>(m.idleNoFd.median()),
                static_cast<unsigned long long>(m.idleUnixFd.median()), m.inflightReached,
                static_cast<unsigned long long>(m.noFd.median()),
                static_cast<unsigned long long>(m.unixFd.median()));
  o.note(line);
  if (m.ranWith) {
    std::snprintf(line, sizeof line,
                  "with reference cycles among them: no fd %llu, AF_UNIX fd %llu (p99 %llu)",
                  static_cast<unsigned long long>(m.noFdCycles.median()),
                  static_cast<unsigned long long>(m.unixFdCycles.median()),
                  static_cast<unsigned long long>(m.unixFdCycles.percentile(0.99)));
    o.note(line);
  }
  if (waits && !noFdWaits)
    o.implies("Only sendmsg() calls that carry AF_UNIX fds wait for the unix GC (6.8+ "
              "behaviour); they pay ~" + std::to_string(static_cast<long>(ratio)) +
              "x once the user has >= " + std::to_string(kUnixInflightSaneUser) +
              " fds in flight and reference cycles exist. Bound the "
              "fds in flight, and receive what lands on a socket's own queue before closing it.",
              {"afunix-fd-flood", "afunix-fd-cycle"});
  else if (waits && noFdWaits)
    o.implies("Every AF_UNIX sendmsg() waits for a running unix GC, with or without fds (<= 6.7 "
              "behaviour): one process flooding fds slows all AF_UNIX senders.",
              {"afunix-fd-flood", "afunix-fd-cycle"});
  else
    o.implies("No sendmsg() waited for the GC with " + std::to_string(m.inflightReached) +
              " sockets in flight (GC runs only after cyclic garbage, or is cheap here); "
              "fd floods still hit ETOOMANYREFS.",
              {"afunix-fd-flood"});
  return o;
}

namespace {

// Median ns of `samples` one-byte dgram sendmsg() calls, each carrying `fd` (-1: none) and
// received at once (so they never add to what is in flight). `beforeEach` runs untimed before
// every send. 0 when a send failed.
template <typename Before>
std::uint64_t timedSends(GcRig &rig, int fd, int samples, Before beforeEach) {
  LatencyBlock block;
  char byte;
  for (int i = 0; i < samples; ++i) {
    beforeEach();
    std::uint64_t t0 = nowNs();
    ssize_t n = sendWithFds(rig.measure.a.get(), &fd, fd >= 0 ? 1 : 0);
    std::uint64_t t1 = nowNs();
    if (n != 1 || recvAndCloseFds(rig.measure.b.get(), &byte, 1) != 1)
      return 0;
    block.ns.push_back(t1 - t0);
    if (t1 > rig.deadlineNs) {
      rig.outOfTime = true;
      break;
    }
  }
  return block.median();
}
std::uint64_t timedSends(GcRig &rig, int fd, int samples) {
  return timedSends(rig, fd, samples, [] {});
}

// The same from a child process running as an unprivileged user (unusedUser()) that has nothing
// in flight of its own: its median, or 0.
std::uint64_t timedSendsAsOtherUser(int samples) {
  int pipefd[2];
  if (pipe2(pipefd, O_CLOEXEC) != 0)
    return 0;
  const UnusedUser fresh = unusedUser();
  const uid_t uid = fresh.uid;
  const gid_t gid = fresh.gid;
  pid_t child = fork();
  if (child == 0) {
    close(pipefd[0]);
    std::uint64_t median = 0;
    if (setgroups(0, nullptr) == 0 && setgid(gid) == 0 && setuid(uid) == 0) {
      GcRig rig;
      rig.measure = unixPair(SOCK_DGRAM);
      rig.payload = unixPair(SOCK_STREAM);
      rig.deadlineNs = nowNs() + 10'000'000'000ull;
      if (rig.measure.a && rig.payload.a)
        median = timedSends(rig, rig.payload.a.get(), samples);
    }
    (void)!write(pipefd[1], &median, sizeof median);
    _exit(0);
  }
  close(pipefd[1]);
  std::uint64_t median = 0;
  if (child > 0) {
    while (read(pipefd[0], &median, sizeof median) < 0 && errno == EINTR) {
    }
    waitForChild(child);
  }
  close(pipefd[0]);
  return median;
}

} // namespace

Observation gcWaitConditionsExperiment(const GcConditionsOptions &options) {
  Observation o;
  o.experiment = "gc_wait_conditions";
  const std::string base = "gc.conditions.";
  const char *keys[] = {"idle_unix_fd_ns", "below_unix_fd_ns", "below_close_unix_fd_ns",
                        "above_unix_fd_ns", "above_other_fd_ns", "above_no_fd_ns",
                        "above_other_uid_unix_fd_ns", "collected_unix_fd_ns", "inflight_below",
                        "inflight_above", "below_waits", "close_starts_wait", "above_waits",
                        "other_fd_waits", "no_fd_waits", "other_uid_waits", "collected_waits",
                        "release_starts_run"};
  for (const char *k : keys)
    o.set(base + k, Value::null());
  if (!hasResourceOverride()) {
    o.skip("needs CAP_SYS_RESOURCE to put more than RLIMIT_NOFILE fds in flight");
    return o;
  }
  GcRig rig;
  rig.measure = unixPair(SOCK_DGRAM);
  rig.payload = unixPair(SOCK_STREAM);
  rig.deadlineNs = nowNs() + static_cast<std::uint64_t>(options.timeBudgetSeconds * 1e9);
  Fd devnull(open("/dev/null", O_RDONLY | O_CLOEXEC));
  Pair cyclic = unixPair(SOCK_STREAM), load = unixPair(SOCK_STREAM);
  if (!rig.measure.a || !rig.payload.a || !devnull || !cyclic.a || !load.a) {
    o.fail("socketpair: " + errnoName(errno));
    return o;
  }
  int big = 64 << 20;
  setsockopt(cyclic.a.get(), SOL_SOCKET, SO_SNDBUFFORCE, &big, sizeof big);
  setsockopt(load.a.get(), SOL_SOCKET, SO_SNDBUFFORCE, &big, sizeof big);
  const int samples = options.samples;
  const int unixFd = rig.payload.a.get();
  auto waits = [](std::uint64_t loaded, std::uint64_t idle) {
    return loaded >= 10 * std::max<std::uint64_t>(1, idle);
  };
  std::uint64_t idle = timedSends(rig, unixFd, samples);

  // 0. A release of an AF_UNIX socket while fds are in flight starts a GC run: garbage made for
  //    the purpose (a socket in its own queue, closed) is freed by the next release.
  bool releaseStartsRun = false;
  for (int attempt = 0; attempt < 4 && !releaseStartsRun; ++attempt) {
    Pair own = unixPair(SOCK_STREAM);
    int fd = own.b.get();
    if (!own.a || sendWithFds(own.a.get(), &fd, 1) != 1)
      break;
    std::vector<unsigned long> inodes = {inodeOf(own.b.get())};
    own.a.reset();
    usleep(20000); // the run this release started finds own.b still open
    own.b.reset();
    // Not listed any more: a run started elsewhere freed it first; again.
    releaseStartsRun = listedInodes(inodes).size() == 1 && collectGarbage(inodes, 2.0);
  }

  // 1. Past 2024 (this user) but below the 16000 trigger, with reference cycles still open (each
  //    pair in the other's queue, all reachable from `cyclic`). On the kernels kernel-behaviour.md
  //    describes nothing starts a GC run here; 6.18.44's sends start runs from the user's 2024th, so
  //    below_waits is reported, not a claim...
  std::string note;
  int below = fillInflight(cyclic, options.belowTrigger, true, rig.deadlineNs, note);
  std::uint64_t belowNs = timedSends(rig, unixFd, samples);
  //    ...unless an AF_UNIX socket is released while fds are in flight (unix_release_sock). Each
  //    release here follows a change of the graph (a socket queued on one that is itself in
  //    flight: anchor.b, in its own queue), so each run walks the whole graph again rather than
  //    its last grouping, as after any real program's change.
  Pair anchor = unixPair(SOCK_STREAM);
  int anchored = anchor.b.get();
  sendWithFds(anchor.a.get(), &anchored, 1);
  const int anchorEnd = anchor.a.get();
  std::uint64_t closeNs = timedSends(rig, unixFd, samples, [anchorEnd] {
    Pair p = unixPair(SOCK_STREAM);
    int fd = p.a.get();
    sendWithFds(anchorEnd, &fd, 1); // p.a queued on anchor.b; p.b's release starts the run
  });
  // 2. Past the trigger (16000 system-wide): every AF_UNIX sendmsg() starts a run; which wait?
  int above = below + fillInflight(load, options.aboveTrigger - below, false, rig.deadlineNs, note);
  std::uint64_t aboveNs = timedSends(rig, unixFd, samples);
  std::uint64_t otherFdNs = timedSends(rig, devnull.get(), samples);
  std::uint64_t noFdNs = timedSends(rig, -1, samples);
  std::uint64_t otherUidNs = geteuid() == 0 ? timedSendsAsOtherUser(samples) : 0;
  // 3. The cycles closed: garbage the next run frees; then no cycle is left to walk.
  cyclic.a.reset();
  cyclic.b.reset();
  timedSends(rig, unixFd, 8); // the run that collects them
  std::uint64_t collectedNs = timedSends(rig, unixFd, samples);
  if (rig.outOfTime || !idle || !belowNs || !closeNs || !aboveNs || !otherFdNs || !noFdNs ||
      !collectedNs) {
    o.fail(rig.outOfTime ? "time budget spent before every block was measured"
                         : "sendmsg: " + errnoName(errno) + (note.empty() ? "" : "; " + note));
    return o;
  }
  o.set(base + "idle_unix_fd_ns", Value::of(static_cast<long long>(idle)));
  o.set(base + "below_unix_fd_ns", Value::of(static_cast<long long>(belowNs)));
  o.set(base + "below_close_unix_fd_ns", Value::of(static_cast<long long>(closeNs)));
  o.set(base + "above_unix_fd_ns", Value::of(static_cast<long long>(aboveNs)));
  o.set(base + "above_other_fd_ns", Value::of(static_cast<long long>(otherFdNs)));
  o.set(base + "above_no_fd_ns", Value::of(static_cast<long long>(noFdNs)));
  if (otherUidNs)
    o.set(base + "above_other_uid_unix_fd_ns", Value::of(static_cast<long long>(otherUidNs)));
  o.set(base + "collected_unix_fd_ns", Value::of(static_cast<long long>(collectedNs)));
  o.set(base + "inflight_below", Value::of(below));
  o.set(base + "inflight_above", Value::of(above));
  const bool belowWaits = waits(belowNs, idle), closeWaits = waits(closeNs, idle),
             aboveWaits = waits(aboveNs, idle), otherFdWaits = waits(otherFdNs, idle),
             noFdWaits = waits(noFdNs, idle), collectedWaits = waits(collectedNs, idle);
  o.set(base + "below_waits", Value::of(belowWaits));
  o.set(base + "close_starts_wait", Value::of(closeWaits));
  o.set(base + "above_waits", Value::of(aboveWaits));
  o.set(base + "other_fd_waits", Value::of(otherFdWaits));
  o.set(base + "no_fd_waits", Value::of(noFdWaits));
  if (otherUidNs)
    o.set(base + "other_uid_waits", Value::of(waits(otherUidNs, idle)));
  o.set(base + "collected_waits", Value::of(collectedWaits));
  o.set(base + "release_starts_run", Value::of(releaseStartsRun));
  char line[400];
  std::snprintf(line, sizeof line,
                "median ns of a 1-byte dgram sendmsg(), %d per block: idle, AF_UNIX fd %llu; %d "
                "in flight with open cycles, below the 16000 trigger: %llu, with an AF_UNIX close before "
                "each send: %llu",
                samples, static_cast<unsigned long long>(idle), below,
                static_cast<unsigned long long>(belowNs), static_cast<unsigned long long>(closeNs));
  o.note(line);
  std::snprintf(line, sizeof line,
                "%d in flight (above the 16000 trigger), cycles open: AF_UNIX fd %llu, /dev/null fd "
                "%llu, no fd %llu, AF_UNIX fd from a uid with nothing in flight %s; cycles "
                "closed and collected (no cycle left to walk): AF_UNIX fd %llu",
                above, static_cast<unsigned long long>(aboveNs),
                static_cast<unsigned long long>(otherFdNs), static_cast<unsigned long long>(noFdNs),
                otherUidNs ? std::to_string(otherUidNs).c_str() : "(not measured: not root)",
                static_cast<unsigned long long>(collectedNs));
  o.note(line);
  auto yes = [](bool b) { return b ? "waited" : "did not wait"; };
  (void)closeWaits; // a number, not a verdict: whether the send meets the run depends on scheduling
  // The verdict is what a rule page quotes, so it holds only what repeats from run to run: where
  // sends below the 16000 trigger start waiting moved between runs on 6.18.44; a /dev/null fd's
  // send, and another uid's AF_UNIX-fd send, take the lock a walk holds and share the CPUs with
  // it, so against idle they flipped between runs (/dev/null 3.7 ms against the AF_UNIX sends'
  // 0.5 ms in 2 of 5 runs on 2026-12-04; the other uid >= 10x idle in one CI run of 2026-12-05,
  // 1x-6x in 4 runs here). The notes have the numbers.
  o.verdict = std::string("a release of an AF_UNIX socket with fds in flight ") +
              (releaseStartsRun ? "started a GC run (garbage was freed)" : "did not free garbage") +
              "; AF_UNIX-fd sends of a user with >= 2024 in flight, above the 16000 trigger with "
              "cycles open, " + yes(aboveWaits) +
              "; then sends without fds " + yes(noFdWaits);
  o.implies("Only sendmsg() calls that carry AF_UNIX fds, from a user with >= 2024 fds in flight, "
            "are made to wait for a GC run in progress: a release of an AF_UNIX socket with "
            "fds in flight starts one, and so do such sends themselves past 16000 sockets in "
            "flight, on some kernels as soon as the user has 2024. Sends of other fds, and other "
            "users' fd-carrying sends, are not made to wait but take the lock a run holds, so "
            "they can be slowed too while it walks. A run is long while reference cycles among "
            "in-flight sockets are still open.",
            {"afunix-fd-flood", "afunix-fd-cycle"});
  return o;
}

} // namespace afunix::kernel
