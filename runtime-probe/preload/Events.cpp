// Detectors: pure functions of (event, fd slot) that update the fd table, counters and findings.
// Each runs after the real call, reads the program's memory only where the kernel already read it
// (or through copyFromProcess, which cannot fault), and leaves errno as it found it.
#include "ControlMessages.h"
#include "ProbeCore.h"

#include <cerrno>
#include <ctime>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "afunix/KernelConstants.h"

namespace afunix::probe {

namespace {
using kernel::kScmMaxFd;
using kernel::kSoPassPidfd;
using kernel::kUnixInflightSaneUser;

struct ErrnoGuard {
  int saved = errno;
  ~ErrnoGuard() { errno = saved; }
};

// Our own setsockopt must not go through the interceptor (it would be counted as the program's).
int rawSetsockopt(int fd, int level, int name, const void *value, socklen_t length) {
  return static_cast<int>(syscall(SYS_setsockopt, fd, level, name, value, length));
}

void noteSocket(const FdState &state) {
  (state.family == AF_UNIX ? counters().unixSockets : counters().otherSockets).fetch_add(1, std::memory_order_relaxed);
}

void enableForFix(int fd, uint8_t where, uintptr_t site) {
  int one = 1;
  int result = rawSetsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
  int err = result ? errno : 0;
  if (result == 0)
    fdTable().update(fd, [](FdState &s) { s.passcred = true; });
  if (auto *evidence = findings().hit(Rule::FixPasscred, where, site, fd))
    evidence[0].store(static_cast<uint64_t>(err), std::memory_order_relaxed);
}

int32_t peerPidOf(int fd) {
  ucred cred;
  socklen_t length = sizeof cred;
  if (syscall(SYS_getsockopt, fd, SOL_SOCKET, SO_PEERCRED, &cred, &length) == 0)
    return cred.pid;
  return 0;
}

bool passOptionValid(int name, int family) {
  if (name == kSoPassPidfd)
    return family == AF_UNIX;
  return family == AF_UNIX || family == AF_NETLINK || family == AF_BLUETOOTH;
}
} // namespace

uint64_t nowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

void onSocketCreated(int fd, int family, int type, uintptr_t site) {
  FdState s;
  s.kind = FdKind::Socket;
  s.family = static_cast<uint8_t>(family);
  s.type = static_cast<uint8_t>(type & 0xf);
  recordOrigin(fd, fdTable().install(fd, s), site, Origin::Created);
  noteSocket(s);
}

void onSocketPair(const int fds[2], int family, int type, uintptr_t site) {
  FdState s;
  s.kind = FdKind::Socket;
  s.family = static_cast<uint8_t>(family);
  s.type = static_cast<uint8_t>(type & 0xf);
  s.role = FdRole::PairEnd;
  s.hasPeer = FdTable::inRange(fds[1]) && FdTable::inRange(fds[0]);
  s.peerFd = static_cast<uint16_t>(fds[1]);
  s.peerGen = static_cast<uint8_t>(fdTable().peek(fds[1]).gen + 1);
  uint16_t firstGen = fdTable().install(fds[0], s);
  recordOrigin(fds[0], firstGen, site, Origin::Created);
  s.peerFd = static_cast<uint16_t>(fds[0]);
  s.peerGen = static_cast<uint8_t>(firstGen);
  recordOrigin(fds[1], fdTable().install(fds[1], s), site, Origin::Created);
  noteSocket(s);
  noteSocket(s);
}

void onAccepted(int listener, int fd, uintptr_t site) {
  FdState l = fdTable().lookup(listener);
  if (l.kind != FdKind::Socket) {
    fdTable().forget(fd); // unknown listener: learn the new fd on first use
    return;
  }
  FdState s;
  s.kind = FdKind::Socket;
  s.family = l.family;
  s.type = l.type;
  s.role = FdRole::Accepted;
  s.listenerLate = l.passcredLate;
  // Not a peer (hasPeer stays false): the listener it came from, which a finding may have to name.
  if (FdTable::inRange(listener)) {
    s.peerFd = static_cast<uint16_t>(listener);
    s.peerGen = static_cast<uint8_t>(l.gen);
  }
  // What it took from the listener, asked of the kernel: 3.12-6.15 copy SO_PASSCRED at accept(),
  // 6.16+ at connect(), so a client that connected before the listener's late setsockopt has no
  // SO_PASSCRED here.
  s.passcred = l.passcred;
  if (s.family == AF_UNIX) {
    int value = 0;
    socklen_t length = sizeof value;
    ErrnoGuard guard;
    if (syscall(SYS_getsockopt, fd, SOL_SOCKET, SO_PASSCRED, &value, &length) == 0)
      s.passcred = value != 0;
  }
  recordOrigin(fd, fdTable().install(fd, s), site, Origin::Created);
  noteSocket(s);
  if (s.family == AF_UNIX && l.passcred && l.passcredLate && !s.passcred)
    if (auto *evidence = findings().hit(Rule::PasscredTooLate, variant::kListenerAfterListen, site, fd))
      evidence[3].store(static_cast<uint64_t>(listener) + 1, std::memory_order_relaxed);
}

void onBind(int fd) {
  fdTable().update(fd, [](FdState &s) { s.bound = true; });
  ErrnoGuard guard;
  graphOnBind(fd);
}
void onListen(int fd) {
  fdTable().update(fd, [](FdState &s) { s.listening = true; });
}
void onClose(int fd) {
  ErrnoGuard guard;
  graphOnClose(fd);
  fdTable().forget(fd);
}

void onDup(int oldFd, int newFd) {
  FdState s = fdTable().peek(oldFd);
  if (s.kind == FdKind::Unknown) {
    fdTable().forget(newFd);
    return;
  }
  ErrnoGuard guard;
  graphOnClose(newFd); // dup2()/dup3() onto an open fd closed it first
  Origin origin;
  uintptr_t site = originOf(oldFd, s.gen, origin);
  recordOrigin(newFd, fdTable().install(newFd, s), site, origin); // the same socket, same origin
  graphOnDup(oldFd, newFd);
}

void beforeListen(int fd, uintptr_t site) {
  if (!config().fixPasscred)
    return;
  ErrnoGuard guard;
  FdState s = fdTable().lookup(fd);
  if (s.isUnix() && !s.passcred)
    enableForFix(fd, variant::kFixAtListen, site);
}

void onSetsockopt(int fd, int level, int name, const void *value, socklen_t length, int result, int err,
                  uintptr_t site) {
  if (level != SOL_SOCKET || (name != SO_PASSCRED && name != SO_PASSSEC && name != kSoPassPidfd))
    return;
  ErrnoGuard guard;
  FdState s = fdTable().lookup(fd);
  if (s.kind != FdKind::Socket)
    return;
  if (!passOptionValid(name, s.family)) {
    if (auto *evidence = findings().hit(Rule::PasscredWrongFamily, variant::kWrongFamily, site, fd)) {
      evidence[0].store(static_cast<uint64_t>(name), std::memory_order_relaxed);
      evidence[1].store(s.family, std::memory_order_relaxed);
      evidence[2].store(result == 0 ? 0 : static_cast<uint64_t>(err), std::memory_order_relaxed);
    }
    return;
  }
  if (name != SO_PASSCRED || s.family != AF_UNIX || result != 0)
    return;
  // The call succeeded: the kernel read `length` bytes of `value`.
  bool enable = value && length >= static_cast<socklen_t>(sizeof(int)) && *static_cast<const int *>(value) != 0;
  fdTable().update(fd, [enable](FdState &st) {
    if (enable && !st.passcred &&
        (st.listening || st.role == FdRole::Accepted || st.role == FdRole::Learned ||
         (st.type == SOCK_DGRAM && st.bound)))
      st.passcredLate = true;
    st.passcred = enable;
  });
}

void onGetsockopt(int fd, int level, int name) {
  if (level != SOL_SOCKET || (name != SO_PEERCRED && name != kernel::kSoPeerPidfd))
    return;
  ErrnoGuard guard;
  FdState s = fdTable().lookup(fd);
  if (!s.isUnix())
    return;
  if (!s.peercredUsed)
    fdTable().update(fd, [](FdState &st) { st.peercredUsed = true; });
  // A credentials finding already recorded on this very socket: the program authenticates the
  // peer with SO_PEERCRED after all (asked after its first recvmsg()).
  findings().updateEach([&](const FindingView &f, std::atomic<uint64_t> *evidence) {
    if (f.rule == Rule::CredsWithoutPasscred && f.detail && f.detail->socket.fd == fd &&
        f.detail->socket.known)
      evidence[2].store(1, std::memory_order_relaxed);
  });
}

SendInfo inspectSend(int, const msghdr *msg, bool kernelValidated) {
  SendInfo info;
  msghdr header;
  if (kernelValidated) {
    if (!msg)
      return info;
    header = *msg;
  } else if (!copyFromProcess(&header, msg, sizeof header)) {
    return info;
  }
  if (!header.msg_control || header.msg_controllen < sizeof(cmsghdr))
    return info;
  ControlReader reader{static_cast<const unsigned char *>(header.msg_control), header.msg_controllen, kernelValidated};
  walkControl(reader, [&](const cmsghdr &c, std::size_t offset) {
    if (c.cmsg_level != SOL_SOCKET)
      return;
    if (c.cmsg_type == SCM_CREDENTIALS)
      info.creds = true;
    if (c.cmsg_type != SCM_RIGHTS)
      return;
    int n = fdCount(c);
    info.fds += n;
    // Fd values are looked at only when the kernel took them (classifying needs the fd table).
    if (kernelValidated)
      for (int i = 0; i < n; ++i)
        if (fdTable().lookup(fdAt(reader, offset, i)).isUnix())
          ++info.unixFds;
  });
  info.cls = info.unixFds ? CallClass::UnixFds : info.fds ? CallClass::OtherFds : info.creds ? CallClass::Creds : CallClass::NoFds;
  return info;
}

void onSendmsg(int fd, const msghdr *msg, const SendInfo &info, long result, int err, uint64_t ns, uintptr_t site) {
  if (!info.fds && !info.creds && err != ETOOMANYREFS)
    return;
  ErrnoGuard guard;
  Counters &c = counters();
  FdState s = fdTable().lookup(fd);
  if (info.creds && result >= 0 && s.isUnix()) {
    c.credsSentExplicit.fetch_add(1, std::memory_order_relaxed);
    if (!s.credsSent) {
      // Whom they went to (the peer's pid at connect time): that process expects credentials.
      noteCredentialsSentTo(peerPidOf(fd));
      fdTable().update(fd, [](FdState &st) { st.credsSent = true; });
    }
  }
  if (info.fds > kScmMaxFd) {
    if (result < 0 && err == EINVAL)
      c.einvalTooManyFds.fetch_add(1, std::memory_order_relaxed);
    if (auto *evidence = findings().hit(Rule::FdLimit, variant::kFdLimit, site, fd)) {
      Findings::setMax(evidence[0], static_cast<uint64_t>(info.fds));
      if (result < 0 && err == EINVAL)
        evidence[1].fetch_add(1, std::memory_order_relaxed);
    }
  }
  if (result < 0 && err == ETOOMANYREFS) {
    c.etoomanyrefs.fetch_add(1, std::memory_order_relaxed);
    if (auto *evidence = findings().hit(Rule::FdFlood, variant::kFdFloodRecorded, site, fd))
      evidence[2].fetch_add(1, std::memory_order_relaxed);
  }
  // A slow fd-carrying send is counted, and is evidence only next to a measured flood (below).
  const bool slow = info.unixFds && result >= 0 && ns != UINT64_MAX && ns > config().slowNs;
  if (result < 0 || !info.fds) {
    if (slow)
      c.slowFdSends.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  c.fdsSent.fetch_add(static_cast<uint64_t>(info.fds), std::memory_order_relaxed);
  c.unixFdsSent.fetch_add(static_cast<uint64_t>(info.unixFds), std::memory_order_relaxed);
  // What this process now has in flight, as the kernel counts it (InFlight.cpp).
  graphOnSend(fd, s, msg, info, site);
  if (slow)
    c.slowFdSends.fetch_add(1, std::memory_order_relaxed);
  // The kernel makes a send wait for a GC run only when it carries AF_UNIX fds and its user has
  // kUnixInflightSaneUser fds in flight: that, measured, decides; a slow send alone never does
  // (one scheduling hiccup is no GC wait). Before reporting, what went to receivers the graph
  // cannot follow is settled with the kernel.
  if (!info.unixFds || c.inFlight.load(std::memory_order_relaxed) < kUnixInflightSaneUser)
    return;
  static constinit std::atomic<uint32_t> sendsSinceSettled{0};
  if (sendsSinceSettled.fetch_add(1, std::memory_order_relaxed) % 64 == 0) // a scan of the graph
    graphSettle();
  int64_t inFlight = c.inFlight.load(std::memory_order_relaxed);
  if (inFlight < kUnixInflightSaneUser)
    return;
  if (auto *evidence = findings().hit(Rule::FdFlood, variant::kFdFloodRecorded, site, fd)) {
    Findings::setMax(evidence[0], static_cast<uint64_t>(inFlight));
    evidence[1].store(c.unixFdsSent.load(std::memory_order_relaxed), std::memory_order_relaxed);
    if (slow) {
      evidence[3].fetch_add(1, std::memory_order_relaxed);
      Findings::setMax(evidence[4], ns);
    }
  }
}

void beforeRecvmsg(int fd, const msghdr *msg, uintptr_t site) {
  if (!config().fixPasscred)
    return;
  ErrnoGuard guard;
  msghdr header;
  if (!copyFromProcess(&header, msg, sizeof header) || !header.msg_control || header.msg_controllen == 0)
    return;
  FdState s = fdTable().lookup(fd);
  if (s.isUnix() && !s.passcred)
    enableForFix(fd, variant::kFixAtRecvmsg, site);
}

CallClass onRecvmsg(int fd, const msghdr *msg, long result, int flags, uintptr_t site) {
  if (result < 0 || !msg)
    return CallClass::NoFds;
  ErrnoGuard guard;
  FdState s = fdTable().lookup(fd);
  if (!s.isUnix())
    return CallClass::NoFds;
  // The call succeeded, so the kernel has read this msghdr and written msg_controllen back: the
  // control data below is exactly what it delivered.
  bool creds = false, rights = false;
  int unixFds = 0, otherFds = 0;
  ControlReader reader{static_cast<const unsigned char *>(msg->msg_control),
                       msg->msg_control ? msg->msg_controllen : 0, true};
  walkControl(reader, [&](const cmsghdr &c, std::size_t offset) {
    if (c.cmsg_level != SOL_SOCKET)
      return;
    if (c.cmsg_type == SCM_RIGHTS) {
      rights = true;
      int n = fdCount(c);
      for (int i = 0; i < n; ++i) {
        int received = fdAt(reader, offset, i);
        fdTable().forget(received); // a new object at this number: learn it afresh
        FdState r = fdTable().lookup(received);
        (r.isUnix() ? unixFds : otherFds)++;
        if (r.kind == FdKind::Socket)
          recordOrigin(received, r.gen, site, Origin::Received);
        graphOnReceived(fd, received, flags & MSG_PEEK);
      }
      if (!(flags & MSG_PEEK))
        counters().fdsReceived.fetch_add(static_cast<uint64_t>(n), std::memory_order_relaxed);
    } else if (c.cmsg_type == SCM_CREDENTIALS && c.cmsg_len >= CMSG_LEN(sizeof(ucred))) {
      creds = true;
      ucred cred;
      reader.read(offset + CMSG_LEN(0), &cred, sizeof cred);
      counters().credsReceived.fetch_add(1, std::memory_order_relaxed);
      if (cred.pid == 0) {
        counters().credsPidZero.fetch_add(1, std::memory_order_relaxed);
        // What kind of socket this is decides what was late: the program's own setsockopt on an
        // accepted socket, the listener's, a socketpair end's, a client's that had already
        // asked its peer, a bound datagram socket's, or one that came from outside.
        uint8_t v = s.role == FdRole::Learned                            ? variant::kExternalSocket
                    : s.role == FdRole::PairEnd                          ? variant::kSocketpairEnd
                    : s.role == FdRole::Accepted && s.passcredLate       ? variant::kAcceptedSocket
                    : s.role == FdRole::Accepted && s.listenerLate       ? variant::kListenerAfterListen
                    : s.role == FdRole::Accepted                         ? variant::kAcceptedSocket
                    : s.type == SOCK_DGRAM && s.bound                    ? variant::kDgramAfterBind
                                                                         : variant::kClientReply;
        if (auto *evidence = findings().hit(Rule::PasscredTooLate, v, site, fd)) {
          evidence[0].store(static_cast<uint64_t>(cred.pid), std::memory_order_relaxed);
          evidence[1].store(cred.uid, std::memory_order_relaxed);
          evidence[2].store(cred.gid, std::memory_order_relaxed);
          // listener-after-listen is about the listener: name it, not the accepted socket.
          evidence[3].store(v == variant::kListenerAfterListen ? s.peerFd + 1u : 0, std::memory_order_relaxed);
        }
      }
    }
  });
  if ((creds && !s.credsSeen) || (rights && !s.rightsSeen))
    fdTable().update(fd, [&](FdState &st) {
      st.credsSeen |= creds;
      st.rightsSeen |= rights;
    });
  // A control buffer, no SO_PASSCRED, nothing arrived in it: credentials can never arrive here.
  // Whether the program wants them is decided when the report is written (someone sent it
  // explicit SCM_CREDENTIALS, and it never asked for SO_PEERCRED on this socket); a buffer alone
  // is no evidence: fd receivers (dbus) have one too. Sockets that carry SCM_RIGHTS use it for fds.
  if (msg->msg_control && !s.passcred && !creds && !rights && !s.rightsSeen && !s.peercredUsed) {
    if (auto *evidence = findings().hit(Rule::CredsWithoutPasscred, variant::kCredsDefault, site, fd)) {
      evidence[0].store(s.type, std::memory_order_relaxed);
      if (msg->msg_flags & MSG_CTRUNC)
        evidence[1].fetch_add(1, std::memory_order_relaxed);
    }
  }
  return unixFds ? CallClass::UnixFds : otherFds ? CallClass::OtherFds : creds ? CallClass::Creds : CallClass::NoFds;
}

} // namespace afunix::probe
