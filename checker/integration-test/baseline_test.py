#!/usr/bin/env python3
"""Baselines end to end through afunix-check.

A baseline written for file A hides A's findings; after lines are inserted above them they stay
hidden; file B's findings (new code) still show and decide the exit status. A missing or broken
baseline is an input error (exit 2) that names the file.

usage: baseline_test.py --checker BIN
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

import afunix_testlib as lib


def pick_pair(checker):
    plain = [s for s in lib.implemented_samples(checker) if not s.options and not s.is_cxx
             and s.args == ["-std=gnu11"] and s.expected]
    for a in plain:
        for b in plain:
            if os.path.dirname(a.path) != os.path.dirname(b.path):
                return a, b
    raise AssertionError("need two plain C pos_ files of different rules")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--checker", required=True)
    args = parser.parse_args()
    args.checker = os.path.abspath(args.checker)
    a, b = pick_pair(args.checker)
    with tempfile.TemporaryDirectory(prefix="afunix-baseline-") as tmp:
        file_a, file_b = os.path.join(tmp, "a.c"), os.path.join(tmp, "b.c")
        shutil.copy(a.path, file_a)
        shutil.copy(b.path, file_b)
        base = os.path.join(tmp, "baseline.json")
        root = [f"--sarif-root={tmp}"]
        check = lambda files, extra=(), expect=(0, 1): lib.run_check(
            args.checker, files, a.args, root, extra, cwd=tmp, expect=expect)

        status, first = check([file_a])
        count_a = len(first["findings"])
        assert status == 1 and count_a == sum(a.expected.values()), (status, first)
        status, _ = check([file_a], [f"--write-baseline={base}"], expect=(0,))
        entries = json.load(open(base))["findings"]
        assert len(entries) == count_a and all(e["file"] == "a.c" for e in entries), entries

        status, report = check([file_a], [f"--baseline={base}"], expect=(0,))
        assert report["findings"] == [], report
        print(f"{os.path.basename(a.path)}: {count_a} finding(s) recorded and hidden")

        text = open(file_a).read()
        with open(file_a, "w") as f:
            f.write("// a comment\n" * 7 + text)
        _, moved = check([file_a])
        assert sorted(f["line"] for f in moved["findings"]) == \
            sorted(f["line"] + 7 for f in first["findings"]), "the findings did not move"
        status, report = check([file_a], [f"--baseline={base}"], expect=(0,))
        assert report["findings"] == [], f"moved findings resurfaced: {report['findings']}"
        print("7 lines inserted above: still hidden")

        status, report = check([file_a, file_b], [f"--baseline={base}"], expect=(1,))
        shown = {(f["file"], f["rule"], f["line"]) for f in report["findings"]}
        want = {(file_b, rule, line) for (line, rule) in b.expected}
        assert shown == want, f"shown {sorted(shown)}, expected B's {sorted(want)}"
        print(f"new code ({os.path.basename(b.path)}): its {len(shown)} finding(s) show, exit 1")

        for content, why in (("{\"afunixBaseline\": 1, \"findings\": [", "truncated JSON"),
                             ("{\"findings\": []}", "no format version"), (None, "missing file")):
            bad = os.path.join(tmp, "bad.json")
            if os.path.exists(bad):
                os.remove(bad)
            if content is not None:
                open(bad, "w").write(content)
            proc = subprocess.run([args.checker, f"--baseline={bad}", file_a, "--", *a.args],
                                  capture_output=True, text=True, cwd=tmp)
            assert proc.returncode == 2 and bad in proc.stderr, (
                f"{why}: exit {proc.returncode}, stderr {proc.stderr!r}")
            print(f"{why}: exit 2, {proc.stderr.strip().splitlines()[0]}")


if __name__ == "__main__":
    try:
        main()
    except AssertionError as e:
        print(f"FAIL: {e}", file=sys.stderr)
        sys.exit(1)
