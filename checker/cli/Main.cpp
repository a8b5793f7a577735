// afunix-check: the command-line front end of the static checker.
#include "Baseline.h"
#include "CompileDb.h"
#include "Config.h"
#include "Engine.h"
#include "Fixes.h"
#include "Output.h"
#include "RuntimeEvidence.h"
#include "Sarif.h"

#include "afunix/RuleCatalog.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace afunix::check;

enum ExitCode { kClean = 0, kFindings = 1, kInputError = 2, kParseError = 3 };

const char *const kHelp = R"(NAME
    afunix-check - find code that Linux AF_UNIX behaviour changes break

SYNOPSIS
    afunix-check [OPTIONS] -p BUILD_DIR [FILE...] [-- EXTRA-COMPILER-ARGS]
    afunix-check [OPTIONS] FILE... [-- COMPILER-ARGS]
    afunix-check --list-rules | --version | --help

DESCRIPTION
    Parses each C or C++ file once with Clang 19 and runs the afunix-* rules on it (the rule
    catalog: afunix-check --list-rules; each rule is documented in docs/rules/<rule-id>.md).

    With -p, compile commands come from BUILD_DIR/compile_commands.json (every file in it when no
    FILE is named); commands written for gcc are adapted: options clang does not know (such as
    -fanalyzer) and -Werror are dropped. Without -p, every FILE is compiled with the arguments
    after `--` (none by default). A finding on a line carrying NOLINT(rule-id), or below a line
    carrying NOLINTNEXTLINE(rule-id), is not reported.

OPTIONS
    -p, --build-path=DIR
        Directory holding compile_commands.json, or the path of that file.
    --checks=GLOB
        Which rules run, as a clang-tidy glob list over rule ids: comma-separated patterns where
        `*` matches anything and a leading `-` removes. Default: all (afunix-*). A list of only
        removals starts from all, e.g. --checks=-afunix-fd-flood.
    --config=FILE
        Project configuration (YAML), see CONFIGURATION.
    --target-kernel=X.Y[.Z]
        Judge against this kernel: rules and message variants about changes the kernel does not
        have yet are dropped. Default: every kernel.
    --pedantic
        Also report the findings the rules keep back by default because they may be harmless.
    --format=text|json|sarif
        Output on stdout. text (default): clang's "file:line:col: severity: message [rule]" with
        notes; json: {"version":1,"findings":[...],"summary":{...}}; sarif: SARIF 2.1.0.
    --show-source, --no-show-source
        With text: print the source line and a caret (default: only when stdout is a terminal).
    --sarif-root=DIR
        Make SARIF artifact URIs and baseline paths relative to DIR (default: current directory).
    --baseline=FILE
        Report only findings that are not recorded in the baseline FILE.
    --write-baseline=FILE
        Record every finding of this run in FILE (then exit 0 unless a file failed to parse).
    --export-fixes=FILE
        Write the fix-its as YAML for clang-apply-replacements.
    --fix
        Apply the fix-its to the source files.
    --header-filter=REGEX
        Also report findings in headers whose path matches REGEX (default: main files only).
    --runtime-evidence=PATH
        Merge what afunix-probe saw at run time: PATH is the --out directory of
        `afunix-probe run --out DIR` or a summary from `afunix-probe run --format json`. A finding
        the run confirmed (same rule at its line, on any frame of the call's stack) gets a note and
        the SARIF property afunix/runtime=confirmed; a runtime finding with no static finding is
        added at its source line (afunix/runtime=runtime-only). A call whose line moved since the
        probed build still matches within 5 lines when its source line reads the same.
    --runtime-unexercised
        With --runtime-evidence: also mark the findings the run did not show. When the run recorded
        its socket calls (afunix-probe run --sites): reached without the problem showing
        (afunix/runtime=reached-clean) or never reached (not-exercised); otherwise not-seen.
    -j, --jobs=N
        Check N files in parallel (default: 1; 0 = number of CPUs). Output does not depend on N.
    -q, --quiet
        No summary line on stderr.
    --list-rules
        Print every rule: id, severity, title.
    --parse-only
        Parse every file but run no rule: shows whether a compile database works (exit 0 or 3).
    --print-commands
        Print, as JSON, the command each file would be parsed with (after the adjustments for
        clang 19), and exit: for debugging a compile database.
    --version
        Print the version and exit.
    -h, --help
        Print this help and exit.

CONFIGURATION
    wrappers: [set_sock_opt]           # functions that call setsockopt() for their caller
    socket_producers: [open_listener]  # functions that return a new socket
    external_sockets: [get_inherited]  # functions that return an fd created elsewhere
    severity: {afunix-fd-flood: error} # per-rule severity: error, warning or note
    disable: [afunix-fd-limit]         # rules never run
    pedantic: false
    target_kernel: "6.16"
    Command-line options win over the file. Unknown keys and bad values are errors.

EXIT STATUS
    0   no findings
    1   findings were reported (after --baseline filtering)
    2   usage or input error: bad option, missing file, broken compile database, bad config,
        file not in the compile database; nothing was checked
    3   some file could not be parsed; findings of all files are still reported (3 wins over 1)

Diagnostics about afunix-check itself go to stderr; findings go to stdout.
)";

struct Cli {
  std::string buildPath, checks, configPath, targetKernel, format = "text", sarifRoot;
  std::string baseline, writeBaselinePath, exportFixesPath, headerFilter, runtimeEvidence;
  std::optional<bool> showSource;
  bool pedantic = false, fix = false, quiet = false, listRules = false, version = false,
       help = false, printCommands = false, parseOnly = false, runtimeUnexercised = false;
  unsigned jobs = 1;
  std::vector<std::string> files, compilerArgs;
  bool haveDashDash = false;
};

int usage(const std::string &message) {
  llvm::errs() << "afunix-check: " << message << "\n"
               << "Try 'afunix-check --help' for more information.\n";
  return kInputError;
}

int inputError(const std::string &message) {
  llvm::errs() << "afunix-check: error: " << message << "\n";
  return kInputError;
}

// Parses argv; returns an exit code when the run must stop here.
std::optional<int> parseArgs(int argc, char **argv, Cli &cli) {
  struct Valued {
    const char *name;
    std::string *target;
  };
  std::vector<Valued> valued = {
      {"--build-path", &cli.buildPath},       {"--checks", &cli.checks},
      {"--config", &cli.configPath},          {"--target-kernel", &cli.targetKernel},
      {"--format", &cli.format},              {"--sarif-root", &cli.sarifRoot},
      {"--baseline", &cli.baseline},          {"--write-baseline", &cli.writeBaselinePath},
      {"--export-fixes", &cli.exportFixesPath}, {"--header-filter", &cli.headerFilter},
      {"--runtime-evidence", &cli.runtimeEvidence},
  };
  std::string jobsText;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--") {
      cli.haveDashDash = true;
      cli.compilerArgs.assign(argv + i + 1, argv + argc);
      break;
    }
    if (arg.empty() || arg[0] != '-' || arg == "-") {
      cli.files.push_back(arg);
      continue;
    }
    // Short forms with a value: -p DIR, -pDIR, -j N, -jN.
    if (arg.size() >= 2 && (arg[1] == 'p' || arg[1] == 'j') && arg.rfind("--", 0) != 0) {
      std::string value = arg.substr(2);
      if (value.empty()) {
        if (i + 1 >= argc)
          return usage("option '" + arg + "' needs a value");
        value = argv[++i];
      }
      (arg[1] == 'p' ? cli.buildPath : jobsText) = value;
      continue;
    }
    std::string name = arg, value;
    bool hasValue = false;
    if (std::size_t eq = arg.find('='); eq != std::string::npos) {
      name = arg.substr(0, eq);
      value = arg.substr(eq + 1);
      hasValue = true;
    }
    bool matched = false;
    for (const Valued &v : valued)
      if (name == v.name) {
        if (!hasValue) {
          if (i + 1 >= argc)
            return usage("option '" + name + "' needs a value");
          value = argv[++i];
        }
        *v.target = value;
        matched = true;
      }
    if (name == "--jobs") {
      if (!hasValue) {
        if (i + 1 >= argc)
          return usage("option '--jobs' needs a value");
        value = argv[++i];
      }
      jobsText = value;
      matched = true;
    }
    if (matched)
      continue;
    if (hasValue)
      return usage("option '" + name + "' takes no value");
    if (arg == "--pedantic")
      cli.pedantic = true;
    else if (arg == "--fix")
      cli.fix = true;
    else if (arg == "-q" || arg == "--quiet")
      cli.quiet = true;
    else if (arg == "--show-source")
      cli.showSource = true;
    else if (arg == "--no-show-source")
      cli.showSource = false;
    else if (arg == "--list-rules")
      cli.listRules = true;
    else if (arg == "--print-commands")
      cli.printCommands = true;
    else if (arg == "--parse-only")
      cli.parseOnly = true;
    else if (arg == "--runtime-unexercised")
      cli.runtimeUnexercised = true;
    else if (arg == "--version")
      cli.version = true;
    else if (arg == "-h" || arg == "--help")
      cli.help = true;
    else
      return usage("unknown option '" + arg + "'");
  }
  if (!jobsText.empty()) {
    char *end = nullptr;
    errno = 0;
    unsigned long n = std::strtoul(jobsText.c_str(), &end, 10);
    if (jobsText[0] == '-' || *end || errno || n > 1024)
      return usage("-j expects a number of jobs from 0 to 1024, not '" + jobsText + "'");
    cli.jobs = n == 0 ? std::max(1u, std::thread::hardware_concurrency()) : unsigned(n);
  }
  if (cli.format != "text" && cli.format != "json" && cli.format != "sarif")
    return usage("--format must be text, json or sarif, not '" + cli.format + "'");
  if (!cli.targetKernel.empty() && !validKernelVersion(cli.targetKernel))
    return usage("--target-kernel expects a kernel version like 6.16 or 6.1.141, not '" +
                 cli.targetKernel + "'");
  return std::nullopt;
}

// The clang-tidy glob: "-*" first so only afunix rules ever run, and a list of only removals
// starts from every rule.
std::optional<std::string> checksGlob(const std::string &user, const Config &config,
                                      std::string &error) {
  std::string glob = "-*";
  bool positive = false;
  llvm::SmallVector<llvm::StringRef, 8> parts;
  llvm::StringRef(user).split(parts, ',', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef part : parts) {
    llvm::StringRef p = part.trim();
    bool negative = p.consume_front("-");
    if (p.empty() || (!p.starts_with("afunix-") && p != "*" && p != "afunix*")) {
      error = "--checks: '" + part.trim().str() +
              "' names no afunix rule (patterns look like afunix-* or -afunix-fd-flood)";
      return std::nullopt;
    }
    positive |= !negative;
  }
  if (!positive)
    glob += ",afunix-*";
  if (!user.empty())
    glob += "," + user;
  for (const std::string &id : config.disable)
    glob += ",-" + id;
  glob += ",-clang-*"; // never compiler warnings or analyzer checks, even for "*"
  return glob;
}

std::string join(const std::vector<std::string> &items) {
  std::string out;
  for (const std::string &s : items)
    out += (out.empty() ? "" : ";") + s;
  return out;
}

int listRules() {
  std::vector<std::string> registered = registeredChecks();
  for (std::size_t i = 0; i < afunix::catalog::kRuleCount; ++i) {
    const auto &rule = afunix::catalog::kRules[i];
    bool hasCheck = std::find(registered.begin(), registered.end(), rule.id) != registered.end();
    llvm::outs() << llvm::left_justify(rule.id, 36) << llvm::left_justify(rule.severity, 9)
                 << rule.title << (hasCheck ? "" : " (no static check in this build)") << "\n";
  }
  return kClean;
}

std::string currentDir() {
  llvm::SmallString<256> cwd;
  llvm::sys::fs::current_path(cwd);
  return std::string(cwd);
}

int run(int argc, char **argv) {
  Cli cli;
  if (std::optional<int> stop = parseArgs(argc, argv, cli))
    return *stop;
  if (cli.help) {
    llvm::outs() << kHelp;
    return kClean;
  }
  if (cli.version) {
    llvm::outs() << "afunix-check " << AFUNIX_VERSION << " (Clang " << CLANG_VERSION_STRING_AFUNIX
                 << ")\n";
    return kClean;
  }
  if (cli.listRules)
    return listRules();

  Config config;
  if (!cli.configPath.empty()) {
    std::string error;
    if (!loadConfig(cli.configPath, config, error))
      return inputError(error);
  }

  std::string globError;
  std::optional<std::string> glob = checksGlob(cli.checks, config, globError);
  if (!glob)
    return usage(globError);
  if (!cli.checks.empty() && !registeredChecks().empty() && enabledChecks(*glob).empty())
    return usage("--checks=" + cli.checks + " enables no rule (see --list-rules)");

  EngineOptions options;
  options.checks = cli.parseOnly ? "-*" : *glob;
  options.jobs = cli.jobs;
  options.severity = config.severity;
  options.headerFilter = cli.headerFilter;
  std::string kernel = !cli.targetKernel.empty() ? cli.targetKernel : config.targetKernel;
  if (!kernel.empty())
    options.checkOptions["TargetKernel"] = kernel;
  bool pedantic = cli.pedantic || config.pedantic.value_or(false);
  options.checkOptions["Pedantic"] = pedantic ? "true" : "false";
  if (!config.wrappers.empty())
    options.checkOptions["OptionWrappers"] = join(config.wrappers);
  if (!config.socketProducers.empty())
    options.checkOptions["SocketProducers"] = join(config.socketProducers);
  if (!config.externalSockets.empty())
    options.checkOptions["ExternalSocketSources"] = join(config.externalSockets);

  CompileRequest request;
  request.buildPath = cli.buildPath;
  request.files = cli.files;
  request.extraArgs = cli.compilerArgs;
  request.haveDashDash = cli.haveDashDash;
  std::vector<CompileJob> jobs;
  std::string error;
  if (!collectJobs(request, jobs, error))
    return inputError(error);

  if (cli.printCommands) {
    llvm::json::OStream json(llvm::outs(), 2);
    json.array([&] {
      for (const CompileJob &job : jobs)
        json.object([&] {
          json.attribute("file", job.file);
          json.attribute("directory", job.directory);
          json.attributeArray("arguments", [&] {
            for (const std::string &a : job.argv)
              json.value(a);
          });
        });
    });
    llvm::outs() << "\n";
    return kClean;
  }

  RuntimeEvidence evidence; // read before the run: a bad path must not cost an analysis
  if (!cli.runtimeEvidence.empty() && !loadRuntimeEvidence(cli.runtimeEvidence, evidence, error))
    return inputError(error);
  RunResult result = runChecks(jobs, options);
  std::string root = cli.sarifRoot.empty() ? currentDir() : absolutePath(cli.sarifRoot);
  MergeStats merged;
  if (!cli.runtimeEvidence.empty()) {
    MergeOptions merge;
    merge.markUnexercised = cli.runtimeUnexercised;
    std::vector<std::string> enabled = enabledChecks(*glob);
    merge.rules.insert(enabled.begin(), enabled.end());
    merged = mergeRuntimeEvidence(result, evidence, merge);
  }

  if (!cli.writeBaselinePath.empty() &&
      !writeBaseline(cli.writeBaselinePath, result, root, error))
    return inputError(error);
  unsigned baselined = 0;
  if (!cli.baseline.empty() && !applyBaseline(cli.baseline, result, root, baselined, error))
    return inputError(error);
  if (!cli.exportFixesPath.empty() && !exportFixes(cli.exportFixesPath, result, error))
    return inputError(error);
  unsigned applied = 0;
  if (cli.fix && !applyFixes(result, applied, error))
    llvm::errs() << "afunix-check: warning: " << error << "\n";

  if (cli.format == "json") {
    writeJson(result, llvm::outs());
  } else if (cli.format == "sarif") {
    SarifOptions sarif{root, AFUNIX_VERSION, AFUNIX_DOCS_URL};
    llvm::outs() << renderSarif(result, sarif);
  } else {
    TextOptions text;
    text.showSource = cli.showSource.value_or(llvm::sys::Process::StandardOutIsDisplayed());
    text.color = llvm::sys::Process::StandardOutHasColors();
    text.relativeTo = currentDir();
    writeText(result, text, llvm::outs());
  }
  llvm::outs().flush();

  unsigned unparsed = countParseErrors(result);
  for (const FileOutcome &file : result.files) {
    if (file.parsed)
      continue;
    llvm::errs() << "afunix-check: " << file.file
                 << ": could not be parsed; its findings may be incomplete:\n";
    for (const std::string &e : file.errors)
      llvm::errs() << "  " << e << "\n";
  }
  if (!cli.quiet) {
    llvm::errs() << "afunix-check: " << result.findings.size() << " finding"
                 << (result.findings.size() == 1 ? "" : "s") << " in " << result.files.size()
                 << " file" << (result.files.size() == 1 ? "" : "s");
    if (baselined)
      llvm::errs() << ", " << baselined << " more in the baseline";
    if (!cli.runtimeEvidence.empty())
      llvm::errs() << "; run time: " << merged.confirmed << " confirmed, " << merged.runtimeOnly
                   << " found only at run time";
    if (unparsed)
      llvm::errs() << ", " << unparsed << " not parsed";
    if (cli.fix)
      llvm::errs() << ", " << applied << " fix" << (applied == 1 ? "" : "es") << " applied";
    llvm::errs() << "\n";
  }
  if (unparsed)
    return kParseError;
  if (!cli.writeBaselinePath.empty())
    return kClean;
  return result.findings.empty() ? kClean : kFindings;
}

} // namespace

int main(int argc, char **argv) {
  enableCrashRecovery();
  return run(argc, argv);
}
