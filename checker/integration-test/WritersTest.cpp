// The engine's writers on hand-made RunResults: SARIF (shape, escaping, schema), fingerprints,
// baselines and fix-its. The end-to-end tests next to this file run the same code through
// afunix-check on testdata; these pin the edge cases a testdata file cannot easily produce.
#include "Baseline.h"
#include "Fixes.h"
#include "Output.h"
#include "SafeFiles.h"
#include "Sarif.h"
#include "ScratchDirectory.h"

#include "afunix/RuleCatalog.h"

#include "clang/Tooling/Core/Diagnostic.h"
#include "clang/Tooling/DiagnosticsYaml.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/YAMLTraits.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace afunix::check {
namespace {

namespace json = llvm::json;

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void writeFile(const std::string &path, const std::string &text) {
  std::ofstream(path, std::ios::binary) << text;
}

class ScratchDir : public ::testing::Test {
protected:
  void SetUp() override {
    root = afunix::test_support::scratchDirectory("afunix-writers");
    ASSERT_FALSE(root.empty());
  }
  std::string path(const std::string &name) const { return root + "/" + name; }

  // A finding of a real catalog rule on `line` of `file`, with the line's text as the engine
  // fills it.
  Finding finding(const std::string &file, unsigned line, unsigned column,
                  const std::string &rule = "afunix-passcred-too-late") {
    Finding f;
    f.rule = rule;
    f.severity = "warning";
    f.where = {file, line, column};
    f.message = "SO_PASSCRED is enabled on datagram socket 'fd' after bind()";
    std::istringstream lines(readFile(file));
    std::string text;
    for (unsigned i = 0; i < line && std::getline(lines, text); ++i) {
    }
    f.lineText = llvm::StringRef(text).trim().str();
    return f;
  }

  std::string root;
};

// The finding's edits as the engine fills them: computed from the file's current bytes.
Finding fromCurrentBytes(Finding f) {
  for (Edit &e : f.fixes)
    e.baseDigest = contentDigest(readFile(e.file));
  return f;
}

const json::Object &object(const json::Value *value) {
  static const json::Object empty;
  return value && value->getAsObject() ? *value->getAsObject() : empty;
}

// ---------------------------------------------------------------------------------------------
// Fingerprints

using FingerprintTest = ScratchDir;

TEST_F(FingerprintTest, SurvivesLinesInsertedAboveAndReindentation) {
  writeFile(path("a.c"), "int x;\n  setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on);\n");
  Finding before = finding(path("a.c"), 2, 3);
  writeFile(path("a.c"), "// one\n// two\nint x;\n\tsetsockopt(fd,  SOL_SOCKET, SO_PASSCRED, "
                         "&on, sizeof on);\n");
  Finding after = finding(path("a.c"), 4, 2);
  ASSERT_NE(before.where.line, after.where.line);
  EXPECT_EQ(fingerprint(before, root, 0), fingerprint(after, root, 0));
}

TEST_F(FingerprintTest, DependsOnRuleFileTextAndOccurrence) {
  writeFile(path("a.c"), "f(fd);\ng(fd);\n");
  writeFile(path("b.c"), "f(fd);\n");
  Finding a = finding(path("a.c"), 1, 1);
  EXPECT_NE(fingerprint(a, root, 0), fingerprint(a, root, 1));
  EXPECT_NE(fingerprint(a, root, 0), fingerprint(finding(path("a.c"), 2, 1), root, 0));
  EXPECT_NE(fingerprint(a, root, 0), fingerprint(finding(path("b.c"), 1, 1), root, 0));
  EXPECT_NE(fingerprint(a, root, 0),
            fingerprint(finding(path("a.c"), 1, 1, "afunix-fd-cycle"), root, 0));
}

TEST_F(FingerprintTest, IsRelativeToTheRootSoClonesMatch) {
  ASSERT_FALSE(llvm::sys::fs::create_directories(path("one/src")));
  ASSERT_FALSE(llvm::sys::fs::create_directories(path("two/src")));
  writeFile(path("one/src/a.c"), "f(fd);\n");
  writeFile(path("two/src/a.c"), "f(fd);\n");
  EXPECT_EQ(fingerprint(finding(path("one/src/a.c"), 1, 1), path("one"), 0),
            fingerprint(finding(path("two/src/a.c"), 1, 1), path("two"), 0));
  EXPECT_EQ(relativePath(path("one/src/a.c"), path("one")), "src/a.c");
  EXPECT_EQ(relativePath(path("one/src/a.c"), path("one/")), "src/a.c");
  EXPECT_EQ(relativePath(path("one/src/a.c"), path("two")), path("one/src/a.c"));
  EXPECT_EQ(relativePath(path("one/src/a.c"), path("one/sr")), path("one/src/a.c"));
}

TEST_F(FingerprintTest, OccurrenceCountsIdenticalLinesInOrder) {
  writeFile(path("a.c"), "f(fd);\nf(fd);\ng(fd);\n");
  RunResult result;
  result.findings = {finding(path("a.c"), 1, 1), finding(path("a.c"), 2, 1),
                     finding(path("a.c"), 3, 1)};
  std::vector<std::string> prints = fingerprints(result, root);
  ASSERT_EQ(prints.size(), 3u);
  EXPECT_EQ(prints[0], fingerprint(result.findings[0], root, 0));
  EXPECT_EQ(prints[1], fingerprint(result.findings[1], root, 1));
  EXPECT_EQ(prints[2], fingerprint(result.findings[2], root, 0));
}

// ---------------------------------------------------------------------------------------------
// SARIF

using SarifTest = ScratchDir;

RunResult sampleResult(const std::string &file) {
  RunResult result;
  Finding f;
  f.rule = "afunix-passcred-too-late";
  f.severity = "warning";
  f.where = {file, 3, 7};
  f.message = "socket 'fd' \"quoted\"\tand\nnewline \x01 control, ünïcode";
  f.notes.push_back({{file, 2, 3}, "bound here"});
  f.notes.push_back({{file, 1, 1}, "created here"});
  f.fixes.push_back({file, 10, 4, "X"});
  f.lineText = "set(fd);";
  result.findings.push_back(f);
  Finding other = f;
  other.rule = "afunix-fd-cycle";
  other.severity = "error";
  other.notes.clear();
  other.fixes.clear();
  result.findings.push_back(other);
  result.files.push_back({file, true, {}});
  return result;
}

TEST_F(SarifTest, HasTheShapeGitHubCodeScanningReads) {
  ASSERT_FALSE(llvm::sys::fs::create_directories(path("src dir")));
  std::string file = path("src dir/a€.c");
  writeFile(file, "int fd;\n  b(fd);\n  ü(fd); set(fd);\n");
  std::string text = renderSarif(sampleResult(file), {root, "1.2.3", "https://docs.example/d"});
  llvm::Expected<json::Value> parsed = json::parse(text);
  ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
  const json::Object &log = object(&*parsed);
  EXPECT_EQ(log.getString("version"), "2.1.0");
  EXPECT_TRUE(log.getString("$schema")->contains("sarif-schema-2.1.0.json"));
  const json::Object &run = object(&(*log.getArray("runs"))[0]);
  const json::Object &driver = object(object(run.get("tool")).get("driver"));
  EXPECT_EQ(driver.getString("name"), "afunix-check");
  EXPECT_EQ(driver.getString("version"), "1.2.3");
  EXPECT_EQ(driver.getString("semanticVersion"), "1.2.3");
  const json::Array &rules = *driver.getArray("rules");
  ASSERT_EQ(rules.size(), afunix::catalog::kRuleCount);
  for (std::size_t i = 0; i < rules.size(); ++i) {
    const json::Object &rule = object(&rules[i]);
    const auto &catalogRule = afunix::catalog::kRules[i];
    EXPECT_EQ(rule.getString("id"), catalogRule.id);
    // A friendly Pascal-case name, never the id (Microsoft's validator, SARIF1001/SARIF2012).
    ASSERT_TRUE(rule.getString("name"));
    EXPECT_NE(*rule.getString("name"), catalogRule.id);
    EXPECT_TRUE(llvm::all_of(*rule.getString("name"), llvm::isAlnum)) << rule.getString("name")->str();
    EXPECT_EQ(object(rule.get("shortDescription")).getString("text"), catalogRule.title);
    EXPECT_EQ(rule.getString("helpUri"),
              std::string("https://docs.example/d/rules/") + catalogRule.id + ".md");
    EXPECT_EQ(object(rule.get("defaultConfiguration")).getString("level"),
              catalogRule.severity);
    // help.markdown is the rule's whole page, whose relative links now point under helpUri's
    // directory; nothing of it needs the network.
    std::string markdown = object(rule.get("help")).getString("markdown")->str();
    EXPECT_NE(markdown.find(std::string("# ") + catalogRule.id), std::string::npos) << markdown;
    EXPECT_EQ(markdown.find("](../"), std::string::npos) << markdown;
    // security-severity (with the "security" tag GitHub needs) exactly where the catalog says
    // the rule's check fails open.
    const json::Object &properties = object(rule.get("properties"));
    bool security = *catalogRule.securitySeverity != 0;
    EXPECT_EQ(properties.getString("security-severity").has_value(), security) << catalogRule.id;
    if (security)
      EXPECT_EQ(*properties.getString("security-severity"), catalogRule.securitySeverity);
    bool tagged = false;
    for (const json::Value &tag : *properties.getArray("tags"))
      tagged |= tag.getAsString() == std::optional<llvm::StringRef>("security");
    EXPECT_EQ(tagged, security) << catalogRule.id;
    // The catalog's 100-column wrapping is undone; paragraph breaks stay.
    std::string full = object(rule.get("fullDescription")).getString("text")->str();
    for (size_t at = full.find('\n'); at != std::string::npos; at = full.find('\n', at + 2))
      EXPECT_EQ(full.substr(at, 2), "\n\n") << catalogRule.id;
    EXPECT_TRUE(object(rule.get("properties")).getArray("tags"));
  }

  const json::Array &results = *run.getArray("results");
  ASSERT_EQ(results.size(), 2u);
  const json::Object &first = object(&results[0]);
  EXPECT_EQ(first.getString("ruleId"), "afunix-passcred-too-late");
  std::optional<int64_t> index = first.getInteger("ruleIndex");
  ASSERT_TRUE(index);
  EXPECT_EQ(object(&rules[*index]).getString("id"), "afunix-passcred-too-late");
  EXPECT_EQ(first.getString("level"), "warning");
  EXPECT_EQ(object(&results[1]).getString("level"), "error");
  // Escaping round-trips: the message comes back byte for byte, followed by a link to each
  // related location (GitHub shows them only when the message links them).
  EXPECT_EQ(object(first.get("message")).getString("text"),
            sampleResult(file).findings[0].message +
                " (see [bound here](1), [created here](2))");
  EXPECT_EQ(object(object(&results[1]).get("message")).getString("text"),
            sampleResult(file).findings[1].message); // no notes, no links

  const json::Object &location =
      object(object(&(*first.getArray("locations"))[0]).get("physicalLocation"));
  const json::Object &artifact = object(location.get("artifactLocation"));
  EXPECT_EQ(artifact.getString("uri"), "src%20dir/a%E2%82%AC.c");
  EXPECT_EQ(artifact.getString("uriBaseId"), "%SRCROOT%");
  EXPECT_EQ(object(location.get("region")).getInteger("startLine"), 3);
  // Byte column 7 on "  ü(fd); ..." is UTF-16 column 6: 'ü' is two bytes, one code unit.
  EXPECT_EQ(object(location.get("region")).getInteger("startColumn"), 6);

  const json::Array &related = *first.getArray("relatedLocations");
  ASSERT_EQ(related.size(), 2u);
  EXPECT_EQ(object(&related[0]).getInteger("id"), 1);
  EXPECT_EQ(object(object(&related[0]).get("message")).getString("text"), "bound here");
  EXPECT_EQ(object(object(&related[1]).get("message")).getString("text"), "created here");

  const json::Object &fingerprints = object(first.get("partialFingerprints"));
  EXPECT_EQ(fingerprints.getString("afunixFingerprint/v1"),
            fingerprint(sampleResult(file).findings[0], root, 0));

  const json::Object &change =
      object(&(*object(&(*first.getArray("fixes"))[0]).getArray("artifactChanges"))[0]);
  const json::Object &replacement = object(&(*change.getArray("replacements"))[0]);
  const json::Object &deleted = object(replacement.get("deletedRegion"));
  EXPECT_EQ(deleted.getInteger("byteOffset"), 10);
  EXPECT_EQ(deleted.getInteger("byteLength"), 4);
  EXPECT_EQ(deleted.getInteger("charOffset"), 10); // "int fd;\n  " is ASCII
  EXPECT_EQ(deleted.getInteger("charLength"), 4);
  EXPECT_EQ(object(replacement.get("insertedContent")).getString("text"), "X");
  EXPECT_FALSE(object(&results[1]).get("fixes"));

  const json::Object &invocation = object(&(*run.getArray("invocations"))[0]);
  EXPECT_EQ(invocation.getBoolean("executionSuccessful"), true);
  EXPECT_TRUE(object(object(run.get("originalUriBaseIds")).get("%SRCROOT%"))
                  .getString("uri")
                  ->ends_with("/"));
}

TEST_F(SarifTest, RegionsEndWhereTheSpanEndsAndFixesSayWhatTheyDo) {
  writeFile(path("a.c"), "int fd;\n  b(fd);\n  \xc3\xbc(fd); set(fd);\n");
  RunResult result = sampleResult(path("a.c"));
  // The finding underlines "(fd)" after the two-byte 'ü': bytes 5..9 of line 3.
  result.findings[0].spans = {{{path("a.c"), 3, 5}, {path("a.c"), 3, 9}}};
  result.findings[0].where = {path("a.c"), 3, 5};
  result.findings[0].notes[0].spans = {{{path("a.c"), 2, 3}, {path("a.c"), 2, 7}}};
  result.findings[0].fixTitle = "Move the SO_PASSCRED call above listen()";
  llvm::Expected<json::Value> parsed = json::parse(renderSarif(result, {root, "1.0.0", "u:x"}));
  ASSERT_TRUE(bool(parsed));
  const json::Object &run = object(&(*object(&*parsed).getArray("runs"))[0]);
  const json::Object &first = object(&(*run.getArray("results"))[0]);
  const json::Object &region = object(
      object(object(&(*first.getArray("locations"))[0]).get("physicalLocation")).get("region"));
  EXPECT_EQ(region.getInteger("startLine"), 3);
  EXPECT_EQ(region.getInteger("startColumn"), 4); // UTF-16: 'ü' is one code unit
  EXPECT_EQ(region.getInteger("endLine"), 3);
  EXPECT_EQ(region.getInteger("endColumn"), 8); // the column after the region, as SARIF counts
  const json::Object &noted = object(object(object(&(*first.getArray("relatedLocations"))[0])
                                                .get("physicalLocation"))
                                         .get("region"));
  EXPECT_EQ(noted.getInteger("endColumn"), 7);
  // Without a span the region is its start.
  const json::Object &second = object(&(*run.getArray("results"))[1]);
  EXPECT_FALSE(object(object(object(&(*second.getArray("locations"))[0]).get("physicalLocation"))
                          .get("region"))
                   .get("endColumn"));
  EXPECT_EQ(object(object(&(*first.getArray("fixes"))[0]).get("description")).getString("text"),
            "Move the SO_PASSCRED call above listen()");
}

TEST_F(SarifTest, BracketsInMessagesStayTextAndLinkTextIsEscaped) {
  writeFile(path("a.c"), "int fd;\nb(fd);\nset(fd);\n");
  RunResult result = sampleResult(path("a.c"));
  result.findings.resize(1);
  result.findings[0].message = "buf[0] is [x](1) not a link";
  result.findings[0].notes = {{{path("a.c"), 1, 1}, "array[2] here"}};
  llvm::Expected<json::Value> parsed = json::parse(renderSarif(result, {root, "1.0.0", "u:x"}));
  ASSERT_TRUE(bool(parsed));
  const json::Object &run = object(&(*object(&*parsed).getArray("runs"))[0]);
  const json::Object &first = object(&(*run.getArray("results"))[0]);
  EXPECT_EQ(object(first.get("message")).getString("text"),
            "buf\\[0] is \\[x\\](1) not a link (see [array[2] here](1))");
}

TEST_F(SarifTest, HelpUriOnlyWhereTheDocsArePublished) {
  writeFile(path("a.c"), "int fd;\nb(fd);\nset(fd);\n");
  auto helpUri = [&](const std::string &docs) {
    llvm::Expected<json::Value> parsed =
        json::parse(renderSarif(sampleResult(path("a.c")), {root, "1.0.0", docs}));
    EXPECT_TRUE(bool(parsed));
    const json::Object &run = object(&(*object(&*parsed).getArray("runs"))[0]);
    const json::Object &rule =
        object(&(*object(object(run.get("tool")).get("driver")).getArray("rules"))[0]);
    return rule.getString("helpUri").value_or("").str();
  };
  EXPECT_EQ(helpUri("https://example.org/afunix/docs"),
            "https://example.org/afunix/docs/rules/afunix-creds-without-passcred.md");
  // Nothing configured (and no URL built in): no link at all, never this machine's file://
  // pages nor a made-up web address; the embedded page keeps its links' text.
  ::unsetenv("AFUNIX_DOCS_URL");
  EXPECT_EQ(helpUri(""), "");
  std::string log = renderSarif(sampleResult(path("a.c")), {root, "1.0.0", ""});
  EXPECT_EQ(log.find("\"helpUri\""), std::string::npos);
  EXPECT_EQ(log.find("informationUri"), std::string::npos);
  EXPECT_EQ(log.find("](../"), std::string::npos);
  // A file:// URL only when configured so.
  EXPECT_EQ(helpUri("file:///usr/share/doc/afunix-compat"),
            "file:///usr/share/doc/afunix-compat/rules/afunix-creds-without-passcred.md");
}

TEST_F(SarifTest, UnparsedFileMakesExecutionUnsuccessfulWithANotification) {
  writeFile(path("a.c"), "x\n");
  RunResult result;
  result.files.push_back({path("a.c"), false, {path("a.c") + ":1:1: error: unknown type name 'x'"}});
  llvm::Expected<json::Value> parsed = json::parse(renderSarif(result, {root, "1.0.0", "u"}));
  ASSERT_TRUE(bool(parsed));
  const json::Object &run = object(&(*object(&*parsed).getArray("runs"))[0]);
  const json::Object &invocation = object(&(*run.getArray("invocations"))[0]);
  EXPECT_EQ(invocation.getBoolean("executionSuccessful"), false);
  ASSERT_EQ(invocation.getArray("toolExecutionNotifications")->size(), 1u);
  EXPECT_EQ(run.getArray("results")->size(), 0u);
}

TEST_F(SarifTest, WithoutRootLocationsAreAbsoluteFileUris) {
  writeFile(path("a.c"), "int fd;\nb(fd);\nset(fd);\n");
  llvm::Expected<json::Value> parsed =
      json::parse(renderSarif(sampleResult(path("a.c")), {"", "1.0.0", "u"}));
  ASSERT_TRUE(bool(parsed));
  const json::Object &run = object(&(*object(&*parsed).getArray("runs"))[0]);
  const json::Object &result = object(&(*run.getArray("results"))[0]);
  const json::Object &artifact = object(object(object(&(*result.getArray("locations"))[0])
                                                   .get("physicalLocation"))
                                            .get("artifactLocation"));
  EXPECT_EQ(artifact.getString("uri"), "file://" + path("a.c"));
  EXPECT_FALSE(artifact.get("uriBaseId"));
}

TEST_F(SarifTest, ValidatesAgainstTheSarif210Schema) {
  ASSERT_FALSE(llvm::sys::fs::create_directories(path("src dir")));
  std::string file = path("src dir/a€.c");
  writeFile(file, "int fd;\n  b(fd);\n  ü(fd); set(fd);\n");
  RunResult result = sampleResult(file);
  result.files.push_back({path("broken.c"), false, {"broken.c:1:1: error: expected ';'"}});
  writeFile(path("out.sarif"), renderSarif(result, {root, "0.1.0", ""}));
  std::string command = std::string("'") + AFUNIX_PYTHON + "' '" + AFUNIX_INTEGRATION_TEST_DIR +
                        "/validate_sarif.py' '" + AFUNIX_SARIF_SCHEMA + "' '" + path("out.sarif") +
                        "'";
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
}

// ---------------------------------------------------------------------------------------------
// Baselines

using BaselineTest = ScratchDir;

TEST_F(BaselineTest, HidesKnownFindingsAfterLinesMoveAndShowsNewOnes) {
  writeFile(path("a.c"), "int fd;\nset(fd);\nset(fd);\n");
  RunResult old;
  old.findings = {finding(path("a.c"), 2, 1), finding(path("a.c"), 3, 1)};
  std::string error;
  ASSERT_TRUE(writeBaseline(path("base.json"), old, root, error)) << error;

  // Three lines inserted above, one more identical finding below the old two.
  writeFile(path("a.c"), "// a\n// b\n// c\nint fd;\nset(fd);\nset(fd);\nset(fd);\n");
  RunResult now;
  now.findings = {finding(path("a.c"), 5, 1), finding(path("a.c"), 6, 1),
                  finding(path("a.c"), 7, 1)};
  unsigned suppressed = 0;
  ASSERT_TRUE(applyBaseline(path("base.json"), now, root, suppressed, error)) << error;
  EXPECT_EQ(suppressed, 2u);
  ASSERT_EQ(now.findings.size(), 1u);
  EXPECT_EQ(now.findings[0].where.line, 7u);
}

TEST_F(BaselineTest, IsKeyedRelativeToTheRoot) {
  ASSERT_FALSE(llvm::sys::fs::create_directories(path("one")));
  ASSERT_FALSE(llvm::sys::fs::create_directories(path("two")));
  writeFile(path("one/a.c"), "set(fd);\n");
  writeFile(path("two/a.c"), "set(fd);\n");
  RunResult old;
  old.findings = {finding(path("one/a.c"), 1, 1)};
  std::string error;
  ASSERT_TRUE(writeBaseline(path("base.json"), old, path("one"), error)) << error;
  EXPECT_NE(readFile(path("base.json")).find("\"file\": \"a.c\""), std::string::npos);
  RunResult now;
  now.findings = {finding(path("two/a.c"), 1, 1)};
  unsigned suppressed = 0;
  ASSERT_TRUE(applyBaseline(path("base.json"), now, path("two"), suppressed, error)) << error;
  EXPECT_EQ(suppressed, 1u);
  EXPECT_TRUE(now.findings.empty());
}

TEST_F(BaselineTest, MissingFileIsAnErrorNamingIt) {
  RunResult result;
  unsigned suppressed = 0;
  std::string error;
  EXPECT_FALSE(applyBaseline(path("nope.json"), result, root, suppressed, error));
  EXPECT_NE(error.find(path("nope.json")), std::string::npos) << error;
  EXPECT_NE(error.find("No such file"), std::string::npos) << error;
}

TEST_F(BaselineTest, MalformedFilesAreErrorsSayingWhatIsWrong) {
  struct Case {
    const char *text;
    const char *complaint;
  } cases[] = {
      {"{\"afunixBaseline\": 1, \"findings\": [", "not valid JSON"},
      {"[]", "top level is not an object"},
      {"{\"findings\": []}", "afunixBaseline"},
      {"{\"afunixBaseline\": 7, \"findings\": []}", "format version 7"},
      {"{\"afunixBaseline\": 1}", "\"findings\" array"},
      {"{\"afunixBaseline\": 1, \"findings\": [{\"rule\": \"x\"}]}", "findings[0]"},
  };
  for (const Case &c : cases) {
    writeFile(path("bad.json"), c.text);
    RunResult result;
    unsigned suppressed = 0;
    std::string error;
    EXPECT_FALSE(applyBaseline(path("bad.json"), result, root, suppressed, error)) << c.text;
    EXPECT_NE(error.find(c.complaint), std::string::npos) << c.text << " -> " << error;
    EXPECT_NE(error.find(path("bad.json")), std::string::npos) << error;
  }
}

TEST_F(BaselineTest, UnwritablePathIsAnError) {
  std::string error;
  EXPECT_FALSE(writeBaseline(path("no/such/dir/base.json"), RunResult{}, root, error));
  EXPECT_NE(error.find("no/such/dir/base.json"), std::string::npos) << error;
}

// Issue 14.1: writing went through a temporary file renamed over the path, whatever it was: a
// symlink was replaced, a FIFO or (as root) /dev/null turned into a regular file.
TEST_F(BaselineTest, NeverReplacesOrFollowsANonRegularFile) {
  writeFile(path("target.json"), "keep me\n");
  ASSERT_EQ(symlink(path("target.json").c_str(), path("link.json").c_str()), 0);
  ASSERT_EQ(mkfifo(path("fifo").c_str(), 0600), 0);
  ASSERT_FALSE(llvm::sys::fs::create_directories(path("dir")));
  for (const char *name : {"link.json", "fifo", "dir"}) {
    std::string error;
    EXPECT_FALSE(writeBaseline(path(name), RunResult{}, root, error)) << name;
    EXPECT_NE(error.find("not a regular file"), std::string::npos) << error;
  }
  struct stat st;
  ASSERT_EQ(lstat(path("link.json").c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  ASSERT_EQ(lstat(path("fifo").c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  EXPECT_EQ(readFile(path("target.json")), "keep me\n");
  // No temporary file is left behind.
  std::error_code ec;
  unsigned entries = 0;
  for (llvm::sys::fs::directory_iterator it(root, ec), end; it != end && !ec; it.increment(ec))
    ++entries;
  EXPECT_EQ(entries, 4u);
}

TEST_F(BaselineTest, ReplacesARegularFileKeepingItsMode) {
  writeFile(path("base.json"), "old\n");
  ASSERT_EQ(chmod(path("base.json").c_str(), 0640), 0);
  std::string error;
  ASSERT_TRUE(writeBaseline(path("base.json"), RunResult{}, root, error)) << error;
  struct stat st;
  ASSERT_EQ(stat(path("base.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
  EXPECT_NE(readFile(path("base.json")).find("afunixBaseline"), std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// Fix-its

using FixesTest = ScratchDir;

TEST_F(FixesTest, AppliesOnceWhenTwoFindingsCarryTheSameEdit) {
  writeFile(path("a.c"), "abcdef\n");
  RunResult result;
  Finding f = finding(path("a.c"), 1, 1);
  f.fixes = {{path("a.c"), 1, 2, "XY"}, {path("a.c"), 0, 0, ">"}};
  f = fromCurrentBytes(f);
  result.findings = {f, f}; // the same header finding reached from two TUs
  unsigned applied = 0;
  std::string error;
  EXPECT_TRUE(applyFixes(result, applied, error)) << error;
  EXPECT_EQ(applied, 2u);
  EXPECT_EQ(readFile(path("a.c")), ">aXYdef\n");
}

TEST_F(FixesTest, RefusesAWholeFindingWhoseEditConflicts) {
  writeFile(path("a.c"), "abcdef\n");
  RunResult result;
  Finding first = finding(path("a.c"), 1, 1);
  first.fixes = {{path("a.c"), 1, 3, "1"}};
  Finding second = finding(path("a.c"), 1, 3);
  second.fixes = {{path("a.c"), 5, 0, "+"}, {path("a.c"), 3, 2, "2"}}; // 3..5 overlaps 1..4
  result.findings = {fromCurrentBytes(first), fromCurrentBytes(second)};
  unsigned applied = 0;
  std::string error;
  EXPECT_FALSE(applyFixes(result, applied, error));
  EXPECT_EQ(applied, 1u);
  EXPECT_EQ(readFile(path("a.c")), "a1ef\n"); // nothing of the second finding, not even "+"
  EXPECT_NE(error.find(path("a.c") + ":1:3"), std::string::npos) << error;
  EXPECT_NE(error.find("conflicts"), std::string::npos) << error;
}

TEST_F(FixesTest, InsertionsAtOneOffsetWithDifferentTextConflict) {
  writeFile(path("a.c"), "abc\n");
  RunResult result;
  Finding first = finding(path("a.c"), 1, 1);
  first.fixes = {{path("a.c"), 1, 0, "x"}};
  Finding second = first;
  second.fixes = {{path("a.c"), 1, 0, "y"}};
  result.findings = {fromCurrentBytes(first), fromCurrentBytes(second)};
  unsigned applied = 0;
  std::string error;
  EXPECT_FALSE(applyFixes(result, applied, error));
  EXPECT_EQ(readFile(path("a.c")), "axbc\n");
}

// Issue 14.2: edits computed from one version of a file were applied to another (an editor saved
// it during the analysis): they landed mid-statement.
TEST_F(FixesTest, FileChangedSinceTheAnalysisIsNotTouched) {
  writeFile(path("a.c"), "abcdefgh\n");
  RunResult result;
  Finding f = finding(path("a.c"), 1, 1);
  f.fixes = {{path("a.c"), 2, 2, "x"}};
  result.findings = {fromCurrentBytes(f)};
  writeFile(path("a.c"), "abXdefgh\n"); // same size, one byte different
  unsigned applied = 0;
  std::string error;
  EXPECT_FALSE(applyFixes(result, applied, error));
  EXPECT_EQ(applied, 0u);
  EXPECT_EQ(readFile(path("a.c")), "abXdefgh\n");
  EXPECT_NE(error.find("changed since it was checked"), std::string::npos) << error;
}

TEST_F(FixesTest, EditPastTheEndOfAChangedFileIsRefused) {
  writeFile(path("a.c"), "abcdefgh\n");
  RunResult result;
  Finding f = finding(path("a.c"), 1, 1);
  f.fixes = {{path("a.c"), 2, 5, "x"}};
  result.findings = {fromCurrentBytes(f)};
  writeFile(path("a.c"), "ab\n");
  unsigned applied = 0;
  std::string error;
  EXPECT_FALSE(applyFixes(result, applied, error));
  EXPECT_EQ(applied, 0u);
  EXPECT_EQ(readFile(path("a.c")), "ab\n");
  EXPECT_NE(error.find("changed since"), std::string::npos) << error;
}

TEST_F(FixesTest, ExportIsClangTidyYamlWithEachEditOnce) {
  writeFile(path("a.c"), "int fd;\nset(fd);\n");
  RunResult result;
  Finding f = finding(path("a.c"), 2, 5);
  f.fixes = {{path("a.c"), 8, 0, "pre(fd); "}};
  f.notes.push_back({{path("a.c"), 1, 5}, "created here"});
  result.findings = {f, f};
  result.files.push_back({path("a.c"), true, {}});
  std::string error;
  ASSERT_TRUE(exportFixes(path("fixes.yaml"), result, error)) << error;

  std::string yamlText = readFile(path("fixes.yaml"));
  clang::tooling::TranslationUnitDiagnostics document;
  llvm::yaml::Input in(yamlText);
  in >> document;
  ASSERT_FALSE(in.error()) << yamlText;
  EXPECT_EQ(document.MainSourceFile, path("a.c"));
  ASSERT_EQ(document.Diagnostics.size(), 2u);
  const clang::tooling::Diagnostic &d = document.Diagnostics[0];
  EXPECT_EQ(d.DiagnosticName, "afunix-passcred-too-late");
  EXPECT_EQ(d.Message.FilePath, path("a.c"));
  EXPECT_EQ(d.Message.FileOffset, 12u); // line 2 column 5
  ASSERT_EQ(d.Message.Fix.count(path("a.c")), 1u);
  const clang::tooling::Replacements &replacements = d.Message.Fix.find(path("a.c"))->second;
  ASSERT_EQ(replacements.size(), 1u);
  EXPECT_EQ(replacements.begin()->getOffset(), 8u);
  EXPECT_EQ(replacements.begin()->getReplacementText(), "pre(fd); ");
  ASSERT_EQ(d.Notes.size(), 1u);
  EXPECT_EQ(d.Notes[0].FileOffset, 4u);
  EXPECT_TRUE(document.Diagnostics[1].Message.Fix.empty()); // the duplicate edit is not repeated
}

TEST_F(FixesTest, ClangApplyReplacementsAppliesTheExportLikeFix) {
  ASSERT_FALSE(llvm::sys::fs::create_directories(path("fixes")));
  const std::string original = "int fd;\nset(fd);\nuse(fd);\n";
  writeFile(path("a.c"), original);
  writeFile(path("b.c"), original);
  auto result = [&](const std::string &file) {
    RunResult r;
    Finding f = finding(file, 2, 1);
    f.fixes = {{file, 8, 9, ""}, {file, 0, 0, "#include <x.h>\n"}, {file, 17, 0, "pre(fd);\n"}};
    f = fromCurrentBytes(f);
    r.findings = {f, f};
    r.files.push_back({file, true, {}});
    return r;
  };
  std::string error;
  ASSERT_TRUE(exportFixes(path("fixes/a.yaml"), result(path("a.c")), error)) << error;
  std::string command = std::string(AFUNIX_CLANG_APPLY_REPLACEMENTS) + " '" + path("fixes") + "'";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  unsigned applied = 0;
  ASSERT_TRUE(applyFixes(result(path("b.c")), applied, error)) << error;
  EXPECT_EQ(applied, 3u);
  EXPECT_EQ(readFile(path("a.c")), readFile(path("b.c")));
  EXPECT_EQ(readFile(path("b.c")), "#include <x.h>\nint fd;\npre(fd);\nuse(fd);\n");
}

// Issue 14.3: --fix rewrote by rename: a symlink became a copy (its target never fixed), hard
// links broke, read-only files were rewritten and, as root, owner and mode changed.
TEST_F(FixesTest, EditsTheRealFileInPlace) {
  writeFile(path("a.c"), "abcdef\n");
  ASSERT_EQ(chmod(path("a.c").c_str(), 0751), 0);
  ASSERT_EQ(symlink(path("a.c").c_str(), path("alias.c").c_str()), 0);
  ASSERT_EQ(link(path("a.c").c_str(), path("hard.c").c_str()), 0);
  struct stat before;
  ASSERT_EQ(stat(path("a.c").c_str(), &before), 0);
  RunResult result;
  Finding viaAlias = finding(path("alias.c"), 1, 1);
  viaAlias.fixes = {{path("alias.c"), 0, 1, "A"}};
  Finding direct = finding(path("a.c"), 1, 1);
  direct.fixes = {{path("a.c"), 0, 1, "A"}}; // the same edit under the file's other name
  result.findings = {fromCurrentBytes(viaAlias), fromCurrentBytes(direct)};
  unsigned applied = 0;
  std::string error;
  ASSERT_TRUE(applyFixes(result, applied, error)) << error;
  EXPECT_EQ(applied, 1u); // once, although two names carried it
  EXPECT_EQ(readFile(path("a.c")), "Abcdef\n");
  EXPECT_EQ(readFile(path("hard.c")), "Abcdef\n");
  struct stat after, link;
  ASSERT_EQ(stat(path("a.c").c_str(), &after), 0);
  ASSERT_EQ(lstat(path("alias.c").c_str(), &link), 0);
  EXPECT_TRUE(S_ISLNK(link.st_mode));
  EXPECT_EQ(after.st_ino, before.st_ino);
  EXPECT_EQ(after.st_nlink, 2u);
  EXPECT_EQ(after.st_mode & 07777, 0751u);
  EXPECT_EQ(after.st_uid, before.st_uid);
}

TEST_F(FixesTest, ReadOnlyFileIsRefusedEvenForRoot) {
  writeFile(path("a.c"), "abcdef\n");
  ASSERT_EQ(chmod(path("a.c").c_str(), 0444), 0);
  RunResult result;
  Finding f = finding(path("a.c"), 1, 1);
  f.fixes = {{path("a.c"), 0, 1, "A"}};
  result.findings = {fromCurrentBytes(f)};
  unsigned applied = 0;
  std::string error;
  EXPECT_FALSE(applyFixes(result, applied, error));
  EXPECT_EQ(applied, 0u);
  EXPECT_EQ(readFile(path("a.c")), "abcdef\n");
  EXPECT_NE(error.find("read-only"), std::string::npos) << error;
}

TEST_F(FixesTest, FixItsOfAUnitThatDidNotParseNeedFixErrors) {
  writeFile(path("a.c"), "abcdef\n");
  RunResult result;
  Finding f = finding(path("a.c"), 1, 1);
  f.fixes = {{path("a.c"), 0, 1, "A"}};
  f.unit = path("a.c");
  result.findings = {fromCurrentBytes(f)};
  result.files.push_back({path("a.c"), false, {path("a.c") + ":1:1: error: x"}});
  unsigned applied = 0;
  std::string error;
  EXPECT_FALSE(applyFixes(result, applied, error));
  EXPECT_EQ(readFile(path("a.c")), "abcdef\n");
  EXPECT_NE(error.find("--fix-errors"), std::string::npos) << error;
  error.clear();
  EXPECT_TRUE(applyFixes(result, applied, error, FixOptions{/*fixErrors=*/true})) << error;
  EXPECT_EQ(readFile(path("a.c")), "Abcdef\n");
}

// Issue 14.4: --export-fixes followed a symlink planted where the file was to be written.
TEST_F(FixesTest, ExportRefusesASymlinkAndLeavesItsTargetAlone) {
  writeFile(path("victim"), "precious\n");
  ASSERT_EQ(symlink(path("victim").c_str(), path("fixes.yaml").c_str()), 0);
  writeFile(path("a.c"), "int fd;\nset(fd);\n");
  RunResult result;
  result.findings = {finding(path("a.c"), 2, 1)};
  std::string error;
  EXPECT_FALSE(exportFixes(path("fixes.yaml"), result, error));
  EXPECT_NE(error.find("symbolic link"), std::string::npos) << error;
  EXPECT_EQ(readFile(path("victim")), "precious\n");
}

// --- text and JSON ------------------------------------------------------------------------------

// A finding at level note after a warning reads as one more note of it to report-converter (and
// an empty line between them does not help: it takes that line for the note's source line), so
// those come first (integration.codechecker reads the whole testdata's text the same way).
TEST(TextTest, NoteLevelFindingsComeFirstSoNoneIsReadAsANoteOfAWarning) {
  RunResult result;
  Finding warning;
  warning.rule = "afunix-passcred-too-late";
  warning.severity = "warning";
  warning.where = {"/s/a.c", 9, 3};
  warning.message = "late";
  warning.notes.push_back({{"/s/a.c", 7, 3}, "listen() here"});
  Finding note = warning;
  note.severity = "note";
  note.where = {"/s/a.c", 20, 3};
  note.message = "a few instructions late";
  note.notes.clear();
  Finding error = note;
  error.severity = "error";
  error.rule = "afunix-fd-limit";
  result.findings = {warning, note, error};
  std::string text;
  llvm::raw_string_ostream out(text);
  writeText(result, TextOptions{}, out);
  out.flush();
  EXPECT_EQ(text, "/s/a.c:20:3: note: a few instructions late [afunix-passcred-too-late]\n"
                  "\n"
                  "/s/a.c:9:3: warning: late [afunix-passcred-too-late]\n"
                  "/s/a.c:7:3: note: listen() here\n"
                  "\n"
                  "/s/a.c:20:3: error: a few instructions late [afunix-fd-limit]\n");
  EXPECT_EQ(describeSeverities(result), "1 error, 1 warning, 1 note");
  result.findings = {warning, warning};
  EXPECT_EQ(describeSeverities(result), "2 warnings");

  result.findings = {warning, note, note};
  auto counts = countBySeverity(result);
  EXPECT_EQ(counts, (std::vector<std::pair<std::string, unsigned>>{{"error", 0}, {"warning", 1}, {"note", 2}}));
}

} // namespace
} // namespace afunix::check
