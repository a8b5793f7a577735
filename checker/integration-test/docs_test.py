#!/usr/bin/env python3
"""docs/ agrees with the tools and with itself.

- every relative link in README.md and docs/**/*.md resolves in the source tree;
- guide-cli.md's option table and afunix-check --help list the same options, and its exit status
  and environment tables name what --help names;
- guide-sarif.md's validation command runs as written on a real SARIF log;
- guarantees.md names only tests that exist (ctest -N).

usage: docs_test.py --checker BIN --build DIR
"""
import argparse
import glob
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

import afunix_testlib as lib

DOCS = os.path.join(lib.REPO, "docs")


def links():
    pages = [os.path.join(lib.REPO, "README.md")] + \
        glob.glob(os.path.join(DOCS, "**", "*.md"), recursive=True)
    broken, count = [], 0
    for page in pages:
        text = re.sub(r"```.*?```", "", open(page, encoding="utf-8").read(), flags=re.S)
        text = re.sub(r"`[^`\n]*`", "", text)  # links inside code are examples
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue
            count += 1
            path = os.path.normpath(os.path.join(os.path.dirname(page), target.split("#")[0]))
            if not os.path.exists(path):
                broken.append(f"{os.path.relpath(page, lib.REPO)} -> {target}")
    assert not broken, f"broken links: {broken}"
    print(f"{len(pages)} pages, {count} relative links, all resolve")


def cli_guide(checker):
    help_text = subprocess.run([checker, "--help"], capture_output=True, text=True,
                               check=True).stdout
    guide = open(os.path.join(DOCS, "guide-cli.md")).read()
    section = guide[guide.index("## Options"):guide.index("## Suppressing")]
    in_guide = set(re.findall(r"`(--[a-z][a-z-]*)", section))
    in_help = set(re.findall(r"^    (?:-\w, )?(--[a-z][a-z-]*)", help_text, re.M)) | \
        set(re.findall(r"^    --[a-z-]+, (--[a-z][a-z-]*)", help_text, re.M))
    assert in_help == in_guide, (f"--help only: {sorted(in_help - in_guide)}; "
                                 f"guide-cli.md only: {sorted(in_guide - in_help)}")
    statuses = set(re.findall(r"^    (\d)   ", help_text, re.M))
    table = guide[guide.index("## Exit status"):guide.index("## Environment")]
    assert statuses == set(re.findall(r"^\| (\d) \|", table, re.M)), (statuses, table)
    env_help = help_text[help_text.index("ENVIRONMENT"):help_text.index("SEE ALSO")]
    env_guide = guide[guide.index("## Environment"):guide.index("## Compile database tips")]
    variables = set(re.findall(r"^    ([A-Z][A-Z_]+)$", env_help, re.M))
    assert variables and variables == set(re.findall(r"^\| `([A-Z_]+)` \|", env_guide, re.M)), variables
    print(f"guide-cli.md and --help: the same {len(in_help)} options, exit statuses "
          f"{sorted(statuses)}, variables {sorted(variables)}")


def sarif_guide(checker):
    guide = open(os.path.join(DOCS, "guide-sarif.md")).read()
    commands = re.findall(r"^    (python3 checker/integration-test/validate_sarif\.py \\\n.*)$",
                          guide, re.M)
    assert len(commands) == 1, commands
    command = commands[0].replace("\\\n", " ")
    # The log as the guide's first command makes it: with the published pages' URL.
    (docs_url,) = re.findall(r"^    afunix-check -p build --format=sarif [^\n]*\\\n\s+--docs-url=(\S+)",
                             guide, re.M)
    sample = lib.implemented_samples(checker)[0]
    with tempfile.TemporaryDirectory() as tmp:
        log = subprocess.run([checker, "--format=sarif", f"--sarif-root={lib.REPO}",
                              f"--docs-url={docs_url}", sample.path, "--", *sample.args],
                             capture_output=True, text=True, cwd=lib.REPO)
        with open(os.path.join(tmp, "afunix-check.sarif"), "w") as f:
            f.write(log.stdout)
        argv = [os.path.join(tmp, a) if a == "afunix-check.sarif" else a for a in shlex.split(command)]
        proc = subprocess.run(argv, cwd=lib.REPO, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        print("guide-sarif.md's schema validation command passes on a real log")
        # Microsoft's validator, with the guide's own command line, in a shell as a user types it.
        (multitool,) = re.findall(r"^    (sarif-multitool validate .*)$", guide, re.M)
        if shutil.which("sarif-multitool"):
            proc = subprocess.run(["bash", "-c", multitool], cwd=tmp, capture_output=True, text=True,
                                  timeout=300)
            out = os.path.join(tmp, "validation.sarif")
            assert proc.returncode == 0 and os.path.exists(out), proc.stdout + proc.stderr
            results = json.load(open(out, encoding="utf-8-sig"))["runs"][0].get("results", [])
            problems = [r for r in results if r.get("level", "warning") in ("error", "warning")]
            assert not problems, problems
            print("guide-sarif.md's sarif-multitool command runs as written: no error, no warning")
        else:
            print("sarif-multitool is not installed: its command was not run", file=sys.stderr)


def guarantees(build):
    text = open(os.path.join(DOCS, "guarantees.md")).read()
    named = set(re.findall(r"`((?:cli|integration|engine)[./][\w.*/-]+)`", text))
    tests = subprocess.run(["ctest", "-N"], cwd=build, capture_output=True, text=True,
                           check=True).stdout
    existing = set(re.findall(r"Test +#\d+: (\S+)", tests))
    missing = []
    for name in named:
        pattern = "^" + re.escape(name).replace(r"\*", ".*") + ("" if "*" in name else "$")
        if not any(re.match(pattern, t) for t in existing):
            missing.append(name)
    assert named and not missing, f"guarantees.md names tests that do not exist: {sorted(missing)}"
    print(f"guarantees.md: the {len(named)} tests it names exist")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--checker", required=True)
    parser.add_argument("--build", required=True)
    args = parser.parse_args()
    links()
    cli_guide(os.path.abspath(args.checker))
    sarif_guide(os.path.abspath(args.checker))
    guarantees(args.build)


if __name__ == "__main__":
    try:
        main()
    except AssertionError as e:
        print(f"FAIL: {e}", file=sys.stderr)
        sys.exit(1)
