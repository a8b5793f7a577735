#!/usr/bin/env python3
"""docs/guide-ci.md's install recipe, run (issue 13: it failed when only afunix-check was built).

The recipe's lines, in order:
- `scripts/setup.sh`: not run here (it installs packages; scripts/test.sh ran it before the suite);
- `scripts/build.sh afunix-check`: run as written, in the checkout (nothing to do when built);
- each `cmake --install build --component ... --prefix /usr/local`: run as written, except that
  `build` is a tree holding the build's install scripts and only the files the afunix-check link
  step writes (build.ninja says which), as if nothing else had been built, and the prefix is a
  scratch directory.
Then the installed afunix-check checks a testdata file, its man page is installed, its SARIF
links the installed rule pages (which exist), and a plain `cmake --install` of the same tree
fails: the failure the components fix.

usage: install_recipe_test.py --build DIR SAMPLE.c
"""
import argparse
import collections
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

import afunix_testlib as lib

GUIDE = os.path.join(lib.REPO, "docs", "guide-ci.md")


def recipe_lines():
    text = open(GUIDE).read()
    m = re.search(r"<!-- recipe: install-afunix-check -->\n```\w*\n(.*?)^```", text, re.M | re.S)
    assert m, "guide-ci.md has no install-afunix-check recipe"
    return [l.strip() for l in m.group(1).splitlines() if l.strip()]


def link_outputs(build, target_file):
    """Every file the build edge that links `target_file` writes (the binary and its byproducts)."""
    with open(os.path.join(build, "build.ninja")) as f:
        for line in f:
            if not line.startswith("build "):
                continue
            outputs = line[len("build "):].split(":", 1)[0]
            explicit, _, implicit = outputs.partition(" | ")
            names = explicit.split() + implicit.split()
            if target_file in names:
                return [n.replace("${cmake_ninja_workdir}", "") for n in names]
    raise AssertionError(f"build.ninja has no edge writing {target_file}")


def only_afunix_check(build, tree):
    """`tree`: the build's install scripts (paths moved to `tree`) and afunix-check's outputs."""
    build = os.path.realpath(build)
    for root, _, files in os.walk(build):
        if "cmake_install.cmake" in files:
            rel = os.path.relpath(root, build)
            os.makedirs(os.path.join(tree, rel), exist_ok=True)
            text = open(os.path.join(root, "cmake_install.cmake")).read()
            with open(os.path.join(tree, rel, "cmake_install.cmake"), "w") as f:
                f.write(text.replace(build, tree))
    built = link_outputs(build, "bin/afunix-check")
    for name in built:
        os.makedirs(os.path.dirname(os.path.join(tree, name)), exist_ok=True)
        shutil.copy2(os.path.join(build, name), os.path.join(tree, name))
    return built


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", required=True)
    parser.add_argument("sample")
    args = parser.parse_args()
    sample = lib.Sample(args.sample)
    lines = recipe_lines()
    assert lines[0] == "scripts/setup.sh" and lines[1] == "scripts/build.sh afunix-check", lines
    installs = lines[2:]
    assert installs and all(l.startswith("cmake --install build ") for l in installs), installs

    proc = subprocess.run(shlex.split(lines[1]), cwd=lib.REPO, capture_output=True, text=True,
                          env=dict(os.environ, AFUNIX_BUILD_JOBS="2"))
    assert proc.returncode == 0, f"{lines[1]}: {proc.stdout}{proc.stderr}"
    print(f"ran: {lines[1]}")

    with tempfile.TemporaryDirectory(prefix="afunix-recipe-") as tmp:
        tree = os.path.join(tmp, "build")
        built = only_afunix_check(args.build, tree)
        print(f"a build tree where only afunix-check was built: {', '.join(built)}")
        prefix = os.path.join(tmp, "usr", "local")
        for line in installs:
            argv = [tree if a == "build" else prefix if a == "/usr/local" else a
                    for a in shlex.split(line)]
            proc = subprocess.run(argv, capture_output=True, text=True)
            assert proc.returncode == 0, f"{line}: {proc.stdout}{proc.stderr}"
            print(f"ran: {line}")

        check = os.path.join(prefix, "bin", "afunix-check")
        status, report = lib.run_check(check, [sample.path], sample.args, sample.options)
        got = collections.Counter((f["line"], f["rule"]) for f in report["findings"])
        assert status == 1 and got == sample.expected, (status, sorted(got), sorted(sample.expected))
        man = os.path.join(prefix, "share", "man", "man1", "afunix-check.1")
        assert os.path.isfile(man), "afunix-check.1 was not installed"
        clean = {k: v for k, v in os.environ.items() if k != "AFUNIX_DOCS_URL"}
        sarif = subprocess.run([check, "--format=sarif", sample.path, "--", *sample.args],
                               capture_output=True, text=True, env=clean)
        rules = json.loads(sarif.stdout)["runs"][0]["tool"]["driver"]["rules"]
        # No URL configured: no link at all (a file:// one would be dead in code scanning).
        assert "file://" + prefix not in sarif.stdout and all("helpUri" not in r for r in rules)
        docs = os.path.join(prefix, "share", "doc", "afunix-compat")
        sarif = subprocess.run([check, "--format=sarif", f"--docs-url=file://{docs}", sample.path,
                                "--", *sample.args], capture_output=True, text=True, env=clean)
        rules = json.loads(sarif.stdout)["runs"][0]["tool"]["driver"]["rules"]
        for rule in rules:
            want = f"file://{docs}/rules/{rule['id']}.md"
            assert rule.get("helpUri") == want, (rule.get("helpUri"), want)
            assert os.path.isfile(want[len("file://"):]), want
        print(f"installed afunix-check: {sum(got.values())} finding(s) on "
              f"{os.path.basename(sample.path)}, man page installed, the pages of all "
              f"{len(rules)} rules installed (SARIF links them when --docs-url names them)")

        # Without components the same tree cannot be installed: what users hit before.
        proc = subprocess.run(["cmake", "--install", tree, "--prefix", os.path.join(tmp, "all")],
                              capture_output=True, text=True)
        assert proc.returncode != 0 and "cannot find" in proc.stderr, proc
        print("a plain `cmake --install` of that tree fails (cannot find the tools not built)")


if __name__ == "__main__":
    try:
        main()
    except AssertionError as e:
        print(f"FAIL: {e}", file=sys.stderr)
        sys.exit(1)
