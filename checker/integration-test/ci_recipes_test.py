#!/usr/bin/env python3
"""The CI recipes of docs/guide-ci.md, as far as this machine can run them.

- every runner that installs a prebuilt afunix-check installs the Debian packages of the
  libraries the built afunix-check loads (its NEEDED entries), and clang's resource headers;
- the GitHub Actions workflow and the GitLab job parse as YAML and hold the parts that matter;
- sarif2codequality.py turns real afunix-check SARIF into GitLab Code Quality issues;
- the workflow and the GitLab job install afunix-check with exactly the recipe's lines;
- the shell pre-commit hook, installed in a scratch git repository, refuses a commit of a file
  with a finding and lets a clean one through; with a .afunix-check.yaml that makes the rule a
  note, the hook and the workflow's own afunix-check step (run as written) both pass: they read
  the same configuration;
- the pre-commit framework config parses;
- the sharded recipes (a GitHub Actions matrix, a GitLab `parallel:` job) parse, hold the parts
  that matter, and their afunix-check steps, run here once per slice with the values the matrix or
  `parallel:` would give and with the artifacts handed on as the runners would, produce the SARIF
  results of the one-run workflow step.

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

    runtime_packages_cover(checker)
    github, gitlab, precommit = (yaml.safe_load(b) for b in blocks("yaml")[:3])
    job = github["jobs"]["afunix-check"]
    assert github["permissions"]["security-events"] == "write"
    upload = [s for s in job["steps"] if str(s.get("uses", "")).startswith(
        "github/codeql-action/upload-sarif@")]
    assert upload and upload[0]["with"]["sarif_file"] == "afunix-check.sarif", job["steps"]
    run_step = "\n".join(s.get("run", "") for s in job["steps"])
    assert "--format=sarif" in run_step and "-p build" in run_step and "--sarif-root" in run_step
    # The published rule pages, and the history --diff-from needs.
    assert github["env"]["AFUNIX_DOCS_URL"].startswith("https://"), github["env"]
    assert '--docs-url="$AFUNIX_DOCS_URL"' in run_step, run_step
    checkout = [s for s in job["steps"] if str(s.get("uses", "")).startswith("actions/checkout@")]
    assert checkout and checkout[0].get("with", {}).get("fetch-depth") == 0, checkout
    gl = gitlab["afunix-check"]
    assert gl["artifacts"]["reports"]["codequality"] == "gl-code-quality-report.json"
    assert "afunix-check.sarif" in gl["artifacts"]["paths"]
    assert any("--format=sarif" in line for line in gl["script"])
    assert gl["variables"]["AFUNIX_DOCS_URL"].startswith("https://") and \
        any('--docs-url="$AFUNIX_DOCS_URL"' in line for line in gl["script"]), gl
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
        results = json.loads(sarif.stdout)["runs"][0]["results"]
        for issue, result in zip(issues, results):
            assert issue["location"]["path"] == rel and issue["fingerprint"], issue
            assert issue["severity"] in ("info", "minor", "major", "critical", "blocker"), issue
            assert (issue["location"]["lines"]["begin"], issue["check_name"]) in pos.expected
            # GitHub's [text](n) links become text and the line they point at: Code Quality shows
            # the description as it is.
            assert "](" not in issue["description"] and "\\[" not in issue["description"], issue
            for related in result.get("relatedLocations", []):
                line = related["physicalLocation"]["region"]["startLine"]
                assert f"{related['message']['text']} (line {line})" in issue["description"], issue
        assert any(r.get("relatedLocations") for r in results), "no related location to unlink"
        # Brackets the message itself escaped come back as they were.
        related = {"id": 1, "message": {"text": "socket created here"}, "physicalLocation": {
            "artifactLocation": {"uri": rel, "uriBaseId": "%SRCROOT%"}, "region": {"startLine": 3}}}
        made_up = {"runs": [{"results": [dict(results[0], relatedLocations=[related], message={
            "text": "buf\\[0] is \\[x\\](1) (see [socket created here](1))"})]}]}
        open(os.path.join(tmp, "b.sarif"), "w").write(json.dumps(made_up))
        (issue,) = json.loads(subprocess.run([sys.executable, conv, os.path.join(tmp, "b.sarif")],
                                             capture_output=True, text=True, check=True).stdout)
        assert issue["description"] == "buf[0] is [x](1) (see socket created here (line 3))", issue
        print(f"sarif2codequality.py: {len(issues)} Code Quality issue(s) from real SARIF, "
              f"related-location links turned into text")

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
                                                      GITHUB_WORKSPACE=repo, **github["env"]))
        result = ci()
        assert result.returncode == 0 and "exit status: 1" in result.stdout, result
        log = json.load(open(os.path.join(repo, "afunix-check.sarif")))
        results = log["runs"][0]["results"]
        assert results and all(r["level"] != "note" for r in results), results
        # Every link goes to the published pages the workflow names; none into the runner.
        for rule in log["runs"][0]["tool"]["driver"]["rules"]:
            assert rule["helpUri"] == f"{github['env']['AFUNIX_DOCS_URL']}/rules/{rule['id']}.md", rule
            assert "file://" not in json.dumps(rule), rule["id"]
        print("the workflow's afunix-check step links the published rule pages, no file://")
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

        sharded_recipes(repo, env_path, conv, github["env"])
        shallow_clone(repo, env_path, tmp)


def runtime_packages_cover(checker):
    """Each runner that installs a prebuilt afunix-check installs the Debian packages of every
    library it loads, and clang's resource headers (the base image brings the C and C++ runtime)."""
    needed = set(lib.debian_packages_loaded([checker])) - {"libc6", "libgcc-s1", "libstdc++6"}
    needed.add("libclang-common-19-dev")
    text = open(GUIDE).read().replace("\\\n", " ")  # continued lines joined
    installs = [line for line in re.findall(r"apt-get install[^\n]*", text) if "libyaml-cpp0.7" in line]
    assert len(installs) >= 4, f"guide-ci.md's runtime installs: {installs}"
    for line in installs:
        listed = set(line.split())
        assert needed <= listed, f"guide-ci.md installs {sorted(listed & needed)}, not {sorted(needed - listed)}: {line}"


def sarif_results(path):
    return json.load(open(path))["runs"][0]["results"]


def shallow_clone(repo, env_path, tmp):
    """--diff-from in a CI checkout: a shallow clone without the base says so (exit 2) and what
    to fetch; with the history (fetch-depth: 0) the same command runs."""
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-verify", "-m", "everything")
    git(repo, "branch", "-M", "main")
    git(repo, "checkout", "-q", "-b", "feature")
    with open(os.path.join(repo, "clean.c"), "a") as f:
        f.write("\nint touched(void) { return 1; }\n")
    git(repo, "commit", "-q", "--no-verify", "-am", "change")
    env = dict(os.environ, PATH=env_path)
    for depth, name in (("--depth=1", "shallow"), (None, "full")):
        clone = os.path.join(tmp, name)
        git(tmp, "clone", "-q", *([depth, "--single-branch"] if depth else []), "--branch", "feature",
            "file://" + repo, clone)
        database = json.load(open(os.path.join(repo, "build", "compile_commands.json")))
        for entry in database:
            entry["directory"] = clone
            entry["file"] = entry["file"].replace(repo, clone)
        json.dump(database, open(os.path.join(clone, "build", "compile_commands.json"), "w"))
        proc = subprocess.run(["afunix-check", "-p", "build", "--diff-from=origin/main"], cwd=clone,
                              capture_output=True, text=True, env=env)
        if depth:
            assert proc.returncode == 2, proc
            assert "shallow clone" in proc.stderr and "fetch-depth: 0" in proc.stderr and \
                "origin/main" in proc.stderr, proc.stderr
            shallow_message = proc.stderr.strip().splitlines()[0]
        else:
            assert proc.returncode in (0, 1), proc
    print(f"--diff-from in a shallow clone: exit 2, '{shallow_message[:110]}...'; in a full clone "
          "it runs")


def sharded_recipes(repo, env_path, converter, github_env):
    """The sharded GitHub and GitLab recipes: their shape, then their afunix-check steps run here."""
    os.remove(os.path.join(repo, ".afunix-check.yaml"))  # back to findings at warning level
    one = subprocess.run(["afunix-check", "-p", "build", "--format=sarif", f"--sarif-root={repo}"],
                         cwd=repo, capture_output=True, text=True, env=dict(os.environ, PATH=env_path))
    assert one.returncode == 1, one.stderr
    open(os.path.join(repo, "one.sarif"), "w").write(one.stdout)
    expected = sarif_results(os.path.join(repo, "one.sarif"))
    assert expected

    gh = yaml.safe_load(recipe("github-sharded"))
    shards = int(gh["env"]["SHARDS"])
    facts, link = gh["jobs"]["facts"], gh["jobs"]["link"]
    assert facts["strategy"]["matrix"]["shard"] == list(range(1, shards + 1)), facts["strategy"]
    assert set(link["needs"]) >= {"facts", "tool"} and facts["needs"] == "tool"
    assert gh["permissions"]["security-events"] == "write"
    step = lambda job, name: next(s for s in job["steps"] if s.get("name") == name)
    uploads = [s for s in facts["steps"] if str(s.get("uses", "")).startswith("actions/upload-artifact@")]
    assert uploads and uploads[0]["with"]["path"] == "afunix-shard", facts["steps"]
    download = [s for s in link["steps"] if str(s.get("uses", "")).startswith("actions/download-artifact@")
                and s["with"].get("pattern")]
    assert download and download[0]["with"]["merge-multiple"] is True
    assert any(str(s.get("uses", "")).startswith("github/codeql-action/upload-sarif@") for s in link["steps"])
    env = dict(os.environ, PATH=env_path, GITHUB_WORKSPACE=repo, **github_env)
    artifacts = os.path.join(repo, "gh-artifacts")
    for k in range(1, shards + 1):
        command = step(facts, "Facts of one slice")["run"]
        command = command.replace("${{ matrix.shard }}", str(k)).replace("${{ env.SHARDS }}", str(shards))
        assert "${{" not in command, command
        done = subprocess.run(["bash", "-e", "-c", command], cwd=repo, capture_output=True, text=True, env=env)
        assert done.returncode == 0, done
        # upload-artifact, then download-artifact with merge-multiple: one directory for all.
        os.makedirs(artifacts, exist_ok=True)
        for f in os.listdir(os.path.join(repo, "afunix-shard")):
            shutil.move(os.path.join(repo, "afunix-shard", f), os.path.join(artifacts, f))
        shutil.rmtree(os.path.join(repo, "afunix-shard"))
    os.rename(artifacts, os.path.join(repo, "afunix-shards"))
    done = subprocess.run(["bash", "-e", "-c", step(link, "Link")["run"]], cwd=repo, capture_output=True,
                          text=True, env=env)
    assert done.returncode == 0 and "exit status: 1" in done.stdout, done
    assert sarif_results(os.path.join(repo, "afunix-check.sarif")) == expected
    print(f"GitHub matrix: {shards} slices extracted as the matrix would, linked: the SARIF results "
          f"of one run")

    gl = yaml.safe_load(recipe("gitlab-sharded"))
    gl_facts, gl_link = gl["afunix-facts"], gl["afunix-link"]
    parallel = int(gl_facts["parallel"])
    assert set(gl_link["needs"]) >= {"afunix-facts", "afunix-tool"}
    assert gl_link["artifacts"]["reports"]["codequality"] == "gl-code-quality-report.json"
    ours = lambda lines: [l for l in lines if "afunix-check" in l and not l.startswith(("apt-get", "tar "))]
    for k in range(1, parallel + 1):
        for line in ours(gl_facts["script"]):
            done = subprocess.run(["bash", "-e", "-c", line], cwd=repo, capture_output=True, text=True,
                                  env=dict(env, CI_NODE_INDEX=str(k), CI_NODE_TOTAL=str(parallel),
                                           CI_PROJECT_DIR=repo))
            assert done.returncode == 0, done
    os.makedirs(os.path.join(repo, "ci"), exist_ok=True)
    shutil.copy(converter, os.path.join(repo, "ci", "sarif2codequality.py"))
    script = "\n".join(l for l in gl_link["script"] if not l.startswith(("apt-get", "tar ")))
    done = subprocess.run(["bash", "-e", "-c", script], cwd=repo, capture_output=True, text=True,
                          env=dict(env, CI_PROJECT_DIR=repo))
    assert done.returncode == 0, done
    assert sarif_results(os.path.join(repo, "afunix-check.sarif")) == expected
    issues = json.load(open(os.path.join(repo, "gl-code-quality-report.json")))
    assert len(issues) == len(expected), issues
    print(f"GitLab parallel: {parallel} jobs' slices linked: the SARIF results of one run, and the "
          f"Code Quality report")


if __name__ == "__main__":
    try:
        main()
    except AssertionError as e:
        print(f"FAIL: {e}", file=sys.stderr)
        sys.exit(1)
