// The probe's core, linked directly (no LD_PRELOAD), so that ASan and TSan builds check it:
// the fd table and its generations, per-thread statistics merged exactly across threads,
// the findings table under contention, detectors fed with real kernel answers, the report
// writer's JSON and text, report-file safety and environment parsing.
#include "ProbeCore.h"

#include "afunix/kernel/gc_shapes.h"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace afunix::probe;

namespace {

std::string tempDir() {
  char pattern[] = "/tmp/afunix-probe-core-XXXXXX";
  const char *dir = mkdtemp(pattern);
  return dir ? dir : "";
}

std::string readFile(const std::string &path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Every test starts from an empty per-process state, as a freshly forked child does.
class ProbeCore : public ::testing::Test {
protected:
  void SetUp() override {
    findings().reset();
    counters().reset();
    graphReset();
    config() = Config{};
  }
};

// ---- fd table -------------------------------------------------------------------------------------

TEST_F(ProbeCore, LearnsInheritedSocketsFromTheKernel) {
  int sv[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv), 0);
  fdTable().forget(sv[0]);
  errno = 1234;
  FdState s = fdTable().lookup(sv[0]);
  EXPECT_EQ(errno, 1234) << "learning must not leak getsockopt's errno";
  EXPECT_TRUE(s.isUnix());
  EXPECT_EQ(s.type, SOCK_DGRAM);
  EXPECT_EQ(s.role, FdRole::Learned);
  EXPECT_FALSE(s.passcred);
  close(sv[0]);
  close(sv[1]);
}

TEST_F(ProbeCore, LearnsThatAPipeIsNoSocket) {
  int p[2];
  ASSERT_EQ(pipe(p), 0);
  fdTable().forget(p[0]);
  EXPECT_EQ(fdTable().lookup(p[0]).kind, FdKind::NotSocket);
  close(p[0]);
  close(p[1]);
}

TEST_F(ProbeCore, ClosedFdIsNotCachedAndErrnoIsKept) {
  int p[2];
  ASSERT_EQ(pipe(p), 0);
  close(p[0]);
  close(p[1]);
  fdTable().forget(p[0]);
  errno = 77;
  EXPECT_EQ(fdTable().lookup(p[0]).kind, FdKind::Unknown);
  EXPECT_EQ(errno, 77);
  EXPECT_EQ(fdTable().peek(p[0]).kind, FdKind::Unknown);
}

TEST_F(ProbeCore, CloseBumpsTheGenerationSoStateNeverLeaksOntoAReusedFd) {
  int sv[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  onSocketPair(sv, AF_UNIX, SOCK_STREAM);
  uint16_t before = fdTable().peek(sv[0]).gen;
  onClose(sv[0]);
  close(sv[0]);
  EXPECT_NE(fdTable().peek(sv[0]).gen, before);
  int p[2];
  ASSERT_EQ(pipe(p), 0); // takes sv[0]'s number
  ASSERT_EQ(p[0], sv[0]);
  EXPECT_EQ(fdTable().lookup(p[0]).kind, FdKind::NotSocket);
  // sv[1]'s recorded peer is now stale: the pipe must not count as its peer.
  FdState peer = fdTable().peek(sv[1]);
  EXPECT_TRUE(peer.hasPeer);
  EXPECT_NE(static_cast<uint8_t>(fdTable().peek(p[0]).gen), peer.peerGen);
  close(p[0]);
  close(p[1]);
  close(sv[1]);
}

TEST_F(ProbeCore, DupCopiesStateUnderANewGeneration) {
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  onSocketCreated(fd, AF_UNIX, SOCK_STREAM);
  int copy = dup(fd);
  onDup(fd, copy);
  EXPECT_TRUE(fdTable().peek(copy).isUnix());
  onClose(copy);
  close(copy);
  EXPECT_EQ(fdTable().peek(copy).kind, FdKind::Unknown);
  onClose(fd);
  close(fd);
}

TEST_F(ProbeCore, HugeFdsAreCountedAsUntracked) {
  uint64_t before = fdTable().untracked.load();
  EXPECT_EQ(fdTable().lookup(kFdTableSize + 5).kind, FdKind::Unknown);
  EXPECT_EQ(fdTable().untracked.load(), before + 1);
  EXPECT_EQ(fdTable().lookup(-1).kind, FdKind::Unknown);
  EXPECT_EQ(fdTable().untracked.load(), before + 1) << "negative fds are the caller's error, not untracked";
}

TEST_F(ProbeCore, ConcurrentCloseAndReuseLeaveAConsistentSlot) {
  constexpr int kFd = 60000; // a number no real fd of this test uses
  uint16_t before = fdTable().peek(kFd).gen;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([t] {
      for (int i = 0; i < 20000; ++i) {
        if ((i + t) % 2)
          onSocketCreated(kFd, AF_UNIX, SOCK_STREAM);
        else
          fdTable().forget(kFd);
        fdTable().update(kFd, [](FdState &s) { s.passcred = !s.passcred; });
      }
    });
  for (auto &t : threads)
    t.join();
  // 4 x 20000 installs/forgets, each a new generation (16 bits, wrapping).
  EXPECT_EQ(fdTable().peek(kFd).gen, static_cast<uint16_t>(before + 80000));
  fdTable().forget(kFd);
}

// ---- statistics -----------------------------------------------------------------------------------

TEST_F(ProbeCore, Log2BucketsMatchBccFunclatency) {
  EXPECT_EQ(Stats::bucketOf(0), 0);
  EXPECT_EQ(Stats::bucketOf(1), 1);
  EXPECT_EQ(Stats::bucketOf(2), 2);
  EXPECT_EQ(Stats::bucketOf(3), 2);
  EXPECT_EQ(Stats::bucketOf(1023), 10);
  EXPECT_EQ(Stats::bucketOf(1024), 11);
  EXPECT_EQ(Stats::bucketOf(~0ull), kBuckets - 1);
}

TEST_F(ProbeCore, PerThreadCountsMergeExactlyWhileThreadsComeAndGo) {
  StatsSnapshot before;
  stats().snapshot(before);
  constexpr int kThreads = 32, kCalls = 20000;
  std::atomic<bool> done{false};
  // A reader that snapshots while writers run: must be race-free (TSan) and never over-count.
  std::thread reader([&] {
    StatsSnapshot snap;
    while (!done.load()) {
      stats().snapshot(snap);
      EXPECT_LE(snap.calls[histIndex(CallKind::Write, CallClass::NoFds)],
                before.calls[histIndex(CallKind::Write, CallClass::NoFds)] + kThreads * kCalls);
    }
  });
  for (int wave = 0; wave < 2; ++wave) {
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads / 2; ++t)
      threads.emplace_back([] {
        for (int i = 0; i < kCalls; ++i)
          stats().record(histIndex(CallKind::Write, CallClass::NoFds), static_cast<uint64_t>(i % 5000));
        stats().releaseCurrentThread(); // what the pthread key destructor does
      });
    for (auto &t : threads)
      t.join();
  }
  done = true;
  reader.join();
  StatsSnapshot after;
  stats().snapshot(after);
  int h = histIndex(CallKind::Write, CallClass::NoFds);
  EXPECT_EQ(after.calls[h] - before.calls[h], static_cast<uint64_t>(kThreads) * kCalls);
  uint64_t bucketed = 0;
  for (int b = 0; b < kBuckets; ++b)
    bucketed += after.buckets[h][b] - before.buckets[h][b];
  EXPECT_EQ(bucketed, static_cast<uint64_t>(kThreads) * kCalls);
  // i % 5000 == 0 lands in bucket 0: kCalls / 5000 per thread.
  EXPECT_EQ(after.buckets[h][0] - before.buckets[h][0], static_cast<uint64_t>(kThreads) * (kCalls / 5000));
}

TEST_F(ProbeCore, CountingOnlyRecordsNoLatency) {
  StatsSnapshot before, after;
  stats().snapshot(before);
  std::thread([] {
    for (int i = 0; i < 1000; ++i)
      stats().record(histIndex(CallKind::Read, CallClass::NoFds), UINT64_MAX);
    stats().releaseCurrentThread();
  }).join();
  stats().snapshot(after);
  int h = histIndex(CallKind::Read, CallClass::NoFds);
  EXPECT_EQ(after.calls[h] - before.calls[h], 1000u);
  for (int b = 0; b < kBuckets; ++b)
    EXPECT_EQ(after.buckets[h][b], before.buckets[h][b]);
}

// ---- findings -------------------------------------------------------------------------------------

TEST_F(ProbeCore, FindingsCountExactlyUnderContention) {
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([] {
      for (int i = 0; i < 5000; ++i)
        findings().hit(Rule::FdCycle, variant::kOwnQueue, 0x1000 + i % 10, -1);
    });
  for (auto &t : threads)
    t.join();
  std::map<uintptr_t, uint64_t> perSite;
  int n = findings().forEach([&](const FindingView &f) { perSite[f.site] += f.count; });
  EXPECT_EQ(n, 10) << "one finding per call site, however often it fired";
  for (auto &[site, count] : perSite)
    EXPECT_EQ(count, 4000u) << "site " << site;
}

TEST_F(ProbeCore, FullFindingsTableDropsAndCounts) {
  for (int i = 0; i < kFindings + 10; ++i)
    findings().hit(Rule::FdLimit, variant::kFdLimit, 0x1000 + static_cast<uintptr_t>(i), -1);
  EXPECT_EQ(findings().dropped.load(), 10u);
}

// ---- detectors on real kernel answers ---------------------------------------------------------------

// A datagram socketpair, recorded as the socketpair() interceptor records one.
bool trackedDgramPair(int fds[2]) {
  if (socketpair(AF_UNIX, SOCK_DGRAM, 0, fds) != 0)
    return false;
  onSocketPair(fds, AF_UNIX, SOCK_DGRAM);
  return true;
}

ssize_t sendFd(int over, int fd) {
  char byte = 'x';
  iovec iov{&byte, 1};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  cmsghdr *c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  std::memcpy(CMSG_DATA(c), &fd, sizeof fd);
  ssize_t r = sendmsg(over, &msg, 0);
  SendInfo info = inspectSend(over, &msg, r >= 0);
  onSendmsg(over, &msg, info, r, r < 0 ? errno : 0, 1000, 0x4242);
  return r;
}

// As the interceptors do: the probe hears of a close before the kernel does it.
void closeFd(int fd) {
  onClose(fd);
  close(fd);
}

// recvmsg() of one message, through the detector; returns the fds received (closed through the
// probe, as a program's close() would be).
int recvFds(int fd) {
  char byte;
  iovec iov{&byte, 1};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * 4)];
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  ssize_t r = recvmsg(fd, &msg, MSG_DONTWAIT);
  onRecvmsg(fd, &msg, r, 0, 0x4343);
  int n = 0;
  for (cmsghdr *c = r >= 0 ? CMSG_FIRSTHDR(&msg) : nullptr; c; c = CMSG_NXTHDR(&msg, c))
    for (std::size_t i = 0; c->cmsg_type == SCM_RIGHTS && i < (c->cmsg_len - CMSG_LEN(0)) / sizeof(int); ++i, ++n) {
      int got;
      std::memcpy(&got, CMSG_DATA(c) + i * sizeof(int), sizeof got);
      closeFd(got);
    }
  return n;
}

std::vector<FindingView> cycleFindings() {
  std::vector<FindingView> seen;
  findings().forEach([&](const FindingView &f) {
    if (f.rule == Rule::FdCycle)
      seen.push_back(f);
  });
  return seen;
}

uint64_t inodeOf(int fd) {
  struct stat st;
  return fstat(fd, &st) == 0 ? st.st_ino : 0;
}

// The receiving end of a socketpair sent over the other end lands in its own receive queue: once
// both are closed it is garbage (found when its last fd goes), and it stays in flight.
TEST_F(ProbeCore, AnEndInItsOwnQueueIsGarbageOnceClosed) {
  int sv[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv), 0);
  onSocketPair(sv, AF_UNIX, SOCK_DGRAM);
  uint64_t inode = inodeOf(sv[1]);
  ASSERT_EQ(sendFd(sv[0], sv[1]), 1); // NOLINT(afunix-fd-cycle): the cycle is the scenario
  EXPECT_TRUE(cycleFindings().empty()) << "nothing is garbage while its fds are open";
  EXPECT_EQ(counters().inFlight.load(), 1);
  closeFd(sv[0]);
  EXPECT_TRUE(cycleFindings().empty());
  closeFd(sv[1]);
  auto seen = cycleFindings();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].variant, variant::kOwnQueue);
  EXPECT_EQ(seen[0].evidence[0], 1u) << "one socket";
  EXPECT_EQ(seen[0].evidence[2], inode);
  EXPECT_EQ(seen[0].site, 0x4242u) << "at the send that closed the cycle";
  EXPECT_EQ(counters().inFlight.load(), 1) << "the kernel holds it until a GC run";
  EXPECT_EQ(counters().garbageSockets.load(), 1u);
  // The next release of an AF_UNIX socket starts a GC run: the garbage goes.
  int other[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_DGRAM, 0, other), 0);
  onSocketPair(other, AF_UNIX, SOCK_DGRAM);
  closeFd(other[0]);
  closeFd(other[1]);
  EXPECT_EQ(counters().inFlight.load(), 0);
}

// sv[0] sent over sv[0] is queued on sv[1]: sv[1]'s release frees it. Not a cycle.
TEST_F(ProbeCore, ASocketSentOverItselfIsFreedByItsPeer) {
  for (bool peerFirst : {false, true}) {
    int sv[2];
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    onSocketPair(sv, AF_UNIX, SOCK_STREAM);
    ASSERT_EQ(sendFd(sv[0], sv[0]), 1);
    closeFd(sv[peerFirst ? 1 : 0]);
    closeFd(sv[peerFirst ? 0 : 1]);
    EXPECT_TRUE(cycleFindings().empty());
    EXPECT_EQ(counters().inFlight.load(), 0);
  }
}

TEST_F(ProbeCore, ReceivedBackBeforeTheClosesLeavesNothing) {
  int sv[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv), 0);
  onSocketPair(sv, AF_UNIX, SOCK_DGRAM);
  ASSERT_EQ(sendFd(sv[0], sv[1]), 1); // NOLINT(afunix-fd-cycle): received back below
  EXPECT_EQ(recvFds(sv[1]), 1);
  EXPECT_EQ(counters().inFlight.load(), 0);
  closeFd(sv[0]);
  closeFd(sv[1]);
  EXPECT_TRUE(cycleFindings().empty());
  EXPECT_EQ(counters().inFlight.load(), 0);
}

// A datagram socket sent to its own bound address: its own queue too.
TEST_F(ProbeCore, ADatagramSocketSentToItsOwnAddressIsGarbageOnceClosed) {
  int s = socket(AF_UNIX, SOCK_DGRAM, 0);
  ASSERT_GE(s, 0);
  onSocketCreated(s, AF_UNIX, SOCK_DGRAM);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  ASSERT_EQ(bind(s, reinterpret_cast<sockaddr *>(&addr), sizeof(sa_family_t)), 0); // autobind
  onBind(s);
  socklen_t len = sizeof addr;
  ASSERT_EQ(getsockname(s, reinterpret_cast<sockaddr *>(&addr), &len), 0);
  char byte = 'x';
  iovec iov{&byte, 1};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr msg{};
  msg.msg_name = &addr;
  msg.msg_namelen = len;
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  cmsghdr *c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  std::memcpy(CMSG_DATA(c), &s, sizeof s);
  ssize_t r = sendmsg(s, &msg, 0);
  ASSERT_EQ(r, 1);
  onSendmsg(s, &msg, inspectSend(s, &msg, true), r, 0, 1000, 0x4444);
  closeFd(s);
  auto seen = cycleFindings();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].variant, variant::kOwnQueue);
  EXPECT_EQ(seen[0].site, 0x4444u);
}

// The in-flight count is the kernel's: a receiver closed with its fds unread releases them.
TEST_F(ProbeCore, AClosedReceiverReleasesWhatWasQueuedOnIt) {
  int passed[2], sv[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, passed), 0);
  onSocketPair(passed, AF_UNIX, SOCK_STREAM);
  for (int round = 0; round < 3; ++round) {
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv), 0);
    onSocketPair(sv, AF_UNIX, SOCK_DGRAM);
    for (int i = 0; i < 100; ++i)
      ASSERT_EQ(sendFd(sv[0], passed[0]), 1);
    EXPECT_EQ(counters().inFlight.load(), 100);
    closeFd(sv[1]); // 100 fds unread
    EXPECT_EQ(counters().inFlight.load(), 0);
    closeFd(sv[0]);
  }
  EXPECT_EQ(counters().inFlightHighWater.load(), 100) << "sent minus received would say 300";
  EXPECT_EQ(counters().fdsSent.load(), 300u);
  closeFd(passed[0]);
  closeFd(passed[1]);
  EXPECT_TRUE(cycleFindings().empty());
}

// A long-running program passes far more sockets than the graph has room for, one at a time:
// freed sockets give their slots back, and every fd is counted.
TEST_F(ProbeCore, FreedSocketsGiveTheirSlotsBack) {
  // Each turn makes four sockets: kGraphNodes turns fill the graph four times over.
  for (int i = 0; i < kGraphNodes; ++i) {
    int sv[2], passed[2];
    ASSERT_TRUE(trackedDgramPair(sv) && trackedDgramPair(passed));
    ASSERT_EQ(sendFd(sv[0], passed[0]), 1);
    if (i % 2)
      ASSERT_EQ(recvFds(sv[1]), 1);
    for (int fd : {passed[0], passed[1], sv[0], sv[1]})
      closeFd(fd);
  }
  EXPECT_EQ(counters().graphOverflow.load(), 0u);
  EXPECT_EQ(counters().inFlight.load(), 0);
  EXPECT_EQ(counters().inFlightHighWater.load(), 1);
  EXPECT_EQ(counters().fdsSent.load(), static_cast<uint64_t>(kGraphNodes));
}

// Fds in flight over time: the most of each period; when time runs past the last slot the
// resolution halves and what was recorded is kept (a merged period holds its pair's most).
TEST_F(ProbeCore, InFlightTimelineKeepsTheMostOfEachPeriodAndHalvesItsResolution) {
  const uint64_t t0 = 1000000000, period = kTimelineFirstPeriodNs;
  noteInFlightAt(5, t0);
  noteInFlightAt(9, t0 + 100);
  noteInFlightAt(3, t0 + 200);
  noteInFlightAt(7, t0 + 3 * period + 1);
  InFlightTimeline t;
  inFlightTimeline(t);
  EXPECT_EQ(t.periodNs, period);
  ASSERT_EQ(t.slots, 4);
  EXPECT_EQ(t.most[0], 9);
  EXPECT_EQ(t.most[1], -1);
  EXPECT_EQ(t.most[2], -1);
  EXPECT_EQ(t.most[3], 7);

  noteInFlightAt(11, t0 + kTimelineSlots * period); // one period past the last slot
  inFlightTimeline(t);
  EXPECT_EQ(t.periodNs, 2 * period);
  EXPECT_EQ(t.most[0], 9);
  EXPECT_EQ(t.most[1], 7);
  EXPECT_EQ(t.slots, kTimelineSlots / 2 + 1);
  EXPECT_EQ(t.most[kTimelineSlots / 2], 11);

  noteInFlightAt(2, t0 + 1000 * kTimelineSlots * period); // ten merges at once
  inFlightTimeline(t);
  EXPECT_EQ(t.periodNs, 1024 * period);
  EXPECT_EQ(t.most[0], 11);
  EXPECT_EQ(t.slots, 251);
  EXPECT_EQ(t.most[250], 2);

  // A forked child starts its own timeline; a real fd-carrying send records on it.
  graphReset();
  inFlightTimeline(t);
  EXPECT_EQ(t.slots, 0);
  int sv[2], passed[2];
  ASSERT_TRUE(trackedDgramPair(sv) && trackedDgramPair(passed));
  ASSERT_EQ(sendFd(sv[0], passed[0]), 1);
  inFlightTimeline(t);
  ASSERT_GE(t.slots, 1);
  EXPECT_EQ(*std::max_element(t.most, t.most + t.slots), 1);
  for (int fd : {passed[0], passed[1], sv[0], sv[1]})
    closeFd(fd);

  // AFUNIX_PROBE_TIMING=0 reads no clock: no timeline, the high-water counter still counts.
  graphReset();
  counters().reset();
  config().timing = false;
  ASSERT_TRUE(trackedDgramPair(sv) && trackedDgramPair(passed));
  ASSERT_EQ(sendFd(sv[0], passed[0]), 1);
  inFlightTimeline(t);
  EXPECT_EQ(t.slots, 0);
  EXPECT_EQ(counters().inFlightHighWater.load(), 1);
  for (int fd : {passed[0], passed[1], sv[0], sv[1]})
    closeFd(fd);
}

// Every shape of the kernel's scm_rights selftest: one finding per cycle, the cycle's sockets as
// the evidence; nothing when every fd is received first.
TEST_F(ProbeCore, TheSelftestShapesAreFoundAsTheKernelFindsThem) {
  for (int s = 0; s < AFUNIX_GC_SHAPE_COUNT; ++s) {
    const afunix_gc_shape &shape = afunix_gc_shapes[s];
    for (bool receiveFirst : {false, true}) {
      SCOPED_TRACE(std::string(shape.name) + (receiveFirst ? " received first" : " garbage"));
      findings().reset();
      counters().reset();
      graphReset();
      int fd[2 * AFUNIX_GC_SHAPE_MAX_VERTICES];
      for (int v = 0; v < shape.vertices; ++v) {
        ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fd + 2 * v), 0);
        onSocketPair(fd + 2 * v, AF_UNIX, SOCK_STREAM);
      }
      for (int i = 0; i < shape.sends; ++i)
        ASSERT_EQ(sendFd(fd[2 * shape.send[i].receiver + 1], fd[2 * shape.send[i].inflight]), 1);
      if (receiveFirst)
        for (int v = 0; v < shape.vertices; ++v)
          while (recvFds(fd[2 * v]) > 0) {
          }
      for (int v = 0; v < 2 * shape.vertices; ++v) // the selftest's order: fd[0], fd[1], ...
        closeFd(fd[v]);
      int sockets = 0, findingsMade = 0;
      for (const FindingView &f : cycleFindings()) {
        findingsMade += static_cast<int>(f.count);
        sockets += static_cast<int>(f.evidence[0]) * static_cast<int>(f.count);
      }
      if (receiveFirst) {
        EXPECT_EQ(findingsMade, 0);
        EXPECT_EQ(counters().inFlight.load(), 0);
      } else {
        EXPECT_EQ(findingsMade, shape.cycles);
        EXPECT_EQ(counters().garbageSockets.load(), static_cast<uint64_t>(shape.cyclic));
      }
    }
  }
}

// Threads passing, receiving and closing at once: the graph stays consistent (TSan checks the
// races) and ends with nothing in flight.
TEST_F(ProbeCore, TheGraphStaysConsistentUnderConcurrency) {
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([] {
      for (int i = 0; i < 200; ++i) {
        int sv[2];
        if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) != 0)
          continue;
        onSocketPair(sv, AF_UNIX, SOCK_DGRAM);
        sendFd(sv[0], sv[0]);
        if (i % 2)
          recvFds(sv[1]);
        closeFd(sv[0]);
        closeFd(sv[1]);
      }
    });
  for (auto &t : threads)
    t.join();
  EXPECT_EQ(counters().inFlight.load(), 0);
  EXPECT_TRUE(cycleFindings().empty());
}

TEST_F(ProbeCore, LateSoPasscredGivesPidZeroCredentials) {
  int sv[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  onSocketPair(sv, AF_UNIX, SOCK_STREAM);
  ASSERT_EQ(write(sv[0], "x", 1), 1);
  int one = 1;
  ASSERT_EQ(setsockopt(sv[1], SOL_SOCKET, SO_PASSCRED, &one, sizeof one), 0);
  onSetsockopt(sv[1], SOL_SOCKET, SO_PASSCRED, &one, sizeof one, 0, 0);
  char data[4];
  iovec iov{data, sizeof data};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(ucred))];
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  ssize_t r = recvmsg(sv[1], &msg, 0);
  ASSERT_EQ(r, 1);
  EXPECT_EQ(onRecvmsg(sv[1], &msg, r, 0, 0x4343), CallClass::Creds);
  EXPECT_EQ(counters().credsPidZero.load(), 1u) << "the kernel delivered pid 0 for a message queued before SO_PASSCRED";
  int hits = 0;
  findings().forEach([&](const FindingView &f) {
    hits += f.rule == Rule::PasscredTooLate;
    EXPECT_EQ(f.evidence[0], 0u);
    EXPECT_EQ(f.evidence[1], 65534u);
  });
  EXPECT_EQ(hits, 1);
  close(sv[0]);
  close(sv[1]);
}

TEST_F(ProbeCore, WrongFamilyRecordsTheKernelsAnswer) {
  int fd = socket(AF_INET, SOCK_DGRAM, 0);
  ASSERT_GE(fd, 0);
  onSocketCreated(fd, AF_INET, SOCK_DGRAM);
  int one = 1;
  int r = setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one); // NOLINT(afunix-passcred-wrong-family): the scenario
  int err = r ? errno : 0;
  onSetsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one, r, err, 0x4444); // NOLINT(afunix-passcred-wrong-family)
  std::vector<FindingView> seen;
  findings().forEach([&](const FindingView &f) { seen.push_back(f); });
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].rule, Rule::PasscredWrongFamily);
  EXPECT_EQ(seen[0].evidence[1], static_cast<uint64_t>(AF_INET));
  EXPECT_EQ(seen[0].evidence[2], static_cast<uint64_t>(err));
  close(fd);
}

// ---- call sites ------------------------------------------------------------------------------------

// The build-id readelf reports for `path`, lowercase hex.
std::string readelfBuildId(const std::string &path) {
  std::string out;
  if (FILE *p = popen(("readelf -n '" + path + "' 2>/dev/null").c_str(), "r")) {
    char line[512];
    while (std::fgets(line, sizeof line, p))
      if (const char *at = std::strstr(line, "Build ID: ")) {
        out = at + 10;
        out.erase(out.find_last_not_of(" \n") + 1);
      }
    pclose(p);
  }
  return out;
}

TEST_F(ProbeCore, ModulesAreNamedWithTheirBuildId) {
  refreshProcessInfo(true);
  int m = moduleOf(reinterpret_cast<uintptr_t>(&readelfBuildId));
  ASSERT_GE(m, 0);
  const Module *module = moduleAt(m);
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(std::string(module->path), processInfo().exe) << "the main program is named by /proc/self/exe";
  std::string hex;
  char byte[3];
  for (int i = 0; i < module->buildIdLength; ++i) {
    std::snprintf(byte, sizeof byte, "%02x", module->buildId[i]);
    hex += byte;
  }
  EXPECT_EQ(hex, readelfBuildId(processInfo().exe));
  EXPECT_EQ(moduleOf(reinterpret_cast<uintptr_t>(&readelfBuildId)), m) << "registered once";
}

TEST_F(ProbeCore, AStackStartsAtTheCallSiteAndReachesItsCallers) {
  // The "interceptor" here is this lambda's caller chain: captureStack must find `site` among
  // the unwound return addresses and keep what follows.
  uintptr_t frames[kStackDepth];
  int n = [&]() __attribute__((noinline)) {
    uintptr_t site = reinterpret_cast<uintptr_t>(__builtin_return_address(0));
    return captureStack(site, frames, kStackDepth);
  }();
  ASSERT_GE(n, 2) << "the site and at least one caller";
  EXPECT_EQ(moduleOf(frames[0]), moduleOf(reinterpret_cast<uintptr_t>(&readelfBuildId)));
}

// ---- reports --------------------------------------------------------------------------------------

TEST_F(ProbeCore, JsonReportHasTheStableKeys) {
  refreshProcessInfo(true);
  int sv[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv), 0);
  onSocketPair(sv, AF_UNIX, SOCK_DGRAM, 0x5000);
  findings().hit(Rule::FdLimit, variant::kFdLimit, 0x4545, sv[0])[0].store(300);
  std::thread([] {
    stats().record(histIndex(CallKind::Send, CallClass::UnixFds), 1500);
    stats().releaseCurrentThread();
  }).join();
  static char buf[1 << 19];
  std::size_t n = renderJson(buf, sizeof buf, "exit");
  YAML::Node report = YAML::Load(std::string(buf, n));
  EXPECT_EQ(report["version"].as<int>(), 2);
  EXPECT_EQ(report["process"]["pid"].as<int>(), getpid());
  EXPECT_EQ(report["process"]["ppid"].as<int>(), getppid());
  EXPECT_FALSE(report["process"]["exe"].as<std::string>().empty());
  EXPECT_FALSE(report["process"]["argv0"].as<std::string>().empty());
  ASSERT_EQ(report["findings"].size(), 1u);
  const auto &f = report["findings"][0];
  EXPECT_EQ(f["rule"].as<std::string>(), "afunix-fd-limit");
  EXPECT_EQ(f["fd"].as<int>(), sv[0]);
  EXPECT_EQ(f["count"].as<int>(), 1);
  EXPECT_EQ(f["site"]["pc"].as<std::string>(), "0x4545");
  EXPECT_EQ(f["socket"]["type"].as<std::string>(), "dgram");
  EXPECT_EQ(f["socket"]["role"].as<std::string>(), "socketpair");
  EXPECT_EQ(f["socket"]["pair_fd"].as<int>(), sv[1]);
  EXPECT_EQ(f["socket"]["local"]["kind"].as<std::string>(), "unnamed");
  EXPECT_EQ(f["socket"]["origin"]["at"]["pc"].as<std::string>(), "0x5000");
  close(sv[0]);
  close(sv[1]);
  EXPECT_EQ(f["evidence"]["fds_in_message"].as<int>(), 300);
  EXPECT_NE(f["message"].as<std::string>().find("300 fds"), std::string::npos) << f["message"].as<std::string>();
  EXPECT_TRUE(report["counters"]["send_calls"]);
  bool found = false;
  for (const auto &h : report["histograms"])
    if (h["call"].as<std::string>() == "send" && h["class"].as<std::string>() == "unix_fds") {
      found = true;
      EXPECT_GE(h["log2_ns"][11].as<int>(), 1); // 1500 ns: [1024, 2047]
    }
  EXPECT_TRUE(found);
}

TEST_F(ProbeCore, TextReportUsesFunclatencyLayout) {
  refreshProcessInfo(true);
  std::thread([] {
    stats().record(histIndex(CallKind::Read, CallClass::NoFds), 700);
    stats().releaseCurrentThread();
  }).join();
  static char buf[1 << 19];
  std::string text(buf, renderText(buf, sizeof buf, "exit"));
  EXPECT_NE(text.find("     nsecs               : count     distribution\n"), std::string::npos);
  EXPECT_NE(text.find("       512 -> 1023       : "), std::string::npos) << text;
}

TEST_F(ProbeCore, ReportFileIsCreatedPrivateAndRewrittenInPlace) {
  std::string dir = tempDir();
  ReportFile file;
  std::snprintf(file.path, sizeof file.path, "%s/report.json", dir.c_str());
  ASSERT_EQ(writeFileSafely(file, "first version, longer", 21), 0);
  struct stat st;
  ASSERT_EQ(stat(file.path, &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  ASSERT_EQ(writeFileSafely(file, "second", 6), 0);
  EXPECT_EQ(readFile(file.path), "second");
  // Someone swaps the file for another: the probe does not write into it.
  unlink(file.path);
  { std::ofstream(file.path) << "theirs"; }
  EXPECT_EQ(writeFileSafely(file, "third", 5), EEXIST);
  EXPECT_EQ(readFile(file.path), "theirs");
  unlink(file.path);
  rmdir(dir.c_str());
}

TEST_F(ProbeCore, ReportFileNeverFollowsASymlink) {
  std::string dir = tempDir();
  std::string target = dir + "/target";
  { std::ofstream(target) << "precious"; }
  ReportFile file;
  std::snprintf(file.path, sizeof file.path, "%s/report.json", dir.c_str());
  ASSERT_EQ(symlink(target.c_str(), file.path), 0);
  EXPECT_EQ(writeFileSafely(file, "report", 6), EEXIST);
  EXPECT_EQ(readFile(target), "precious");
  unlink(file.path);
  unlink(target.c_str());
  rmdir(dir.c_str());
}

TEST_F(ProbeCore, ReportFileNeverClobbersAnExistingFile) {
  std::string dir = tempDir();
  ReportFile file;
  std::snprintf(file.path, sizeof file.path, "%s/report.json", dir.c_str());
  { std::ofstream(file.path) << "earlier"; }
  EXPECT_EQ(writeFileSafely(file, "report", 6), EEXIST);
  EXPECT_EQ(readFile(file.path), "earlier");
  unlink(file.path);
  rmdir(dir.c_str());
}

// ---- environment ----------------------------------------------------------------------------------

std::map<std::string, std::string> gEnv;
const char *fakeGetenv(const char *name) {
  auto it = gEnv.find(name);
  return it == gEnv.end() ? nullptr : it->second.c_str();
}

TEST_F(ProbeCore, GoodEnvironmentIsParsed) {
  std::string dir = tempDir();
  gEnv = {{"AFUNIX_PROBE_TIMING", "0"}, {"AFUNIX_PROBE_INTERVAL", "5"}, {"AFUNIX_PROBE_SLOW_NS", "2500"},
          {"AFUNIX_PROBE_DIR", dir}, {"AFUNIX_PROBE_FIX", "passcred"}, {"AFUNIX_PROBE_FORMAT", "both"},
          {"AFUNIX_PROBE_STACKS", "0"}, {"AFUNIX_PROBE_SITES", "1"}, {"TMPDIR", "/var/tmp"}};
  Config c;
  char messages[1024];
  EXPECT_TRUE(parseConfig(fakeGetenv, c, messages, sizeof messages));
  EXPECT_STREQ(messages, "");
  EXPECT_FALSE(c.timing);
  EXPECT_EQ(c.intervalNs, 5000000000ull);
  EXPECT_EQ(c.slowNs, 2500u);
  EXPECT_TRUE(c.dirUsable);
  EXPECT_TRUE(c.fixPasscred);
  EXPECT_TRUE(c.reportText && c.reportJson);
  EXPECT_FALSE(c.stacks);
  EXPECT_TRUE(c.sites);
  EXPECT_STREQ(c.fallbackDir, "/var/tmp");
  rmdir(dir.c_str());
}

TEST_F(ProbeCore, BadEnvironmentValuesGiveOneLineEachAndDefaults) {
  gEnv = {{"AFUNIX_PROBE_INTERVAL", "10s"}, {"AFUNIX_PROBE_SLOW_NS", "-1"}, {"AFUNIX_PROBE_TIMING", "yes"},
          {"AFUNIX_PROBE_DIR", "/nonexistent/afunix-probe"}, {"AFUNIX_PROBE_STACKS", "no"},
          {"AFUNIX_PROBE_SITES", "all"}, {"TMPDIR", "relative/dir"}};
  Config c;
  char messages[2048];
  EXPECT_FALSE(parseConfig(fakeGetenv, c, messages, sizeof messages));
  std::string text = messages;
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 6) << text;
  EXPECT_TRUE(c.stacks) << "default kept";
  EXPECT_FALSE(c.sites);
  EXPECT_STREQ(c.fallbackDir, "/tmp") << "a relative TMPDIR is not used";
  EXPECT_NE(text.find("AFUNIX_PROBE_INTERVAL must be a whole number of seconds, got '10s'"), std::string::npos);
  EXPECT_NE(text.find("AFUNIX_PROBE_DIR '/nonexistent/afunix-probe' is not a directory"), std::string::npos);
  EXPECT_EQ(c.intervalNs, 0u);
  EXPECT_EQ(c.slowNs, 100000u);
  EXPECT_TRUE(c.timing);
  EXPECT_FALSE(c.dirUsable);
}

TEST_F(ProbeCore, ReportDirThatIsAFileIsRefused) {
  char path[] = "/tmp/afunix-probe-file-XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  gEnv = {{"AFUNIX_PROBE_DIR", path}};
  Config c;
  char messages[1024];
  EXPECT_FALSE(parseConfig(fakeGetenv, c, messages, sizeof messages));
  EXPECT_FALSE(c.dirUsable);
  unlink(path);
}

} // namespace
