// The benches' workloads: they do the work they claim (every byte arrives) and clean up; and the
// `afunix-probe bench` commands say what their numbers mean (JSON, the gc verdict).
#include <cstdio>
#include <gtest/gtest.h>
#include <string>
#include <sys/socket.h>
#include <sys/wait.h>

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

std::string bench(const std::string &args, int &status) {
  std::string out;
  FILE *p = popen((std::string(AFUNIX_PROBE_BIN) + " bench " + args + " 2>&1").c_str(), "r");
  char buf[4096];
  for (std::size_t n; p && (n = std::fread(buf, 1, sizeof buf, p)) > 0;)
    out.append(buf, n);
  int raw = p ? pclose(p) : -1;
  status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return out;
}

TEST(BenchGc, TheHeaderNamesTheBlocksAndBelowTheUserThresholdThereIsNoVerdict) {
  int status = 0;
  std::string out = bench("gc --inflight 2000 --samples 64", status);
  EXPECT_EQ(status, 0) << out;
  EXPECT_NE(out.find("gc: 6 blocks of 64 one-byte dgram sendmsg(), without an fd and with one AF_UNIX fd: 2 "
                     "with nothing in flight, then 4 with 2000 AF_UNIX sockets in flight"),
            std::string::npos)
      << out;
  for (const char *block : {"\nnothing in flight, no fd: 64 calls", "\nnothing in flight, one AF_UNIX fd: 64 calls",
                            "\nin flight, no fd: 64 calls", "\nin flight, one AF_UNIX fd: 64 calls",
                            "\nin flight with reference cycles, no fd: 64 calls",
                            "\nin flight with reference cycles, one AF_UNIX fd: 64 calls"})
    EXPECT_NE(out.find(block), std::string::npos) << block;
  // Below UNIX_INFLIGHT_SANE_USER no send waits: the numbers cannot show throttling.
  EXPECT_NE(out.find("verdict: no verdict: 2000 fds in flight is below the 2024"), std::string::npos) << out;
  out = bench("gc --inflight 2000 --samples 64 --cycles", status);
  EXPECT_NE(out.find("gc: 4 blocks of 64"), std::string::npos) << "only the blocks that run are announced: " << out;
}

TEST(BenchJson, EveryBenchmarkPrintsOneObject) {
  int status = 0;
  for (const char *args : {"hackbench -g 1 -l 5 --rounds 1 --format json", "gc --inflight 500 --samples 16 --format json",
                           "meminit --sizes 64 --seconds 0.05 --format json"}) {
    std::string out = bench(args, status);
    EXPECT_EQ(status, 0) << args << ": " << out;
    EXPECT_EQ(out.front(), '{') << args << ": " << out;
    EXPECT_EQ(out.substr(out.size() - 2), "}\n") << args;
    EXPECT_EQ(out.find('\n'), out.size() - 1) << "one line: " << args;
    EXPECT_NE(out.find("\"benchmark\":"), std::string::npos);
  }
  std::string gc = bench("gc --inflight 500 --samples 16 --format json", status);
  EXPECT_NE(gc.find("\"verdict\":\"no verdict: 500 fds"), std::string::npos) << gc;
  EXPECT_EQ(bench("meminit --format yaml", status).find("--format takes text or json"), 0u + std::string("afunix-probe bench: ").size());
  EXPECT_EQ(status, 2);
}

} // namespace
} // namespace afunix::kernel
