"""Fix verification: every afunix fix-it applied through each front end, on a copy of a project.

For one project (a source tree with a compile_commands.json) each front end works on its own copy:

  afunix-check --fix                  the whole program, applied in place
  afunix-check --export-fixes         the whole program, applied by clang-apply-replacements-19
  clang-tidy --fix                    clang-tidy-19 --load libafunix-tidy.so, one TU at a time
  run-clang-tidy -fix                 run-clang-tidy-19: per-TU exports, clang-apply-replacements
  afunix-clangd                       every afunix diagnostic's quick fix (code action), over LSP,
                                      with the facts of an afunix-check -p run (the editor setup)

and for each fix-it a front end offers it records: offered; applied (the front end's result is
the copy with exactly the edits it offered); compile (every translation unit the edits touch
still compiles under its own compile command with -Wall -Werror added, or, where the untouched
file already did not, gets no diagnostic it did not have); gone (afunix-check, judging as the
front end does, no longer reports the finding). Findings that appear after the fixes are "new".
Results of front ends that offered the same edits must be byte-identical.

Used by integration.fixes (checker/integration-test/fixes_test.py, on testdata) and by
bench/fix-verify.py (on real projects).
"""
import collections
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

import afunix_testlib as lib

FRONT_ENDS = ("afunix-check --fix", "afunix-check --export-fixes", "clang-tidy --fix",
              "run-clang-tidy -fix", "afunix-clangd")
# The front ends that see one translation unit at a time (clang-tidy's view): judged by
# afunix-check --single-tu. afunix-clangd sees the whole program through the stored facts.
PER_TU = {"clang-tidy --fix", "run-clang-tidy -fix"}
SOURCE_SUFFIXES = (".c", ".cc", ".cpp", ".cxx", ".c++", ".C")
C_FAMILY = SOURCE_SUFFIXES + (".h", ".hh", ".hpp", ".hxx", ".inc", ".inl")


class Tools:
    def __init__(self, checker, clang_tidy, run_clang_tidy, apply_replacements, plugin, clangd):
        self.checker = os.path.abspath(checker)
        self.clang_tidy = clang_tidy
        self.run_clang_tidy = run_clang_tidy
        self.apply_replacements = apply_replacements
        self.plugin = os.path.abspath(plugin) if plugin else None
        self.clangd = os.path.abspath(clangd) if clangd else None


class Project:
    """A source tree with its compile database (`build`, relative to `root`)."""

    def __init__(self, name, root, build, options=(), check_options=None):
        self.name = name
        self.root = os.path.abspath(root)
        self.build = build
        self.options = list(options)
        # CheckOptions for clang-tidy and .clangd; None: the options have no such form.
        self.check_options = check_options
        # Relative paths of the units clang-tidy and run-clang-tidy (tidy_units) and the editor
        # (editor_units) open; None: all. On a large database only those with fix-its matter.
        self.tidy_units = None
        self.editor_units = None

    def restricted(self, relative):
        units = self.units()
        return units if relative is None else [u for u in units
                                               if os.path.relpath(u, self.root) in relative]

    @property
    def database(self):
        return os.path.join(self.root, self.build)

    def entries(self):
        with open(os.path.join(self.database, "compile_commands.json")) as f:
            return json.load(f)

    def units(self):
        out = []
        for e in self.entries():
            path = e["file"] if os.path.isabs(e["file"]) else os.path.join(e["directory"], e["file"])
            out.append(os.path.normpath(path))
        return sorted(set(out))


def copy_project(project, dest):
    """A copy of the project's tree at `dest` whose database names the copy."""
    shutil.copytree(project.root, dest, symlinks=True,
                    ignore=shutil.ignore_patterns(".git", "*.o", "*.a", "*.so", "*.so.*", "*.lo",
                                                  "afunix-facts.json", "afunix-cache"))
    old, new = project.root, dest

    def moved(text):
        return text.replace(old + "/", new + "/") if text != old else new

    entries = project.entries()
    for e in entries:
        for key in ("directory", "file", "output"):
            if key in e:
                e[key] = moved(e[key])
        if "arguments" in e:
            e["arguments"] = [moved(a) for a in e["arguments"]]
        if "command" in e:
            e["command"] = e["command"].replace(old + "/", new + "/")
    with open(os.path.join(dest, project.build, "compile_commands.json"), "w") as f:
        json.dump(entries, f, indent=1)
    copy = Project(project.name, dest, project.build, project.options, project.check_options)
    copy.tidy_units, copy.editor_units = project.tidy_units, project.editor_units
    return copy


def run(command, cwd, expect=(0,), timeout=1800, env=None):
    proc = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)
    if proc.returncode not in expect:
        raise AssertionError(f"{' '.join(shlex.quote(c) for c in command)} exited "
                             f"{proc.returncode}:\n{proc.stdout[-3000:]}{proc.stderr[-3000:]}")
    return proc


def check_json(tools, project, per_tu, extra=()):
    mode = ["--single-tu"] if per_tu else []
    if per_tu and not extra and project.tidy_units is not None:
        # One TU at a time, only the units the front ends open can change (a large database).
        extra = project.restricted(project.tidy_units)
        if not extra:
            return {"findings": []}
    proc = run([tools.checker, "--format=json", "--quiet", *project.options, *mode, *extra,
                "-p", project.database], project.root, expect=(0, 1, 3))
    return json.loads(proc.stdout)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def snapshot(root):
    """Every file of the tree by relative path (sources, headers and service files)."""
    out = {}
    for base, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if d not in (".git", "afunix-cache")]
        for name in names:
            if name in ("compile_commands.json", "afunix-facts.json", ".clangd", ".clang-tidy") or \
                    name.endswith((".o", ".yaml", ".log")):
                continue
            path = os.path.join(base, name)
            if os.path.isfile(path) and not os.path.islink(path):
                out[os.path.relpath(path, root)] = read(path)
    return out


# --- offers: the fix-its a front end offers, as byte edits -------------------------------------

class Offer:
    def __init__(self, rule, file, line, message, edits):
        self.rule, self.file, self.line, self.message = rule, file, line, message
        self.edits = sorted(edits)  # (file, offset, length, text), file relative to the root

    def key(self):
        return (self.rule, self.file, self.message)


def offers_from_json(report, root):
    return [Offer(f["rule"], os.path.relpath(f["file"], root), f["line"], f["message"],
                  [(os.path.relpath(e["file"], root), e["offset"], e["length"], e["text"])
                   for e in f["fixes"]])
            for f in report["findings"] if f["fixes"]]


def line_of(path, offset):
    return read(path)[:offset].count(b"\n") + 1


def offers_from_yaml(paths, root, directory_of=None):
    """clang-tidy's --export-fixes YAML (one file or several)."""
    import yaml
    out = []
    for path in paths:
        with open(path) as f:
            doc = yaml.safe_load(f) or {}
        for d in doc.get("Diagnostics") or []:
            name = d.get("DiagnosticName", "")
            if not name.startswith("afunix-"):
                continue
            message = d.get("DiagnosticMessage", {})
            # Paths are as the compile command names them: relative to its directory.
            where = lambda file: os.path.normpath(os.path.join(d.get("BuildDirectory", root), file))
            edits = [(os.path.relpath(where(r["FilePath"]), root), r["Offset"], r["Length"],
                      r.get("ReplacementText", ""))
                     for r in message.get("Replacements") or []]
            if not edits:
                continue
            file = where(message.get("FilePath", ""))
            out.append(Offer(name, os.path.relpath(file, root), line_of(file, message.get("FileOffset", 0)),
                             re.sub(r" \[[\w,.-]+\]$", "", message.get("Message", "")), edits))
    return out


def apply_edits(data, edits):
    """`data` (bytes) with byte edits applied, or None when two of them overlap."""
    edits = sorted(set((o, l, t) for o, l, t in edits), key=lambda e: (e[0], e[1]))
    end = -1
    for i, (o, l, t) in enumerate(edits):
        if o < end or (i and l == 0 and edits[i - 1][1] == 0 and edits[i - 1][0] == o):
            return None
        end = max(end, o + l)
    for o, l, t in sorted(edits, reverse=True):
        data = data[:o] + t.encode() + data[o + l:]
    return data


def expected_result(before, offers):
    """The tree's changed files after applying exactly `offers`' edits: {relative path: bytes}."""
    by_file = collections.defaultdict(list)
    for offer in offers:
        for file, o, l, t in offer.edits:
            by_file[file].append((o, l, t))
    out = {}
    for file, edits in by_file.items():
        applied = apply_edits(before[file], edits)
        if applied is None:
            return None
        out[file] = applied
    return out


# --- front ends ------------------------------------------------------------------------------

def write_tidy_config(project, path):
    with open(path, "w") as f:
        f.write("Checks: '-*,afunix-*'\n")
        if project.check_options:
            f.write("CheckOptions:\n")
        for key, value in sorted((project.check_options or {}).items()):
            f.write(f"  {key}: '{value}'\n")


def afunix_check_fix(tools, project, work):
    report = check_json(tools, project, per_tu=False, extra=["--fix"])
    return offers_from_json(report, project.root)


def afunix_check_export(tools, project, work):
    fixes = os.path.join(work, "exported")
    os.makedirs(fixes)
    report = check_json(tools, project, per_tu=False,
                        extra=[f"--export-fixes={os.path.join(fixes, 'fixes.yaml')}"])
    run([tools.apply_replacements, fixes], project.root)
    return offers_from_json(report, project.root)


def clang_tidy_fix(tools, project, work):
    config = os.path.join(work, "tidy.yaml")
    write_tidy_config(project, config)
    exported = os.path.join(work, "tidy-fixes.yaml")
    units = project.restricted(project.tidy_units)
    if not units:
        return []
    # --fix-errors: a project whose files clang only half-parses still gets afunix-check's answer
    # compared (afunix-check applies those fix-its with --fix-errors too; testdata parses cleanly).
    run([tools.clang_tidy, f"--load={tools.plugin}", f"--config-file={config}", "--quiet",
         "--fix", f"--export-fixes={exported}", "-p", project.database, *units], project.root,
        expect=(0, 1))
    return offers_from_yaml([exported], project.root) if os.path.exists(exported) else []


def run_clang_tidy_fix(tools, project, work):
    config = os.path.join(work, "tidy.yaml")
    write_tidy_config(project, config)
    exported = os.path.join(work, "run-clang-tidy") + os.sep
    units = project.restricted(project.tidy_units)
    if not units:
        return []
    # Its positional arguments are regular expressions over the database's file names.
    only = [] if project.tidy_units is None else ["^" + re.escape(u) + "$" for u in units]
    run([tools.run_clang_tidy, f"-clang-tidy-binary={tools.clang_tidy}",
         f"-clang-apply-replacements-binary={tools.apply_replacements}", f"-load={tools.plugin}",
         f"-config-file={config}", "-p", project.database, "-fix", f"-export-fixes={exported}",
         "-quiet", "-j", "2", *only], project.root, expect=(0, 1))
    yamls = [os.path.join(exported, f) for f in sorted(os.listdir(exported)) if f.endswith(".yaml")] \
        if os.path.isdir(exported) else []
    return offers_from_yaml(yamls, project.root)


def clangd_config(project):
    lines = ["Diagnostics:", "  ClangTidy:", "    Add: [afunix-*]", "    FastCheckFilter: Loose"]
    if project.check_options:
        lines.append("    CheckOptions:")
    lines += [f"      {k}: '{v}'" for k, v in sorted((project.check_options or {}).items())]
    return "\n".join(lines) + "\n"


def lsp_offset(data, position):
    """Byte offset of an LSP position (0-based line, UTF-16 character) in `data`."""
    lines = data.split(b"\n")
    line = position["line"]
    start = sum(len(l) + 1 for l in lines[:line])
    text = lines[line].decode("utf-8", "replace") if line < len(lines) else ""
    units, chars = 0, 0
    for ch in text:
        if units >= position["character"]:
            break
        units += len(ch.encode("utf-16-le")) // 2
        chars += 1
    return start + len(text[:chars].encode())


def afunix_clangd(tools, project, work):
    from clangd_lsp_test import Lsp
    # The editor set-up of guide-editors.md: facts of an afunix-check -p run, a .clangd.
    stored = check_json(tools, project, per_tu=False)
    # clangd rewords a message (a capital first letter, "(fix available)"): name the finding by
    # afunix-check's words for it.
    messages = {(f["rule"], f["file"], f["line"]): f["message"] for f in stored["findings"]}
    with open(os.path.join(project.root, ".clangd"), "w") as f:
        f.write(clangd_config(project))
    env = dict(os.environ, XDG_CONFIG_HOME=os.path.join(work, "xdg"), HOME=work)
    env.pop("AFUNIX_DOCS_URL", None)
    lsp = Lsp([tools.clangd, "--log=error", "--background-index=false", "--pch-storage=memory",
               f"--compile-commands-dir={project.database}"], work, env)
    offers = []
    try:
        lsp.request("initialize", {
            "processId": os.getpid(), "rootUri": "file://" + project.root,
            "capabilities": {"textDocument": {
                "publishDiagnostics": {"relatedInformation": True},
                "codeAction": {"codeActionLiteralSupport": {
                    "codeActionKind": {"valueSet": ["quickfix"]}}}}}})
        lsp.notify("initialized", {})
        for unit in project.restricted(project.editor_units):
            uri = "file://" + unit
            data = read(unit)
            lsp.notify("textDocument/didOpen", {"textDocument": {
                "uri": uri, "languageId": "cpp" if unit.endswith((".cc", ".cpp", ".cxx")) else "c",
                "version": 1, "text": data.decode("utf-8", "replace")}})
            params = lsp.diagnostics_for({uri})[uri]
            for diag in params["diagnostics"]:
                if not str(diag.get("code", "")).startswith("afunix-"):
                    continue
                actions = lsp.request("textDocument/codeAction", {
                    "textDocument": {"uri": uri}, "range": diag["range"],
                    "context": {"diagnostics": [diag], "only": ["quickfix"]}}) or []
                fixes = [a for a in actions if a.get("kind") == "quickfix" and a.get("edit")]
                assert len(fixes) <= 1, f"{unit}: {len(fixes)} quick fixes for one finding: {fixes}"
                if not fixes:
                    continue
                edits = []
                for target, changes in fixes[0]["edit"].get("changes", {}).items():
                    path = target[len("file://"):]
                    content = read(path)
                    for change in changes:
                        begin = lsp_offset(content, change["range"]["start"])
                        end = lsp_offset(content, change["range"]["end"])
                        edits.append((os.path.relpath(path, project.root), begin, end - begin,
                                      change["newText"]))
                line = diag["range"]["start"]["line"] + 1
                offers.append(Offer(diag["code"], os.path.relpath(unit, project.root), line,
                                    messages.get((diag["code"], unit, line), diag["message"]), edits))
                offers[-1].title = fixes[0].get("title", "")
            lsp.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    finally:
        lsp.close()
    os.remove(os.path.join(project.root, ".clangd"))
    # What an editor user gets by taking every quick fix of the snapshot: all edits at once.
    before = snapshot(project.root)
    result = expected_result(before, offers)
    if result is not None:
        for file, data in result.items():
            with open(os.path.join(project.root, file), "wb") as f:
                f.write(data)
    return offers


RUNNERS = {
    "afunix-check --fix": afunix_check_fix,
    "afunix-check --export-fixes": afunix_check_export,
    "clang-tidy --fix": clang_tidy_fix,
    "run-clang-tidy -fix": run_clang_tidy_fix,
    "afunix-clangd": afunix_clangd,
}


# --- judging the result ----------------------------------------------------------------------

DEPENDENCY_FLAGS = {"-MD", "-MMD", "-MP", "-M", "-MM"}
FLAGS_WITH_VALUE = {"-MF", "-MT", "-MQ", "-o"}


def compile_command(entry):
    args = entry.get("arguments") or shlex.split(entry["command"])
    while args and os.path.basename(args[0]) in ("ccache", "distcc", "sccache"):
        args = args[1:]
    out, skip = [], False
    for a in args:
        if skip:
            skip = False
            continue
        if a in FLAGS_WITH_VALUE:
            skip = True
            continue
        if a in DEPENDENCY_FLAGS or (len(a) > 3 and a[:3] in FLAGS_WITH_VALUE) or \
                (a.startswith("-o") and a.endswith(".o")):
            continue
        out.append(a)
    return out + ["-fsyntax-only", "-Wall", "-Werror"]


DIAG_LINE = re.compile(r"^(.*?):\d+:\d+: (warning|error): (.*)$")


def compile_diagnostics(entry):
    """(ok, set of diagnostics without their positions) of the entry's file with -Wall -Werror."""
    proc = subprocess.run(compile_command(entry), cwd=entry["directory"], capture_output=True,
                          text=True, timeout=600)
    found = set()
    for line in proc.stderr.splitlines():
        m = DIAG_LINE.match(line)
        if m:
            found.add((os.path.basename(m.group(1)), m.group(3)))
    return proc.returncode == 0, found, proc.stderr


class Outcome:
    def __init__(self, front_end):
        self.front_end = front_end
        self.offers = []
        self.applied = set()    # indexes into offers
        self.compiled = set()
        self.no_compile = set() # edits only files that are not C/C++ (service files)
        self.gone = set()
        self.new = []           # findings after the fixes that were not there before
        self.result = {}        # changed files: relative path -> bytes
        self.problems = []
        self.seconds = 0.0


def verify(project, tools, front_ends=FRONT_ENDS, keep=None, log=print, whole_report=None):
    """Runs every front end on its own copy of `project`; returns {front end: Outcome}.
    `whole_report`: afunix-check's JSON report of the project as it is (whole program), when the
    caller has it: the findings before any fix are not judged again."""
    outcomes = {}
    with tempfile.TemporaryDirectory(prefix="afunix-fixverify-") as tmp:
        before_tree = snapshot(project.root)
        judged, judged_after = {}, {}
        if whole_report is not None:
            judged[False] = findings_of(whole_report, project.root)
        # Compiler verdicts by unit: before any fix, and after each distinct result (front ends
        # that left the same bytes compile the same).
        compiled_before, compiled_after = {}, {}
        for front_end in front_ends:
            if front_end in PER_TU or front_end == "afunix-clangd":
                needs = tools.plugin if front_end in PER_TU else tools.clangd
                if not needs or project.check_options is None:
                    continue
            out = Outcome(front_end)
            outcomes[front_end] = out
            work = os.path.join(tmp, re.sub(r"\W+", "-", front_end).strip("-"))
            os.makedirs(work)
            copy = copy_project(project, os.path.join(work, "tree"))
            per_tu = front_end in PER_TU
            if per_tu not in judged:  # what afunix-check reports before any fix, by relative path
                judged[per_tu] = findings_of(check_json(tools, copy, per_tu), copy.root)
            start = time.monotonic()
            try:
                out.offers = RUNNERS[front_end](tools, copy, work)
            except (AssertionError, subprocess.TimeoutExpired) as e:
                out.problems.append(f"failed: {str(e)[:3000]}")
            out.seconds = time.monotonic() - start
            after_tree = snapshot(copy.root)
            out.result = {f: d for f, d in after_tree.items() if before_tree.get(f) != d}
            expected = expected_result(before_tree, out.offers)
            if expected is None:
                out.problems.append("its offered edits overlap")
                expected = {}
            for i, offer in enumerate(out.offers):
                files = {e[0] for e in offer.edits}
                if all(out.result.get(f) == expected.get(f) for f in files) and \
                        set(out.result) == set(expected):
                    out.applied.add(i)
            if set(out.result) != set(expected) or any(out.result[f] != expected[f] for f in out.result):
                out.problems.append("the result is not the copy with exactly the offered edits")
            # Compile what the edits touch: their translation units, every one when a header changed.
            changed = set(out.result)
            entries = copy.entries()
            headers = any(not f.endswith(SOURCE_SUFFIXES) and f.endswith(C_FAMILY) for f in changed)
            unit_ok = {}
            for entry in entries:
                unit = os.path.relpath(os.path.normpath(os.path.join(entry["directory"], entry["file"])),
                                       copy.root)
                if unit not in changed and not headers:
                    continue
                if unit not in compiled_before:
                    ok0, diags0, _ = compile_diagnostics(relocate(entry, copy.root, project.root))
                    compiled_before[unit] = (ok0, diags0)
                ok0, diags0 = compiled_before[unit]
                result_key = (unit, tuple(sorted(out.result.items())))
                if result_key not in compiled_after:
                    compiled_after[result_key] = compile_diagnostics(entry)
                ok, diags, stderr = compiled_after[result_key]
                unit_ok[unit] = ok if ok0 else not (diags - diags0)
                if not unit_ok[unit]:
                    out.problems.append(f"{unit} does not compile after the fixes:\n{stderr[-2000:]}")
            for i, offer in enumerate(out.offers):
                files = {e[0] for e in offer.edits}
                if not any(f.endswith(C_FAMILY) for f in files):
                    out.no_compile.add(i)
                    continue
                touched = [u for u in unit_ok if u in files or headers]
                if touched and all(unit_ok[u] for u in touched):
                    out.compiled.add(i)
            # The finding gone, and nothing new, as afunix-check judges the front end's view.
            before = judged[per_tu].copy()
            # Front ends that left the same bytes are judged once (findings by relative path).
            tree = (per_tu, tuple(sorted(out.result.items())))
            if tree not in judged_after:
                judged_after[tree] = findings_of(check_json(tools, copy, per_tu), copy.root)
            after = judged_after[tree].copy()
            left = after.copy()
            for i, offer in enumerate(out.offers):
                if left[offer.key()] < before[offer.key()]:
                    out.gone.add(i)
                    before[offer.key()] -= 1
            out.new = sorted((after - judged[per_tu]).elements())
            if out.new:
                out.problems.append(f"new findings after the fixes: {out.new}")
            if keep:
                shutil.copytree(copy.root, os.path.join(keep, work.split(os.sep)[-1]), symlinks=True, dirs_exist_ok=True)
            log(f"  {front_end}: {len(out.offers)} offered, {len(out.applied)} applied, "
                f"{len(out.compiled)} compile ({len(out.no_compile)} need none), {len(out.gone)} gone, "
                f"{len(out.new)} new ({out.seconds:.1f} s)")
    return outcomes


def findings_of(report, root):
    return collections.Counter((f["rule"], os.path.relpath(f["file"], root), f["message"])
                               for f in report["findings"])


def relocate(entry, old, new):
    """The compile database entry `entry` of a copy at `old`, for the original tree at `new`."""
    moved = dict(entry)
    moved["directory"] = entry["directory"].replace(old, new)
    moved["file"] = entry["file"].replace(old, new)
    if entry.get("arguments"):
        moved["arguments"] = [a.replace(old, new) for a in entry["arguments"]]
    if entry.get("command"):
        moved["command"] = entry["command"].replace(old, new)
    return moved


def same_edits(a, b):
    return sorted((o.rule, o.file, tuple(o.edits)) for o in a.offers) == \
        sorted((o.rule, o.file, tuple(o.edits)) for o in b.offers)


def identical_groups(outcomes):
    """Front ends grouped by their result (changed files and bytes)."""
    groups = []
    for name, out in outcomes.items():
        for group in groups:
            if outcomes[group[0]].result == out.result:
                group.append(name)
                break
        else:
            groups.append([name])
    return groups


def tally(outcomes, table):
    """Adds the outcomes' counts to table[(rule, front end)] = Counter."""
    for name, out in outcomes.items():
        for i, offer in enumerate(out.offers):
            row = table[(offer.rule, name)]
            row["offered"] += 1
            row["applied"] += i in out.applied
            row["compile"] += i in out.compiled
            row["no compile needed"] += i in out.no_compile
            row["gone"] += i in out.gone
        if out.new:
            table[("(new findings)", name)]["new"] += len(out.new)


def format_table(table, front_ends=FRONT_ENDS):
    rules = sorted({r for r, _ in table if not r.startswith("(")})
    lines = ["| rule | front end | offered | applied | compile | gone |", "|---|---|---|---|---|---|"]
    for rule in rules:
        for fe in front_ends:
            row = table.get((rule, fe))
            if not row:
                continue
            compile_text = str(row["compile"])
            if row["no compile needed"]:
                compile_text += f" (+{row['no compile needed']} service file)"
            lines.append(f"| {rule} | {fe} | {row['offered']} | {row['applied']} | {compile_text} | "
                         f"{row['gone']} |")
    for fe in front_ends:
        row = table.get(("(new findings)", fe))
        if row:
            lines.append(f"| new findings after the fixes | {fe} | | | | {row['new']} |")
    return "\n".join(lines)
