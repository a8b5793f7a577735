#!/usr/bin/env python3
"""Rebuild the labelled real-code corpus (docs/accuracy.md) that bench/corpus.py scores against.

    bench/corpus/setup.py [--root /work/corpus] [--mirror /work/.mirror] [-j 2] [NAME ...]
    bench/corpus/setup.py --list                 # the projects, how each is set up, which are built
    bench/corpus/setup.py --packages [NAME ...]  # only print the Debian packages the builds need

For each project of bench/corpus/labels.yaml in the file's order (or those NAMEs, in that order): clone its
repository from the local mirror MIRROR/OWNER+NAME/repo (a bare git directory, as the sandbox's
`fetch github:OWNER/NAME` leaves it; never the network) into ROOT/NAME, check out the labelled
`commit`, then run the project's `setup:` commands in ROOT/NAME with bash (-e -o pipefail). They
apply the `patch:` (and commit it: the tree's HEAD is then a local commit on top of `commit`, as
bench/corpus.py expects), build what the compile database needs and leave compile_commands.json in
ROOT/NAME or one of the subdirectories bench/corpus.py looks in (build/, _build/, builddir/,
build-corpus/). Afterwards `bench/corpus.py --checker PATH --root ROOT` scores every built project.

The commands see ROOT, MIRROR, JOBS (-j, for make/ninja), DEPS (ROOT/.deps) and SRC (ROOT/NAME)
in their environment. Other checkouts a project needs (`deps:`, e.g. skalibs and execline headers
for s6) are cloned from the mirror into DEPS/NAME@SHA, and the setup commands build and install
them under DEPS (never into /usr). Nothing is installed on the system: the Debian packages the
selected projects need (`packages:` plus a common base) are printed first, for apt-get.

Skipped with a message: a project whose `setup:` is missing (its `database:` says why there is
none, or how it was made by hand), one whose mirror or commit is missing (the message names the
`fetch` to call), and one whose ROOT/NAME exists already (remove it to rebuild; nothing is ever
deleted). The output of each project's commands goes to ROOT/.logs/NAME.log; the summary gives the
TU count of each database.
Run it under `nice -n 19` on a shared machine.

Exit status: 0 when every selected project was built or skipped as above; 1 when a build failed
or a mirror/commit was missing; 2 on bad arguments or an unreadable labels file.
"""
import argparse
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
try:
    import yaml  # noqa: F401  (corpus.py needs it too)
except ImportError:
    sys.exit("setup.py: PyYAML is needed (apt-get install python3-yaml)")
import corpus  # noqa: E402

DEFAULT_LABELS = corpus.DEFAULT_LABELS
DEFAULT_ROOT = "/work/corpus"
DEFAULT_MIRROR = "/work/.mirror"
# Every project needs these: the checkout, a compiler and the recorder of make builds.
BASE_PACKAGES = ("git", "build-essential", "pkg-config", "bear", "python3-yaml")


class UsageError(Exception):
    pass


def load_projects(path):
    """The labelled projects (name -> entry), checked for what setup needs."""
    try:
        _, projects = corpus.load_labels(path)
    except corpus.UsageError as e:
        raise UsageError(str(e))
    for name, p in projects.items():
        for key in ("setup", "deps", "packages"):
            value = p.get(key)
            if value is not None and not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
                raise UsageError(f"{path}: project {name}: '{key}' must be a list of strings")
        for dep in p.get("deps") or []:
            parse_dep(dep, name)
        if p.get("setup") and not p.get("repo"):
            raise UsageError(f"{path}: project {name}: 'setup' without 'repo'")
    return projects


def parse_dep(dep, name="?"):
    """'owner/name@sha' -> (owner/name, sha)."""
    repo, at, sha = dep.partition("@")
    if not at or repo.count("/") != 1 or not sha:
        raise UsageError(f"project {name}: a dep is 'owner/name@sha', not {dep!r}")
    return repo, sha


def mirror_of(mirror, repo):
    return os.path.join(mirror, repo.replace("/", "+"), "repo")


def has_commit(gitdir, commit):
    r = subprocess.run(["git", "-C", gitdir, "cat-file", "-e", f"{commit}^{{commit}}"],
                       capture_output=True, text=True)
    return r.returncode == 0


def select(projects, names):
    if not names:
        return list(projects)
    unknown = [n for n in names if n not in projects]
    if unknown:
        raise UsageError(f"no such project: {', '.join(unknown)} (--list shows them)")
    return list(dict.fromkeys(names))  # the order given, once each


def packages_for(projects, names):
    seen = list(BASE_PACKAGES)
    for n in names:
        for pkg in projects[n].get("packages") or []:
            if pkg not in seen:
                seen.append(pkg)
    return seen


def built_database(src):
    """(database dir, TU count) of a built tree, or (None, None)."""
    try:
        db = corpus.find_database(src)
        return db, corpus.count_tus(db)
    except corpus.UsageError:
        return None, None


def check_sources(p, mirror):
    """Problems with the mirrors of a project and its deps, as messages (empty: all there)."""
    problems = []
    for repo, commit in [(p["repo"], str(p["commit"]))] + [parse_dep(d) for d in p.get("deps") or []]:
        gitdir = mirror_of(mirror, repo)
        if not os.path.isdir(gitdir):
            problems.append(f"no mirror of {repo} at {gitdir}: fetch it first (the sandbox's "
                            f"`fetch github:{repo}`)")
        elif not has_commit(gitdir, commit):
            problems.append(f"the mirror of {repo} ({gitdir}) lacks commit {commit}")
    return problems


def run(cmd, log, cwd=None, env=None):
    log.write(f"$ {cmd if isinstance(cmd, str) else ' '.join(cmd)}\n")
    log.flush()
    if isinstance(cmd, str):
        cmd = ["bash", "-e", "-o", "pipefail", "-c", cmd]
    return subprocess.run(cmd, cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT,
                          stdin=subprocess.DEVNULL).returncode


def clone(gitdir, commit, dest, log):
    if run(["git", "clone", "-q", "--no-checkout", gitdir, dest], log) != 0:
        return False
    return run(["git", "-C", dest, "checkout", "-q", "--detach", commit], log) == 0


def set_up(name, p, args, log):
    """Clone, deps, setup commands. Returns an error message or None."""
    src = os.path.join(args.root, name)
    deps_dir = os.path.join(args.root, ".deps")
    for dep in p.get("deps") or []:
        repo, sha = parse_dep(dep, name)
        dest = os.path.join(deps_dir, f"{repo.split('/')[1]}@{sha}")
        if not os.path.isdir(dest):
            os.makedirs(deps_dir, exist_ok=True)
            if not clone(mirror_of(args.mirror, repo), sha, dest, log):
                return f"could not check out {dep} into {dest}"
    if not clone(mirror_of(args.mirror, p["repo"]), str(p["commit"]), src, log):
        return f"could not check out {p['repo']} at {p['commit']}"
    env = dict(os.environ, ROOT=args.root, MIRROR=args.mirror, JOBS=str(args.jobs), DEPS=deps_dir, SRC=src)
    for i, cmd in enumerate(p["setup"]):
        if run(cmd, log, cwd=src, env=env) != 0:
            return f"setup command {i + 1} failed: {cmd}"
    head, ok = corpus.tree_matches(src, p)
    if not ok:
        return f"HEAD {head} is not {'a local commit on top of ' if p.get('patch') else ''}{p['commit']}"
    if p.get("patch") and head and head.startswith(str(p["commit"])):
        return "the project has a patch: but its setup left HEAD at the labelled commit (commit the change)"
    return None


def list_projects(projects, names, root):
    for n in names:
        p = projects[n]
        if not p.get("setup"):
            state = "no setup (" + " ".join(str(p.get("database", "?")).split())[:60] + ")"
        else:
            db, tus = built_database(os.path.join(root, n))
            state = f"built, {tus} TUs" if db else ("present, no database" if os.path.isdir(os.path.join(root, n))
                                                   else "not built")
        print(f"{n:<24} {p.get('repo', '?'):<36} {str(p['commit'])[:12]}  {state}")


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("--root", default=DEFAULT_ROOT, help=f"where the projects go (default {DEFAULT_ROOT})")
    ap.add_argument("--mirror", default=DEFAULT_MIRROR,
                    help=f"the local mirrors, MIRROR/OWNER+NAME/repo (default {DEFAULT_MIRROR})")
    ap.add_argument("--labels", default=DEFAULT_LABELS, help="labels file (default: bench/corpus/labels.yaml)")
    ap.add_argument("-j", "--jobs", type=int, default=2, help="parallel jobs of each build (default 2)")
    ap.add_argument("--list", action="store_true", help="list the projects, their setup and state, and exit")
    ap.add_argument("--packages", action="store_true", help="print the Debian packages needed and exit")
    ap.add_argument("names", nargs="*", metavar="NAME", help="projects to set up (default: all)")
    args = ap.parse_args(argv)
    if args.jobs < 1:
        ap.error("--jobs must be at least 1")
    args.root = os.path.abspath(args.root)
    args.mirror = os.path.abspath(args.mirror)
    return args


def main(argv):
    args = parse_args(argv)
    projects = load_projects(args.labels)
    names = select(projects, args.names)
    if args.list:
        list_projects(projects, names, args.root)
        return 0
    wanted = [n for n in names if projects[n].get("setup")]
    packages = packages_for(projects, wanted)
    print("Debian packages needed: " + " ".join(packages))
    print("  (install them first: apt-get install " + " ".join(packages) + ")")
    if args.packages:
        return 0
    os.makedirs(os.path.join(args.root, ".logs"), exist_ok=True)
    summary, failed = [], False
    for n in names:
        p = projects[n]
        src = os.path.join(args.root, n)
        if not p.get("setup"):
            database = " ".join(str(p.get("database", "?")).split())
            why = "no setup: (no database here)" if database.startswith("none") else \
                "no setup: yet, make the database by hand as its database: says"
            summary.append((n, "skipped", f"{why}: {database}"))
            continue
        problems = check_sources(p, args.mirror)
        if problems:
            failed = True
            summary.append((n, "skipped", "; ".join(problems)))
            continue
        if os.path.exists(src):
            db, tus = built_database(src)
            summary.append((n, "skipped", f"{src} exists ({f'{tus} TUs' if db else 'no compile database'}); "
                                          "remove it to rebuild"))
            continue
        logpath = os.path.join(args.root, ".logs", f"{n}.log")
        print(f"{n}: setting up in {src} (log: {logpath})", flush=True)
        start = time.monotonic()
        with open(logpath, "w", encoding="utf-8") as log:
            error = set_up(n, p, args, log)
        took = f"{time.monotonic() - start:.0f} s"
        db, tus = built_database(src)
        if error is None and db is None:
            error = "no compile_commands.json after the setup commands"
        if error:
            failed = True
            summary.append((n, "FAILED", f"{error} ({took}; see {logpath})"))
        else:
            summary.append((n, "built", f"{tus} TUs in {db} ({took})"))
        print(f"{n}: {summary[-1][1]}: {summary[-1][2]}", flush=True)
    print()
    for n, state, what in summary:
        print(f"{n:<24} {state:<8} {what}")
    return 1 if failed else 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except UsageError as e:
        print(f"setup.py: {e}", file=sys.stderr)
        sys.exit(2)
