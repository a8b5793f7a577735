// afunix-probe run on real programs, in the style of the kernel's af_unix selftests: a fixture per
// scenario, variants over the testdata/probe programs. Each program declares what the probe must
// report (PROBE-EXPECT), and must behave byte-for-byte the same with and without the probe.
#include <gtest/gtest.h>
#include "afunix/kernel/gc_shapes.h"
#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <climits>
#include <cstring>
#include <dirent.h>
#include <dlfcn.h>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace {

// The kernel selftest's shapes, from the one table (afunix/kernel/gc_shapes.h).
struct Shape {
  std::string name;
  int cycles, cyclic, held;
};
const std::vector<Shape> kShapes = [] {
  std::vector<Shape> out;
  for (int s = 0; s < AFUNIX_GC_SHAPE_COUNT; ++s)
    out.push_back({afunix_gc_shapes[s].name, afunix_gc_shapes[s].cycles, afunix_gc_shapes[s].cyclic,
                   afunix_gc_shapes[s].held});
  return out;
}();

const std::string kProbe = AFUNIX_PROBE_BIN;
const std::string kLibrary = AFUNIX_PROBE_LIB;
const std::string kPrograms = AFUNIX_PROBE_TESTDATA_BIN;
const std::string kSources = std::string(AFUNIX_SOURCE_DIR) + "/testdata/probe";
const std::string kSanitizerRuntime = AFUNIX_PROBE_SANITIZER_RUNTIME;

struct Result {
  int status = -1;
  std::string out, err;
};

std::string readFile(const std::string &path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string tempDir() {
  char pattern[] = "/tmp/afunix-probe-run-XXXXXX";
  const char *dir = mkdtemp(pattern);
  return dir ? dir : "";
}

void removeTree(const std::string &dir) {
  if (DIR *d = opendir(dir.c_str())) {
    while (dirent *e = readdir(d))
      if (std::string(e->d_name) != "." && std::string(e->d_name) != "..")
        unlink((dir + "/" + e->d_name).c_str());
    closedir(d);
  }
  rmdir(dir.c_str());
}

// Runs argv with extra environment; stdout/stderr captured through files.
Result run(const std::vector<std::string> &argv, const std::vector<std::string> &env = {}) {
  std::string dir = tempDir();
  std::string out = dir + "/stdout", err = dir + "/stderr";
  pid_t pid = fork();
  if (pid == 0) {
    freopen(out.c_str(), "w", stdout);
    freopen(err.c_str(), "w", stderr);
    for (const auto &e : env)
      putenv(const_cast<char *>(e.c_str()));
    std::vector<char *> args;
    for (const auto &a : argv)
      args.push_back(const_cast<char *>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  Result r;
  int status = 0;
  waitpid(pid, &status, 0);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = readFile(out);
  r.err = readFile(err);
  removeTree(dir);
  return r;
}

// `afunix-probe run --format json --report FILE [options] -- program args`: the program's own
// result, and the merged summary.
struct Probed {
  Result program;
  YAML::Node summary;
};
Probed probe(const std::vector<std::string> &command, const std::vector<std::string> &options = {},
             const std::vector<std::string> &env = {}) {
  std::string dir = tempDir();
  std::vector<std::string> argv = {kProbe, "run", "--format", "json", "--report", dir + "/summary.json"};
  argv.insert(argv.end(), options.begin(), options.end());
  argv.push_back("--");
  argv.insert(argv.end(), command.begin(), command.end());
  Probed p;
  p.program = run(argv, env);
  std::string text = readFile(dir + "/summary.json");
  removeTree(dir);
  if (!text.empty())
    p.summary = YAML::Load(text);
  return p;
}

// The program's source (testdata/probe/NAME.c or NAME.cpp).
std::string sourceOf(const std::string &program) {
  std::string c = kSources + "/" + program + ".c";
  return access(c.c_str(), R_OK) == 0 ? c : kSources + "/" + program + ".cpp";
}

std::set<std::string> expectedRules(const std::string &program) {
  std::set<std::string> rules;
  std::istringstream in(readFile(sourceOf(program)));
  std::string line;
  while (std::getline(in, line)) {
    auto at = line.find("PROBE-EXPECT: ");
    if (at == std::string::npos)
      continue;
    std::string id = line.substr(at + 14);
    id = id.substr(0, id.find_first_of(" \t\r"));
    if (id != "none")
      rules.insert(id);
  }
  return rules;
}

std::set<std::string> reportedRules(const YAML::Node &summary) {
  std::set<std::string> rules;
  for (const auto &f : summary["totals"]["findings"])
    rules.insert(f["rule"].as<std::string>());
  return rules;
}

uint64_t total(const YAML::Node &summary, const char *counter) {
  return summary["totals"]["counters"][counter].as<uint64_t>();
}

// The environment a sanitized program needs to load the probe directly (runtime first).
std::string preloadValue() { return kSanitizerRuntime.empty() ? kLibrary : kSanitizerRuntime + ":" + kLibrary; }

// ---- every testdata program: detections and unchanged behaviour ------------------------------------

std::vector<std::string> programs() {
  std::vector<std::string> names;
  if (DIR *d = opendir(kSources.c_str())) {
    while (dirent *e = readdir(d)) {
      std::string name = e->d_name;
      if (name.size() > 2 && name.substr(name.size() - 2) == ".c")
        names.push_back(name.substr(0, name.size() - 2));
      else if (name.size() > 4 && name.substr(name.size() - 4) == ".cpp")
        names.push_back(name.substr(0, name.size() - 4));
    }
    closedir(d);
  }
  std::sort(names.begin(), names.end());
  return names;
}

class TestdataProgram : public ::testing::TestWithParam<std::string> {};

TEST_P(TestdataProgram, ReportsExactlyWhatItDeclares) {
  // Slow fd-carrying sends are fd-flood evidence, but whether a send is slow depends on garbage
  // other processes of this user left for the unix GC: the threshold is raised out of the way here
  // and tested on its own below.
  Probed p = probe({kPrograms + "/" + GetParam()}, {}, {"AFUNIX_PROBE_SLOW_NS=60000000000"});
  ASSERT_EQ(p.program.status, 0) << p.program.err;
  ASSERT_TRUE(p.summary.IsMap()) << p.program.err;
  EXPECT_EQ(reportedRules(p.summary), expectedRules(GetParam()));
  EXPECT_EQ(p.summary["exit_status"].as<int>(), 0);
}

TEST_P(TestdataProgram, BehavesTheSameWithAndWithoutTheProbe) {
  Result plain = run({kPrograms + "/" + GetParam()});
  Probed p = probe({kPrograms + "/" + GetParam()});
  EXPECT_EQ(p.program.status, plain.status);
  EXPECT_EQ(p.program.out, plain.out) << "the program's stdout changed under the probe";
  EXPECT_FALSE(plain.out.empty());
}

INSTANTIATE_TEST_SUITE_P(Probe, TestdataProgram, ::testing::ValuesIn(programs()),
                         [](const auto &info) { return info.param; });

// ---- every finding names its call and its socket --------------------------------------------------

// Lines of `file` holding `marker`, with the rest of the line after it.
std::vector<std::pair<unsigned, std::string>> markedLines(const std::string &file, const std::string &marker) {
  std::vector<std::pair<unsigned, std::string>> found;
  std::istringstream in(readFile(file));
  std::string line;
  for (unsigned n = 1; std::getline(in, line); ++n)
    if (auto at = line.find(marker); at != std::string::npos)
      found.emplace_back(n, line.substr(at + marker.size()));
  return found;
}

std::string realPath(const std::string &path) {
  char resolved[PATH_MAX];
  return realpath(path.c_str(), resolved) ? resolved : path;
}

std::vector<std::string> programsWithCallMarkers() {
  std::vector<std::string> names;
  for (const std::string &p : programs())
    if (!markedLines(sourceOf(p), "PROBE-AT: ").empty())
      names.push_back(p);
  return names;
}

class FindingSite : public ::testing::TestWithParam<std::string> {};

// Built with -g, every finding says where its call is: the exact line of the intercepted call
// (in the program, or in the probe_util.h helper it calls), a frame of its stack at the program
// line marked PROBE-AT, and the socket's type, role and creation line (PROBE-SOCKET).
TEST_P(FindingSite, NamesTheExactCallLineAndTheSocket) {
  const std::string source = realPath(sourceOf(GetParam()));
  const std::string helper = realPath(kSources + "/probe_util.h");
  std::set<unsigned> helperCalls;
  for (const auto &[line, rest] : markedLines(helper, "/* PROBE-CALL */"))
    helperCalls.insert(line);
  ASSERT_FALSE(helperCalls.empty());
  Probed p = probe({kPrograms + "/" + GetParam()}, {}, {"AFUNIX_PROBE_SLOW_NS=60000000000"});
  ASSERT_EQ(p.program.status, 0) << p.program.err;
  ASSERT_TRUE(p.summary["findings"].IsSequence()) << p.program.err;
  std::map<std::string, std::set<unsigned>> callLines, seenCallLines;
  for (const auto &[line, rest] : markedLines(source, "PROBE-AT: "))
    callLines[rest.substr(0, rest.find_first_of(" \t"))].insert(line);
  std::map<std::string, std::pair<unsigned, std::string>> sockets; // rule -> (line, "type role")
  for (const auto &[line, rest] : markedLines(source, "PROBE-SOCKET: ")) {
    std::istringstream fields(rest);
    std::string rule, type, role;
    fields >> rule >> type >> role;
    sockets[rule] = {line, type + " " + role};
  }
  ASSERT_GT(p.summary["findings"].size(), 0u);
  for (const auto &f : p.summary["findings"]) {
    std::string rule = f["rule"].as<std::string>();
    SCOPED_TRACE(rule + " at " + (f["location"].IsMap() ? f["location"]["file"].as<std::string>() + ":" +
                                                              f["location"]["line"].as<std::string>()
                                                        : std::string("?")));
    ASSERT_TRUE(callLines.count(rule)) << "no PROBE-AT marker for " << rule;
    ASSERT_TRUE(f["location"].IsMap()) << "no file:line: built without -g, or not symbolised";
    std::string file = realPath(f["location"]["file"].as<std::string>());
    unsigned line = f["location"]["line"].as<unsigned>();
    if (file == helper)
      EXPECT_TRUE(helperCalls.count(line)) << "the call is a PROBE-CALL line of probe_util.h, not line " << line;
    else
      EXPECT_EQ(file, source) << "the call is in the program";
    if (file == source)
      EXPECT_TRUE(callLines[rule].count(line)) << "line " << line << " is not marked PROBE-AT: " << rule;
    bool programFrame = false;
    for (const auto &frame : f["stack"])
      if (frame["file"] && realPath(frame["file"].as<std::string>()) == source &&
          callLines[rule].count(frame["line"].as<unsigned>())) {
        programFrame = true;
        seenCallLines[rule].insert(frame["line"].as<unsigned>());
      }
    EXPECT_TRUE(programFrame) << "no frame of the stack at a PROBE-AT line";
    ASSERT_TRUE(f["socket"].IsMap());
    EXPECT_TRUE(f["socket"]["known"].as<bool>());
    if (sockets.count(rule)) {
      EXPECT_EQ(f["socket"]["type"].as<std::string>() + " " + f["socket"]["role"].as<std::string>(), sockets[rule].second);
      bool created = false;
      for (const auto &frame : f["socket"]["origin"]["frames"])
        created |= frame["file"] && realPath(frame["file"].as<std::string>()) == source &&
                   frame["line"].as<unsigned>() == sockets[rule].first;
      // The origin is one return address (no stack is unwound when a socket is made): under a
      // sanitizer it is the sanitizer's accept()/socket() interceptor, not the program's line.
      if (kSanitizerRuntime.empty())
        EXPECT_TRUE(created) << "the socket's origin is not the PROBE-SOCKET line " << sockets[rule].first;
    }
  }
  // Under a sanitizer every call of one function reaches the probe from the sanitizer's
  // interceptor (one call site per process): only the first call's stack is there to check.
  if (kSanitizerRuntime.empty())
    EXPECT_EQ(seenCallLines, callLines) << "every marked call produced its finding";
}

INSTANTIATE_TEST_SUITE_P(Probe, FindingSite, ::testing::ValuesIn(programsWithCallMarkers()),
                         [](const auto &info) { return info.param; });

// ---- process trees ----------------------------------------------------------------------------------

std::vector<YAML::Node> images(const YAML::Node &summary) {
  std::vector<YAML::Node> v;
  for (const auto &p : summary["processes"])
    v.push_back(p);
  return v;
}

TEST(ProcessTree, ForkAndExecEachWriteTheirOwnReport) {
  Probed p = probe({kPrograms + "/fork_exec"});
  ASSERT_EQ(p.program.status, 0) << p.program.err;
  auto procs = images(p.summary);
  ASSERT_EQ(procs.size(), 3u) << "parent, forked child before exec, exec'd image";
  std::multiset<std::pair<std::string, uint64_t>> seen;
  for (const auto &proc : procs)
    seen.insert({proc["reason"].as<std::string>(), proc["counters"]["write_calls"].as<uint64_t>()});
  EXPECT_EQ(seen, (std::multiset<std::pair<std::string, uint64_t>>{{"exit", 1}, {"exec", 2}, {"exit", 3}}));
  // The exec'd image got the probe although the program dropped LD_PRELOAD from its environment.
  EXPECT_EQ(procs[1]["process"]["pid"].as<int>(), procs[2]["process"]["pid"].as<int>());
  EXPECT_EQ(procs[1]["process"]["ppid"].as<int>(), procs[0]["process"]["pid"].as<int>());
}

TEST(ProcessTree, VforkChildNeverCountsIntoItsParent) {
  Probed p = probe({kPrograms + "/vfork_exec"});
  ASSERT_EQ(p.program.status, 0) << p.program.err;
  auto procs = images(p.summary);
  // TSan's runtime turns vfork() into fork(): there both children are real processes with their
  // own (empty) reports, one at exec and one at _exit.
  bool vforkIsFork = kSanitizerRuntime.find("tsan") != std::string::npos;
  ASSERT_EQ(procs.size(), vforkIsFork ? 4u : 2u) << "the vfork child that only _exits writes nothing";
  EXPECT_EQ(procs[0]["counters"]["write_calls"].as<uint64_t>(), 4u) << "nothing of the children counted here";
  EXPECT_EQ(procs[0]["reason"].as<std::string>(), "exit");
  uint64_t childWrites = 0;
  for (std::size_t i = 1; i < procs.size(); ++i)
    childWrites += procs[i]["counters"]["write_calls"].as<uint64_t>();
  EXPECT_EQ(childWrites, 5u);
}

TEST(ProcessTree, PosixSpawnChildKeepsTheProbe) {
  Probed p = probe({kPrograms + "/spawn_child"});
  ASSERT_EQ(p.program.status, 0) << p.program.err;
  auto procs = images(p.summary);
  ASSERT_EQ(procs.size(), 2u) << "the child was spawned with an environment without LD_PRELOAD";
  EXPECT_EQ(procs[0]["counters"]["write_calls"].as<uint64_t>(), 1u);
  EXPECT_EQ(procs[1]["counters"]["write_calls"].as<uint64_t>(), 2u);
  EXPECT_EQ(procs[1]["process"]["ppid"].as<int>(), procs[0]["process"]["pid"].as<int>());
}

TEST(ProcessTree, ThreadsAreCountedExactly) {
  Probed p = probe({kPrograms + "/threads"});
  ASSERT_EQ(p.program.status, 0) << p.program.err;
  EXPECT_EQ(total(p.summary, "write_calls"), 32000u);
  EXPECT_EQ(total(p.summary, "read_calls"), 32000u);
  EXPECT_GE(total(p.summary, "threads"), 16u);
}

TEST(ProcessTree, ErrnoEintrAndEbadfAreThoseOfTheKernel) {
  Probed p = probe({kPrograms + "/errno_semantics"});
  ASSERT_EQ(p.program.status, 0) << p.program.err;
  EXPECT_NE(p.program.out.find("errno after a successful write: 4242"), std::string::npos) << p.program.out;
  EXPECT_NE(p.program.out.find("blocking recvmsg interrupted: -1 EINTR"), std::string::npos) << p.program.out;
  EXPECT_NE(p.program.out.find("blocking read interrupted: -1 EINTR, handler wrote: 1"), std::string::npos);
  EXPECT_NE(p.program.out.find("write on closed fd: -1 EBADF"), std::string::npos);
  EXPECT_NE(p.program.out.find("close again: -1 EBADF"), std::string::npos);
  // 4 AF_UNIX writes (two from the signal handler); the pipe on the reused number and the pipe
  // dup2()ed over a socket are not sockets.
  EXPECT_EQ(total(p.summary, "write_calls"), 4u);
  EXPECT_EQ(total(p.summary, "read_calls"), 2u);
  EXPECT_EQ(total(p.summary, "recv_calls"), 1u);
}

TEST(Interceptors, EveryDataCallAndDupIsCountedByKind) {
  Probed p = probe({kPrograms + "/call_variety"});
  ASSERT_EQ(p.program.status, 0) << p.program.err;
  EXPECT_EQ(total(p.summary, "send_calls"), 5u);
  EXPECT_EQ(total(p.summary, "recv_calls"), 4u);
  EXPECT_EQ(total(p.summary, "write_calls"), 3u);
  EXPECT_EQ(total(p.summary, "read_calls"), 3u);
  EXPECT_EQ(total(p.summary, "accept_calls"), 1u);
  EXPECT_EQ(total(p.summary, "connect_calls"), 1u);
}

// ---- hackbench: exact counts across threads and processes --------------------------------------------

bool haveHackbench() { return access("/usr/bin/hackbench", X_OK) == 0; }

// rt-tests hackbench: per group 20 senders x 20 receivers x loops 100-byte writes, one 1-byte
// "ready" write per task (read back by the main task), one wake-up write by the main task.
void expectHackbenchCounts(const std::vector<std::string> &mode, uint64_t groups, uint64_t loops) {
  if (!haveHackbench())
    GTEST_SKIP() << "hackbench (rt-tests) is not installed";
  std::vector<std::string> cmd = {"/usr/bin/hackbench"};
  cmd.insert(cmd.end(), mode.begin(), mode.end());
  for (const auto &a : {std::string("-g"), std::to_string(groups), std::string("-l"), std::to_string(loops)})
    cmd.push_back(a);
  // hackbench leaks its own small allocations: not ours to report in ASan builds.
  Probed p = probe(cmd, {}, {"ASAN_OPTIONS=detect_leaks=0"});
  ASSERT_EQ(p.program.status, 0) << p.program.err;
  uint64_t messages = groups * 20 * 20 * loops;
  EXPECT_EQ(total(p.summary, "write_calls"), messages + groups * 40 + 1);
  EXPECT_EQ(total(p.summary, "read_calls"), messages + groups * 40);
}

TEST(Hackbench, ThreadModeCountsEveryWriteAndRead) { expectHackbenchCounts({"-T"}, 2, 200); }
TEST(Hackbench, ProcessModeCountsEveryWriteAndReadAcrossForks) { expectHackbenchCounts({"-P"}, 1, 100); }

// A slow send is no GC wait by itself (a scheduling hiccup looks the same): with 0 fds in flight,
// sends slower than the threshold are counted, never a finding.
TEST(SlowSends, ASlowSendWithNothingInFlightIsNoFlood) {
  Probed p = probe({kPrograms + "/fd_cycle"}, {}, {"AFUNIX_PROBE_SLOW_NS=1"});
  ASSERT_EQ(p.program.status, 0) << p.program.err;
  EXPECT_EQ(reportedRules(p.summary), (std::set<std::string>{"afunix-fd-cycle"}));
  EXPECT_GE(total(p.summary, "slow_fd_sends"), 4u) << "every AF_UNIX-fd send took more than 1 ns";
}

// The same small program, run several times, gets the same answer each time: the decision rests on
// the fds in flight (as the kernel counts them), not on one latency sample.
TEST(SlowSends, TheAnswerIsTheSameEveryRun) {
  for (int run = 0; run < 4; ++run) {
    SCOPED_TRACE("run " + std::to_string(run));
    Probed cycle = probe({kPrograms + "/fd_cycle"});
    ASSERT_EQ(cycle.program.status, 0) << cycle.program.err;
    EXPECT_EQ(reportedRules(cycle.summary), (std::set<std::string>{"afunix-fd-cycle"}));
    Probed flood = probe({kPrograms + "/fd_flood"});
    ASSERT_EQ(flood.program.status, 0) << flood.program.err;
    EXPECT_EQ(reportedRules(flood.summary), (std::set<std::string>{"afunix-fd-flood"}));
    if (geteuid() == 0) // no ETOOMANYREFS for root: all nine messages go
      EXPECT_EQ(total(flood.summary, "fds_in_flight_high_water"), 9u * 253u);
  }
}

// Slow sends are evidence next to a measured flood: with every send "slow", the flood finding
// counts them.
TEST(SlowSends, AreEvidenceBesideAMeasuredFlood) {
  Probed p = probe({kPrograms + "/fd_flood"}, {}, {"AFUNIX_PROBE_SLOW_NS=1"});
  ASSERT_EQ(p.program.status, 0) << p.program.err;
  int slow = 0;
  for (const auto &f : p.summary["processes"][0]["findings"])
    if (f["rule"].as<std::string>() == "afunix-fd-flood") {
      slow += f["evidence"]["slow_sends"].as<int>();
      EXPECT_EQ(f["evidence"]["slow_threshold_ns"].as<int>(), 1);
      EXPECT_GE(f["evidence"]["in_flight_high_water"].as<int>(), 2024);
    }
  EXPECT_GE(slow, 1) << "the sends past 2024 in flight";
}

// ---- the in-flight graph -----------------------------------------------------------------------

// Receivers closed with fds unread release them: the probe's figure is what the kernel held
// (the program sums scm_fds of its open receivers after every send), and no 2024 warning.
TEST(InFlight, FollowsTheKernelWhenReceiversAreClosedUnread) {
  Probed p = probe({kPrograms + "/fd_closed_receivers"});
  ASSERT_EQ(p.program.status, 0) << p.program.err;
  long sent = 0, received = 0, most = -1, last = -1;
  ASSERT_EQ(std::sscanf(p.program.out.c_str(),
                        "%ld fds sent, %ld received; the kernel held at most %ld in flight, %ld at the end",
                        &sent, &received, &most, &last), 4)
      << p.program.out;
  EXPECT_EQ(sent, 3000);
  EXPECT_LT(most, 2024);
  EXPECT_EQ(static_cast<long>(total(p.summary, "fds_in_flight_high_water")), most)
      << "sent minus received would say " << sent - received;
  EXPECT_EQ(total(p.summary, "fds_in_flight"), 0u) << "every receiver was closed at the end";
  EXPECT_EQ(total(p.summary, "fds_sent"), 3000u);
  EXPECT_EQ(reportedRules(p.summary), std::set<std::string>{});
}

// Fds passed to a worker in another process, which receives them at once: the probe cannot see
// those receives, asks the kernel (SIOCOUTQ), and never counts more than the kernel holds.
TEST(InFlight, FdsAWorkerProcessReceivedAreNotCounted) {
  Probed p = probe({kPrograms + "/fd_to_worker"});
  ASSERT_EQ(p.program.status, 0) << p.program.err;
  EXPECT_EQ(reportedRules(p.summary), std::set<std::string>{});
  uint64_t most = 0;
  for (const auto &proc : p.summary["processes"])
    if (proc["counters"]["fds_sent"].as<uint64_t>() == 3000)
      most = proc["counters"]["fds_in_flight_high_water"].as<uint64_t>();
  EXPECT_GE(most, 1u);
  EXPECT_LE(most, 100u) << "at most one batch was ever unacknowledged";
}

struct ShapeRun {
  std::string shape, mode, type;
};
void PrintTo(const ShapeRun &run, std::ostream *out) { *out << run.shape << " " << run.mode << " " << run.type; }
class GcShapes : public ::testing::TestWithParam<ShapeRun> {};

// The kernel selftest's shapes (scm_rights.c): each left in flight with no fd is reported, one
// finding per cycle, naming sockets the kernel still holds; nothing when every fd was received.
TEST_P(GcShapes, AreReportedAsTheKernelKeepsThem) {
  const ShapeRun &run = GetParam();
  if (geteuid() != 0 && run.shape == "mixed_lowpoint" && run.mode == "garbage")
    GTEST_SKIP() << "6.18.44 never frees it: as this user it would stay in flight until reboot "
                    "(as root the program builds it as uid " << AFUNIX_GC_SHAPE_UID << ")";
  Probed p = probe({kPrograms + "/fd_cycle_shapes", run.shape, run.mode, run.type});
  ASSERT_EQ(p.program.status, 0) << p.program.err;
  int left = -1, vertices = -1;
  // The program's verdict line ("<shape>: N of M sockets ..."), after any retry it announced
  // ("<shape>: 7 left on attempt 1 (a GC run from elsewhere?); again").
  std::string said;
  for (std::size_t at = p.program.err.find(run.shape + ": "); at != std::string::npos && said.empty();
       at = p.program.err.find(run.shape + ": ", at + 1)) {
    std::string rest = p.program.err.substr(at);
    if (std::sscanf(rest.c_str(), "%*s %d of %d sockets", &left, &vertices) == 2)
      said = rest;
  }
  ASSERT_FALSE(said.empty()) << "no verdict line: " << p.program.err;
  // GC runs started elsewhere on the machine freed the garbage before the program could see it, on
  // every attempt: the kernel's side cannot be compared this time (the probe's still is).
  const bool freedEarly = said.find("seen freed early") < said.find('\n');
  if (freedEarly)
    std::printf("note: %s", said.c_str());
  // The inodes the kernel still listed, from the program's stderr ("<shape> left: 1 2 3").
  std::set<uint64_t> listed;
  // Each attempt built the shape and closed every fd, so its garbage was real and the probe
  // reports it, also when a GC run from elsewhere freed it before the program looked and the
  // program tried again (the retry lines above).
  int attempts = 1;
  std::istringstream err(p.program.err);
  std::string line;
  while (std::getline(err, line))
    if (line.rfind(run.shape + " left:", 0) == 0) {
      std::istringstream inodes(line.substr(run.shape.size() + 6));
      for (uint64_t inode; inodes >> inode;)
        listed.insert(inode);
    } else if (line.rfind(run.shape + ": ", 0) == 0 && line.ends_with("; again")) {
      ++attempts;
    }
  int findings = 0, sockets = 0;
  for (const auto &proc : p.summary["processes"])
    for (const auto &f : proc["findings"])
      if (f["rule"].as<std::string>() == "afunix-fd-cycle") {
        findings += f["count"].as<int>();
        sockets += f["evidence"]["sockets"].as<int>() * f["count"].as<int>();
        if (!freedEarly)
          EXPECT_TRUE(listed.count(f["evidence"]["inode"].as<uint64_t>()))
              << "the probe names a socket the kernel no longer held: " << p.program.err;
      }
  int cycles = 0, cyclic = 0, held = 0;
  for (const auto &shape : kShapes)
    if (shape.name == run.shape) {
      cycles = shape.cycles;
      cyclic = shape.cyclic;
      held = shape.held;
    }
  if (run.mode == "received") {
    EXPECT_EQ(left, 0);
    EXPECT_EQ(findings, 0);
  } else {
    if (!freedEarly)
      EXPECT_EQ(left, held) << "the kernel kept the cycles and what they hold";
    EXPECT_EQ(findings, cycles * attempts);
    EXPECT_EQ(sockets, cyclic * attempts);
  }
}

std::vector<ShapeRun> shapeRuns() {
  std::vector<ShapeRun> runs;
  for (const auto &shape : kShapes)
    for (const char *mode : {"garbage", "received"})
      for (const char *type : {"stream", "dgram"})
        runs.push_back({shape.name, mode, type});
  return runs;
}

INSTANTIATE_TEST_SUITE_P(Selftest, GcShapes, ::testing::ValuesIn(shapeRuns()),
                         [](const auto &info) { return info.param.shape + "_" + info.param.mode + "_" + info.param.type; });

// ---- which socket a late SO_PASSCRED was on -----------------------------------------------------

std::vector<YAML::Node> findingsOf(const YAML::Node &summary, const std::string &rule) {
  std::vector<YAML::Node> out;
  for (const auto &f : summary["findings"])
    if (f["rule"].as<std::string>() == rule)
      out.push_back(f);
  return out;
}

TEST(PasscredWording, ASocketpairEndIsNoAcceptedSocket) {
  Probed p = probe({kPrograms + "/passcred_socketpair"});
  ASSERT_EQ(p.program.status, 0) << p.program.err;
  auto found = findingsOf(p.summary, "afunix-passcred-too-late");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0]["variant"].as<std::string>(), "socketpair-end");
  std::string message = found[0]["message"].as<std::string>();
  EXPECT_EQ(message.find("accept"), std::string::npos) << message;
  EXPECT_EQ(message.find("bind"), std::string::npos) << message;
}

TEST(PasscredWording, AClientReadingItsServersReplyIsNoAcceptedSocket) {
  Probed p = probe({kPrograms + "/passcred_client"});
  ASSERT_EQ(p.program.status, 0) << p.program.err;
  auto found = findingsOf(p.summary, "afunix-passcred-too-late");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0]["variant"].as<std::string>(), "client-reply");
  EXPECT_EQ(found[0]["message"].as<std::string>().find("accept()"), std::string::npos);
}

TEST(PasscredWording, ListenerAfterListenNamesTheListener) {
  Probed p = probe({kPrograms + "/passcred_listener"});
  ASSERT_EQ(p.program.status, 0) << p.program.err;
  int listener = -1, has = -1;
  ASSERT_EQ(std::sscanf(p.program.out.c_str(), "listener fd %d; accepted socket SO_PASSCRED=%d", &listener, &has), 2);
  auto found = findingsOf(p.summary, "afunix-passcred-too-late");
  if (has) // 3.12-6.15: the flag reached the connection at accept(); nothing was lost
    EXPECT_TRUE(found.empty());
  else {
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0]["variant"].as<std::string>(), "listener-after-listen");
    std::string message = found[0]["message"].as<std::string>();
    EXPECT_NE(message.find("listener 'fd " + std::to_string(listener) + "'"), std::string::npos) << message;
  }
}

// ---- --fix passcred --------------------------------------------------------------------------------

TEST(FixPasscred, CredentialsArriveAndEveryPlaceIsReported) {
  Probed p = probe({kPrograms + "/creds_without_passcred"}, {"--fix", "passcred"});
  ASSERT_EQ(p.program.status, 0) << p.program.err;
  EXPECT_EQ(p.program.out, "credentials: present, pid matches\n");
  EXPECT_EQ(reportedRules(p.summary), std::set<std::string>{}) << "fixed: no credentials went missing";
  ASSERT_EQ(p.summary["processes"][0]["fixes"].size(), 1u);
  EXPECT_EQ(p.summary["processes"][0]["fixes"][0]["evidence"]["where"].as<std::string>(), "listen");
  EXPECT_EQ(p.summary["processes"][0]["fixes"][0]["evidence"]["result"].as<std::string>(), "ok");
}

TEST(FixPasscred, IsOptIn) {
  Probed p = probe({kPrograms + "/creds_without_passcred"});
  EXPECT_EQ(p.program.out, "credentials: absent, the credential check was skipped\n");
  EXPECT_EQ(p.summary["processes"][0]["fixes"].size(), 0u);
}

// ---- the run command itself ---------------------------------------------------------------------

TEST(RunCommand, ExitStatusIsTheProgramsAndSignalsAre128PlusN) {
  EXPECT_EQ(probe({"/bin/sh", "-c", "exit 3"}).program.status, 3);
  Probed killed = probe({"/bin/sh", "-c", "kill -9 $$"});
  EXPECT_EQ(killed.program.status, 128 + 9);
  EXPECT_EQ(killed.summary["exit_status"].as<int>(), 137);
}

TEST(RunCommand, UsageErrorsExit2) {
  EXPECT_EQ(run({kProbe, "run"}).status, 2);
  EXPECT_EQ(run({kProbe, "run", "--format", "xml", "--", "/bin/true"}).status, 2);
  EXPECT_EQ(run({kProbe, "run", "--fix", "everything", "--", "/bin/true"}).status, 2);
  Result r = run({kProbe, "run", "--bogus", "--", "/bin/true"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("unknown option '--bogus'"), std::string::npos) << r.err;
}

TEST(RunCommand, RefusesAStaticBinary) {
  Result r = run({kProbe, "run", "--", AFUNIX_PROBE_STATIC_PROGRAM});
  EXPECT_EQ(r.status, 125);
  EXPECT_NE(r.err.find("statically linked"), std::string::npos) << r.err;
}

TEST(RunCommand, RefusesASetuidBinary) {
  if (getuid() != 0)
    GTEST_SKIP() << "needs root to give a copy of a program to another owner";
  std::string dir = tempDir();
  std::string copy = dir + "/setuid-true";
  ASSERT_EQ(run({"/bin/cp", "/bin/true", copy}).status, 0);
  ASSERT_EQ(chown(copy.c_str(), 65534, 65534), 0);
  ASSERT_EQ(chmod(copy.c_str(), 04755), 0);
  chmod(dir.c_str(), 0755);
  Result r = run({kProbe, "run", "--", copy});
  EXPECT_EQ(r.status, 125);
  EXPECT_NE(r.err.find("setuid/setgid"), std::string::npos) << r.err;
  removeTree(dir);
}

TEST(RunCommand, SaysWhenTheLibraryIsMissing) {
  Result r = run({kProbe, "run", "--", "/bin/true"}, {"AFUNIX_PROBE_LIBRARY=/nonexistent/libafunix-probe.so"});
  EXPECT_EQ(r.status, 125);
  EXPECT_NE(r.err.find("probe library /nonexistent/libafunix-probe.so not found"), std::string::npos) << r.err;
}

TEST(RunCommand, CommandNotFoundExits127) {
  EXPECT_EQ(run({kProbe, "run", "--", "/nonexistent/program"}).status, 127);
}

TEST(RunCommand, KeepsReportsInOutDirAndPrependsToLdPreload) {
  std::string dir = tempDir();
  Probed p = probe({kPrograms + "/clean_ipc"}, {"--out", dir});
  ASSERT_EQ(p.program.status, 0) << p.program.err;
  int files = 0;
  if (DIR *d = opendir(dir.c_str())) {
    while (dirent *e = readdir(d))
      files += std::string(e->d_name).rfind("afunix-probe.", 0) == 0;
    closedir(d);
  }
  EXPECT_EQ(files, 1);
  removeTree(dir);
}

TEST(RunCommand, TextSummaryHasFunclatencyHistograms) {
  std::string dir = tempDir();
  Result r = run({kProbe, "run", "--report", dir + "/summary.txt", "--", kPrograms + "/threads"},
                 {"AFUNIX_PROBE_TIMING_SAMPLE=1"});
  ASSERT_EQ(r.status, 0) << r.err;
  std::string text = readFile(dir + "/summary.txt");
  EXPECT_NE(text.find("write (none): 32000 calls\n     nsecs               : count     distribution\n"), std::string::npos)
      << text;
  removeTree(dir);
}

// By default one call in 16, drawn at random, is timed: every call is counted, about a sixteenth
// lands in the histogram (2000 expected, standard deviation ~43; the bound is 7 of them).
TEST(RunCommand, LatencyIsSampledByDefault) {
  Probed p = probe({kPrograms + "/threads"});
  ASSERT_EQ(p.program.status, 0);
  EXPECT_EQ(total(p.summary, "write_calls"), 32000u);
  uint64_t timedWrites = 0;
  for (const auto &h : p.summary["totals"]["histograms"])
    if (h["call"].as<std::string>() == "write")
      for (const auto &b : h["log2_ns"])
        timedWrites += b.as<uint64_t>();
  EXPECT_GE(timedWrites, 32000u / 16 - 300);
  EXPECT_LE(timedWrites, 32000u / 16 + 300);
}

TEST(RunCommand, AHistogramWithNoTimedCallSaysWhy) {
  Result r = run({kProbe, "run", "--", kPrograms + "/threads"}, {"AFUNIX_PROBE_TIMING=0"});
  ASSERT_EQ(r.status, 0);
  EXPECT_NE(r.err.find("write (none): 32000 calls\n     (no call of these was timed: one call in "
                       "AFUNIX_PROBE_TIMING_SAMPLE is, or timing is off)\n"),
            std::string::npos)
      << r.err;
}

TEST(RunCommand, CountingOnlyModeHasNoLatencies) {
  Probed p = probe({kPrograms + "/threads"}, {}, {"AFUNIX_PROBE_TIMING=0"});
  ASSERT_EQ(p.program.status, 0);
  EXPECT_EQ(total(p.summary, "write_calls"), 32000u);
  for (const auto &h : p.summary["totals"]["histograms"])
    for (const auto &b : h["log2_ns"])
      EXPECT_EQ(b.as<uint64_t>(), 0u);
}

TEST(RunCommand, TheSummaryNeverGoesToTheProgramsStdout) {
  Result plain = run({kPrograms + "/fd_flood"});
  Result probed = run({kProbe, "run", "--", kPrograms + "/fd_flood"}, {"AFUNIX_PROBE_SLOW_NS=60000000000"});
  EXPECT_EQ(probed.status, 0);
  EXPECT_EQ(probed.out, plain.out) << "stdout is the program's alone";
  // A person reads the findings first: the summary opens with the verdict and the finding.
  EXPECT_EQ(probed.err.rfind("afunix-probe: 1 finding (2 occurrences) in 1 of 1 process image", 0), 0u) << probed.err;
  EXPECT_NE(probed.err.find("\nafunix-fd-flood [since-"), std::string::npos) << probed.err;
  EXPECT_NE(probed.err.find("testdata/probe/probe_util.h:"), std::string::npos) << "the call, as file:line";
  Result dash = run({kProbe, "run", "--report", "-", "--", "/bin/true"});
  EXPECT_EQ(dash.status, 2) << "--report - would be the program's stdout";
}

TEST(RunCommand, ErrorExitcodeWhenAFindingWasReported) {
  EXPECT_EQ(run({kProbe, "run", "--error-exitcode=42", "--", kPrograms + "/fd_limit"}).status, 42);
  EXPECT_EQ(run({kProbe, "run", "--error-exitcode", "42", "--", kPrograms + "/clean_ipc"}).status, 0);
  EXPECT_EQ(run({kProbe, "run", "--error-exitcode=0", "--", "/bin/true"}).status, 2);
  EXPECT_EQ(run({kProbe, "run", "--error-exitcode=256", "--", "/bin/true"}).status, 2);
  // Held-back candidates are not findings.
  EXPECT_EQ(run({kProbe, "run", "--error-exitcode=42", "--", kPrograms + "/peercred_auth"}).status, 0);
}

TEST(RunCommand, ProcessesWithoutAfUnixCallsAreFoldedIntoOneLine) {
  Result r = run({kProbe, "run", "--", "/bin/sh", "-c", "/bin/true; /bin/true; exec " + kPrograms + "/clean_ipc"});
  ASSERT_EQ(r.status, 0) << r.err;
  // sh, and the two true: by the name of the executable (/bin/sh may be dash).
  std::string shell = realPath("/bin/sh").substr(realPath("/bin/sh").rfind('/') + 1);
  // (TSan turns the shell's vfork() into fork(): its children then show up as shell images too.)
  bool vforkIsFork = kSanitizerRuntime.find("tsan") != std::string::npos;
  EXPECT_NE(r.err.find((vforkIsFork ? "5 more processes made no AF_UNIX call: " + shell + " x3"
                                    : "3 more processes made no AF_UNIX call: " + shell) + ", true x2"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("/bin/true ["), std::string::npos) << "quiet processes are not listed one by one";
}

TEST(RunCommand, EmptyCommandsAndMissingValuesAreUsageErrors) {
  Result empty = run({kProbe, "run", "--", ""});
  EXPECT_EQ(empty.status, 2);
  EXPECT_NE(empty.err.find("the command name is empty"), std::string::npos) << empty.err;
  std::string dir = tempDir();
  Result out = run({kProbe, "run", "--out", "--", "/bin/sh", "-c", "touch " + dir + "/ran"});
  EXPECT_EQ(out.status, 2);
  EXPECT_NE(out.err.find("--out needs a directory (got '--')"), std::string::npos) << out.err;
  EXPECT_EQ(access((dir + "/ran").c_str(), F_OK), -1) << "nothing was run";
  EXPECT_EQ(run({kProbe, "run", "--report=", "--", "/bin/true"}).status, 2);
  EXPECT_EQ(run({kProbe, "run", "--format=", "--", "/bin/true"}).status, 2);
  removeTree(dir);
}

TEST(RunCommand, ABadReportPathIsFoundBeforeTheProgramRuns) {
  std::string dir = tempDir();
  Result r = run({kProbe, "run", "--report", dir + "/no/such/dir/summary.txt", "--", "/bin/sh", "-c",
                  "touch " + dir + "/ran"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("cannot write --report"), std::string::npos) << r.err;
  EXPECT_EQ(access((dir + "/ran").c_str(), F_OK), -1) << "the program did not run";
  Result isDir = run({kProbe, "run", "--report", dir, "--", "/bin/true"});
  EXPECT_EQ(isDir.status, 2) << isDir.err;
  removeTree(dir);
}

TEST(RunCommand, AReportSymlinkPlantedInASharedStickyDirectoryIsRefused) {
  if (geteuid() != 0)
    GTEST_SKIP() << "needs root to plant a symlink owned by another user";
  std::string dir = tempDir();
  ASSERT_EQ(chmod(dir.c_str(), 01777), 0); // like /tmp
  std::string victim = dir + "/victim", link = dir + "/summary.txt";
  std::ofstream(victim) << "precious\n";
  ASSERT_EQ(symlink(victim.c_str(), link.c_str()), 0);
  ASSERT_EQ(lchown(link.c_str(), 65534, 65534), 0);
  Result r = run({kProbe, "run", "--report", link, "--", "/bin/true"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("symbolic link owned by uid 65534"), std::string::npos) << r.err;
  EXPECT_EQ(readFile(victim), "precious\n");
  // A symlink we own ourselves is ours to follow.
  unlink(link.c_str());
  ASSERT_EQ(symlink(victim.c_str(), link.c_str()), 0);
  EXPECT_EQ(run({kProbe, "run", "--report", link, "--", "/bin/true"}).status, 0);
  EXPECT_NE(readFile(victim).find("afunix-probe:"), std::string::npos);
  removeTree(dir);
}

TEST(RunCommand, AWriteErrorOnTheOutputHasItsOwnExitCode) {
  Result full = run({kProbe, "run", "--report", "/dev/full", "--", "/bin/true"});
  EXPECT_EQ(full.status, 74);
  EXPECT_NE(full.err.find("cannot write the summary to /dev/full: No space left on device"), std::string::npos) << full.err;
  // The other commands print on stdout: sh sends it to /dev/full.
  for (const char *command : {"--help", "bench --help", "kernel --help"}) {
    Result r = run({"/bin/sh", "-c", kProbe + " " + command + " > /dev/full"});
    EXPECT_EQ(r.status, 74) << command;
    EXPECT_NE(r.err.find("error writing the output"), std::string::npos) << command << ": " << r.err;
  }
  // A closed pipe too: EPIPE is reported, not a silent death by SIGPIPE. The reader is gone before
  // the writer starts.
  Result pipe = run({"/bin/sh", "-c", "exec 3>&1; status=$( { (exec 0<&-); sleep 0.2; " + kProbe +
                                           " --help; echo $? >&3; } | true ); echo done"});
  EXPECT_NE(pipe.out.find("74"), std::string::npos) << pipe.out << pipe.err;
  EXPECT_NE(pipe.err.find("error writing the output: Broken pipe"), std::string::npos) << pipe.err;
}

// ---- symbolisation falls back with a reason ---------------------------------------------------------

TEST(Symbolizer, WithoutOneFindingsStayModulePlusOffsetAndTheSummarySaysWhy) {
  Probed off = probe({kPrograms + "/fd_limit"}, {}, {"AFUNIX_PROBE_SYMBOLIZER=none"});
  ASSERT_EQ(off.program.status, 0) << off.program.err;
  ASSERT_EQ(off.summary["findings"].size(), 1u);
  EXPECT_TRUE(off.summary["findings"][0]["location"].IsNull());
  // The program's own module, or, under a sanitizer, the sanitizer's sendmsg interceptor in front.
  std::string module = kSanitizerRuntime.empty() ? "fd_limit" : kSanitizerRuntime.substr(kSanitizerRuntime.rfind('/') + 1);
  EXPECT_EQ(off.summary["findings"][0]["site"].as<std::string>().rfind(module + "+0x", 0), 0u)
      << off.summary["findings"][0]["site"].as<std::string>();
  EXPECT_TRUE(off.summary["symbolizer"].IsNull());
  ASSERT_EQ(off.summary["notes"].size(), 1u);
  EXPECT_NE(off.summary["notes"][0].as<std::string>().find("symbolisation is off"), std::string::npos);
  Probed missing = probe({kPrograms + "/fd_limit"}, {}, {"AFUNIX_PROBE_SYMBOLIZER=/nonexistent/llvm-symbolizer"});
  ASSERT_EQ(missing.summary["notes"].size(), 1u);
  EXPECT_NE(missing.summary["notes"][0].as<std::string>().find("not found"), std::string::npos);
  // addr2line when that is what there is: still file and line.
  if (access("/usr/bin/addr2line", X_OK) == 0) {
    Probed binutils = probe({kPrograms + "/fd_limit"}, {}, {"AFUNIX_PROBE_SYMBOLIZER=addr2line"});
    EXPECT_EQ(binutils.summary["symbolizer"].as<std::string>(), "addr2line");
    ASSERT_TRUE(binutils.summary["findings"][0]["location"].IsMap());
    EXPECT_NE(binutils.summary["findings"][0]["location"]["file"].as<std::string>().find("probe_util.h"),
              std::string::npos);
  }
}

TEST(Symbolizer, ABinaryChangedSinceTheRunIsNotSymbolisedWithWrongLines) {
  std::string dir = tempDir(), program = dir + "/program";
  ASSERT_EQ(run({"/bin/cp", kPrograms + "/fd_limit", program}).status, 0);
  // The program runs, then is replaced by another build before `run` symbolises its frames.
  Probed p = probe({"/bin/sh", "-c", program + " && /bin/cp " + kPrograms + "/fd_cycle " + program + ".new && /bin/mv " +
                                        program + ".new " + program});
  ASSERT_EQ(p.program.status, 0) << p.program.err;
  ASSERT_GE(p.summary["findings"].size(), 1u);
  EXPECT_TRUE(p.summary["findings"][0]["location"].IsNull()) << "lines of another build would be wrong lines";
  bool said = false;
  for (const auto &note : p.summary["notes"])
    said |= note.as<std::string>().find(program + ": changed since the run (build-id") != std::string::npos;
  EXPECT_TRUE(said) << p.program.err;
  removeTree(dir);
}

// ---- the library on its own (plain LD_PRELOAD) ---------------------------------------------------

TEST(Preload, BadEnvironmentValuesSayOneLineAndChangeNothing) {
  std::string program = kPrograms + "/clean_ipc";
  Result plain = run({program});
  Result probed = run({program}, {"LD_PRELOAD=" + preloadValue(), "AFUNIX_PROBE_INTERVAL=soon",
                                  "AFUNIX_PROBE_DIR=/nonexistent/dir"});
  EXPECT_EQ(probed.status, plain.status);
  EXPECT_EQ(probed.out, plain.out);
  EXPECT_NE(probed.err.find("afunix-probe: AFUNIX_PROBE_INTERVAL must be a whole number of seconds, got 'soon'"),
            std::string::npos)
      << probed.err;
  EXPECT_NE(probed.err.find("afunix-probe: AFUNIX_PROBE_DIR '/nonexistent/dir' is not a directory; reporting on stderr"),
            std::string::npos);
  // Without a usable directory the report goes to stderr, as text.
  EXPECT_NE(probed.err.find("afunix-probe report (exit)"), std::string::npos) << probed.err;
}

TEST(Preload, TheExitReportNeverLandsInAFileThatReplacedStderr) {
  std::string dir = tempDir(), tmp = dir + "/tmp", data = dir + "/data";
  ASSERT_EQ(mkdir(tmp.c_str(), 0700), 0);
  Result r = run({kPrograms + "/stderr_reused", data}, {"LD_PRELOAD=" + preloadValue(), "TMPDIR=" + tmp});
  ASSERT_EQ(r.status, 0);
  EXPECT_EQ(readFile(data), "data\n") << "the program's data file holds its data only";
  // The report went to a private file instead: nothing is lost.
  std::string report;
  if (DIR *d = opendir(tmp.c_str())) {
    while (dirent *e = readdir(d))
      if (std::string(e->d_name).rfind("afunix-probe.", 0) == 0)
        report = readFile(tmp + "/" + e->d_name);
    closedir(d);
  }
  EXPECT_NE(report.find("afunix-probe report (exit)"), std::string::npos) << report;
  EXPECT_NE(report.find("write_calls=1"), std::string::npos) << report;
  removeTree(tmp);
  removeTree(dir);
}

TEST(Preload, AReportDirectoryThatCannotTakeFilesFallsBackToStderr) {
  // /proc passes stat() and, for root, access(W_OK); creating a file there fails.
  Result r = run({kPrograms + "/clean_ipc"}, {"LD_PRELOAD=" + preloadValue(), "AFUNIX_PROBE_DIR=/proc"});
  ASSERT_EQ(r.status, 0);
  EXPECT_NE(r.err.find("afunix-probe: cannot write report /proc/afunix-probe."), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("reporting on stderr at exit instead"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("afunix-probe report (exit)"), std::string::npos) << "the report itself, on stderr";
}

TEST(Preload, AFileSizeLimitNeverKillsTheProgram) {
  // Under ulimit -f a report larger than the limit cannot be written: the write fails (EFBIG)
  // and is reported, and the program exits as it would have (SIGXFSZ would have killed it).
  std::string dir = tempDir();
  std::vector<std::string> limited = {"prlimit", "--fsize=1024", "env"}; // the report: ~1.8 KB
  std::vector<std::string> plainArgv = limited, probedArgv = limited;
  plainArgv.push_back(kPrograms + "/clean_ipc");
  probedArgv.insert(probedArgv.end(), {"LD_PRELOAD=" + preloadValue(), "AFUNIX_PROBE_DIR=" + dir,
                                       "AFUNIX_PROBE_FORMAT=json", kPrograms + "/clean_ipc"});
  Result plain = run(plainArgv);
  Result probed = run(probedArgv);
  ASSERT_EQ(plain.status, 0) << plain.err;
  EXPECT_EQ(probed.status, plain.status) << probed.err;
  EXPECT_EQ(probed.out, plain.out);
  EXPECT_NE(probed.err.find("afunix-probe: cannot write report"), std::string::npos) << probed.err;
  EXPECT_NE(probed.err.find("EFBIG"), std::string::npos) << probed.err;
  removeTree(dir);
}

TEST(Preload, PeriodicReportsForLongRunningPrograms) {
  Probed p = probe({kPrograms + "/interval_writer"}, {}, {"AFUNIX_PROBE_INTERVAL=1"});
  ASSERT_EQ(p.program.status, 0) << p.program.err;
  // The final report counts the periodic one written before it.
  EXPECT_GE(total(p.summary, "reports_written"), 1u);
  EXPECT_EQ(total(p.summary, "write_calls"), 13u);
}

// ---- signals sent to `run` reach the program (issue 14, item 8) -------------------------------------

// Starts argv in the background with stdout/stderr to files in `dir`; returns its pid.
pid_t spawn(const std::vector<std::string> &argv, const std::string &dir, const std::vector<std::string> &env = {}) {
  pid_t pid = fork();
  if (pid == 0) {
    freopen((dir + "/stdout").c_str(), "w", stdout);
    freopen((dir + "/stderr").c_str(), "w", stderr);
    for (const auto &e : env)
      putenv(const_cast<char *>(e.c_str()));
    std::vector<char *> args;
    for (const auto &a : argv)
      args.push_back(const_cast<char *>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  return pid;
}

bool waitForText(const std::string &file, const std::string &text, int seconds = 20) {
  for (int i = 0; i < seconds * 20; ++i) {
    if (readFile(file).find(text) != std::string::npos)
      return true;
    usleep(50000);
  }
  return false;
}

int waitStatus(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

bool emptyDir(const std::string &dir) {
  int entries = 0;
  if (DIR *d = opendir(dir.c_str())) {
    while (dirent *e = readdir(d))
      entries += std::string(e->d_name) != "." && std::string(e->d_name) != "..";
    closedir(d);
  }
  return entries == 0;
}

TEST(Signals, TermSentToRunReachesTheProgramAndTheSummaryIsStillWritten) {
  std::string dir = tempDir(), tmp = dir + "/tmp";
  ASSERT_EQ(mkdir(tmp.c_str(), 0700), 0);
  pid_t run = spawn({kProbe, "run", "--format", "json", "--report", dir + "/summary.json", "--",
                     kPrograms + "/signal_wait", "wait"},
                    dir, {"TMPDIR=" + tmp});
  ASSERT_TRUE(waitForText(dir + "/stdout", "ready")) << readFile(dir + "/stderr");
  ASSERT_EQ(kill(run, SIGTERM), 0);
  EXPECT_EQ(waitStatus(run), 0) << "the program handled SIGTERM and exited 0: so does run";
  EXPECT_NE(readFile(dir + "/stdout").find("got signal 15"), std::string::npos);
  YAML::Node summary = YAML::Load(readFile(dir + "/summary.json"));
  ASSERT_TRUE(summary.IsMap());
  EXPECT_EQ(summary["totals"]["counters"]["write_calls"].as<int>(), 1);
  EXPECT_EQ(summary["missing_processes"].size(), 0u);
  EXPECT_TRUE(emptyDir(tmp)) << "the temporary report directory is removed";
  removeTree(tmp);
  removeTree(dir);
}

TEST(Signals, AProgramKilledByTheForwardedSignalIsNamedAsMissing) {
  std::string dir = tempDir();
  pid_t run = spawn({kProbe, "run", "--format", "json", "--report", dir + "/summary.json", "--",
                     kPrograms + "/signal_wait", "die"},
                    dir);
  ASSERT_TRUE(waitForText(dir + "/stdout", "ready")) << readFile(dir + "/stderr");
  ASSERT_EQ(kill(run, SIGTERM), 0);
  EXPECT_EQ(waitStatus(run), 128 + SIGTERM);
  YAML::Node summary = YAML::Load(readFile(dir + "/summary.json"));
  ASSERT_TRUE(summary.IsMap());
  EXPECT_EQ(summary["exit_status"].as<int>(), 128 + SIGTERM);
  ASSERT_EQ(summary["missing_processes"].size(), 1u) << readFile(dir + "/summary.json");
  EXPECT_EQ(summary["missing_processes"][0]["status"].as<std::string>(), "killed by SIGTERM");
  removeTree(dir);
}

TEST(Signals, CtrlCFromTheTerminalIsNotSentTwice) {
  // Terminal-generated signals (si_code SI_KERNEL) reach the program through its process group;
  // `run` passes on only those sent to it by a process. Here: SIGINT sent by us, once.
  std::string dir = tempDir();
  pid_t run = spawn({kProbe, "run", "--format", "json", "--report", dir + "/summary.json", "--",
                     kPrograms + "/signal_wait", "die"},
                    dir);
  ASSERT_TRUE(waitForText(dir + "/stdout", "ready"));
  ASSERT_EQ(kill(run, SIGINT), 0);
  EXPECT_EQ(waitStatus(run), 128 + SIGINT);
  removeTree(dir);
}

// ---- children that drop privileges still report (item 9) ----------------------------------------

TEST(Privileges, AWorkerThatDropsToNobodyStillReports) {
  if (geteuid() != 0)
    GTEST_SKIP() << "needs root: the worker drops to nobody";
  Probed p = probe({kPrograms + "/drop_privileges"});
  ASSERT_EQ(p.program.status, 0) << p.program.err;
  EXPECT_EQ(p.program.out, "worker exited 0\n");
  ASSERT_EQ(p.summary["processes"].size(), 2u) << "the worker's report is there";
  EXPECT_EQ(p.summary["missing_processes"].size(), 0u);
  bool worker = false;
  for (const auto &proc : p.summary["processes"])
    if (proc["process"]["uid"].as<int>() == 65534) {
      worker = true;
      EXPECT_EQ(proc["counters"]["write_calls"].as<int>(), 3);
      EXPECT_EQ(proc["reason"].as<std::string>(), "exit");
    }
  EXPECT_TRUE(worker);
}

TEST(Privileges, OnlyTheFinalReportOfAProcessCounts) {
  // The worker's first file (created as root at fork, reason "running") and its final one (as
  // nobody) are one process: merged once.
  if (geteuid() != 0)
    GTEST_SKIP() << "needs root";
  std::string dir = tempDir();
  ASSERT_EQ(chmod(dir.c_str(), 0755), 0); // nobody must be able to reach the report directory
  Probed p = probe({kPrograms + "/drop_privileges"}, {"--out", dir + "/reports"});
  int files = 0;
  if (DIR *d = opendir((dir + "/reports").c_str())) {
    while (dirent *e = readdir(d))
      files += std::string(e->d_name).rfind("afunix-probe.", 0) == 0;
    closedir(d);
  }
  EXPECT_EQ(files, 3) << "parent, worker's root-owned start, worker's own final report";
  EXPECT_EQ(p.summary["processes"].size(), 2u);
  EXPECT_EQ(total(p.summary, "write_calls"), 3u);
  struct stat st;
  ASSERT_EQ(stat((dir + "/reports").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 01733u) << "sticky, writable for workers, not listable";
  removeTree(dir + "/reports");
  removeTree(dir);
}

TEST(Privileges, AWorkerThatCannotReachTheReportDirectoryIsNamedAsMissing) {
  if (geteuid() != 0)
    GTEST_SKIP() << "needs root";
  std::string dir = tempDir(); // 0700: nobody cannot pass through it to the reports
  Probed p = probe({kPrograms + "/drop_privileges"}, {"--out", dir + "/reports"});
  ASSERT_EQ(p.program.status, 0) << p.program.err;
  ASSERT_EQ(p.summary["missing_processes"].size(), 1u) << "the worker's report is lost, and the summary says so";
  EXPECT_EQ(p.summary["missing_processes"][0]["status"].as<std::string>(), "unknown");
  EXPECT_NE(p.summary["missing_processes"][0]["what"].as<std::string>().find("no final report"), std::string::npos);
  EXPECT_NE(p.program.err.find("cannot be searched by other users"), std::string::npos) << p.program.err;
  removeTree(dir + "/reports");
  removeTree(dir);
}

// ---- merging survives bad report files (item 10) --------------------------------------------------

TEST(Merge, BadReportFilesAreSkippedWithAMessageAndNeverHang) {
  std::string dir = tempDir();
  // A FIFO (reading it would block forever), a symlink, garbage, a report without its process, one
  // with a counter out of range: each is one line on stderr, and the real report still counts.
  ASSERT_EQ(mkfifo((dir + "/afunix-probe.1.1.json").c_str(), 0600), 0);
  ASSERT_EQ(symlink("/etc/passwd", (dir + "/afunix-probe.2.2.json").c_str()), 0);
  std::ofstream(dir + "/afunix-probe.3.3.json") << "{not json";
  std::ofstream(dir + "/afunix-probe.4.4.json")
      << R"({"version":2,"tool":"afunix-probe","reason":"exit","findings":[],"counters":{},"histograms":[]})";
  std::ofstream(dir + "/afunix-probe.5.5.json")
      << R"({"version":2,"tool":"afunix-probe","reason":"exit","process":{"pid":5,"ppid":1,"exe":"x","argv0":"x","start_ns":99999999999999999999},"findings":[],"counters":{"write_calls":1},"histograms":[]})";
  std::ofstream(dir + "/afunix-probe.6.6.json")
      << R"({"version":2,"tool":"afunix-probe","reason":"exit","process":{"pid":6,"ppid":1,"exe":"x","argv0":"x","start_ns":1},"findings":[],"counters":{"write_calls":123456789012345678901234},"histograms":[]})";
  pid_t run = spawn({kProbe, "run", "--out", dir, "--format", "json", "--report", dir + "/summary.json", "--",
                     kPrograms + "/signal_wait"},
                    dir + "/..");
  int status = -1;
  for (int i = 0; i < 200 && waitpid(run, &status, WNOHANG) == 0; ++i)
    usleep(50000);
  if (waitpid(run, &status, WNOHANG) == 0) {
    kill(run, SIGKILL);
    waitpid(run, &status, 0);
    FAIL() << "run hung on the report directory";
  }
  ASSERT_TRUE(WIFEXITED(status)) << "run died: " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0);
  std::string err = readFile(dir + "/../stderr");
  for (const char *expected : {"afunix-probe.1.1.json: is not a regular file", "afunix-probe.2.2.json: is a symbolic link",
                               "afunix-probe.3.3.json: not valid JSON", "afunix-probe.4.4.json: missing key 'process'",
                               "afunix-probe.5.5.json: 'process.start_ns' is out of range",
                               "afunix-probe.6.6.json: counter 'write_calls' is not a number in range"})
    EXPECT_NE(err.find(expected), std::string::npos) << expected << "\n" << err;
  YAML::Node summary = YAML::Load(readFile(dir + "/summary.json"));
  ASSERT_TRUE(summary.IsMap());
  EXPECT_EQ(summary["totals"]["processes"].as<int>(), 1);
  EXPECT_EQ(summary["totals"]["counters"]["write_calls"].as<int>(), 1);
  unlink((dir + "/../stdout").c_str());
  unlink((dir + "/../stderr").c_str());
  removeTree(dir);
}

// ---- the interceptor vocabulary ------------------------------------------------------------------

// Every function the library exports is an interceptor that registered itself next to its
// definition (PROBE_INTERCEPTOR), except the exec*() convenience forms, which route to execve and
// execvpe, and the name list itself. An export written without the macro fails here.
TEST(Interceptors, EveryExportedFunctionRegisteredItself) {
  if (!kSanitizerRuntime.empty())
    GTEST_SKIP() << "a property of the library's symbol table, checked in the plain build";
  std::set<std::string> exported;
  if (FILE *nm = popen(("nm -D --defined-only " + kLibrary).c_str(), "r")) {
    char line[512];
    while (std::fgets(line, sizeof line, nm)) {
      std::istringstream fields(line);
      std::string address, type, name;
      if (fields >> address >> type >> name && (type == "T" || type == "W"))
        exported.insert(name);
    }
    pclose(nm);
  }
  ASSERT_GT(exported.size(), 30u) << "nm -D could not read " << kLibrary;
  int pipefd[2];
  ASSERT_EQ(pipe(pipefd), 0);
  pid_t child = fork();
  if (child == 0) {
    // In a child: the library's constructor and report writer must not touch the test process.
    setenv("AFUNIX_PROBE_DIR", "/nonexistent", 1);
    void *handle = dlopen(kLibrary.c_str(), RTLD_NOW | RTLD_LOCAL);
    auto names = handle ? reinterpret_cast<const char *(*)()>(dlsym(handle, "afunix_probe_interceptor_names")) : nullptr;
    if (names)
      for (const char *p = names(); *p; p += std::strlen(p) + 1)
        if (write(pipefd[1], p, std::strlen(p) + 1) < 0)
          break;
    _exit(names ? 0 : 1);
  }
  close(pipefd[1]);
  std::string all;
  char buf[4096];
  for (ssize_t n; (n = read(pipefd[0], buf, sizeof buf)) > 0;)
    all.append(buf, static_cast<std::size_t>(n));
  close(pipefd[0]);
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  std::set<std::string> registered;
  for (std::size_t at = 0; at < all.size(); at = all.find('\0', at) + 1)
    registered.insert(all.c_str() + at);
  std::set<std::string> expected = exported;
  for (const char *routed : {"execv", "execvp", "execl", "execlp", "execle", "afunix_probe_interceptor_names"})
    expected.erase(routed);
  EXPECT_EQ(registered, expected);
}

} // namespace
