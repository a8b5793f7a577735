#!/usr/bin/env python3
"""Score afunix-check on the labelled real-code corpus (docs/accuracy.md).

    bench/corpus.py --checker PATH [--baseline-checker PATH] [options] NAME=DIR ...
    bench/corpus.py --checker PATH --root /work/corpus          # every labelled project found there

NAME is a project of the labels file (bench/corpus/labels.yaml); DIR is its source tree at the
labelled commit, holding compile_commands.json (or DIR/build/, DIR/_build/ ...; NAME=DIR:DB names
the database directory explicitly). Make the database with the project's build system, e.g.
`bear -- make`, meson (writes one in its build directory) or cmake -DCMAKE_EXPORT_COMPILE_COMMANDS=ON.

For each project the checker runs once (`-p DB --format=json -j2` plus --checker-args), and each
finding is matched to a label: same file, same rule, and the finding lies in the labelled function
or within --window lines of the labelled line (also at a label's `also_at` places). Printed per
project and in total: labelled bugs found / missed, findings on places labelled correct (false), on
places labelled debatable (tolerated), and findings on unlabelled places (printed, so they get
labelled), with wall time, CPU (user + sys), the checker's peak memory and the pointer sets its
value flow widened (both from --timings), and the TU count; then the same per group: the
development and the test half (each project's `half:`), C and C++ (`language:`), and each half's
languages, with two rates that compare groups of different size (found % = labelled bugs found,
false % = labels of correct code that drew a finding). With --baseline-checker both checkers run in
the same invocation and the numbers are printed side by side (before -> after). --markdown adds the
tables as Markdown, --json FILE writes every number and list (per project and per group).

Exit status: 0 when every requested project was scored (whatever the findings); 2 when the script
could not run (bad arguments, unreadable labels, missing checker, a project that could not be run).
"""
import argparse
import json
import os
import resource
import re
import shlex
import subprocess
import sys
import time

try:
    import yaml
except ImportError:  # python3-yaml (Debian) / PyYAML
    sys.exit("corpus.py: PyYAML is needed (apt-get install python3-yaml)")

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_LABELS = os.path.join(HERE, "corpus", "labels.yaml")
RULES = {
    "afunix-creds-without-passcred", "afunix-passcred-too-late", "afunix-passcred-wrong-family",
    "afunix-fd-flood", "afunix-fd-cycle", "afunix-fd-limit",
}
EXPECTS = {"report", "none", "either"}
HALVES = ("dev", "test")
LANGUAGES = ("C", "C++")
DB_SUBDIRS = ("", "build", "_build", "builddir", "build-corpus")


class UsageError(Exception):
    pass


# --------------------------------------------------------------------------------------------
# Labels

def load_labels(path):
    """The labels file, validated; errors name the project and place."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = yaml.safe_load(f)
    except OSError as e:
        raise UsageError(f"cannot read labels {path}: {e.strerror}")
    except yaml.YAMLError as e:
        raise UsageError(f"{path}: not valid YAML: {e}")
    if not isinstance(doc, dict) or doc.get("version") != 1 or not isinstance(doc.get("projects"), list):
        raise UsageError(f"{path}: expected a mapping with version: 1 and a projects: list")
    window = doc.get("window", 10)
    projects = {}
    for p in doc["projects"]:
        name = p.get("name") if isinstance(p, dict) else None
        if not name or not isinstance(name, str):
            raise UsageError(f"{path}: a project without a name")
        if name in projects:
            raise UsageError(f"{path}: project {name} is listed twice")
        for key in ("commit", "places"):
            if key not in p:
                raise UsageError(f"{path}: project {name}: missing '{key}'")
        for key, allowed in (("half", HALVES), ("language", LANGUAGES)):
            if p.get(key) not in allowed:
                got = "missing" if key not in p else f"{p[key]!r}"
                raise UsageError(f"{path}: project {name}: '{key}' must be one of {', '.join(allowed)} ({got})")
        for i, place in enumerate(p["places"] or []):
            where = f"{path}: project {name}, place {i + 1}"
            for key in ("file", "function", "line", "labels"):
                if key not in place:
                    raise UsageError(f"{where}: missing '{key}'")
            where = f"{where} ({place['file']}:{place['function']})"
            if not isinstance(place["line"], int):
                raise UsageError(f"{where}: line must be a number")
            for alt in place.get("also_at", []) or []:
                if not all(k in alt for k in ("file", "function", "line")):
                    raise UsageError(f"{where}: also_at needs file, function and line")
            for lab in place["labels"]:
                if lab.get("rule") not in RULES:
                    raise UsageError(f"{where}: unknown rule {lab.get('rule')!r}")
                if lab.get("expect") not in EXPECTS:
                    raise UsageError(f"{where}: expect must be one of {sorted(EXPECTS)}, not {lab.get('expect')!r}")
                if not lab.get("why"):
                    raise UsageError(f"{where}: {lab['rule']} has no 'why'")
        projects[name] = p
    # A family is the projects of one repository (an older commit, a patched copy): one half, or
    # the test half would hold a variant of code the development half was tuned on.
    half_of_repo = {}
    for name, p in projects.items():
        family = p.get("repo") or name
        first = half_of_repo.setdefault(family, (name, p["half"]))
        if first[1] != p["half"]:
            raise UsageError(f"{path}: project {name} is in the {p['half']} half but {first[0]}, of the same "
                             f"repository {family}, is in the {first[1]} half: a family stays in one half")
    return window, projects


# --------------------------------------------------------------------------------------------
# Function extents, from the source itself (no ctags needed): a small brace scanner that knows
# comments, strings, character literals and preprocessor lines, and treats namespace / class /
# struct / extern "C" blocks as transparent.

_IDENT_BEFORE_PAREN = re.compile(r"(~?[A-Za-z_]\w*)\s*(?:<[^()]*>)?\s*\($", re.S)
_CONTAINER = re.compile(r"\b(namespace|class|struct|union|enum)\b|extern\s*\"C\"")


def _strip_code(text):
    """text with comments, string and char literals and preprocessor lines blanked (same length)."""
    out = list(text)
    i, n = 0, len(text)
    at_line_start = True
    while i < n:
        c = text[i]
        if at_line_start and c == "#":
            # a preprocessor line, with its continuations
            j = i
            while j < n and text[j] != "\n":
                if text[j] == "\\" and j + 1 < n and text[j + 1] == "\n":
                    j += 1
                j += 1
            for k in range(i, j):
                if out[k] != "\n":
                    out[k] = " "
            i = j
            continue
        if c in " \t":
            i += 1
            continue
        at_line_start = c == "\n"
        if c == "/" and i + 1 < n and text[i + 1] == "/":
            j = text.find("\n", i)
            j = n if j < 0 else j
            for k in range(i, j):
                out[k] = " "
            i = j
        elif c == "/" and i + 1 < n and text[i + 1] == "*":
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            for k in range(i, j):
                if out[k] != "\n":
                    out[k] = " "
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            for k in range(i + 1, min(j, n)):
                out[k] = " "
            i = j + 1
        else:
            i += 1
    return "".join(out)


def function_extents(path):
    """[(name, first_line, last_line)] of the function bodies defined in a C/C++ file."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            code = _strip_code(f.read())
    except OSError:
        return []
    extents = []
    stack = []  # per open brace: "container", "function" or "block"
    header_start = 0  # where the text before the next top-level brace begins
    line = 1
    func_start = None
    for i, c in enumerate(code):
        if c == "\n":
            line += 1
        elif c == "{":
            in_function = "function" in stack
            header = code[header_start:i]
            kind = "block"
            if not in_function:
                head = " ".join(header.split())
                if _CONTAINER.search(head) and "(" not in head.split("{")[-1].split(":")[0]:
                    kind = "container"
                elif "(" in head and "=" not in head.split("(")[0]:
                    # the name is the identifier before the header's first "(" at depth 0
                    # (a constructor's initialiser list comes after it)
                    # Attribute macros such as __attribute__((x)) or ALL_CAPS(...) before the name
                    # are skipped while a later group exists.
                    groups, depth = [], 0
                    for k, ch in enumerate(header):
                        if ch == "(":
                            if depth == 0:
                                g = _IDENT_BEFORE_PAREN.search(header[:k + 1])
                                if g:
                                    groups.append(g)
                            depth += 1
                        elif ch == ")":
                            depth -= 1
                    m = None
                    for g in groups:
                        m = g
                        if not (g.group(1).startswith("__") or re.fullmatch(r"[A-Z0-9_]+", g.group(1))):
                            break
                    if m and m.group(1) not in ("if", "for", "while", "switch", "return", "sizeof"):
                        kind = "function"
                        name_line = line - header.count("\n", m.start(1))
                        func_start = (m.group(1), name_line)
            stack.append(kind)
            header_start = i + 1
        elif c == "}":
            kind = stack.pop() if stack else "block"
            if kind == "function" and func_start and "function" not in stack:
                extents.append((func_start[0], func_start[1], line))
                func_start = None
            header_start = i + 1
        elif c == ";" and "function" not in stack:
            header_start = i + 1
    return extents


class SourceIndex:
    """Function extents per file, computed once."""

    def __init__(self, root):
        self.root = root
        self.cache = {}

    def extents(self, rel):
        if rel not in self.cache:
            self.cache[rel] = function_extents(os.path.join(self.root, rel))
        return self.cache[rel]

    def function_at(self, rel, line):
        best = None
        for name, first, last in self.extents(rel):
            if first <= line <= last and (best is None or first >= best[1]):
                best = (name, first, last)
        return best

    def span(self, rel, function, near_line):
        """The extent of `function` in rel that contains, or is nearest to, near_line."""
        short = function.split("::")[-1]
        cands = [e for e in self.extents(rel) if e[0] == short]
        if not cands:
            return None
        return min(cands, key=lambda e: 0 if e[1] <= near_line <= e[2] else min(abs(e[1] - near_line), abs(e[2] - near_line)))


# --------------------------------------------------------------------------------------------
# Running the checker

def find_database(src, explicit=None):
    if explicit:
        d = explicit if os.path.isdir(explicit) else os.path.dirname(explicit)
        if os.path.isfile(os.path.join(d, "compile_commands.json")):
            return d
        raise UsageError(f"no compile_commands.json in {explicit}")
    for sub in DB_SUBDIRS:
        d = os.path.join(src, sub)
        if os.path.isfile(os.path.join(d, "compile_commands.json")):
            return os.path.normpath(d)
    raise UsageError(f"no compile_commands.json in {src} or {', '.join(s for s in DB_SUBDIRS if s)}/ under it")


def count_tus(db):
    try:
        with open(os.path.join(db, "compile_commands.json"), encoding="utf-8") as f:
            entries = json.load(f)
    except (OSError, ValueError) as e:
        raise UsageError(f"{db}/compile_commands.json: {e}")
    files = set()
    for e in entries:
        files.add(os.path.normpath(os.path.join(e.get("directory", ""), e.get("file", ""))))
    return len(files)


def git(src, *args):
    try:
        out = subprocess.run(["git", "-C", src, *args], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out


def tree_matches(src, project):
    """(HEAD, whether the tree is at the labelled commit); a patched project's HEAD descends from it."""
    out = git(src, "rev-parse", "HEAD")
    if out is None or out.returncode != 0:
        return None, True  # not a git tree: nothing to compare
    head, commit = out.stdout.strip(), str(project["commit"])
    if head.startswith(commit):
        return head, True
    if project.get("patch"):
        anc = git(src, "merge-base", "--is-ancestor", commit, head)
        return head, anc is not None and anc.returncode == 0
    return head, False


VALUE_FLOW = re.compile(r"value flow: (\d+) places, (\d+) objects, (\d+) pointer sets widened")
PEAK_RSS = re.compile(r"peak RSS (\d+) KiB")


def children_cpu():
    """CPU seconds (user + sys) of the children this process has waited for."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_checker(checker, db, extra, jobs, timeout):
    # --timings (stderr) gives the checker's peak memory and its value-flow counts.
    argv = [checker, "-p", db, "--format=json", f"-j{jobs}", "--timings", *extra]
    start, cpu_before = time.monotonic(), children_cpu()
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout} s", "argv": argv}
    except OSError as e:
        return {"error": f"cannot run {checker}: {e.strerror}", "argv": argv}
    wall = time.monotonic() - start
    # Runs are one at a time: the children's CPU since the last is this run's (user + sys).
    cpu = children_cpu() - cpu_before
    peak = PEAK_RSS.search(proc.stderr or "")
    peak_mib = int(peak.group(1)) / 1024 if peak else None
    flow = VALUE_FLOW.search(proc.stderr or "")
    widened = int(flow.group(3)) if flow else None
    if proc.returncode not in (0, 1, 3):
        tail = proc.stderr.strip().splitlines()[-3:]
        return {"error": f"exit status {proc.returncode}: " + " | ".join(tail), "argv": argv, "wall": wall}
    try:
        out = json.loads(proc.stdout)
    except ValueError:
        return {"error": "output is not JSON", "argv": argv, "wall": wall}
    return {
        "findings": out.get("findings", []),
        "files": out.get("summary", {}).get("files"),
        "parse_errors": out.get("summary", {}).get("parse_errors", len(out.get("unparsed", []))),
        "unparsed": out.get("unparsed", []),
        "wall": wall,
        "cpu": cpu,
        "peak_mib": peak_mib,
        "widened": widened,
        "argv": argv,
    }


# --------------------------------------------------------------------------------------------
# Matching

def relpath(path, root):
    path = os.path.realpath(path)
    if path == root or path.startswith(root + os.sep):
        return os.path.relpath(path, root)
    return path


def anchors(place):
    yield place["file"], place["function"], place["line"]
    for alt in place.get("also_at", []) or []:
        yield alt["file"], alt["function"], alt["line"]


def score(project, result, src, window):
    """Match one run's findings to the project's labels."""
    index = SourceIndex(src)
    labels = []  # (place, label)
    for place in project["places"] or []:
        for lab in place["labels"]:
            labels.append((place, lab))
    hits = {id(lab): [] for _, lab in labels}
    false, tolerated, unlabelled = [], [], []
    for f in result["findings"]:
        rel = relpath(f.get("file", ""), src)
        line = f.get("line", 0)
        rule = f.get("rule")
        best = None  # (distance, place, label)
        for place, lab in labels:
            if lab["rule"] != rule:
                continue
            for afile, afunc, aline in anchors(place):
                if afile != rel:
                    continue
                span = index.span(afile, afunc, aline)
                if span and span[1] <= line <= span[2]:
                    dist = abs(line - aline) / 1000.0  # in the function: always preferred
                elif abs(line - aline) <= window:
                    dist = 1 + abs(line - aline)
                else:
                    continue
                if best is None or dist < best[0]:
                    best = (dist, place, lab)
        func = index.function_at(rel, line)
        shown = dict(file=rel, line=line, rule=rule, function=func[0] if func else "?",
                     message=f.get("message", ""))
        if best is None:
            unlabelled.append(shown)
            continue
        _, place, lab = best
        hits[id(lab)].append(shown)
        if lab["expect"] == "none":
            false.append(dict(shown, why=lab["why"]))
        elif lab["expect"] == "either":
            tolerated.append(shown)
    found, missed = [], []
    for place, lab in labels:
        if lab["expect"] != "report":
            continue
        entry = dict(file=place["file"], function=place["function"], line=place["line"], rule=lab["rule"],
                     pattern=place.get("pattern", []), why=lab["why"])
        (found if hits[id(lab)] else missed).append(entry)
    return dict(found=found, missed=missed, false=false, tolerated=tolerated, unlabelled=unlabelled,
                bugs=len(found) + len(missed), correct=sum(1 for _, l in labels if l["expect"] == "none"))


# --------------------------------------------------------------------------------------------
# Report

def fmt_time(s):
    return "-" if s is None else f"{s:.1f}s"


def print_project(name, info, runs, order):
    print(f"== {name}  commit {info['commit'][:12]}  TUs {info['tus']}"
          + ("" if info.get("head_ok", True) else f"  (WARNING: the tree is at {info['head'][:12]}, not the labelled commit)"))
    for tag in order:
        r = runs[tag]
        if "error" in r:
            print(f"  [{tag}] could not run: {r['error']}")
            continue
        s = r["score"]
        print(f"  [{tag}] bugs found {len(s['found'])}/{s['bugs']}  missed {len(s['missed'])}  false {len(s['false'])}"
              f"  tolerated {len(s['tolerated'])}  unlabelled {len(s['unlabelled'])}"
              f"  files {r['files']}  parse errors {r['parse_errors']}  wall {fmt_time(r['wall'])}"
              f"  cpu {fmt_time(r.get('cpu') or 0)}  peak {r.get('peak_mib') or 0:.0f} MiB  widened {r.get('widened')}")
    for tag in order:
        r = runs[tag]
        if "error" in r:
            continue
        s = r["score"]
        for e in s["found"]:
            print(f"    [{tag}] found   {e['file']}:{e['line']} {e['function']} {e['rule']}")
        for e in s["missed"]:
            print(f"    [{tag}] MISSED  {e['file']}:{e['line']} {e['function']} {e['rule']}  ({', '.join(e['pattern'])})")
        for e in s["false"]:
            print(f"    [{tag}] FALSE   {e['file']}:{e['line']} {e['function']} {e['rule']}: {e['message'][:110]}")
        for e in s["tolerated"]:
            print(f"    [{tag}] either  {e['file']}:{e['line']} {e['function']} {e['rule']}")
        for e in s["unlabelled"]:
            print(f"    [{tag}] UNLABELLED {e['file']}:{e['line']} {e['function']} {e['rule']}: {e['message'][:110]}")


def project_numbers(info, run):
    """One run's counts for one project; None when the run failed."""
    if "error" in run:
        return None
    s = run["score"]
    return dict(found=len(s["found"]), bugs=s["bugs"], missed=len(s["missed"]), false=len(s["false"]),
                tolerated=len(s["tolerated"]), unlabelled=len(s["unlabelled"]), correct=s["correct"],
                tus=info["tus"], wall=run["wall"], cpu=run.get("cpu") or 0.0, peak=run.get("peak_mib") or 0.0,
                widened=run.get("widened") or 0)


def totals(results, tag, member=lambda info: True):
    """The counts of one run (tag) summed over the projects that `member` selects."""
    t = dict(found=0, bugs=0, missed=0, false=0, tolerated=0, unlabelled=0, correct=0, tus=0, wall=0.0,
             cpu=0.0, peak=0.0, widened=0, projects=0, failed=0)
    for info, runs in results:
        r = runs.get(tag)
        if r is None or not member(info):
            continue
        n = project_numbers(info, r)
        if n is None:
            t["failed"] += 1
            continue
        t["projects"] += 1
        for k in ("found", "bugs", "missed", "false", "tolerated", "unlabelled", "correct", "tus", "wall", "cpu",
                  "widened"):
            t[k] += n[k]
        t["peak"] = max(t["peak"], n["peak"])  # a group's peak: its largest project's
    # The two rates that compare groups of different size: labelled bugs found, and labels of
    # correct code (expect: none) that drew a finding. None where the group has no such label.
    t["found_pct"] = round(100.0 * t["found"] / t["bugs"], 1) if t["bugs"] else None
    t["false_pct"] = round(100.0 * t["false"] / t["correct"], 1) if t["correct"] else None
    return t


def groupings(results):
    """[(label, member)]: the whole corpus, each half, each language, each half's languages; only
    groups that hold a scored project."""
    out = [("total", lambda info: True)]
    for half in HALVES:
        out.append((f"{half} half", lambda info, h=half: info["half"] == h))
    for lang in LANGUAGES:
        out.append((lang, lambda info, l=lang: info["language"] == l))
    for half in HALVES:
        for lang in LANGUAGES:
            out.append((f"{half} half, {lang}", lambda info, h=half, l=lang: info["half"] == h and info["language"] == l))
    return [(label, m) for label, m in out if any(m(info) for info, _ in results)]


def group_totals(results, order):
    """{label: {tag: totals}} for every grouping."""
    return {label: {tag: totals(results, tag, member) for tag in order} for label, member in groupings(results)}


COLUMNS = ("found", "missed", "false", "tolerated", "unlabelled", "found %", "false %", "wall", "cpu", "peak MiB",
           "widened")


def cells(per_tag, order):
    """The COLUMNS of one row, each "before -> after" when two runs were made."""
    out = []
    for c in COLUMNS:
        vals = []
        for tag in order:
            v = per_tag.get(tag)
            if v is None:
                vals.append("err")
            elif c in ("wall", "cpu"):
                vals.append(fmt_time(v[c]))
            elif c == "peak MiB":
                vals.append(f"{v['peak']:.0f}")
            elif c == "found":
                vals.append(f"{v['found']}/{v['bugs']}")
            elif c in ("found %", "false %"):
                pct = v["found_pct" if c == "found %" else "false_pct"]
                vals.append("-" if pct is None else f"{pct:.0f}%")
            else:
                vals.append(str(v[c]))
        out.append(" -> ".join(vals))
    return out


def project_row(info, runs, order):
    per = {}
    for tag in order:
        n = project_numbers(info, runs[tag])
        if n is not None:
            n["found_pct"] = round(100.0 * n["found"] / n["bugs"], 1) if n["bugs"] else None
            n["false_pct"] = round(100.0 * n["false"] / n["correct"], 1) if n["correct"] else None
            per[tag] = n
    return per


def print_table(results, order):
    width = 19 if len(order) > 1 else 10
    head = f"{'project':<28} {'half':<4} {'lang':<4} {'TUs':>5}  " + "  ".join(f"{c:>{width}}" for c in COLUMNS)
    print()
    print(head)
    print("-" * len(head))
    for info, runs in results:
        print(f"{info['name']:<28} {info['half']:<4} {info['language']:<4} {info['tus']:>5}  "
              + "  ".join(f"{c:>{width}}" for c in cells(project_row(info, runs, order), order)))
    print("-" * len(head))
    groups = group_totals(results, order)
    print(f"{'group':<28} {'':<4} {'':<4} {'TUs':>5}  " + "  ".join(f"{c:>{width}}" for c in COLUMNS))
    for label, per_tag in groups.items():
        tus = per_tag[order[-1]]["tus"]
        print(f"{label:<38} {tus:>5}  " + "  ".join(f"{c:>{width}}" for c in cells(per_tag, order)))
    print("found % = labelled bugs found; false % = labels of correct code (expect: none) with a finding")
    for tag in order:
        if groups["total"][tag]["failed"]:
            print(f"[{tag}] {groups['total'][tag]['failed']} project(s) could not run: the totals above leave them out")


def results_markdown(results, order):
    """The run as Markdown: a table per project, then the groups (halves, languages)."""
    out = ["| project | half | language | TUs | " + " | ".join(COLUMNS) + " |",
           "|---|---|---|---|" + "---|" * len(COLUMNS)]
    for info, runs in results:
        out.append(f"| {info['name']} | {info['half']} | {info['language']} | {info['tus']} | "
                   + " | ".join(cells(project_row(info, runs, order), order)) + " |")
    out += ["", "| group | projects | TUs | " + " | ".join(COLUMNS) + " |", "|---|---|---|" + "---|" * len(COLUMNS)]
    for label, per_tag in group_totals(results, order).items():
        last = per_tag[order[-1]]
        name = f"**{label}**" if label == "total" else label
        out.append(f"| {name} | {last['projects']} | {last['tus']} | " + " | ".join(cells(per_tag, order)) + " |")
    return "\n".join(out) + "\n"


def _cell(text):
    return " ".join(str(text).split()).replace("|", "\\|")


def labels_markdown(labelled):
    """The labels as Markdown: one section per project, one table row per (place, rule)."""
    out = []
    for name, p in labelled.items():
        places = p["places"] or []
        bugs = sum(1 for pl in places for l in pl["labels"] if l["expect"] == "report")
        out.append(f"#### {name}\n")
        out.append(f"- repository: {p.get('repo', '?')} at `{str(p['commit'])[:12]}`"
                   + (f" ({p['tag']})" if p.get("tag") else "") + f", {p.get('language', '?')}, {p.get('half', '?')} half")
        if p.get("patch"):
            out.append(f"- local change: {_cell(p['patch'])}")
        if p.get("fix"):
            out.append(f"- fixed upstream by: {_cell(p['fix'])}")
        out.append(f"- compile database: {_cell(p.get('database', '?'))}")
        out.append(f"- {len(places)} places, {bugs} labelled bugs")
        out.append("")
        if not places:
            out.append("No AF_UNIX credential or fd-passing place.\n")
            continue
        out.append("| place | rule | expected | why | pattern |")
        out.append("|---|---|---|---|---|")
        for pl in places:
            where = f"`{pl['file']}:{pl['line']}` {pl['function']}"
            for alt in pl.get("also_at", []) or []:
                where += f" (or `{alt['file']}:{alt['line']}` {alt['function']})"
            for lab in pl["labels"]:
                rule = lab["rule"].replace("afunix-", "") + (f" ({lab['variant']})" if lab.get("variant") else "")
                out.append(f"| {where} | {rule} | {lab['expect']} | {_cell(lab['why'])} | "
                           f"{', '.join(pl.get('pattern', []))} |")
        out.append("")
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------------------------

def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("--checker", help="the afunix-check to score (needed for a run)")
    ap.add_argument("--baseline-checker", help="a second afunix-check, run in the same invocation (before)")
    ap.add_argument("--checker-args", action="append", default=[],
                    help="extra arguments for --checker (shell-quoted, repeatable), e.g. '--single-tu'")
    ap.add_argument("--baseline-checker-args", action="append", default=None,
                    help="extra arguments for --baseline-checker (default: the same as --checker-args)")
    ap.add_argument("--labels", default=DEFAULT_LABELS, help="labels file (default: bench/corpus/labels.yaml)")
    ap.add_argument("--root", help="look for every labelled project NAME as ROOT/NAME (those present are run)")
    ap.add_argument("-j", "--jobs", type=int, default=2, help="-j for the checker (default 2)")
    ap.add_argument("--window", type=int, help="line window for matching (default: the labels file's, 10)")
    ap.add_argument("--timeout", type=int, default=3600, help="seconds per checker run (default 3600)")
    ap.add_argument("--json", metavar="FILE", help="also write every number and list as JSON")
    ap.add_argument("--list", action="store_true", help="list the labelled projects and exit")
    ap.add_argument("--markdown", action="store_true",
                    help="with projects: print the results as Markdown tables (per project, then per half and "
                         "language) after the text report; without: print the labels as docs/accuracy.md's "
                         "per-project tables and exit")
    ap.add_argument("projects", nargs="*", metavar="NAME=DIR[:DB]")
    return ap.parse_args(argv)


def main(argv):
    args = parse_args(argv)
    window, labelled = load_labels(args.labels)
    if args.window is not None:
        window = args.window
    if args.list:
        for name, p in labelled.items():
            bugs = sum(1 for pl in p["places"] or [] for l in pl["labels"] if l["expect"] == "report")
            print(f"{name:<28} {p['half']:<4} {p['language']:<3} {p['commit'][:12]}  "
                  f"{len(p['places'] or [])} places, {bugs} labelled bugs")
        return 0
    if args.markdown and not args.projects and not args.root:
        sys.stdout.write(labels_markdown(labelled))
        return 0
    requests = []
    for spec in args.projects:
        name, eq, rest = spec.partition("=")
        if not eq or not rest:
            raise UsageError(f"expected NAME=DIR, got {spec!r}")
        src, _, db = rest.partition(":")
        requests.append((name, src, db or None))
    if args.root:
        given = {n for n, _, _ in requests}
        for name in labelled:
            d = os.path.join(args.root, name)
            if name not in given and os.path.isdir(d):
                try:
                    find_database(d)
                except UsageError:
                    print(f"corpus.py: {name}: {d} has no compile database, skipped (labels only)", file=sys.stderr)
                    continue
                requests.append((name, d, None))
    if not requests:
        raise UsageError("no project given (NAME=DIR ... or --root DIR); --list shows the labelled ones")
    if not args.checker:
        raise UsageError("--checker is needed to score projects")
    for c in [args.checker] + ([args.baseline_checker] if args.baseline_checker else []):
        if not (os.path.isfile(c) and os.access(c, os.X_OK)):
            raise UsageError(f"{c}: not an executable")

    checker_args = [a for s in args.checker_args for a in shlex.split(s)]
    base_args = checker_args if args.baseline_checker_args is None else \
        [a for s in args.baseline_checker_args for a in shlex.split(s)]
    runs_of = []  # (tag, checker, extra)
    if args.baseline_checker:
        runs_of.append(("before", args.baseline_checker, base_args))
    runs_of.append(("after" if args.baseline_checker else "checker", args.checker, checker_args))
    order = [t for t, _, _ in runs_of]

    results = []
    could_not_run = False
    for name, src, dbdir in requests:
        if name not in labelled:
            raise UsageError(f"{name}: no such project in {args.labels} (--list shows them)")
        project = labelled[name]
        src = os.path.realpath(src)
        if not os.path.isdir(src):
            raise UsageError(f"{name}: {src} is not a directory")
        db = find_database(src, dbdir)
        head, head_ok = tree_matches(src, project)
        info = dict(name=name, commit=str(project["commit"]), half=project["half"], language=project["language"],
                    src=src, db=db, tus=count_tus(db), head=head or "", head_ok=head_ok)
        runs = {}
        for tag, checker, extra in runs_of:
            r = run_checker(checker, db, extra, args.jobs, args.timeout)
            if "error" in r:
                could_not_run = True
            else:
                r["score"] = score(project, r, src, window)
            runs[tag] = r
        results.append((info, runs))
        print_project(name, info, runs, order)
        sys.stdout.flush()
    print_table(results, order)
    if args.markdown:
        print()
        sys.stdout.write(results_markdown(results, order))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(dict(runs=order,
                           projects=[dict(project=info, runs={t: {k: v for k, v in r.items() if k != "findings"}
                                                             for t, r in runs.items()}) for info, runs in results],
                           groups=group_totals(results, order)), f, indent=1)
    return 2 if could_not_run else 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except UsageError as e:
        print(f"corpus.py: {e}", file=sys.stderr)
        sys.exit(2)
