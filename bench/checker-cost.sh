#!/usr/bin/env bash
# What afunix-check costs per translation unit, as a ratio to `clang-19 -fsyntax-only` on the same
# files with the same arguments, measured in the same run: CPU time (user + sys, process start-up
# included) of one invocation over the whole batch, repeated, median. With a baseline checker (an
# earlier build, e.g. the single-TU afunix-check from before the whole-program analysis), the
# same ratios for it, interleaved with the others, and whether the current one is at or below it.
#
#   bench/checker-cost.sh [--baseline PATH] [--repeat N] [--no-testdata] [DATABASE...]
#
#   DATABASE     a directory holding compile_commands.json (or the file). Its commands are copied
#                into a scratch build directory, so the stored facts and the facts cache of the
#                runs land there, never beside the project's own database; every run is cold.
#   --baseline   another afunix-check to compare with (also AFUNIX_BASELINE_CHECK); optional.
#   AFUNIX_CHECK the checker measured (default build/bin/afunix-check); CLANG (default clang-19).
#
# Batches: the C files and the C++ files of testdata/checker (default arguments -std=gnu11 and
# -std=c++20), then every file of each DATABASE. For a database, files that share a command line
# (after the checker's adjustments, which `afunix-check --print-commands` shows) form one clang-19
# invocation, as the checker pays its start-up once per run. Both checkers run with -j1.
#
# Ratios per batch and checker:
#   batch    one afunix-check run vs clang-19 -fsyntax-only over the same files. The clang driver
#            runs each cc1 job of a multi-file command in a new process, so its side pays a process
#            start-up (~30 ms CPU: loading libLLVM and libclang-cpp) per file.
#   marginal the same without any start-up: each side's run on an empty file with the same
#            arguments is subtracted, and clang-19 runs one file per (in-process) invocation.
#            Noisy: N start-ups are subtracted.
#   rules    (current checker) every rule vs --parse-only, same files, same process shape: what
#            extracting facts, linking and the rules add to the parse, without start-up noise.
#   new/old  (with --baseline) the current checker's CPU over the baseline's, paired per round:
#            total and marginal. At or below 1.00 means the per-TU ratio to clang-19 did not grow.
set -euo pipefail
cd "$(dirname "$0")/.."
checker="${AFUNIX_CHECK:-build/bin/afunix-check}"
clang="${CLANG:-clang-19}"
baseline="${AFUNIX_BASELINE_CHECK:-}"
repeat=7
testdata=1
databases=()
while (($#)); do
  case "$1" in
    --repeat) repeat="$2"; shift 2 ;;
    --baseline) baseline="$2"; shift 2 ;;
    --baseline=*) baseline="${1#*=}"; shift ;;
    --no-testdata) testdata=0; shift ;;
    -h|--help) sed -n '2,32p' "$0"; exit 0 ;;
    -*) echo "checker-cost: unknown option $1" >&2; exit 2 ;;
    *) databases+=("$1"); shift ;;
  esac
done
[ -x "$checker" ] || { echo "checker-cost: $checker not built (scripts/build.sh afunix-check)" >&2; exit 2; }
[ -z "$baseline" ] || [ -x "$baseline" ] || { echo "checker-cost: baseline $baseline is not an executable" >&2; exit 2; }
command -v "$clang" >/dev/null || { echo "checker-cost: $clang not found" >&2; exit 2; }

exec python3 - "$checker" "$clang" "$repeat" "$baseline" "$testdata" "${databases[@]}" <<'PY'
import glob, json, os, resource, shutil, statistics, subprocess, sys, tempfile

checker, clang, repeat, baseline, testdata = sys.argv[1:6]
repeat, testdata, databases = int(repeat), testdata == "1", sys.argv[6:]
checker = os.path.abspath(checker)
baseline = os.path.abspath(baseline) if baseline else ""
scratch = tempfile.mkdtemp(prefix="checker-cost-")

def cpu(argv, cwd=None, before_run=None):
    """CPU seconds (user + sys) of one child process and everything it waited for."""
    if before_run:
        before_run()
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

EMPTY = os.path.join(scratch, "empty.c")
open(EMPTY, "w").close()

def scratch_database(database):
    """A build directory of our own holding a copy of DATABASE's compile_commands.json."""
    source = database if database.endswith(".json") else os.path.join(database, "compile_commands.json")
    name = os.path.basename(os.path.dirname(os.path.abspath(source)))
    build = os.path.join(scratch, f"db-{name}-{len(os.listdir(scratch))}")
    os.makedirs(build)
    shutil.copy(source, os.path.join(build, "compile_commands.json"))
    return build

def cold(build):
    """Leaves a build directory as a first run finds it: no stored facts, no facts cache."""
    def reset():
        if build:
            for entry in os.listdir(build):
                if entry != "compile_commands.json":
                    path = os.path.join(build, entry)
                    shutil.rmtree(path) if os.path.isdir(path) else os.remove(path)
    return reset

def med(values):
    return statistics.median(values)

def measure(name, checker_args, count, build=None):
    groups = clang_groups(checker_args)
    singles = [(d, [*prefix, f]) for d, prefix, files in groups for f in files]
    clang_empty = (groups[0][0], [*groups[0][1], EMPTY])
    extra = checker_args[checker_args.index("--"):] if "--" in checker_args else []
    sides = [("afunix-check", checker)] + ([("baseline", baseline)] if baseline else [])
    t = {side: {"run": [], "empty": []} for side, _ in sides}
    t_clang, t_singles, t_clang_empty, t_parse = [], [], [], []
    for _ in range(repeat):  # interleaved, so load changes hit every side alike
        t_clang.append(sum(cpu([*prefix, *files], cwd=d) for d, prefix, files in groups))
        for side, binary in sides:
            t[side]["run"].append(cpu([binary, "--quiet", "--format=json", "-j1", *checker_args],
                                      before_run=cold(build)))
            t[side]["empty"].append(cpu([binary, "--quiet", "--format=json", EMPTY, *extra]))
        t_singles.append(sum(cpu(argv, cwd=d) for d, argv in singles))
        t_clang_empty.append(cpu(clang_empty[1], cwd=clang_empty[0]))
        t_parse.append(cpu([checker, "--quiet", "--format=json", "-j1", "--parse-only", *checker_args],
                           before_run=cold(build)))
    marginal_clang = [max(1e-9, s - len(singles) * e) for s, e in zip(t_singles, t_clang_empty)]
    line = [f"{name:<28} {count:>5} TUs  clang-19 {med(t_clang) * 1000 / count:6.1f} ms/TU"]
    result = {"name": name}
    for side, _ in sides:
        run, empty = t[side]["run"], t[side]["empty"]
        batch = [r / c for r, c in zip(run, t_clang)]
        marginal = [(r - e) / m for r, e, m in zip(run, empty, marginal_clang)]
        result[side] = (med(batch), med(marginal))
        line.append(f"  {side} {med(run) * 1000 / count:6.1f} ms/TU batch {med(batch):.3f}"
                    f" marginal {med(marginal):.3f} (min {min(marginal):.3f}, max {max(marginal):.3f})")
    rules = [r / p for r, p in zip(t["afunix-check"]["run"], t_parse)]
    result["rules"] = med(rules)
    line.append(f"  rules {med(rules):.3f} (min {min(rules):.3f}, max {max(rules):.3f})")
    if baseline:
        new, old = t["afunix-check"], t["baseline"]
        total = [n / o for n, o in zip(new["run"], old["run"])]
        marg = [(n - ne) / max(1e-9, o - oe)
                for n, ne, o, oe in zip(new["run"], new["empty"], old["run"], old["empty"])]
        result["new/old"] = (med(total), med(marg))
        line.append(f"  new/old total {med(total):.3f} (min {min(total):.3f}, max {max(total):.3f})"
                    f" marginal {med(marg):.3f}")
    print("".join(line) + f"; {repeat} rounds", flush=True)
    return result

def load():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])

print(f"checker-cost: {checker}" + (f" vs baseline {baseline}" if baseline else "")
      + f"; clang {clang}; {os.cpu_count()} CPUs, load average {load()} at start", flush=True)
results = []
if testdata:
    c_files = sorted(glob.glob("testdata/checker/*/*.c"))
    cc_files = sorted(glob.glob("testdata/checker/*/*.cc"))
    if c_files:
        results.append(measure("testdata C (-std=gnu11)", [*c_files, "--", "-std=gnu11"], len(c_files)))
    if cc_files:
        results.append(measure("testdata C++ (-std=c++20)", [*cc_files, "--", "-std=c++20"], len(cc_files)))
for database in databases:
    build = scratch_database(database)
    jobs = json.loads(subprocess.run([checker, "--print-commands", "-p", build],
                                     capture_output=True, text=True, check=True).stdout)
    label = os.path.abspath(database)
    label = os.path.basename(os.path.dirname(label) if label.endswith(".json") else label)
    results.append(measure(f"database {label}",
                           ["-p", build], len(jobs), build))
print(f"load average {load()} at end")
print(f"worst medians: batch {max(r['afunix-check'][0] for r in results):.3f},"
      f" marginal {max(r['afunix-check'][1] for r in results):.3f},"
      f" rules {max(r['rules'] for r in results):.3f} (target <= 1.10)")
if baseline:
    for r in results:
        new, old = r["afunix-check"], r["baseline"]
        verdict = "at or below" if r["new/old"][0] <= 1.0 else "ABOVE"
        print(f"{r['name']:<28} per-TU ratio to clang-19: {new[0]:.3f} now vs {old[0]:.3f} baseline"
              f" (marginal {new[1]:.3f} vs {old[1]:.3f}): {verdict} the baseline")
shutil.rmtree(scratch, ignore_errors=True)
PY
