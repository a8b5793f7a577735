#!/usr/bin/env python3
"""afunix-check --format=sarif on the testdata: valid SARIF 2.1.0 (the OASIS schema plus what
GitHub code scanning needs), the same findings as --format=json, URIs relative to --sarif-root,
notes as relatedLocations, fix-its as fixes, fingerprints that survive moved lines.

Every log is also checked by Microsoft's SARIF validator (`sarif-multitool validate`, npm
@microsoft/sarif-multitool) with its GitHub rules and its SARIF rules: no error, no warning.

usage: sarif_test.py --checker BIN --schema FILE [--multitool PATH]
"""
import argparse
import collections
import json
import os
import shutil
import subprocess
import sys
import tempfile

import afunix_testlib as lib

HERE = os.path.dirname(os.path.abspath(__file__))


DOCS = "https://example.org/afunix-compat/docs"  # where a CI job says the pages are published


def sarif(checker, files, args, options, root, out, cwd=lib.REPO, docs=DOCS):
    command = [checker, "--format=sarif", "--quiet", f"--sarif-root={root}", *options, *files,
               *([f"--docs-url={docs}"] if docs else []), "--", *args]
    env = {k: v for k, v in os.environ.items() if k != "AFUNIX_DOCS_URL"}
    proc = subprocess.run(command, capture_output=True, text=True, cwd=cwd, env=env)
    assert proc.returncode in (0, 1), f"{' '.join(command)}: exit {proc.returncode}\n{proc.stderr}"
    with open(out, "w") as f:
        f.write(proc.stdout)
    return json.loads(proc.stdout)


def escape(text):
    """Brackets that could read as a SARIF message link are escaped; others stay."""
    last_link = text.rfind("](")
    out = []
    for i, c in enumerate(text):
        if (c == "]" and text[i + 1:i + 2] == "(") or (c == "[" and 0 <= i < last_link):
            out.append("\\")
        out.append(c)
    return "".join(out)


def native_multitool(path):
    """The validator binary behind npm's `sarif-multitool` wrapper (the wrapper hands its arguments
    to a shell, which splits "Gh;Sarif" at the semicolon)."""
    real = os.path.realpath(path)
    if real.endswith(".js"):
        package = os.path.dirname(real)
        out = subprocess.run(["node", "-e", "console.log(require(process.argv[1]))", package],
                             capture_output=True, text=True, check=True).stdout.strip()
        return out
    return real


def multitool_validate(multitool, log_path, tmp):
    """Runs Microsoft's validator with GitHub's and the SARIF spec's rules; returns the problems
    at warning or error level (notes such as 'URI not reachable' offline are not problems)."""
    out = os.path.join(tmp, "validation.sarif")
    proc = subprocess.run([multitool, "validate", "--rule-kind", "Gh;Sarif", "--level",
                           "Error;Warning", "--log", "ForceOverwrite", "-o", out, log_path],
                          capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, DOTNET_CLI_TELEMETRY_OPTOUT="1"))
    assert proc.returncode == 0, f"sarif-multitool failed ({proc.returncode}):\n{proc.stdout}{proc.stderr}"
    validation = json.load(open(out, encoding="utf-8-sig"))
    return [f"{r['ruleId']}: {r['message'].get('text', r['message'])}"
            for run in validation["runs"] for r in run.get("results", [])
            if r.get("level", "warning") in ("error", "warning")]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--checker", required=True)
    parser.add_argument("--schema", required=True)
    parser.add_argument("--multitool")
    args = parser.parse_args()
    multitool = native_multitool(args.multitool) if args.multitool else None
    args.checker = os.path.abspath(args.checker)
    groups = collections.defaultdict(list)  # one run per distinct (options, args)
    for s in lib.samples():
        groups[(tuple(s.options), tuple(s.args))].append(s)
    total = ended = 0
    with tempfile.TemporaryDirectory(prefix="afunix-sarif-") as tmp:
        for n, ((options, cargs), group) in enumerate(sorted(groups.items())):
            files = [s.path for s in group]
            out = os.path.join(tmp, f"run{n}.sarif")
            # The JSON report to compare with comes from the facts the SARIF run cached: one parse.
            cached = [*options, f"--cache-dir={os.path.join(tmp, 'cache')}"]
            log = sarif(args.checker, files, cargs, cached, lib.REPO, out)
            subprocess.run([sys.executable, os.path.join(HERE, "validate_sarif.py"), args.schema,
                            out], check=True)
            if multitool:
                problems = multitool_validate(multitool, out, tmp)
                assert not problems, f"{out}: Microsoft's validator:\n" + "\n".join(problems)
            _, report = lib.run_check(args.checker, files, cargs, cached)
            results = log["runs"][0]["results"]
            assert len(results) == len(report["findings"]), (len(results), len(report["findings"]))
            for r, f in zip(results, report["findings"]):
                loc = r["locations"][0]["physicalLocation"]
                rel = os.path.relpath(f["file"], lib.REPO)
                assert loc["artifactLocation"] == {"uri": rel, "uriBaseId": "%SRCROOT%"}, loc
                # The message, then one link per related location (the notes), which is how
                # GitHub shows them.
                links = ", ".join(f"[{escape(n['message'])}]({i + 1})"
                                  for i, n in enumerate(f["notes"]))
                expected = escape(f["message"]) + (f" (see {links})" if links else "")
                assert (r["ruleId"], loc["region"]["startLine"], r["message"]["text"]) == \
                    (f["rule"], f["line"], expected), (r, f)
                assert len(r.get("relatedLocations", [])) == len(f["notes"]), (r, f)
                assert [x["id"] for x in r.get("relatedLocations", [])] == \
                    list(range(1, len(f["notes"]) + 1)), r
                assert bool(r.get("fixes")) == bool(f["fixes"]), (r, f)
            assert log["runs"][0]["invocations"][0]["executionSuccessful"] is True
            driver = log["runs"][0]["tool"]["driver"]
            assert driver["informationUri"] == DOCS + "/README.md", driver.get("informationUri")
            for rule in driver["rules"]:
                assert rule["helpUri"] == f"{DOCS}/rules/{rule['id']}.md", rule.get("helpUri")
            # A region ends where the finding's underline does.
            for r in results:
                region = r["locations"][0]["physicalLocation"]["region"]
                if "endColumn" in region:
                    ended += 1
                    assert (region["endLine"], region["endColumn"]) > \
                        (region["startLine"], region["startColumn"]), region
            total += len(results)
        assert total, "no SARIF result on the whole testdata"
        assert ended, "no SARIF region has an end"

        # No --docs-url (nor docs_url, AFUNIX_DOCS_URL, a URL built in): no link into this
        # machine, neither helpUri, informationUri nor the embedded pages' links (locations outside
        # --sarif-root and %SRCROOT% are locations, not links). The validator then only misses
        # the tool's informationUri (SARIF2005): there is nothing published to point at.
        (options, cargs), group = sorted(groups.items())[0]
        out = os.path.join(tmp, "unpublished.sarif")
        log = sarif(args.checker, [s.path for s in group], cargs, options, lib.REPO, out, docs=None)
        driver = log["runs"][0]["tool"]["driver"]
        assert "informationUri" not in driver, driver.get("informationUri")
        for rule in driver["rules"]:
            assert "helpUri" not in rule and "file://" not in json.dumps(rule), rule["id"]
        subprocess.run([sys.executable, os.path.join(HERE, "validate_sarif.py"), args.schema, out],
                       check=True)
        if multitool:
            problems = multitool_validate(multitool, out, tmp)
            assert all(p.startswith("SARIF2005:") for p in problems), problems
        print("without --docs-url: no file:// link in the rules; schema-valid" +
              (", and the validator misses only the informationUri" if multitool else ""))
        print(f"{len(groups)} runs, {total} results ({ended} regions with an end), no file:// "
              f"link without --docs-url: schema-valid, equal to --format=json" +
              (", clean under Microsoft's validator" if multitool else ""))
        if not multitool:
            print("Microsoft's validator was not found at configure time: not run", file=sys.stderr)

        # Fingerprints: the same file with lines inserted above keeps every fingerprint.
        sample = lib.implemented_samples(args.checker)[0]
        moved = os.path.join(tmp, "moved")
        os.makedirs(moved)
        copy = os.path.join(moved, os.path.basename(sample.path))
        shutil.copy(sample.path, copy)
        prints = lambda log: [r["partialFingerprints"] for r in log["runs"][0]["results"]]
        before = prints(sarif(args.checker, [copy], sample.args, sample.options, moved,
                              os.path.join(tmp, "m1.sarif")))
        text = open(copy).read()
        open(copy, "w").write("/* moved */\n" * 4 + text)
        after_log = sarif(args.checker, [copy], sample.args, sample.options, moved,
                          os.path.join(tmp, "m2.sarif"))
        assert before and before == prints(after_log), (before, prints(after_log))
        assert after_log["runs"][0]["results"][0]["locations"][0]["physicalLocation"][
            "artifactLocation"]["uri"] == os.path.basename(copy)
        print(f"{os.path.basename(copy)}: {len(before)} fingerprint(s) unchanged after moving lines")

        # A link of --relative-paths shards (a Bazel action's report): %SRCROOT% names no
        # directory (the link's sandbox), the locations stay relative; still valid for GitHub.
        project = os.path.join(tmp, "relative")
        shutil.copytree(os.path.join(lib.TESTDATA, "projects", "pos_wrong_family_helper_other_file"),
                        project)
        pieces = []
        for source in ("main.c", "net.c", "options.c"):
            pieces.append(os.path.join(project, "facts", source))
            subprocess.run([args.checker, "-q", "--shard=1/1", f"--shard-dir={pieces[-1]}",
                            "--relative-paths", source, "--", "-I."], cwd=project, check=True)
        out = os.path.join(tmp, "relative.sarif")
        with open(out, "w") as f:
            proc = subprocess.run([args.checker, "link", "--several-databases", "--format=sarif",
                                   f"--docs-url={DOCS}", *pieces], cwd=project, stdout=f)
        assert proc.returncode == 1, proc.returncode
        log = json.load(open(out))
        root = log["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]
        assert "uri" not in root and project not in open(out).read(), root
        assert [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                for r in log["runs"][0]["results"]] == ["options.c"], log["runs"][0]["results"]
        subprocess.run([sys.executable, os.path.join(HERE, "validate_sarif.py"), args.schema, out],
                       check=True)
        if multitool:
            problems = multitool_validate(multitool, out, tmp)
            assert not problems, f"{out}: Microsoft's validator:\n" + "\n".join(problems)
        print("a link of relative shards: %SRCROOT% without a uri, relative locations, valid")


if __name__ == "__main__":
    try:
        main()
    except AssertionError as e:
        print(f"FAIL: {e}", file=sys.stderr)
        sys.exit(1)
    except subprocess.CalledProcessError as e:
        print(f"FAIL: {e}", file=sys.stderr)
        sys.exit(1)
