// The engine on real files with test-only checks registered beside the afunix module: findings
// and their fields, NOLINT, severities, globs, check options, parse errors, crashes, parallel runs.
#include "CompileDb.h"
#include "Config.h"
#include "ProjectOptions.h"
#include "Engine.h"
#include "FactsCache.h"
#include "Filters.h"
#include "Fixes.h"
#include "Isolation.h"
#include "Nolint.h"
#include "Output.h"
#include "Prefilter.h"
#include "ScratchDirectory.h"
#include "ServiceDiscovery.h"

#include "ClangTidyCheck.h"
#include "ClangTidyModule.h"
#include "ClangTidyModuleRegistry.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <atomic>
#include <csignal>
#include <fstream>
#include <thread>

using namespace clang::ast_matchers;

namespace clang::tidy::afunix_test {

// Flags every call to flagme(), with a note at its declaration and a fix renaming the call.
class CallCheck : public ClangTidyCheck {
public:
  using ClangTidyCheck::ClangTidyCheck;
  void registerMatchers(MatchFinder *finder) override {
    finder->addMatcher(
        callExpr(callee(functionDecl(hasName("flagme")).bind("decl"))).bind("call"), this);
  }
  void check(const MatchFinder::MatchResult &result) override {
    const auto *call = result.Nodes.getNodeAs<CallExpr>("call");
    const auto *decl = result.Nodes.getNodeAs<FunctionDecl>("decl");
    diag(call->getBeginLoc(), "call to flagme")
        << FixItHint::CreateReplacement(call->getCallee()->getSourceRange(), "fixed");
    diag(decl->getLocation(), "flagme declared here", DiagnosticIDs::Note);
  }
};

// Reports the global check options it sees, at every call to showopts().
class OptionsCheck : public ClangTidyCheck {
public:
  OptionsCheck(StringRef name, ClangTidyContext *context)
      : ClangTidyCheck(name, context),
        kernel(Options.getLocalOrGlobal("TargetKernel", "any")),
        wrappers(Options.getLocalOrGlobal("OptionWrappers", "")) {}
  void registerMatchers(MatchFinder *finder) override {
    finder->addMatcher(callExpr(callee(functionDecl(hasName("showopts")))).bind("call"), this);
  }
  void check(const MatchFinder::MatchResult &result) override {
    diag(result.Nodes.getNodeAs<CallExpr>("call")->getBeginLoc(), "kernel=%0 wrappers=%1")
        << kernel << wrappers;
  }
  std::string kernel, wrappers;
};

// Crashes on a call to crashme(): a bug in a check must cost one file, not the run.
class CrashCheck : public ClangTidyCheck {
public:
  using ClangTidyCheck::ClangTidyCheck;
  void registerMatchers(MatchFinder *finder) override {
    finder->addMatcher(callExpr(callee(functionDecl(hasName("crashme")))).bind("call"), this);
  }
  void check(const MatchFinder::MatchResult &) override { std::raise(SIGSEGV); }
};

// Reports at error level, as checks do for catalog rules of severity error.
class ErrorLevelCheck : public ClangTidyCheck {
public:
  using ClangTidyCheck::ClangTidyCheck;
  void registerMatchers(MatchFinder *finder) override {
    finder->addMatcher(callExpr(callee(functionDecl(hasName("erroneous")))).bind("call"), this);
  }
  void check(const MatchFinder::MatchResult &result) override {
    diag(result.Nodes.getNodeAs<CallExpr>("call")->getBeginLoc(), "error-level finding",
         DiagnosticIDs::Error);
  }
};

class TestModule : public ClangTidyModule {
public:
  void addCheckFactories(ClangTidyCheckFactories &factories) override {
    factories.registerCheck<CallCheck>("afunix-test-call");
    factories.registerCheck<OptionsCheck>("afunix-test-options");
    factories.registerCheck<CrashCheck>("afunix-test-crash");
    factories.registerCheck<ErrorLevelCheck>("afunix-test-error");
  }
};

static ClangTidyModuleRegistry::Add<TestModule> X("afunix-test-module", "engine test checks");

} // namespace clang::tidy::afunix_test

namespace afunix::check {
namespace {

class EngineTest : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = afunix::test_support::scratchDirectory("afunix-engine-test");
    ASSERT_FALSE(dir_.empty());
  }

  std::string write(const std::string &name, const std::string &text) {
    std::string path = dir_ + "/" + name;
    std::ofstream(path) << text;
    return path;
  }

  std::vector<CompileJob> jobsFor(const std::vector<std::string> &files,
                                  std::vector<std::string> args = {"-std=gnu11"}) {
    CompileRequest request;
    request.files = files;
    request.extraArgs = std::move(args);
    request.haveDashDash = true;
    std::vector<CompileJob> jobs;
    std::string error;
    EXPECT_TRUE(collectJobs(request, jobs, error)) << error;
    return jobs;
  }

  RunResult run(const std::vector<std::string> &files, EngineOptions options = {}) {
    if (options.checks == EngineOptions().checks)
      options.checks = "-*,afunix-test-call,afunix-test-options";
    return runChecks(jobsFor(files), options);
  }

  std::string dir_;
};

constexpr const char *kFlagged = "void flagme(void);\n"
                                 "void f(void) {\n"
                                 "    flagme();   \n"
                                 "}\n";

TEST_F(EngineTest, FindingCarriesLocationNoteLineTextAndFix) {
  std::string file = write("a.c", kFlagged);
  RunResult result = run({file});
  ASSERT_EQ(result.findings.size(), 1u);
  const Finding &f = result.findings[0];
  EXPECT_EQ(f.rule, "afunix-test-call");
  EXPECT_EQ(f.severity, "warning"); // not a catalog rule: the default
  EXPECT_EQ(f.where.file, file);
  EXPECT_EQ(f.where.line, 3u);
  EXPECT_EQ(f.where.column, 5u);
  EXPECT_EQ(f.message, "call to flagme");
  EXPECT_EQ(f.lineText, "flagme();");
  ASSERT_EQ(f.notes.size(), 1u);
  EXPECT_EQ(f.notes[0].where.line, 1u);
  EXPECT_EQ(f.notes[0].where.column, 6u);
  EXPECT_EQ(f.notes[0].message, "flagme declared here");
  ASSERT_EQ(f.fixes.size(), 1u);
  EXPECT_EQ(f.fixes[0].file, file);
  EXPECT_EQ(f.fixes[0].offset, std::string(kFlagged).find("flagme();"));
  EXPECT_EQ(f.fixes[0].length, 6u);
  EXPECT_EQ(f.fixes[0].text, "fixed");
  ASSERT_EQ(result.files.size(), 1u);
  EXPECT_TRUE(result.files[0].parsed);
}

TEST_F(EngineTest, NolintSuppressesTheNamedRuleOnly) {
  std::string file = write("n.c", "void flagme(void);\n"
                                  "void f(void) {\n"
                                  "  flagme(); // NOLINT(afunix-test-call)\n"
                                  "  // NOLINTNEXTLINE(afunix-test-call)\n"
                                  "  flagme();\n"
                                  "  flagme(); // NOLINT(afunix-fd-flood)\n"
                                  "  flagme(); // NOLINT\n"
                                  "  flagme();\n"
                                  "}\n");
  RunResult result = run({file});
  std::vector<unsigned> lines;
  for (const Finding &f : result.findings)
    lines.push_back(f.where.line);
  EXPECT_EQ(lines, (std::vector<unsigned>{6, 8}));
}

TEST_F(EngineTest, ErrorLevelFindingsObeyNolintAndAreNoParseError) {
  std::string file = write("e.c", "void erroneous(void);\n"
                                  "void f(void) {\n"
                                  "  erroneous();\n"
                                  "  erroneous(); // NOLINT(afunix-test-error)\n"
                                  "  // NOLINTNEXTLINE(afunix-test-error)\n"
                                  "  erroneous();\n"
                                  "}\n");
  EngineOptions options;
  options.checks = "-*,afunix-test-error";
  RunResult result = run({file}, options);
  ASSERT_EQ(result.findings.size(), 1u);
  EXPECT_EQ(result.findings[0].where.line, 3u);
  ASSERT_EQ(result.files.size(), 1u);
  EXPECT_TRUE(result.files[0].parsed);
  EXPECT_TRUE(result.files[0].errors.empty());
}

TEST_F(EngineTest, OneWorkerKeepsRuleNamesApartAcrossFiles) {
  // Different checks report first in each file: diagnostic ids must not be confused.
  std::string first = write("f1.c", "void erroneous(void);\nvoid f(void) { erroneous(); }\n");
  std::string second = write("f2.c", std::string(kFlagged) +
                                         "void erroneous(void);\n"
                                         "void g(void) { erroneous(); } // NOLINT(afunix-test-error)\n");
  EngineOptions options;
  options.checks = "-*,afunix-test-call,afunix-test-error";
  RunResult result = run({first, second}, options);
  ASSERT_EQ(result.findings.size(), 2u);
  EXPECT_EQ(result.findings[0].rule, "afunix-test-error");
  EXPECT_EQ(result.findings[0].message, "error-level finding");
  EXPECT_EQ(result.findings[1].rule, "afunix-test-call");
  EXPECT_EQ(result.findings[1].message, "call to flagme");
  EXPECT_EQ(result.findings[1].where.file, second);
}

TEST_F(EngineTest, SeverityOverrideAndCatalogDefault) {
  std::string file = write("s.c", kFlagged);
  EngineOptions options;
  options.severity["afunix-test-call"] = "error";
  RunResult result = run({file}, options);
  ASSERT_EQ(result.findings.size(), 1u);
  EXPECT_EQ(result.findings[0].severity, "error");
}

TEST_F(EngineTest, GlobSelectsChecks) {
  std::string file = write("g.c", std::string(kFlagged) + "void showopts(void);\n"
                                                          "void g(void) { showopts(); }\n");
  EngineOptions options;
  options.checks = "-*,afunix-test-options";
  RunResult result = run({file}, options);
  ASSERT_EQ(result.findings.size(), 1u);
  EXPECT_EQ(result.findings[0].rule, "afunix-test-options");
  EXPECT_EQ(enabledChecks("-*,afunix-test-*,-afunix-test-crash"),
            (std::vector<std::string>{"afunix-test-call", "afunix-test-error", "afunix-test-options"}));
}

TEST_F(EngineTest, GlobalCheckOptionsReachChecks) {
  std::string file = write("o.c", "void showopts(void);\nvoid g(void) { showopts(); }\n");
  EngineOptions options;
  options.checkOptions["TargetKernel"] = "6.15";
  options.checkOptions["OptionWrappers"] = "set_opt;ns::wrap";
  RunResult result = run({file}, options);
  ASSERT_EQ(result.findings.size(), 1u);
  EXPECT_EQ(result.findings[0].message, "kernel=6.15 wrappers=set_opt;ns::wrap");
}

TEST_F(EngineTest, UnparseableFileKeepsItsFindings) {
  std::string file = write("u.c", std::string(kFlagged) + "int broken( { return 0 }\n");
  RunResult result = run({file});
  ASSERT_EQ(result.files.size(), 1u);
  EXPECT_FALSE(result.files[0].parsed);
  ASSERT_FALSE(result.files[0].errors.empty());
  EXPECT_NE(result.files[0].errors[0].find(file + ":5:"), std::string::npos)
      << result.files[0].errors[0];
  EXPECT_NE(result.files[0].errors[0].find(": error: "), std::string::npos);
  ASSERT_EQ(result.findings.size(), 1u);
  EXPECT_EQ(result.findings[0].where.line, 3u);
  EXPECT_EQ(countParseErrors(result), 1u);
}

TEST_F(EngineTest, MissingIncludeIsAParseError) {
  std::string file = write("m.c", "#include \"no-such-header.h\"\nint x;\n");
  RunResult result = run({file});
  ASSERT_EQ(result.files.size(), 1u);
  EXPECT_FALSE(result.files[0].parsed);
  ASSERT_FALSE(result.files[0].errors.empty());
  EXPECT_NE(result.files[0].errors[0].find("no-such-header.h"), std::string::npos);
}

TEST_F(EngineTest, CrashInOneFileKeepsTheOthers) {
  std::string crash = write("crash.c", "void crashme(void);\nvoid f(void) { crashme(); }\n");
  std::string good = write("good.c", kFlagged);
  std::string good2 = write("good2.c", kFlagged);
  for (unsigned jobs : {1u, 2u}) {
    EngineOptions options;
    options.checks = "-*,afunix-test-call,afunix-test-crash";
    options.jobs = jobs;
    RunResult result = run({crash, good, good2}, options);
    ASSERT_EQ(result.files.size(), 3u);
    EXPECT_FALSE(result.files[0].parsed);
    EXPECT_NE(result.files[0].errors.at(0).find("crashed"), std::string::npos);
    EXPECT_TRUE(result.files[1].parsed);
    EXPECT_TRUE(result.files[2].parsed);
    ASSERT_EQ(result.findings.size(), 2u) << "jobs=" << jobs;
    EXPECT_EQ(result.findings[0].where.file, good);
    EXPECT_EQ(result.findings[1].where.file, good2);
  }
}

TEST_F(EngineTest, ParallelRunGivesTheSameResult) {
  std::vector<std::string> files;
  for (int i = 0; i < 12; ++i) {
    std::string body = "void flagme(void);\n";
    for (int j = 0; j <= i % 4; ++j)
      body += "void f" + std::to_string(j) + "(void) { flagme(); }\n";
    if (i % 5 == 0)
      body += "int broken(;\n";
    files.push_back(write("p" + std::to_string(i) + ".c", body));
  }
  auto render = [&](unsigned jobs) {
    EngineOptions options;
    options.jobs = jobs;
    RunResult result = run(files, options);
    std::string out;
    llvm::raw_string_ostream os(out);
    writeJson(result, os);
    return os.str();
  };
  std::string serial = render(1);
  EXPECT_NE(serial.find("\"findings\": 30"), std::string::npos) << serial.substr(serial.size() - 400);
  EXPECT_EQ(render(2), serial);
  EXPECT_EQ(render(4), serial);
}

TEST_F(EngineTest, RelativeDatabaseEntriesResolveAgainstTheirDirectory) {
  llvm::sys::fs::create_directories(dir_ + "/src");
  llvm::sys::fs::create_directories(dir_ + "/build");
  std::string file = write("src/r.c", kFlagged);
  write("build/compile_commands.json",
        "[{\"directory\": \"" + dir_ + "/build\", \"arguments\": [\"gcc\", \"-fanalyzer\", "
        "\"-Werror\", \"-Wlogical-op\", \"-c\", \"../src/r.c\", \"-o\", \"r.o\"], "
        "\"file\": \"../src/r.c\"}]");
  CompileRequest request;
  request.buildPath = dir_ + "/build";
  std::vector<CompileJob> jobs;
  std::string error;
  ASSERT_TRUE(collectJobs(request, jobs, error)) << error;
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].file, file);
  EngineOptions options;
  options.checks = "-*,afunix-test-call";
  RunResult result = runChecks(jobs, options);
  ASSERT_EQ(result.findings.size(), 1u);
  EXPECT_EQ(result.findings[0].where.file, file);
  EXPECT_TRUE(result.files[0].parsed) << result.files[0].errors.at(0);
}

TEST(AdjustCommand, DropsWhatClangRejectsAndKeepsTheRest) {
  std::vector<std::string> in = {"ccache", "gcc", "-O2", "-DX=1", "-Iinc", "-fanalyzer",
                                 "-fno-tree-loop-distribute-patterns", "-mindirect-branch=thunk",
                                 "-fstack-clash-protection", "-Werror", "-Werror=format",
                                 "-MD", "-MF", "a.d", "-c", "a.c", "-o", "a.o",
                                 "-resource-dir=/elsewhere"};
  std::vector<std::string> out = adjustCommand(in, "a.c");
  auto has = [&](const std::string &s) { return std::find(out.begin(), out.end(), s) != out.end(); };
  EXPECT_EQ(out[0], "gcc");
  EXPECT_EQ(out[1], "-resource-dir=" AFUNIX_CLANG_RESOURCE_DIR);
  for (const char *kept : {"-O2", "-DX=1", "-Iinc", "-fstack-clash-protection", "a.c",
                           "-fsyntax-only", "-Wno-unknown-warning-option"})
    EXPECT_TRUE(has(kept)) << kept;
  for (const char *dropped : {"ccache", "-fanalyzer", "-fno-tree-loop-distribute-patterns",
                              "-mindirect-branch=thunk", "-Werror", "-Werror=format", "-MD", "-MF",
                              "a.d", "-c", "-o", "a.o", "-resource-dir=/elsewhere"})
    EXPECT_FALSE(has(dropped)) << dropped;
}

TEST(ConfigFile, ParsesEverySetting) {
  Config config;
  std::string error;
  ASSERT_TRUE(parseConfig("wrappers: [set_opt, ns::wrap]\n"
                          "socket_producers: [open_listener]\n"
                          "external_sockets: [inherited_fd]\n"
                          "severity: {afunix-fd-flood: error}\n"
                          "disable: [afunix-fd-limit]\n"
                          "pedantic: true\n"
                          "target_kernel: \"6.16\"\n",
                          "c.yaml", config, error))
      << error;
  EXPECT_EQ(config.wrappers, (std::vector<std::string>{"set_opt", "ns::wrap"}));
  EXPECT_EQ(config.socketProducers, (std::vector<std::string>{"open_listener"}));
  EXPECT_EQ(config.externalSockets, (std::vector<std::string>{"inherited_fd"}));
  EXPECT_EQ(config.severity.at("afunix-fd-flood"), "error");
  EXPECT_EQ(config.disable, (std::vector<std::string>{"afunix-fd-limit"}));
  EXPECT_EQ(config.pedantic, true);
  EXPECT_EQ(config.targetKernel, "6.16");
}

TEST(ConfigFile, ModelsAddToTheCatalogAsCheckOptions) {
  Config config;
  std::string error;
  ASSERT_TRUE(parseConfig("models:\n  event_loops:\n"
                          "    - {function: ev_watch, fd: 4, callback: 2, callback_fd: 2}\n"
                          "  allocators:\n    - {function: pool_alloc}\n",
                          "c.yaml", config, error))
      << error;
  ASSERT_EQ(config.models.eventLoops.size(), 1u);
  EXPECT_EQ(config.models.eventLoops[0].callbackFd, 2);
  // What the analysis gets: the built-in catalog first, then these.
  std::map<std::string, std::string> options = afunix::rules::modelOptions(config.models);
  afunix::analysis::ProjectOptions project = afunix::analysis::ProjectOptions::parse(
      [&](llvm::StringRef name) -> std::optional<std::string> {
        auto it = options.find(name.str());
        return it == options.end() ? std::nullopt : std::optional<std::string>(it->second);
      },
      [](const std::string &message) { ADD_FAILURE() << message; });
  ASSERT_GE(project.registrars.size(), 2u);
  EXPECT_EQ(project.registrars.front().name, "sd_event_add_io");
  EXPECT_EQ(project.registrars.back().name, "ev_watch");
  EXPECT_EQ(project.registrars.back().param, 2);
  EXPECT_TRUE(project.allocators.lookup("pool_alloc"));    // the project's: its own functions too
  EXPECT_FALSE(project.allocators.lookup("malloc"));       // the catalog's: system headers only
  EXPECT_TRUE(project.allocators.count("malloc"));
}

TEST(ConfigFile, ErrorsNameFileLineAndField) {
  struct Case {
    const char *text, *expected;
  } cases[] = {
      {"wrappers: [a]\nwrapers: [b]\n", "c.yaml:2:1: field 'wrapers': unknown setting"},
      {"severity:\n  afunix-fd-flood: fatal\n", "c.yaml:2:20: field 'severity.afunix-fd-flood'"},
      {"severity: {afunix-nope: error}\n", "c.yaml:1:12: field 'severity': unknown rule id"},
      {"disable: afunix-fd-flood\n", "c.yaml:1:10: field 'disable': expected a list"},
      {"target_kernel: 6\n", "c.yaml:1:16: field 'target_kernel'"},
      {"pedantic: maybe\n", "c.yaml:1:11: field 'pedantic'"},
      {"wrappers: [\"not a name\"]\n", "c.yaml:1:12: field 'wrappers'"},
      {"wrappers: [a\n", "c.yaml:2:1: invalid YAML"},
      {"- a\n- b\n", "c.yaml:1:1: expected a mapping"},
      {"models:\n  event_loops:\n    - {function: ev_watch, fd: 4, callback: 2, callbak_fd: 2}\n",
       "c.yaml:3:48: field 'models.event_loops[0].callbak_fd': unknown field"},
  };
  for (const Case &c : cases) {
    Config config;
    std::string error;
    EXPECT_FALSE(parseConfig(c.text, "c.yaml", config, error)) << c.text;
    EXPECT_EQ(error.rfind(c.expected, 0), 0u) << "got: " << error << "\nfor: " << c.text;
  }
}

TEST_F(EngineTest, HeaderFindingComesOnceWithItsUnit) {
  write("h.h", "void flagme(void);\nstatic inline void g(void) { flagme(); }\n");
  std::string a = write("a.c", "#include \"h.h\"\n");
  std::string b = write("b.c", "#include \"h.h\"\nvoid h(void) { g(); }\n");
  for (unsigned jobs : {1u, 2u}) {
    EngineOptions options;
    options.jobs = jobs;
    RunResult result = run({b, a}, options);
    ASSERT_EQ(result.findings.size(), 1u) << "jobs=" << jobs;
    const Finding &f = result.findings[0];
    EXPECT_EQ(f.where.file, dir_ + "/h.h");
    EXPECT_EQ(f.unit, b); // the first unit in job order, whatever the scheduling
  }
}

TEST_F(EngineTest, NolintedFindingsAreCounted) {
  std::string file = write("n.c", "void flagme(void);\n"
                                  "void f(void) {\n"
                                  "  flagme(); // NOLINT(afunix-test-call)\n"
                                  "  flagme();\n"
                                  "}\n");
  RunResult result = run({file});
  EXPECT_EQ(result.findings.size(), 1u);
  EXPECT_EQ(result.dropped.nolint, 1u);
}

TEST_F(EngineTest, SettingsForGivesEachUnitItsOwnOptions) {
  std::string a = write("a.c", "void showopts(void);\nvoid g(void) { showopts(); }\n");
  std::string b = write("b.c", "void showopts(void);\nvoid h(void) { showopts(); }\n");
  EngineOptions options;
  options.checks = "-*,afunix-test-options";
  options.settingsFor = [&](const std::string &file) {
    return UnitSettings{"-*,afunix-test-options",
                        {{"TargetKernel", file == a ? "6.1" : "6.16"}}};
  };
  RunResult result = run({a, b}, options);
  ASSERT_EQ(result.findings.size(), 2u);
  EXPECT_EQ(result.findings[0].message, "kernel=6.1 wrappers=");
  EXPECT_EQ(result.findings[1].message, "kernel=6.16 wrappers=");
}

// Issue 14.2 with the real engine: a fix-it carries the digest of the bytes clang parsed; a file
// saved in between (same size, other bytes) is left alone.
TEST_F(EngineTest, FixItsApplyOnlyToTheBytesTheyWereComputedFrom) {
  std::string file = write("f.c", kFlagged);
  RunResult result = run({file});
  ASSERT_EQ(result.findings.size(), 1u);
  ASSERT_EQ(result.findings[0].fixes.size(), 1u);
  EXPECT_FALSE(result.findings[0].fixes[0].baseDigest.empty());
  std::string edited = kFlagged;
  edited.replace(edited.find("flagme();"), 2, "FL");
  write("f.c", edited); // an editor saved it after the parse
  unsigned applied = 0;
  std::string error;
  EXPECT_FALSE(applyFixes(result, applied, error));
  EXPECT_EQ(applied, 0u);
  EXPECT_NE(error.find("changed since it was checked"), std::string::npos) << error;
  write("f.c", kFlagged);
  error.clear();
  EXPECT_TRUE(applyFixes(result, applied, error)) << error;
  EXPECT_EQ(applied, 1u);
}

// Issue 14.12: a stack overflow used to kill the process; runIsolated() contains it.
namespace {
unsigned recurse(unsigned depth) {
  volatile char frame[4096];
  frame[0] = static_cast<char>(depth);
  return depth == 0 ? frame[0] : recurse(depth - 1) + frame[0];
}
} // namespace

TEST(Isolation, StackOverflowIsRecoveredAndDeepWorkFits) {
  // 16 MiB of frames: more than a default 8 MiB thread stack, well within the isolated one.
  IsolationOutcome deep = runIsolated([] { EXPECT_GE(recurse(4000), 0u); });
  EXPECT_TRUE(deep.completed) << deep.what;
  IsolationOutcome overflow = runIsolated([] { recurse(~0u >> 1); }, std::size_t(16) << 20);
  EXPECT_FALSE(overflow.completed);
  EXPECT_EQ(overflow.signal, SIGSEGV);
  EXPECT_NE(overflow.what.find("stack overflow"), std::string::npos) << overflow.what;
  // And again, on threads at once: each recovery is independent.
  std::vector<std::thread> threads;
  std::atomic<unsigned> recovered{0};
  for (int i = 0; i < 4; ++i)
    threads.emplace_back([&] {
      if (!runIsolated([] { recurse(~0u >> 1); }, std::size_t(16) << 20).completed)
        ++recovered;
    });
  for (std::thread &t : threads)
    t.join();
  EXPECT_EQ(recovered.load(), 4u);
}

TEST(Filters, GlobsMatchLikeGitignore) {
  ExcludeGlobs globs{{"third_party", "src/gen/**", "*.pb.cc", "/abs/only/*.c"}, "/work/proj"};
  EXPECT_TRUE(matchesExclude(globs, "/work/proj/third_party/zlib/inflate.c"));
  EXPECT_TRUE(matchesExclude(globs, "/work/proj/lib/third_party/x.h"));
  EXPECT_TRUE(matchesExclude(globs, "/work/proj/src/gen/a/b.c"));
  EXPECT_TRUE(matchesExclude(globs, "/work/proj/src/msg.pb.cc"));
  EXPECT_TRUE(matchesExclude(globs, "/abs/only/x.c"));
  EXPECT_FALSE(matchesExclude(globs, "/abs/only/sub/x.c"));
  EXPECT_FALSE(matchesExclude(globs, "/work/proj/src/generated.c"));
  EXPECT_FALSE(matchesExclude(globs, "/work/proj/third_party_not/x.c"));
}

TEST(Filters, DiffLinesAreTheAddedOnes) {
  LineFilter filter = lineFilterFromDiff("diff --git a/x.c b/x.c\n"
                                         "--- a/x.c\n+++ b/x.c\n"
                                         "@@ -3,0 +4,2 @@\n+a\n+b\n"
                                         "@@ -10,2 +12 @@\n-c\n-d\n+e\n"
                                         "@@ -20,3 +21,0 @@\n-f\n-g\n-h\n"
                                         "--- a/gone.c\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n"
                                         "--- a/\"sp ace.c\"\n+++ \"b/sp ace.c\"\n@@ -0,0 +1 @@\n+y\n",
                                         "/repo");
  ASSERT_EQ(filter.files.size(), 2u);
  EXPECT_TRUE(selectsLine(filter, "/repo/x.c", 4));
  EXPECT_TRUE(selectsLine(filter, "/repo/x.c", 5));
  EXPECT_FALSE(selectsLine(filter, "/repo/x.c", 6));
  EXPECT_TRUE(selectsLine(filter, "/repo/x.c", 12));
  EXPECT_FALSE(selectsLine(filter, "/repo/x.c", 21));
  EXPECT_FALSE(selectsFile(filter, "/repo/gone.c"));
  EXPECT_TRUE(selectsLine(filter, "/repo/sp ace.c", 1));
}

TEST(KernelVersion, AcceptsReleasesOnly) {
  EXPECT_TRUE(validKernelVersion("6.16"));
  EXPECT_TRUE(validKernelVersion("6.1.141"));
  for (const char *bad : {"", "6", "6.", ".6", "6.16-rc1", "banana", "6.16.1.2", "1.0"})
    EXPECT_FALSE(validKernelVersion(bad)) << bad;
}

} // namespace
} // namespace afunix::check

int main(int argc, char **argv) {
  ::testing::InitGoogleTest(&argc, argv);
  afunix::check::enableCrashRecovery();
  return RUN_ALL_TESTS();
}

namespace afunix::check {

TEST(OutputTarget, MesonAndCmakeObjectPathsNameTheTarget) {
  EXPECT_EQ(outputTarget({"cc", "-o", "src/broker/broker.p/main.c.o", "-c", "main.c"}, ""), "broker");
  EXPECT_EQ(outputTarget({"cc", "-osrc/libshared.so.p/util.c.o"}, ""), "libshared.so");
  EXPECT_EQ(outputTarget({"cc", "-c", "x.c"}, "CMakeFiles/logd.dir/src/x.c.o"), "logd");
  EXPECT_EQ(outputTarget({"cc", "-o", "main.o", "-c", "main.c"}, ""), ""); // make: not said
  EXPECT_EQ(outputTarget({"cc", "-c", "main.c"}, ""), "");
}

namespace {
std::string scratchTree(const std::vector<std::string> &files) {
  std::string dir = afunix::test_support::scratchDirectory("discovery");
  for (const std::string &name : files) {
    llvm::SmallString<128> path(dir);
    llvm::sys::path::append(path, name);
    llvm::sys::fs::create_directories(llvm::sys::path::parent_path(path));
    std::ofstream(std::string(path)) << "[Socket]\n";
  }
  return dir;
}
std::vector<std::string> relative(const std::vector<std::string> &paths, const std::string &base) {
  std::vector<std::string> out;
  for (const std::string &p : paths)
    out.push_back(p.substr(base.size() + 1));
  return out;
}
} // namespace

TEST(ServiceDiscovery, SourceTreeIsTheWorkTreeAroundTheSources) {
  std::string dir = scratchTree({"repo/.git/HEAD", "repo/src/daemon/main.c", "repo/src/daemon/conn.c",
                                 "plain/lib/a.c", "plain/lib/sub/b.c"});
  EXPECT_EQ(sourceTreeOf({dir + "/repo/src/daemon/main.c", dir + "/repo/src/daemon/conn.c"}), dir + "/repo");
  // No version control: the directory the sources share.
  EXPECT_EQ(sourceTreeOf({dir + "/plain/lib/a.c", dir + "/plain/lib/sub/b.c"}), dir + "/plain/lib");
  EXPECT_EQ(sourceTreeOf({}), "");
}

TEST(ServiceDiscovery, WithoutVersionControlTheTopOfTheBuildTreeIsTheSourceTree) {
  // A release tarball or a copy: systemd's shape (every source under src/, which has no build
  // file; the root's meson.build; the units beside src/), and meson's build/../src paths.
  std::string dir = scratchTree({"outside/proj/meson.build", "outside/proj/src/core/meson.build",
                                 "outside/proj/src/core/main.c", "outside/proj/src/journal/j.c",
                                 "outside/proj/units/j.socket", "loose/a/b/c/x.c"});
  const std::string proj = dir + "/outside/proj";
  EXPECT_EQ(sourceTreeOf({proj + "/build/../src/core/main.c", proj + "/src/journal/j.c"}), proj);
  // No build file within two levels above the files: the directory they share.
  EXPECT_EQ(sourceTreeOf({dir + "/loose/a/b/c/x.c"}), dir + "/loose/a/b/c");
}

TEST(ServiceDiscovery, FindsUnitsAndRcFilesSkipsBuildTreesAndAddsGlobs) {
  std::string dir = scratchTree({"units/app.socket", "units/app.socket.in", "units/app.service",
                                 "init/app.rc", "build/CMakeCache.txt", "build/units/app.socket",
                                 ".hidden/x.socket", "elsewhere/extra.socket", "elsewhere/deep/more.socket",
                                 "elsewhere/readme.txt"});
  std::vector<std::string> warnings;
  ServiceFileSearch search;
  search.roots = {dir};
  std::vector<std::string> found = findServiceFiles(search, warnings);
  EXPECT_EQ(relative(found, dir),
            (std::vector<std::string>{"elsewhere/deep/more.socket", "elsewhere/extra.socket",
                                      "init/app.rc", "units/app.socket", "units/app.socket.in"}));
  EXPECT_TRUE(warnings.empty());

  search.roots.clear();
  search.base = dir;
  search.globs = {"elsewhere/*.socket", "units/app.socket", "nothing/**/*.socket", "elsewhere/readme.txt"};
  found = findServiceFiles(search, warnings);
  EXPECT_EQ(relative(found, dir), (std::vector<std::string>{"elsewhere/extra.socket", "units/app.socket"}));
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_NE(warnings[0].find("nothing/**/*.socket: matches no service file"), std::string::npos);
  EXPECT_NE(warnings[1].find("readme.txt: not a service file"), std::string::npos);

  // A search cut short says so.
  warnings.clear();
  search = {};
  search.roots = {dir};
  search.maxEntries = 3;
  findServiceFiles(search, warnings);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("stopped looking for service files"), std::string::npos);
}

} // namespace afunix::check

namespace afunix::check {

namespace {
std::string scratchFile(const std::string &text) {
  llvm::SmallString<128> path;
  llvm::sys::fs::createTemporaryFile("afunix-source", "c", path);
  std::ofstream(path.str().str(), std::ios::binary) << text;
  return path.str().str();
}
} // namespace

// Lines and columns from the line index agree with counting from the start, also on the last
// line without a newline, past the end, and in UTF-16 units (SARIF) for multi-byte text.
TEST(SourceCache, LocatesOffsetsThroughItsLineIndex) {
  std::string file = scratchFile("int a;\n// \xc3\xa9t\xc3\xa9 \xf0\x9f\x98\x80 x\n\nend");
  SourceCache sources;
  SourceCache::Position p = sources.locate(file, 0);
  EXPECT_EQ(p.line, 1u);
  EXPECT_EQ(p.column, 1u);
  EXPECT_EQ(p.lineText, "int a;");
  p = sources.locate(file, 7); // start of line 2
  EXPECT_EQ(p.line, 2u);
  EXPECT_EQ(p.column, 1u);
  unsigned x = static_cast<unsigned>(std::string("int a;\n// \xc3\xa9t\xc3\xa9 \xf0\x9f\x98\x80 ").size());
  p = sources.locate(file, x);
  EXPECT_EQ(p.line, 2u);
  EXPECT_EQ(p.column, x - 7 + 1);
  p = sources.locate(file, 1000); // past the end: the last line
  EXPECT_EQ(p.line, 4u);
  EXPECT_EQ(p.lineText, "end");
  EXPECT_EQ(sources.lineStart(file, 3), static_cast<long>(x + 2));
  EXPECT_EQ(sources.lineStart(file, 5), -1);
  EXPECT_EQ(sources.line(file, 2).str(), "// \xc3\xa9t\xc3\xa9 \xf0\x9f\x98\x80 x");
  // "// été 😀 " is 10 UTF-16 units (the emoji is a surrogate pair) and 14 bytes.
  EXPECT_EQ(sources.utf16Offset(file, x), 7u + 10u);
  EXPECT_EQ(sources.utf16Offset(file, x), sources.utf16Units(file, 0, x));
  EXPECT_EQ(sources.utf16Column(file, 2, x - 7 + 1), 11u);
  EXPECT_EQ(sources.linesMentioning(file, "\xc3\xa9"), std::vector<unsigned>{2});
  EXPECT_TRUE(sources.linesMentioning(file, "NOLINT").empty());
  EXPECT_EQ(sources.locate("/nonexistent/afunix", 3).line, 0u);
  llvm::sys::fs::remove(file);
}

// Only lines that mention NOLINT are read, and each marker still means what clang-tidy's does.
TEST(Nolint, MarkersOnTheLineTheLineAboveAndAroundIt) {
  std::string file = scratchFile("f(); // NOLINT(afunix-fd-flood)\n"         // 1
                                 "// NOLINTNEXTLINE(afunix-fd-*)\n"          // 2
                                 "g();\n"                                    // 3
                                 "// NOLINTBEGIN(afunix-passcred-too-late)\n" // 4
                                 "h();\n"                                    // 5
                                 "// NOLINTEND(afunix-passcred-too-late)\n"   // 6
                                 "i();\n"                                    // 7
                                 "j(); // NOLINT\n"                          // 8
                                 "// NOLINTBEGIN\n"                          // 9
                                 "k();\n");                                  // 10
  SourceCache sources;
  EXPECT_TRUE(suppressedByNolint(sources, file, 1, "afunix-fd-flood"));
  EXPECT_FALSE(suppressedByNolint(sources, file, 1, "afunix-fd-limit"));
  EXPECT_TRUE(suppressedByNolint(sources, file, 3, "afunix-fd-limit"));
  EXPECT_FALSE(suppressedByNolint(sources, file, 3, "afunix-passcred-too-late"));
  EXPECT_TRUE(suppressedByNolint(sources, file, 5, "afunix-passcred-too-late"));
  EXPECT_FALSE(suppressedByNolint(sources, file, 5, "afunix-fd-flood"));
  EXPECT_FALSE(suppressedByNolint(sources, file, 7, "afunix-passcred-too-late"));
  EXPECT_TRUE(suppressedByNolint(sources, file, 8, "afunix-fd-cycle"));
  EXPECT_TRUE(suppressedByNolint(sources, file, 10, "afunix-fd-cycle")); // still open at the end
  EXPECT_FALSE(suppressedByNolint(sources, file, 0, "afunix-fd-cycle"));
  llvm::sys::fs::remove(file);
}

} // namespace afunix::check

TEST(FactsCacheStamps, OnlyStampsOlderThanTheRacyMarginAreReliable) {
  using afunix::check::FactsCache;
  const std::int64_t start = 1'800'000'000'000'000'000; // ns since the epoch
  FactsCache::Stamp stamp{1, 2, 3, start - 10'000'000'000, start - 10'000'000'000};
  EXPECT_TRUE(FactsCache::reliable(stamp, start));
  // Changed within the margin before the run (a coarse tick, a 1 s or 2 s granularity): a write
  // after the stamp was taken could leave it as it is.
  stamp.ctime = start - FactsCache::kRacyMarginNs;
  EXPECT_FALSE(FactsCache::reliable(stamp, start));
  stamp.ctime = start - FactsCache::kRacyMarginNs - 1;
  EXPECT_TRUE(FactsCache::reliable(stamp, start));
  stamp.ctime = start + 1; // changed during the run
  EXPECT_FALSE(FactsCache::reliable(stamp, start));
  // A modification time set in the future (touch -d) is not trusted either.
  stamp.ctime = start - 10'000'000'000;
  stamp.mtime = start + 5'000'000'000;
  EXPECT_FALSE(FactsCache::reliable(stamp, start));
}

namespace {
struct Scanned {
  std::vector<std::string> identifiers, members, declared, includes;
  std::vector<afunix::check::MacroText> macros;
  bool computedInclude = false;
  bool has(const std::vector<std::string> &list, const std::string &word) const {
    return std::find(list.begin(), list.end(), word) != list.end();
  }
};
Scanned scan(const std::string &text, bool header) {
  Scanned s;
  afunix::check::scanSource(text, header, s.identifiers, s.members, s.declared, s.macros,
                            s.includes, s.computedInclude);
  return s;
}
} // namespace

TEST(PrefilterScan, MainFileCountsEveryIdentifierOutsideCommentsAndLiterals) {
  Scanned s = scan(R"(#include "net.h"
#include <sys/socket.h>
// socketpair in a comment
/* SCM_RIGHTS in a block comment */
static const char *name = "sendmsg in a string";
static const char c = 'x';
const char *raw = R"x(SO_PASSCRED in a raw string)x";
int start(struct conn *c) {
  return c->fd + helper(0x1fULL, 1e+10);
}
)",
                   /*header=*/false);
  for (const char *word : {"socketpair", "SCM_RIGHTS", "sendmsg", "SO_PASSCRED", "x", "ULL", "e"})
    EXPECT_FALSE(s.has(s.identifiers, word)) << word;
  for (const char *word : {"name", "start", "conn", "fd", "helper", "raw"})
    EXPECT_TRUE(s.has(s.identifiers, word)) << word;
  EXPECT_TRUE(s.has(s.members, "fd"));
  EXPECT_FALSE(s.has(s.members, "helper"));
  // Outside function bodies (where a definition is): start, not helper.
  EXPECT_TRUE(s.has(s.declared, "start"));
  EXPECT_FALSE(s.has(s.declared, "helper"));
  EXPECT_EQ(s.includes, (std::vector<std::string>{"\"net.h\"", "<sys/socket.h>"}));
  EXPECT_FALSE(s.computedInclude);
  EXPECT_TRUE(scan("#include CONFIG_HEADER\n", false).computedInclude);
}

TEST(PrefilterScan, HeaderCountsWhatItRunsNotWhatItDeclares) {
  Scanned s = scan(R"(struct conn { int fd; };
extern int declared_only(int sock, struct msghdr *msg);
static inline int inline_body(int fd) { return sendmsg(fd, 0, 0); }
static int table_init = SOCK_STREAM;
int defaulted(int family = AF_UNIX);
class Channel {
 public:
  explicit Channel(int fd) : fd_(socketpair_end(fd)) {}
  int declared_member(int x);
  int Fd() const { return fd_; }
 private:
  int fd_;
};
namespace ipc {
int in_namespace(int);
inline int body_in_namespace(int fd) { return accept(fd, 0, 0); }
}
#define SEND_ONE(ch, f) send_fd((ch)->fd, f)
)",
                   /*header=*/true);
  for (const char *word : {"declared_only", "msghdr", "sock", "conn", "declared_member", "in_namespace",
                           "Channel", "inline_body"})
    EXPECT_FALSE(s.has(s.identifiers, word)) << word;
  for (const char *word : {"sendmsg", "SOCK_STREAM", "AF_UNIX", "socketpair_end", "fd_", "accept"})
    EXPECT_TRUE(s.has(s.identifiers, word)) << word;
  // A macro's body is counted where the macro is used, its parameters left out.
  ASSERT_EQ(s.macros.size(), 1u);
  EXPECT_EQ(s.macros[0].name, "SEND_ONE");
  EXPECT_EQ(s.macros[0].identifiers, (std::vector<std::string>{"send_fd", "fd"}));
  EXPECT_EQ(s.macros[0].members, (std::vector<std::string>{"fd"}));
  EXPECT_FALSE(s.has(s.identifiers, "send_fd"));
  // Nor is the definition a use: a file that includes the header without using SEND_ONE names
  // neither it nor send_fd.
  EXPECT_FALSE(s.has(s.declared, "SEND_ONE"));
  EXPECT_FALSE(s.has(s.declared, "send_fd"));
}
