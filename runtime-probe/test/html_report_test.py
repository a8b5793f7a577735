#!/usr/bin/env python3
"""afunix-probe's HTML reports against the data they draw, and rendered by headless Chromium.

`run --html`: a flood of fds (fd_flood) and a forking program (fork_exec) are run with timing on;
each page must hold one section per finding group of the JSON summary of the same run, the
finding's call shown at its source line, one histogram per call class whose bars carry the
summary's bucket counts, the fds-in-flight chart of every process that sent fds with the 2024
threshold drawn and the process's peak (the high-water counter) in its description, and every
process in the tree, a child under its parent. A program whose name carries markup is escaped.
`kernel --compare --html`: two real `kernel --format json` reports (the GC experiment run twice;
the older one given accept()-time listener inheritance and SO_PASSCRED accepted on inet sockets,
as docs_commands_test.py does) give a page whose breaking table names those keys and whose GC
chart has a bar per side for each gc.*_ns key. Each page is rendered in Chromium: the DOM holds
the sections and charts, the page fetches nothing, and a screenshot is kept.

usage: html_report_test.py --probe BIN --build DIR --source DIR [--chromium BIN] [--artifacts DIR]
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

# The checker's report test holds the browser harness and the failure list both tests use.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "checker",
                                "integration-test"))
from html_test import FAILURES, check, chromium_render, screenshot  # noqa: E402


class Page(html.parser.HTMLParser):
    """Elements with their attributes and text, and the nesting of the process tree."""

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.elements = []   # [tag, attrs, text]
        self.tree = {}       # pid -> parent pid in the process tree (None for roots)
        self._open = []
        self._li_pids = []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        element = [tag, dict(attrs), ""]
        self.elements.append(element)
        if tag not in ("meta", "br", "img", "link", "hr", "input"):
            self._open.append(element)
        if tag == "li" and any(e[0] == "ul" and "tree" in (e[1].get("class") or "")
                               for e in self._open[:-1]):
            self._li_pids.append(None)

    def handle_startendtag(self, tag, attrs):
        self.elements.append([tag, dict(attrs), ""])

    def handle_endtag(self, tag):
        while self._open:
            element = self._open.pop()
            if element[0] == "li" and self._li_pids and element is not None and \
                    any(e[0] == "ul" and "tree" in (e[1].get("class") or "") for e in self._open):
                self._li_pids.pop()
            if element[0] == tag:
                break

    def handle_data(self, data):
        for element in self._open:
            element[2] += data
        if self._open and self._open[-1][0] == "code" and self._li_pids and self._li_pids[-1] is None \
                and data.strip().isdigit():
            pid = int(data.strip())
            parents = [p for p in self._li_pids[:-1] if p is not None]
            self.tree[pid] = parents[-1] if parents else None
            self._li_pids[-1] = pid

    def all(self, tag, cls=None):
        return [e for e in self.elements if e[0] == tag and (cls is None or cls in (e[1].get("class") or "").split())]


def self_contained(name, page):
    for tag, attrs, _ in page.elements:
        check(tag not in ("script", "img", "iframe", "object", "embed", "link", "form", "base", "image", "use"),
              f"{name}: a <{tag}> element")
        for key in attrs:
            check(not key.startswith("on") and key not in ("src", "srcset", "href") or
                  (tag == "a" and key == "href" and attrs[key].startswith("#")),
                  f"{name}: <{tag} {key}={attrs[key]!r}>")


def probe_run(args, program, work, name, env_extra=None):
    html_path = os.path.join(work, name + ".html")
    summary = os.path.join(work, name + ".json")
    env = dict(os.environ, AFUNIX_PROBE_TIMING="1", AFUNIX_PROBE_TIMING_SAMPLE="1", **(env_extra or {}))
    proc = subprocess.run([args.probe, "run", "--html", html_path, "--format", "json", "--report", summary,
                           "--", program], cwd=work, env=env, capture_output=True, text=True, timeout=300)
    check(proc.returncode == 0, f"{name}: afunix-probe run exited {proc.returncode}: {proc.stderr[-1500:]}")
    return Page(open(html_path, encoding="utf-8").read()), json.load(open(summary)), html_path


def source_line(path, line):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read().split("\n")[line - 1]


def check_run_page(name, page, summary, source_root):
    self_contained(name, page)
    sections = page.all("section", "finding")
    check(len(sections) == len(summary["findings"]),
          f"{name}: {len(sections)} finding sections, the summary has {len(summary['findings'])} groups")
    for section, finding in zip(sections, summary["findings"]):
        check(finding["rule"] in section[2], f"{name}: the section does not name {finding['rule']}")
        location = finding.get("location")
        if location and location.get("file", "").startswith(source_root):
            rows = [e for e in page.elements if e[0] == "tr" and "main" in (e[1].get("class") or "")
                    and e[2].strip().startswith(str(location["line"]))]
            want = source_line(location["file"], location["line"]).strip()
            check(any(want in r[2] for r in rows),
                  f"{name}: no excerpt row for {location['file']}:{location['line']} ({want!r})")
    # Histograms: the summary's buckets, summed over processes, one chart per call class.
    expected = {}
    for process in summary["processes"]:
        for h in process["histograms"]:
            buckets = expected.setdefault((h["call"], h["class"]), [0] * len(h["log2_ns"]))
            for b, n in enumerate(h["log2_ns"]):
                buckets[b] += n
    charts = [e for e in page.all("figure") if "calls timed" in e[2]]
    check(len(charts) == len(expected), f"{name}: {len(charts)} latency charts, {len(expected)} call classes timed")
    # Each bar's title ends in its count; a chart spans its first to its last non-empty bucket.
    titles = [e for e in page.elements if e[0] == "title" and re.search(r" to .*: \d+$", e[2])]
    drawn = sorted(int(t[2].rsplit(": ", 1)[1]) for t in titles)
    summed = []
    for buckets in expected.values():
        used = [b for b, n in enumerate(buckets) if n]
        summed += buckets[used[0]:used[-1] + 1] if used else []
    check(drawn == sorted(summed), f"{name}: the bars carry {drawn}, the summary's buckets are {sorted(summed)}")
    # Fds in flight: a chart for each process that sent fds, the threshold drawn, the peak said.
    senders = [p for p in summary["processes"] if p.get("in_flight_timeline", {}).get("most")]
    inflight = [e for e in page.all("figure") if "fds in flight" in e[2]]
    check(len(inflight) == len(senders), f"{name}: {len(inflight)} in-flight charts, {len(senders)} processes sent fds")
    for process in senders:
        peak = max(process["in_flight_timeline"]["most"])
        high = process["counters"]["fds_in_flight_high_water"]
        check(peak == high, f"{name}: pid {process['process']['pid']}: the timeline's peak {peak} is not the "
                            f"high-water counter {high}")
        check(any(f"pid {process['process']['pid']}: at most {peak} fds in flight" in e[2] for e in inflight),
              f"{name}: no chart says pid {process['process']['pid']} peaked at {peak}")
    check(len(page.all("line", "threshold")) == len(senders), f"{name}: the 2024 threshold is not drawn on each chart")
    # The process tree: every process, under its parent when the parent reported too.
    pids = {p["process"]["pid"]: p["process"]["ppid"] for p in summary["processes"]}
    for pid, ppid in pids.items():
        check(pid in page.tree, f"{name}: pid {pid} is not in the process tree")
        check(page.tree.get(pid) == (ppid if ppid in pids else None),
              f"{name}: pid {pid} is under {page.tree.get(pid)} in the tree, its parent is {ppid}")
    return len(sections)


def main():
    parser = argparse.ArgumentParser()
    for name in ("--probe", "--build", "--source"):
        parser.add_argument(name, required=True)
    parser.add_argument("--chromium", default=shutil.which("chromium") or "")
    parser.add_argument("--artifacts", default="")
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="afunix-probe-html-")
    programs = os.path.join(args.build, "testdata", "probe")
    source_root = os.path.join(args.source, "testdata", "probe")
    pages = []

    flood, summary, flood_path = probe_run(args, os.path.join(programs, "fd_flood"), work, "fd_flood")
    check(check_run_page("fd_flood", flood, summary, source_root) >= 1, "fd_flood: no finding section")
    check(any(p.get("in_flight_timeline", {}).get("most") and
              max(p["in_flight_timeline"]["most"]) >= 2024 for p in summary["processes"]),
          "fd_flood: no process is seen past 2024 fds in flight")
    pages.append(("run", flood_path, "probe-run-report.png"))

    forked, summary, _ = probe_run(args, os.path.join(programs, "fork_exec"), work, "fork_exec")
    check_run_page("fork_exec", forked, summary, source_root)
    check(len(summary["processes"]) >= 2 and any(v is not None for v in forked.tree.values()),
          f"fork_exec: the tree nests no child ({forked.tree})")

    hostile_name = os.path.join(work, "evil<b>bold<i>&\"'")
    shutil.copy(os.path.join(programs, "fd_flood"), hostile_name)
    hostile, summary, hostile_path = probe_run(args, hostile_name, work, "hostile")
    check_run_page("hostile", hostile, summary, source_root)
    check(not hostile.all("b") and not hostile.all("i"), "hostile: the program's name became markup")
    check("evil<b>bold<i>&" in " ".join(e[2] for e in hostile.all("h1") + hostile.all("p") + hostile.all("li")),
          "hostile: the program's name is not shown as text")

    # kernel --compare --html on two real reports.
    reports = []
    for i in range(2):
        proc = subprocess.run([args.probe, "kernel", "--only", "gc,listener_inherit,passcred_inet",
                               "--gc-inflight", "4000", "--format", "json"], capture_output=True, text=True,
                              timeout=300)
        check(proc.returncode == 0, f"afunix-probe kernel: exit {proc.returncode}: {proc.stderr[-800:]}")
        reports.append(json.loads(proc.stdout))
    reports[0]["creds"]["listener_inherit"] = "accept"
    reports[0]["passcred"]["inet"] = "ok"
    old, new = os.path.join(work, "kernel-OLD.json"), os.path.join(work, "kernel-NEW.json")
    json.dump(reports[0], open(old, "w"))
    json.dump(reports[1], open(new, "w"))
    compare_path = os.path.join(work, "compare.html")
    proc = subprocess.run([args.probe, "kernel", "--compare", old, new, "--html", compare_path],
                          capture_output=True, text=True, timeout=60)
    check(proc.returncode == 1, f"kernel --compare: exit {proc.returncode} (a change breaks programs: 1)")
    compare = Page(open(compare_path, encoding="utf-8").read())
    self_contained("compare", compare)
    breaking = [t for t in compare.all("table") if "listener_inherit" in t[2]]
    check(breaking and "passcred.inet" in breaking[0][2] and "afunix-passcred-wrong-family" in breaking[0][2],
          "compare: the breaking table lacks creds.listener_inherit / passcred.inet and their rules")
    gc_keys = sorted(k for k, v in reports[1]["gc"]["unix_fd_wait"].items() if k.endswith("_ns") and v is not None)
    check(len(gc_keys) >= 4, f"the GC experiment measured only {gc_keys}")
    chart = [e for e in compare.all("svg") if "GC measurements" in e[2]]
    check(chart, "compare: no GC chart")
    if chart:
        for key in gc_keys:
            check(f"gc.unix_fd_wait.{key}" in chart[0][2], f"compare: the GC chart has no row for {key}")
        check(len([e for e in compare.all("rect") if (e[1].get("class") in ("old", "bar"))]) >= 2 * len(gc_keys),
              "compare: not a bar per kernel for each duration")
    pages.append(("compare", compare_path, "probe-kernel-compare.png"))
    pages.append(("hostile", hostile_path, None))

    if not args.chromium:
        print("FAIL: chromium not found (scripts/setup.sh installs Debian's chromium)", file=sys.stderr)
        return 1
    artifacts = args.artifacts or work
    os.makedirs(artifacts, exist_ok=True)
    for label, path, shot in pages:
        dom, urls = chromium_render(args.chromium, path, work)
        rendered, source = Page(dom), Page(open(path, encoding="utf-8").read())
        check(len(rendered.all("section")) == len(source.all("section")) and
              len(rendered.all("svg")) == len(source.all("svg")),
              f"{label}: Chromium's DOM has other sections or charts than the page")
        check(not rendered.all("script") and not rendered.all("b"), f"{label}: markup in Chromium's DOM")
        check(not urls, f"{label}: the page fetched {urls}")
        if shot:
            screenshot(args.chromium, path, work, os.path.join(artifacts, shot))
    if FAILURES:
        print(f"FAIL: {len(FAILURES)} problems", file=sys.stderr)
        return 1
    print(f"run, fork and kernel comparison pages checked and rendered; screenshots in {artifacts}")
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
