#!/usr/bin/env python3
"""Fix verification on the testdata: every fix-it, through every front end (fix_frontends.py).

For each testdata file and project whose findings carry fix-its, each front end (afunix-check
--fix, afunix-check --export-fixes + clang-apply-replacements-19, clang-tidy-19 --load ... --fix,
run-clang-tidy-19 -fix, afunix-clangd's quick fixes) works on its own copy. Every fix-it it offers
must be applied, every translation unit it touches must compile with -Wall -Werror under its own
compile command, afunix-check must no longer report the finding and report nothing new, and the
results must be byte-identical: across all front ends for a single file (run-clang-tidy only on
projects: it adds to clang-tidy what several TUs need), and among those that judge alike for a
project (the whole program: afunix-check and afunix-clangd with the stored facts; one TU at a
time: clang-tidy and run-clang-tidy). Prints the counts per rule and front end (docs/fix-its.md
quotes them).

usage: fixes_test.py --checker BIN --clang-tidy BIN --run-clang-tidy BIN --apply-replacements BIN
                     --plugin SO --clangd BIN [PATH...]
"""
import argparse
import collections
import concurrent.futures
import json
import os
import shutil
import sys
import tempfile

import afunix_testlib as lib
import fix_frontends as fx

sys.path.insert(0, lib.TESTDATA)
import run_expectations  # noqa: E402


def single_file_project(sample, tmp):
    rule_dir = os.path.basename(os.path.dirname(sample.path))
    # The file's name with its extension: pos_own_address.c and pos_own_address.cc are two samples.
    root = os.path.join(tmp, rule_dir + "." + os.path.basename(sample.path).replace(".", "_"))
    os.makedirs(root)
    path = os.path.join(root, os.path.basename(sample.path))
    shutil.copy(sample.path, path)
    compiler = "clang++-19" if sample.is_cxx else "clang-19"
    with open(os.path.join(root, "compile_commands.json"), "w") as f:
        json.dump([{"directory": root, "file": path,
                    "arguments": [compiler, *sample.args, "-c", path]}], f)
    # --config= paths in OPTIONS are relative to the repository: make them absolute.
    options = [o if not o.startswith("--config=") else
               "--config=" + os.path.join(lib.REPO, o.split("=", 1)[1]) for o in sample.options]
    return fx.Project(os.path.relpath(sample.path, lib.TESTDATA), root, ".", options,
                      lib.check_options(sample.options))


def testdata_project(directory, tmp):
    import yaml
    root = os.path.join(tmp, os.path.basename(directory))
    shutil.copytree(directory, root)
    config = {}
    if os.path.exists(os.path.join(root, "project.yaml")):
        config = yaml.safe_load(open(os.path.join(root, "project.yaml"))) or {}
    options = list(config.get("options", []))
    sources = run_expectations.project_sources(root, config)
    build = os.path.join(root, "build")
    os.makedirs(build)
    database = []
    for src in sources:
        compiler = "clang++-19" if src.endswith((".cc", ".cpp")) else "clang-19"
        database.append({"directory": root, "file": src,
                         "arguments": [compiler, *run_expectations.default_args(src), f"-I{root}",
                                       *run_expectations.project_args(config), "-c", src]})
    with open(os.path.join(build, "compile_commands.json"), "w") as f:
        json.dump(database, f)
    check_options = lib.check_options(options)
    # A project's own models for clang-tidy and afunix-clangd (its .clang-tidy, the form
    # docs/models.md gives): the front ends' configurations here replace that file.
    tidy = os.path.join(root, ".clang-tidy")
    if os.path.exists(tidy):
        own = (yaml.safe_load(open(tidy)) or {}).get("CheckOptions") or {}
        check_options = {**(check_options or {}), **own}
    return fx.Project(os.path.basename(directory), root, "build", options, check_options)


def report_with_fixes(tools, project):
    """afunix-check's report of the project when a finding carries a fix-it, else None."""
    report = fx.check_json(tools, project, per_tu=False)
    return report if any(f["fixes"] for f in report["findings"]) else None


def main():
    parser = argparse.ArgumentParser()
    for name in ("--checker", "--clang-tidy", "--run-clang-tidy", "--apply-replacements", "--plugin",
                 "--clangd"):
        parser.add_argument(name, required=True)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("paths", nargs="*", help="testdata files or project directories (default: all)")
    args = parser.parse_args()
    tools = fx.Tools(args.checker, args.clang_tidy, args.run_clang_tidy, args.apply_replacements,
                     args.plugin, args.clangd)
    if args.paths:
        files = [p for p in args.paths if os.path.isfile(p)]
        dirs = [p for p in args.paths if os.path.isdir(p)]
    else:
        files = [s.path for s in lib.samples("*/pos_*")]
        projects_dir = os.path.join(lib.TESTDATA, "projects")
        dirs = sorted(os.path.join(projects_dir, d) for d in os.listdir(projects_dir)
                      if d.startswith("pos_"))
    table = collections.defaultdict(collections.Counter)
    failures, verified = [], 0
    with tempfile.TemporaryDirectory(prefix="afunix-fixes-") as tmp:
        candidates = [(single_file_project(lib.Sample(f), tmp), True) for f in files]
        candidates += [(testdata_project(d, tmp), False) for d in dirs]
        def verified_one(candidate):
            project, single = candidate
            # A single file's fix-its are pinned by its EXPECT-FIXED lines (its checker/ test fails
            # on a fix-it without them), so only the files with those lines need the front ends.
            if single and "EXPECT-FIXED:" not in open(os.path.join(lib.TESTDATA, project.name)).read():
                return None
            report = report_with_fixes(tools, project)
            if report is None:
                return None
            lines = [f"{project.name}:"]
            # run-clang-tidy is clang-tidy's export and clang-apply-replacements over several TUs:
            # what it adds (one edit of a header offered by two TUs) needs a project. A single file
            # gets clang-tidy's edits, which clang-tidy --fix and afunix-check --export-fixes (its
            # replacements applied by clang-apply-replacements) already check.
            front_ends = [f for f in fx.FRONT_ENDS if not (single and f == "run-clang-tidy -fix")]
            return project, single, fx.verify(project, tools, front_ends=front_ends, log=lines.append,
                                              whole_report=report), lines

        # Two projects at a time: most of a front end's time is waiting for its tools.
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            done = list(pool.map(verified_one, candidates))
        for item in done:
            if item is None:
                continue
            project, single, outcomes, lines = item
            print("\n".join(lines))
            fx.tally(outcomes, table)
            verified += 1
            problems = []
            for name, out in outcomes.items():
                problems += [f"{name}: {p}" for p in out.problems]
                n = len(out.offers)
                if not n and single:
                    problems.append(f"{name}: offered no fix-it")
                for what, got in (("applied", out.applied), ("gone", out.gone)):
                    if len(got) != n:
                        problems.append(f"{name}: {len(got)} of {n} fix-its {what}")
                if len(out.compiled) + len(out.no_compile) != n:
                    problems.append(f"{name}: {len(out.compiled)} of {n} fix-its compile")
            # The same edits give the same bytes; a single file gets the same edits everywhere.
            if single:
                groups = [list(outcomes)]
            else:
                groups = [[n for n in outcomes if n not in fx.PER_TU and n != "afunix-clangd"],
                          [n for n in outcomes if n in fx.PER_TU]]
                # afunix-clangd offers afunix-check's fix-its whose edits are all in the source file
                # being edited (clangd drops a fix-it that reaches into another file).
                if "afunix-clangd" in outcomes:
                    editor, reference = outcomes["afunix-clangd"], outcomes["afunix-check --fix"]
                    local = sorted((o.rule, o.file, tuple(o.edits)) for o in reference.offers
                                   if o.file.endswith(fx.SOURCE_SUFFIXES) and
                                   all(e[0] == o.file for e in o.edits))
                    got = sorted((o.rule, o.file, tuple(o.edits)) for o in editor.offers)
                    if got != local:
                        problems.append(f"afunix-clangd offers {got}, afunix-check's fix-its in the "
                                        f"edited file are {local}")
                    if len(local) == len(reference.offers):
                        groups[0].append("afunix-clangd")
            for group in groups:
                distinct = {tuple(sorted(outcomes[n].result.items())) for n in group}
                if len(distinct) > 1:
                    problems.append("results differ: " + "; ".join(
                        "/".join(g) for g in fx.identical_groups({n: outcomes[n] for n in group})))
            if problems:
                failures.append((project.name, problems))
                for p in problems:
                    print(f"  FAIL {p}")
    print()
    print(fx.format_table(table))
    print(f"\n{verified} testdata files and projects with fix-its verified through "
          f"{len(fx.FRONT_ENDS)} front ends")
    if not verified:
        print("FAIL: no testdata finding carries a fix-it", file=sys.stderr)
        return 1
    if failures:
        print(f"FAIL: {len(failures)} of {verified}: " + ", ".join(n for n, _ in failures),
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except AssertionError as e:
        print(f"FAIL: {e}", file=sys.stderr)
        sys.exit(1)
