// The fd table: a fixed array of atomic words indexed by fd.
#include "ProbeCore.h"

#include <cerrno>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace afunix::probe {

namespace {
// Bit layout of a slot word.
constexpr int kKindShift = 0, kFamilyShift = 2, kTypeShift = 8, kPasscredBit = 12, kListeningBit = 13,
              kBoundBit = 14, kRoleShift = 15, kHasPeerBit = 17, kPeerFdShift = 18, kPeerGenShift = 34,
              kGenShift = 42, kPasscredLateBit = 58, kCredsSeenBit = 59, kRightsSeenBit = 60,
              kListenerLateBit = 61, kPeercredUsedBit = 62, kCredsSentBit = 63;

// getsockopt() itself is intercepted (SO_PEERCRED): the table asks the kernel directly.
int rawGetsockopt(int fd, int level, int name, void *value, socklen_t *length) {
  return static_cast<int>(syscall(SYS_getsockopt, fd, level, name, value, length));
}

uint64_t bit(bool value, int shift) { return static_cast<uint64_t>(value) << shift; }
uint64_t field(uint64_t word, int shift, int width) { return (word >> shift) & ((1ull << width) - 1); }
} // namespace

uint64_t FdState::encode() const {
  return (static_cast<uint64_t>(kind) << kKindShift) | (static_cast<uint64_t>(family & 0x3f) << kFamilyShift) |
         (static_cast<uint64_t>(type & 0xf) << kTypeShift) | bit(passcred, kPasscredBit) |
         bit(listening, kListeningBit) | bit(bound, kBoundBit) | (static_cast<uint64_t>(role) << kRoleShift) |
         bit(hasPeer, kHasPeerBit) | (static_cast<uint64_t>(peerFd) << kPeerFdShift) |
         (static_cast<uint64_t>(peerGen) << kPeerGenShift) | (static_cast<uint64_t>(gen) << kGenShift) |
         bit(passcredLate, kPasscredLateBit) | bit(credsSeen, kCredsSeenBit) | bit(rightsSeen, kRightsSeenBit) |
         bit(listenerLate, kListenerLateBit) | bit(peercredUsed, kPeercredUsedBit) |
         bit(credsSent, kCredsSentBit);
}

FdState FdState::decode(uint64_t w) {
  FdState s;
  s.kind = static_cast<FdKind>(field(w, kKindShift, 2));
  s.family = static_cast<uint8_t>(field(w, kFamilyShift, 6));
  s.type = static_cast<uint8_t>(field(w, kTypeShift, 4));
  s.passcred = field(w, kPasscredBit, 1);
  s.listening = field(w, kListeningBit, 1);
  s.bound = field(w, kBoundBit, 1);
  s.role = static_cast<FdRole>(field(w, kRoleShift, 2));
  s.hasPeer = field(w, kHasPeerBit, 1);
  s.peerFd = static_cast<uint16_t>(field(w, kPeerFdShift, 16));
  s.peerGen = static_cast<uint8_t>(field(w, kPeerGenShift, 8));
  s.gen = static_cast<uint16_t>(field(w, kGenShift, 16));
  s.passcredLate = field(w, kPasscredLateBit, 1);
  s.credsSeen = field(w, kCredsSeenBit, 1);
  s.rightsSeen = field(w, kRightsSeenBit, 1);
  s.listenerLate = field(w, kListenerLateBit, 1);
  s.peercredUsed = field(w, kPeercredUsedBit, 1);
  s.credsSent = field(w, kCredsSentBit, 1);
  return s;
}

FdState FdTable::peek(int fd) const {
  if (!inRange(fd))
    return {};
  return FdState::decode(slots_[fd].load(std::memory_order_acquire));
}

FdState FdTable::lookup(int fd) {
  if (!inRange(fd)) {
    if (fd >= kFdTableSize)
      untracked.fetch_add(1, std::memory_order_relaxed);
    return {};
  }
  uint64_t word = slots_[fd].load(std::memory_order_acquire);
  FdState state = FdState::decode(word);
  if (state.kind != FdKind::Unknown)
    return state;
  // Inherited or created behind our back (before load, by a raw syscall, received over SCM_RIGHTS):
  // ask the kernel once, with raw getsockopt syscalls; errno is the caller's.
  int savedErrno = errno;
  int value = 0;
  socklen_t length = sizeof value;
  FdState learned;
  learned.gen = state.gen;
  if (rawGetsockopt(fd, SOL_SOCKET, SO_DOMAIN, &value, &length) == 0) {
    learned.kind = FdKind::Socket;
    learned.family = static_cast<uint8_t>(value);
    learned.role = FdRole::Learned;
    length = sizeof value;
    if (rawGetsockopt(fd, SOL_SOCKET, SO_TYPE, &value, &length) == 0)
      learned.type = static_cast<uint8_t>(value);
    length = sizeof value;
    if (learned.family == AF_UNIX && rawGetsockopt(fd, SOL_SOCKET, SO_PASSCRED, &value, &length) == 0)
      learned.passcred = value != 0;
    length = sizeof value;
    if (rawGetsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &value, &length) == 0)
      learned.listening = value != 0;
  } else if (errno == ENOTSOCK) {
    learned.kind = FdKind::NotSocket;
  } else {
    errno = savedErrno;
    return state; // EBADF and friends: nothing to learn, nothing cached
  }
  errno = savedErrno;
  // Lost race with close()/socket() on this fd: the winner's state is newer.
  if (!slots_[fd].compare_exchange_strong(word, learned.encode(), std::memory_order_acq_rel))
    return FdState::decode(word);
  if (learned.kind == FdKind::Socket)
    (learned.family == AF_UNIX ? counters().unixSockets : counters().otherSockets)
        .fetch_add(1, std::memory_order_relaxed);
  return learned;
}

uint16_t FdTable::install(int fd, FdState state) {
  if (!inRange(fd)) {
    untracked.fetch_add(1, std::memory_order_relaxed);
    return 0;
  }
  uint64_t old = slots_[fd].load(std::memory_order_acquire);
  for (;;) {
    state.gen = static_cast<uint16_t>(FdState::decode(old).gen + 1);
    if (slots_[fd].compare_exchange_weak(old, state.encode(), std::memory_order_acq_rel))
      return state.gen;
  }
}

void FdTable::forget(int fd) { install(fd, FdState{}); }

void FdTable::resetAll() {
  for (auto &slot : slots_)
    slot.store(0, std::memory_order_relaxed);
  untracked.store(0, std::memory_order_relaxed);
}

namespace {
constinit FdTable gFdTable; // constant-initialised: no guard, no allocation, usable before main
} // namespace

FdTable &fdTable() { return gFdTable; }

} // namespace afunix::probe
