#!/usr/bin/env bash
# What the link phase costs as the program grows, and how big the facts of a unit are, on a
# synthetic C project made at bench time (bench/synthetic_db.py: one unit in twenty uses AF_UNIX
# sockets across files, the others are ordinary code that passes ints and fds around).
#
#   bench/link-scale.sh [--tus N] [--repeat R] [-j J]
#
# 1. A cold whole-database run over N units (default 1000) with --timings: extraction, the link
#    and the rules as phases of one run (the link here works on facts already in memory).
# 2. The facts per unit: bytes of each unit's line in afunix-facts.json (mean, median, max; the
#    socket units and the others apart).
# 3. The link from stored facts: `afunix-check -p DB ONE_FILE` re-extracts one file and takes the
#    other N-1 units from afunix-facts.json: reading them, the link and the rules, median of R.
# Targets (issue 9): the link over 1,000 units under a second.
set -euo pipefail
cd "$(dirname "$0")/.."
checker="$(realpath "${AFUNIX_CHECK:-build/bin/afunix-check}")"
tus=1000
repeat=3
jobs="$(nproc)"
while (($#)); do
  case "$1" in
    --tus) tus="$2"; shift 2 ;;
    --repeat) repeat="$2"; shift 2 ;;
    -j) jobs="$2"; shift 2 ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "link-scale: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -x "$checker" ] || { echo "link-scale: $checker not built (scripts/build.sh afunix-check)" >&2; exit 2; }

exec python3 - "$checker" "$tus" "$repeat" "$jobs" <<'PY'
import json, os, re, shutil, statistics, subprocess, sys, tempfile

checker, tus, repeat, jobs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
here = os.path.join(os.getcwd(), "bench")
scratch = tempfile.mkdtemp(prefix="link-scale-")
db = os.path.join(scratch, "project")
subprocess.run([sys.executable, os.path.join(here, "synthetic_db.py"), db, "--tus", str(tus)],
               check=True, stdout=subprocess.DEVNULL)

def load():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])

def timings(stderr):
    """{phase: (wall, cpu)} and the other numbers of --timings."""
    line = next((l for l in stderr.splitlines() if l.startswith("afunix-check: timings: ")), None)
    if line is None:
        sys.exit("link-scale: no --timings line in:\n" + stderr)
    phases = {m[0]: (float(m[1]), float(m[2]))
              for m in re.findall(r"([a-z ]+) ([0-9.]+) s \(CPU ([0-9.]+) s\)", line)}
    rss = int(re.search(r"peak RSS (\d+) KiB", line)[1])
    return {k.strip(): v for k, v in phases.items()}, rss

def run(*args):
    proc = subprocess.run([checker, "--timings", "--format=json", *args], capture_output=True, text=True)
    if proc.returncode not in (0, 1):
        sys.exit(f"link-scale: afunix-check {' '.join(args)} exited {proc.returncode}:\n{proc.stderr}")
    return json.loads(proc.stdout), *timings(proc.stderr)

print(f"link-scale: {checker}; synthetic project of {tus} units (one in 20 uses sockets);"
      f" {os.cpu_count()} CPUs, load average {load()}", flush=True)

# 1. cold whole-database run
report, phases, rss = run("-p", db, f"-j{jobs}")
findings = len(report["findings"])
extract = phases["extract"]
print(f"cold run -j{jobs}: extract {extract[0]:.2f} s wall, {extract[1]:.2f} s CPU"
      f" ({extract[1] * 1000 / tus:.1f} ms CPU per unit); link {phases['link'][1] * 1000:.1f} ms CPU;"
      f" rules {phases['rules'][1] * 1000:.1f} ms CPU; peak RSS {rss / 1024:.0f} MiB; {findings} findings")

# 2. facts per unit
sizes = {"socket": [], "other": []}
with open(os.path.join(db, "afunix-facts.json")) as f:
    next(f)
    for line in f:
        unit = json.loads(line)
        kind = "socket" if any(c.get("creator") in ("socket", "accept") for c in unit.get("creates", [])) else "other"
        sizes[kind].append(len(line.rstrip("\n").encode()))
every = sizes["socket"] + sizes["other"]
def describe(values):
    return (f"mean {statistics.mean(values):.0f} B, median {statistics.median(values):.0f} B,"
            f" max {max(values)} B") if values else "none"
print(f"facts per unit ({len(every)} units, afunix-facts.json {os.path.getsize(os.path.join(db, 'afunix-facts.json'))} B):"
      f" all {describe(every)}; socket units {describe(sizes['socket'])}; others {describe(sizes['other'])}")

# 3. link from stored facts
one = os.path.join(db, "src", "unit_1.c")
read, link, rules, peaks = [], [], [], []
for _ in range(repeat):
    _, phases, rss = run("-p", db, one)
    read.append(phases["read stored facts"][1]); link.append(phases["link"][1]); rules.append(phases["rules"][1])
    peaks.append(rss)
total = [a + b + c for a, b, c in zip(read, link, rules)]
med = statistics.median
print(f"link from stored facts ({tus - 1} stored units + 1 extracted), CPU, median of {repeat}:"
      f" read {med(read) * 1000:.0f} ms, link {med(link) * 1000:.0f} ms, rules {med(rules) * 1000:.0f} ms,"
      f" total {med(total) * 1000:.0f} ms ({med(total) * 1e6 / tus:.0f} us per unit); peak RSS {med(peaks) / 1024:.0f} MiB")
verdict = "met" if med(total) < 1.0 else "NOT met"
print(f"target: the link over 1,000 units under a second: {med(total) * 1000 / tus * 1000:.0f} ms per 1,000 units, {verdict}")
print(f"load average {load()} at end")
shutil.rmtree(scratch, ignore_errors=True)
PY
