// Every claim of the rule catalog against the running kernel: the experiments the catalog names
// run once (isolated, as `afunix-probe kernel` runs them), each is checked against an independent
// experiment or first principles, and every rule page's "Measured" table must say what they saw.
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <string>
#include <unistd.h>

#include "TestSupport.h"
#include "afunix/RuleCatalog.h"
#include "afunix/kernel/ExperimentRegistry.h"
#include "afunix/kernel/Experiments.h"
#include "afunix/kernel/KernelReport.h"
#include "afunix/kernel/RulePages.h"

namespace afunix::kernel {
namespace {

class Claims : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    KernelReportOptions options;
    options.timeoutSeconds = 60;
    options.only = linkedExperiments();
    // The independent experiments the claims are checked against.
    for (const char *more : {"creds", "listener_inherit"})
      options.only.push_back(more);
    report_ = new KernelReport(runKernelReport(options));
  }
  static void TearDownTestSuite() { delete report_; }
  static const Value &value(const std::string &key) {
    static const Value null;
    const Value *v = report_->get(key);
    return v ? *v : null;
  }
  static const Observation *observation(const std::string &name) {
    for (const auto &o : report_->observations)
      if (o.experiment == name)
        return &o;
    return nullptr;
  }
  static KernelReport *report_;
};
KernelReport *Claims::report_ = nullptr;

TEST_F(Claims, EveryLinkedExperimentRanCleanly) {
  EXPECT_TRUE(report_->clean());
  for (const std::string &key : linkedExperiments()) {
    const Observation *o = observation(key);
    ASSERT_NE(o, nullptr) << key;
    EXPECT_TRUE(o->status == Status::Ok || o->status == Status::Skipped) << key << ": " << o->reason;
    if (o->status == Status::Ok)
      EXPECT_FALSE(o->verdict.empty()) << key << " says nothing a page could quote";
  }
}

// Each page's table is what the experiments say now, for every variant of its rule.
TEST_F(Claims, EveryRulePageShowsWhatTheKernelDid) {
  for (std::size_t r = 0; r < catalog::kRuleCount; ++r) {
    const catalog::Rule &rule = catalog::kRules[r];
    SCOPED_TRACE(rule.id);
    std::ifstream in(std::string(AFUNIX_SOURCE_DIR) + "/" + rule.doc);
    std::stringstream text;
    text << in.rdbuf();
    std::string block;
    std::size_t begin = 0, end = 0;
    ASSERT_TRUE(pageBlock(text.str(), block, begin, end))
        << rule.doc << " has no Measured table: run afunix-probe kernel --rule-pages docs/rules";
    for (std::size_t v = 0; v < rule.variantCount; ++v)
      EXPECT_NE(block.find("| `" + std::string(rule.variants[v].id) + "` |"), std::string::npos)
          << "variant " << rule.variants[v].id << " is missing from the table";
    std::string series = blockKernelSeries(block);
    if (geteuid() != 0) {
      std::printf("%s: the table is root's view (some experiments need root): not compared\n", rule.doc);
      continue;
    }
    if (series != kernelSeries()) {
      std::printf("%s: measured on Linux %s, this is %s: table not compared\n", rule.doc,
                  series.c_str(), kernelSeries().c_str());
      continue;
    }
    EXPECT_EQ(block, measuredBlock(rule, *report_))
        << rule.doc << " says something else than this kernel: afunix-probe kernel --rule-pages docs/rules";
  }
}

// --- credentials: each experiment against the truth table and the inheritance experiment -----

TEST_F(Claims, ReadersWithoutPasscredNeverGetCredentials) {
  EXPECT_TRUE(value("creds.without_passcred.never_delivered").boolean);
  EXPECT_EQ(value("creds.without_passcred.never_delivered").boolean,
            value("creds.explicit_creds_need_receiver_passcred").boolean &&
                value("creds.delivery_needs_receiver_passcred").boolean);
}

TEST_F(Claims, LateSoPasscredStampsWhatWasQueuedMeanwhile) {
  const std::string late = value("creds.table.stream.write.late").text; // the truth table's cell L
  ASSERT_FALSE(late.empty());
  EXPECT_EQ(value("passcred.socketpair_late.stream").text, late);
  EXPECT_EQ(value("passcred.socketpair_late.dgram").text, value("creds.table.dgram.write.late").text);
  EXPECT_EQ(value("passcred.dgram_late.before").text, late);
  EXPECT_EQ(value("passcred.handed_over.queued_before").text, late);
  EXPECT_EQ(value("passcred.client_late.after_request").text, late);
  EXPECT_EQ(value("passcred.accepted_late.stream.between").text, late);
  // Sent after the setsockopt, or before accept() to the embryo: real credentials.
  for (const char *key : {"passcred.dgram_late.after", "passcred.handed_over.sent_after",
                          "passcred.client_late.before_request", "passcred.accepted_late.stream.after"})
    EXPECT_EQ(value(key).text, "creds") << key;
  EXPECT_EQ(value("passcred.accepted_late.stream.before_accept").text,
            value("creds.embryo_late.stream.write").text);
  // A read before the setsockopt: the gate at receive time, no cmsg at all.
  EXPECT_EQ(value("passcred.accepted_late.stream.read_before").text,
            value("creds.table.stream.write.neither").text);
  EXPECT_EQ(value("passcred.handed_over.never_enabled").text,
            value("creds.table.stream.sendmsg_creds.neither").text);
}

TEST_F(Claims, ListenerFlagsFollowTheInheritanceExperiment) {
  const std::string inherit = value("creds.listener_inherit").text;
  ASSERT_FALSE(inherit.empty());
  // 6.16+ copies at connect(): the client that connected before the setsockopt gets nothing.
  EXPECT_EQ(value("passcred.listener_after_listen.connected_before").text,
            inherit == "connect" ? "none" : "creds");
  EXPECT_EQ(value("passcred.listener_after_listen.connected_after").text, "creds");
  EXPECT_EQ(value("passcred.listener_after_accept.accepted_before").text, "none");
}

// --- fd passing -------------------------------------------------------------------------------

TEST_F(Claims, ScmMaxFdCountsEveryRightsCmsgOfAMessage) {
  EXPECT_EQ(value("fds.max_per_message").integer, kScmMaxFd);
  EXPECT_EQ(value("fds.limit_total.two_cmsgs_over").text, "EINVAL");
  EXPECT_EQ(value("fds.limit_total.two_cmsgs_at_limit").text, "ok");
  EXPECT_EQ(value("fds.limit_total.one_cmsg_at_limit").text, "ok");
}

TEST_F(Claims, CapSysAdminExemptsFromEtoomanyrefs) {
  const Observation *o = observation("etoomanyrefs_exempt");
  ASSERT_NE(o, nullptr);
  if (o->status == Status::Skipped)
    GTEST_SKIP() << o->reason;
  EXPECT_EQ(value("fds.etoomanyrefs_exempt.none").text, "ETOOMANYREFS");
  if (!value("fds.etoomanyrefs_exempt.cap_sys_admin").isNull())
    EXPECT_EQ(value("fds.etoomanyrefs_exempt.cap_sys_admin").text, "no ETOOMANYREFS in 128");
  if (!value("fds.etoomanyrefs_exempt.cap_sys_resource").isNull())
    EXPECT_EQ(value("fds.etoomanyrefs_exempt.cap_sys_resource").text, "no ETOOMANYREFS in 128");
}

// Who waits for a GC run (6.8+): only AF_UNIX-fd senders of a user past 2024, only while a run is
// in progress; runs start past 16000 in flight or when a socket is released. Whether the sends
// start runs below 16000 differs between kernels (6.18.44: from the user's 2024th), so below_waits is
// reported, not asserted.
TEST_F(Claims, OnlyAfUnixFdSendsOfAHeavyUserWaitAndOnlyDuringARun) {
  const Observation *o = observation("gc_wait_conditions");
  ASSERT_NE(o, nullptr);
  if (o->status == Status::Skipped)
    GTEST_SKIP() << o->reason;
  ASSERT_EQ(o->status, Status::Ok) << o->reason;
  ASSERT_EQ(value("gc.conditions.below_waits").kind, Value::Kind::Bool);
  EXPECT_TRUE(value("gc.conditions.release_starts_run").boolean) << "a release starts a run";
  EXPECT_TRUE(value("gc.conditions.above_waits").boolean);
  // A /dev/null fd, and another uid's AF_UNIX fd, are not waited for (only the heavy user's
  // AF_UNIX fds make the send flush the GC work), but both sends take the lock a running walk
  // holds and share the CPUs with it. Measured on 6.18.44 on 2-CPU machines: /dev/null 3x to 12x
  // idle, against ~400x for AF_UNIX fds, and above the AF_UNIX sends in 2 of 5 runs on 2026-12-04
  // (3,735,390 ns against 502,384); the other uid 1x to 6x idle in 4 runs on 2026-12-05, but
  // >= 10x in one CI run the same day. The notes report both; a ratio that flips is not asserted.
  EXPECT_GT(value("gc.conditions.above_other_fd_ns").integer, 0);
  EXPECT_FALSE(value("gc.conditions.no_fd_waits").boolean);
  if (!value("gc.conditions.other_uid_waits").isNull())
    EXPECT_GT(value("gc.conditions.above_other_uid_unix_fd_ns").integer, 0);
  EXPECT_GT(value("gc.conditions.inflight_above").integer, kUnixInflightTriggerGc);
  EXPECT_GE(value("gc.conditions.inflight_below").integer, kUnixInflightSaneUser);
}

} // namespace
} // namespace afunix::kernel
