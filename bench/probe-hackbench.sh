#!/usr/bin/env bash
# What libafunix-probe.so costs on the seed's benchmark, `hackbench -T -g 20 -l 2000` (800 threads,
# 16,000,000 AF_UNIX writes), as ratios against unprobed runs made in the same invocation:
#   - wall time, counting only (AFUNIX_PROBE_TIMING=0) and with latency histograms (default);
#     runs are interleaved (plain, counting, timing, plain, ...) and medians compared.
#     Target: <= 1.05 with timing on.
#     CPU time (user+system of the whole run, from wait4) is compared the same way: on a machine
#     shared with other work it moves far less than wall time.
#   - memory: max RSS with and without the probe. Target: < 2 MiB more at 800 threads.
#   - what findings cost: testdata/probe/fd_flood (every fd-carrying send past 2024 in flight is
#     a finding) run plain, probed, and probed with AFUNIX_PROBE_STACKS=0 (call sites only), with
#     the capture time the probe itself measured (capture_ns, stacks_captured in its report).
# Every probed run's report must count exactly the writes and reads hackbench makes.
#
#   bench/probe-hackbench.sh [--groups N] [--loops N] [--runs N] [--flood-runs N]
#                                                     (defaults 20, 2000, 5, 200)
set -euo pipefail
cd "$(dirname "$0")/.."
groups=20 loops=2000 runs=5 flood_runs=200
while (($#)); do
  case "$1" in
    --groups) groups="$2"; shift 2 ;;
    --loops) loops="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --flood-runs) flood_runs="$2"; shift 2 ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    *) echo "probe-hackbench: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
library="${AFUNIX_PROBE_LIBRARY:-build/lib/libafunix-probe.so}"
hackbench="${HACKBENCH:-$(command -v hackbench || true)}"
[ -f "$library" ] || { echo "probe-hackbench: $library not built (scripts/build.sh afunix-probe-preload)" >&2; exit 2; }
[ -n "$hackbench" ] || { echo "probe-hackbench: hackbench not found (Debian package rt-tests)" >&2; exit 2; }

flood="${AFUNIX_PROBE_FLOOD:-build/testdata/probe/fd_flood}"
[ -x "$flood" ] || { echo "probe-hackbench: $flood not built (scripts/build.sh probe_testdata)" >&2; exit 2; }
exec python3 - "$(realpath "$library")" "$hackbench" "$groups" "$loops" "$runs" "$(realpath "$flood")" "$flood_runs" <<'PY'
import glob, json, os, statistics, subprocess, sys, tempfile, time

library, hackbench, groups, loops, runs = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
flood, flood_runs = sys.argv[6], int(sys.argv[7])
argv = [hackbench, "-T", "-g", str(groups), "-l", str(loops)]
messages = groups * 20 * 20 * loops
# rt-tests hackbench: the messages, one "ready" byte per task (read back by main), one wake-up write.
want_writes, want_reads = messages + groups * 40 + 1, messages + groups * 40

def once(mode):
    env = dict(os.environ)
    report_dir = None
    if mode != "plain":
        report_dir = tempfile.mkdtemp(prefix="afunix-probe-bench.")
        env.update(LD_PRELOAD=library, AFUNIX_PROBE_DIR=report_dir,
                   AFUNIX_PROBE_TIMING="0" if mode == "counting" else "1")
    start = time.monotonic()
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - start
    cpu = usage.ru_utime + usage.ru_stime
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"probe-hackbench: {' '.join(argv)} failed ({mode}): {err.decode()}")
    reported = None
    if report_dir:
        files = glob.glob(report_dir + "/afunix-probe.*.json")
        if len(files) != 1:
            sys.exit(f"probe-hackbench: expected one report in {report_dir}, found {len(files)}")
        with open(files[0]) as f:
            reported = json.load(f)["counters"]
        for name in files:
            os.unlink(name)
        os.rmdir(report_dir)
    return wall, cpu, reported

def max_rss_kib(mode):
    """max RSS of one run, from GNU time (KiB)."""
    env = dict(os.environ)
    report_dir = tempfile.mkdtemp(prefix="afunix-probe-bench.")
    if mode != "plain":
        env.update(LD_PRELOAD=library, AFUNIX_PROBE_DIR=report_dir,
                   AFUNIX_PROBE_TIMING="0" if mode == "counting" else "1")
    proc = subprocess.run(["/usr/bin/time", "-f", "%M"] + argv, env=env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    for name in glob.glob(report_dir + "/*"):
        os.unlink(name)
    os.rmdir(report_dir)
    return int(proc.stderr.strip().splitlines()[-1])

modes = ["plain", "counting", "timing"]
walls = {m: [] for m in modes}
cpus = {m: [] for m in modes}
print(f"probe-hackbench: {' '.join(argv)}: {want_writes} writes, {want_reads} reads per run; {runs} interleaved rounds")
for r in range(runs):
    for m in (modes if r % 2 == 0 else list(reversed(modes))):
        wall, cpu, counters = once(m)
        walls[m].append(wall)
        cpus[m].append(cpu)
        note = ""
        if counters is not None:
            ok = counters["write_calls"] == want_writes and counters["read_calls"] == want_reads
            note = f"  writes {counters['write_calls']} reads {counters['read_calls']} {'exact' if ok else 'MISMATCH'}"
            if not ok:
                print(f"round {r + 1} {m:8s} {wall:7.3f} s{note}")
                sys.exit("probe-hackbench: the probe lost or invented calls")
        print(f"round {r + 1} {m:8s} {wall:7.3f} s (cpu {cpu:7.3f} s){note}", flush=True)

plain = statistics.median(walls["plain"])
plain_cpu = statistics.median(cpus["plain"])
for m in ("counting", "timing"):
    print(f"{m:8s} median {statistics.median(walls[m]):.3f} s vs plain {plain:.3f} s: ratio "
          f"{statistics.median(walls[m]) / plain:.3f}; CPU {statistics.median(cpus[m]):.3f} s vs "
          f"{plain_cpu:.3f} s: ratio {statistics.median(cpus[m]) / plain_cpu:.3f} (target <= 1.05 with timing)")
rss = {m: max_rss_kib(m) for m in modes}
for m in ("counting", "timing"):
    print(f"{m:8s} max RSS {rss[m]} KiB vs plain {rss['plain']} KiB: +{(rss[m] - rss['plain']) / 1024:.2f} MiB "
          f"(target < 2 MiB)")

# What findings cost: fd_flood, probed with and without stack capture, interleaved.
def flood_once(mode):
    env = dict(os.environ)
    report_dir = None
    if mode != "plain":
        report_dir = tempfile.mkdtemp(prefix="afunix-probe-bench.")
        env.update(LD_PRELOAD=library, AFUNIX_PROBE_DIR=report_dir, AFUNIX_PROBE_SLOW_NS="60000000000",
                   AFUNIX_PROBE_STACKS="0" if mode == "sites-only" else "1")
    start = time.monotonic()
    proc = subprocess.Popen([flood], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - start
    report = None
    if report_dir:
        files = glob.glob(report_dir + "/afunix-probe.*.json")
        with open(files[0]) as f:
            report = json.load(f)
        for name in files:
            os.unlink(name)
        os.rmdir(report_dir)
    return wall, usage.ru_utime + usage.ru_stime, report

flood_modes = ["plain", "stacks", "sites-only"]
flood_wall = {m: [] for m in flood_modes}
flood_cpu = {m: [] for m in flood_modes}
captures, capture_ns, occurrences = [], [], []
for r in range(flood_runs):
    for m in flood_modes:
        wall, cpu, report = flood_once(m)
        flood_wall[m].append(wall)
        flood_cpu[m].append(cpu)
        if m == "stacks":
            captures.append(report["counters"]["stacks_captured"])
            capture_ns.append(report["counters"]["capture_ns"])
            occurrences.append(sum(f["count"] for f in report["findings"]))
med = {m: statistics.median(flood_wall[m]) * 1e6 for m in flood_modes}
med_cpu = {m: statistics.median(flood_cpu[m]) * 1e6 for m in flood_modes}
per_capture = statistics.median(capture_ns) / max(1, statistics.median(captures)) / 1000
print(f"findings-heavy: {flood} x{flood_runs} (each run: {statistics.median(occurrences):.0f} finding occurrences, "
      f"{statistics.median(captures):.0f} first occurrence(s) with a stack)")
print(f"  capture cost measured by the probe: {statistics.median(capture_ns) / 1000:.1f} us per run, "
      f"{per_capture:.1f} us per captured stack (unwind, modules, build-ids, socket identity)")
print(f"  median wall per run: plain {med['plain']:.0f} us, probed {med['stacks']:.0f} us, probed without "
      f"stacks {med['sites-only']:.0f} us; CPU: plain {med_cpu['plain']:.0f} us, probed {med_cpu['stacks']:.0f} us, "
      f"without stacks {med_cpu['sites-only']:.0f} us")
print(f"  stacks vs sites only: {med['stacks'] - med['sites-only']:+.0f} us wall, "
      f"{med_cpu['stacks'] - med_cpu['sites-only']:+.0f} us CPU per run")
PY
