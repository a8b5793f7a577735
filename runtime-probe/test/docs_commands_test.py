#!/usr/bin/env python3
"""The probe's documents run as written: every command of every ```sh block in docs/guide-probe.md,
docs/before-you-upgrade.md and docs/kernel-report.md is executed (from a scratch directory, with
build/ and testdata/ meaning this build and this source tree) and must exit with the status its
`# exit N` comment promises (0 without one). Benchmarks and the kernel report run at test size:
the substitutions are listed below, and nothing else is changed. Also checks the generated man
page: its sections, every AFUNIX_PROBE_* variable of the guide, every option of `run --help`.

usage: docs_commands_test.py --source DIR --build DIR [--man FILE]
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

DOCS = ["docs/guide-probe.md", "docs/before-you-upgrade.md", "docs/kernel-report.md"]

# (pattern, replacement): test size for what would take minutes or load the machine.
TEST_SIZE = [
    (r"^afunix-probe kernel(?! --compare)(?!.*--quick)", "afunix-probe kernel --quick"),
    (r"(bench gc.*)--inflight \d+", r"\1--inflight 2000"),
    (r"^(afunix-probe bench gc)(?!.*--inflight)", r"\1 --inflight 2000"),
    (r"^(afunix-probe bench gc.*?)(\s*$|\s*#)", r"\1 --samples 64\2"),
    (r"bench hackbench -g \d+ -T -l \d+ --rounds \d+", "bench hackbench -g 1 -T -l 20 --rounds 1"),
    (r"^(afunix-probe bench meminit)(?!.*--sizes)", r"\1 --sizes 64 --seconds 0.05"),
]

FAILURES = []


def check(condition, message):
    if not condition:
        FAILURES.append(message)
        print("FAIL:", message, file=sys.stderr)


def commands(path):
    """(line number, command, expected exit status) of each command in ```sh blocks."""
    found, inside = [], False
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            stripped = line.strip()
            if stripped.startswith("```"):
                inside = stripped == "```sh" if not inside else False
                continue
            if not inside or not stripped or stripped.startswith("#"):
                continue
            status = 0
            m = re.search(r"#\s*exit (\d+)", stripped)
            if m:
                status = int(m.group(1))
            found.append((n, stripped, status))
    return found


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--source", required=True)
    parser.add_argument("--build", required=True)
    parser.add_argument("--man")
    args = parser.parse_args()
    source, build = os.path.abspath(args.source), os.path.abspath(args.build)
    work = tempfile.mkdtemp(prefix="afunix-docs-")
    env = dict(os.environ)
    env["PATH"] = os.path.join(build, "bin") + os.pathsep + env.get("PATH", "")

    # The two reports the comparison commands name: today's kernel, and an "older" one made from
    # it (listener inheritance at accept(), SO_PASSCRED accepted on inet sockets).
    today = subprocess.run(["afunix-probe", "kernel", "--quick", "--format", "json"], env=env,
                           capture_output=True, text=True)
    check(today.returncode == 0, f"afunix-probe kernel --quick: exit {today.returncode}")
    report = json.loads(today.stdout)
    open(os.path.join(work, "kernel-NEW.json"), "w").write(today.stdout)
    report["creds"]["listener_inherit"] = "accept"
    report["passcred"]["inet"] = "ok"
    json.dump(report, open(os.path.join(work, "kernel-OLD.json"), "w"))

    ran = 0
    for doc in DOCS:
        listed = commands(os.path.join(source, doc))
        check(listed, f"{doc}: no ```sh command to run")
        for line, command, status in listed:
            run = command
            for pattern, replacement in TEST_SIZE:
                run = re.sub(pattern, replacement, run)
            run = re.sub(r"(?<![\w/.-])build/", build + "/", run)
            run = re.sub(r"(?<![\w/.-])build(?=\s|$)", build, run)
            run = re.sub(r"(?<![\w/.-])testdata/", source + "/testdata/", run)
            run = run.replace("/tmp/evidence", os.path.join(work, "evidence"))
            result = subprocess.run(["/bin/sh", "-c", run], cwd=work, env=env, capture_output=True,
                                    text=True, timeout=600)
            ran += 1
            check(result.returncode == status,
                  f"{doc}:{line}: `{command}` exited {result.returncode}, the document says {status}"
                  f"\n  ran: {run}\n  stderr: {result.stderr[-1500:]}")
    check(ran >= 10, f"only {ran} documented commands found")

    if args.man:
        man = open(args.man, encoding="utf-8").read()
        for section in ("NAME", "SYNOPSIS", "DESCRIPTION", "RUN OPTIONS", "KERNEL OPTIONS", "BENCH OPTIONS",
                        "ENVIRONMENT", "EXIT STATUS", "FILES", "SEE ALSO"):
            check(f".SH {section}\n" in man, f"{args.man}: no section {section}")
        guide = open(os.path.join(source, "docs/guide-probe.md"), encoding="utf-8").read()
        for variable in sorted(set(re.findall(r"`(AFUNIX_PROBE_[A-Z_]+)`", guide))):
            check(variable in man, f"{args.man}: ENVIRONMENT lacks {variable} (documented in guide-probe.md)")
        run_help = subprocess.run(["afunix-probe", "run", "--help"], env=env, capture_output=True, text=True).stdout
        for option in sorted(set(re.findall(r"^  (--[a-z-]+)", run_help, re.M))):
            check(option.replace("-", "\\-") in man, f"{args.man}: no {option} (an option of run --help)")
        for status in ("74", "125", "126", "127"):
            check(f"\\fB{status}\\fR" in man, f"{args.man}: EXIT STATUS lacks {status}")

    shutil.rmtree(work, ignore_errors=True)
    if FAILURES:
        print(f"{len(FAILURES)} failure(s)", file=sys.stderr)
        return 1
    print(f"docs: {ran} documented commands ran as documented")
    return 0


if __name__ == "__main__":
    sys.exit(main())
