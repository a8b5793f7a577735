// The report as programs read it: valid JSON with every documented key, the values the
// experiments observed, the rules named by the catalog, and the CLI's exit codes.
#include <cctype>
#include <cstdio>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

#include "TestSupport.h"
#include "afunix/RuleCatalog.h"
#include "afunix/kernel/ExperimentRegistry.h"
#include "afunix/kernel/Experiments.h"
#include "afunix/kernel/KernelReport.h"

namespace afunix::kernel {
namespace {

// A strict little JSON reader: records the dotted path of every object member and the raw text
// of every scalar. Returns false on any syntax error.
class JsonPaths {
public:
  explicit JsonPaths(std::string text) : s_(std::move(text)) {}
  bool parse() {
    skip();
    if (!value(""))
      return false;
    skip();
    return pos_ == s_.size();
  }
  std::map<std::string, std::string> scalars;
  std::set<std::string> paths;

private:
  void skip() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_])))
      ++pos_;
  }
  bool string(std::string &out) {
    if (pos_ >= s_.size() || s_[pos_] != '"')
      return false;
    ++pos_;
    while (pos_ < s_.size() && s_[pos_] != '"') {
      if (s_[pos_] == '\\') {
        ++pos_;
        if (pos_ >= s_.size())
          return false;
        out += s_[pos_] == 'n' ? '\n' : s_[pos_];
        if (s_[pos_] == 'u')
          pos_ += 4;
      } else {
        out += s_[pos_];
      }
      ++pos_;
    }
    if (pos_ >= s_.size())
      return false;
    ++pos_;
    return true;
  }
  bool value(const std::string &path) {
    skip();
    if (pos_ >= s_.size())
      return false;
    char c = s_[pos_];
    if (c == '{') {
      ++pos_;
      skip();
      if (pos_ < s_.size() && s_[pos_] == '}') {
        ++pos_;
        return true;
      }
      for (;;) {
        skip();
        std::string key;
        if (!string(key))
          return false;
        skip();
        if (pos_ >= s_.size() || s_[pos_++] != ':')
          return false;
        std::string child = path.empty() ? key : path + "." + key;
        paths.insert(child);
        if (!value(child))
          return false;
        skip();
        if (pos_ < s_.size() && s_[pos_] == ',') {
          ++pos_;
          continue;
        }
        if (pos_ < s_.size() && s_[pos_] == '}') {
          ++pos_;
          return true;
        }
        return false;
      }
    }
    if (c == '[') {
      ++pos_;
      skip();
      if (pos_ < s_.size() && s_[pos_] == ']') {
        ++pos_;
        return true;
      }
      for (int i = 0;; ++i) {
        if (!value(path + "[" + std::to_string(i) + "]"))
          return false;
        skip();
        if (pos_ < s_.size() && s_[pos_] == ',') {
          ++pos_;
          continue;
        }
        if (pos_ < s_.size() && s_[pos_] == ']') {
          ++pos_;
          return true;
        }
        return false;
      }
    }
    if (c == '"') {
      std::string text;
      if (!string(text))
        return false;
      scalars[path] = "\"" + text + "\"";
      return true;
    }
    std::size_t start = pos_;
    while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) ||
                                s_[pos_] == '-' || s_[pos_] == '.' || s_[pos_] == '+'))
      ++pos_;
    std::string word = s_.substr(start, pos_ - start);
    if (word.empty())
      return false;
    if (word != "true" && word != "false" && word != "null" &&
        !(std::isdigit(static_cast<unsigned char>(word[0])) || word[0] == '-'))
      return false;
    scalars[path] = word;
    return true;
  }
  std::string s_;
  std::size_t pos_ = 0;
};

std::string runCli(const std::string &args, int &status) {
  std::string out;
  FILE *p = popen((std::string(AFUNIX_PROBE_BIN) + " " + args + " 2>/dev/null").c_str(), "r");
  if (!p) {
    status = -1;
    return out;
  }
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0)
    out.append(buf, n);
  int raw = pclose(p);
  status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return out;
}

class QuickReport : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    KernelReportOptions options;
    options.quick = true;
    options.timeoutSeconds = 20;
    report_ = new KernelReport(runKernelReport(options));
  }
  static void TearDownTestSuite() { delete report_; }
  static KernelReport *report_;
};
KernelReport *QuickReport::report_ = nullptr;

TEST_F(QuickReport, JsonIsValidAndHasEveryDocumentedKey) {
  JsonPaths json(toJson(*report_));
  ASSERT_TRUE(json.parse()) << toJson(*report_);
  for (const auto &key : documentedKeys())
    EXPECT_TRUE(json.paths.count(key)) << "missing key " << key;
  EXPECT_EQ(json.scalars["probe.clean"], "true");
  EXPECT_EQ(json.scalars["gc.unix_fd_wait.waits"], "null") << "--quick skips the GC";
  EXPECT_TRUE(json.paths.count("experiments[0].status"));
}

TEST_F(QuickReport, EveryDocumentedKeyIsInTheDocs) {
  std::ifstream in(std::string(AFUNIX_SOURCE_DIR) + "/docs/kernel-report.md");
  ASSERT_TRUE(in) << "docs/kernel-report.md is missing";
  std::stringstream doc;
  doc << in.rdbuf();
  for (const auto &key : documentedKeys())
    EXPECT_NE(doc.str().find("`" + key + "`"), std::string::npos) << key << " not documented";
}

TEST_F(QuickReport, CleansUpAndEveryExperimentRan) {
  EXPECT_TRUE(report_->clean()) << report_->fdsBefore << " fds before, " << report_->fdsAfter
                                << " after";
  EXPECT_TRUE(report_->allRan());
  EXPECT_EQ(report_->observations.size(), kExperimentCount);
  for (std::size_t i = 0; i < report_->observations.size(); ++i)
    EXPECT_EQ(report_->observations[i].experiment, kExperimentKeys[i].name) << "the order of ExperimentRegistry.h";
  for (const auto &o : report_->observations)
    if (!findExperimentKey(o.experiment)->heavy)
      EXPECT_TRUE(o.status == Status::Ok || o.status == Status::Skipped)
          << o.experiment << ": " << o.reason;
}

TEST_F(QuickReport, NamesOnlyRulesOfTheCatalog) {
  for (const auto &o : report_->observations)
    for (const auto &id : o.rules)
      EXPECT_NE(catalog::findRule(id), nullptr) << o.experiment << " names unknown rule " << id;
}

TEST_F(QuickReport, IsolatedValuesMatchTheInProcessExperiments) {
  // The isolated child (private netns) must see what the same experiment sees in-process.
  Observation creds = credentialsExperiment();
  EXPECT_EQ(report_->get("creds.late_passcred")->text, creds.get("creds.late_passcred")->text);
  Observation inherit = listenerInheritExperiment();
  EXPECT_EQ(report_->get("creds.listener_inherit")->text,
            inherit.get("creds.listener_inherit")->text);
}

TEST(KernelCli, JsonOutputParsesAndExitsZero) {
  int status = 0;
  std::string out = runCli("kernel --quick --format json --timeout 20", status);
  EXPECT_EQ(status, 0) << out;
  JsonPaths json(out);
  ASSERT_TRUE(json.parse()) << out;
  for (const auto &key : documentedKeys())
    EXPECT_TRUE(json.paths.count(key)) << "missing key " << key;
}

TEST(KernelCli, TextOutputNamesTheKernelAndTheCleanup) {
  int status = 0;
  std::string out = runCli("kernel --quick", status);
  EXPECT_EQ(status, 0);
  EXPECT_NE(out.find("afunix-probe kernel: Linux "), std::string::npos) << out;
  EXPECT_NE(out.find("creds.late_passcred = "), std::string::npos) << out;
  EXPECT_NE(out.find("no child process left"), std::string::npos) << out;
}

TEST(KernelCli, RunsAsAnOrdinaryUserSkippingOnlyWhatNeedsPrivilege) {
  if (geteuid() != 0)
    GTEST_SKIP() << "already an ordinary user: the other tests cover this case";
  if (std::system("command -v setpriv >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "setpriv (util-linux) not installed";
  std::string out;
  // A uid no account has: fds left in flight by earlier runs count against theirs for good.
  const UnusedUser user = unusedUser();
  const std::string uid = std::to_string(user.uid);
  FILE *p = popen(("setpriv --reuid=" + uid + " --regid=" + uid + " --clear-groups --inh-caps=-all " +
                   std::string(AFUNIX_PROBE_BIN) + " kernel --quick --format json 2>&1")
                      .c_str(),
                  "r");
  ASSERT_NE(p, nullptr);
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0)
    out.append(buf, n);
  int raw = pclose(p);
  if (WIFEXITED(raw) && WEXITSTATUS(raw) == 126)
    GTEST_SKIP() << "the build tree is not executable for uid " << uid << ": " << out;
  EXPECT_TRUE(WIFEXITED(raw) && WEXITSTATUS(raw) == 0) << out;
  JsonPaths json(out);
  ASSERT_TRUE(json.parse()) << out;
  EXPECT_EQ(json.scalars["probe.uid"], uid);
  EXPECT_EQ(json.scalars["probe.clean"], "true");
  // Without CAP_SYS_ADMIN no private network namespace, and it says so instead of failing.
  EXPECT_NE(json.scalars["probe.netns"].find("shared network namespace"), std::string::npos);
  // Already unprivileged: ETOOMANYREFS is measured directly, with the same first principle.
  EXPECT_EQ(json.scalars["fds.etoomanyrefs_at"], "65");
  EXPECT_EQ(json.scalars["creds.late_passcred"],
            "\"" + credentialsExperiment().get("creds.late_passcred")->text + "\"");
}

// ---- concurrent runs take turns (issue 14, item 16) --------------------------------------------

TEST(KernelCli, AnInflightMeasurementIsSkippedRatherThanDisturbed) {
  // Another afunix-probe holds the in-flight measurements for longer than this run waits (2 x
  // --timeout): ETOOMANYREFS is not measured at all, instead of measured against the other's fds.
  InflightLock other(1);
  ASSERT_TRUE(other.held());
  int status = 0;
  std::string out = runCli("kernel --quick --timeout 1 --format json", status);
  EXPECT_EQ(status, 0) << out;
  JsonPaths json(out);
  ASSERT_TRUE(json.parse()) << out;
  EXPECT_EQ(json.scalars["fds.etoomanyrefs_at"], "null");
  bool said = false;
  for (const auto &[path, value] : json.scalars)
    said |= path.find(".reason") != std::string::npos && value.find("another afunix-probe held") != std::string::npos;
  EXPECT_TRUE(said) << out;
}

TEST(KernelCli, ConcurrentRunsTakeTurnsAndAgree) {
  std::vector<FILE *> runs;
  for (int i = 0; i < 3; ++i)
    runs.push_back(popen((std::string(AFUNIX_PROBE_BIN) + " kernel --quick --format json 2>/dev/null").c_str(), "r"));
  std::set<std::string> values;
  for (FILE *p : runs) {
    ASSERT_NE(p, nullptr);
    std::string out;
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;)
      out.append(buf, n);
    int raw = pclose(p);
    EXPECT_TRUE(WIFEXITED(raw) && WEXITSTATUS(raw) == 0) << out;
    JsonPaths json(out);
    ASSERT_TRUE(json.parse()) << out;
    values.insert(json.scalars["fds.etoomanyrefs_at"]);
  }
  EXPECT_EQ(values, (std::set<std::string>{"65"})) << "the same figure from every run: RLIMIT_NOFILE 64 + 1";
}

// ---- kernel --compare (issue 13) --------------------------------------------------------------

std::string replaceOnce(std::string text, const std::string &from, const std::string &to) {
  std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos)
    text.replace(at, from.size(), to);
  return text;
}

TEST(KernelCompare, NamesWhatChangedWhatItBreaksAndExitsOne) {
  int status = 0;
  std::string today = runCli("kernel --quick --format json", status);
  ASSERT_EQ(status, 0);
  // An "older kernel" made from today's report: the 3.12-6.15 listener inheritance, SO_PASSCRED
  // accepted on inet sockets, no embryo credentials, and a key of an older afunix-probe.
  std::string older = today;
  older = replaceOnce(older, "\"listener_inherit\": \"connect\"", "\"listener_inherit\": \"accept\"");
  older = replaceOnce(older, "\"inet\": \"EOPNOTSUPP\"", "\"inet\": \"ok\"");
  older = replaceOnce(older, "\"embryo_attach\": true", "\"embryo_attach\": false");
  older = replaceOnce(older, "\"so_passrights\"", "\"so_passrights_v0\"");
  test::TempDir dir;
  socklen_t ignored;
  std::string oldPath = dir.address("old.json", ignored).sun_path, newPath = dir.address("new.json", ignored).sun_path;
  std::ofstream(oldPath) << older;
  std::ofstream(newPath) << today;
  std::string out = runCli("kernel --compare " + oldPath + " " + newPath, status);
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find("behaviour changes that break programs (2):"), std::string::npos) << out;
  EXPECT_NE(out.find("  creds.listener_inherit: accept -> connect\n"), std::string::npos) << out;
  EXPECT_NE(out.find("afunix-check rules: afunix-passcred-too-late (listener-after-listen)"), std::string::npos);
  EXPECT_NE(out.find("  passcred.inet: ok -> EOPNOTSUPP\n"), std::string::npos);
  EXPECT_NE(out.find("afunix-check rules: afunix-passcred-wrong-family"), std::string::npos);
  EXPECT_NE(out.find("other behaviour changes (1):\n  creds.embryo_attach: false -> true"), std::string::npos);
  // Keys on one side only are listed, never dropped.
  EXPECT_NE(out.find("features.so_passrights_v0 = "), std::string::npos) << out;
  EXPECT_NE(out.find("(old only)"), std::string::npos);
  EXPECT_NE(out.find("(new only)"), std::string::npos);
  std::string json = runCli("kernel --compare " + oldPath + " " + newPath + " --format json", status);
  EXPECT_EQ(status, 1);
  JsonPaths parsed(json);
  ASSERT_TRUE(parsed.parse()) << json;
  EXPECT_EQ(parsed.scalars["breaking[0].key"], "\"creds.listener_inherit\"");
  EXPECT_EQ(parsed.scalars["exit_status"], "1");
  // The same kernel twice: nothing breaks, exit 0 (the GC booleans are compared like any key).
  out = runCli("kernel --compare " + newPath + " " + newPath, status);
  EXPECT_EQ(status, 0) << out;
  EXPECT_NE(out.find("no behaviour change that breaks programs"), std::string::npos);
}

TEST(KernelCompare, UnreadableReportsAreUsageErrors) {
  int status = 0;
  runCli("kernel --compare /nonexistent/a.json /nonexistent/b.json", status);
  EXPECT_EQ(status, 2);
  runCli("kernel --compare /etc/hostname /etc/hostname", status);
  EXPECT_EQ(status, 2);
  runCli("kernel --compare onlyone.json", status);
  EXPECT_EQ(status, 2);
}

TEST(KernelCli, UsageErrorsExitTwo) {
  int status = 0;
  runCli("kernel --format xml", status);
  EXPECT_EQ(status, 2);
  runCli("kernel --timeout -3", status);
  EXPECT_EQ(status, 2);
  runCli("kernel --bogus", status);
  EXPECT_EQ(status, 2);
  runCli("bench nosuch", status);
  EXPECT_EQ(status, 2);
  runCli("bench hackbench -g 0", status);
  EXPECT_EQ(status, 2);
  runCli("bench meminit --sizes 1K,,2", status);
  EXPECT_EQ(status, 2);
}

} // namespace
} // namespace afunix::kernel
