// The harness every experiment runs in: isolation, deadlines, cleanup and the wire format.
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "TestSupport.h"
#include "afunix/kernel/Experiment.h"

namespace afunix::kernel {
namespace {

// Gone, or a zombie waiting for whatever reaps orphans here.
bool processDead(pid_t pid) {
  FILE *f = std::fopen(("/proc/" + std::to_string(pid) + "/stat").c_str(), "r");
  if (!f)
    return true;
  char buf[512] = {};
  std::size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  const char *paren = std::strrchr(buf, ')');
  return n == 0 || (paren && (paren[2] == 'Z' || paren[2] == 'X'));
}

TEST(ExperimentRunner, ObservationSurvivesTheWireFormat) {
  Observation o;
  o.experiment = "sample";
  o.status = Status::Skipped;
  o.reason = "why\nwith a newline \\ and a backslash";
  o.set("a.null", Value::null());
  o.set("a.flag", Value::of(true));
  o.set("a.count", Value::of(-42));
  o.set("a.real", Value::of(0.125));
  o.set("a.text", Value::of("pid0 x"));
  o.note("evidence");
  o.implies("meaning", {"afunix-fd-limit"});
  Observation back;
  ASSERT_TRUE(deserialize(serialize(o), back));
  EXPECT_EQ(back.experiment, "sample");
  EXPECT_EQ(back.status, Status::Skipped);
  EXPECT_EQ(back.reason, o.reason);
  ASSERT_EQ(back.values.size(), 5u);
  EXPECT_TRUE(back.get("a.null")->isNull());
  EXPECT_TRUE(back.get("a.flag")->boolean);
  EXPECT_EQ(back.get("a.count")->integer, -42);
  EXPECT_DOUBLE_EQ(back.get("a.real")->real, 0.125);
  EXPECT_EQ(back.get("a.text")->text, "pid0 x");
  EXPECT_EQ(back.rules, std::vector<std::string>{"afunix-fd-limit"});
}

TEST(ExperimentRunner, TruncatedWireDataIsRejected) {
  Observation o;
  o.experiment = "x";
  std::string wire = serialize(o);
  Observation back;
  EXPECT_FALSE(deserialize(wire.substr(0, wire.size() - 6), back));
}

TEST(ExperimentRunner, RunsInAChildInAPrivateNetworkNamespaceWhenPermitted) {
  test::LeakGuard guard;
  const pid_t self = getpid();
  struct stat ownNetns {};
  ASSERT_EQ(stat("/proc/self/ns/net", &ownNetns), 0);
  Observation o = runIsolated(
      "probe",
      [self] {
        Observation r;
        struct stat childNetns {};
        stat("/proc/self/ns/net", &childNetns);
        r.set("pid_differs", Value::of(getpid() != self));
        r.set("netns_inode", Value::of(static_cast<long long>(childNetns.st_ino)));
        return r;
      },
      Isolation{10, true});
  ASSERT_EQ(o.status, Status::Ok) << o.reason;
  EXPECT_TRUE(o.get("pid_differs")->boolean);
  ASSERT_FALSE(o.evidence.empty());
  // unshare(CLONE_NEWNET) needs CAP_SYS_ADMIN; without it the note says so and nothing breaks.
  bool isPrivate = o.evidence.front().find("private network namespace") != std::string::npos;
  EXPECT_EQ(isPrivate, o.get("netns_inode")->integer != static_cast<long long>(ownNetns.st_ino))
      << o.evidence.front();
  if (geteuid() == 0)
    EXPECT_TRUE(isPrivate) << o.evidence.front();
}

TEST(ExperimentRunner, AStuckExperimentIsKilledWithItsHelpersAndReportedAsTimedOut) {
  test::LeakGuard guard;
  int pidPipe[2];
  ASSERT_EQ(pipe2(pidPipe, O_CLOEXEC), 0);
  auto start = std::chrono::steady_clock::now();
  Observation o = runIsolated(
      "stuck",
      [&] {
        pid_t helper = fork();
        if (helper == 0) {
          for (;;)
            pause();
        }
        (void)!write(pidPipe[1], &helper, sizeof helper);
        for (;;)
          pause();
        return Observation{};
      },
      Isolation{0.5, false});
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  close(pidPipe[1]);
  pid_t helper = 0;
  ASSERT_EQ(read(pidPipe[0], &helper, sizeof helper), static_cast<ssize_t>(sizeof helper));
  close(pidPipe[0]);
  EXPECT_EQ(o.status, Status::TimedOut);
  EXPECT_NE(o.reason.find("killed"), std::string::npos);
  EXPECT_LT(seconds, 5.0);
  // The helper was in the experiment's process group; give the kernel a moment to reap it.
  bool gone = false;
  for (int i = 0; i < 100 && !gone; ++i) {
    gone = processDead(helper);
    if (!gone)
      usleep(10000);
  }
  EXPECT_TRUE(gone) << "helper " << helper << " outlived the timed-out experiment";
}

TEST(ExperimentRunner, ACrashingExperimentIsReportedAsFailed) {
  test::LeakGuard guard;
  Observation o = runIsolated(
      "crash",
      []() -> Observation {
        raise(SIGKILL);
        return {};
      },
      Isolation{5, false});
  EXPECT_EQ(o.status, Status::Failed);
  EXPECT_NE(o.reason.find("signal 9"), std::string::npos) << o.reason;
}

} // namespace
} // namespace afunix::kernel
