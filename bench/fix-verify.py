#!/usr/bin/env python3
"""Fix verification over real projects: every fix-it afunix-check, clang-tidy with the plugin,
run-clang-tidy and afunix-clangd offer, applied by each on a copy of the project, counted per rule
and front end: offered, applied, compile (the translation units the edits touch still compile
under their own compile command with -Wall -Werror added, or get no diagnostic they did not have
before), gone (afunix-check, judging as the front end does, no longer reports it); and findings
that appear after the fixes. The work is checker/integration-test/fix_frontends.py's, which
integration.fixes runs on the testdata.

    bench/fix-verify.py --checker BIN --plugin SO --clangd BIN --root /work/corpus
    bench/fix-verify.py --checker BIN --plugin SO --clangd BIN NAME=DIR[:DB] ...

A project is a source tree with a compile database (DIR, DIR/build, DIR/_build, DIR/builddir or
DIR/build-corpus, as bench/corpus.py finds it). Nothing in it is written: every front end works on
its own copy under --work (default: a temporary directory). clang-tidy, run-clang-tidy and the
editor open only the translation units afunix-check gives fix-its for (in their view: one TU at a
time for clang-tidy, the whole program for the editor), which is what they would offer.

Exit status: 0 when every project ran and no applied fix-it failed to compile or leave its
finding; 1 when one did; 2 when the script could not run.
"""
import argparse
import collections
import json
import os
import shutil
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "checker", "integration-test"))
import fix_frontends as fx  # noqa: E402

DB_SUBDIRS = ("", "build", "_build", "builddir", "build-corpus")


def find_database(src, explicit=None):
    for sub in ([explicit] if explicit else DB_SUBDIRS):
        d = os.path.join(src, sub)
        if os.path.isfile(os.path.join(d, "compile_commands.json")):
            return os.path.relpath(os.path.normpath(d), src)
    return None


def socket_units(project):
    """Units whose own facts (afunix-facts.json of the last -p run) hold a socket fact."""
    out = []
    path = os.path.join(project.database, "afunix-facts.json")
    if not os.path.exists(path):
        return out
    with open(path) as f:
        for line in f:
            unit = json.loads(line)
            if unit.get("format") != "afunix-facts":
                continue
            if any(unit.get(t) for t in ("creates", "options", "lifecycle", "receives", "sends",
                                         "payloads", "limits")):
                out.append(unit["main_file"])
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--checker", required=True)
    ap.add_argument("--plugin", required=True, help="libafunix-tidy.so")
    ap.add_argument("--clangd", required=True, help="afunix-clangd")
    ap.add_argument("--clang-tidy", default="clang-tidy-19")
    ap.add_argument("--run-clang-tidy", default="run-clang-tidy-19")
    ap.add_argument("--apply-replacements", default="clang-apply-replacements-19")
    ap.add_argument("--root", help="every project directory under it that has a compile database")
    ap.add_argument("--front-ends", default=",".join(fx.FRONT_ENDS))
    ap.add_argument("--work", help="where the copies go (kept); default: a temporary directory")
    ap.add_argument("--markdown", help="write the table there too")
    ap.add_argument("projects", nargs="*", help="NAME=DIR[:DB]")
    args = ap.parse_args()
    if not os.path.isfile(args.checker):
        print(f"fix-verify: {args.checker} does not exist", file=sys.stderr)
        return 2
    tools = fx.Tools(args.checker, args.clang_tidy, args.run_clang_tidy, args.apply_replacements,
                     args.plugin, args.clangd)
    front_ends = [f for f in args.front_ends.split(",") if f]
    if set(front_ends) - set(fx.FRONT_ENDS):
        print(f"fix-verify: front ends are {', '.join(fx.FRONT_ENDS)}", file=sys.stderr)
        return 2
    wanted = []
    for spec in args.projects:
        name, _, rest = spec.partition("=")
        src, _, db = rest.partition(":")
        wanted.append((name, os.path.abspath(src), db or None))
    if args.root:
        for name in sorted(os.listdir(args.root)):
            src = os.path.join(args.root, name)
            if os.path.isdir(src) and find_database(src):
                wanted.append((name, src, None))
    if not wanted:
        print("fix-verify: no project (give NAME=DIR or --root)", file=sys.stderr)
        return 2

    work = args.work or tempfile.mkdtemp(prefix="afunix-fix-verify-")
    table = collections.defaultdict(collections.Counter)
    summary, failed = [], False
    for name, src, db in wanted:
        build = find_database(src, db)
        if build is None:
            print(f"{name}: no compile database in {src}", file=sys.stderr)
            return 2
        start = time.monotonic()
        base = os.path.join(work, name)
        if os.path.exists(base):
            shutil.rmtree(base)
        original = fx.Project(name, src, build)
        project = fx.copy_project(original, os.path.join(base, "source"))
        project.check_options = {}
        # Which units have fix-its, as each front end sees them. One TU at a time, only a unit with
        # socket facts of its own can have a finding (those the whole-program run stored).
        whole = fx.check_json(tools, project, per_tu=False)
        candidates = socket_units(project)
        single = fx.check_json(tools, project, per_tu=True, extra=candidates) if candidates else \
            {"findings": []}
        # (A fix-it of a header finding is reached through the units of the header's own name
        # only: the JSON report does not say which unit a header finding came from.)
        tu_fixes = {os.path.relpath(f["file"], project.root) for f in single["findings"] if f["fixes"]}
        editor = {os.path.relpath(f["file"], project.root) for f in whole["findings"] if f["fixes"]}
        offered = sum(1 for f in whole["findings"] if f["fixes"]) + \
            sum(1 for f in single["findings"] if f["fixes"])
        tus = len(project.units())
        if not offered:
            summary.append(f"| {name} | {tus} | {len(whole['findings'])} | 0 | | {time.monotonic() - start:.0f} s |")
            print(f"{name}: {len(whole['findings'])} finding(s), none with a fix-it ({tus} TUs)")
            shutil.rmtree(base)
            continue
        project.tidy_units = {u for u in tu_fixes if u.endswith(fx.SOURCE_SUFFIXES)}
        project.editor_units = {u for u in editor if u.endswith(fx.SOURCE_SUFFIXES)}
        # The copy a front end starts from must not hold the scan's facts and cache.
        for leftover in ("afunix-facts.json", "afunix-cache"):
            path = os.path.join(project.database, leftover)
            if os.path.isdir(path):
                shutil.rmtree(path)
            elif os.path.exists(path):
                os.remove(path)
        print(f"{name}: {tus} TUs, fix-its in {len(editor)} file(s) (whole program), "
              f"{len(project.tidy_units)} unit(s) one TU at a time")
        outcomes = fx.verify(project, tools, front_ends=front_ends,
                             keep=os.path.join(base, "results") if args.work else None)
        fx.tally(outcomes, table)
        groups = fx.identical_groups(outcomes)
        print("  identical results: " + "; ".join(" = ".join(g) for g in groups))
        bad = []
        for fe, out in outcomes.items():
            n = len(out.offers)
            if len(out.compiled) + len(out.no_compile) != len(out.applied) or \
                    len(out.gone) != len(out.applied) or out.new:
                bad.append(fe)
            for p in out.problems:
                print(f"  {fe}: {p[:1500]}")
        failed |= bool(bad)
        summary.append(f"| {name} | {tus} | {len(whole['findings'])} | "
                       f"{sum(len(o.offers) for o in outcomes.values())} | "
                       f"{', '.join(bad) or 'all verified'} | {time.monotonic() - start:.0f} s |")
        if not args.work:
            shutil.rmtree(base, ignore_errors=True)
    text = ("| project | TUs | findings | fix-its offered (all front ends) | failing | time |\n"
            "|---|---|---|---|---|---|\n" + "\n".join(summary) + "\n\n" +
            fx.format_table(table, front_ends) + "\n")
    print()
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text)
    if not args.work:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
