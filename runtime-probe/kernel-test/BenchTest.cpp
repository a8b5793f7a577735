// The benches' workloads: they do the work they claim (every byte arrives) and clean up.
#include <gtest/gtest.h>
#include <sys/socket.h>

#include "TestSupport.h"
#include "afunix/kernel/Hackbench.h"

namespace afunix::kernel {
namespace {

TEST(Hackbench, ThreadsAndProcessesFinishAndCleanUp) {
  test::LeakGuard guard;
  for (bool threads : {true, false})
    for (bool passcred : {false, true}) {
      HackbenchOptions o;
      o.groups = 2;
      o.loops = 20;
      o.threads = threads;
      o.passcred = passcred;
      std::string error;
      double t = runHackbench(o, error);
      EXPECT_GT(t, 0) << error;
    }
}

TEST(Hackbench, RejectsNonsense) {
  HackbenchOptions o;
  o.groups = 0;
  std::string error;
  EXPECT_LT(runHackbench(o, error), 0);
  EXPECT_FALSE(error.empty());
}

TEST(Throughput, MovesDataForStreamAndDgram) {
  test::LeakGuard guard;
  for (int type : {SOCK_STREAM, SOCK_DGRAM}) {
    ThroughputResult r = measureThroughput(type, 4096, 0.1);
    EXPECT_TRUE(r.error.empty()) << r.error;
    EXPECT_GT(r.messagesPerSecond, 100.0);
    EXPECT_NEAR(r.mibPerSecond * 1024 * 1024 / 4096, r.messagesPerSecond,
                r.messagesPerSecond * 0.01 + 1);
  }
}

} // namespace
} // namespace afunix::kernel
