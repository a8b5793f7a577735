#!/usr/bin/env bash
# What afunix-check costs per translation unit, as a ratio to `clang-19 -fsyntax-only` on the same
# files with the same arguments, measured in the same run: CPU time (user + sys, process start-up
# included) of one invocation over the whole batch, repeated, median. Target: <= 1.10 with every
# rule on.
#
#   bench/checker-cost.sh [BUILD_DIR_WITH_compile_commands.json] [--repeat N]
#
# Batches: the C files and the C++ files of testdata/checker (default arguments -std=gnu11 and
# -std=c++17), and, when given, every file of a real compile database. For a database, files that
# share a command line (after the checker's adjustments, which `afunix-check --print-commands`
# shows) form one clang-19 invocation, as the checker pays its start-up once per run.
#
# Two ratios per batch:
#   batch    one afunix-check run vs clang-19 -fsyntax-only over the same files. Note that the
#            clang driver runs each cc1 job of a multi-file command in a new process, so its side
#            pays a process start-up (~30 ms CPU: loading libLLVM and libclang-cpp) per file.
#   marginal the same without any start-up: each side's run on an empty file with the same
#            arguments is subtracted, and clang-19 runs one file per (in-process) invocation;
#            clang-19 runs one file per (in-process) invocation. Noisy: N start-ups are subtracted.
#   rules    afunix-check with every rule vs afunix-check --parse-only, same files, same process
#            shape: what the rules add to the parse, without start-up noise.
set -euo pipefail
cd "$(dirname "$0")/.."
checker="${AFUNIX_CHECK:-build/bin/afunix-check}"
clang="${CLANG:-clang-19}"
repeat=7
database=""
while (($#)); do
  case "$1" in
    --repeat) repeat="$2"; shift 2 ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) database="$1"; shift ;;
  esac
done
[ -x "$checker" ] || { echo "checker-cost: $checker not built (scripts/build.sh afunix-check)" >&2; exit 2; }
command -v "$clang" >/dev/null || { echo "checker-cost: $clang not found" >&2; exit 2; }

exec python3 - "$checker" "$clang" "$repeat" "$database" <<'PY'
import glob, json, os, resource, statistics, subprocess, sys, tempfile

checker, clang, repeat, database = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]

def cpu(argv, cwd=None):
    """CPU seconds (user + sys) of one child process and everything it waited for."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in (0, 1, 3):
        sys.exit(f"checker-cost: {argv[0]} failed with exit status {proc.returncode}: {' '.join(argv[:8])} ...")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)

def clang_groups(checker_args):
    """(directory, clang argv without inputs, files): the checker's adjusted commands, grouped."""
    out = subprocess.run([checker, "--print-commands", *checker_args], capture_output=True,
                         text=True, check=True).stdout
    groups = {}
    for job in json.loads(out):
        args = job["arguments"]
        # The input is the argument naming the job's file (absolute or as the database spelt it).
        rest = [a for a in args[1:] if os.path.normpath(os.path.join(job["directory"], a)) != job["file"]]
        groups.setdefault((job["directory"], tuple(rest)), []).append(job["file"])
    return [(d, [clang, *rest], files) for (d, rest), files in groups.items()]

EMPTY = os.path.join(tempfile.mkdtemp(prefix="checker-cost-"), "empty.c")
open(EMPTY, "w").close()

def measure(name, checker_args, count):
    groups = clang_groups(checker_args)
    singles = [(d, [*prefix, f]) for d, prefix, files in groups for f in files]
    clang_empty = (groups[0][0], [*groups[0][1], EMPTY])
    extra = checker_args[checker_args.index("--"):] if "--" in checker_args else []
    check_empty = [checker, "--quiet", "--format=json", EMPTY, *extra]
    batch, marginal, rules, ours, theirs = [], [], [], [], []
    for _ in range(repeat):  # interleaved, so load changes hit both sides alike
        t_clang = sum(cpu([*prefix, *files], cwd=d) for d, prefix, files in groups)
        t_check = cpu([checker, "--quiet", "--format=json", *checker_args])
        t_singles = sum(cpu(argv, cwd=d) for d, argv in singles)
        t_clang_empty = cpu(clang_empty[1], cwd=clang_empty[0])
        t_check_empty = cpu(check_empty)
        t_parse = cpu([checker, "--quiet", "--format=json", "--parse-only", *checker_args])
        rules.append(t_check / t_parse)
        theirs.append(t_clang); ours.append(t_check); batch.append(t_check / t_clang)
        marginal.append((t_check - t_check_empty) / max(1e-9, t_singles - len(singles) * t_clang_empty))
    print(f"{name:<26} {count:>4} TUs  clang-19 {statistics.median(theirs) * 1000 / count:6.1f} ms/TU"
          f"  afunix-check {statistics.median(ours) * 1000 / count:6.1f} ms/TU"
          f"  batch ratio {statistics.median(batch):.3f}"
          f"  marginal ratio {statistics.median(marginal):.3f}"
          f" (min {min(marginal):.3f}, max {max(marginal):.3f})"
          f"  rules ratio {statistics.median(rules):.3f} (min {min(rules):.3f}, max {max(rules):.3f});"
          f" {repeat} runs")
    return statistics.median(batch), statistics.median(marginal), statistics.median(rules)

c_files = sorted(glob.glob("testdata/checker/*/*.c"))
cc_files = sorted(glob.glob("testdata/checker/*/*.cc"))
results = []
if c_files:
    results.append(measure("testdata C (-std=gnu11)", [*c_files, "--", "-std=gnu11"], len(c_files)))
if cc_files:
    results.append(measure("testdata C++ (-std=c++17)", [*cc_files, "--", "-std=c++17"], len(cc_files)))
if database:
    jobs = json.loads(subprocess.run([checker, "--print-commands", "-p", database],
                                     capture_output=True, text=True, check=True).stdout)
    results.append(measure(f"database {os.path.basename(os.path.abspath(database))}",
                           ["-p", database], len(jobs)))
print(f"worst medians: batch {max(r[0] for r in results):.3f}, marginal {max(r[1] for r in results):.3f},"
      f" rules {max(r[2] for r in results):.3f} (target <= 1.10)")
PY
