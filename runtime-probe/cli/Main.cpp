#include "Commands.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>

namespace {

constexpr int kExitOutput = 74; // output could not be written (sysexits EX_IOERR)

constexpr const char *kUsage =
    "usage: afunix-probe COMMAND [OPTIONS]\n"
    "\n"
    "Commands:\n"
    "  run [OPTIONS] -- CMD ARGS...\n"
    "      run a program with libafunix-probe.so preloaded and report what its AF_UNIX\n"
    "      calls really did, at their source lines (credentials delivered, fds in flight)\n"
    "  kernel [--format text|json] [--quick] | kernel --compare OLD.json NEW.json\n"
    "      test the running kernel's AF_UNIX behaviour with real sockets; compare two kernels\n"
    "  bench hackbench|gc|meminit [OPTIONS] [--format text|json]\n"
    "      reproduce the kernel patches' measurements on this kernel\n"
    "\n"
    "Run 'afunix-probe --help' for the manual, 'afunix-probe COMMAND --help' for a command.\n";

// The manual: `afunix-probe --help`, and the installed afunix-probe.1 is made from it
// (docs/man/help2man.py), so the two never disagree.
constexpr const char *kManual = R"(NAME
    afunix-probe - watch what the kernel really does with a program's AF_UNIX calls

SYNOPSIS
    afunix-probe run [OPTIONS] -- CMD [ARGS...]
    afunix-probe kernel [--format text|json] [--quick] [--timeout SECONDS] [--gc-inflight N] [--no-netns] [--only NAME,...]
    afunix-probe kernel --rule-pages DIR [--timeout SECONDS]
    afunix-probe kernel --compare OLD.json NEW.json [--format text|json]
    afunix-probe bench hackbench|gc|meminit [OPTIONS] [--format text|json]
    afunix-probe --help | --version | COMMAND --help

DESCRIPTION
    The runtime half of afunix-compat; it shares the rule catalog (afunix-* rule ids) with
    afunix-check(1).

    run starts CMD with libafunix-probe.so preloaded, follows its fork and exec children, and
    prints one summary: findings first, grouped by rule and call site across processes, each with
    the function, file and line of the call (symbolised with llvm-symbolizer-19 or addr2line from
    the program's debug information), a short stack and the socket (type, addresses, peer,
    where it was created). The summary goes to stderr or to --report FILE, never to the
    program's stdout. Its JSON form is what afunix-check --runtime-evidence reads.

    kernel runs one experiment per AF_UNIX behaviour on real sockets and reports what this kernel
    does (docs/kernel-report.md); --compare reads two such reports and says what changed between
    two kernels and what it breaks.

    bench reproduces the measurements of the kernel patches the rules are about: hackbench with
    and without SO_PASSCRED, the unix GC wait of fd-passing sendmsg(), AF_UNIX throughput.

RUN OPTIONS
    --report FILE
        Write the summary to FILE instead of stderr. Checked before CMD runs; a symlink, or a file
        of another user, in a shared sticky directory such as /tmp is refused.
    --format text|json|sarif
        text (default), json, or SARIF 2.1.0 with the findings at their source lines (not in
        builds without the checker, such as the sanitizer builds: they say so).
    --out DIR
        Keep the per-process reports and the JSON summary (afunix-probe-run.PID.NS.json) in DIR.
        Default: a temporary directory, removed afterwards.
    --error-exitcode N
        Exit with N (1-255) when a finding was reported, as valgrind does.
    --sarif-root DIR
        SARIF artifact URIs relative to DIR (default: the current directory).
    --html FILE
        Also write the run as one self-contained HTML page: findings at their source lines with
        stacks and sockets, latency histograms and fds in flight over time as charts, the
        process tree (not in builds without the checker, such as the sanitizer builds).
    --sites
        Also record where the program made its socket calls (AFUNIX_PROBE_SITES=1), so that
        afunix-check --runtime-unexercised can tell a call the run never reached from one it
        reached without the problem showing. Costs a table lookup per socket call.
    --fix passcred
        Enable SO_PASSCRED where the program listens on, or reads with a control buffer from, an
        AF_UNIX socket without it; every place is reported. The only mode that changes what the
        program sees.

KERNEL OPTIONS
    --format text|json
        Text for people, JSON with the keys of docs/kernel-report.md.
    --quick
        Skip the GC experiments (gc, gc_wait_conditions: they put ~17000 sockets in flight for
        seconds).
    --timeout SECONDS
        Kill an experiment still running after SECONDS (default 60).
    --gc-inflight N
        AF_UNIX sockets to keep in flight for the GC experiment (default 17000).
    --no-netns
        Do not run the experiments in private network namespaces.
    --only NAME,...
        Run only these experiments (the names in the report's experiments list).
    --rule-pages DIR
        Run every experiment the rule catalog names and write, in each rule page of DIR
        (docs/rules), the "Measured" table: every message of the rule beside what the kernel did.
    --compare OLD.json NEW.json
        Compare two reports: behaviour changes that break programs (with the afunix-check rule
        that finds the code), harmless ones, keys in one report only, keys measured on one side
        only, and measurements.
    --html FILE
        With --compare: also write the comparison as an HTML page (the changes as tables, the
        GC measurements as a chart).

BENCH OPTIONS
    afunix-probe bench hackbench [-g N] [-l N] [-f N] [-s BYTES] [-T|-P] [--passcred|--plain]
    [--rounds R] runs rt-tests hackbench's workload, plain and with SO_PASSCRED on every socket,
    interleaved. afunix-probe bench gc [--inflight N] [--cycles|--no-cycles] [--samples N] times
    one-byte sendmsg() without and with an AF_UNIX fd while N sockets are in flight, and ends with
    a verdict on whether fd-carrying sends wait for the unix GC. afunix-probe bench meminit
    [--sizes 64,1K,...] [--seconds S] measures AF_UNIX stream and dgram throughput per message
    size with the memory auto-init state.
    --format text|json
        Every benchmark prints one JSON object with --format json.

ENVIRONMENT
    AFUNIX_PROBE_DIR
        Where each probed process writes its report (run sets it). Unset or unusable: a text
        report at exit on stderr, or in a private file in TMPDIR if stderr was replaced.
    AFUNIX_PROBE_FORMAT
        Per-process report files: json (default), text or both.
    AFUNIX_PROBE_TIMING
        0: count calls only, no clock reads, no histograms.
    AFUNIX_PROBE_TIMING_SAMPLE
        Time one call in N (a power of two, default 16); fd-carrying sendmsg() is always timed.
    AFUNIX_PROBE_SLOW_NS
        An fd-carrying sendmsg() slower than this is fd-flood evidence (default 100000).
    AFUNIX_PROBE_INTERVAL
        Also write each process's report every N seconds (long-running daemons).
    AFUNIX_PROBE_STACKS
        0: record call sites but unwind no stacks.
    AFUNIX_PROBE_SITES
        1: record every call site of socket(), accept(), connect(), bind(), listen(),
        setsockopt(), getsockopt(), sendmsg() and recvmsg() (what run --sites sets).
    AFUNIX_PROBE_FIX
        passcred: what run --fix passcred sets.
    AFUNIX_PROBE_LIBRARY
        The library run preloads (default: next to the afunix-probe binary).
    AFUNIX_PROBE_SYMBOLIZER
        The symbolizer run uses (default llvm-symbolizer-19, llvm-symbolizer, then addr2line);
        'none' for module+offset only.
    TMPDIR
        Where run makes its temporary report directory, and where a process writes its exit
        report when it has no report directory and its stderr was replaced.

EXIT STATUS
    run exits with the program's status (128+N when signal N killed it), or with N from
    --error-exitcode when a finding was reported; with its own status when it cannot:
    2    usage error, or a --report or --out that cannot be used (nothing was run)
    74   the output could not be written (a closed pipe, a full disk); every command
    125  run cannot attach: a static or setuid program, a missing library
    126  run: CMD is not executable
    127  run: CMD not found

    kernel exits 0 when every experiment ran (skips included), 3 when one failed or timed out,
    4 when the probe left an fd or a child behind; kernel --compare exits 0 when nothing that
    breaks programs changed and 1 when something did. bench exits 0 when it measured and 1
    when it could not.

FILES
    The interposer `run` preloads is <prefix>/lib/libafunix-probe.so; the rule catalog is in
    <prefix>/share/afunix-compat/rules/*.yaml (also compiled into the tools); the guide, with the
    report formats, guarantees and limits, is <prefix>/share/doc/afunix-compat/guide-probe.md.

SEE ALSO
    afunix-check(1), afunix-clangd(1), valgrind(1)
)";

// What a command printed on stdout must have arrived: a closed pipe or a full disk is reported,
// with its own exit status, never a silent 0.
int finish(int status) {
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    int err = errno;
    std::fprintf(stderr, "afunix-probe: error writing the output: %s\n", std::strerror(err ? err : EIO));
    return kExitOutput;
  }
  return status;
}

} // namespace

int main(int argc, char **argv) {
  // EPIPE instead of death by SIGPIPE, and EFBIG instead of death by SIGXFSZ past the file size
  // limit (ulimit -f), so the error is reported. Not for `run` yet: an ignored signal stays
  // ignored across exec, and the program must get its default (run ignores both once the
  // program is done, before it writes the summary).
  if (argc < 2 || std::strcmp(argv[1], "run") != 0) {
    std::signal(SIGPIPE, SIG_IGN);
    std::signal(SIGXFSZ, SIG_IGN);
  }
  if (argc < 2) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  if (!std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    std::fputs(kManual, stdout);
    return finish(0);
  }
  if (!std::strcmp(argv[1], "--version")) {
    std::printf("afunix-probe %s\n", AFUNIX_VERSION);
    return finish(0);
  }
  const char *command = argv[1];
  if (!std::strcmp(command, "run"))
    return finish(afunix::probe::runCommand(argc - 1, argv + 1));
  if (!std::strcmp(command, "kernel"))
    return finish(afunix::probe::kernelCommand(argc - 1, argv + 1));
  if (!std::strcmp(command, "bench"))
    return finish(afunix::probe::benchCommand(argc - 1, argv + 1));
  std::fprintf(stderr, "afunix-probe: unknown command '%s'\n\n%s", command, kUsage);
  return 2;
}
