#!/usr/bin/env python3
"""Whether the prefilter changes any finding, and what it saves (docs/prefilter.md).

    bench/prefilter-equivalence.py [--checker PATH] [-j N] [--timeout S] [--json FILE] --root DIR
    bench/prefilter-equivalence.py [--checker PATH] ... NAME=DIR[:DB] ...
    bench/prefilter-equivalence.py --warm ...

For each database (with --root: every directory under DIR holding a compile database, as
bench/corpus.py finds them) afunix-check runs cold twice in one invocation, with the prefilter and
with --no-prefilter (no facts cache, no stored facts, the same -j), and the two JSON findings lists
are compared whole (rule, place, message, notes, fix-its). Printed per database: files, files the
prefilter skipped, the CPU seconds (user + sys) of both runs and their ratio, and "same" or the
first difference.

With --warm, the two runs are instead a cold run on an empty facts cache and a warm run on the
cache it left, nothing changed between them (after the cache's 3 s racy margin, so the files'
stamps count): the warm run takes from the cache what the prefilter derived (facts-cache.md,
"Derived results"), and its findings, skipped files and unparsed files must be the cold run's.

Exit status: 0 when every database gave the same findings both ways, 1 when one differed, 2 when
the script could not run (a checker failed, no database).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from corpus import DB_SUBDIRS, UsageError, children_cpu, find_database  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(checker, db, extra, jobs, timeout, cache=None):
    argv = [checker, "-p", db, "--format=json", f"-j{jobs}",
            f"--cache-dir={cache}" if cache else "--no-cache", "--no-store-facts", "--quiet", *extra]
    cpu_before = children_cpu()
    start = time.monotonic()
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout} s"}
    cpu = children_cpu() - cpu_before
    if proc.returncode not in (0, 1, 3):
        return {"error": f"exit status {proc.returncode}: {proc.stderr.strip()[-500:]}"}
    try:
        out = json.loads(proc.stdout)
    except ValueError:
        return {"error": "output is not JSON"}
    return {
        "findings": out["findings"],
        "lists": [out.get("skipped"), out.get("unparsed")],
        "files": out["summary"]["files"],
        "skipped": out["summary"].get("skipped", 0),
        "cpu": cpu,
        "wall": time.monotonic() - start,
    }


def first_difference(a, b):
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return f"finding {i}: {json.dumps(x)[:300]} vs {json.dumps(y)[:300]}"
    return f"{len(a)} findings vs {len(b)}"


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--checker", default=os.path.join(REPO, "build", "bin", "afunix-check"))
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=1800)
    ap.add_argument("--root")
    ap.add_argument("--json")
    ap.add_argument("--warm", action="store_true",
                    help="cold on an empty facts cache vs warm on the cache it left")
    ap.add_argument("databases", nargs="*", help="NAME=DIR[:DB]")
    args = ap.parse_args(argv)
    if not os.access(args.checker, os.X_OK):
        print(f"prefilter-equivalence: {args.checker} is not an executable", file=sys.stderr)
        return 2
    requests = []
    for spec in args.databases:
        name, _, rest = spec.partition("=")
        src, _, db = rest.partition(":")
        requests.append((name, src, db or None))
    if args.root:
        for name in sorted(os.listdir(args.root)):
            d = os.path.join(args.root, name)
            if os.path.isdir(d) and any(os.path.isfile(os.path.join(d, s, "compile_commands.json"))
                                        for s in DB_SUBDIRS):
                requests.append((name, d, None))
    if not requests:
        print("prefilter-equivalence: no database (NAME=DIR ... or --root DIR)", file=sys.stderr)
        return 2
    rows, differ, failed = [], False, False
    first, second = ("CPU warm", "cold") if args.warm else ("CPU filtered", "CPU all")
    print(f"{'database':<26} {'files':>6} {'skipped':>8} {first:>13} {second:>9} {'ratio':>6}  findings")
    for name, src, dbdir in requests:
        try:
            db = find_database(src, dbdir)
        except UsageError as e:
            print(f"{name:<26} {e}")
            failed = True
            continue
        if args.warm:
            cache = tempfile.mkdtemp(prefix="afunix-warm-equivalence-")
            try:
                # The warm run second: "filtered" is the run whose cost is the ratio's numerator.
                unfiltered = run(args.checker, db, [], args.jobs, args.timeout, cache)
                time.sleep(3.2)  # the cache's racy margin: the stamps taken now count
                filtered = run(args.checker, db, [], args.jobs, args.timeout, cache)
            finally:
                shutil.rmtree(cache, ignore_errors=True)
        else:
            filtered = run(args.checker, db, [], args.jobs, args.timeout)
            unfiltered = run(args.checker, db, ["--no-prefilter"], args.jobs, args.timeout)
        row = {"name": name, "db": db, "filtered": filtered, "unfiltered": unfiltered}
        if "error" in filtered or "error" in unfiltered:
            failed = True
            verdict = "could not run: " + (filtered.get("error") or unfiltered.get("error"))
        else:
            same = filtered["findings"] == unfiltered["findings"] and \
                (not args.warm or filtered["lists"] == unfiltered["lists"])
            differ |= not same
            verdict = f"same ({len(filtered['findings'])})" if same else \
                "DIFFER: " + (first_difference(filtered["findings"], unfiltered["findings"])
                              if filtered["findings"] != unfiltered["findings"]
                              else "the skipped or unparsed files")
            row["same"] = same
            print(f"{name:<26} {filtered['files']:>6} {filtered['skipped']:>8} "
                  f"{filtered['cpu']:>12.1f}s {unfiltered['cpu']:>8.1f}s "
                  f"{filtered['cpu'] / max(unfiltered['cpu'], 1e-9):>6.2f}  {verdict}", flush=True)
        if "error" in filtered or "error" in unfiltered:
            print(f"{name:<26} {verdict}", flush=True)
        for r in (filtered, unfiltered):
            r.pop("findings", None)
            r.pop("lists", None)
        rows.append(row)
    ok = [r for r in rows if "same" in r]
    if ok:
        cpu_f = sum(r["filtered"]["cpu"] for r in ok)
        cpu_u = sum(r["unfiltered"]["cpu"] for r in ok)
        files = sum(r["filtered"]["files"] for r in ok)
        skipped = sum(r["filtered"]["skipped"] for r in ok)
        print(f"{'total':<26} {files:>6} {skipped:>8} {cpu_f:>12.1f}s {cpu_u:>8.1f}s "
              f"{cpu_f / max(cpu_u, 1e-9):>6.2f}  {sum(r['same'] for r in ok)} of {len(ok)} the same")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 2 if failed else 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
