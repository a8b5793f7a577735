#!/usr/bin/env python3
"""Runs afunix-check on one testdata file and compares its findings with the file's expectations.

Usage: run_expectations.py [--checker PATH] FILE

The format (testdata/README.md): `// EXPECT: rule[, rule...]` at the end of each line where a
finding must start, `// EXPECT-NOTE: text` where some finding must carry a note containing text,
`// EXPECT-MESSAGE: text` (on an EXPECT line) for text the finding's message must contain, and an
optional header of `// OPTIONS: ...` (afunix-check options, paths relative to the repository root)
and `// ARGS: ...` (compiler arguments; default -std=gnu11 for C, -std=c++17 for C++).
A missing finding and an unexpected one both fail. Exit status: 0 pass, 1 fail, 2 cannot run.
"""
import argparse
import collections
import json
import os
import re
import shlex
import subprocess
import sys

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
MARKER = re.compile(r"\b(EXPECT(?:-NOTE|-MESSAGE)?):")


def parse_expectations(path):
    """Returns (options, args, expected Counter of (line, rule), messages, notes)."""
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().split("\n")
    options, args = [], None
    for text in lines:
        stripped = text.strip()
        if not stripped.startswith("//"):
            if stripped:
                break  # the header ends at the first line of code
            continue
        body = stripped[2:].strip()
        if body.startswith("OPTIONS:"):
            options += shlex.split(body[len("OPTIONS:"):])
        elif body.startswith("ARGS:"):
            args = (args or []) + shlex.split(body[len("ARGS:"):])
    expected = collections.Counter()
    messages = []  # (line, text)
    notes = []     # (line, text)
    for number, text in enumerate(lines, start=1):
        found = list(MARKER.finditer(text))
        for i, match in enumerate(found):
            end = found[i + 1].start() if i + 1 < len(found) else len(text)
            value = text[match.end():end].strip()
            if value.endswith("//"):
                value = value[:-2].rstrip()
            kind = match.group(1)
            if kind == "EXPECT":
                for rule in value.split(","):
                    if rule.strip():
                        expected[(number, rule.strip())] += 1
            elif kind == "EXPECT-MESSAGE":
                messages.append((number, value))
            else:
                notes.append((number, value))
    return options, args, expected, messages, notes


def default_args(path):
    return ["-std=c++17"] if path.endswith((".cc", ".cpp", ".cxx")) else ["-std=gnu11"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--checker", default=os.environ.get(
        "AFUNIX_CHECK", os.path.join(REPO, "build", "bin", "afunix-check")))
    parser.add_argument("file")
    opts = parser.parse_args()
    path = os.path.abspath(opts.file)
    if not os.path.isfile(opts.checker):
        print(f"cannot run: {opts.checker} does not exist (build afunix-check)", file=sys.stderr)
        return 2
    options, args, expected, messages, notes = parse_expectations(path)
    name = os.path.basename(path)
    if name.startswith("pos_") and not expected:
        print(f"{path}: a pos_ file needs at least one EXPECT marker", file=sys.stderr)
        return 1
    if name.startswith("neg_") and expected:
        print(f"{path}: a neg_ file must not carry EXPECT markers", file=sys.stderr)
        return 1
    command = [opts.checker, "--format=json", "--quiet", *options, path, "--",
               *(args if args is not None else default_args(path))]
    proc = subprocess.run(command, cwd=REPO, capture_output=True, text=True)
    shown = " ".join(shlex.quote(c) for c in command)
    if proc.returncode not in (0, 1):
        print(f"afunix-check failed with exit status {proc.returncode}:\n  {shown}\n{proc.stderr}",
              file=sys.stderr)
        return 1
    try:
        report = json.loads(proc.stdout)
    except json.JSONDecodeError as e:
        print(f"afunix-check printed no valid JSON ({e}):\n{proc.stdout[:2000]}", file=sys.stderr)
        return 1

    findings = [f for f in report["findings"] if f["file"] == path]
    actual = collections.Counter((f["line"], f["rule"]) for f in findings)
    problems = []
    for (line, rule), count in sorted((expected - actual).items()):
        problems.append(f"{name}:{line}: missing finding {rule}" + (f" (x{count})" if count > 1 else ""))
    for (line, rule), count in sorted((actual - expected).items()):
        got = [f for f in findings if f["line"] == line and f["rule"] == rule]
        problems.append(f"{name}:{line}: unexpected finding {rule}: {got[0]['message']}")
    for line, text in messages:
        on_line = [f for f in findings if f["line"] == line]
        if not any(text in f["message"] for f in on_line):
            got = "; ".join(f["message"] for f in on_line) or "no finding on this line"
            problems.append(f"{name}:{line}: no finding whose message contains '{text}' (got: {got})")
    for line, text in notes:
        carried = [n for f in findings for n in f["notes"] if n["file"] == path and n["line"] == line]
        if not any(text in n["message"] for n in carried):
            got = "; ".join(n["message"] for n in carried) or "no note on this line"
            problems.append(f"{name}:{line}: no note containing '{text}' (got: {got})")
    if report["summary"]["parse_errors"]:
        problems.append(f"{name}: clang could not parse the file: {report.get('unparsed')}")
    if problems:
        print(f"FAIL {path}\n  command: {shown}", file=sys.stderr)
        for p in problems:
            print("  " + p, file=sys.stderr)
        return 1
    print(f"PASS {name}: {sum(expected.values())} finding(s), {len(messages)} message(s), "
          f"{len(notes)} note(s) as expected")
    return 0


if __name__ == "__main__":
    sys.exit(main())
