// The kernel behaviours afunix-probe measures, each an experiment on real sockets. Every function
// creates what it needs, closes all of it before returning, and never looks at the version string.
#pragma once

#include <cstdint>
#include <sys/types.h>
#include <string>
#include <vector>

#include "afunix/KernelConstants.h"
#include "afunix/kernel/Experiment.h"
#include "afunix/kernel/gc_shapes.h"

namespace afunix::kernel {

// An unprivileged uid (and the same gid) that no account has, for experiments that count what
// one user has in flight. The kernel counts fds in flight per uid, and garbage no GC run has
// collected stays counted: `nobody` had 32 on a machine that had run the test suite before (the
// datagram socket sent to its own address of fd_cycle_own_address outlives its close). Picked
// per process, so that an earlier run's leftovers never count. Call it before fork().
struct UnusedUser {
  uid_t uid;
  gid_t gid;
};
UnusedUser unusedUser();

// --- credentials (kernel-behaviour.md section A) ---------------------------------------------

// When SO_PASSCRED is set relative to the send: on the Receiver before, on the Sender only, on
// Neither, on the receiver Late (after the message was queued), on Both before.
enum class PasscredTiming { Receiver, Sender, Neither, Late, Both };
enum class SendMethod { Write, Sendmsg, SendmsgExplicitCreds };

// What one recvmsg() delivered: "creds" (the sender's real pid/uid/gid), "pid0" (pid 0: the
// kernel attached no credentials), "none" (no SCM_CREDENTIALS cmsg), "other" or "error: ...".
std::string credentialsDelivered(int socketType, SendMethod method, PasscredTiming timing);
// The same through a listener: connect, send to the not-yet-accepted socket, accept, enable
// SO_PASSCRED on the accepted socket, read.
std::string credentialsDeliveredToEmbryo(int socketType, SendMethod method);

Observation credentialsExperiment();      // creds.table.*, default_attach, late_passcred, ...
Observation listenerInheritExperiment();  // creds.listener_inherit
Observation featuresExperiment();         // features.so_passpidfd / so_peerpidfd / so_passrights
Observation passcredInetExperiment();     // passcred.inet
Observation acceptNeedsListenerExperiment(); // accept.<kind of fd>
// One per claim of the credential rules' messages (see ExperimentRegistry.h).
Observation credsWithoutPasscredExperiment();         // creds.without_passcred.*
Observation passcredHandedOverExperiment();           // passcred.handed_over.*
Observation passcredAcceptedLateExperiment();         // passcred.accepted_late.<type>.*
Observation passcredDgramLateExperiment();            // passcred.dgram_late.*
Observation passcredSocketpairLateExperiment();       // passcred.socketpair_late.<type>
Observation passcredClientLateExperiment();           // passcred.client_late.*
Observation passcredListenerAfterListenExperiment();  // passcred.listener_after_listen.*
Observation passcredListenerAfterAcceptExperiment();  // passcred.listener_after_accept.*

// --- fd passing (section B) ------------------------------------------------------------------

// Whether one SCM_RIGHTS message with `count` fds is accepted; errno of the refusal otherwise.
int sendFdsOnce(int count); // 0 on success, errno on failure
Observation fdLimitExperiment();          // fds.max_per_message
// Several SCM_RIGHTS cmsgs in one message (0 or errno), and the experiment: fds.limit_total.*
int sendFdsInCmsgs(const std::vector<int> &counts);
Observation fdLimitTotalExperiment();
// ETOOMANYREFS as an unprivileged user whose RLIMIT_NOFILE is `rlimit`.
Observation tooManyRefsExperiment(int nofile = 64); // fds.etoomanyrefs_at
// The same past RLIMIT_NOFILE with no capability, only CAP_SYS_RESOURCE, only CAP_SYS_ADMIN.
Observation tooManyRefsExemptExperiment(); // fds.etoomanyrefs_exempt.*

struct GcOptions {
  int inflight = 17000;  // AF_UNIX socket references to keep in flight (GC is queued past 16000)
  int samples = 4096;    // sendmsg() calls per block
  bool withoutCycles = true;
  bool withCycles = true;
  double timeBudgetSeconds = 20;
  // As root, measure in a child running as an unused uid: the 2024 threshold counts every fd the
  // user has in flight, and root's count carries what its daemons and any garbage the GC never
  // freed hold (on this project's machine enough to make sends wait with 1500 of ours).
  bool asUnusedUser = true;
};
struct LatencyBlock {
  std::vector<std::uint64_t> ns; // one entry per sendmsg()
  std::uint64_t median() const;
  std::uint64_t percentile(double p) const;
};
struct GcMeasurement {
  int inflightRequested = 0;
  int inflightReached = 0;
  std::string limitNote; // why fewer sockets than requested were put in flight
  LatencyBlock idleNoFd, idleUnixFd;       // nothing in flight
  LatencyBlock noFd, unixFd;               // in flight, no reference cycles
  LatencyBlock noFdCycles, unixFdCycles;   // in flight, with reference cycles
  bool ranWithout = false, ranWith = false;
  bool outOfTime = false;
  bool asUnusedUser = false; // measured as an unused uid (nothing else of it in flight)
  std::string error;
};
// The 2024 measurement: one-byte sendmsg() with no fd and with one AF_UNIX fd, with nothing in
// flight, then with `inflight` sockets in flight without and with reference cycles.
GcMeasurement measureGcWait(const GcOptions &options);
Observation gcExperiment(const GcOptions &options); // gc.unix_fd_wait
// Which sends wait for a GC run, and when a run happens: gc.conditions.*
struct GcConditionsOptions {
  int belowTrigger = 3000;  // >= 2024 (the user threshold), < 16000 (the GC trigger)
  int aboveTrigger = 19000; // > 16000 even after the cycles (belowTrigger of them) are collected
  int samples = 256;
  double timeBudgetSeconds = 40;
};
Observation gcWaitConditionsExperiment(const GcConditionsOptions &options);
// funclatency-style "nsecs : count distribution" log2 histogram.
std::string log2Histogram(const LatencyBlock &block);

// What outlives the closes (CycleExperiments.cpp). A shape of the kernel's scm_rights selftest
// (afunix/kernel/gc_shapes.h) built on socketpairs of `type`, every fd closed (with every fd
// received first when `receiveFirst`): how many of its vertices /proc/net/unix still lists, and
// after a GC run.
struct ShapeOutcome {
  int left = -1;          // vertices still listed right after the closes
  bool freedByGc = false; // they all went after a GC run was started
  int afterGc = -1;
  std::string error;
};
ShapeOutcome runGcShape(const afunix_gc_shape &shape, int type, bool receiveFirst);
Observation gcShapesExperiment();          // gc.shapes.<type>.<shape>.left / after_gc / received_left
Observation fdCycleOwnQueueExperiment();   // fd_cycle.<type>.own_queue_left, over_itself_left, ...
Observation fdCycleOwnAddressExperiment(); // fd_cycle.own_address_left, other_address_left, ...

// --- memory auto-init (section C) ------------------------------------------------------------

struct MeminitState {
  int initOnAlloc = -1; // 1 on, 0 off, -1 unknown
  int initOnFree = -1;
  std::string source;   // which evidence decided
  std::vector<std::string> evidence;
};
// Parsers, separate so that tests can feed them known text.
bool parseCmdlineFlag(const std::string &cmdline, const std::string &name, int &value);
bool parseConfigFlag(const std::string &config, const std::string &symbol, int &value);
bool parseAutoInitLine(const std::string &log, int &alloc, int &free);
MeminitState detectMeminit();
Observation meminitExperiment(); // meminit.init_on_alloc / init_on_free / source

// True when this process holds CAP_SYS_RESOURCE or CAP_SYS_ADMIN (exempt from ETOOMANYREFS).
bool hasResourceOverride();

} // namespace afunix::kernel
