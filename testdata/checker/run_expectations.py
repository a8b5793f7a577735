#!/usr/bin/env python3
"""Runs afunix-check on a testdata file or project and compares its findings with the expectations.

Usage: run_expectations.py [--checker PATH] FILE
       run_expectations.py [--checker PATH] --project DIR

The format (testdata/README.md): `// EXPECT: rule[:COLUMN][, rule...]` at the end of each line where
a finding must start (at that column when one is given), `// EXPECT-NOTE: text` where some finding
must carry a note containing text, `// EXPECT-MESSAGE: text` (on an EXPECT line) for text the
finding's message must contain, `// EXPECT-SEVERITY: error|warning|note` (on an EXPECT line), `// EXPECT-FIXED: text` for a line the file must contain, in this
order, once every fix-it of the run is applied (a file that gets fix-its must pin them all this
way), and an optional header of `// OPTIONS: ...` (afunix-check options, paths relative to the
repository root) and `// ARGS: ...` (compiler arguments; default -std=gnu11 for C, -std=c++17 for
C++).

A project (testdata/checker/projects/NAME/) is several sources and headers with the same markers
in any of them, service files (systemd *.socket units, Android init *.rc files, in any
subdirectory) whose `#` comment lines carry markers for the next line that is not a comment, and
a project.yaml (options, args, pkg_config: [packages whose --cflags are added], sources, single_tu_findings, prefilter_skips: [the sources the
prefilter must skip], and targets: {source: program}, the program each source is built into,
written as meson's "output"). The runner copies the project into a
scratch directory (its own source tree, as a real project is), writes a compile_commands.json
beside it and runs `afunix-check -p` over it, and again with --no-prefilter when the prefilter
skipped a file, which must find the same; with `single_tu_findings: N` it also checks that --single-tu finds exactly N.

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
MARKER = re.compile(r"\b(EXPECT(?:-NOTE|-MESSAGE|-FIXED|-SEVERITY)?):")
SOURCE_SUFFIXES = (".c", ".cc", ".cpp")
HEADER_SUFFIXES = (".h", ".hh", ".hpp")
# Files whose comments are whole lines starting with '#' or ';' (no comment can follow a setting).
SERVICE_SUFFIXES = (".socket", ".socket.in", ".service", ".service.in", ".conf", ".rc")


def marker_line(lines, number, path):
    """The line a marker on line `number` is about: itself, or in a service file, where a comment
    cannot follow a setting, the next line after the comment that is not a comment or blank."""
    if not path.endswith(SERVICE_SUFFIXES) or not lines[number - 1].strip().startswith(("#", ";")):
        return number
    for later in range(number + 1, len(lines) + 1):
        stripped = lines[later - 1].strip()
        if stripped and not stripped.startswith(("#", ";")):
            return later
    return number


def parse_expectations(path):
    """Returns (options, args, expected Counter of (line, rule), messages, notes, columns, fixed)."""
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
    columns = []   # (line, rule, column)
    severities = []  # (line, severity)
    fixed = []     # line texts the fixed file must contain, in order
    for marked, text in enumerate(lines, start=1):
        number = marker_line(lines, marked, path)
        found = list(MARKER.finditer(text))
        for i, match in enumerate(found):
            end = found[i + 1].start() if i + 1 < len(found) else len(text)
            value = text[match.end():end].strip()
            if value.endswith("//"):
                value = value[:-2].rstrip()
            kind = match.group(1)
            if kind == "EXPECT":
                for rule in value.split(","):
                    rule, _, column = rule.strip().partition(":")
                    if rule:
                        expected[(number, rule)] += 1
                        if column:
                            columns.append((number, rule, int(column)))
            elif kind == "EXPECT-MESSAGE":
                messages.append((number, value))
            elif kind == "EXPECT-SEVERITY":
                severities.append((number, value))
            elif kind == "EXPECT-FIXED":
                fixed.append(text[match.end():].strip())
                break  # the rest of the line is the expected text, markers and all
            else:
                notes.append((number, value))
    return options, args, expected, messages, notes, columns, fixed, severities


def default_args(path):
    return ["-std=c++17"] if path.endswith((".cc", ".cpp", ".cxx")) else ["-std=gnu11"]


def apply_fixes(text, edits):
    """`text` with `edits` (offset, length, replacement; byte offsets) applied back to front."""
    data = text.encode()
    for offset, length, replacement in sorted(set(edits), reverse=True):
        data = data[:offset] + replacement.encode() + data[offset + length:]
    return data.decode()


def compare(path, report, expectations, display):
    """Problems between the findings in `path` and its expectations."""
    _, _, expected, messages, notes, columns, fixed, severities = expectations
    name = display
    findings = [f for f in report["findings"] if f["file"] == path]
    actual = collections.Counter((f["line"], f["rule"]) for f in findings)
    problems = []
    for (line, rule), count in sorted((expected - actual).items()):
        problems.append(f"{name}:{line}: missing finding {rule}" + (f" (x{count})" if count > 1 else ""))
    for (line, rule), count in sorted((actual - expected).items()):
        got = [f for f in findings if f["line"] == line and f["rule"] == rule]
        problems.append(f"{name}:{line}: unexpected finding {rule}: {got[0]['message']}")
    for line, rule, column in columns:
        got = sorted(f["column"] for f in findings if f["line"] == line and f["rule"] == rule)
        if got and column not in got:
            problems.append(f"{name}:{line}: {rule} at column {got}, expected column {column}")
    for line, text in messages:
        on_line = [f for f in findings if f["line"] == line]
        if not any(text in f["message"] for f in on_line):
            got = "; ".join(f["message"] for f in on_line) or "no finding on this line"
            problems.append(f"{name}:{line}: no finding whose message contains '{text}' (got: {got})")
    for line, severity in severities:
        got = sorted({f["severity"] for f in findings if f["line"] == line})
        if got != [severity]:
            problems.append(f"{name}:{line}: severity {got}, expected {severity}")
    for line, text in notes:
        carried = [n for f in report["findings"] for n in f["notes"]
                   if n["file"] == path and n["line"] == line]
        if not any(text in n["message"] for n in carried):
            got = "; ".join(n["message"] for n in carried) or "no note on this line"
            problems.append(f"{name}:{line}: no note containing '{text}' (got: {got})")
    # Fix-its: every edit of the run into this file, applied; the EXPECT-FIXED lines pin them.
    edits = [(e["offset"], e["length"], e["text"]) for f in report["findings"] for e in f["fixes"]
             if e["file"] == path]
    if edits and not fixed:
        problems.append(f"{name}: the run has fix-its for this file; pin them with EXPECT-FIXED")
    if fixed:
        with open(path, encoding="utf-8") as f:
            result = apply_fixes(f.read(), edits).split("\n")
        at = 0
        for want in fixed:
            while at < len(result) and result[at].strip() != want:
                at += 1
            if at == len(result):
                problems.append(f"{name}: after the fix-its, no line '{want}' (in order); fixed file:\n"
                                + "\n".join("    | " + l for l in result))
                break
            at += 1
    return problems


def run_checker(command, cwd):
    proc = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    shown = " ".join(shlex.quote(c) for c in command)
    if proc.returncode not in (0, 1):
        return None, shown, f"afunix-check failed with exit status {proc.returncode}:\n  {shown}\n{proc.stderr}"
    try:
        return json.loads(proc.stdout), shown, None
    except json.JSONDecodeError as e:
        return None, shown, f"afunix-check printed no valid JSON ({e}):\n{proc.stdout[:2000]}"


def project_sources(directory, config):
    listed = config.get("sources")
    if listed:
        return [os.path.join(directory, s) for s in listed]
    return sorted(os.path.join(directory, f) for f in os.listdir(directory)
                  if f.endswith(SOURCE_SUFFIXES))


def project_files(directory):
    """Every file of the project that may carry markers, in subdirectories too."""
    out = []
    for root, _, names in os.walk(directory):
        for name in names:
            if name.endswith(SOURCE_SUFFIXES + HEADER_SUFFIXES + SERVICE_SUFFIXES):
                out.append(os.path.join(root, name))
    return sorted(out)


def run_project(checker, directory):
    import shutil
    import tempfile
    import yaml
    original = os.path.abspath(directory)
    with tempfile.TemporaryDirectory(prefix="afunix-project-") as scratch:
        # A copy: the project is its own source tree, not a corner of this repository's.
        directory = os.path.join(scratch, os.path.basename(original))
        shutil.copytree(original, directory)
        return run_project_in(checker, directory, original)


def project_args(config):
    """The compiler arguments a project.yaml adds: its `args`, then the `pkg-config --cflags` of each
    package in `pkg_config` (as a project's build gets a library's headers). RuntimeError when
    pkg-config cannot give them."""
    extra = list(config.get("args", []))
    for package in config.get("pkg_config", []):
        try:
            cflags = subprocess.run(["pkg-config", "--cflags", package], capture_output=True, text=True, check=True)
        except (OSError, subprocess.CalledProcessError) as e:
            raise RuntimeError(f"pkg-config --cflags {package} failed ({e}); install its -dev package "
                               "(scripts/setup.sh)") from e
        extra += shlex.split(cflags.stdout)
    return extra


def run_project_in(checker, directory, original):
    import tempfile
    import yaml
    config_path = os.path.join(directory, "project.yaml")
    config = {}
    if os.path.exists(config_path):
        with open(config_path, encoding="utf-8") as f:
            config = yaml.safe_load(f) or {}
    options = list(config.get("options", []))
    try:
        extra = project_args(config)
    except RuntimeError as e:
        print(f"{original}: {e}", file=sys.stderr)
        return 2
    sources = project_sources(directory, config)
    files = project_files(directory)
    expectations = {path: parse_expectations(path) for path in files}
    if not any(e[2] for e in expectations.values()) and not os.path.basename(directory).startswith("neg_"):
        print(f"{original}: a project needs EXPECT markers (or a neg_ name)", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="afunix-project-") as build:
        targets = config.get("targets", {})  # source -> the program it is built into
        database = [{"directory": directory, "file": src,
                     "arguments": ["cc", *default_args(src), f"-I{directory}", *extra, "-c", src]}
                    for src in sources]
        for entry in database:
            target = targets.get(os.path.relpath(entry["file"], directory))
            if target:  # as meson writes it: the object in <target>.p/
                entry["output"] = f"{target}.p/{os.path.basename(entry['file'])}.o"
        with open(os.path.join(build, "compile_commands.json"), "w") as f:
            json.dump(database, f)
        report, shown, error = run_checker(
            [checker, "--format=json", "--quiet", *options, "-p", build], directory)
        if error:
            print(error, file=sys.stderr)
            return 1
        problems = []
        for path in files:
            problems += compare(path, report, expectations[path], os.path.relpath(path, directory))
        stray = [f for f in report["findings"] if f["file"] not in expectations]
        for f in stray:
            problems.append(f"unexpected finding outside the project: {f['file']}:{f['line']} {f['rule']}")
        if report["summary"]["parse_errors"]:
            problems.append(f"clang could not parse: {report.get('unparsed')}")
        if not os.path.isfile(os.path.join(build, "afunix-facts.json")):
            problems.append("the whole-program run left no afunix-facts.json in the build directory")
        # The prefilter (docs/prefilter.md) skips files that cannot change the findings: a
        # project where it skipped some is also run with --no-prefilter, and the findings must be
        # the same. (Where it skipped none, both runs link the same units.)
        if report["skipped"]:
            unfiltered, _, error = run_checker(
                [checker, "--format=json", "--quiet", "--no-prefilter", *options, "-p", build], directory)
            if error:
                problems.append(error)
            elif unfiltered["findings"] != report["findings"]:
                problems.append("the findings differ with --no-prefilter: "
                                + json.dumps(unfiltered["findings"])[:1500])
            elif unfiltered["skipped"]:
                problems.append(f"--no-prefilter skipped {unfiltered['skipped']}")
        want_skipped = sorted(os.path.join(directory, f) for f in config.get("prefilter_skips", []))
        if "prefilter_skips" in config and sorted(report["skipped"]) != want_skipped:
            problems.append(f"the prefilter skipped {report['skipped']}, project.yaml says {want_skipped}")
        if "single_tu_findings" in config:
            single, _, error = run_checker(
                [checker, "--format=json", "--quiet", "--single-tu", *options, "-p", build], directory)
            if error:
                problems.append(error)
            elif len(single["findings"]) != config["single_tu_findings"]:
                problems.append(f"--single-tu found {len(single['findings'])}, project.yaml says "
                                f"{config['single_tu_findings']}: "
                                + "; ".join(f"{os.path.basename(f['file'])}:{f['line']} {f['rule']}"
                                            for f in single["findings"]))
    name = os.path.basename(directory)
    if problems:
        print(f"FAIL {original}\n  (run on a copy in {directory})\n  command: {shown}", file=sys.stderr)
        for p in problems:
            print("  " + p, file=sys.stderr)
        return 1
    total = sum(sum(e[2].values()) for e in expectations.values())
    print(f"PASS {name}: {total} finding(s) across {len(sources)} TU(s) as expected")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--checker", default=os.environ.get(
        "AFUNIX_CHECK", os.path.join(REPO, "build", "bin", "afunix-check")))
    parser.add_argument("--project", action="store_true", help="FILE is a project directory")
    parser.add_argument("file")
    opts = parser.parse_args()
    if not os.path.isfile(opts.checker):
        print(f"cannot run: {opts.checker} does not exist (build afunix-check)", file=sys.stderr)
        return 2
    if opts.project:
        return run_project(opts.checker, opts.file)
    path = os.path.abspath(opts.file)
    expectations = parse_expectations(path)
    options, args, expected, messages, notes = expectations[:5]
    name = os.path.basename(path)
    if name.startswith("pos_") and not expected:
        print(f"{path}: a pos_ file needs at least one EXPECT marker", file=sys.stderr)
        return 1
    if name.startswith("neg_") and expected:
        print(f"{path}: a neg_ file must not carry EXPECT markers", file=sys.stderr)
        return 1
    command = [opts.checker, "--format=json", "--quiet", *options, path, "--",
               *(args if args is not None else default_args(path))]
    report, shown, error = run_checker(command, REPO)
    if error:
        print(error, file=sys.stderr)
        return 1
    problems = compare(path, report, expectations, name)
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
