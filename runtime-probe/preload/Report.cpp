// Reports: rendered into a static buffer with no allocation and written with raw syscalls, so they
// can be produced from a destructor, from _exit(), before exec, from any intercepted call
// (periodic reports) or in a forked child.
#include "ProbeCore.h"

#include "afunix/RuleCatalog.h"

#include <cerrno>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "afunix/KernelConstants.h"

namespace afunix::probe {

namespace {
constinit ProcessInfo gProcess;
constinit ReportFile gJsonFile;
constinit ReportFile gTextFile;
std::atomic<bool> gWriting{false};
std::atomic<uint64_t> gNextReport{0};
constexpr std::size_t kReportBufferSize = 1 << 19;
char gBuffer[kReportBufferSize]; // only touched when a report is written

long sysOpen(const char *path, int flags, int mode) { return syscall(SYS_openat, AT_FDCWD, path, flags, mode); }
long sysRead(int fd, void *buf, std::size_t n) { return syscall(SYS_read, fd, buf, n); }
long sysWrite(int fd, const void *buf, std::size_t n) { return syscall(SYS_write, fd, buf, n); }
void sysClose(int fd) { syscall(SYS_close, fd); }

// Appends into a fixed buffer; once full it stops and remembers it overflowed.
struct Out {
  char *buf;
  std::size_t size;
  std::size_t len = 0;
  bool full = false;
  void put(char c) {
    if (len + 1 < size)
      buf[len++] = c;
    else
      full = true;
  }
  void str(const char *s) {
    while (s && *s)
      put(*s++);
  }
  void u64(uint64_t v) {
    char tmp[24];
    int n = 0;
    do
      tmp[n++] = static_cast<char>('0' + v % 10);
    while (v /= 10);
    while (n)
      put(tmp[--n]);
  }
  void i64(int64_t v) {
    if (v < 0) {
      put('-');
      u64(static_cast<uint64_t>(-(v + 1)) + 1);
    } else
      u64(static_cast<uint64_t>(v));
  }
  void padded(uint64_t v, int width, bool left) {
    char tmp[24];
    int n = 0;
    do
      tmp[n++] = static_cast<char>('0' + v % 10);
    while (v /= 10);
    if (!left)
      for (int i = n; i < width; ++i)
        put(' ');
    for (int i = n; i--;)
      put(tmp[i]);
    if (left)
      for (int i = n; i < width; ++i)
        put(' ');
  }
  void json(const char *s) {
    put('"');
    for (; s && *s; ++s) {
      unsigned char c = static_cast<unsigned char>(*s);
      if (c == '"' || c == '\\') {
        put('\\');
        put(static_cast<char>(c));
      } else if (c == '\n')
        str("\\n");
      else if (c < 0x20 || c >= 0x7f) {
        const char *hex = "0123456789abcdef";
        str("\\u00");
        put(hex[c >> 4]);
        put(hex[c & 15]);
      } else
        put(static_cast<char>(c));
    }
    put('"');
  }
  void key(const char *k) {
    json(k);
    put(':');
  }
  std::size_t remaining() const { return size - len; }
};

const char *familyName(uint64_t family) {
  switch (family) {
  case AF_UNIX: return "AF_UNIX";
  case AF_INET: return "AF_INET";
  case AF_INET6: return "AF_INET6";
  case AF_NETLINK: return "AF_NETLINK";
  case AF_PACKET: return "AF_PACKET";
  case AF_BLUETOOTH: return "AF_BLUETOOTH";
  case AF_VSOCK: return "AF_VSOCK";
  default: return "another family";
  }
}
const char *optionName(uint64_t option) {
  return option == SO_PASSCRED ? "SO_PASSCRED" : option == SO_PASSSEC ? "SO_PASSSEC" : "SO_PASSPIDFD";
}
const char *typeName(uint64_t type) {
  return type == SOCK_STREAM ? "stream" : type == SOCK_DGRAM ? "dgram" : type == SOCK_SEQPACKET ? "seqpacket" : "other";
}
const char *errnoName(uint64_t err) {
  switch (err) {
  case 0: return "ok";
  case EOPNOTSUPP: return "EOPNOTSUPP";
  case ENOPROTOOPT: return "ENOPROTOOPT";
  case EINVAL: return "EINVAL";
  case EPERM: return "EPERM";
  case EBADF: return "EBADF";
  default: return "error";
  }
}

const KernelVersion &runningKernel() {
  static constinit KernelVersion kernel{};
  static constinit std::atomic<bool> known{false};
  if (!known.load(std::memory_order_acquire)) {
    struct utsname u;
    if (uname(&u) == 0 && KernelVersion::parse(u.release, kernel))
      known.store(true, std::memory_order_release);
  }
  return kernel;
}

uint64_t rlimitNofile() {
  struct rlimit limit;
  if (syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, nullptr, &limit) != 0)
    return 0;
  return limit.rlim_cur;
}

// The catalog variant that applies to the running kernel (fd-flood) or the one recorded.
const catalog::Variant *variantFor(const FindingView &f) {
  const catalog::Rule *rule = catalog::findRule(ruleId(f.rule));
  if (!rule || !rule->variantCount)
    return nullptr;
  if (f.rule == Rule::FdFlood) {
    for (std::size_t i = 0; i < rule->variantCount; ++i)
      if (catalog::appliesTo(rule->variants[i], runningKernel()))
        return &rule->variants[i];
    return &rule->variants[rule->variantCount - 1];
  }
  return f.variant < rule->variantCount ? &rule->variants[f.variant] : &rule->variants[0];
}

// Placeholder values for a finding's message.
void placeholder(Out &o, const FindingView &f, const char *name, std::size_t length) {
  auto is = [&](const char *want) {
    std::size_t i = 0;
    for (; i < length && want[i]; ++i)
      if (want[i] != name[i])
        return false;
    return i == length && !want[i];
  };
  auto fdText = [&](uint64_t fd) {
    o.str("fd ");
    o.u64(fd);
  };
  if (is("socket")) {
    if (f.rule == Rule::FdCycle)
      fdText(f.evidence[0]);
    else if (f.fd >= 0)
      fdText(static_cast<uint64_t>(f.fd));
    else
      o.str("this process's AF_UNIX sockets");
  } else if (is("peer"))
    fdText(f.evidence[1]);
  else if (is("relation"))
    o.str("its socketpair() peer");
  else if (is("origin"))
    o.str("inherited or received, not created in this process");
  else if (is("option"))
    o.str(optionName(f.evidence[0]));
  else if (is("family"))
    o.str(familyName(f.evidence[1]));
  else if (is("valid_families"))
    o.str(f.evidence[0] == kernel::kSoPassPidfd ? "AF_UNIX" : "AF_UNIX, AF_NETLINK and AF_BLUETOOTH");
  else if (is("count"))
    o.u64(f.evidence[0]);
  else if (is("what"))
    o.str("AF_UNIX socket fds");
  else if (is("how")) {
    o.str("were sent with up to ");
    o.u64(f.evidence[0]);
    o.str(" fds in flight");
  } else if (is("bound"))
    o.str("receive or acknowledge before sending more");
  else {
    o.put('{');
    for (std::size_t i = 0; i < length; ++i)
      o.put(name[i]);
    o.put('}');
  }
}

void message(Out &o, const FindingView &f) {
  if (f.rule == Rule::FixPasscred) {
    o.str(f.evidence[0] ? "--fix passcred could not enable SO_PASSCRED on fd " : "--fix passcred enabled SO_PASSCRED on fd ");
    o.u64(static_cast<uint64_t>(f.fd));
    o.str(f.variant == variant::kFixAtListen ? " before listen()" : " before recvmsg() with a control buffer");
    return;
  }
  const catalog::Variant *v = variantFor(f);
  if (!v)
    return;
  for (const char *p = v->message; *p; ++p) {
    if (*p == '{') {
      const char *end = p + 1;
      while (*end && *end != '}')
        ++end;
      if (*end == '}') {
        placeholder(o, f, p + 1, static_cast<std::size_t>(end - p - 1));
        p = end;
        continue;
      }
    }
    o.put(*p);
  }
}

// Message text for JSON: rendered into a scratch buffer, then escaped.
void jsonMessage(Out &o, const FindingView &f) {
  char scratch[2048];
  Out m{scratch, sizeof scratch};
  message(m, f);
  scratch[m.len] = 0;
  o.json(scratch);
}

void evidence(Out &o, const FindingView &f, bool json) {
  auto field = [&](const char *name, uint64_t value, const char *text = nullptr) {
    if (json) {
      if (o.buf[o.len - 1] != '{')
        o.put(',');
      o.key(name);
      if (text)
        o.json(text);
      else
        o.u64(value);
    } else {
      o.put(' ');
      o.str(name);
      o.put('=');
      if (text)
        o.str(text);
      else
        o.u64(value);
    }
  };
  if (json)
    o.put('{');
  switch (f.rule) {
  case Rule::CredsWithoutPasscred:
    field("control_buffer_max", f.evidence[0]);
    field("calls_buffer_fits_ucred", f.evidence[1]);
    field("socket_type", 0, typeName(f.evidence[2]));
    field("creds_received", 0);
    break;
  case Rule::PasscredTooLate:
    field("pid", f.evidence[0]);
    field("uid", f.evidence[1]);
    field("gid", f.evidence[2]);
    break;
  case Rule::PasscredWrongFamily:
    field("option", 0, optionName(f.evidence[0]));
    field("family", 0, familyName(f.evidence[1]));
    field("kernel_answer", 0, errnoName(f.evidence[2]));
    break;
  case Rule::FdFlood:
    field("in_flight_high_water", f.evidence[0]);
    field("gc_threshold", static_cast<uint64_t>(kernel::kUnixInflightSaneUser));
    field("rlimit_nofile", rlimitNofile());
    field("unix_fds_sent", f.evidence[1]);
    field("etoomanyrefs", f.evidence[2]);
    field("slow_sends", f.evidence[3]);
    field("slowest_send_ns", f.evidence[4]);
    field("slow_threshold_ns", config().slowNs);
    break;
  case Rule::FdLimit:
    field("fds_in_message", f.evidence[0]);
    field("scm_max_fd", kernel::kScmMaxFd);
    field("einval", f.evidence[1]);
    break;
  case Rule::FdCycle:
    field("fd_sent", f.evidence[0]);
    field("sent_over", f.evidence[1]);
    field("relation", 0, f.evidence[2] ? "socketpair-peer" : "self");
    break;
  case Rule::FixPasscred:
    field("where", 0, f.variant == variant::kFixAtListen ? "listen" : "recvmsg");
    field("result", 0, errnoName(f.evidence[0]));
    break;
  default:
    break;
  }
  if (json)
    o.put('}');
}

const char *variantName(const FindingView &f) {
  if (f.rule == Rule::FixPasscred)
    return f.variant == variant::kFixAtListen ? "listen" : "recvmsg";
  const catalog::Variant *v = variantFor(f);
  return v ? v->id : "default";
}

struct CounterRow {
  const char *name;
  int64_t value;
};
int counterRows(CounterRow *rows, const StatsSnapshot &snap) {
  Counters &c = counters();
  auto get = [](const std::atomic<uint64_t> &a) { return static_cast<int64_t>(a.load(std::memory_order_relaxed)); };
  int n = 0;
  rows[n++] = {"unix_sockets", get(c.unixSockets)};
  rows[n++] = {"other_sockets", get(c.otherSockets)};
  for (int h = 0; h < kHistCount; ++h) {
    // one counter per call kind: sum over classes
    if (h != 0 && h != 4 && h < 8)
      continue;
    uint64_t sum = snap.calls[h];
    if (h == 0 || h == 4)
      sum += snap.calls[h + 1] + snap.calls[h + 2] + snap.calls[h + 3];
    rows[n++] = {h == 0 ? "send_calls" : h == 4 ? "recv_calls" : h == 8 ? "write_calls" : h == 9 ? "read_calls" : h == 10 ? "accept_calls" : "connect_calls",
                 static_cast<int64_t>(sum)};
  }
  rows[n++] = {"fds_sent", get(c.fdsSent)};
  rows[n++] = {"unix_fds_sent", get(c.unixFdsSent)};
  rows[n++] = {"fds_received", get(c.fdsReceived)};
  rows[n++] = {"fds_in_flight", c.inFlight.load(std::memory_order_relaxed)};
  rows[n++] = {"fds_in_flight_high_water", c.inFlightHighWater.load(std::memory_order_relaxed)};
  rows[n++] = {"creds_received", get(c.credsReceived)};
  rows[n++] = {"creds_pid_zero", get(c.credsPidZero)};
  rows[n++] = {"etoomanyrefs", get(c.etoomanyrefs)};
  rows[n++] = {"einval_too_many_fds", get(c.einvalTooManyFds)};
  rows[n++] = {"slow_fd_sends", get(c.slowFdSends)};
  rows[n++] = {"threads", static_cast<int64_t>(snap.threadsSeen)};
  rows[n++] = {"threads_overflow", static_cast<int64_t>(snap.threadsOverflow)};
  rows[n++] = {"untracked_fd_calls", get(fdTable().untracked)};
  rows[n++] = {"findings_dropped", get(findings().dropped)};
  rows[n++] = {"reports_written", get(c.reportsWritten)};
  return n;
}

constinit StatsSnapshot gSnapshot; // too big for a small thread stack
} // namespace

ProcessInfo &processInfo() { return gProcess; }

void refreshProcessInfo(bool readNames) {
  gProcess.pid = static_cast<int>(syscall(SYS_getpid));
  gProcess.ppid = static_cast<int>(syscall(SYS_getppid));
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  gProcess.startNs = static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
  if (!readNames)
    return;
  long n = syscall(SYS_readlinkat, AT_FDCWD, "/proc/self/exe", gProcess.exe, sizeof gProcess.exe - 1);
  gProcess.exe[n > 0 ? n : 0] = 0;
  long fd = sysOpen("/proc/self/cmdline", O_RDONLY | O_CLOEXEC, 0);
  gProcess.argv0[0] = 0;
  if (fd >= 0) {
    long got = sysRead(static_cast<int>(fd), gProcess.argv0, sizeof gProcess.argv0 - 1);
    gProcess.argv0[got > 0 ? got : 0] = 0;
    sysClose(static_cast<int>(fd));
  }
}

std::size_t renderJson(char *buf, std::size_t size, const char *reason) {
  Out o{buf, size};
  stats().snapshot(gSnapshot);
  o.str("{\"version\":1,\"tool\":\"afunix-probe\",\"reason\":");
  o.json(reason);
  o.str(",\"process\":{\"pid\":");
  o.u64(static_cast<uint64_t>(gProcess.pid));
  o.str(",\"ppid\":");
  o.u64(static_cast<uint64_t>(gProcess.ppid));
  o.str(",\"exe\":");
  o.json(gProcess.exe);
  o.str(",\"argv0\":");
  o.json(gProcess.argv0);
  o.str(",\"start_ns\":");
  o.u64(gProcess.startNs);
  o.str("},\"config\":{\"timing\":");
  o.str(config().timing ? "true" : "false");
  o.str(",\"timing_sample\":");
  o.u64(config().timingSample);
  o.str(",\"fix_passcred\":");
  o.str(config().fixPasscred ? "true" : "false");
  o.str(",\"slow_ns\":");
  o.u64(config().slowNs);
  o.str(",\"interval_s\":");
  o.u64(config().intervalNs / 1000000000ull);
  o.str("},\"findings\":[");
  bool first = true, truncated = false;
  auto emit = [&](bool fixes) {
    first = true;
    findings().forEach([&](const FindingView &f) {
      if ((f.rule == Rule::FixPasscred) != fixes)
        return;
      if (o.remaining() < 4096) {
        truncated = true;
        return;
      }
      if (!first)
        o.put(',');
      first = false;
      o.str("{\"rule\":");
      o.json(ruleId(f.rule));
      o.str(",\"variant\":");
      o.json(variantName(f));
      o.str(",\"fd\":");
      o.i64(f.fd);
      o.str(",\"count\":");
      o.u64(f.count);
      o.str(",\"message\":");
      jsonMessage(o, f);
      o.str(",\"evidence\":");
      evidence(o, f, true);
      o.put('}');
    });
  };
  emit(false);
  o.str("],\"fixes\":[");
  emit(true);
  o.str("],\"counters\":{");
  CounterRow rows[40];
  int n = counterRows(rows, gSnapshot);
  for (int i = 0; i < n; ++i) {
    if (i)
      o.put(',');
    o.key(rows[i].name);
    o.i64(rows[i].value);
  }
  o.str("},\"histograms\":[");
  first = true;
  for (int h = 0; h < kHistCount; ++h) {
    if (!gSnapshot.calls[h] || o.remaining() < 2048)
      continue;
    if (!first)
      o.put(',');
    first = false;
    o.str("{\"call\":");
    o.json(histCallName(h));
    o.str(",\"class\":");
    o.json(histClassName(h));
    o.str(",\"count\":");
    o.u64(gSnapshot.calls[h]);
    o.str(",\"log2_ns\":[");
    for (int b = 0; b < kBuckets; ++b) {
      if (b)
        o.put(',');
      o.u64(gSnapshot.buckets[h][b]);
    }
    o.str("]}");
  }
  o.str("],\"truncated\":");
  o.str(truncated ? "true" : "false");
  o.str("}\n");
  return o.len;
}

// bcc funclatency's print_log2_hist layout: "     nsecs               : count     distribution".
static void textHistogram(Out &o, const uint64_t *buckets) {
  int last = 0;
  uint64_t max = 0;
  for (int b = 0; b < kBuckets; ++b) {
    if (buckets[b])
      last = b;
    if (buckets[b] > max)
      max = buckets[b];
  }
  if (!last)
    last = 1;
  o.str("     nsecs               : count     distribution\n");
  for (int b = 1; b <= last; ++b) {
    uint64_t low = (1ull << b) >> 1, high = (1ull << b) - 1;
    if (low == high)
      --low;
    uint64_t value = buckets[b] + (b == 1 ? buckets[0] : 0);
    o.padded(low, 10, false);
    o.str(" -> ");
    o.padded(high, 10, true);
    o.str(" : ");
    o.padded(value, 8, true);
    o.str(" |");
    int stars = max ? static_cast<int>(value * 40 / max) : 0;
    for (int i = 0; i < 40; ++i)
      o.put(i < stars ? '*' : ' ');
    o.str("|\n");
  }
}

std::size_t renderText(char *buf, std::size_t size, const char *reason) {
  Out o{buf, size};
  stats().snapshot(gSnapshot);
  o.str("afunix-probe report (");
  o.str(reason);
  o.str("): pid ");
  o.u64(static_cast<uint64_t>(gProcess.pid));
  o.str(" ppid ");
  o.u64(static_cast<uint64_t>(gProcess.ppid));
  o.put(' ');
  o.str(gProcess.exe);
  o.put('\n');
  int shown = 0;
  findings().forEach([&](const FindingView &f) {
    if (o.remaining() < 4096)
      return;
    ++shown;
    o.str(f.rule == Rule::FixPasscred ? "  fix: " : "  finding: ");
    o.str(ruleId(f.rule));
    o.str(" [");
    o.str(variantName(f));
    o.str("] ");
    if (f.fd >= 0) {
      o.str("fd ");
      o.u64(static_cast<uint64_t>(f.fd));
      o.str(", ");
    }
    o.u64(f.count);
    o.str("x\n    ");
    message(o, f);
    o.str("\n    evidence:");
    evidence(o, f, false);
    o.put('\n');
  });
  if (!shown)
    o.str("  no findings\n");
  o.str("  counters:");
  CounterRow rows[40];
  int n = counterRows(rows, gSnapshot);
  for (int i = 0; i < n; ++i) {
    o.put(' ');
    o.str(rows[i].name);
    o.put('=');
    o.i64(rows[i].value);
  }
  o.put('\n');
  if (config().timing) {
    o.str("latency: one call in ");
    o.u64(config().timingSample);
    o.str(" timed per thread (AFUNIX_PROBE_TIMING_SAMPLE); sendmsg() with control data always\n");
  }
  for (int h = 0; h < kHistCount; ++h) {
    if (!gSnapshot.calls[h] || o.remaining() < 4096)
      continue;
    o.str("\n");
    o.str(histCallName(h));
    o.str(" (");
    o.str(histClassName(h));
    o.str("): ");
    o.u64(gSnapshot.calls[h]);
    o.str(" calls\n");
    if (config().timing)
      textHistogram(o, gSnapshot.buckets[h]);
  }
  return o.len;
}

int writeFileSafely(ReportFile &file, const char *data, std::size_t length) {
  long fd;
  if (!file.created) {
    // Never follow a symlink and never open a file someone else put there.
    fd = sysOpen(file.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
      return errno;
    file.created = true;
  } else {
    // Rewrite only the file this process created: same inode, not a symlink.
    fd = sysOpen(file.path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0);
    if (fd < 0)
      return errno;
    struct stat st;
    if (fstat(static_cast<int>(fd), &st) != 0 || st.st_dev != file.dev || st.st_ino != file.ino ||
        static_cast<uint64_t>(st.st_size) != file.size ||
        st.st_mtim.tv_sec * 1000000000ll + st.st_mtim.tv_nsec != file.mtimeNs) {
      sysClose(static_cast<int>(fd));
      return EEXIST;
    }
    syscall(SYS_ftruncate, fd, 0);
  }
  std::size_t done = 0;
  while (done < length) {
    long n = syscall(SYS_pwrite64, fd, data + done, length - done, static_cast<long>(done));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      int err = n < 0 ? errno : EIO;
      sysClose(static_cast<int>(fd));
      return err;
    }
    done += static_cast<std::size_t>(n);
  }
  struct stat st;
  if (fstat(static_cast<int>(fd), &st) == 0) {
    file.dev = st.st_dev;
    file.ino = st.st_ino;
    file.size = static_cast<uint64_t>(st.st_size);
    file.mtimeNs = st.st_mtim.tv_sec * 1000000000ll + st.st_mtim.tv_nsec;
  }
  sysClose(static_cast<int>(fd));
  return 0;
}

void resetReportFiles() {
  gJsonFile = ReportFile{};
  gTextFile = ReportFile{};
}

static void reportPath(ReportFile &file, const char *extension) {
  if (file.created)
    return;
  Out o{file.path, sizeof file.path};
  o.str(config().dir);
  o.str("/afunix-probe.");
  o.u64(static_cast<uint64_t>(gProcess.pid));
  o.put('.');
  o.u64(gProcess.startNs);
  o.str(extension);
  file.path[o.len] = 0;
}

int writeReport(const char *reason) {
  int savedErrno = errno;
  // A vfork()ed child (or a raw clone()) shares our memory but is another process: it must not
  // write, and must not touch the parent's state.
  if (static_cast<int>(syscall(SYS_getpid)) != gProcess.pid)
    return 0;
  bool expected = false;
  // Exit waits a little for a periodic report in flight; everyone else just skips.
  bool final = reason[0] != 'i';
  for (int spin = 0; !gWriting.compare_exchange_strong(expected, true, std::memory_order_acquire); ++spin) {
    expected = false;
    if (!final || spin > 1000) {
      errno = savedErrno;
      return EBUSY;
    }
    sched_yield();
  }
  int result = 0;
  if (!config().dirUsable) {
    if (final) {
      std::size_t n = renderText(gBuffer, sizeof gBuffer, reason);
      sysWrite(2, gBuffer, n);
    }
  } else {
    if (config().reportJson) {
      reportPath(gJsonFile, ".json");
      std::size_t n = renderJson(gBuffer, sizeof gBuffer, reason);
      result = writeFileSafely(gJsonFile, gBuffer, n);
    }
    if (config().reportText && !result) {
      reportPath(gTextFile, ".txt");
      std::size_t n = renderText(gBuffer, sizeof gBuffer, reason);
      result = writeFileSafely(gTextFile, gBuffer, n);
    }
    if (result) {
      counters().reportErrors.fetch_add(1, std::memory_order_relaxed);
      if (counters().reportErrors.load(std::memory_order_relaxed) == 1) {
        Out o{gBuffer, 1024};
        o.str("afunix-probe: cannot write report ");
        o.str(config().reportJson ? gJsonFile.path : gTextFile.path);
        o.str(result == EEXIST ? ": a file is already there (not overwritten)\n" : ": write failed\n");
        sysWrite(2, gBuffer, o.len);
      }
    } else
      counters().reportsWritten.fetch_add(1, std::memory_order_relaxed);
  }
  gWriting.store(false, std::memory_order_release);
  errno = savedErrno;
  return result;
}

void resetPeriodic(uint64_t now) {
  gNextReport.store(config().intervalNs ? now + config().intervalNs : 0, std::memory_order_relaxed);
}

void maybePeriodicReport(uint64_t now) {
  uint64_t due = gNextReport.load(std::memory_order_relaxed);
  if (!due || now < due)
    return;
  // One caller wins the deadline; it writes the report inline, after its real call returned.
  if (gNextReport.compare_exchange_strong(due, now + config().intervalNs, std::memory_order_relaxed))
    writeReport("interval");
}

void resetAfterFork() {
  refreshProcessInfo(false);
  stats().resetAfterFork();
  findings().reset();
  counters().reset();
  resetReportFiles();
  gWriting.store(false, std::memory_order_relaxed);
  resetPeriodic(nowNs());
}

} // namespace afunix::probe
