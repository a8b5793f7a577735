#!/usr/bin/env python3
"""The HTML report (--format=html, --html-dir) against the findings it draws.

For every testdata project with findings (pos_*), the page is parsed and compared with the JSON
report of the same run: one section per finding in order, its path (each placed note, then the
finding) listed and drawn at the right line of every file it crosses, with that line's real text,
and its fix-it shown as a diff whose lines are those of the source before and after the edits.
Then: runtime evidence badges (a confirmed finding, a run-time only one); hostile file names and
contents are escaped (no element comes from them); --html-dir writes the same findings as pages
and refuses a directory of the user's; and headless Chromium renders the reports: the DOM holds
the findings and steps, nothing is fetched but the page, and a screenshot is kept as an artifact.

usage: html_test.py --checker BIN [--chromium BIN] [--artifacts DIR]
"""
import argparse
import html.parser
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import afunix_testlib as lib
import fixes_test

FAILURES = []


def check(condition, message):
    if not condition:
        FAILURES.append(message)
        print(f"FAIL: {message}", file=sys.stderr)
    return condition


class Page(html.parser.HTMLParser):
    """What a report page holds: its elements by tag, the finding sections, and for each step note
    row (id finding-N-step-K) the source row above it (line number and text)."""

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.tags = []
        self.sections = []          # finding ids in order
        self.path_items = {}        # finding id -> [text of each path <li>]
        self.steps = {}             # "finding-N-step-K" -> (file caption, line, source text)
        self.diff_lines = {}        # finding id -> [text of each line of its diffs]
        self.diffs = {}             # finding id -> [text of each file's diff]
        self.badges = {}            # finding id -> [badge texts]
        self._stack = []
        self._section = None
        self._table_file = None
        self._row = None            # cells of the current <tr>
        self._row_id = None
        self._last_source = None    # (line, text) of the last source row
        self._in_path = False
        self._li = None
        self._pre_diff = None
        self._badge = None
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append((tag, a))
        if tag in ("br", "meta", "img", "input", "hr", "link"):
            return
        self._stack.append(tag)
        cls = (a.get("class") or "").split()
        if tag == "section" and "finding" in cls:
            self._section = a["id"]
            self.sections.append(a["id"])
            self.path_items[a["id"]] = []
            self.diff_lines[a["id"]] = []
            self.badges[a["id"]] = []
        elif tag == "ol" and "path" in cls:
            self._in_path = True
        elif tag == "li" and self._in_path:
            self._li = ""
        elif tag == "table" and "src" in cls:
            self._table_file = a.get("aria-label")
        elif tag == "tr" and self._table_file is not None:
            self._row, self._row_id = [], a.get("id")
        elif tag == "td" and self._row is not None:
            self._row.append("")
        elif tag == "pre" and "diff" in cls:
            self._pre_diff = ""
        elif tag == "span" and "badge" in cls and self._section:
            self._badge = ""

    def handle_endtag(self, tag):
        while self._stack and self._stack.pop() != tag:
            pass
        if tag == "section":
            self._section = None
        elif tag == "ol" and self._in_path:
            self._in_path = False
        elif tag == "li" and self._li is not None:
            self.path_items[self._section].append(self._li)
            self._li = None
        elif tag == "table":
            self._table_file = None
        elif tag == "tr" and self._row is not None:
            cells = self._row
            if self._row_id:
                self.steps[self._row_id] = (self._table_file, *(self._last_source or (None, None)))
            elif len(cells) == 2 and cells[0].strip().isdigit():
                self._last_source = (int(cells[0]), cells[1])
            self._row, self._row_id = None, None
        elif tag == "pre" and self._pre_diff is not None:
            self.diff_lines[self._section] += self._pre_diff.split("\n")
            self.diffs.setdefault(self._section, []).append(self._pre_diff)
            self._pre_diff = None
        elif tag == "span" and self._badge is not None:
            self.badges[self._section].append(self._badge)
            self._badge = None

    def handle_data(self, data):
        if self._li is not None:
            self._li += data
        if self._row is not None and self._row:
            self._row[-1] += data
        if self._pre_diff is not None:
            self._pre_diff += data
        if self._badge is not None:
            self._badge += data


def run(checker, project, *args, expect=(0, 1)):
    proc = subprocess.run([checker, "-p", project.database, "--quiet", *args], cwd=project.root,
                          capture_output=True, text=True, timeout=600)
    check(proc.returncode in expect, f"{project.name}: afunix-check {' '.join(args)} exited "
          f"{proc.returncode}: {proc.stderr[-2000:]}")
    return proc


def source_line(path, line):
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().split("\n")
    return lines[line - 1] if 0 < line <= len(lines) else None


def apply_edits(path, edits):
    with open(path, "rb") as f:
        data = f.read()
    for e in sorted(edits, key=lambda e: e["offset"], reverse=True):
        data = data[:e["offset"]] + e["text"].encode() + data[e["offset"] + e["length"]:]
    return data.decode("utf-8", "replace")


def compare(name, findings, page, root, first=1):
    """The page against the JSON report's findings (numbered from `first`) of the same run;
    returns the number of steps checked."""
    check(len(page.sections) == len(findings),
          f"{name}: {len(page.sections)} finding sections, the JSON report has {len(findings)}")
    steps_checked = 0
    for n, (f, section) in enumerate(zip(findings, page.sections), first):
        check(section == f"finding-{n}", f"{name}: section {n} is {section}")
        path = [(x["file"], x["line"], x["message"]) for x in f["notes"] if x.get("file") and x["line"]]
        path.append((f["file"], f["line"], f["message"]))
        items = page.path_items[section]
        check(len(items) == len(path), f"{name} #{n}: {len(items)} path steps listed, {len(path)} expected")
        for k, (file, line, message) in enumerate(path, 1):
            shown = os.path.relpath(file, root)
            if k <= len(items):
                check(items[k - 1].startswith(f"{shown}:{line} ") and message in items[k - 1],
                      f"{name} #{n} step {k}: listed as {items[k - 1]!r}, expected {shown}:{line} {message}")
            drawn = page.steps.get(f"{section}-step-{k}")
            if not check(drawn is not None, f"{name} #{n} step {k}: not drawn over the source"):
                continue
            table, at, text = drawn
            check(table == shown, f"{name} #{n} step {k}: drawn in {table}, expected {shown}")
            check(at == line, f"{name} #{n} step {k}: drawn under line {at}, expected {line}")
            check(text == source_line(file, line),
                  f"{name} #{n} step {k}: line {line} shown as {text!r}, the file has {source_line(file, line)!r}")
            steps_checked += 1
        if f["fixes"]:
            by_file = {}
            for e in f["fixes"]:
                by_file.setdefault(e["file"], []).append(e)
            removed = [l[1:] for l in page.diff_lines[section] if l.startswith("-") and not l.startswith("---")]
            added = [l[1:] for l in page.diff_lines[section] if l.startswith("+") and not l.startswith("+++")]
            before = "\n".join(open(p, encoding="utf-8").read() for p in by_file).split("\n")
            after = "\n".join(apply_edits(p, es) for p, es in by_file.items()).split("\n")
            check(all(l in before for l in removed),
                  f"{name} #{n}: the diff removes lines the source does not have: {removed}")
            check(all(l in after for l in added),
                  f"{name} #{n}: the diff adds lines the fixed source does not have: {added}")
            check(removed != added, f"{name} #{n}: the diff changes nothing: {added}")
            # Each hunk, replayed: its old side is the source at its line numbers, its new side
            # the fixed source at its own.
            for diff in page.diffs.get(section, []):
                lines = diff.rstrip("\n").split("\n")
                shown_file = lines[0][4:]
                path = os.path.join(root, shown_file)
                if path not in by_file:
                    continue
                old_text = open(path, encoding="utf-8").read().split("\n")
                new_text = apply_edits(path, by_file[path]).split("\n")
                hunk = None
                for line in lines[2:] + ["@@ end"]:
                    if line.startswith("@@"):
                        if hunk:
                            (a, old_n, c, new_n), body = hunk
                            old_side = [l[1:] for l in body if l[:1] in (" ", "-")]
                            new_side = [l[1:] for l in body if l[:1] in (" ", "+")]
                            check(len(old_side) == old_n and old_text[a - 1:a - 1 + old_n] == old_side,
                                  f"{name} #{n}: hunk -{a},{old_n} is not the source there: {old_side}")
                            check(len(new_side) == new_n and new_text[c - 1:c - 1 + new_n] == new_side,
                                  f"{name} #{n}: hunk +{c},{new_n} is not the fixed source there: {new_side}")
                        head = re.match(r"@@ -(\d+),(\d+) \+(\d+),(\d+) @@", line)
                        hunk = (tuple(int(x) for x in head.groups()), []) if head else None
                    elif hunk:
                        hunk[1].append(line)
    return steps_checked


def assert_self_contained(name, page):
    """No script, no external resource: only links (<a href>) may name another document."""
    for tag, attrs in page.tags:
        check(tag not in ("script", "img", "iframe", "object", "embed", "link", "form", "base"),
              f"{name}: a <{tag}> element")
        for key, value in attrs.items():
            check(not key.startswith("on"), f"{name}: an event handler {key} on <{tag}>")
            if key in ("src", "srcset", "data", "action", "poster"):
                check(False, f"{name}: <{tag} {key}={value!r}>")
    csp = [a for t, a in page.tags if t == "meta" and a.get("http-equiv") == "Content-Security-Policy"]
    check(csp and "default-src 'none'" in csp[0].get("content", ""), f"{name}: no Content-Security-Policy")


def hostile_project(tmp):
    """A project whose directory, file name and source carry markup: a finding's path crosses it."""
    root = os.path.join(tmp, "evil<script>alert(1)</script>\"'&dir")
    os.makedirs(os.path.join(root, "build"))
    name = "x<img src=http:__example.com_a.png onerror=alert(2)>.c"
    src = os.path.join(root, name)
    with open(src, "w") as f:
        f.write("#include <sys/socket.h>\n"
                "/* </td></tr></table><script>alert(3)</script><img src=\"http://example.com/b\"> */\n"
                "int main(void) {\n"
                "  int fd = socket(AF_INET, SOCK_STREAM, 0); /* <script>alert(4)</script> & \x1b[31m */\n"
                "  int on = 1;\n"
                "  return setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on); /* </pre><b>x</b> */\n"
                "}\n")
    with open(os.path.join(root, "build", "compile_commands.json"), "w") as f:
        json.dump([{"directory": root, "file": src, "arguments": ["clang-19", "-c", src]}], f)
    from fix_frontends import Project
    return Project("hostile", root, "build")


def chromium_flags(chromium, work):
    profile = tempfile.mkdtemp(dir=work, prefix="chromium-profile-")
    return [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--disable-quic", f"--user-data-dir={profile}", "--hide-scrollbars"]


def chromium_render(chromium, page_path, work):
    """(DOM, URLs the page requested) of the page rendered by headless Chromium."""
    netlog = os.path.join(work, os.path.basename(page_path) + ".netlog.json")
    base = chromium_flags(chromium, work)
    url = "file://" + page_path
    dom = subprocess.run([*base, f"--log-net-log={netlog}", "--dump-dom", url],
                         capture_output=True, text=True, timeout=180)
    check(dom.returncode == 0, f"chromium --dump-dom exited {dom.returncode}: {dom.stderr[-1500:]}")
    return dom.stdout, page_requests(netlog) if check(os.path.exists(netlog), "no net log") else []


def page_requests(netlog):
    """The URLs the page asked for: requests whose initiator is an origin (a file page's is the
    opaque "null"); Chromium's own (updates, time, sign-in) have "not an origin"."""
    with open(netlog, encoding="utf-8", errors="replace") as f:
        text = f.read()
    try:
        log = json.loads(text)
    except json.JSONDecodeError:  # written until exit: the closing brackets may be missing
        log = json.loads(text.rstrip().rstrip(",") + "]}")
    start_job = log["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
    return [e["params"].get("url", "") for e in log["events"] if e["type"] == start_job
            and e.get("params", {}).get("initiator", "not an origin") != "not an origin"]


def screenshot(chromium, page_path, work, artifact):
    base = chromium_flags(chromium, work)
    shot = subprocess.run([*base, f"--screenshot={artifact}", "--window-size=1280,2400",
                           "file://" + page_path], capture_output=True, text=True, timeout=180)
    check(shot.returncode == 0 and os.path.exists(artifact),
          f"chromium --screenshot failed ({shot.returncode}): {shot.stderr[-1500:]}")


def check_database(checker, database):
    """One real project: every finding's path at the right lines of the files it crosses."""
    from fix_frontends import Project
    root = os.path.dirname(os.path.abspath(database.rstrip("/")))
    project = Project(os.path.basename(root), root, os.path.relpath(os.path.abspath(database), root))
    report = json.loads(run(checker, project, "--format=json").stdout)
    page = Page(run(checker, project, "--format=html").stdout)
    steps = compare(project.name, report["findings"], page, root)
    crossing = [f for f in report["findings"]
                if len({f["file"]} | {x["file"] for x in f["notes"] if x.get("file")}) > 1]
    print(f"{project.name}: {len(report['findings'])} findings, {steps} steps drawn at their lines, "
          f"{len(crossing)} paths across files")
    return 1 if FAILURES else 0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--checker", required=True)
    parser.add_argument("--chromium", default=shutil.which("chromium") or "")
    parser.add_argument("--artifacts", default="")
    parser.add_argument("--database", help="only check the page of this compile database (a real "
                        "project, outside the test suite) against its JSON report")
    args = parser.parse_args()
    if args.database:
        return check_database(args.checker, args.database)
    tmp = tempfile.mkdtemp(prefix="afunix-html-")
    projects_dir = os.path.join(lib.TESTDATA, "projects")
    names = sorted(d for d in os.listdir(projects_dir) if d.startswith("pos_"))
    pages, findings_seen, steps_seen, crossing = {}, 0, 0, 0
    for name in names:
        project = fixes_test.testdata_project(os.path.join(projects_dir, name), tmp)
        report = json.loads(run(args.checker, project, "--format=json", *project.options).stdout)
        page_text = run(args.checker, project, "--format=html", *project.options).stdout
        page = Page(page_text)
        assert_self_contained(name, page)
        steps_seen += compare(name, report["findings"], page, project.root)
        findings_seen += len(report["findings"])
        crossing += sum(1 for f in report["findings"]
                        if len({f["file"]} | {x["file"] for x in f["notes"] if x.get("file")}) > 1)
        path = os.path.join(tmp, name + ".html")
        with open(path, "w") as f:
            f.write(page_text)
        pages[name] = (project, report, path)
    check(findings_seen >= len(names), f"only {findings_seen} findings in {len(names)} projects")
    check(crossing >= 5, f"only {crossing} findings whose path crosses files")
    print(f"{len(names)} projects, {findings_seen} findings, {steps_seen} steps drawn at their "
          f"lines, {crossing} paths across files")

    # Runtime evidence: one finding confirmed at its line, one seen only at run time elsewhere.
    project, report, _ = pages["pos_creds_accept_helper_other_file"]
    first = report["findings"][0]
    evidence = os.path.join(tmp, "run.json")
    sys.path.insert(0, os.path.join(lib.REPO, "checker", "cli-test"))
    from inputs_test import summary, runtime_finding
    with open(evidence, "w") as f:
        f.write(summary([runtime_finding(first["file"], first["line"], first["rule"]),
                         runtime_finding(first["notes"][0]["file"], first["notes"][0]["line"],
                                         "afunix-fd-flood")]))
    badged = Page(run(args.checker, project, "--format=html", f"--runtime-evidence={evidence}",
                      *project.options).stdout)
    badges = [b for s in badged.sections for b in badged.badges[s]]
    check("confirmed at run time" in badges, f"no 'confirmed at run time' badge: {badges}")
    check("run-time only" in badges, f"no 'run-time only' badge: {badges}")

    # Hostile names and contents: escaped, never markup.
    hostile = hostile_project(tmp)
    hostile_text = run(args.checker, hostile, "--format=html").stdout
    hostile_page = Page(hostile_text)
    assert_self_contained("hostile", hostile_page)
    check(len(hostile_page.sections) == 1, f"hostile: {len(hostile_page.sections)} findings, expected 1")
    check(not any(t == "b" for t, _ in hostile_page.tags), "hostile: the source's <b> became an element")
    check("&lt;script&gt;alert(3)&lt;/script&gt;" in hostile_text, "hostile: the source line is not shown escaped")
    check("\x1b" not in hostile_text, "hostile: a raw escape byte reached the page")
    hostile_path = os.path.join(tmp, "hostile.html")
    with open(hostile_path, "w") as f:
        f.write(hostile_text)

    # --html-dir: the same findings as pages; a directory of the user's is refused.
    project, report, _ = pages["pos_too_late_dgram_bound_in_helper"]
    out_dir = os.path.join(tmp, "report-dir")
    run(args.checker, project, f"--html-dir={out_dir}", *project.options)
    expected = sorted(["index.html"] + [f"finding-{i}.html" for i in range(1, len(report["findings"]) + 1)])
    check(sorted(os.listdir(out_dir)) == expected, f"--html-dir wrote {sorted(os.listdir(out_dir))}")
    for i, finding in enumerate(report["findings"], 1):
        one = Page(open(os.path.join(out_dir, f"finding-{i}.html")).read())
        assert_self_contained(f"finding-{i}.html", one)
        compare(f"--html-dir finding-{i}.html", [finding], one, project.root, first=i)
    index = Page(open(os.path.join(out_dir, "index.html")).read())
    links = [a.get("href") for t, a in index.tags if t == "a" and (a.get("href") or "").startswith("finding-")]
    check(links == [f"finding-{i}.html" for i in range(1, len(report["findings"]) + 1)],
          f"index.html links {links}")
    users = os.path.join(tmp, "users-dir")
    os.makedirs(users)
    with open(os.path.join(users, "notes.txt"), "w") as f:
        f.write("mine\n")
    refused = run(args.checker, project, f"--html-dir={users}", *project.options, expect=(2,))
    check("notes.txt" in refused.stderr, f"--html-dir into a user's directory: {refused.stderr}")
    check(open(os.path.join(users, "notes.txt")).read() == "mine\n", "the user's file was touched")
    # Checked before anything is parsed: a file, a symlink (never followed), a missing parent.
    os.symlink(out_dir, os.path.join(tmp, "link-to-report"))
    for target, why in [(os.path.join(users, "notes.txt"), "it is not a directory"),
                        (os.path.join(tmp, "link-to-report"), "a symlink is never followed"),
                        (os.path.join(tmp, "no", "such"), "its parent directory does not exist")]:
        refused = run(args.checker, project, f"--html-dir={target}", expect=(2,))
        check(why in refused.stderr and not refused.stdout, f"--html-dir={target}: {refused.stderr}")

    # Headless Chromium renders the reports; nothing but the page itself is fetched.
    if not args.chromium:
        print("FAIL: chromium not found (scripts/setup.sh installs Debian's chromium)", file=sys.stderr)
        return 1
    artifacts = args.artifacts or tmp
    os.makedirs(artifacts, exist_ok=True)
    # The control: a page with one remote image is seen fetching it (the check can fail).
    control = os.path.join(tmp, "control.html")
    with open(control, "w") as f:
        f.write('<!DOCTYPE html><html lang="en"><body><img src="http://example.invalid/x.png" '
                'alt="remote"></body></html>\n')
    _, urls = chromium_render(args.chromium, control, tmp)
    check(urls == ["http://example.invalid/x.png"], f"the control page's fetch is not seen: {urls}")
    for label, path, name in [("cross-file", pages["pos_too_late_dgram_bound_in_helper"][2],
                               "html-report.png"),
                              ("hostile", hostile_path, "html-report-hostile.png")]:
        dom, urls = chromium_render(args.chromium, path, tmp)
        screenshot(args.chromium, path, tmp, os.path.join(artifacts, name))
        rendered = Page(dom)
        source = Page(open(path).read())
        check(rendered.sections == source.sections and rendered.sections,
              f"{label}: Chromium's DOM holds {rendered.sections}, the page {source.sections}")
        check(rendered.steps == source.steps, f"{label}: Chromium's DOM draws other steps")
        check(not any(t == "script" for t, _ in rendered.tags), f"{label}: a script in Chromium's DOM")
        check(not urls, f"{label}: the page fetched {urls}")
    print(f"rendered in {subprocess.run([args.chromium, '--version'], capture_output=True, text=True).stdout.strip()}"
          f"; screenshots in {artifacts}")
    if FAILURES:
        print(f"FAIL: {len(FAILURES)} problems", file=sys.stderr)
        return 1
    shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
