#!/usr/bin/env bash
# What the link phase costs as the program grows, and how big the facts of a unit are, on
# synthetic C projects made at bench time (bench/synthetic_db.py: one unit in twenty uses AF_UNIX
# sockets across files, the others are ordinary code passing ints and fds around).
#
#   bench/link-scale.sh [--tus N[,N...]] [--shards S] [--repeat R] [-j J] [--keep DIR]
#                       [--baseline-checker BIN]
#
# For each size N (default 1000):
# 1. the facts: `afunix-check -p DB --shard=K/S` for K = 1..S (as S CI runners would; -j J),
#    with --timings: extraction CPU per unit; facts per unit in the shard files (binary) and, up to
#    20,000 units, in afunix-facts.json (JSON) of a whole-database run;
# 2. the link: `afunix-check link SHARD_DIR...` (reading every slice, linking, the rules, the
#    report), median of R: CPU time of the whole process and its peak resident memory, and the
#    phases from --timings;
# 3. up to 20,000 units, the JSON facts a whole-database run stores (afunix-facts.json, what
#    afunix-clangd reads), and a partial run after it: `afunix-check -p DB ONE_FILE` with the other
#    N-1 files' facts from that run's facts cache.
# Then the link's CPU and memory per 1,000 and per 10,000 units, a line fitted through the sizes
# measured, and the targets: issue 9, the link over 1,000 units under a second; issue 11, under a
# second per 10,000 units; issue 23, 100,000 units under 10 s.
# With --baseline-checker, the baseline extracts its own shards of the same project (a shard is
# read only by the build that wrote it) and its links alternate with the checker's, R each: both
# medians, their ratio, and whether the two reports hold the same findings.
set -euo pipefail
cd "$(dirname "$0")/.."
checker="$(realpath "${AFUNIX_CHECK:-build/bin/afunix-check}")"
sizes=1000
shards=4
repeat=3
jobs="$(nproc)"
keep=""
baseline=""
while (($#)); do
  case "$1" in
    --tus) sizes="$2"; shift 2 ;;
    --shards) shards="$2"; shift 2 ;;
    --repeat) repeat="$2"; shift 2 ;;
    -j) jobs="$2"; shift 2 ;;
    -j[0-9]*) jobs="${1#-j}"; shift ;;
    --baseline-checker) baseline="$(realpath "$2")"; shift 2 ;;
    --keep) keep="$2"; shift 2 ;;
    -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
    *) echo "link-scale: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -x "$checker" ] || { echo "link-scale: $checker not built (scripts/build.sh afunix-check)" >&2; exit 2; }
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || { echo "link-scale: -j wants a number of jobs, not '$jobs'" >&2; exit 2; }
[ -z "$baseline" ] || [ -x "$baseline" ] || { echo "link-scale: baseline checker $baseline is not executable" >&2; exit 2; }

exec python3 - "$checker" "$sizes" "$shards" "$repeat" "$jobs" "$keep" "$baseline" <<'PY'
import json, os, re, resource, shutil, statistics, subprocess, sys, tempfile

checker, sizes, shards, repeat, jobs, keep, baseline = sys.argv[1:8]
sizes = [int(s) for s in sizes.split(",")]
shards, repeat, jobs = int(shards), int(repeat), int(jobs)
here = os.path.join(os.getcwd(), "bench")
med = statistics.median

def load():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])

def timings(stderr):
    line = next((l for l in stderr.splitlines() if l.startswith("afunix-check: timings: ")), None)
    if line is None:
        sys.exit("link-scale: no --timings line in:\n" + stderr[-3000:])
    phases = {m[0].strip(): (float(m[1]), float(m[2]))
              for m in re.findall(r"([a-z ]+) ([0-9.]+) s \(CPU ([0-9.]+) s, RSS \d+ MiB\)", line)}
    return phases, int(re.search(r"peak RSS (\d+) KiB", line)[1])

def phase_cpu(stderr, prefix):
    """CPU seconds of every --timings phase whose name starts with prefix, repeated ones summed
    (a partial run links in its prefilter rounds and reuses that program: its "link" is ~0)."""
    line = next(l for l in stderr.splitlines() if l.startswith("afunix-check: timings: "))
    return sum(float(m[1]) for m in re.findall(r"([a-z][a-z ()]*?) [0-9.]+ s \(CPU ([0-9.]+) s", line)
               if m[0].strip().startswith(prefix))

def run(args, ok=(0, 1), binary=None):
    """(stdout, stderr, CPU seconds of the process)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run([binary or checker, *args], capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in ok:
        sys.exit(f"link-scale: afunix-check {' '.join(args)} exited {proc.returncode}:\n{proc.stderr[-3000:]}")
    return proc.stdout, proc.stderr, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)

def describe(values):
    return (f"mean {statistics.mean(values):.0f} B, median {med(values):.0f} B, max {max(values)} B"
            if values else "none")

print(f"link-scale: {checker}; synthetic projects of {', '.join(map(str, sizes))} units (one in 20 uses"
      f" sockets); {shards} shards, -j{jobs}; {os.cpu_count()} CPUs, load average {load()}", flush=True)
results = []
for tus in sizes:
    scratch = tempfile.mkdtemp(prefix=f"link-scale-{tus}-", dir=keep or None)
    db = os.path.join(scratch, "project")
    subprocess.run([sys.executable, os.path.join(here, "synthetic_db.py"), db, "--tus", str(tus)],
                   check=True, stdout=subprocess.DEVNULL)
    # 1. the facts, sliced as CI runners would cut them
    def extract(binary, prefix):
        cpu, made = 0.0, []
        for k in range(1, shards + 1):
            d = os.path.join(scratch, f"{prefix}shard-{k}")
            _, err, _ = run(["-p", db, f"--shard={k}/{shards}", f"--shard-dir={d}", f"-j{jobs}",
                             "--timings", "--no-cache"], ok=(0,), binary=binary)
            cpu += timings(err)[0]["extract"][1]
            made.append(d)
        return cpu, made
    extract_cpu, dirs = extract(checker, "")
    if baseline:
        base_extract_cpu, base_dirs = extract(baseline, "baseline-")
        print(f"{tus} units: the baseline's extraction {base_extract_cpu:.1f} s CPU", flush=True)
    binary = []
    for d in dirs:
        binary.append(os.path.getsize(os.path.join(d, os.listdir(d)[0])))
    print(f"{tus} units: extraction {extract_cpu:.1f} s CPU ({extract_cpu * 1000 / tus:.1f} ms per unit);"
          f" shard files {sum(binary)} B = {sum(binary) / tus:.0f} B per unit (binary facts)", flush=True)
    # 2. the link (alternated with the baseline's, so that both see the same machine)
    cpu, rss, phases = [], [], []
    base_cpu, base_rss = [], []
    findings = base_findings = None
    for _ in range(repeat):
        if baseline:
            out, err, t = run(["link", *base_dirs, "--format=json", "--timings"], binary=baseline)
            base_cpu.append(t); base_rss.append(timings(err)[1])
            base_findings = json.loads(out)["findings"]
        out, err, t = run(["link", *dirs, "--format=json", "--timings"])
        p, peak = timings(err)
        cpu.append(t); rss.append(peak); phases.append(p)
        findings = json.loads(out)["findings"]
    read = med(p["read shards"][1] for p in phases)
    link = med(p["link"][1] for p in phases)
    rules = med(p["rules"][1] for p in phases)
    print(f"  afunix-check link ({shards} shard dirs): {med(cpu):.3f} s CPU in all (read {read * 1000:.0f} ms,"
          f" link {link * 1000:.0f} ms, rules {rules * 1000:.0f} ms, the rest start-up and output);"
          f" peak RSS {med(rss) / 1024:.0f} MiB; {len(findings)} findings; median of {repeat}", flush=True)
    if baseline:
        print(f"  the baseline's link: {med(base_cpu):.3f} s CPU (runs {', '.join(f'{c:.2f}' for c in base_cpu)}),"
              f" peak RSS {med(base_rss) / 1024:.0f} MiB; this checker's runs {', '.join(f'{c:.2f}' for c in cpu)};"
              f" CPU ratio {med(cpu) / med(base_cpu):.3f}, peak RSS ratio {med(rss) / med(base_rss):.3f};"
              f" findings {'the same' if findings == base_findings else 'DIFFER'}"
              f" ({len(base_findings)} -> {len(findings)})", flush=True)
    row = {"tus": tus, "cpu": med(cpu), "rss": med(rss) / 1024, "read": read, "link": link,
           "rules": rules, "binary": sum(binary) / tus}
    # 3. JSON facts: a whole-database run's afunix-facts.json, and a partial run after it
    if tus <= 20000:
        cache = os.path.join(scratch, "cache")
        run(["-p", db, f"-j{jobs}", f"--cache-dir={cache}", "--quiet"])
        sizes_json = {"socket": [], "other": []}
        with open(os.path.join(db, "afunix-facts.json")) as f:
            next(f)
            for line in f:
                unit = json.loads(line)
                socket = any(c.get("creator") in ("socket", "accept") for c in unit.get("creates", []))
                sizes_json["socket" if socket else "other"].append(len(line.rstrip("\n").encode()))
        every = sizes_json["socket"] + sizes_json["other"]
        print(f"  facts per unit in afunix-facts.json (JSON): all {describe(every)}; socket units"
              f" {describe(sizes_json['socket'])}; others {describe(sizes_json['other'])}", flush=True)
        stored = []
        for _ in range(repeat):
            # A partial run: the one file checked, the others' facts from the cache of the run above.
            _, err, t = run(["-p", db, os.path.join(db, "src", "unit_1.c"), f"--cache-dir={cache}", "--timings"])
            p, _ = timings(err)
            stored.append((phase_cpu(err, "link"), p["rules"][1], t))
        print(f"  a partial run after it (-p DB one_file, the others' facts from the cache):"
              f" link, its prefilter rounds included, {med(s[0] for s in stored) * 1000:.0f} ms, rules {med(s[1] for s in stored) * 1000:.0f} ms;"
              f" {med(s[2] for s in stored):.3f} s CPU in all", flush=True)
        row["json"] = statistics.mean(every)
        row["partial"] = med(s[2] for s in stored)
    results.append(row)
    if not keep:
        shutil.rmtree(scratch, ignore_errors=True)

print(f"load average {load()} at end")
print("units      link CPU   per 1,000   per 10,000   peak RSS   binary facts/unit")
for r in results:
    print(f"{r['tus']:>8}  {r['cpu']:8.3f} s  {r['cpu'] * 1000 / r['tus']:8.3f} s  {r['cpu'] * 10000 / r['tus']:9.3f} s"
          f"  {r['rss']:6.0f} MiB  {r['binary']:7.0f} B")
if len(results) >= 2:
    # CPU and memory as a + b * units, least squares over the sizes measured.
    xs = [r["tus"] for r in results]
    for key, unit in (("cpu", "s"), ("rss", "MiB")):
        ys = [r[key] for r in results]
        mx, my = statistics.mean(xs), statistics.mean(ys)
        b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
        a = my - b * mx
        print(f"fit {key}: {a:.3f} {unit} + {b * 1000:.4f} {unit} per 1,000 units; at 100,000 units:"
              f" {a + b * 100000:.1f} {unit}")
# Per 10,000 units is judged where start-up no longer dominates: at 10,000 units or more.
for r in results:
    per1k = r["cpu"] * 1000 / r["tus"]
    line = (f"{r['tus']} units: the link over 1,000 units under a second (issue 9):"
            f" {'met' if r['cpu'] * 1000 / max(r['tus'], 1000) < 1 else 'NOT met'} ({per1k:.3f} s per 1,000)")
    if r["tus"] >= 10000:
        per10k = r["cpu"] * 10000 / r["tus"]
        line += (f"; under a second per 10,000 units (issue 11): {'met' if per10k < 1 else 'NOT met'}"
                 f" ({per10k:.3f} s per 10,000)")
    if r["tus"] == 100000:
        line += f"; 100,000 units under 10 s (issue 23): {'met' if r['cpu'] < 10 else 'NOT met'} ({r['cpu']:.1f} s)"
    print(line)
PY
