#!/usr/bin/env python3
"""Fix-its end to end on copies of the testdata files that have them.

For each testdata pos_ file whose findings carry fix-its: apply them to a copy with `--fix`, and
to a second copy with `--export-fixes` + clang-apply-replacements-19. Both copies must come out
byte-identical, still compile (clang-19 -fsyntax-only), and a re-run must report exactly the
findings that had no fix-it: the fixed ones are gone and nothing new appears.

usage: fixes_test.py --checker BIN --clang BIN --apply-replacements BIN
"""
import argparse
import collections
import os
import shutil
import subprocess
import sys
import tempfile

import afunix_testlib as lib


def messages(report, path):
    return collections.Counter((f["rule"], f["message"]) for f in report["findings"]
                               if f["file"] == path)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--checker", required=True)
    parser.add_argument("--clang", required=True)
    parser.add_argument("--apply-replacements", required=True)
    args = parser.parse_args()
    args.checker = os.path.abspath(args.checker)

    fixed_files = fixed_findings = 0
    # Which files have fix-its: one afunix-check run per (options, arguments) group.
    groups = collections.defaultdict(list)
    for sample in lib.samples("*/pos_*"):
        groups[(tuple(sample.options), tuple(sample.args))].append(sample)
    with_fixes = []
    for (options, cargs), group in groups.items():
        # Unrelated testdata programs: each file on its own.
        _, report = lib.run_check(args.checker, [s.path for s in group], list(cargs), list(options),
                                  ["--single-tu"])
        for sample in group:
            fixable = [f for f in report["findings"] if f["fixes"] and f["file"] == sample.path]
            if fixable:
                with_fixes.append((sample, fixable))
    with tempfile.TemporaryDirectory(prefix="afunix-fixes-") as tmp:
        for sample, fixable in with_fixes:
            name = os.path.basename(sample.path)
            copies = {}
            for way in ("fix", "export"):
                os.makedirs(os.path.join(tmp, way, "fixes"), exist_ok=True)
                copies[way] = os.path.join(tmp, way, name)
                shutil.copy(sample.path, copies[way])
            _, before = lib.run_check(args.checker, [copies["fix"]], sample.args, sample.options)
            assert len([f for f in before["findings"] if f["fixes"]]) == len(fixable)

            lib.run_check(args.checker, [copies["fix"]], sample.args, sample.options, ["--fix"])
            lib.run_check(args.checker, [copies["export"]], sample.args, sample.options,
                          [f"--export-fixes={os.path.join(tmp, 'export', 'fixes', 'f.yaml')}"])
            subprocess.run([args.apply_replacements, os.path.join(tmp, "export", "fixes")],
                           check=True)
            fixed = open(copies["fix"]).read()
            assert fixed != open(sample.path).read(), f"{name}: --fix changed nothing"
            assert fixed == open(copies["export"]).read(), (
                f"{name}: --fix and clang-apply-replacements disagree:\n--- fix\n{fixed}\n"
                f"--- export\n{open(copies['export']).read()}")
            compiled = subprocess.run([args.clang, "-x", "c++" if sample.is_cxx else "c",
                                       "-fsyntax-only", *sample.args, copies["fix"]],
                                      capture_output=True, text=True)
            assert compiled.returncode == 0, f"{name}: the fixed file does not compile:\n{compiled.stderr}\n{fixed}"

            _, after = lib.run_check(args.checker, [copies["fix"]], sample.args, sample.options)
            unfixable = collections.Counter((f["rule"], f["message"]) for f in before["findings"]
                                            if not f["fixes"])
            left = messages(after, copies["fix"])
            assert left == unfixable, (f"{name}: after the fix afunix-check reports "
                                       f"{sorted(left.elements())}, expected only the unfixable "
                                       f"{sorted(unfixable.elements())}\n{fixed}")
            print(f"{name}: {len(fixable)} fix-it(s) applied both ways, file compiles, "
                  f"{sum(left.values())} unfixable finding(s) left")
            fixed_files += 1
            fixed_findings += len(fixable)
            for way in copies:
                shutil.rmtree(os.path.join(tmp, way))
    assert fixed_files, "no testdata finding carries a fix-it"
    print(f"{fixed_files} files, {fixed_findings} fix-its verified")


if __name__ == "__main__":
    try:
        main()
    except AssertionError as e:
        print(f"FAIL: {e}", file=sys.stderr)
        sys.exit(1)
