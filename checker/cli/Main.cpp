// afunix-check: the command-line front end of the static checker.
#include "Baseline.h"
#include "CompileDb.h"
#include "Config.h"
#include "DocsLocation.h"
#include "Engine.h"
#include "FactsCache.h"
#include "Html.h"
#include "Filters.h"
#include "Fixes.h"
#include "Output.h"
#include "Printable.h"
#include "Report.h"
#include "RuntimeEvidence.h"
#include "SafeFiles.h"
#include "ServiceDiscovery.h"
#include "Sarif.h"
#include "StoredFacts.h"

#include "afunix/RuleCatalog.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <csignal>
#include <cstdlib>
#include <functional>
#include <limits>
#include <malloc.h>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace afunix::check;

enum ExitCode {
  kClean = 0,
  kFindings = 1,
  kInputError = 2,
  kParseError = 3,
  kOutputError = 4,
};

const char *const kHelp = R"(NAME
    afunix-check - find code that Linux AF_UNIX behaviour changes break

SYNOPSIS
    afunix-check [OPTIONS] -p BUILD_DIR [FILE...] [-- EXTRA-COMPILER-ARGS]
    afunix-check [OPTIONS] FILE... [-- COMPILER-ARGS]
    afunix-check [OPTIONS] -p BUILD_DIR --shard=K/N [--shard-dir=DIR]
    afunix-check [OPTIONS] --shard=1/1 [--shard-dir=DIR] FILE -- COMPILER-ARGS
    afunix-check link [OPTIONS] SHARD_DIR...
    afunix-check --list-rules | --version | --help

DESCRIPTION
    Parses each C or C++ file once with Clang 19, reads its socket facts, links the facts of all
    files into one program and runs the afunix-* rules over it (the rule catalog: afunix-check
    --list-rules; each rule has a page in the documentation,
    share/doc/afunix-compat/rules/<rule-id>.md), so a socket created in one file and read for
    credentials in another is judged as one. Findings and their notes may point into any file.
    With --single-tu each file is judged on its own, as the clang-tidy plugin does.

    With -p and FILE (or --diff-from and no FILE), only the findings located in those files and
    in the project headers they include are reported, judged against the current facts of every
    other file of the database: the others are extracted too, from the facts cache when they did
    not change. What could not be had as it is now (a file that does not parse, a missing one) is
    named on stderr. A run that extracted every file leaves their facts in afunix-facts.json next
    to compile_commands.json, for afunix-clangd and for the files --exclude leaves out
    (share/doc/afunix-compat/guarantees.md, facts-format.md).

    With -p, compile commands come from BUILD_DIR/compile_commands.json (every file in it when no
    FILE is named); commands written for gcc are adapted: options clang does not know or refuses
    (such as -fanalyzer, -mrecord-mcount) and -Werror are dropped, @response files expanded.
    Without -p, every FILE is compiled with the arguments after `--` (none by default).

    Findings are reported in the checked files and in the project's headers they include (never
    in system headers), each once however many files include it. A finding on a line carrying
    NOLINT(rule-id), or below a line carrying NOLINTNEXTLINE(rule-id), is not reported. Whatever
    is left out (NOLINT, filters, baseline) is counted in the summary on stderr.

    Each file is checked with the configuration of the nearest .afunix-check.yaml in its
    directory or above (see CONFIGURATION), unless --config names one for all files.

    A run with -p keeps each file's facts in a facts cache (--cache-dir): a later run parses again
    only the files whose compile command, bytes or included files changed, then links the whole
    program again; its findings are the same as a first run's.

    Split over CI runners: `--shard=K/N` extracts slice K of N of the database (its files sorted
    by path, every N-th) and writes its facts to a shard directory without judging anything;
    `afunix-check link DIR...` reads the shard directories of all N slices and reports what one
    run over the whole database would, with the same options and output formats. Shards and link
    must come from the same afunix-check build, database and configuration, and the link needs the
    sources at the paths the shards saw (share/doc/afunix-compat/guide-ci.md).

    Findings go to stdout; messages about afunix-check itself (bad input, files that could not be
    parsed, fix-its not applied, the summary) go to stderr. Besides its own files (the stored
    facts and the facts cache beside the compile database, shard files), files are written only
    when asked (--write-baseline, --export-fixes, --fix), never through a symlink or over
    anything but a regular file; share/doc/afunix-compat/guarantees.md has the rules.

OPTIONS
    -p, --build-path=DIR
        Directory holding compile_commands.json, or the path of that file.
    --checks=GLOB
        Which rules run, as a clang-tidy glob list over rule ids: comma-separated patterns where
        `*` matches anything and a leading `-` removes. Default: all (afunix-*). A list of only
        removals starts from all, e.g. --checks=-afunix-fd-flood.
    --config=FILE
        Use this configuration (YAML, see CONFIGURATION) for every file instead of looking for
        .afunix-check.yaml files.
    --target-kernel=X.Y[.Z]
        Judge against this kernel: rules and message variants about changes the kernel does not
        have yet are dropped. Default: every kernel.
    --pedantic
        Also report the findings the rules keep back by default because they may be harmless.
    --single-tu
        Judge each file on its own (what the clang-tidy plugin sees), not the linked program.
    --no-store-facts
        Do not write afunix-facts.json after a run over the whole database.
    --service-files=GLOB
        Also read these systemd socket units (*.socket, *.socket.in) and Android init files
        (*.rc): the configuration of the sockets a service manager hands to the program; may be
        repeated. With -p the project's source tree (the version-control work tree around the
        database's files, else the top of its build system's tree) is searched for them anyway.
    --no-service-files
        Do not search the source tree for service files (--service-files still applies).
    --cache-dir=DIR
        Keep each file's facts in the facts cache DIR (created when missing), so that a later
        run parses again only the files whose facts may have changed: a file is parsed when its
        compile command, its own bytes or the bytes of any file it includes changed, or another
        afunix-check or other project options wrote the entry. Default with -p: afunix-cache
        beside compile_commands.json. DIR must be new, empty or a cache afunix-check made (its
        CACHEDIR.TAG): a directory holding other files is refused. Several runs may share a
        cache at once (share/doc/afunix-compat/facts-cache.md).
    --no-cache
        Neither read nor write the facts cache: parse every file.
    --full-parse
        Parse every file as clang -fsyntax-only would, without the shortcuts a scan takes
        (function bodies in system headers are skipped, compiler driver results and file reads
        are shared between files): for diagnosing afunix-check itself; the facts are the same.
    --no-prefilter
        Parse every file of the database. By default a run parses first the files whose text (with
        the project headers they include) names the socket calls, constants and models, then, round
        by round, the files that name a function, field or global the parsed files' facts say
        sockets go through; the others cannot change the findings and are not parsed
        (share/doc/afunix-compat/prefilter.md says what can escape it). --timings counts them.
    --dump-facts
        Print the linked program's facts (origins, options, calls, flows), one per line, instead
        of findings: to see why a rule did or did not fire.
    --timings
        After the run, print on stderr what each phase cost (extraction, reading and storing
        facts, the link, the rules: wall and CPU time), the number of units extracted and taken
        from the cache, the facts' size and the peak memory.
    --format=text|json|sarif|html
        Output on stdout. text (default): clang's "file:line:col: severity: message [rule]" with
        notes; json: {"version":1,"findings":[...],"summary":{...}}; sarif: SARIF 2.1.0; html: one
        self-contained page (no script, nothing fetched): the summary by rule, severity and file,
        and each finding's path drawn over the source of every file it crosses, with runtime
        evidence badges and the fix-it as a diff.
    --html-dir=DIR
        Also write the HTML report as a directory (index.html and a page per finding), for large
        projects. DIR is made when absent; an existing one may hold only an earlier report.
    --show-source, --no-show-source
        With text: print the source line with ^ under the column and ~ under the range, as clang
        does (default: only when stdout is a terminal).
    --color=auto|always|never
        Colour the text output as clang does. auto (default): when stdout is a terminal and
        NO_COLOR is not set.
    --fail-on=error|warning|note
        The lowest severity that makes the exit status 1 (default: warning). Findings below it
        are still reported; with the default, a rule configured as `note` never fails CI.
    --header-filter=REGEX
        Report findings in headers only when the header's absolute path matches REGEX (default:
        every non-system header). Findings in the checked files themselves are always reported.
    --exclude-header-filter=REGEX
        Do not report findings in headers whose absolute path matches REGEX.
    --exclude=GLOB
        Neither check files matching GLOB nor report findings in them; may be repeated. `*` and
        `?` stay within a directory, `**` crosses directories; a GLOB without `/` matches a file
        or directory name anywhere (`--exclude=third_party`), one with `/` the path relative to
        the current directory (`--exclude='src/gen/**'`) or an absolute path.
    --line-filter=JSON
        Report only findings on these lines, in clang-tidy's format:
        [{"name":"src/a.c","lines":[[10,20]]},{"name":"b.h"}] (a file without "lines": all of
        it; a file not listed: none).
    --diff-from=REV
        Report only findings on lines added or changed since the git revision REV (committed,
        staged or not), like clang-tidy-diff. With -p and no FILE, only the database files the
        diff touches are reported on (judged in the whole program), or all of them when the diff
        touches a header.
    --sarif-root=DIR
        Make SARIF artifact URIs and baseline paths relative to DIR (default: current directory;
        a link of --relative-paths shards names no directory as %SRCROOT% unless DIR is given).
    --docs-url=URL
        Where the rule pages are published (the docs/ directory), for SARIF helpUri and
        informationUri. Default: docs_url from the configuration, AFUNIX_DOCS_URL, else the URL
        this build was configured with; with none, no links (never this machine's file:// pages
        unless given here). SARIF always embeds each rule's page.
    --baseline=FILE
        Report only findings that are not recorded in the baseline FILE.
    --write-baseline=FILE
        Record every finding of this run in FILE (then exit 0 unless a file failed to parse).
        FILE may be the --baseline file: it is read first.
    --export-fixes=FILE
        Write the fix-its as YAML for clang-apply-replacements.
    --fix
        Apply the fix-its to the source files, in place, only to files unchanged since they
        were checked and writable; skipped ones are named on stderr.
    --fix-errors
        Like --fix, and also apply fix-its from files that did not parse.
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
        Check N files in parallel (default and 0: the number of CPUs). Output does not depend on
        N.
    --shard=K/N
        With -p: extract only slice K of N of the database (1 <= K <= N) and write its facts to
        the shard directory; no rule runs and nothing is reported but parse errors. Exit 0 when
        the facts were written (a file that did not parse is reported by the link), 4 when not.
        With FILE -- COMPILER-ARGS: that one file's facts (--shard=1/1), as a Bazel action extracts
        them.
    --shard-dir=DIR
        Where --shard writes the slice's facts (default: afunix-shard-K-of-N in the current
        directory). `afunix-check link` takes such directories, or one directory holding the files
        of several slices.
    --relative-paths
        With --shard: the facts name the files below the current directory relative to it
        (system headers stay absolute), so shards extracted in one checkout or sandbox link in
        another. No facts cache. The link then reads the sources relative to its own current
        directory.
    --several-databases
        With link: the shards may come from several compile databases (each with all its
        slices), judged as one program: a Bazel target's sources, each extracted on its own, or a
        program whose library is built by another project.
    --progress
        Print "[i/N] file" on stderr as each file is done (default: only when stderr is a
        terminal, where the line is rewritten in place).
    -q, --quiet
        No progress and no summary line on stderr.
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
    docs_url: https://example.org/afunix-compat/docs
    Command-line options win over the file. Unknown keys, repeated keys, more than one YAML
    document and bad values are errors. The file governing a header's findings is the one
    nearest to the header; docs_url is read from the file governing the current directory.

EXIT STATUS
    0   no finding at or above --fail-on
    1   findings at or above --fail-on were reported (after filters and --baseline)
    2   usage or input error: bad option, missing file, broken compile database, bad config,
        bad baseline or runtime evidence, an input that is not a regular file, JSON nested
        deeper than 512 levels, file not in the compile database, unwritable output path or
        cache directory; nothing was checked, nothing was written
    3   some file checked could not be parsed (or crashed clang); findings of all files are
        still reported (3 wins over 1). A file the prefilter skipped is not parsed: its errors
        cannot change a finding and are not reported (--no-prefilter parses every file)
    4   the output could not be written (stdout closed or full, the file size limit, or the
        --write-baseline or --export-fixes file); the run is lost

ENVIRONMENT
    NO_COLOR
        When set (to anything), --color=auto does not colour.
    AFUNIX_DOCS_URL
        Where the rule pages are published, when neither --docs-url nor docs_url says.
    PATH
        --diff-from runs git from it.

SEE ALSO
    afunix-clangd(1), afunix-probe(1), clang-tidy-19(1); share/doc/afunix-compat/guide-cli.md
)";

struct Cli {
  std::string buildPath, checks, configPath, targetKernel, format = "text", sarifRoot;
  std::string baseline, writeBaselinePath, exportFixesPath, docsUrl, lineFilter, diffFrom;
  std::string runtimeEvidence, cacheDir, htmlDir;
  std::string failOn = "warning", color = "auto";
  std::optional<std::string> headerFilter, excludeHeaderFilter;
  std::vector<std::string> excludes;
  std::optional<bool> showSource;
  bool pedantic = false, fix = false, fixErrors = false, quiet = false, listRules = false,
       version = false, help = false, printCommands = false, parseOnly = false, singleTu = false,
       noStoreFacts = false, dumpFacts = false, runtimeUnexercised = false, timings = false,
       noCache = false, fullParse = false, noPrefilter = false, noServiceFiles = false;
  std::vector<std::string> serviceFiles;
  unsigned jobs = std::max(1u, std::thread::hardware_concurrency());
  bool link = false, relativePaths = false, severalDatabases = false;
  std::optional<bool> progress;
  std::string shard, shardDir;
  std::vector<std::string> files, compilerArgs;
  bool haveDashDash = false;
};

int usage(const std::string &message) {
  llvm::errs() << "afunix-check: " << printable(message) << "\n"
               << "Try 'afunix-check --help' for more information.\n";
  return kInputError;
}

int inputError(const std::string &message) {
  llvm::errs() << "afunix-check: error: " << printable(message) << "\n";
  return kInputError;
}

// An output file asked for could not be written after the run (full disk, file size limit):
// the run's result is not all where it was asked for.
int outputError(const std::string &message) {
  llvm::errs() << "afunix-check: error: " << printable(message) << "\n";
  return kOutputError;
}

// Every long option: its name, whether it takes a value, and what it sets.
struct OptionSpec {
  const char *name;
  bool takesValue;
  std::function<void(Cli &, const std::string &)> set;
};

const std::vector<OptionSpec> &optionTable() {
  static const std::vector<OptionSpec> table = {
      {"--build-path", true, [](Cli &c, const std::string &v) { c.buildPath = v; }},
      {"--checks", true, [](Cli &c, const std::string &v) { c.checks = v; }},
      {"--config", true, [](Cli &c, const std::string &v) { c.configPath = v; }},
      {"--target-kernel", true, [](Cli &c, const std::string &v) { c.targetKernel = v; }},
      {"--format", true, [](Cli &c, const std::string &v) { c.format = v; }},
      {"--sarif-root", true, [](Cli &c, const std::string &v) { c.sarifRoot = v; }},
      {"--baseline", true, [](Cli &c, const std::string &v) { c.baseline = v; }},
      {"--write-baseline", true, [](Cli &c, const std::string &v) { c.writeBaselinePath = v; }},
      {"--export-fixes", true, [](Cli &c, const std::string &v) { c.exportFixesPath = v; }},
      {"--html-dir", true, [](Cli &c, const std::string &v) { c.htmlDir = v; }},
      {"--header-filter", true, [](Cli &c, const std::string &v) { c.headerFilter = v; }},
      {"--exclude-header-filter", true,
       [](Cli &c, const std::string &v) { c.excludeHeaderFilter = v; }},
      {"--exclude", true, [](Cli &c, const std::string &v) { c.excludes.push_back(v); }},
      {"--line-filter", true, [](Cli &c, const std::string &v) { c.lineFilter = v; }},
      {"--diff-from", true, [](Cli &c, const std::string &v) { c.diffFrom = v; }},
      {"--fail-on", true, [](Cli &c, const std::string &v) { c.failOn = v; }},
      {"--color", true, [](Cli &c, const std::string &v) { c.color = v; }},
      {"--docs-url", true, [](Cli &c, const std::string &v) { c.docsUrl = v; }},
      {"--runtime-evidence", true, [](Cli &c, const std::string &v) { c.runtimeEvidence = v; }},
      {"--runtime-unexercised", false,
       [](Cli &c, const std::string &) { c.runtimeUnexercised = true; }},
      {"--jobs", true, [](Cli &, const std::string &) {}}, // handled with -j below
      {"--pedantic", false, [](Cli &c, const std::string &) { c.pedantic = true; }},
      {"--fix", false, [](Cli &c, const std::string &) { c.fix = true; }},
      {"--fix-errors", false, [](Cli &c, const std::string &) { c.fix = c.fixErrors = true; }},
      {"--quiet", false, [](Cli &c, const std::string &) { c.quiet = true; }},
      {"--show-source", false, [](Cli &c, const std::string &) { c.showSource = true; }},
      {"--no-show-source", false, [](Cli &c, const std::string &) { c.showSource = false; }},
      {"--list-rules", false, [](Cli &c, const std::string &) { c.listRules = true; }},
      {"--print-commands", false, [](Cli &c, const std::string &) { c.printCommands = true; }},
      {"--parse-only", false, [](Cli &c, const std::string &) { c.parseOnly = true; }},
      {"--single-tu", false, [](Cli &c, const std::string &) { c.singleTu = true; }},
      {"--no-store-facts", false, [](Cli &c, const std::string &) { c.noStoreFacts = true; }},
      {"--dump-facts", false, [](Cli &c, const std::string &) { c.dumpFacts = true; }},
      {"--service-files", true, [](Cli &c, const std::string &v) { c.serviceFiles.push_back(v); }},
      {"--no-service-files", false, [](Cli &c, const std::string &) { c.noServiceFiles = true; }},
      {"--timings", false, [](Cli &c, const std::string &) { c.timings = true; }},
      {"--cache-dir", true, [](Cli &c, const std::string &v) { c.cacheDir = v; }},
      {"--no-cache", false, [](Cli &c, const std::string &) { c.noCache = true; }},
      {"--full-parse", false, [](Cli &c, const std::string &) { c.fullParse = true; }},
      {"--no-prefilter", false, [](Cli &c, const std::string &) { c.noPrefilter = true; }},
      {"--shard", true, [](Cli &c, const std::string &v) { c.shard = v; }},
      {"--shard-dir", true, [](Cli &c, const std::string &v) { c.shardDir = v; }},
      {"--relative-paths", false, [](Cli &c, const std::string &) { c.relativePaths = true; }},
      {"--several-databases", false, [](Cli &c, const std::string &) { c.severalDatabases = true; }},
      {"--progress", false, [](Cli &c, const std::string &) { c.progress = true; }},
      {"--version", false, [](Cli &c, const std::string &) { c.version = true; }},
      {"--help", false, [](Cli &c, const std::string &) { c.help = true; }},
  };
  return table;
}

// "unknown option '--fomat=json'; did you mean '--format=json'?"
std::string unknownOption(const std::string &arg) {
  llvm::StringRef name = llvm::StringRef(arg).split('=').first;
  llvm::StringRef value = llvm::StringRef(arg).split('=').second;
  bool hasValue = llvm::StringRef(arg).contains('=');
  const OptionSpec *best = nullptr;
  unsigned bestDistance = ~0u;
  for (const OptionSpec &spec : optionTable()) {
    unsigned d = name.edit_distance(spec.name, /*AllowReplacements=*/true, bestDistance);
    if (d < bestDistance) {
      bestDistance = d;
      best = &spec;
    }
  }
  std::string message = "unknown option '" + arg + "'";
  // A suggestion only when it is plausibly a typo: a few edits for a long name.
  if (best && bestDistance <= std::max<unsigned>(2, std::string(best->name).size() / 4)) {
    std::string suggestion = best->name;
    if (hasValue && best->takesValue)
      suggestion += "=" + value.str();
    message += "; did you mean '" + suggestion + "'?";
  }
  return message;
}

// Parses argv; returns an exit code when the run must stop here.
std::optional<int> parseArgs(int argc, char **argv, Cli &cli) {
  std::optional<std::string> jobsText;
  int first = 1;
  if (argc > 1 && std::string(argv[1]) == "link") {
    cli.link = true; // `afunix-check link DIR...`: the shard directories are its operands
    first = 2;
  }
  for (int i = first; i < argc; ++i) {
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
    // Short forms: -p DIR, -pDIR, -j N, -jN, -q, -h.
    if (arg.size() >= 2 && arg[1] != '-') {
      char letter = arg[1];
      if (letter == 'p' || letter == 'j') {
        std::string value = arg.substr(2);
        if (value.empty()) {
          if (i + 1 >= argc)
            return usage("option '" + arg + "' needs a value");
          value = argv[++i];
        }
        if (value.empty())
          return usage("option '-" + std::string(1, letter) + "' needs a value, not an empty one");
        if (letter == 'p')
          cli.buildPath = value;
        else
          jobsText = value;
        continue;
      }
      if (arg == "-q") {
        cli.quiet = true;
        continue;
      }
      if (arg == "-h") {
        cli.help = true;
        continue;
      }
      return usage(unknownOption(arg));
    }
    std::string name = arg, value;
    bool hasValue = false;
    if (std::size_t eq = arg.find('='); eq != std::string::npos) {
      name = arg.substr(0, eq);
      value = arg.substr(eq + 1);
      hasValue = true;
    }
    const OptionSpec *spec = nullptr;
    for (const OptionSpec &s : optionTable())
      if (name == s.name)
        spec = &s;
    if (!spec)
      return usage(unknownOption(arg));
    if (!spec->takesValue) {
      if (hasValue)
        return usage("option '" + name + "' takes no value");
      spec->set(cli, "");
      continue;
    }
    if (!hasValue) {
      if (i + 1 >= argc)
        return usage("option '" + name + "' needs a value");
      value = argv[++i];
    }
    // An empty value is a mistake (an unset shell variable), never "use the default".
    if (value.empty())
      return usage("option '" + name + "' needs a value, not an empty one");
    if (name == "--jobs")
      jobsText = value;
    else
      spec->set(cli, value);
  }
  if (jobsText) {
    char *end = nullptr;
    errno = 0;
    unsigned long n = std::strtoul(jobsText->c_str(), &end, 10);
    if ((*jobsText)[0] == '-' || *end || errno || n > 1024)
      return usage("-j expects a number of jobs from 0 to 1024, not '" + *jobsText + "'");
    cli.jobs = n == 0 ? std::max(1u, std::thread::hardware_concurrency()) : unsigned(n);
  }
  if (cli.format != "text" && cli.format != "json" && cli.format != "sarif" && cli.format != "html")
    return usage("--format must be text, json, sarif or html, not '" + cli.format + "'");
  if (cli.color != "auto" && cli.color != "always" && cli.color != "never")
    return usage("--color must be auto, always or never, not '" + cli.color + "'");
  if (!parseSeverity(cli.failOn))
    return usage("--fail-on must be error, warning or note, not '" + cli.failOn + "'");
  if (!cli.targetKernel.empty() && !validKernelVersion(cli.targetKernel))
    return usage("--target-kernel expects a kernel version like 6.16 or 6.1.141, not '" +
                 cli.targetKernel + "'");
  if (!cli.docsUrl.empty()) {
    std::string why;
    if (!validDocsUrl(cli.docsUrl, why))
      return usage("--docs-url: " + why);
  }
  if (!cli.lineFilter.empty() && !cli.diffFrom.empty())
    return usage("--line-filter and --diff-from both choose lines; give one");
  if (!cli.cacheDir.empty() && cli.noCache)
    return usage("--cache-dir and --no-cache contradict each other; give one");
  if (cli.link) {
    if (cli.files.empty())
      return usage("link needs the shard directories to link (afunix-check link DIR...)");
    for (const char *what : {"-p", "--shard", "--single-tu", "--parse-only", "--print-commands",
                             "--", "--cache-dir", "--no-cache", "--full-parse", "--no-prefilter"}) {
      bool given = (what == std::string("-p") && !cli.buildPath.empty()) ||
                   (what == std::string("--shard") && !cli.shard.empty()) ||
                   (what == std::string("--single-tu") && cli.singleTu) ||
                   (what == std::string("--parse-only") && cli.parseOnly) ||
                   (what == std::string("--print-commands") && cli.printCommands) ||
                   (what == std::string("--") && cli.haveDashDash) ||
                   (what == std::string("--cache-dir") && !cli.cacheDir.empty()) ||
                   (what == std::string("--no-cache") && cli.noCache) ||
                   (what == std::string("--full-parse") && cli.fullParse) ||
                   (what == std::string("--no-prefilter") && cli.noPrefilter);
      if (given)
        return usage(std::string("link judges the facts its shards hold; ") + what +
                     " belongs to the runs that extract them");
    }
  }
  if (!cli.shard.empty()) {
    unsigned long k = 0, n = 0;
    char *end = nullptr;
    llvm::StringRef text(cli.shard);
    auto [left, right] = text.split('/');
    bool ok = text.contains('/') && !left.empty() && !right.empty() &&
              !left.getAsInteger(10, k) && !right.getAsInteger(10, n) && k >= 1 && n >= 1 &&
              k <= n && n <= 100000;
    (void)end;
    if (!ok)
      return usage("--shard expects K/N with 1 <= K <= N (slice K of N), not '" + cli.shard + "'");
    // A database, or one file with its command (the one-file database a Bazel action has).
    bool oneCommand = cli.haveDashDash && cli.buildPath.empty() && cli.files.size() == 1;
    if (!oneCommand && (cli.buildPath.empty() || !cli.files.empty()))
      return usage("--shard slices a compile database: give -p BUILD_DIR and no FILE, or one FILE "
                   "-- COMPILER-ARGS");
    for (const auto &[given, what] :
         std::initializer_list<std::pair<bool, const char *>>{
             {cli.singleTu, "--single-tu"}, {cli.parseOnly, "--parse-only"},
             {cli.dumpFacts, "--dump-facts"}, {cli.fix, "--fix"},
             {!cli.exportFixesPath.empty(), "--export-fixes"}, {!cli.htmlDir.empty(), "--html-dir"},
             {!cli.writeBaselinePath.empty(), "--write-baseline"},
             {!cli.baseline.empty(), "--baseline"}, {!cli.diffFrom.empty(), "--diff-from"},
             {!cli.runtimeEvidence.empty(), "--runtime-evidence"}})
      if (given)
        return usage(std::string("--shard only extracts facts; ") + what +
                     " goes with the link (afunix-check link)");
  } else if (!cli.shardDir.empty()) {
    return usage("--shard-dir goes with --shard=K/N");
  } else if (cli.relativePaths) {
    return usage("--relative-paths goes with --shard=K/N (the link reads it from the shards)");
  }
  if (cli.severalDatabases && !cli.link)
    return usage("--several-databases goes with link");
  if (cli.relativePaths && !cli.cacheDir.empty())
    return usage("--relative-paths uses no facts cache; --cache-dir contradicts it");
  return std::nullopt;
}

// The clang-tidy glob: "-*" first so only afunix rules ever run, and a list of only removals
// starts from every rule.
std::optional<std::string> checksGlob(const std::string &user, const std::vector<std::string> &disable,
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
  for (const std::string &id : disable)
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

bool isSourceFile(llvm::StringRef path) {
  llvm::StringRef ext = llvm::sys::path::extension(path);
  for (const char *known : {".c", ".cc", ".cpp", ".cxx", ".c++", ".cp", ".C", ".i", ".ii"})
    if (ext == known)
      return true;
  return false;
}

// The checks and check options for a unit: its configuration, then the command line on top.
UnitSettings settingsFrom(const Config &config, const Cli &cli, const std::string &glob) {
  UnitSettings settings;
  settings.checks = cli.parseOnly ? "-*" : glob;
  std::string kernel = !cli.targetKernel.empty() ? cli.targetKernel : config.targetKernel;
  if (!kernel.empty())
    settings.checkOptions["TargetKernel"] = kernel;
  bool pedantic = cli.pedantic || config.pedantic.value_or(false);
  settings.checkOptions["Pedantic"] = pedantic ? "true" : "false";
  if (!config.wrappers.empty())
    settings.checkOptions["OptionWrappers"] = join(config.wrappers);
  if (!config.socketProducers.empty())
    settings.checkOptions["SocketProducers"] = join(config.socketProducers);
  if (!config.externalSockets.empty())
    settings.checkOptions["ExternalSocketSources"] = join(config.externalSockets);
  for (const auto &[option, list] : afunix::rules::modelOptions(config.models)) {
    std::string &value = settings.checkOptions[option];
    value += (value.empty() ? "" : ";") + list;
  }
  return settings;
}

// The facts cache's directory for this run, "" for none.
std::string factsCacheDir(const Cli &cli) {
  // Relative facts are relative to a directory the cache does not key on.
  if (cli.singleTu || cli.parseOnly || cli.noCache || cli.link || cli.relativePaths)
    return "";
  if (!cli.cacheDir.empty())
    return absolutePath(cli.cacheDir);
  if (cli.buildPath.empty())
    return "";
  llvm::SmallString<256> dir(absolutePath(cli.buildPath));
  if (llvm::StringRef(dir).ends_with(".json"))
    llvm::sys::path::remove_filename(dir);
  llvm::sys::path::append(dir, "afunix-cache");
  return std::string(dir);
}

// Flushes stdout and turns a write error (closed pipe, full disk) into exit status 4.
int finish(int status) {
  llvm::outs().flush();
  if (llvm::outs().has_error()) {
    std::error_code ec = llvm::outs().error();
    llvm::outs().clear_error();
    llvm::errs() << "afunix-check: error: cannot write the output to stdout: " << ec.message()
                 << "\n";
    return kOutputError;
  }
  return status;
}

int run(int argc, char **argv) {
  Cli cli;
  if (std::optional<int> stop = parseArgs(argc, argv, cli))
    return *stop;
  if (cli.help) {
    llvm::outs() << kHelp;
    return finish(kClean);
  }
  if (cli.version) {
    llvm::outs() << "afunix-check " << AFUNIX_VERSION << " (Clang " << CLANG_VERSION_STRING_AFUNIX
                 << ")\n";
    return finish(kClean);
  }
  if (cli.listRules)
    return finish(listRules());

  std::string cwd = currentDir();
  std::string error;

  // Everything that can be wrong with the input is found before any file is parsed.
  ConfigFinder configs;
  if (!configs.init(cli.configPath, error))
    return inputError(error);
  const Config *runConfig = configs.configFor(cwd, error, /*isDirectory=*/true);
  if (!runConfig)
    return inputError(error);

  HeaderFilter headerFilter{cli.headerFilter, cli.excludeHeaderFilter};
  if (!validateHeaderFilter(headerFilter, error))
    return usage(error);
  ExcludeGlobs excludes{cli.excludes, cwd};
  if (!validateGlobs(excludes, error))
    return usage(error);
  std::optional<LineFilter> lineFilter;
  if (!cli.lineFilter.empty()) {
    lineFilter.emplace();
    if (!parseLineFilter(cli.lineFilter, cwd, *lineFilter, error))
      return usage(error);
  }
  if (!cli.diffFrom.empty()) {
    lineFilter.emplace();
    if (!gitDiffSince(cli.diffFrom, cwd, *lineFilter, error))
      return inputError(error);
  }
  std::optional<Baseline> baseline;
  if (!cli.baseline.empty()) {
    baseline.emplace();
    if (!loadBaseline(cli.baseline, *baseline, error))
      return inputError(error);
  }
  if (!cli.writeBaselinePath.empty() &&
      !checkOutputPath(cli.writeBaselinePath, "baseline", error))
    return inputError(error);
  if (!cli.exportFixesPath.empty() && !checkOutputPath(cli.exportFixesPath, "fixes file", error))
    return inputError(error);
  if (!cli.htmlDir.empty() && !checkReportDir(cli.htmlDir, error))
    return inputError(error);
  // A cache directory named on the command line must be one the cache may write into: new,
  // empty or its own (CACHEDIR.TAG written by afunix-check), never a directory of the user's.
  // The default one beside the database is only skipped with a warning (FactsCache::open).
  if (std::string dir = factsCacheDir(cli); !cli.cacheDir.empty() && !dir.empty()) {
    std::string why;
    if (FactsCache::adoptable(dir, why) == FactsCache::Adoption::Refuse)
      return inputError("--cache-dir=" + cli.cacheDir + ": " + why);
  }
  RuntimeEvidence evidence; // read before the run: a bad path must not cost an analysis
  if (!cli.runtimeEvidence.empty() && !loadRuntimeEvidence(cli.runtimeEvidence, evidence, error))
    return inputError(error);

  // The jobs (none for link: its shards hold the units).
  std::vector<CompileJob> jobs;
  unsigned excludedUnits = 0;
  // A partial run of a database (FILEs, or the files --diff-from touches): the files checked. The
  // program is still the whole database's, each file extracted as it is now (from the facts
  // cache when unchanged): their findings are judged as a run over the whole database would
  // judge them, and only theirs are reported.
  std::vector<std::string> checkedFiles;
  std::vector<std::string> missingFiles; // listed by the database, not on the disk
  bool partial = false;
  unsigned excludedFromProgram = 0; // files of the program --exclude leaves out (not extracted)
  // What spares the next run reading the database, written once the run has made the cache.
  std::vector<std::pair<std::string, std::string>> databaseNotes;
  if (!cli.link) {
    CompileRequest request;
    request.buildPath = cli.buildPath;
    request.files = cli.files;
    request.extraArgs = cli.compilerArgs;
    request.haveDashDash = cli.haveDashDash;
    request.checkedNoteDir = factsCacheDir(cli);
    request.notes = &databaseNotes;
    if (!collectJobs(request, jobs, error))
      return inputError(error);

    bool diffTouchesHeader = false;
    if (!cli.diffFrom.empty())
      for (const LineFilter::Entry &e : lineFilter->files)
        diffTouchesHeader |= !isSourceFile(e.name);
    bool diffSelects = !cli.diffFrom.empty() && cli.files.empty() && !diffTouchesHeader;
    // Each file of a database is one program's: with -p, a partial run judges it in that
    // program. (--single-tu judges each alone; --parse-only and --print-commands judge nothing.)
    partial = !cli.buildPath.empty() && !cli.singleTu && !cli.parseOnly && !cli.printCommands &&
              cli.shard.empty() && (!cli.files.empty() || diffSelects);
    std::vector<CompileJob> named;
    if (partial) {
      for (CompileJob &job : jobs)
        if (!matchesExclude(excludes, job.file) &&
            (!diffSelects || selectsFile(*lineFilter, job.file)))
          named.push_back(std::move(job));
      jobs.clear();
      if (!named.empty()) {
        request.files.clear();
        request.missing = &missingFiles;
        if (!collectJobs(request, jobs, error))
          return inputError(error);
        // The database's name for each named file (a symlink's target may be listed instead).
        std::map<llvm::sys::fs::UniqueID, std::string> byId;
        for (const CompileJob &job : jobs)
          if (llvm::sys::fs::UniqueID id; !llvm::sys::fs::getUniqueID(job.file, id))
            byId.emplace(id, job.file);
        for (const CompileJob &job : named) {
          llvm::sys::fs::UniqueID id;
          auto it = llvm::sys::fs::getUniqueID(job.file, id) ? byId.end() : byId.find(id);
          checkedFiles.push_back(it != byId.end() ? it->second : job.file);
        }
      }
    }
    // Said, not silently dropped: module-protocol-stub.c compiled eight ways makes eight modules.
    const CompileJob *several = nullptr;
    unsigned severalFiles = 0;
    if (partial)
      for (const std::string &file : cli.files)
        excludedUnits += matchesExclude(excludes, absolutePath(file));
    for (const CompileJob &job : partial ? named : jobs)
      if (job.otherConfigurations) {
        ++severalFiles;
        if (!several || job.otherConfigurations > several->otherConfigurations)
          several = &job;
      }
    if (several)
      llvm::errs() << "afunix-check: note: " << severalFiles << " file" << (severalFiles == 1 ? " is" : "s are")
                   << " compiled several ways with other macros or include paths (e.g. "
                   << printable(several->file) << ", " << several->otherConfigurations + 1
                   << " commands); each is checked with its first command only\n";
    if (!missingFiles.empty())
      llvm::errs() << "afunix-check: warning: " << missingFiles.size() << " file"
                   << (missingFiles.size() == 1 ? " of the database does" : "s of the database do")
                   << " not exist (e.g. " << printable(missingFiles.front())
                   << "); the files checked are judged without " << (missingFiles.size() == 1 ? "its" : "their")
                   << " facts\n";

    // --exclude'd units are not checked (nor extracted: their stored facts stand in); with
    // --diff-from over a whole database and no partial run, only what the diff can affect is.
    std::vector<CompileJob> kept;
    for (CompileJob &job : jobs) {
      if (matchesExclude(excludes, job.file)) {
        ++excludedFromProgram;
        continue;
      }
      if (!partial && !cli.diffFrom.empty() && cli.files.empty() && !diffTouchesHeader &&
          !selectsFile(*lineFilter, job.file))
        continue;
      kept.push_back(std::move(job));
    }
    jobs = std::move(kept);
    if (!partial)
      excludedUnits = excludedFromProgram;
  }

  if (cli.printCommands && !cli.link) {
    llvm::json::OStream json(llvm::outs(), 2);
    json.array([&] {
      for (const CompileJob &job : jobs)
        json.object([&] {
          json.attribute("file", utf8ForJson(job.file));
          json.attribute("directory", utf8ForJson(job.directory));
          json.attributeArray("arguments", [&] {
            for (const std::string &a : job.argv)
              json.value(utf8ForJson(a));
          });
        });
    });
    llvm::outs() << "\n";
    return finish(kClean);
  }

  // Each unit's checks and options come from the configuration governing its main file.
  std::map<std::string, UnitSettings> unitSettings;
  bool anyRule = cli.checks.empty() || registeredChecks().empty();
  for (const CompileJob &job : jobs) {
    const Config *config = configs.configFor(job.file, error);
    if (!config)
      return inputError(error);
    std::string globError;
    std::optional<std::string> glob = checksGlob(cli.checks, config->disable, globError);
    if (!glob)
      return usage(globError);
    anyRule |= !enabledChecks(*glob).empty();
    unitSettings[job.file] = settingsFrom(*config, cli, *glob);
  }
  if (jobs.empty()) {
    std::string globError;
    if (!checksGlob(cli.checks, {}, globError))
      return usage(globError);
    anyRule = true;
  }
  if (!anyRule)
    return usage("--checks=" + cli.checks + " enables no rule (see --list-rules)");

  EngineOptions options;
  options.jobs = cli.jobs;
  options.relativePaths = cli.relativePaths;
  options.linkSeveralDatabases = cli.severalDatabases;
  std::mutex settingsMutex;
  options.settingsFor = [&](const std::string &file) {
    std::lock_guard<std::mutex> lock(settingsMutex);
    if (auto it = unitSettings.find(file); it != unitSettings.end())
      return it->second;
    // A unit named differently than its job (should not happen): its own configuration still.
    std::string ignored;
    const Config *config = configs.configFor(file, ignored);
    std::optional<std::string> glob =
        checksGlob(cli.checks, config ? config->disable : std::vector<std::string>{}, ignored);
    return unitSettings[file] = settingsFrom(config ? *config : Config{}, cli, glob.value_or("-*"));
  };
  options.wholeProgram = !cli.singleTu;
  options.checkedFiles = checkedFiles;
  options.fullParse = cli.fullParse;
  // Files named without a database are the run: each is parsed. A database's files are filtered.
  options.prefilter = !cli.noPrefilter && !cli.buildPath.empty();
  options.disableFree = true; // afunix-check exits right after the run
  options.cacheDir = factsCacheDir(cli);
  std::string shardError;
  if (!cli.shard.empty()) {
    llvm::StringRef k, n;
    std::tie(k, n) = llvm::StringRef(cli.shard).split('/');
    k.getAsInteger(10, options.shard.index);
    n.getAsInteger(10, options.shard.count);
    options.shard.directory = absolutePath(
        !cli.shardDir.empty() ? cli.shardDir
                              : "afunix-shard-" + k.str() + "-of-" + n.str());
    options.shard.error = &shardError;
  }
  // Progress on a terminal, rewritten in place; forced elsewhere, one line per file.
  bool progress = !cli.quiet && cli.progress.value_or(llvm::sys::Process::StandardErrIsDisplayed());
  bool inPlace = llvm::sys::Process::StandardErrIsDisplayed();
  std::size_t progressWidth = 0; // of the line on the terminal, to blank it out (no escapes)
  if (progress && options.wholeProgram)
    options.progress = [&](std::size_t done, std::size_t total, const std::string &file, bool) {
      std::string shown = file;
      if (llvm::StringRef(file).starts_with(cwd + "/"))
        shown = file.substr(cwd.size() + 1);
      std::string line = "[" + std::to_string(done) + "/" + std::to_string(total) + "] " +
                         printable(shown);
      if (!inPlace) {
        llvm::errs() << line << "\n";
      } else {
        std::size_t width = line.size();
        line.resize(std::max(width, progressWidth), ' ');
        llvm::errs() << "\r" << line;
        progressWidth = width;
        if (done == total)
          llvm::errs() << "\r" << std::string(line.size(), ' ') << "\r";
      }
      llvm::errs().flush();
    };
  if (options.wholeProgram && !cli.buildPath.empty() && cli.shard.empty()) {
    // The facts live next to the compile database: written by a run over all of it, read for the
    // units a partial run (FILEs, --diff-from, --exclude) leaves out.
    std::string database = absolutePath(cli.buildPath);
    if (llvm::StringRef(database).ends_with(".json"))
      database = std::string(llvm::sys::path::parent_path(database));
    llvm::SmallString<256> stored(database);
    llvm::sys::path::append(stored, afunix::analysis::kStoredFactsName);
    // Every file of the database extracted now (a partial run extracts them all too): the
    // stored facts can be written; otherwise the files left out take theirs from them.
    bool whole = (partial || (cli.files.empty() && cli.diffFrom.empty())) && !jobs.empty() &&
                 excludedFromProgram == 0 && missingFiles.empty();
    if (whole && !cli.noStoreFacts && !cli.parseOnly)
      options.storeFacts = std::string(stored);
    else if (!whole && !(partial && checkedFiles.empty()) &&
             llvm::sys::fs::is_regular_file(stored))
      options.readFacts = std::string(stored);
  }
  if (options.wholeProgram && cli.shard.empty()) {
    // Sockets a service manager hands over are configured in unit and .rc files, not in C: those
    // of the source tree of the program's files (a database's, or the shards' of a link).
    bool searchTree = !cli.noServiceFiles && (!cli.buildPath.empty() || cli.link);
    options.serviceFiles = [&cli, &cwd, &excludes, searchTree](const std::vector<std::string> &mainFiles) {
      ServiceFileSearch search;
      search.base = cwd;
      search.globs = cli.serviceFiles;
      if (searchTree)
        if (std::string tree = sourceTreeOf(mainFiles); !tree.empty())
          search.roots.push_back(tree);
      std::vector<std::string> warnings, found;
      for (std::string &path : findServiceFiles(search, warnings))
        if (!matchesExclude(excludes, path))
          found.push_back(std::move(path));
      for (const std::string &warning : warnings)
        llvm::errs() << "afunix-check: warning: " << printable(warning) << "\n";
      return found;
    };
  } else if (!cli.serviceFiles.empty()) {
    return usage("--service-files needs the whole program; it does not go with --single-tu");
  }
  std::string dumped;
  if (cli.dumpFacts) {
    if (cli.singleTu)
      return usage("--dump-facts shows the linked program; it does not go with --single-tu");
    options.dumpFacts = &dumped;
  }
  RunStats stats; // always gathered: the summary says how many files came from the cache
  options.stats = &stats;
  RunResult result;
  if (cli.link) {
    if (!runLink(cli.files, options, result, error))
      return inputError(error);
  } else {
    result = runChecks(jobs, options);
    writeDatabaseNotes(factsCacheDir(cli), databaseNotes);
  }
  if (cli.timings) {
    stats.peakRssKiB = peakRssKiB();
    llvm::errs() << "afunix-check: timings: " << stats.describe() << "\n";
  }
  if (cli.dumpFacts) {
    llvm::outs() << dumped;
    return finish(countParseErrors(result) ? kParseError : kClean);
  }
  if (!cli.shard.empty()) {
    // A slice: its facts are written (or not); the link reports findings and parse errors.
    if (!shardError.empty()) {
      llvm::errs() << "afunix-check: error: " << printable(shardError) << "\n";
      return kOutputError;
    }
    if (!cli.quiet)
      llvm::errs() << "afunix-check: shard " << cli.shard << ": facts of " << result.files.size()
                   << " file" << (result.files.size() == 1 ? "" : "s") << " in "
                   << printable(options.shard.directory) << "; "
                   << countParseErrors(result) << " not parsed (the link reports them)\n";
    return kClean;
  }

  // What the program did at run time, joined to the findings before anything is filtered.
  MergeStats merged;
  if (!cli.runtimeEvidence.empty()) {
    MergeOptions merge;
    merge.markUnexercised = cli.runtimeUnexercised;
    for (const auto &[file, settings] : unitSettings)
      for (const std::string &rule : enabledChecks(settings.checks))
        merge.rules.insert(rule);
    // The project: the source tree of the program's files (the version-control work tree around
    // them, else the top of the build tree, else the directory they share). Evidence elsewhere is
    // not placed in the output.
    std::vector<std::string> programFiles;
    for (const auto *outcomes : {&result.files, &result.context})
      for (const FileOutcome &file : *outcomes)
        programFiles.push_back(file.file);
    merge.projectRoot = sourceTreeOf(programFiles);
    merged = mergeRuntimeEvidence(result, evidence, merge);
    result.dropped.disabled += merged.disabled;
    for (const auto &[file, first] : evidence.repeated)
      llvm::errs() << "afunix-check: note: " << printable(file)
                   << " summarises the same run as " << printable(first)
                   << " (the same processes); read once\n";
    if (unsigned total = merged.notUsedTotal()) {
      llvm::errs() << "afunix-check: warning: " << total << " runtime finding"
                   << (total == 1 ? "" : "s") << " not used:";
      bool first = true;
      for (const auto &[why, counted] : merged.notUsed) {
        llvm::errs() << (first ? " " : ", ") << counted.first << " " << why << " ("
                     << printable(counted.second) << (counted.first > 1 ? ", ..." : "") << ")";
        first = false;
      }
      llvm::errs() << "; give evidence of a build of this tree (afunix-probe run on the program "
                      "built from these sources)\n";
    }
  }

  // What is reported: each finding under the configuration of its own file, then the filters.
  std::map<std::string, FileRules> rulesByConfig;
  std::string ruleError;
  applyFileRules(result, [&](const std::string &file) -> const FileRules & {
    const Config *config = configs.configFor(file, ruleError);
    static const FileRules none;
    if (!config)
      return none;
    FileRules &rules = rulesByConfig[config->path];
    rules.severity = config->severity;
    rules.disable = config->disable;
    return rules;
  });
  if (!ruleError.empty())
    return inputError(ruleError);
  applyHeaderFilter(result, headerFilter);
  applyExcludes(result, excludes);

  std::string root = cli.sarifRoot.empty() ? cwd : absolutePath(cli.sarifRoot);
  if (!cli.writeBaselinePath.empty() &&
      !writeBaseline(cli.writeBaselinePath, result, root, error))
    return outputError(error);
  if (lineFilter)
    applyLineFilter(result, *lineFilter);
  unsigned baselined = 0;
  if (baseline)
    applyBaseline(*baseline, result, root, baselined);
  if (!cli.exportFixesPath.empty() && !exportFixes(cli.exportFixesPath, result, error))
    return outputError(error);
  unsigned applied = 0;
  std::string fixProblems;
  if (cli.fix && !applyFixes(result, applied, fixProblems, FixOptions{cli.fixErrors})) {
    llvm::StringRef rest(fixProblems);
    while (!rest.empty()) {
      auto [line, next] = rest.split('\n');
      if (!line.empty())
        llvm::errs() << "afunix-check: warning: " << printable(line) << "\n";
      rest = next;
    }
  }

  auto docs = [&] {
    return findDocs(!cli.docsUrl.empty() ? cli.docsUrl : runConfig->docsUrl,
                    !cli.docsUrl.empty() ? "--docs-url" : "docs_url");
  };
  HtmlOptions html;
  html.root = root;
  html.toolVersion = AFUNIX_VERSION;
  if (cli.format == "html" || !cli.htmlDir.empty())
    html.docsBaseUrl = docs().baseUrl;
  if (!cli.htmlDir.empty() && !writeReportDir(cli.htmlDir, renderHtmlPages(result, html), error))
    return outputError(error);
  if (cli.format == "json") {
    writeJson(result, llvm::outs());
  } else if (cli.format == "html") {
    llvm::outs() << renderHtml(result, html);
  } else if (cli.format == "sarif") {
    SarifOptions sarif;
    sarif.root = root;
    sarif.rootUnnamed = result.relativePaths && cli.sarifRoot.empty();
    sarif.toolVersion = AFUNIX_VERSION;
    sarif.docsBaseUrl = docs().baseUrl;
    llvm::outs() << renderSarif(result, sarif);
  } else {
    TextOptions text;
    text.showSource = cli.showSource.value_or(llvm::sys::Process::StandardOutIsDisplayed());
    bool color = cli.color == "always" ||
                 (cli.color == "auto" && !std::getenv("NO_COLOR") &&
                  llvm::sys::Process::StandardOutHasColors());
    llvm::outs().enable_colors(color);
    text.color = color;
    text.relativeTo = cwd;
    writeText(result, text, llvm::outs());
  }
  int outputStatus = finish(kClean);

  unsigned unparsed = countParseErrors(result);
  for (const FileOutcome &file : result.files) {
    if (file.parsed)
      continue;
    llvm::errs() << "afunix-check: " << printable(file.file)
                 << ": could not be parsed; its findings may be incomplete:\n";
    for (const std::string &e : file.errors)
      llvm::errs() << "  " << printable(e) << "\n";
  }
  // What a partial run judged with less than the current facts of every other file: said, by
  // name (the exit status is the checked files').
  std::vector<std::string> incomplete;
  for (const FileOutcome &file : result.context)
    if (!file.parsed)
      incomplete.push_back(file.file);
  if (!incomplete.empty())
    llvm::errs() << "afunix-check: warning: " << incomplete.size() << " other file"
                 << (incomplete.size() == 1 ? "" : "s") << " of the program could not be parsed ("
                 << printable(incomplete.front()) << (incomplete.size() > 1 ? ", ..." : "")
                 << "); the files checked are judged with what could be read of "
                 << (incomplete.size() == 1 ? "it" : "them") << "\n";
  for (const std::string &rule : result.stoppedAtBound)
    llvm::errs() << "afunix-check: warning: " << rule << " stopped at its work bound ("
                 << afunix::analysis::RuleContext::kWorkBound
                 << " judgements; every socket of the program meets in a few places): its findings may "
                    "be incomplete\n";
  std::vector<std::string> stale; // missing files were named already
  for (const std::string &file : result.staleFacts)
    if (!llvm::is_contained(missingFiles, file))
      stale.push_back(file);
  if (!stale.empty()) {
    llvm::errs() << "afunix-check: warning: the stored facts of " << stale.size() << " file"
                 << (stale.size() == 1 ? "" : "s")
                 << " not extracted now changed since they were stored and were left out:";
    for (std::size_t i = 0; i < stale.size() && i < 10; ++i)
      llvm::errs() << (i ? ", " : " ") << printable(stale[i]);
    llvm::errs() << (stale.size() > 10 ? ", ..." : "")
                 << " (a run over the whole database stores them again)\n";
  }
  if (!cli.quiet) {
    llvm::errs() << "afunix-check: " << result.findings.size() << " finding"
                 << (result.findings.size() == 1 ? "" : "s") << " in " << result.files.size()
                 << " file" << (result.files.size() == 1 ? "" : "s");
    if (excludedUnits)
      llvm::errs() << " (" << excludedUnits << " excluded)";
    // By rule, the most frequent first: "3 afunix-fd-flood, 1 afunix-creds-without-passcred".
    std::map<std::string, unsigned> byRule;
    for (const Finding &f : result.findings)
      ++byRule[f.rule];
    std::vector<std::pair<std::string, unsigned>> rules(byRule.begin(), byRule.end());
    std::stable_sort(rules.begin(), rules.end(),
                     [](const auto &a, const auto &b) { return a.second > b.second; });
    for (std::size_t i = 0; i < rules.size(); ++i)
      llvm::errs() << (i ? ", " : ": ") << rules[i].second << " " << rules[i].first;
    if (std::string severities = describeSeverities(result); !severities.empty())
      llvm::errs() << "; " << severities;
    if (stats.cached)
      llvm::errs() << "; " << stats.cached << " of " << stats.cached + stats.extracted
                   << (partial ? " files of the program" : "") << " from the facts cache";
    if (std::string dropped = describeDropped(result.dropped); !dropped.empty())
      llvm::errs() << "; " << dropped;
    if (unparsed)
      llvm::errs() << "; " << unparsed << " not parsed";
    if (stats.prefilterSkipped)
      llvm::errs() << "; " << stats.prefilterSkipped << " skipped (name nothing that matters)";
    if (!cli.runtimeEvidence.empty())
      llvm::errs() << "; run time: " << merged.confirmed << " confirmed, " << merged.runtimeOnly
                   << " found only at run time";
    if (cli.fix)
      llvm::errs() << "; " << applied << " fix" << (applied == 1 ? "" : "es") << " applied";
    llvm::errs() << "\n";
  }
  if (outputStatus != kClean)
    return outputStatus;
  if (unparsed)
    return kParseError;
  if (!cli.writeBaselinePath.empty())
    return kClean;
  return failsGate(result, *parseSeverity(cli.failOn)) ? kFindings : kClean;
}

} // namespace

int main(int argc, char **argv) {
  // A closed pipe is a write error to report (exit 4), not a silent death by SIGPIPE; a write past
  // the file size limit (ulimit -f) likewise: write() fails with EFBIG, the file being written is
  // removed (a temporary, never renamed into place) and the run exits 4 with a message, instead of
  // dying of SIGXFSZ with half a file beside the output. git (--diff-from) inherits both, as
  // any program started from a shell that ignores them: it then fails with an error, reported.
  std::signal(SIGPIPE, SIG_IGN);
  std::signal(SIGXFSZ, SIG_IGN);
  // The link remakes tables of millions of entries round after round. By default glibc maps each
  // block over 32 MiB afresh and hands freed heap back to the kernel, so each round pays again for
  // zeroed pages (the kernel's page faults were a third of a 100,000-file link's CPU). The process
  // exits after one run: it keeps what it frees for its next tables instead.
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());
  enableCrashRecovery();
  return run(argc, argv);
}
