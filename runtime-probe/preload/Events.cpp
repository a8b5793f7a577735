// Detectors: pure functions of (event, fd slot) that update the fd table, counters and findings.
// Each runs after the real call, reads only what the kernel already validated, and leaves errno as
// it found it.
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

void enableForFix(int fd, uint8_t where, uint16_t gen) {
  int one = 1;
  int result = rawSetsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
  int err = result ? errno : 0;
  if (result == 0)
    fdTable().update(fd, [](FdState &s) { s.passcred = true; });
  if (FindingSlot *slot = findings().hit(Rule::FixPasscred, where, fd, gen))
    slot->evidence[0].store(static_cast<uint64_t>(err), std::memory_order_relaxed);
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

void onSocketCreated(int fd, int family, int type) {
  FdState s;
  s.kind = FdKind::Socket;
  s.family = static_cast<uint8_t>(family);
  s.type = static_cast<uint8_t>(type & 0xf);
  fdTable().install(fd, s);
  noteSocket(s);
}

void onSocketPair(const int fds[2], int family, int type) {
  FdState s;
  s.kind = FdKind::Socket;
  s.family = static_cast<uint8_t>(family);
  s.type = static_cast<uint8_t>(type & 0xf);
  s.role = FdRole::PairEnd;
  s.hasPeer = FdTable::inRange(fds[1]) && FdTable::inRange(fds[0]);
  s.peerFd = static_cast<uint16_t>(fds[1]);
  s.peerGen = static_cast<uint8_t>(fdTable().peek(fds[1]).gen + 1);
  uint16_t firstGen = fdTable().install(fds[0], s);
  s.peerFd = static_cast<uint16_t>(fds[0]);
  s.peerGen = static_cast<uint8_t>(firstGen);
  fdTable().install(fds[1], s);
  noteSocket(s);
  noteSocket(s);
}

void onAccepted(int listener, int fd) {
  FdState l = fdTable().lookup(listener);
  FdState s;
  s.kind = FdKind::Socket;
  s.family = l.kind == FdKind::Socket ? l.family : 0;
  s.type = l.type;
  s.role = FdRole::Accepted;
  s.passcred = l.passcred; // inherited from the listener since 3.12
  s.listenerLate = l.passcredLate;
  if (s.kind == FdKind::Socket && s.family == 0) {
    fdTable().forget(fd); // unknown listener: learn the new fd on first use
    return;
  }
  fdTable().install(fd, s);
  noteSocket(s);
}

void onBind(int fd) {
  fdTable().update(fd, [](FdState &s) { s.bound = true; });
}
void onListen(int fd) {
  fdTable().update(fd, [](FdState &s) { s.listening = true; });
}
void onClose(int fd) { fdTable().forget(fd); }

void onDup(int oldFd, int newFd) {
  FdState s = fdTable().peek(oldFd);
  if (s.kind == FdKind::Unknown)
    fdTable().forget(newFd);
  else
    fdTable().install(newFd, s);
}

void beforeListen(int fd) {
  if (!config().fixPasscred)
    return;
  ErrnoGuard guard;
  FdState s = fdTable().lookup(fd);
  if (s.isUnix() && !s.passcred)
    enableForFix(fd, variant::kFixAtListen, s.gen);
}

void onSetsockopt(int fd, int level, int name, const void *value, socklen_t length, int result, int err) {
  if (level != SOL_SOCKET || (name != SO_PASSCRED && name != SO_PASSSEC && name != kSoPassPidfd))
    return;
  ErrnoGuard guard;
  FdState s = fdTable().lookup(fd);
  if (s.kind != FdKind::Socket)
    return;
  if (!passOptionValid(name, s.family)) {
    if (FindingSlot *slot = findings().hit(Rule::PasscredWrongFamily, variant::kDefault, fd, s.gen)) {
      slot->evidence[0].store(static_cast<uint64_t>(name), std::memory_order_relaxed);
      slot->evidence[1].store(s.family, std::memory_order_relaxed);
      slot->evidence[2].store(result == 0 ? 0 : static_cast<uint64_t>(err), std::memory_order_relaxed);
    }
    return;
  }
  if (name != SO_PASSCRED || s.family != AF_UNIX || result != 0)
    return;
  bool enable = value && length >= static_cast<socklen_t>(sizeof(int)) && *static_cast<const int *>(value) != 0;
  fdTable().update(fd, [enable](FdState &st) {
    if (enable && !st.passcred &&
        (st.listening || st.role == FdRole::Accepted || st.role == FdRole::Learned ||
         (st.type == SOCK_DGRAM && st.bound)))
      st.passcredLate = true;
    st.passcred = enable;
  });
}

SendInfo inspectSend(int, const msghdr *msg) {
  SendInfo info;
  if (!msg || !msg->msg_control || msg->msg_controllen < sizeof(cmsghdr))
    return info;
  bool creds = false;
  for (cmsghdr *c = CMSG_FIRSTHDR(const_cast<msghdr *>(msg)); c; c = CMSG_NXTHDR(const_cast<msghdr *>(msg), c)) {
    if (c->cmsg_level != SOL_SOCKET)
      continue;
    if (c->cmsg_type == SCM_CREDENTIALS)
      creds = true;
    if (c->cmsg_type != SCM_RIGHTS || c->cmsg_len < CMSG_LEN(0))
      continue;
    int n = static_cast<int>((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
    const int *fds = reinterpret_cast<const int *>(CMSG_DATA(c));
    info.fds += n;
    for (int i = 0; i < n; ++i)
      if (fdTable().lookup(fds[i]).isUnix())
        ++info.unixFds;
  }
  info.cls = info.unixFds ? CallClass::UnixFds : info.fds ? CallClass::OtherFds : creds ? CallClass::Creds : CallClass::NoFds;
  return info;
}

void onSendmsg(int fd, const msghdr *msg, const SendInfo &info, long result, int err, uint64_t ns) {
  if (!info.fds && err != ETOOMANYREFS)
    return;
  ErrnoGuard guard;
  Counters &c = counters();
  FdState s = fdTable().lookup(fd);
  if (info.fds > kScmMaxFd) {
    if (result < 0 && err == EINVAL)
      c.einvalTooManyFds.fetch_add(1, std::memory_order_relaxed);
    if (FindingSlot *slot = findings().hit(Rule::FdLimit, variant::kDefault, fd, s.gen)) {
      Findings::setMax(slot->evidence[0], static_cast<uint64_t>(info.fds));
      if (result < 0 && err == EINVAL)
        slot->evidence[1].fetch_add(1, std::memory_order_relaxed);
    }
  }
  if (result < 0 && err == ETOOMANYREFS) {
    c.etoomanyrefs.fetch_add(1, std::memory_order_relaxed);
    if (FindingSlot *slot = findings().hit(Rule::FdFlood, variant::kDefault, -1, 0))
      slot->evidence[2].fetch_add(1, std::memory_order_relaxed);
  }
  if (info.unixFds && ns != UINT64_MAX && ns > config().slowNs) {
    c.slowFdSends.fetch_add(1, std::memory_order_relaxed);
    if (FindingSlot *slot = findings().hit(Rule::FdFlood, variant::kDefault, -1, 0)) {
      slot->evidence[3].fetch_add(1, std::memory_order_relaxed);
      Findings::setMax(slot->evidence[4], ns);
    }
  }
  if (result < 0)
    return;
  c.fdsSent.fetch_add(static_cast<uint64_t>(info.fds), std::memory_order_relaxed);
  c.unixFdsSent.fetch_add(static_cast<uint64_t>(info.unixFds), std::memory_order_relaxed);
  int64_t inFlight = c.inFlight.fetch_add(info.fds, std::memory_order_relaxed) + info.fds;
  int64_t high = c.inFlightHighWater.load(std::memory_order_relaxed);
  while (high < inFlight && !c.inFlightHighWater.compare_exchange_weak(high, inFlight, std::memory_order_relaxed)) {
  }
  if (inFlight >= kUnixInflightSaneUser && c.unixFdsSent.load(std::memory_order_relaxed) > 0) {
    if (FindingSlot *slot = findings().hit(Rule::FdFlood, variant::kDefault, -1, 0)) {
      Findings::setMax(slot->evidence[0], static_cast<uint64_t>(inFlight));
      slot->evidence[1].store(c.unixFdsSent.load(std::memory_order_relaxed), std::memory_order_relaxed);
    }
  }
  // Cycles: the socket itself, or its socketpair() peer (or a dup of either end), sent over it.
  if (!info.unixFds || !s.isUnix())
    return;
  for (cmsghdr *cm = CMSG_FIRSTHDR(const_cast<msghdr *>(msg)); cm; cm = CMSG_NXTHDR(const_cast<msghdr *>(msg), cm)) {
    if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS || cm->cmsg_len < CMSG_LEN(0))
      continue;
    int n = static_cast<int>((cm->cmsg_len - CMSG_LEN(0)) / sizeof(int));
    const int *fds = reinterpret_cast<const int *>(CMSG_DATA(cm));
    for (int i = 0; i < n; ++i) {
      FdState x = fdTable().peek(fds[i]);
      bool self = fds[i] == fd;
      bool peer = !self && ((s.hasPeer && fds[i] == s.peerFd && static_cast<uint8_t>(x.gen) == s.peerGen) ||
                            (x.hasPeer && x.peerFd == fd && static_cast<uint8_t>(s.gen) == x.peerGen));
      if (!self && !peer)
        continue;
      if (FindingSlot *slot = findings().hit(Rule::FdCycle, self ? variant::kSelf : variant::kPeer, fds[i], x.gen)) {
        slot->evidence[0].store(static_cast<uint64_t>(fds[i]), std::memory_order_relaxed);
        slot->evidence[1].store(static_cast<uint64_t>(fd), std::memory_order_relaxed);
        slot->evidence[2].store(peer ? 1 : 0, std::memory_order_relaxed);
      }
    }
  }
}

void beforeRecvmsg(int fd, const msghdr *msg) {
  if (!config().fixPasscred || !msg || !msg->msg_control || msg->msg_controllen == 0)
    return;
  ErrnoGuard guard;
  FdState s = fdTable().lookup(fd);
  if (s.isUnix() && !s.passcred)
    enableForFix(fd, variant::kFixAtRecvmsg, s.gen);
}

CallClass onRecvmsg(int fd, const msghdr *msg, socklen_t controlLenIn, long result, int, int flags) {
  if (result < 0 || !msg)
    return CallClass::NoFds;
  ErrnoGuard guard;
  FdState s = fdTable().lookup(fd);
  if (!s.isUnix())
    return CallClass::NoFds;
  bool creds = false, rights = false;
  int unixFds = 0, otherFds = 0;
  if (msg->msg_control && msg->msg_controllen >= sizeof(cmsghdr)) {
    for (cmsghdr *c = CMSG_FIRSTHDR(const_cast<msghdr *>(msg)); c; c = CMSG_NXTHDR(const_cast<msghdr *>(msg), c)) {
      if (c->cmsg_level != SOL_SOCKET)
        continue;
      if (c->cmsg_type == SCM_RIGHTS && c->cmsg_len >= CMSG_LEN(0)) {
        rights = true;
        int n = static_cast<int>((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
        const int *fds = reinterpret_cast<const int *>(CMSG_DATA(c));
        for (int i = 0; i < n; ++i) {
          fdTable().forget(fds[i]); // a new object at this number: learn it afresh
          (fdTable().lookup(fds[i]).isUnix() ? unixFds : otherFds)++;
        }
        if (!(flags & MSG_PEEK)) {
          counters().fdsReceived.fetch_add(static_cast<uint64_t>(n), std::memory_order_relaxed);
          counters().inFlight.fetch_sub(n, std::memory_order_relaxed);
        }
      } else if (c->cmsg_type == SCM_CREDENTIALS && c->cmsg_len >= CMSG_LEN(sizeof(ucred))) {
        creds = true;
        ucred cred;
        __builtin_memcpy(&cred, CMSG_DATA(c), sizeof cred);
        counters().credsReceived.fetch_add(1, std::memory_order_relaxed);
        if (cred.pid == 0) {
          counters().credsPidZero.fetch_add(1, std::memory_order_relaxed);
          uint8_t v = s.role == FdRole::Learned           ? variant::kExternalSocket
                      : s.role == FdRole::Accepted && s.listenerLate ? variant::kListenerAfterListen
                      : s.type == SOCK_DGRAM              ? variant::kDgramAfterBind
                                                          : variant::kAcceptedSocket;
          if (FindingSlot *slot = findings().hit(Rule::PasscredTooLate, v, fd, s.gen)) {
            slot->evidence[0].store(static_cast<uint64_t>(cred.pid), std::memory_order_relaxed);
            slot->evidence[1].store(cred.uid, std::memory_order_relaxed);
            slot->evidence[2].store(cred.gid, std::memory_order_relaxed);
          }
        }
      }
    }
  }
  if ((creds && !s.credsSeen) || (rights && !s.rightsSeen))
    fdTable().update(fd, [&](FdState &st) {
      st.credsSeen |= creds;
      st.rightsSeen |= rights;
    });
  // A control buffer but no SO_PASSCRED: credentials can never arrive here. Sockets that carry
  // SCM_RIGHTS use the buffer for fds, so they are left alone (conservative).
  if (controlLenIn > 0 && !s.passcred && !creds && !rights && !s.rightsSeen) {
    if (FindingSlot *slot = findings().hit(Rule::CredsWithoutPasscred, variant::kDefault, fd, s.gen)) {
      Findings::setMax(slot->evidence[0], controlLenIn);
      if (controlLenIn >= CMSG_SPACE(sizeof(ucred)))
        slot->evidence[1].fetch_add(1, std::memory_order_relaxed);
      slot->evidence[2].store(s.type, std::memory_order_relaxed);
    }
  }
  return unixFds ? CallClass::UnixFds : otherFds ? CallClass::OtherFds : creds ? CallClass::Creds : CallClass::NoFds;
}

} // namespace afunix::probe
