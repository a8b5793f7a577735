// The rule catalog: the shipped rules load and validate, the compiled-in copy matches them, every
// schema error names file, line and field, and every rule has its doc page and testdata.
#include "afunix/Catalog.h"
#include "afunix/ModelCatalog.h"
#include "afunix/Models.h"
#include "afunix/RuleCatalog.h"
#include "afunix/kernel/ExperimentRegistry.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <dirent.h>
#include <map>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/stat.h>

using namespace afunix::rules;

namespace {

std::vector<Rule> shippedRules() {
  std::vector<Rule> rules;
  std::vector<CatalogError> errors;
  EXPECT_TRUE(loadCatalogDir(AFUNIX_RULES_DIR, rules, errors));
  for (const auto &e : errors)
    ADD_FAILURE() << e.str();
  return rules;
}

std::vector<CatalogError> errorsFor(const std::string &yaml, const std::string &name) {
  Rule rule;
  std::vector<CatalogError> errors;
  EXPECT_FALSE(parseRule(yaml, name, rule, errors));
  return errors;
}

const char *kValid = R"(id: afunix-example-rule
title: An example
severity: warning
category: credentials
kernel:
  change: "something"
  commit: 16e5726269611b71c930054ffe9b858c1cea88eb
  first_version: "3.2"
  affects_from: "3.2"
variants:
  - id: default
    experiment: creds
    message: "socket '{socket}' is wrong"
what_breaks: it breaks
fix: fix it
detectors:
  static: a check
doc: docs/rules/afunix-example-rule.md
)";

std::string withLine(std::string text, const std::string &from, const std::string &to) {
  auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

bool exists(const std::string &path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

std::vector<std::string> listDir(const std::string &dir) {
  std::vector<std::string> names;
  if (DIR *d = opendir(dir.c_str())) {
    while (dirent *e = readdir(d))
      if (e->d_name[0] != '.')
        names.push_back(e->d_name);
    closedir(d);
  }
  return names;
}

} // namespace

TEST(Catalog, ShippedRulesLoad) {
  auto rules = shippedRules();
  ASSERT_EQ(rules.size(), 6u);
  std::vector<std::string> ids;
  for (const auto &r : rules)
    ids.push_back(r.id);
  EXPECT_EQ(ids, (std::vector<std::string>{
                     "afunix-creds-without-passcred", "afunix-fd-cycle", "afunix-fd-flood",
                     "afunix-fd-limit", "afunix-passcred-too-late",
                     "afunix-passcred-wrong-family"}));
}

TEST(Catalog, CompiledInCopyMatchesYaml) {
  auto rules = shippedRules();
  ASSERT_EQ(rules.size(), afunix::catalog::kRuleCount);
  for (std::size_t i = 0; i < rules.size(); ++i) {
    const auto &compiled = afunix::catalog::kRules[i];
    EXPECT_EQ(rules[i].id, compiled.id);
    EXPECT_EQ(rules[i].severity, compiled.severity);
    EXPECT_EQ(rules[i].fix, compiled.fix);
    EXPECT_EQ(rules[i].securitySeverity, compiled.securitySeverity);
    ASSERT_EQ(rules[i].variants.size(), compiled.variantCount);
    for (std::size_t v = 0; v < compiled.variantCount; ++v) {
      EXPECT_EQ(rules[i].variants[v].message, compiled.variants[v].message);
      EXPECT_EQ(rules[i].variants[v].severity, compiled.variants[v].severity);
      std::string keys;
      for (const auto &key : rules[i].variants[v].experiments)
        keys += (keys.empty() ? "" : ",") + key;
      EXPECT_EQ(keys, compiled.variants[v].experiments);
    }
  }
}

TEST(Catalog, SecuritySeverityIsAScoreOnlyWhereSet) {
  std::vector<afunix::rules::CatalogError> errors;
  afunix::rules::Rule rule;
  auto withScore = [](const std::string &score) {
    std::string text = kValid;
    return text + "security_severity: \"" + score + "\"\n";
  };
  EXPECT_TRUE(afunix::rules::parseRule(withScore("7.5"), "afunix-example-rule.yaml", rule, errors));
  EXPECT_EQ(rule.securitySeverity, "7.5");
  errors.clear();
  EXPECT_FALSE(afunix::rules::parseRule(withScore("high"), "afunix-example-rule.yaml", rule, errors));
  ASSERT_FALSE(errors.empty());
  EXPECT_EQ(errors[0].field, "security_severity");
  // The one rule whose check fails open carries it.
  EXPECT_STREQ(afunix::catalog::findRule("afunix-creds-without-passcred")->securitySeverity, "7.5");
  EXPECT_STREQ(afunix::catalog::findRule("afunix-fd-flood")->securitySeverity, "");
}

TEST(Catalog, KernelRangesSelectVariants) {
  using afunix::KernelVersion;
  const auto *flood = afunix::catalog::findRule("afunix-fd-flood");
  ASSERT_NE(flood, nullptr);
  auto variantFor = [&](const char *kernel) -> std::string {
    KernelVersion k;
    EXPECT_TRUE(KernelVersion::parse(kernel, k));
    std::string found;
    for (std::size_t i = 0; i < flood->variantCount; ++i)
      if (afunix::catalog::appliesTo(flood->variants[i], k))
        found += (found.empty() ? "" : ",") + std::string(flood->variants[i].id);
    return found;
  };
  // Each kernel gets one loop wording and one per-event wording; the pedantic note has no range.
  EXPECT_EQ(variantFor("6.7"), "before-6.8,per-event-before-6.8,unknown-fd");
  EXPECT_EQ(variantFor("6.8"), "since-6.8,per-event,unknown-fd");
  EXPECT_EQ(variantFor("6.18.44-fc-v595"), "since-6.8,per-event,unknown-fd");
  EXPECT_EQ(variantFor("6.19"), "since-6.19,per-event-since-6.19,unknown-fd");

  const auto *family = afunix::catalog::findRule("afunix-passcred-wrong-family");
  ASSERT_NE(family, nullptr);
  KernelVersion k615, k616;
  ASSERT_TRUE(KernelVersion::parse("6.15", k615));
  ASSERT_TRUE(KernelVersion::parse("6.16", k616));
  EXPECT_FALSE(afunix::catalog::appliesTo(*family, k615));
  EXPECT_TRUE(afunix::catalog::appliesTo(*family, k616));
}

TEST(Catalog, KernelVersionParsing) {
  afunix::KernelVersion v;
  EXPECT_TRUE(afunix::KernelVersion::parse("6.1.141", v));
  EXPECT_EQ(v.major, 6);
  EXPECT_EQ(v.minor, 1);
  EXPECT_EQ(v.patch, 141);
  EXPECT_TRUE(afunix::KernelVersion::parse("6", v));
  EXPECT_FALSE(afunix::KernelVersion::parse("", v));
  EXPECT_FALSE(afunix::KernelVersion::parse("six", v));
  EXPECT_FALSE(afunix::KernelVersion::parse("6.", v));
  EXPECT_FALSE(afunix::KernelVersion::parse("6.1.2.3", v));
  EXPECT_FALSE(afunix::KernelVersion::parse("99999999", v));
}

TEST(CatalogErrors, ValidExampleParses) {
  Rule rule;
  std::vector<CatalogError> errors;
  EXPECT_TRUE(parseRule(kValid, "rules/afunix-example-rule.yaml", rule, errors));
  EXPECT_TRUE(errors.empty());
  EXPECT_EQ(placeholders(rule.variants[0].message), std::vector<std::string>{"socket"});
}

TEST(CatalogErrors, BrokenYamlNamesLine) {
  auto errors = errorsFor(withLine(kValid, "fix: fix it", "fix: [unclosed"),
                          "rules/afunix-example-rule.yaml");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_GT(errors[0].line, 0);
  EXPECT_NE(errors[0].str().find("rules/afunix-example-rule.yaml:"), std::string::npos);
  EXPECT_NE(errors[0].message.find("invalid YAML"), std::string::npos);
}

TEST(CatalogErrors, MissingFieldNamesField) {
  auto errors = errorsFor(withLine(kValid, "title: An example\n", ""),
                          "rules/afunix-example-rule.yaml");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].field, "title");
  EXPECT_EQ(errors[0].message, "is required");
}

TEST(CatalogErrors, BadSeverityNamesLineAndField) {
  auto errors = errorsFor(withLine(kValid, "severity: warning", "severity: fatal"),
                          "rules/afunix-example-rule.yaml");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].field, "severity");
  EXPECT_EQ(errors[0].line, 3);
  EXPECT_EQ(errors[0].str(),
            "rules/afunix-example-rule.yaml:3:11: field 'severity': 'fatal' is not one of: "
            "error, note, warning");
}

TEST(CatalogErrors, UnknownFieldIsATypo) {
  auto errors = errorsFor(withLine(kValid, "fix: fix it", "fixx: fix it"),
                          "rules/afunix-example-rule.yaml");
  ASSERT_EQ(errors.size(), 2u); // the typo, and the missing 'fix'
  EXPECT_EQ(errors[0].field, "fixx");
  EXPECT_EQ(errors[0].message, "unknown field");
  EXPECT_EQ(errors[1].field, "fix");
}

TEST(CatalogErrors, BadVersionAndCommit) {
  auto yaml = withLine(kValid, "first_version: \"3.2\"", "first_version: \"three\"");
  yaml = withLine(yaml, "commit: 16e5726269611b71c930054ffe9b858c1cea88eb", "commit: xyz");
  auto errors = errorsFor(yaml, "rules/afunix-example-rule.yaml");
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(errors[0].field, "kernel.commit");
  EXPECT_EQ(errors[1].field, "kernel.first_version");
}

TEST(CatalogErrors, IdMustMatchFileName) {
  auto errors = errorsFor(kValid, "rules/afunix-other.yaml");
  ASSERT_GE(errors.size(), 1u);
  EXPECT_EQ(errors[0].field, "id");
}

TEST(CatalogErrors, VariantProblems) {
  auto yaml = withLine(kValid, "    message: \"socket '{socket}' is wrong\"",
                       "    message: \"socket '{socket' is wrong\"\n"
                       "  - id: default\n"
                       "    since: \"6.16\"\n"
                       "    until: \"6.8\"\n"
                       "    experiment: creds\n"
                       "    message: ok");
  auto errors = errorsFor(yaml, "rules/afunix-example-rule.yaml");
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_EQ(errors[0].field, "variants[0].message");
  EXPECT_EQ(errors[1].field, "variants[1].id");
  EXPECT_EQ(errors[2].field, "variants[1].until");
}

TEST(CatalogErrors, EmptyAndMissingFiles) {
  auto errors = errorsFor("", "rules/afunix-example-rule.yaml");
  ASSERT_EQ(errors.size(), 1u);
  Rule rule;
  std::vector<CatalogError> fileErrors;
  EXPECT_FALSE(loadRuleFile("/nonexistent/afunix-x.yaml", rule, fileErrors));
  ASSERT_EQ(fileErrors.size(), 1u);
  EXPECT_EQ(fileErrors[0].str(), "/nonexistent/afunix-x.yaml: cannot open the file");
}

// Every rule ships with its doc page and, for each detector it claims, testdata.
TEST(CatalogCompleteness, EveryRuleHasDocsAndTestdata) {
  const std::string root = AFUNIX_SOURCE_DIR;
  for (const auto &rule : shippedRules()) {
    SCOPED_TRACE(rule.id);
    EXPECT_TRUE(exists(root + "/" + rule.doc)) << "missing doc page " << rule.doc;
    if (!rule.staticDetector.empty()) {
      int positiveC = 0, positiveCxx = 0, negativeC = 0, negativeCxx = 0;
      for (const auto &name : listDir(root + "/testdata/checker/" + rule.id)) {
        bool cxx = name.size() > 3 && name.substr(name.size() - 3) == ".cc";
        bool c = name.size() > 2 && name.substr(name.size() - 2) == ".c";
        if (name.rfind("pos_", 0) == 0)
          (cxx ? positiveCxx : c ? positiveC : positiveC) += (c || cxx);
        if (name.rfind("neg_", 0) == 0)
          (cxx ? negativeCxx : negativeC) += (c || cxx);
      }
      EXPECT_GT(positiveC, 0) << "no testdata/checker/" << rule.id << "/pos_*.c";
      EXPECT_GT(positiveCxx, 0) << "no testdata/checker/" << rule.id << "/pos_*.cc";
      EXPECT_GT(negativeC, 0) << "no testdata/checker/" << rule.id << "/neg_*.c";
      EXPECT_GT(negativeCxx, 0) << "no testdata/checker/" << rule.id << "/neg_*.cc";
    }
    if (!rule.runtimeDetector.empty()) {
      // A probe testdata program declares the rules it must trigger with "PROBE-EXPECT: <id>".
      bool covered = false;
      for (const auto &name : listDir(root + "/testdata/probe")) {
        std::ifstream in(root + "/testdata/probe/" + name);
        std::stringstream text;
        text << in.rdbuf();
        if (text.str().find("PROBE-EXPECT: " + rule.id) != std::string::npos)
          covered = true;
      }
      EXPECT_TRUE(covered) << "no testdata/probe program says PROBE-EXPECT: " << rule.id;
    }
  }
}

TEST(Catalog, AVariantMayHaveItsOwnSeverity) {
  const auto *rule = afunix::catalog::findRule("afunix-creds-without-passcred");
  ASSERT_TRUE(rule);
  // A check that refuses every peer is a broken feature; one that accepts every peer, a hole.
  EXPECT_STREQ(afunix::catalog::severityOf(*rule, afunix::catalog::findVariant(*rule, "fails-closed")),
               "warning");
  EXPECT_STREQ(afunix::catalog::severityOf(*rule, afunix::catalog::findVariant(*rule, "fails-open")),
               "error");
  EXPECT_STREQ(afunix::catalog::severityOf(*rule, nullptr), rule->severity);
  auto errors = errorsFor(withLine(kValid, "    message:", "    severity: fatal\n    message:"),
                          "rules/afunix-example-rule.yaml");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].field, "variants[0].severity");
}

// A message may state a consequence only where a kernel experiment shows it: every variant names
// the afunix-probe kernel experiment that does, and the name must be one it runs.
TEST(CatalogExperiments, EveryShippedVariantNamesARegisteredExperiment) {
  int variants = 0;
  for (const auto &rule : shippedRules())
    for (const auto &variant : rule.variants) {
      SCOPED_TRACE(rule.id + " / " + variant.id);
      ++variants;
      ASSERT_FALSE(variant.experiments.empty());
      for (const auto &key : variant.experiments)
        EXPECT_NE(afunix::kernel::findExperimentKey(key), nullptr) << key;
    }
  EXPECT_GT(variants, 20);
}

TEST(CatalogExperiments, AVariantWithoutAnExperimentIsAnError) {
  auto errors = errorsFor(withLine(kValid, "    experiment: creds\n", ""),
                          "rules/afunix-example-rule.yaml");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].field, "variants[0].experiment");
  EXPECT_NE(errors[0].message.find("is required"), std::string::npos) << errors[0].message;
}

TEST(CatalogExperiments, AnUnknownExperimentIsAnErrorAtItsLine) {
  auto errors = errorsFor(withLine(kValid, "experiment: creds", "experiment: credz"),
                          "rules/afunix-example-rule.yaml");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].field, "variants[0].experiment");
  EXPECT_EQ(errors[0].line, 12);
  EXPECT_NE(errors[0].message.find("'credz' is not an afunix-probe kernel experiment"),
            std::string::npos)
      << errors[0].message;
  // In a list, each name is checked; a list may not be empty or repeat a name.
  errors = errorsFor(withLine(kValid, "experiment: creds", "experiment: [creds, gc_shapez]"),
                     "rules/afunix-example-rule.yaml");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].message.find("'gc_shapez'"), std::string::npos);
  errors = errorsFor(withLine(kValid, "experiment: creds", "experiment: []"),
                     "rules/afunix-example-rule.yaml");
  ASSERT_EQ(errors.size(), 1u);
  errors = errorsFor(withLine(kValid, "experiment: creds", "experiment: [creds, creds]"),
                     "rules/afunix-example-rule.yaml");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].message.find("twice"), std::string::npos);
  Rule rule;
  std::vector<CatalogError> none;
  EXPECT_TRUE(parseRule(withLine(kValid, "experiment: creds", "experiment: [creds, gc_shapes]"),
                        "rules/afunix-example-rule.yaml", rule, none));
  EXPECT_EQ(rule.variants[0].experiments, (std::vector<std::string>{"creds", "gc_shapes"}));
}

// ---- the model catalog (models/*.yaml, docs/models.md) ------------------------------------------

TEST(Models, ShippedModelsLoadAndAreCompiledIn) {
  afunix::rules::Models models;
  std::vector<CatalogError> errors;
  ASSERT_TRUE(afunix::rules::loadModelsDirectory(AFUNIX_SOURCE_DIR "/models", models, errors))
      << (errors.empty() ? "" : errors.front().str());
  auto loop = std::find_if(models.eventLoops.begin(), models.eventLoops.end(),
                           [](const auto &m) { return m.function == "evconnlistener_new"; });
  ASSERT_NE(loop, models.eventLoops.end());
  EXPECT_EQ(loop->fd, 5);
  EXPECT_EQ(loop->callback, 1);
  EXPECT_EQ(loop->callbackFd, 1);
  EXPECT_TRUE(loop->accepts);
  // What the analysis starts from is exactly the YAML turned into options.
  std::map<std::string, std::string> compiled;
  for (const afunix::catalog::BuiltinModelOption &o : afunix::catalog::kBuiltinModelOptions)
    compiled[o.option] = o.value;
  EXPECT_EQ(compiled, afunix::rules::modelOptions(models));
  EXPECT_NE(compiled["CallbackRegistrars"].find("evconnlistener_new:5:1:1:accepts"), std::string::npos);
  EXPECT_NE(compiled["FdHolders"].find("uv_poll_init:2:uv_fileno:1:uv_handle_t:1"), std::string::npos);
  EXPECT_NE(compiled["FdHolders"].find("g_io_channel_unix_new:0:g_io_channel_unix_get_fd:-1:GIOChannel:-1"),
            std::string::npos);
  EXPECT_NE(compiled["Allocators"].find("g_malloc0"), std::string::npos);
  EXPECT_NE(compiled["SyscallWrappers"].find("syscall:sendmsg:1:SYS_sendmsg|__NR_sendmsg"), std::string::npos);
  EXPECT_NE(compiled["MessageQueues"].find("unixmessage_putv:1:fds:nfds"), std::string::npos);
}

TEST(Models, ProjectEntriesUseTheSameSchema) {
  afunix::rules::Models models;
  std::vector<CatalogError> errors;
  ASSERT_TRUE(afunix::rules::parseModelsText(
      "event_loops:\n  - {function: ev_watch, fd: 4, callback: 2, callback_fd: 2}\n"
      "  - {function: ev_watch_data, fd: 1, callback: 2, callback_fd: 0, passes: {3: 2}}\n"
      "  - {function: workq_post, callback: 1, passes: {2: 0, 3: 1}}\n"
      "socket_makers:\n  - {function: open_tcp, family: AF_INET6}\n"
      "  - {function: local_server, type_arg: 2, listens: true}\n"
      "  - {function: log_socket, type: SOCK_DGRAM, binds: true}\n"
      "option_wrappers:\n  - {function: set_sec}\n"
      "fd_owner_classes:\n  - {class: 'base::ScopedFD'}\n"
      "  - class: 'net::Acceptor'\n    methods: {open: socket, listen: listen}\n"
      "    constructors: [{argument: endpoint, does: listen}]\n    type: SOCK_STREAM\n"
      "    families: {'local::': AF_UNIX}\n    functions: {connect: connect, write: send}\n"
      "syscall_wrappers:\n  - {function: qb_sendmsg, as: sendmsg, first_arg: 0}\n"
      "  - {function: syscall, as: recvmsg, first_arg: 1, number: [SYS_recvmsg]}\n"
      "message_queues:\n  - {function: msgq_put, message: 1, fds: fd, count: nfd}\n"
      "fd_senders:\n  - {function: ancil_send_fds, socket: 0, fds: 1, count: 2}\n"
      "  - {function: ancil_send_fd, socket: 0, fds: 1}\n"
      "  - {function: 'android::base::SendFileDescriptors', socket: 0, fds: 3, variadic: true}\n"
      "  - {function: box_send, socket: 0, fds: 2, holder: Box}\n"
      "containers:\n  - {class: 'llvm::SmallVectorImpl'}\n"
      "  - {class: QList, adds: [append, prepend], data: [constData]}\n  - {class: Batch, data: [raw]}\n"
      "receivers:\n  - {function: chan_read, socket: 1}\n"
      "channel_views:\n  - {function: chan_stream, of: 0}\n"
      "fd_holders:\n  - {store: box_new, fd: 0, load: box_fd, name: Box}\n"
      "  - {store: box_init, fd: 2, holder: 0, load: box_fileno, load_out: 1, name: Box}\n"
      "holder_calls:\n  - {function: box_bind, holder: 0, does: bind, family: AF_UNIX, type: SOCK_STREAM, name: Box}\n"
      "  - {function: box_connect, holder: 1, does: connect, family: AF_UNIX, name: Box}\n"
      "  - {function: box_listen, holder: 0, does: listen, name: Box}\n"
      "  - {function: box_accept, holder: 0, does: accept, into: 1, name: Box}\n",
      "cfg.yaml", models, errors));
  auto options = afunix::rules::modelOptions(models);
  EXPECT_EQ(options["CallbackRegistrars"], "ev_watch:4:2:2;ev_watch_data:1:2:0:3>2;workq_post:-1:1:-1:2>0:3>1");
  EXPECT_EQ(options["SocketProducers"],
            "open_tcp:AF_INET6;local_server:AF_UNIX:arg2:listens;log_socket:AF_UNIX:SOCK_DGRAM:binds");
  EXPECT_EQ(options["OptionWrappers"], "set_sec:SO_PASSCRED");
  EXPECT_EQ(options["FdOwnerClasses"],
            "base::ScopedFD;net::Acceptor|open=socket+listen=listen|endpoint=listen|SOCK_STREAM|local::=AF_UNIX|"
            "connect=connect+write=send");
  EXPECT_EQ(options["SyscallWrappers"], "qb_sendmsg:sendmsg:0;syscall:recvmsg:1:SYS_recvmsg");
  EXPECT_EQ(options["MessageQueues"], "msgq_put:1:fd:nfd");
  EXPECT_EQ(options["FdSenders"],
            "ancil_send_fds:0:1:2;ancil_send_fd:0:1;android::base::SendFileDescriptors:0:3...;box_send:0:2:holder=Box");
  EXPECT_EQ(options["Containers"], "llvm::SmallVectorImpl;QList|append+prepend|constData;Batch||raw");
  EXPECT_EQ(options["Receivers"], "chan_read:1");
  EXPECT_EQ(options["ChannelViews"], "chan_stream:0");
  EXPECT_EQ(options["FdHolders"], "box_new:0:box_fd:-1:Box:-1;box_init:2:box_fileno:1:Box:0");
  EXPECT_EQ(options["HolderCalls"], "box_bind:0:bind:Box:-1:AF_UNIX:SOCK_STREAM;box_connect:1:connect:Box:-1:AF_UNIX:;"
                                    "box_listen:0:listen:Box:-1;box_accept:0:accept:Box:1");
}

TEST(Models, MistakesNameFileLineAndField) {
  struct Case {
    const char *text;
    int line;
    const char *field;
    const char *message;
  };
  const Case cases[] = {
      {"event_loops:\n  - {function: ev_watch, fd: 4, callbak: 2, callback_fd: 2}\n", 2,
       "event_loops[0].callbak", "unknown field"},
      {"event_loops:\n  - {function: ev_watch, fd: -1, callback: 2, callback_fd: 2}\n", 2,
       "event_loops[0].fd", "argument position"},
      {"event_loops:\n  - {function: ev_watch, fd: 2, callback: 2, callback_fd: 0}\n", 2,
       "event_loops[0]", "same argument"},
      {"event_loops:\n  - {function: workq_post, callback: 1, passes: {2: x}}\n", 2,
       "event_loops[0].passes", "argument position mapped to a parameter position"},
      {"event_loops:\n  - {function: workq_post, callback: 1, passes: [2, 0]}\n", 2,
       "event_loops[0].passes", "must be a mapping"},
      {"event_loops:\n  - {function: workq_post, callback: 1, passes: {1: 0}}\n", 2,
       "event_loops[0].passes", "not its own argument"},
      {"event_loops:\n  - {function: workq_post, callback: 1}\n", 2, "event_loops[0].fd", "is required"},
      {"event_loops:\n  - {function: lsn, callback: 1, accepts: true, passes: {2: 4}}\n", 2,
       "event_loops[0]", "accepts needs the listener"},
      {"fd_holders:\n  - {store: box_init, fd: 1, holder: 1, load: box_fd, name: Box}\n", 2, "fd_holders[0]",
       "fd and holder are the same argument"},
      {"fd_holders:\n  - {store: box_init, fd: 1, holder: 65, load: box_fd, name: Box}\n", 2,
       "fd_holders[0].holder", "argument position"},
      {"holder_calls:\n  - {function: box_accept, holder: 0, does: accept, name: Box}\n", 2,
       "holder_calls[0].into", "needs the holder it accepts into"},
      {"holder_calls:\n  - {function: box_listen, holder: 0, does: listen, into: 1, name: Box}\n", 2,
       "holder_calls[0].into", "only an accept"},
      {"holder_calls:\n  - {function: box_accept, holder: 1, does: accept, into: 1, name: Box}\n", 2,
       "holder_calls[0]", "holder and into are the same argument"},
      {"holder_calls:\n  - {function: box_listen, holder: 0, does: listen, family: AF_UNIX, name: Box}\n", 2,
       "holder_calls[0].family", "only a bind or a connect makes"},
      {"holder_calls:\n  - {function: box_bind, holder: 0, does: bind, type: SOCK_STREAM, name: Box}\n", 2,
       "holder_calls[0].type", "without a family"},
      {"holder_calls:\n  - {function: box_bind, holder: 0, does: open, name: Box}\n", 2,
       "holder_calls[0].does", "is not one of: accept, bind, connect, listen"},
      {"holder_calls:\n  - {function: box_bind, holder: 0, does: bind}\n", 2, "holder_calls[0].name", "is required"},
      {"socket_makers:\n  - {function: open_tcp, family: AF_INET7}\n", 2,
       "socket_makers[0].family", "is not one of"},
      {"socket_makers:\n  - {function: local_server, type: SOCK_RAW}\n", 2,
       "socket_makers[0].type", "is not one of"},
      {"socket_makers:\n  - {function: local_server, type: SOCK_DGRAM, type_arg: 2}\n", 2,
       "socket_makers[0]", "give one"},
      {"socket_makers:\n  - {function: log_socket, type: SOCK_DGRAM, listens: true}\n", 2,
       "socket_makers[0].listens", "cannot listen"},
      {"socket_makers:\n  - {function: log_socket, binds: yes please}\n", 2,
       "socket_makers[0].binds", "true or false"},
      {"fd_owner_classes:\n  - {class: 'net::Acceptor', methods: {listen: close}}\n", 2,
       "fd_owner_classes[0].methods.listen", "must be one of: accept, bind, connect, listen, option, send, socket"},
      // A free function is read only for what it does to the object it is handed.
      {"fd_owner_classes:\n  - {class: 'net::Socket', functions: {write: listen}}\n", 2,
       "fd_owner_classes[0].functions.write", "must be one of: connect, send"},
      // accept is a method's effect only: a constructor makes its own object's socket.
      {"fd_owner_classes:\n  - {class: 'net::Acceptor', constructors: [{argument: endpoint, does: accept}]}\n", 2,
       "fd_owner_classes[0].constructors[0].does", "is not one of: bind, listen, socket"},
      {"fd_owner_classes:\n  - {class: 'net::Acceptor', constructors: [{argument: endpoint}]}\n", 2,
       "fd_owner_classes[0].constructors[0].does", "is required"},
      {"fd_owner_classes:\n  - {class: 'net::Acceptor', families: {'local::': AF_LOCAL}}\n", 2,
       "fd_owner_classes[0].families.local::", "must be one of: AF_BLUETOOTH, AF_INET"},
      {"allocators:\n  - {function: 'not a name'}\n", 2, "allocators[0].function",
       "not a function or class name"},
      {"allocators: pool_alloc\n", 1, "allocators", "must be a list"},
      {"event_loops:\n  - {function: 'ev::watch', fd: 0, callback: 1, callback_fd: 0}\n", 2,
       "event_loops[0].function", "without its namespace"},
      {"event_loop:\n  - {function: f}\n", 1, "event_loop", "unknown field"},
      {"syscall_wrappers:\n  - {function: sys_send, as: send, first_arg: 0}\n", 2,
       "syscall_wrappers[0].as", "is not one of"},
      {"syscall_wrappers:\n  - {function: syscall, as: sendmsg, first_arg: 0, number: [SYS_sendmsg]}\n", 2,
       "syscall_wrappers[0].first_arg", "1 or more"},
      {"syscall_wrappers:\n  - {function: syscall, as: sendmsg, first_arg: 1, number: SYS_sendmsg}\n", 2,
       "syscall_wrappers[0].number", "must be a list"},
      {"message_queues:\n  - {function: msgq_put, message: 1, fds: nfd, count: nfd}\n", 2,
       "message_queues[0]", "same field"},
      {"fd_senders:\n  - {function: send_fds, socket: 1, fds: 1}\n", 2, "fd_senders[0]", "same argument"},
      {"fd_senders:\n  - {function: send_fds, fds: 1}\n", 2, "fd_senders[0].socket", "is required"},
      {"fd_senders:\n  - {function: send_fds, socket: 0, fds: 1, count: 2, variadic: true}\n", 2, "fd_senders[0]",
       "give no count"},
      {"fd_senders:\n  - {function: send_fds, socket: 2, fds: 1, variadic: true}\n", 2, "fd_senders[0]",
       "socket comes before them"},
      {"fd_senders:\n  - {function: send_fds, socket: 0, fds: 1, count: 2, holder: Box}\n", 2,
       "fd_senders[0].holder", "keeps one fd"},
      {"fd_senders:\n  - {function: send_fds, socket: 0, fds: 1, holder: 'a b'}\n", 2, "fd_senders[0].holder",
       "not a function or class name"},
      {"fd_senders:\n  - {function: send_fds, socket: 0, fds: 1, variadic: yes please}\n", 2,
       "fd_senders[0].variadic", "true or false"},
      {"containers:\n  - {adds: [append]}\n", 2, "containers[0].class", "is required"},
      {"containers:\n  - {class: QList, adds: append}\n", 2, "containers[0].adds", "list of method names"},
      {"containers:\n  - {class: QList, data: ['QList::constData']}\n", 2, "containers[0].data[0]",
       "not a method name"},
      {"containers:\n  - {class: 'a b'}\n", 2, "containers[0].class", "not a function or class name"},
      {"message_queues:\n  - {function: msgq_put, fds: fd, count: nfd}\n", 2,
       "message_queues[0].message", "is required"},
      {"message_queues:\n  - {function: msgq_put, message: 1, fds: 'a b', count: nfd}\n", 2,
       "message_queues[0].fds", "not a function or class name"},
      {"receivers:\n  - {function: chan_read}\n", 2, "receivers[0].socket", "is required"},
      {"receivers:\n  - {function: 'chan::read', socket: 0}\n", 2, "receivers[0].function", "without its namespace"},
      {"channel_views:\n  - {function: chan_stream, of: -1}\n", 2, "channel_views[0].of", "argument position"},
      {"channel_views:\n  - {function: chan_stream, off: 0}\n", 2, "channel_views[0].off", "unknown field"},
  };
  for (const Case &c : cases) {
    afunix::rules::Models models;
    std::vector<CatalogError> errors;
    EXPECT_FALSE(afunix::rules::parseModelsText(c.text, "cfg.yaml", models, errors)) << c.text;
    ASSERT_FALSE(errors.empty()) << c.text;
    EXPECT_EQ(errors.front().line, c.line) << c.text;
    EXPECT_EQ(errors.front().field, c.field) << c.text;
    EXPECT_NE(errors.front().message.find(c.message), std::string::npos) << errors.front().str();
    EXPECT_TRUE(models.eventLoops.empty() && models.socketMakers.empty() && models.allocators.empty() &&
                models.fdOwnerClasses.empty() &&
                models.syscallWrappers.empty() && models.messageQueues.empty() && models.receivers.empty() &&
                models.channelViews.empty())
        << "nothing of a bad entry is kept: " << c.text;
  }
}
