// Reports: rendered into a static buffer with no allocation and written with raw syscalls, so they
// can be produced from a destructor, from _exit(), before exec, from any intercepted call
// (periodic reports) or in a forked child.
#include "ProbeCore.h"

#include "JsonEscape.h"

#include "afunix/RuleCatalog.h"

#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstring>
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

// A write past the program's file size limit (ulimit -f, RLIMIT_FSIZE) fails with EFBIG and
// sends SIGXFSZ to the writing thread, whose default action kills the program: a report must
// never do that to a program that would have exited 0. While a report is written, SIGXFSZ is
// blocked in this thread only (the program's disposition and other threads are untouched); a
// SIGXFSZ our write raised is then taken back before the mask is restored, so the write just
// fails with EFBIG (reported as any write error). Raw syscalls: async-signal-safe, no libc state.
class HoldFileSizeSignal {
public:
  HoldFileSizeSignal() {
    std::uint64_t block = bit();
    syscall(SYS_rt_sigprocmask, SIG_BLOCK, &block, &saved_, sizeof block);
    std::uint64_t pending = 0;
    syscall(SYS_rt_sigpending, &pending, sizeof pending);
    pendingBefore_ = pending & bit(); // the program's own, raised before: left as it is
  }
  ~HoldFileSizeSignal() {
    int savedErrno = errno;
    std::uint64_t pending = 0;
    syscall(SYS_rt_sigpending, &pending, sizeof pending);
    if ((pending & bit()) && !pendingBefore_) {
      std::uint64_t wait = bit();
      struct timespec now = {0, 0};
      syscall(SYS_rt_sigtimedwait, &wait, nullptr, &now, sizeof wait);
    }
    syscall(SYS_rt_sigprocmask, SIG_SETMASK, &saved_, nullptr, sizeof saved_);
    errno = savedErrno;
  }
  HoldFileSizeSignal(const HoldFileSizeSignal &) = delete;
  HoldFileSizeSignal &operator=(const HoldFileSizeSignal &) = delete;

private:
  static std::uint64_t bit() { return std::uint64_t(1) << (SIGXFSZ - 1); }
  std::uint64_t saved_ = 0;
  bool pendingBefore_ = false;
};

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
  void jsonBytes(const char *s, std::size_t n) {
    escapeJson(s, n, [this](char c) { put(c); });
  }
  void json(const char *s) {
    std::size_t n = 0;
    while (s && s[n])
      ++n;
    jsonBytes(s, n);
  }
  void hex(uint64_t v) {
    const char *digits = "0123456789abcdef";
    str("0x");
    char tmp[16];
    int n = 0;
    do
      tmp[n++] = digits[v & 15];
    while (v >>= 4);
    while (n)
      put(tmp[--n]);
  }
  void jsonHex(uint64_t v) {
    put('"');
    hex(v);
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

int fdOf(const FindingView &f) { return f.detail ? f.detail->socket.fd : -1; }

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
      fdText(f.evidence[3]);
    else if (f.rule == Rule::PasscredTooLate && f.evidence[3]) // the listener, not the accepted fd
      fdText(f.evidence[3] - 1);
    else if (fdOf(f) >= 0)
      fdText(static_cast<uint64_t>(fdOf(f)));
    else
      o.str("an AF_UNIX socket");
  } else if (is("peer"))
    fdText(f.evidence[4]);
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
    if (f.evidence[0]) {
      o.str("were sent with up to ");
      o.u64(f.evidence[0]);
      o.str(" fds in flight");
    } else if (f.evidence[2]) {
      o.str("were refused with ETOOMANYREFS ");
      o.u64(f.evidence[2]);
      o.str(" time(s)");
    } else {
      o.str("waited up to ");
      o.u64(f.evidence[4] / 1000);
      o.str(" us in sendmsg()");
    }
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
    o.i64(fdOf(f));
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
  o.jsonBytes(scratch, m.len);
}

// One evidence value, as its descriptor says.
void evidenceValue(Out &o, const EvidenceField &field, const FindingView &f, bool json) {
  uint64_t value = 0;
  switch (field.source) {
  case EvidenceSource::Slot: value = f.evidence[field.slot]; break;
  case EvidenceSource::Constant: value = field.constant; break;
  case EvidenceSource::RlimitNofile: value = rlimitNofile(); break;
  case EvidenceSource::SlowThresholdNs: value = config().slowNs; break;
  }
  const char *text = nullptr;
  switch (field.format) {
  case EvidenceFormat::Count:
  case EvidenceFormat::Nanoseconds: break;
  case EvidenceFormat::SocketType: text = typeName(value); break;
  case EvidenceFormat::Family: text = familyName(value); break;
  case EvidenceFormat::Option: text = optionName(value); break;
  case EvidenceFormat::Errno: text = errnoName(value); break;
  case EvidenceFormat::Where: text = f.variant == variant::kFixAtListen ? "listen" : "recvmsg"; break;
  }
  if (!text)
    o.u64(value);
  else if (json)
    o.json(text);
  else
    o.str(text);
}

void evidence(Out &o, const FindingView &f, bool json) {
  if (json)
    o.put('{');
  bool first = true;
  for (const EvidenceField &field : runtimeRule(f.rule).evidence) {
    if (!field.name)
      break;
    if (json) {
      if (!first)
        o.put(',');
      o.key(field.name);
    } else {
      o.put(' ');
      o.str(field.name);
      o.put('=');
    }
    first = false;
    evidenceValue(o, field, f, json);
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

// afunix-creds-without-passcred is a finding only with evidence that the program wants
// credentials: someone in this process sent it explicit SCM_CREDENTIALS, and it did not ask for
// SO_PEERCRED on that socket instead. Otherwise it stays a candidate: `afunix-probe run` promotes
// it when another process's report says it sent credentials to this one.
bool isCandidate(const FindingView &f) {
  if (f.rule != Rule::CredsWithoutPasscred)
    return false;
  return f.evidence[2] || !credentialsSentToPid(gProcess.pid);
}

const char *socketTypeName(uint8_t type) { return typeName(type); }
const char *roleName(FdRole role) {
  switch (role) {
  case FdRole::Created: return "created";
  case FdRole::Accepted: return "accepted";
  case FdRole::PairEnd: return "socketpair";
  case FdRole::Learned: return "inherited";
  }
  return "created";
}

// A code address as {"pc","module","offset"}: offset is the module's own virtual address (what
// llvm-symbolizer and addr2line take), module an index into the report's "modules".
void jsonAddress(Out &o, uintptr_t pc) {
  int m = moduleOf(pc);
  const Module *module = moduleAt(m);
  o.str("{\"pc\":");
  o.jsonHex(pc);
  o.str(",\"module\":");
  o.i64(module ? m : -1);
  o.str(",\"offset\":");
  o.jsonHex(module ? pc - module->bias : pc);
  o.put('}');
}

void jsonSocketAddress(Out &o, const char *bytes, uint8_t length) {
  o.put('{');
  o.key("kind");
  if (!length)
    o.str("\"unnamed\"}");
  else if (!bytes[0]) {
    o.str("\"abstract\",\"name\":");
    o.jsonBytes(bytes + 1, length - 1u);
    o.put('}');
  } else {
    o.str("\"path\",\"name\":");
    o.jsonBytes(bytes, length);
    o.put('}');
  }
}

void jsonSocket(Out &o, const SocketIdentity &s) {
  o.str("{\"fd\":");
  o.i64(s.fd);
  o.str(",\"known\":");
  o.str(s.known ? "true" : "false");
  if (s.known) {
    o.str(",\"family\":");
    o.json(familyName(s.family));
    o.str(",\"type\":");
    o.json(socketTypeName(s.type));
    o.str(",\"role\":");
    o.json(roleName(s.role));
    o.str(",\"inode\":");
    o.u64(s.inode);
    o.str(",\"passcred\":");
    o.str(s.passcred ? "true" : "false");
    o.str(",\"listening\":");
    o.str(s.listening ? "true" : "false");
    if (s.family == AF_UNIX) {
      o.str(",\"local\":");
      jsonSocketAddress(o, s.local, s.localLength);
      o.str(",\"peer\":");
      jsonSocketAddress(o, s.peer, s.peerLength);
    }
    if (s.pairFd >= 0) {
      o.str(",\"pair_fd\":");
      o.i64(s.pairFd);
    }
    if (s.peerKnown) {
      o.str(",\"peer_pid\":");
      o.i64(s.peerPid);
      o.str(",\"peer_uid\":");
      o.u64(s.peerUid);
      o.str(",\"peer_gid\":");
      o.u64(s.peerGid);
    }
    if (s.origin) {
      o.str(",\"origin\":{\"how\":");
      o.json(s.originKind == Origin::Received ? "received" : "created");
      o.str(",\"at\":");
      jsonAddress(o, s.origin);
      o.put('}');
    }
  }
  o.put('}');
}

void jsonFinding(Out &o, const FindingView &f) {
  o.str("{\"rule\":");
  o.json(ruleId(f.rule));
  o.str(",\"variant\":");
  o.json(variantName(f));
  o.str(",\"fd\":");
  o.i64(fdOf(f));
  o.str(",\"count\":");
  o.u64(f.count);
  o.str(",\"message\":");
  jsonMessage(o, f);
  o.str(",\"evidence\":");
  evidence(o, f, true);
  o.str(",\"site\":");
  jsonAddress(o, f.site);
  o.str(",\"stack\":[");
  if (f.detail)
    for (int i = 0; i < f.detail->depth; ++i) {
      if (i)
        o.put(',');
      jsonAddress(o, f.detail->stack[i]);
    }
  o.str("],\"socket\":");
  if (f.detail)
    jsonSocket(o, f.detail->socket);
  else
    o.str("null");
  o.put('}');
}

void jsonModules(Out &o) {
  o.put('[');
  bool first = true;
  for (int i = 0; i < kModules; ++i) {
    const Module *m = moduleAt(i);
    if (!m)
      continue;
    if (!first)
      o.put(',');
    first = false;
    o.str("{\"index\":");
    o.u64(static_cast<uint64_t>(i));
    o.str(",\"path\":");
    o.json(m->path);
    o.str(",\"build_id\":\"");
    const char *digits = "0123456789abcdef";
    for (int b = 0; b < m->buildIdLength; ++b) {
      o.put(digits[m->buildId[b] >> 4]);
      o.put(digits[m->buildId[b] & 15]);
    }
    o.str("\",\"start\":");
    o.jsonHex(m->start);
    o.str(",\"bias\":");
    o.jsonHex(m->bias);
    o.put('}');
  }
  o.put(']');
}

// "exe+0x1234" for the text report: the process cannot symbolise itself (no allocation, no
// DWARF); `afunix-probe run` does.
void textAddress(Out &o, uintptr_t pc) {
  int m = moduleOf(pc);
  if (const Module *module = moduleAt(m)) {
    const char *base = module->path;
    for (const char *p = module->path; *p; ++p)
      if (*p == '/')
        base = p + 1;
    o.str(base);
    o.put('+');
    o.hex(pc - module->bias);
  } else
    o.hex(pc);
}

void textSocketAddress(Out &o, const char *bytes, uint8_t length) {
  if (!length) {
    o.str("unnamed");
    return;
  }
  if (!bytes[0])
    o.put('@');
  for (uint8_t i = bytes[0] ? 0 : 1; i < length; ++i) {
    unsigned char c = static_cast<unsigned char>(bytes[i]);
    if (c < 0x20 || c == 0x7f)
      o.put('?'); // never a raw control byte (terminal escapes) in a text report
    else
      o.put(static_cast<char>(c));
  }
}

void textSocket(Out &o, const SocketIdentity &s) {
  o.str("fd ");
  o.i64(s.fd);
  if (!s.known) {
    o.str(" (closed before it could be described)");
    return;
  }
  o.str(", ");
  o.str(familyName(s.family));
  o.put(' ');
  o.str(socketTypeName(s.type));
  o.put(' ');
  o.str(roleName(s.role));
  if (s.pairFd >= 0) {
    o.str(" (peer fd ");
    o.i64(s.pairFd);
    o.put(')');
  }
  if (s.family == AF_UNIX) {
    o.str(", local ");
    textSocketAddress(o, s.local, s.localLength);
    o.str(", peer ");
    textSocketAddress(o, s.peer, s.peerLength);
  }
  if (s.peerKnown) {
    o.str(", peer pid ");
    o.i64(s.peerPid);
    o.str(" uid ");
    o.u64(s.peerUid);
  }
  if (s.origin) {
    o.str(s.originKind == Origin::Received ? ", received at " : ", created at ");
    textAddress(o, s.origin);
  }
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
  rows[n++] = {"creds_sent_explicit", get(c.credsSentExplicit)};
  rows[n++] = {"etoomanyrefs", get(c.etoomanyrefs)};
  rows[n++] = {"einval_too_many_fds", get(c.einvalTooManyFds)};
  rows[n++] = {"slow_fd_sends", get(c.slowFdSends)};
  rows[n++] = {"garbage_sockets", get(c.garbageSockets)};
  rows[n++] = {"graph_overflow", get(c.graphOverflow)};
  rows[n++] = {"threads", static_cast<int64_t>(snap.threadsSeen)};
  rows[n++] = {"threads_overflow", static_cast<int64_t>(snap.threadsOverflow)};
  rows[n++] = {"untracked_fd_calls", get(fdTable().untracked)};
  rows[n++] = {"findings_dropped", get(findings().dropped)};
  rows[n++] = {"stacks_captured", get(c.stacksCaptured)};
  rows[n++] = {"capture_ns", get(c.captureNs)};
  rows[n++] = {"reports_written", get(c.reportsWritten)};
  rows[n++] = {"report_errors", get(c.reportErrors)};
  return n;
}

constinit StatsSnapshot gSnapshot; // too big for a small thread stack
constinit InFlightTimeline gTimelineSnapshot;
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
  // The stderr this image started with: the exit report goes there only if fd 2 is still it.
  struct stat st;
  gProcess.stderrKnown = syscall(SYS_fstat, 2, &st) == 0;
  gProcess.stderrDev = gProcess.stderrKnown ? st.st_dev : 0;
  gProcess.stderrIno = gProcess.stderrKnown ? st.st_ino : 0;
}

std::size_t renderJson(char *buf, std::size_t size, const char *reason) {
  Out o{buf, size};
  stats().snapshot(gSnapshot);
  o.str("{\"version\":2,\"tool\":\"afunix-probe\",\"reason\":");
  o.json(reason);
  o.str(",\"process\":{\"pid\":");
  o.u64(static_cast<uint64_t>(gProcess.pid));
  o.str(",\"ppid\":");
  o.u64(static_cast<uint64_t>(gProcess.ppid));
  o.str(",\"uid\":");
  o.u64(static_cast<uint64_t>(syscall(SYS_getuid)));
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
  o.str(",\"stacks\":");
  o.str(config().stacks ? "true" : "false");
  o.str(",\"slow_ns\":");
  o.u64(config().slowNs);
  o.str(",\"interval_s\":");
  o.u64(config().intervalNs / 1000000000ull);
  o.put('}');
  bool first = true, truncated = false;
  enum class Section { Findings, Candidates, Fixes };
  auto emit = [&](Section section) {
    first = true;
    findings().forEach([&](const FindingView &f) {
      Section mine = f.rule == Rule::FixPasscred ? Section::Fixes : isCandidate(f) ? Section::Candidates : Section::Findings;
      if (mine != section)
        return;
      if (o.remaining() < 16384) {
        truncated = true;
        return;
      }
      if (!first)
        o.put(',');
      first = false;
      jsonFinding(o, f);
    });
  };
  o.str(",\"findings\":[");
  emit(Section::Findings);
  o.str("],\"candidates\":[");
  emit(Section::Candidates);
  o.str("],\"fixes\":[");
  emit(Section::Fixes);
  o.str("],\"sites_recorded\":");
  o.str(config().sites ? "true" : "false");
  o.str(",\"sites\":[");
  first = true;
  callSites().forEach([&](const FindingView &f) {
    if (o.remaining() < 16384) {
      truncated = true;
      return;
    }
    if (!first)
      o.put(',');
    first = false;
    o.str("{\"call\":");
    o.json(siteCallName(f.variant));
    o.str(",\"count\":");
    o.u64(f.count);
    o.str(",\"site\":");
    jsonAddress(o, f.site);
    o.str(",\"stack\":[");
    if (f.detail)
      for (int i = 0; i < f.detail->depth; ++i) {
        if (i)
          o.put(',');
        jsonAddress(o, f.detail->stack[i]);
      }
    o.str("]}");
  });
  o.str("],\"creds_sent_to\":[");
  int32_t pids[kCredsPeers];
  int n = credentialsSentTo(pids, kCredsPeers);
  for (int i = 0; i < n; ++i) {
    if (i)
      o.put(',');
    o.i64(pids[i]);
  }
  o.str("],\"modules\":");
  jsonModules(o);
  o.str(",\"counters\":{");
  CounterRow rows[48];
  n = counterRows(rows, gSnapshot);
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
  o.str("],\"in_flight_timeline\":{\"period_ns\":");
  inFlightTimeline(gTimelineSnapshot);
  o.u64(gTimelineSnapshot.periodNs);
  o.str(",\"most\":[");
  for (int i = 0; i < gTimelineSnapshot.slots && o.remaining() > 64; ++i) {
    if (i)
      o.put(',');
    o.i64(gTimelineSnapshot.most[i]);
  }
  o.str("]}");
  o.str(",\"truncated\":");
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
  int shown = 0, candidates = 0;
  // Findings first: they are what a person reads this for.
  findings().forEach([&](const FindingView &f) {
    if (isCandidate(f)) {
      ++candidates;
      return;
    }
    if (o.remaining() < 4096)
      return;
    if (!shown++) {
      o.str("afunix-probe: pid ");
      o.u64(static_cast<uint64_t>(gProcess.pid));
      o.put(' ');
      o.str(gProcess.exe);
      o.put('\n');
    }
    o.str(f.rule == Rule::FixPasscred ? "fix: " : "finding: ");
    o.str(ruleId(f.rule));
    o.str(" [");
    o.str(variantName(f));
    o.str("] ");
    o.u64(f.count);
    o.str("x at ");
    textAddress(o, f.site);
    o.str("\n  ");
    message(o, f);
    if (f.detail) {
      if (f.detail->depth > 1) {
        o.str("\n  stack:");
        for (int i = 0; i < f.detail->depth; ++i) {
          o.put(' ');
          textAddress(o, f.detail->stack[i]);
        }
      }
      o.str("\n  socket: ");
      textSocket(o, f.detail->socket);
    }
    o.str("\n  evidence:");
    evidence(o, f, false);
    o.put('\n');
  });
  o.str("afunix-probe report (");
  o.str(reason);
  o.str("): pid ");
  o.u64(static_cast<uint64_t>(gProcess.pid));
  o.str(" ppid ");
  o.u64(static_cast<uint64_t>(gProcess.ppid));
  o.put(' ');
  o.str(gProcess.exe);
  o.put('\n');
  if (!shown)
    o.str("  no findings\n");
  else
    o.str("  addresses are module+offset: `afunix-probe run` prints them as file:line\n");
  if (candidates) {
    o.str("  ");
    o.u64(static_cast<uint64_t>(candidates));
    o.str(" recvmsg() site(s) with a control buffer on a socket without SO_PASSCRED, not reported: "
          "nothing shows this program expects SCM_CREDENTIALS there\n");
  }
  o.str("  counters:");
  CounterRow rows[48];
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
    fd = sysOpen(file.path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0);
    if (fd < 0)
      return errno;
    struct stat st;
    if (fstat(static_cast<int>(fd), &st) != 0 || st.st_dev != file.dev || st.st_ino != file.ino ||
        static_cast<uint64_t>(st.st_size) != file.size ||
        st.st_mtim.tv_sec * 1000000000ll + st.st_mtim.tv_nsec != file.mtimeNs) {
      sysClose(static_cast<int>(fd));
      return EEXIST;
    }
    syscall(SYS_ftruncate, fd, 0L); // off_t: a long, never an int, through the variadic syscall()
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

namespace {

// <dir>/afunix-probe.<pid>.<start-ns>[.<n>]<extension>
void reportPath(ReportFile &file, const char *dir, const char *extension, unsigned attempt) {
  Out o{file.path, sizeof file.path};
  o.str(dir);
  o.str("/afunix-probe.");
  o.u64(static_cast<uint64_t>(gProcess.pid));
  o.put('.');
  o.u64(gProcess.startNs);
  if (attempt) {
    o.put('.');
    o.u64(attempt);
  }
  o.str(extension);
  file.path[o.len] = 0;
}

// Writes `data` to the report file of this process in `dir`. A process that dropped privileges
// can no longer rewrite the file it created as root: it starts a new one next to it (the
// directory `afunix-probe run` makes is sticky and writable for that), and the reader keeps the
// most final report of each process.
int writeReportFile(ReportFile &file, const char *dir, const char *extension, const char *data, std::size_t n) {
  if (!file.created)
    reportPath(file, dir, extension, file.attempt);
  int result = writeFileSafely(file, data, n);
  while ((result == EACCES || result == EPERM) && file.created && file.attempt < 8) {
    ++file.attempt;
    file.created = false;
    reportPath(file, dir, extension, file.attempt);
    result = writeFileSafely(file, data, n);
  }
  return result;
}

// Whether fd 2 is still the stderr this image started with (a program that closed it and opened
// a data file as fd 2 must not get the report appended to its data).
bool stderrIsOriginal() {
  struct stat st;
  return gProcess.stderrKnown && syscall(SYS_fstat, 2, &st) == 0 && st.st_dev == gProcess.stderrDev &&
         st.st_ino == gProcess.stderrIno;
}

// The final text report when there is no report directory (or it failed): stderr if it is still
// the original one, otherwise a new private file in the fallback directory ($TMPDIR or /tmp).
void writeFallbackText(const char *reason, const char *why) {
  std::size_t n = renderText(gBuffer, sizeof gBuffer, reason);
  if (stderrIsOriginal()) {
    if (why)
      sysWrite(2, why, __builtin_strlen(why));
    for (std::size_t done = 0; done < n;) {
      long w = sysWrite(2, gBuffer + done, n - done);
      if (w < 0 && errno == EINTR)
        continue;
      if (w <= 0)
        break;
      done += static_cast<std::size_t>(w);
    }
    return;
  }
  ReportFile file;
  int result = writeReportFile(file, config().fallbackDir, ".txt", gBuffer, n);
  if (result)
    counters().reportErrors.fetch_add(1, std::memory_order_relaxed);
}

} // namespace

int writeReport(const char *reason) {
  int savedErrno = errno;
  // A vfork()ed child (or a raw clone()) shares our memory but is another process: it must not
  // write, and must not touch the parent's state.
  if (static_cast<int>(syscall(SYS_getpid)) != gProcess.pid)
    return 0;
  if (reason[0] != 'r') {
    // In flight as the kernel counts it, and garbage left by closes whose walk another thread had.
    graphSettle();
    graphWalk();
  }
  bool expected = false;
  // Exit waits a little for a periodic report in flight; everyone else just skips.
  bool final = reason[0] != 'i' && reason[0] != 'r'; // not "interval", not "running"
  for (int spin = 0; !gWriting.compare_exchange_strong(expected, true, std::memory_order_acquire); ++spin) {
    expected = false;
    if (!final || spin > 1000) {
      errno = savedErrno;
      return EBUSY;
    }
    sched_yield();
  }
  int result = 0;
  HoldFileSizeSignal hold;
  if (!config().dirUsable) {
    if (final)
      writeFallbackText(reason, nullptr);
  } else {
    if (config().reportJson) {
      std::size_t n = renderJson(gBuffer, sizeof gBuffer, reason);
      result = writeReportFile(gJsonFile, config().dir, ".json", gBuffer, n);
    }
    if (config().reportText && !result) {
      std::size_t n = renderText(gBuffer, sizeof gBuffer, reason);
      result = writeReportFile(gTextFile, config().dir, ".txt", gBuffer, n);
    }
    if (result) {
      counters().reportErrors.fetch_add(1, std::memory_order_relaxed);
      char line[1024];
      Out o{line, sizeof line};
      o.str("afunix-probe: cannot write report ");
      o.str(config().reportJson ? gJsonFile.path : gTextFile.path);
      o.str(result == EEXIST ? ": a file is already there (not overwritten)" : ": ");
      if (result != EEXIST)
        o.str(strerrorname_np(result) ? strerrorname_np(result) : "write failed");
      o.str(final ? "; the report follows\n" : "\n");
      line[o.len] = 0;
      // Nothing is lost: a final report that cannot go to the directory goes where a report
      // without a directory goes (stderr, or a private file when stderr was replaced).
      if (final) {
        writeFallbackText(reason, line);
      } else if (reason[0] == 'r') {
        // The directory cannot take this process's reports (a read-only or pseudo file system
        // such as /proc, full, not writable): say so now, and report at exit as without one.
        o.len -= 1;
        o.str("; reporting on stderr at exit instead\n");
        if (stderrIsOriginal())
          sysWrite(2, line, o.len);
        config().dirUsable = false;
      } else if (counters().reportErrors.load(std::memory_order_relaxed) == 1 && stderrIsOriginal()) {
        sysWrite(2, line, o.len);
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
  graphReset();
  stats().resetAfterFork();
  findings().reset();
  callSites().reset();
  counters().reset();
  resetReportFiles();
  gWriting.store(false, std::memory_order_relaxed);
  resetPeriodic(nowNs());
}

} // namespace afunix::probe
