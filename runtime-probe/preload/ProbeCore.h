// The probe's core: what an intercepted call turns into (fd table, per-thread statistics,
// findings) and the report writer. Everything here is allocation-free and lock-free so that it can
// run inside any call of the watched program, including signal handlers and forked children.
// The interceptors (Interceptors.cpp) are the only users in the preloaded library; the unit tests
// link this core directly, so the sanitizers see it even though a sanitized .so cannot be
// preloaded into an arbitrary program.
#pragma once

#include "RuntimeRules.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <sys/socket.h>

namespace afunix::probe {

// ---------------------------------------------------------------------------------------------
// Configuration, read once from the environment at load time (Config.cpp).
struct Config {
  bool timing = true;             // AFUNIX_PROBE_TIMING=0 turns latency histograms off
  // AFUNIX_PROBE_TIMING_SAMPLE=N (a power of two): time one call in N, drawn at random. Reading the
  // clock twice costs more than the rest of the probe on many VMs; calls are still all counted,
  // and sendmsg() with control data (fds, credentials) is always timed.
  uint32_t timingSample = 16;
  bool fixPasscred = false;       // AFUNIX_PROBE_FIX=passcred
  bool reportText = false;        // AFUNIX_PROBE_FORMAT=text|json|both (default json)
  bool reportJson = true;
  uint64_t slowNs = 100000;       // AFUNIX_PROBE_SLOW_NS
  uint64_t intervalNs = 0;        // AFUNIX_PROBE_INTERVAL (seconds), 0 = only at exit/exec
  bool stacks = true;             // AFUNIX_PROBE_STACKS=0: call sites only, no stack unwinding
  // AFUNIX_PROBE_SITES=1: also record where the program made its socket calls (with a stack, the
  // first time at each site), so that a static finding the run never reached can be told from one
  // it reached without the problem showing. Off by default: it costs a table lookup per call.
  bool sites = false;
  char dir[512] = {};             // AFUNIX_PROBE_DIR; empty = text report on stderr at exit
  bool dirUsable = false;
  // Where the exit report goes when there is no usable directory and fd 2 is no longer the
  // stderr the program started with: $TMPDIR (absolute) or /tmp.
  char fallbackDir[256] = "/tmp";
};
// Parses `getenvFn`'s answers into `config`; every problem is one line in `messages` (for stderr),
// and the value falls back to its default. Returns false if there was any problem.
using GetEnvFn = const char *(*)(const char *);
bool parseConfig(GetEnvFn getenvFn, Config &config, char *messages, std::size_t messagesSize);

Config &config();

// ---------------------------------------------------------------------------------------------
// Fd table: one atomic 64-bit word per fd. The generation lives in the word, so a CAS that raced
// with a close()/dup2() fails instead of writing stale state onto a reused fd.
constexpr int kFdTableSize = 1 << 16;

enum class FdKind : uint8_t { Unknown = 0, NotSocket = 1, Socket = 2 };
enum class FdRole : uint8_t { Created = 0, Accepted = 1, PairEnd = 2, Learned = 3 };

struct FdState {
  FdKind kind = FdKind::Unknown;
  uint8_t family = 0;   // AF_* (< 64)
  uint8_t type = 0;     // SOCK_* without flags
  bool passcred = false;
  bool listening = false;
  bool bound = false;
  FdRole role = FdRole::Created;
  bool hasPeer = false;
  uint16_t peerFd = 0;
  uint8_t peerGen = 0;  // low bits of the peer slot's generation when the pairing was recorded
  uint16_t gen = 0;
  bool passcredLate = false; // SO_PASSCRED enabled after listen()/accept()/bind() or on a learned fd
  bool credsSeen = false;    // an SCM_CREDENTIALS cmsg was received on it
  bool rightsSeen = false;   // an SCM_RIGHTS cmsg was received on it
  bool listenerLate = false; // accepted from a listener whose SO_PASSCRED came after listen()
  bool peercredUsed = false; // the program asked the kernel for the peer (SO_PEERCRED/SO_PEERPIDFD)
  bool credsSent = false;    // an explicit SCM_CREDENTIALS was sent over it (peer pid noted once)

  bool isUnix() const { return kind == FdKind::Socket && family == AF_UNIX; }
  uint64_t encode() const;
  static FdState decode(uint64_t word);
};

class FdTable {
public:
  // Current state, learning it from the kernel (getsockopt) the first time an fd is seen.
  FdState lookup(int fd);
  // Current state without learning (Unknown for fds never seen).
  FdState peek(int fd) const;
  // Replaces the state of `fd`, bumping its generation: a new object now lives at this number.
  // Returns the new generation.
  uint16_t install(int fd, FdState state);
  // Forgets `fd` (close): bumps the generation, kind becomes Unknown.
  void forget(int fd);
  // Applies `update` to the current state unless the generation moved meanwhile.
  template <typename F> void update(int fd, F update) {
    if (!inRange(fd))
      return;
    uint64_t old = slots_[fd].load(std::memory_order_acquire);
    for (;;) {
      FdState state = FdState::decode(old);
      update(state);
      if (slots_[fd].compare_exchange_weak(old, state.encode(), std::memory_order_acq_rel))
        return;
    }
  }
  static bool inRange(int fd) { return fd >= 0 && fd < kFdTableSize; }
  void resetAll();
  std::atomic<uint64_t> untracked{0}; // calls on fds beyond the table

private:
  std::atomic<uint64_t> slots_[kFdTableSize] = {};
};

FdTable &fdTable();

// ---------------------------------------------------------------------------------------------
// Statistics: per call kind and class, a call counter and a log2 latency histogram (bucket i holds
// latencies in [2^(i-1), 2^i) ns, like bcc's funclatency), kept in per-thread blocks.
enum class CallKind : uint8_t { Send, Recv, Write, Read, Accept, Connect };
enum class CallClass : uint8_t { NoFds, UnixFds, OtherFds, Creds };
constexpr int kHistCount = 12; // Send x 4 classes, Recv x 4 classes, Write, Read, Accept, Connect
constexpr int kBuckets = 32;
int histIndex(CallKind kind, CallClass cls);
const char *histCallName(int index);
const char *histClassName(int index);

struct alignas(64) ThreadBlock {
  std::atomic<uint32_t> inUse{0};
  std::atomic<uint32_t> calls[kHistCount] = {};
  std::atomic<uint32_t> buckets[kHistCount][kBuckets] = {};
};
constexpr int kThreadBlocks = 1024;

struct StatsSnapshot {
  uint64_t calls[kHistCount] = {};
  uint64_t buckets[kHistCount][kBuckets] = {};
  uint64_t threadsSeen = 0;
  uint64_t threadsOverflow = 0; // threads beyond kThreadBlocks (counted in the shared block)
};

class Stats {
public:
  // Counts one call (and its latency, when `ns` != UINT64_MAX) for the calling thread.
  void record(int hist, uint64_t ns);
  void snapshot(StatsSnapshot &out) const;
  // Thread exit: gives the thread's block back (its counts stay and are still reported).
  void releaseCurrentThread();
  // fork child: forget every thread but the caller, zero everything.
  void resetAfterFork();
  static int bucketOf(uint64_t ns);

private:
  ThreadBlock *claim();
  void fold(ThreadBlock &block);
  ThreadBlock blocks_[kThreadBlocks];
  std::atomic<uint64_t> retiredCalls_[kHistCount] = {};
  std::atomic<uint64_t> retiredBuckets_[kHistCount][kBuckets] = {};
  std::atomic<uint64_t> threadsSeen_{0};
  std::atomic<uint64_t> overflowThreads_{0};
  std::atomic<uint32_t> hint_{0};
};

Stats &stats();
// Called by the interceptor library once, to release blocks at thread exit (pthread key).
void installThreadExitHook();

// ---------------------------------------------------------------------------------------------
// Call sites (CallSite.cpp). A call site is the return address of the intercepted call: the
// instruction after the program's call. Stacks are captured only when a finding is first seen at a
// site, with libgcc's _Unwind_Backtrace (see CallSite.cpp for why it is safe here).
constexpr int kStackDepth = 8;
constexpr int kModules = 64;

struct Module {
  uintptr_t start = 0, end = 0; // mapped range
  uintptr_t bias = 0;           // load bias: file virtual address = pc - bias
  char path[512] = {};
  uint8_t buildId[32] = {};
  uint8_t buildIdLength = 0;
};
// The module containing `pc`, registered on first sight (lock-free); -1 when unknown.
int moduleOf(uintptr_t pc);
int moduleCount();
const Module *moduleAt(int index); // nullptr while another thread is still filling it in
// Frames of the current call, frames[0] = `site`; returns how many (>= 1 when site != 0).
int captureStack(uintptr_t site, uintptr_t *frames, int max);

// Where each socket came from: the call site of socket()/socketpair()/accept() (or of the
// recvmsg() that received it with SCM_RIGHTS), tied to the fd's generation.
enum class Origin : uint8_t { Unknown = 0, Created = 1, Received = 2 };
void recordOrigin(int fd, uint16_t gen, uintptr_t site, Origin origin);
uintptr_t originOf(int fd, uint16_t gen, Origin &origin);

// What a socket is, read from the kernel with raw syscalls when a finding is first seen on it.
struct SocketIdentity {
  int32_t fd = -1;
  bool known = false;      // false: no socket (fd -1) or the fd was already closed
  uint8_t family = 0, type = 0;
  FdRole role = FdRole::Created;
  bool passcred = false, listening = false;
  int32_t pairFd = -1;     // socketpair() peer, when known
  uint64_t inode = 0;
  bool peerKnown = false;  // SO_PEERCRED answered
  int32_t peerPid = 0;
  uint32_t peerUid = 0, peerGid = 0;
  uint8_t localLength = 0, peerLength = 0; // sun_path bytes; 0 = unnamed; abstract names start with NUL
  char local[108] = {}, peer[108] = {};
  uintptr_t origin = 0;    // call site that made (or received) it; 0 = before the probe or inherited
  Origin originKind = Origin::Unknown;
};
void captureSocketIdentity(int fd, SocketIdentity &out);

// ---------------------------------------------------------------------------------------------
// Findings: a fixed open-addressing table keyed by (rule, variant, call site). Repetitions at one
// site are one finding with a count; the first occurrence records the stack and the socket.
constexpr int kFindings = 512;

struct FindingDetail {
  uintptr_t stack[kStackDepth] = {};
  uint8_t depth = 0;
  SocketIdentity socket;
};

struct FindingView {
  Rule rule;
  uint8_t variant;
  uintptr_t site;
  uint64_t count;
  uint64_t evidence[kEvidence];
  const FindingDetail *detail; // nullptr while the first occurrence is still filling it in
};

class Findings {
public:
  // Counts one occurrence of `rule`/`variant` at call site `site` on socket `fd` (-1: none).
  // Returns the finding's evidence slots (nullptr if the table is full).
  std::atomic<uint64_t> *hit(Rule rule, uint8_t variant, uintptr_t site, int fd);
  // The same, but the first occurrence takes its stack and socket from `detail` (recorded at
  // another call: the send a cycle finding is about) instead of capturing them here.
  std::atomic<uint64_t> *hitWithDetail(Rule rule, uint8_t variant, uintptr_t site, const FindingDetail *detail);
  // The detail recorded for (rule, variant, site), or nullptr.
  const FindingDetail *detailOf(Rule rule, uint8_t variant, uintptr_t site) const;
  static void setMax(std::atomic<uint64_t> &field, uint64_t value);
  // Visits every finding; returns how many.
  template <typename F> int forEach(F visit) const {
    int n = 0;
    for (int i = 0; i < kFindings; ++i) {
      uint64_t key = keys_[i].load(std::memory_order_acquire);
      if (!key)
        continue;
      FindingView view{static_cast<Rule>((key & 0xff) - 1), static_cast<uint8_t>((key >> 8) & 0xff),
                       sites_[i].load(std::memory_order_relaxed), counts_[i].load(std::memory_order_relaxed),
                       {}, ready_[i].load(std::memory_order_acquire) ? &details_[i] : nullptr};
      for (int e = 0; e < kEvidence; ++e)
        view.evidence[e] = evidence_[i][e].load(std::memory_order_relaxed);
      visit(view);
      ++n;
    }
    return n;
  }
  // Lets `update` change the evidence of every finding (rare events only: it visits them all).
  template <typename F> void updateEach(F update) {
    for (int i = 0; i < kFindings; ++i) {
      uint64_t key = keys_[i].load(std::memory_order_acquire);
      if (!key)
        continue;
      FindingView view{static_cast<Rule>((key & 0xff) - 1), static_cast<uint8_t>((key >> 8) & 0xff),
                       sites_[i].load(std::memory_order_relaxed), counts_[i].load(std::memory_order_relaxed),
                       {}, ready_[i].load(std::memory_order_acquire) ? &details_[i] : nullptr};
      update(view, evidence_[i]);
    }
  }
  // Forked child: forget everything (touches only the small arrays, not the details).
  void reset();
  std::atomic<uint64_t> dropped{0};

private:
  std::atomic<uint64_t> *record(Rule rule, uint8_t variant, uintptr_t site, int fd, const FindingDetail *copy);
  std::atomic<uint64_t> keys_[kFindings] = {};
  std::atomic<uint64_t> counts_[kFindings] = {};
  std::atomic<uint64_t> evidence_[kFindings][kEvidence] = {};
  std::atomic<uintptr_t> sites_[kFindings] = {};
  std::atomic<uint8_t> ready_[kFindings] = {};
  FindingDetail details_[kFindings];
};

Findings &findings();
const char *ruleId(Rule rule);

// The socket calls a program made, when AFUNIX_PROBE_SITES=1 (a table of its own, so that they
// never crowd out findings). The variant is the call.
enum class SiteCall : uint8_t { Socket, Socketpair, Accept, Connect, Bind, Listen, Setsockopt, Getsockopt, Sendmsg, Recvmsg, Count };
const char *siteCallName(uint8_t call);
Findings &callSites();
void noteCallSite(SiteCall call, uintptr_t site, int fd);

// Evidence layout per rule: RuntimeRules.h (kRuntimeRules[].evidence).
//   creds-without-passcred: [0] socket type, [1] calls with MSG_CTRUNC, [2] 1 = SO_PEERCRED asked
//                           on the recorded socket later (the program authenticates that way)
//   passcred-too-late:      [0] pid, [1] uid, [2] gid (of the last pid-0 credentials)
//   passcred-wrong-family:  [0] option (SO_*), [1] family, [2] errno answered (0 = accepted)
//   fd-flood:               [0] fds in flight high-water at this site, [1] AF_UNIX fds sent,
//                           [2] ETOOMANYREFS, [3] slow fd-carrying sends, [4] slowest ns
//   fd-limit:               [0] most fds in one message, [1] EINVAL answers
//   fd-cycle:               [0] sockets in the component, [1] references in flight among them,
//                           [2] smallest inode, [3] fd sent, [4] fd it was sent over (the send
//                           that closed the cycle)
//   fix-passcred:           [0] setsockopt result errno (0 = enabled)

// Explicit SCM_CREDENTIALS sent by this process, by the peer pid of the socket they went over:
// evidence that a receiver expects credentials (afunix-creds-without-passcred).
constexpr int kCredsPeers = 32;
void noteCredentialsSentTo(int32_t peerPid);
int credentialsSentTo(int32_t *pids, int max);
bool credentialsSentToPid(int32_t pid);

// ---------------------------------------------------------------------------------------------
// Process-wide counters (rare events, atomics).
struct Counters {
  std::atomic<uint64_t> unixSockets{0};       // AF_UNIX sockets created/accepted/learned
  std::atomic<uint64_t> otherSockets{0};
  std::atomic<uint64_t> fdsSent{0};           // fds sent with SCM_RIGHTS
  std::atomic<uint64_t> unixFdsSent{0};
  std::atomic<uint64_t> fdsReceived{0};
  // Fds this process sent that the kernel still holds in flight: taken off when received, when
  // their receiver is released, or when SIOCOUTQ shows the peer took them (InFlight.cpp).
  std::atomic<int64_t> inFlight{0};
  std::atomic<int64_t> inFlightHighWater{0};
  std::atomic<uint64_t> credsReceived{0};
  std::atomic<uint64_t> credsPidZero{0};
  std::atomic<uint64_t> etoomanyrefs{0};
  std::atomic<uint64_t> einvalTooManyFds{0};
  std::atomic<uint64_t> slowFdSends{0};
  std::atomic<uint64_t> credsSentExplicit{0}; // sendmsg() with an explicit SCM_CREDENTIALS
  std::atomic<uint64_t> reportsWritten{0};
  std::atomic<uint64_t> reportErrors{0};
  std::atomic<uint64_t> stacksCaptured{0};    // first occurrences of a finding at a call site
  std::atomic<uint64_t> captureNs{0};         // time spent capturing their stacks and sockets
  std::atomic<uint64_t> garbageSockets{0};    // sockets found left in flight without an fd
  std::atomic<uint64_t> graphOverflow{0};     // sockets or edges the graph had no room for
  void reset();
};
Counters &counters();

// ---------------------------------------------------------------------------------------------
// Events: what interceptors report after the real call (Events.cpp). `err` is the errno of a
// failed call. None of them touches errno or allocates.
uint64_t nowNs();
// `site` is the call site (return address) of the intercepted call, for findings and origins.
void onSocketCreated(int fd, int family, int type, uintptr_t site = 0);
void onSocketPair(const int fds[2], int family, int type, uintptr_t site = 0);
void onAccepted(int listener, int fd, uintptr_t site = 0);
void onBind(int fd);
void onListen(int fd);
void onClose(int fd);
void onDup(int oldFd, int newFd);
void onSetsockopt(int fd, int level, int name, const void *value, socklen_t length, int result, int err,
                  uintptr_t site = 0);
// A successful getsockopt(): SO_PEERCRED / SO_PEERPIDFD mean the program authenticates its peer
// that way, not with SCM_CREDENTIALS.
void onGetsockopt(int fd, int level, int name);
// After sendmsg: what it carried. Control data is read directly only when the kernel has read
// and validated it (the call succeeded, or failed with ETOOMANYREFS after parsing it); otherwise
// it is copied with copyFromProcess and skipped when unreadable, as the kernel would refuse it.
struct SendInfo {
  CallClass cls = CallClass::NoFds;
  int fds = 0;
  int unixFds = 0;
  bool creds = false; // an explicit SCM_CREDENTIALS
};
SendInfo inspectSend(int fd, const struct msghdr *msg, bool kernelValidated);
void onSendmsg(int fd, const struct msghdr *msg, const SendInfo &info, long result, int err, uint64_t ns,
               uintptr_t site = 0);
// Before recvmsg: --fix passcred may enable SO_PASSCRED here (reads `msg` only through
// copyFromProcess: a bad pointer is the kernel's EFAULT to report, not the probe's crash).
void beforeRecvmsg(int fd, const struct msghdr *msg, uintptr_t site = 0);
// After recvmsg: `msg` is read only when the call succeeded (the kernel wrote it back).
CallClass onRecvmsg(int fd, const struct msghdr *msg, long result, int flags, uintptr_t site = 0);
void beforeListen(int fd, uintptr_t site = 0);

// Copies `length` bytes of this process's memory at `from` without ever faulting
// (process_vm_readv on ourselves: EFAULT instead of SIGSEGV). False when unreadable, or when the
// kernel refuses the call (seccomp): callers then leave the memory alone.
bool copyFromProcess(void *to, const void *from, std::size_t length);

// ---------------------------------------------------------------------------------------------
// Reports (Report.cpp). Fixed buffers, written with raw syscalls.
struct ProcessInfo {
  int pid = 0;
  int ppid = 0;
  uint64_t startNs = 0; // CLOCK_REALTIME at load (or fork), part of the file name
  char exe[512] = {};
  char argv0[256] = {};
  bool stderrKnown = false; // fd 2 when this image started: the exit report goes there only if
  uint64_t stderrDev = 0;   // fd 2 is still that file
  uint64_t stderrIno = 0;
};
ProcessInfo &processInfo();
void refreshProcessInfo(bool readNames);

// Renders the JSON or text report into `buf`; returns the length (truncated reports stay valid
// JSON: histograms are dropped first).
std::size_t renderJson(char *buf, std::size_t size, const char *reason);
std::size_t renderText(char *buf, std::size_t size, const char *reason);

// Writes the report files for this process (JSON and/or text) into the report directory; `reason`
// is "exit", "exec", "_exit", "interval", or "running" (written when the image starts or forks, so
// that a process that never writes its final report is known to have existed). Safe against concurrent callers (one wins, others skip)
// and against symlinks/foreign files at the target name. Returns 0 or an errno.
int writeReport(const char *reason);
// Creates `path` O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC 0600 the first time, later rewrites only the
// file it created (same inode). Exposed for the tests.
struct ReportFile {
  char path[640] = {};
  uint64_t dev = 0, ino = 0;   // identity of the file this process created...
  int64_t mtimeNs = 0;         // ...and of its content after our last write (inode numbers are reused)
  uint64_t size = 0;
  bool created = false;
  unsigned attempt = 0;        // > 0: a new file after the first could not be rewritten (setuid)
};
int writeFileSafely(ReportFile &file, const char *data, std::size_t length);
void resetReportFiles();
// Periodic reports: called from interceptors with the current time.
void maybePeriodicReport(uint64_t now);
void resetPeriodic(uint64_t now);

// Forked child: per-process state starts over, the fd table is kept.
void resetAfterFork();

// ---------------------------------------------------------------------------------------------
// The in-flight graph (InFlight.cpp): which AF_UNIX socket this process has queued on which, what
// it still has in flight (Counters::inFlight follows it), and the components left without an fd
// that only a GC run frees (afunix-fd-cycle findings).
constexpr int kGraphNodes = 4096; // sockets that took part in fd passing
constexpr int kGraphEdges = 8192; // (socket, receiver) pairs with something in flight
void graphOnBind(int fd);                 // after a successful bind(): its address
void graphOnDup(int oldFd, int newFd);    // after the fd table installed newFd
void graphOnClose(int fd);                // before the fd table forgets fd
// After a successful sendmsg() that carried fds (`s`: the state of `fd`).
void graphOnSend(int fd, const FdState &s, const struct msghdr *msg, const SendInfo &info, uintptr_t site);
// For each fd a recvmsg() delivered (already in the fd table); `peek`: MSG_PEEK, still queued.
void graphOnReceived(int receiverFd, int received, bool peek);
// Before a sendmsg() over `fd`: what it sent to receivers the graph cannot see is asked of the
// kernel (SIOCOUTQ) while none of this call's data is queued yet; an ioctl only for such a socket.
void graphBeforeSend(int fd);
void graphSettle();     // the same for every such socket
void graphWalk();       // looks for garbage now (at report time)
void graphMarkShared(); // fork()/posix_spawn(): a child holds every open socket too
void graphReset();      // forked child: its own graph, from nothing
// The first stack of each call site that sent AF_UNIX fds: what a cycle finding shows.
Findings &sendSites();

// Fds in flight over time, for the run's chart: the most this process had in flight during each
// period since its first fd-carrying call (or fork). Fixed slots and no lock: when time runs past
// the last slot, the caller that wins a flag halves the resolution (pairs of slots merge, the
// period doubles); a change that meets a merge in progress is not recorded (the high-water
// counter still has it), and one timed with the old period during a merge may land a period off.
constexpr int kTimelineSlots = 256;
constexpr uint64_t kTimelineFirstPeriodNs = 1000000; // 1 ms
struct InFlightTimeline {
  uint64_t periodNs = 0;
  int slots = 0;                  // periods recorded, up to the last one with a value
  int64_t most[kTimelineSlots] = {}; // -1: no change in that period
};
void inFlightTimeline(InFlightTimeline &out);
void noteInFlightAt(int64_t inFlight, uint64_t nowNs);

} // namespace afunix::probe
