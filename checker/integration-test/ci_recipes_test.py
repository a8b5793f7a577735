#!/usr/bin/env python3
"""The CI recipes of docs/guide-ci.md, as far as this machine can run them.

- the GitHub Actions workflow and the GitLab job parse as YAML and hold the parts that matter;
- sarif2codequality.py turns real afunix-check SARIF into GitLab Code Quality issues;
- the workflow and the GitLab job install afunix-check with exactly the recipe's lines;
- the shell pre-commit hook, installed in a scratch git repository, refuses a commit of a file
  with a finding and lets a clean one through; with a .afunix-check.yaml that makes the rule a
  note, the hook and the workflow's own afunix-check step (run as written) both pass: they read
  the same configuration;
- the pre-commit framework config parses.

usage: ci_recipes_test.py --checker BIN POS_FILE NEG_FILE
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

import afunix_testlib as lib

GUIDE = os.path.join(lib.REPO, "docs", "guide-ci.md")


def blocks(language):
    text = open(GUIDE).read()
    return re.findall(r"^```" + language + r"\n(.*?)^```", text, re.M | re.S)


def recipe(name):
    """The code block right after `<!-- recipe: NAME -->`."""
    text = open(GUIDE).read()
    m = re.search(r"<!-- recipe: " + re.escape(name) + r" -->\n```\w*\n(.*?)^```", text, re.M | re.S)
    assert m, f"guide-ci.md has no recipe {name}"
    return m.group(1)


def git(repo, *args, check=True):
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@t")
    return subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True, env=env,
                          check=check)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--checker", required=True)
    parser.add_argument("pos")
    parser.add_argument("neg")
    args = parser.parse_args()
    checker = os.path.abspath(args.checker)

    github, gitlab, precommit = (yaml.safe_load(b) for b in blocks("yaml"))
    job = github["jobs"]["afunix-check"]
    assert github["permissions"]["security-events"] == "write"
    upload = [s for s in job["steps"] if str(s.get("uses", "")).startswith(
        "github/codeql-action/upload-sarif@")]
    assert upload and upload[0]["with"]["sarif_file"] == "afunix-check.sarif", job["steps"]
    run_step = "\n".join(s.get("run", "") for s in job["steps"])
    assert "--format=sarif" in run_step and "-p build" in run_step and "--sarif-root" in run_step
    gl = gitlab["afunix-check"]
    assert gl["artifacts"]["reports"]["codequality"] == "gl-code-quality-report.json"
    assert "afunix-check.sarif" in gl["artifacts"]["paths"]
    assert any("--format=sarif" in line for line in gl["script"])
    install = [l for l in recipe("install-afunix-check").splitlines() if "cmake --install" in l]
    assert len(install) == 2, install
    gl_install = " ".join(gitlab["afunix-check"]["before_script"])
    for line in install:
        assert line in run_step, f"the workflow does not install with {line!r}"
        assert line in gl_install, f"the GitLab job does not install with {line!r}"
    assert "cmake --install build --prefix" not in run_step + gl_install
    hook_cfg = precommit["repos"][0]["hooks"][0]
    assert hook_cfg["entry"].startswith("afunix-check") and hook_cfg["language"] == "system"
    print("workflow, GitLab job and pre-commit config parse and hold the upload/report steps")

    pos, neg = lib.Sample(args.pos), lib.Sample(args.neg)
    with tempfile.TemporaryDirectory(prefix="afunix-ci-") as tmp:
        (converter,) = blocks("python")
        conv = os.path.join(tmp, "sarif2codequality.py")
        open(conv, "w").write(converter)
        sarif = subprocess.run([checker, "--format=sarif", f"--sarif-root={lib.REPO}", pos.path,
                                "--", *pos.args], capture_output=True, text=True, cwd=lib.REPO)
        assert sarif.returncode == 1, sarif.stderr
        open(os.path.join(tmp, "a.sarif"), "w").write(sarif.stdout)
        out = subprocess.run([sys.executable, conv, os.path.join(tmp, "a.sarif")],
                             capture_output=True, text=True, check=True).stdout
        issues = json.loads(out)
        assert len(issues) == sum(pos.expected.values()), issues
        rel = os.path.relpath(pos.path, lib.REPO)
        for issue in issues:
            assert issue["location"]["path"] == rel and issue["fingerprint"], issue
            assert issue["severity"] in ("info", "minor", "major", "critical", "blocker"), issue
            assert (issue["location"]["lines"]["begin"], issue["check_name"]) in pos.expected
        print(f"sarif2codequality.py: {len(issues)} Code Quality issue(s) from real SARIF")

        # The shell hook in a scratch repository, afunix-check on PATH as the hook expects.
        repo = os.path.join(tmp, "repo")
        os.makedirs(repo)
        git(repo, "init", "-q")
        hook = recipe("pre-commit-hook")
        hook_path = os.path.join(repo, ".git", "hooks", "pre-commit")
        open(hook_path, "w").write(hook)
        os.chmod(hook_path, 0o755)
        bindir = os.path.join(tmp, "bin")
        os.makedirs(bindir)
        # Compiler arguments come from a compile database, as in a real project.
        database = []
        for sample, name in ((neg, "clean.c"), (pos, "bad.c")):
            shutil.copy(sample.path, os.path.join(repo, name))
            database.append({"directory": repo, "file": os.path.join(repo, name),
                             "arguments": ["cc", *sample.args, "-c", name]})
        os.makedirs(os.path.join(repo, "build"))
        json.dump(database, open(os.path.join(repo, "build", "compile_commands.json"), "w"))
        os.symlink(checker, os.path.join(bindir, "afunix-check"))
        env_path = bindir + os.pathsep + os.environ["PATH"]
        commit = lambda: subprocess.run(["git", "-C", repo, "commit", "-q", "-m", "x"],
                                        capture_output=True, text=True,
                                        env=dict(os.environ, PATH=env_path, GIT_AUTHOR_NAME="t",
                                                 GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t",
                                                 GIT_COMMITTER_EMAIL="t@t"))
        git(repo, "add", "clean.c")
        done = commit()
        assert done.returncode == 0, f"clean commit refused: {done.stderr}"
        git(repo, "add", "bad.c")
        refused = commit()
        assert refused.returncode != 0 and "afunix-check found problems" in refused.stderr, refused
        assert git(repo, "diff", "--cached", "--name-only").stdout.strip() == "bad.c"
        print("pre-commit hook: clean file committed, file with findings refused")

        # The workflow's afunix-check step, as written, in the same repository.
        (step,) = [s["run"] for s in job["steps"] if s.get("name") == "afunix-check"]
        def ci():
            return subprocess.run(["bash", "-e", "-c", step], cwd=repo, capture_output=True,
                                  text=True, env=dict(os.environ, PATH=env_path,
                                                      GITHUB_WORKSPACE=repo))
        result = ci()
        assert result.returncode == 0 and "exit status: 1" in result.stdout, result
        results = json.load(open(os.path.join(repo, "afunix-check.sarif")))["runs"][0]["results"]
        assert results and all(r["level"] != "note" for r in results), results
        # The project makes every rule of bad.c a note: the hook lets the commit through and the
        # CI step's afunix-check passes too (exit 0), from the same .afunix-check.yaml.
        rules = sorted({rule for _, rule in pos.expected})
        with open(os.path.join(repo, ".afunix-check.yaml"), "w") as f:
            f.write("severity:\n" + "".join(f"  {r}: note\n" for r in rules))
        git(repo, "add", ".afunix-check.yaml")
        done = commit()
        assert done.returncode == 0, f"commit refused although the findings are notes: {done.stderr}"
        result = ci()
        assert "exit status: 0" in result.stdout, result
        results = json.load(open(os.path.join(repo, "afunix-check.sarif")))["runs"][0]["results"]
        assert results and all(r["level"] == "note" for r in results), results
        print("hook and CI step agree: with the rule configured as a note both pass, and the "
              "SARIF still carries the findings as notes")


if __name__ == "__main__":
    try:
        main()
    except AssertionError as e:
        print(f"FAIL: {e}", file=sys.stderr)
        sys.exit(1)
