#!/usr/bin/env python3
"""The CodeChecker route of docs/guide-ci.md, as far as this machine can go.

CodeChecker is neither a Debian bookworm package nor an npm package (only PyPI has it, which this
machine cannot reach), so its `report-converter -t clang-tidy` is not run here. What it reads is:
the console output of clang-tidy, which this test makes with the plugin exactly as the guide's
commands do, and parses with the same line patterns and the same order of reading as
report-converter's clang-tidy parser (codechecker_report_converter/analyzers/clang_tidy/parser.py:
a "file:line:col: warning|error: message [checker]" line starts a report, an optional source line
and caret line follow, then fix-it lines, then "file:line:col: note: ..." lines, each with its
source and caret lines, become the report's bug path). Every afunix finding must come out as one
report with its rule, place, level (the guide's WarningsAsErrors gives the catalog's errors as
errors) and notes; afunix-check's own text output reads the same way, except findings at level
note, which that parser does not take. The guide's CodeChecker labels (severity and doc_url per
checker) must be exactly the catalog's.

usage: codechecker_test.py --clang-tidy BIN --plugin SO --checker BIN
"""
import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile

import yaml

import afunix_testlib as lib

GUIDE = os.path.join(lib.REPO, "docs", "guide-ci.md")
# report-converter's clang-tidy patterns.
MESSAGE = re.compile(r"^(?P<path>[\S ]+?):(?P<line>\d+?):(?P<column>\d+?): "
                     r"(?P<severity>(error|warning)):(?P<message>[\S \t]+)\s*\[(?P<checker>.*)\]")
NOTE = re.compile(r"^(?P<path>[\S ]+?):(?P<line>\d+?):(?P<column>\d+?): note:(?P<message>.*)")
FIXIT_NEW = re.compile(r"^\s*\d*\s*\|\s*(?P<message>\S.*)")
FIXIT_OLD = re.compile(r"^\s+(?P<message>\S.*)")


def convert(text):
    """Reports as report-converter's clang-tidy parser makes them: checker, file, line, column,
    severity (of the line), notes [(file, line, message)]."""
    lines = iter(text.splitlines())
    reports = []

    def parse_code(line):
        if NOTE.match(line) or MESSAGE.match(line):
            return line
        line = next(lines)
        if "^" not in line:
            return line
        return next(lines)

    line = next(lines, None)
    while line is not None:
        m = MESSAGE.match(line)
        if not m:
            line = next(lines, None)
            continue
        report = {"checker": m.group("checker").split(",")[0].strip(), "file": m.group("path"),
                  "line": int(m.group("line")), "column": int(m.group("column")),
                  "severity": m.group("severity"), "notes": []}
        reports.append(report)
        try:
            line = parse_code(next(lines))
            while not MESSAGE.match(line) and not NOTE.match(line):  # fix-it lines
                # report-converter takes any other line here for a fix-it and fails on one that
                # is not (AttributeError on a None match): so does this.
                assert FIXIT_NEW.match(line) or FIXIT_OLD.match(line), \
                    f"report-converter would stop at {line!r} after {report}"
                line = next(lines)
            while not MESSAGE.match(line):
                n = NOTE.match(line)
                if not n:
                    line = next(lines)
                    break
                report["notes"].append((n.group("path"), int(n.group("line")), n.group("message").strip()))
                line = parse_code(next(lines))
        except StopIteration:
            line = None
    return reports


def guide_labels():
    """The guide's CodeChecker labels block: {checker: [label, ...]}."""
    text = open(GUIDE).read()
    m = re.search(r"<!-- codechecker-labels -->\n```json\n(.*?)^```", text, re.M | re.S)
    assert m, "guide-ci.md has no CodeChecker labels block"
    return json.loads(m.group(1))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--clang-tidy", required=True)
    parser.add_argument("--plugin", required=True)
    parser.add_argument("--checker", required=True)
    args = parser.parse_args()
    checker = os.path.abspath(args.checker)

    catalog = {}
    for rule in lib.implemented_rules(checker):
        catalog[rule] = yaml.safe_load(open(os.path.join(lib.REPO, "rules", rule + ".yaml")))
    errors = sorted(r for r, c in catalog.items() if c["severity"] == "error")

    # The labels: severity from the catalog, doc_url the published page.
    labels = guide_labels()
    text = open(GUIDE).read()
    (base,) = set(re.findall(r"^  AFUNIX_DOCS_URL: (\S+)", text, re.M))
    levels = {"error": "HIGH", "warning": "MEDIUM", "note": "LOW"}
    want = {r: [f"severity:{levels[c['severity']]}", f"doc_url:{base}/rules/{r}.md"]
            for r, c in sorted(catalog.items())}
    assert labels == want, f"guide-ci.md's CodeChecker labels {labels} != the catalog's {want}"
    print(f"the guide's CodeChecker labels: {len(labels)} checkers, the catalog's severities, "
          f"the published pages")

    reports = tidy_reports = 0
    with tempfile.TemporaryDirectory(prefix="afunix-codechecker-") as tmp:
        config = os.path.join(tmp, ".clang-tidy")
        with open(config, "w") as f:
            f.write("Checks: '-*,afunix-*'\nWarningsAsErrors: '" + ",".join(errors) + "'\n")
        # The files with findings: a file without any gives clang-tidy nothing to print, and
        # tidy_plugin_test.py already runs clang-tidy on every file. One run of each tool per
        # group of files with the same compiler arguments: report-converter reads the
        # concatenated output the same way, report by report.
        groups = collections.defaultdict(list)
        for sample in lib.implemented_samples(checker):
            if sample.options or not os.path.basename(sample.path).startswith("pos_"):
                continue
            groups[tuple(sample.args)].append(sample.path)
        for cargs, paths in sorted(groups.items()):
            _, report = lib.run_check(checker, paths, list(cargs), [], ["--single-tu"])
            proc = subprocess.run([args.clang_tidy, f"--load={os.path.abspath(args.plugin)}",
                                   f"--config-file={config}", *paths, "--", *cargs],
                                  capture_output=True, text=True, cwd=tmp)
            from_tidy = convert(proc.stdout)
            # afunix-check's own text, read the same way: every finding but those at level note.
            # (Redirected, as the guide's command is: no source lines, as --show-source=never.)
            proc = subprocess.run([checker, "--single-tu", *paths, "--", *cargs],
                                  capture_output=True, text=True, cwd=lib.REPO)
            from_text = convert(proc.stdout)
            for path in paths:
                findings = [f for f in report["findings"] if f["file"] == path]
                want = sorted((f["rule"], f["line"], f["column"],
                               "error" if f["rule"] in errors else "warning", len(f["notes"]))
                              for f in findings)
                got = sorted((r["checker"], r["line"], r["column"], r["severity"], len(r["notes"]))
                             for r in from_tidy
                             if r["checker"].startswith("afunix-") and os.path.abspath(r["file"]) == path)
                assert got == want, f"{path}: read from clang-tidy {got}, afunix-check {want}"
                tidy_reports += len(got)
                mine = sorted((r["checker"], r["line"], r["column"], len(r["notes"]))
                              for r in from_text if os.path.abspath(os.path.join(lib.REPO, r["file"])) == path)
                expected = sorted((f["rule"], f["line"], f["column"], len(f["notes"]))
                                  for f in findings if f["severity"] != "note")
                assert mine == expected, f"{path}: read from afunix-check {mine}, want {expected}"
                reports += len(mine)
    assert tidy_reports and reports, "no report at all"
    print(f"clang-tidy output: {tidy_reports} afunix reports as report-converter reads them "
          f"(rule, place, level, notes); afunix-check's text: {reports} (level note not read)")
    print("not run: CodeChecker itself (not packaged for Debian bookworm or npm)")


if __name__ == "__main__":
    try:
        main()
    except AssertionError as e:
        print(f"FAIL: {e}", file=sys.stderr)
        sys.exit(1)
