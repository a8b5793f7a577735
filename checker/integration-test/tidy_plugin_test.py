#!/usr/bin/env python3
"""The clang-tidy plugin under the real clang-tidy-19.

1. `--load=libafunix-tidy.so --list-checks` lists exactly the checks afunix-check has (a missing
   or mismatched plugin silently lists none).
2. On every testdata file, clang-tidy's afunix findings (rule, file, line) are afunix-check's,
   with the file's afunix-check options given as `.clang-tidy` CheckOptions.
3. CheckOptions reach the checks: a file whose findings depend on an option gives afunix-check's
   answer both with and without it.
4. One severity per rule, in the same runs: with the WarningsAsErrors line the guides give (it must name exactly the
   catalog's `error` rules), clang-tidy reports each finding at its rule's severity, except a
   `note`, which clang-tidy cannot express and shows as a warning, and a variant with a severity
   of its own, shown at its rule's level (as guide-clang-tidy.md says).

usage: tidy_plugin_test.py --clang-tidy BIN --plugin SO --checker BIN
"""
import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile

import afunix_testlib as lib

DIAG = re.compile(r"^(.*?):(\d+):(\d+): (warning|error): (.*) \[([\w,.-]+)\]$")


def write_config(workdir, check_options, errors):
    config = os.path.join(workdir, ".clang-tidy")
    with open(config, "w") as f:
        f.write("Checks: '-*,afunix-*'\n")
        f.write("WarningsAsErrors: '" + ",".join(sorted(errors)) + "'\n")
        f.write("CheckOptions:\n")
        for key, value in sorted(check_options.items()):
            f.write(f"  {key}: '{value}'\n")
    return config


def tidy_findings(tidy, plugin, paths, args, config, workdir):
    """clang-tidy's afunix findings as a Counter of (rule, file, line, level)."""
    command = [tidy, f"--load={plugin}", f"--config-file={config}", "--quiet", *paths,
               "--", *args]
    proc = subprocess.run(command, capture_output=True, text=True, cwd=workdir)
    # A plugin that fails to load is only a message on stderr; clang-tidy goes on without it.
    assert "load request ignored" not in proc.stderr, proc.stderr
    found = collections.Counter()
    for line in proc.stdout.splitlines():
        m = DIAG.match(line)
        # clang-tidy names a promoted warning "rule,-warnings-as-errors".
        if m and m.group(6).startswith("afunix-"):
            found[(m.group(6).split(",")[0], os.path.abspath(m.group(1)), int(m.group(2)),
                   m.group(4))] += 1
    if proc.returncode != 0 and "error:" in proc.stdout + proc.stderr and not found:
        raise AssertionError(f"clang-tidy failed on {paths}:\n{proc.stdout}{proc.stderr}")
    return found


def documented_warnings_as_errors():
    """The WarningsAsErrors value of every guide that gives one."""
    found = {}
    for guide in ("guide-clang-tidy.md", "guide-editors.md"):
        text = open(os.path.join(lib.REPO, "docs", guide)).read()
        m = re.search(r"WarningsAsErrors: '([^']*)'", text)
        assert m, f"docs/{guide} gives no WarningsAsErrors line"
        found[guide] = set(m.group(1).split(","))
    return found


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--clang-tidy", required=True)
    parser.add_argument("--plugin", required=True)
    parser.add_argument("--checker", required=True)
    args = parser.parse_args()
    args.checker = os.path.abspath(args.checker)
    args.plugin = os.path.abspath(args.plugin)

    assert os.path.isfile(args.plugin), f"{args.plugin} does not exist"
    proc = subprocess.run([args.clang_tidy, f"--load={args.plugin}", "--checks=-*,afunix-*",
                           "--list-checks"], capture_output=True, text=True)
    listed = {l.strip() for l in proc.stdout.splitlines() if l.strip().startswith("afunix-")}
    assert listed, f"clang-tidy --load={args.plugin} lists no afunix check:\n{proc.stdout}{proc.stderr}"
    rules = subprocess.run([args.checker, "--list-rules"], capture_output=True, text=True,
                           check=True).stdout.splitlines()
    have = {r.split()[0] for r in rules if r.strip() and "no static check" not in r}
    assert have, "afunix-check has no static check at all"
    assert listed == have, f"clang-tidy --load lists {sorted(listed)}, afunix-check has {sorted(have)}"
    print(f"--list-checks: {len(listed)} afunix checks, the same as afunix-check's")

    catalog = {r.split()[0]: r.split()[1] for r in rules if r.strip()}
    errors = {rule for rule, severity in catalog.items() if severity == "error"}
    for guide, listed in documented_warnings_as_errors().items():
        assert listed == errors, \
            f"docs/{guide}: WarningsAsErrors {sorted(listed)} != catalog errors {sorted(errors)}"

    compared = findings = 0
    option_files = 0
    levels = collections.Counter()
    variant_levels = set()
    # One afunix-check and one clang-tidy run per (options, arguments) group of files.
    groups = collections.defaultdict(list)
    for sample in lib.samples():
        if lib.check_options(sample.options) is None:
            print(f"skip {sample.path}: options {sample.options} have no CheckOptions form")
            continue
        groups[(tuple(sample.options), tuple(sample.args))].append(sample.path)
    with tempfile.TemporaryDirectory(prefix="afunix-tidy-") as workdir:
        def compare(paths, options, cargs, what):
            opts = lib.check_options(options)
            # The plugin sees one TU at a time: compare with afunix-check's per-file mode.
            _, report = lib.run_check(args.checker, paths, cargs, options, ["--single-tu"])
            # The guides' WarningsAsErrors line: clang-tidy can only promote a whole check, so a
            # variant with a severity of its own (a credential check that fails closed is a
            # warning) shows at its rule's level there, and a `note` shows as a warning.
            want = collections.Counter(
                (f["rule"], f["file"], f["line"], "error" if f["rule"] in errors else "warning")
                for f in report["findings"])
            variant_levels.update((f["rule"], f["severity"]) for f in report["findings"]
                                  if f["severity"] != catalog[f["rule"]])
            config = write_config(workdir, opts, errors)
            got = tidy_findings(args.clang_tidy, args.plugin, paths, cargs, config, workdir)
            for path in paths:
                mine = collections.Counter({k: n for k, n in got.items() if k[1] == path})
                theirs = collections.Counter({k: n for k, n in want.items() if k[1] == path})
                assert mine == theirs, (f"{path}{what}: clang-tidy {sorted(mine.elements())} != "
                                        f"afunix-check {sorted(theirs.elements())} "
                                        f"(CheckOptions {opts}, WarningsAsErrors)")
            levels.update(level for (_, _, _, level), n in want.items() for _ in range(n))
            return sum(want.values())

        for (options, cargs), paths in sorted(groups.items()):
            findings += compare(paths, list(options), list(cargs), "")
            compared += len(paths)
            if options:
                # The same files without their options: both tools must change (or not) together.
                option_files += len(paths)
                compare(paths, [], list(cargs), " without options")
    assert compared and findings, "no testdata file with findings was compared"
    assert levels["error"] and levels["warning"], levels
    guide = open(os.path.join(lib.REPO, "docs", "guide-clang-tidy.md")).read()
    for rule, level in sorted(variant_levels):
        assert rule in guide and "fails closed" in guide, \
            f"{rule} has {level} variants: docs/guide-clang-tidy.md must say how they show there"
    print(f"{compared} testdata files, {findings} findings: clang-tidy plugin == afunix-check, "
          f"each at afunix-check's severity with the guides' WarningsAsErrors "
          f"({len(errors)} error rules; {dict(levels)}); "
          f"{option_files} files also compared without their CheckOptions")

if __name__ == "__main__":
    try:
        main()
    except AssertionError as e:
        print(f"FAIL: {e}", file=sys.stderr)
        sys.exit(1)
