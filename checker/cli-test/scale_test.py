#!/usr/bin/env python3
"""afunix-check at scale (issue 11): the facts cache, the scan's shortcuts, shards and their link,
progress and the summary.

Each test works on a copy of the multi-file testdata projects (testdata/checker/projects, every
project's sources in one compile database) and a small synthetic project (bench/synthetic_db.py),
made in a scratch directory, so files can be edited and caches damaged freely.

Run one test: scale_test.py --checker PATH TestName.
"""
import concurrent.futures
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
PROJECTS = os.path.join(REPO, "testdata", "checker", "projects")
CHECKER = os.path.join(REPO, "build", "bin", "afunix-check")
FORMATS = ("json", "sarif", "text")


def run(*args, cwd=None, check_status=(0, 1)):
    proc = subprocess.run([CHECKER, *args], cwd=cwd, capture_output=True, text=True, timeout=600)
    if check_status is not None and proc.returncode not in check_status:
        raise AssertionError(f"afunix-check {' '.join(args)} exited {proc.returncode}:\n"
                             f"{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}")
    return proc


def input_reads(stderr):
    """(unchanged by stamp, read) facts cache inputs from a --timings line."""
    m = re.search(r"cache inputs: (\d+) unchanged by stamp, (\d+) read", stderr)
    return (int(m[1]), int(m[2])) if m else (0, 0)


def age_past_racy_margin():
    """Waits until every file made so far is older than the facts cache's racy margin (3 s), so
    that a run records their stamps."""
    time.sleep(3.2)


def same_size_edit(path, old, new, mtime_ns):
    """Replaces `old` with `new` (same length) in the file, in place, and sets its modification
    time back to `mtime_ns` with touch -d, as a tool that restores times would."""
    assert len(old) == len(new)
    with open(path) as f:
        text = f.read()
    assert old in text
    with open(path, "r+") as f:
        f.write(text.replace(old, new, 1))
    seconds, nanoseconds = divmod(mtime_ns, 10**9)
    subprocess.run(["touch", "-m", "-d", f"@{seconds}.{nanoseconds:09d}", path], check=True)
    assert os.stat(path).st_mtime_ns == mtime_ns


def timings(stderr):
    """(extracted, from the cache) from a --timings line."""
    m = re.search(r"units: (\d+) extracted, (\d+) from the cache", stderr)
    assert m, f"no --timings line in:\n{stderr}"
    return int(m[1]), int(m[2])


# The projects a cache or shard test works on: each rule's cross-file shapes, C and C++, service
# files and the prefilter's skip. The cache's mechanics do not depend on which projects; the
# breadth of all of them is test_skips_change_no_fact_and_no_finding's (every project's parse).
MECHANICS_PROJECTS = (
    "pos_creds_accept_helper_other_file", "pos_creds_socket_unit_by_name",
    "neg_creds_listener_enabled_elsewhere", "pos_cxx_connection_owns_fd",
    "pos_cxx_handle_template_two_units", "pos_fd_flood_loop_in_plain_file",
    "pos_fd_flood_queue_flush", "neg_fd_flood_acknowledged_other_file",
    "pos_fd_limit_header_helper", "pos_too_late_client_after_send",
    "pos_too_late_two_programs_one_loop", "neg_too_late_client_server_passcred",
    "pos_wrong_family_helper_other_file", "pos_wrong_family_socket_unit",
)


class Workspace:
    """A scratch copy of testdata projects (`projects`, None: all) and a synthetic project, one
    compile database."""

    def __init__(self, synthetic_units=40, projects=MECHANICS_PROJECTS):
        self.root = tempfile.mkdtemp(prefix="afunix-scale-")
        self.src = os.path.join(self.root, "src")
        self.build = os.path.join(self.root, "build")
        os.makedirs(self.build)
        if projects is None:
            shutil.copytree(PROJECTS, os.path.join(self.src, "projects"))
        else:
            for name in projects:
                shutil.copytree(os.path.join(PROJECTS, name), os.path.join(self.src, "projects", name))
        subprocess.run([sys.executable, os.path.join(REPO, "bench", "synthetic_db.py"),
                        os.path.join(self.src, "synthetic"), "--tus", str(synthetic_units)],
                       check=True, stdout=subprocess.DEVNULL)
        entries = []
        projects = os.path.join(self.src, "projects")
        for name in sorted(os.listdir(projects)):
            directory = os.path.join(projects, name)
            for f in sorted(os.listdir(directory)):
                if f.endswith((".c", ".cc")):
                    std = "-std=gnu11" if f.endswith(".c") else "-std=c++17"
                    src = os.path.join(directory, f)
                    entries.append({"directory": directory, "file": src,
                                    "arguments": ["cc", std, f"-I{directory}", "-c", src]})
        with open(os.path.join(self.src, "synthetic", "compile_commands.json")) as f:
            entries += json.load(f)
        with open(os.path.join(self.build, "compile_commands.json"), "w") as f:
            json.dump(entries, f, indent=1)
        self.units = len(entries)
        # The files the prefilter skips in this workspace (docs/prefilter.md): an empty main().
        # (usage.c of pos_fd_flood_loop_in_plain_file, skipped in its project alone, is parsed
        # here: with over 32 files parsed, the few that name any of their functions are parsed
        # without asking the link.) The others are parsed or taken from the cache.
        self.skipped = [os.path.join(projects, "pos_wrong_family_socket_unit", "main.c")]
        self.parsed = self.units - len(self.skipped)

    def path(self, *parts):
        return os.path.join(self.src, *parts)

    def outputs(self, *args, cwd=None):
        """{format: stdout} of one run per format, with `args` (a subcommand first)."""
        head = [args[0]] if args and args[0] == "link" else []
        rest = list(args[len(head):])
        return {fmt: run(*head, f"--format={fmt}", *rest, cwd=cwd or self.root).stdout
                for fmt in FORMATS}

    def cold(self):
        """What a first run prints: a fresh cache, no stored facts."""
        fresh = tempfile.mkdtemp(dir=self.root, prefix="cold-cache-")
        return self.outputs("-p", self.build, f"--cache-dir={fresh}", "--no-store-facts")

    def cleanup(self):
        shutil.rmtree(self.root, ignore_errors=True)


class ScaleTest(unittest.TestCase):
    def setUp(self):
        self.ws = Workspace()
        self.addCleanup(self.ws.cleanup)

    def warm(self, *extra):
        return run("-p", self.ws.build, "--format=json", "--timings", *extra, cwd=self.ws.root)

    def assertSameOutputs(self, expected, actual, what):
        for fmt in FORMATS:
            self.assertEqual(expected[fmt], actual[fmt], f"{what}: --format={fmt} differs")

    # --- the facts cache ------------------------------------------------------------------------

    def test_warm_run_equals_cold_run(self):
        cold = self.ws.cold()
        self.assertIn('"findings": [', cold["json"])
        self.assertGreater(len(json.loads(cold["json"])["findings"]), 5)
        self.assertEqual(json.loads(cold["json"])["skipped"], self.ws.skipped)
        first = self.warm()
        self.assertEqual(timings(first.stderr), (self.ws.parsed, 0))
        second = self.warm()
        self.assertEqual(timings(second.stderr), (0, self.ws.parsed))
        self.assertEqual(first.stdout, second.stdout)
        self.assertSameOutputs(cold, self.ws.outputs("-p", self.ws.build), "warm run")

    def test_touching_one_file_reextracts_it_alone(self):
        self.warm()
        # A touch that changes nothing: no file is parsed again (contents are compared, not times).
        target = self.ws.path("synthetic", "src", "unit_3.c")
        os.utime(target, (time.time() + 5, time.time() + 5))
        self.assertEqual(timings(self.warm().stderr), (0, self.ws.parsed))
        # An edit: that unit alone; the findings are those of a cold run over the edited tree.
        with open(target, "a") as f:
            f.write("\nint added_by_the_test(int fd) { return fd; }\n")
        self.assertEqual(timings(self.warm().stderr), (1, self.ws.parsed - 1))
        self.assertSameOutputs(self.ws.cold(), self.ws.outputs("-p", self.ws.build), "after an edit")

    def test_unchanged_inputs_are_known_by_their_stamp(self):
        # A run records each input's stamp with its digest; the next reads none of them.
        age_past_racy_margin()
        self.warm()
        again = self.warm()
        self.assertEqual(timings(again.stderr), (0, self.ws.parsed))
        by_stamp, read = input_reads(again.stderr)
        self.assertGreater(by_stamp, self.ws.parsed)
        self.assertEqual(read, 0)
        # A touch that changes nothing: the file is read again (its stamp changed), not parsed.
        # (-j1: unit_5.c and unit_4.c both include it, and two workers that meet it at once may
        # both read it; counted right, that is 2.)
        os.utime(self.ws.path("synthetic", "include", "unit_5.h"))
        touched = self.warm("-j1")
        self.assertEqual(timings(touched.stderr), (0, self.ws.parsed))
        self.assertEqual(input_reads(touched.stderr)[1], 1, touched.stderr)

    def test_same_size_edit_with_the_time_set_back_is_seen(self):
        # touch -d restores the modification time, but not the change time: the stamp differs,
        # the header is read, and the units that include it are parsed again.
        age_past_racy_margin()
        self.warm()
        header = self.ws.path("synthetic", "include", "unit_5.h")
        same_size_edit(header, "step_5_0(int fd", "step_5_0(int fx", os.stat(header).st_mtime_ns)
        rerun = self.warm()
        self.assertEqual(timings(rerun.stderr), (2, self.ws.parsed - 2))
        self.assertSameOutputs(self.ws.cold(), self.ws.outputs("-p", self.ws.build),
                               "after a same-size edit with its time set back")

    def test_racy_stamps_are_not_trusted(self):
        # A file changed within the racy margin before a run (here: just before it) could change
        # again within the same tick of the file-time clock and keep its stamp: its stamp is not
        # recorded, and every run reads it until one starts long enough after the change.
        age_past_racy_margin()
        self.warm()
        header = self.ws.path("synthetic", "include", "unit_5.h")
        mtime = os.stat(header).st_mtime_ns
        same_size_edit(header, "step_5_0(int fd", "step_5_0(int fa", mtime)
        first = self.warm()
        self.assertEqual(timings(first.stderr), (2, self.ws.parsed - 2))
        # A second same-size edit with the same time: as if within the same tick. The header is
        # read again (its stamp was not recorded) and the units that include it parsed again.
        same_size_edit(header, "step_5_0(int fa", "step_5_0(int fb", mtime)
        second = self.warm("-j1")  # one reader of the header (see the test above)
        self.assertEqual(input_reads(second.stderr)[1], 1, second.stderr)
        self.assertEqual(timings(second.stderr), (2, self.ws.parsed - 2))
        self.assertSameOutputs(self.ws.cold(), self.ws.outputs("-p", self.ws.build),
                               "after two racy edits")
        # Once the change is older than the margin, a run records its stamp; the next reads none.
        age_past_racy_margin()
        self.warm()
        settled = self.warm()
        self.assertEqual(input_reads(settled.stderr)[1], 0)
        self.assertEqual(timings(settled.stderr), (0, self.ws.parsed))

    def test_damaged_stamp_table_is_detected_and_rebuilt(self):
        cold = self.ws.cold()
        age_past_racy_margin()
        self.warm()
        table = os.path.join(self.ws.build, "afunix-cache", "input-stamps")
        with open(table, "r+b") as f:
            data = bytearray(f.read())
            data[len(data) // 2] ^= 0x5a
            f.seek(0)
            f.write(data)
        rerun = self.warm()
        self.assertIn("input-stamps is damaged", rerun.stderr)
        self.assertEqual(input_reads(rerun.stderr)[0], 0)
        self.assertEqual(timings(rerun.stderr), (0, self.ws.parsed))
        self.assertSameOutputs(cold, self.ws.outputs("-p", self.ws.build), "after damage")
        again = self.warm()
        self.assertNotIn("damaged", again.stderr)
        self.assertEqual(input_reads(again.stderr)[1], 0)

    def test_stored_facts_copy_unchanged_lines_and_rewrite_damaged_ones(self):
        # After a one-file edit, afunix-facts.json is written again copying the lines of the units
        # that did not change; a line damaged since it was written is written afresh. Either way
        # the units are those a run without any cache writes.
        self.warm()
        stored = os.path.join(self.ws.build, "afunix-facts.json")
        with open(stored) as f:
            lines = f.read().split("\n")
        unit = self.ws.path("synthetic", "src", "unit_12.c")
        victim = next(i for i, line in enumerate(lines) if f'"main_file":"{unit}"' in line)
        self.assertTrue(lines[victim].endswith("}"))
        lines[victim] = lines[victim][:-1] + " }"  # still valid JSON, not what was written
        with open(stored, "w") as f:
            f.write("\n".join(lines))
        with open(self.ws.path("synthetic", "src", "unit_3.c"), "a") as f:
            f.write("\nint added_by_the_test(int fd) { return fd; }\n")
        self.assertEqual(timings(self.warm().stderr), (1, self.ws.parsed - 1))
        with open(stored) as f:
            spliced = f.read().split("\n")
        os.remove(stored)
        run("-p", self.ws.build, "--format=json", "--no-cache", cwd=self.ws.root)
        with open(stored) as f:
            fresh = f.read().split("\n")
        self.assertEqual(len(spliced), len(fresh))
        self.assertEqual(spliced[1:], fresh[1:])

    def test_a_database_changed_since_it_was_checked_is_checked_again(self):
        # A run notes the database it found valid (its digest) in the facts cache, and the next
        # run over the same bytes does not check it again; other bytes are checked as always.
        cold = self.ws.cold()
        self.warm()  # makes the cache directory, then notes the database there
        note = os.path.join(self.ws.build, "afunix-cache", "database-checked")
        self.assertTrue(os.path.exists(note))
        self.assertEqual(timings(self.warm().stderr), (0, self.ws.parsed))
        self.assertSameOutputs(cold, self.ws.outputs("-p", self.ws.build), "with the note")
        database = os.path.join(self.ws.build, "compile_commands.json")
        with open(database) as f:
            entries = json.load(f)
        del entries[3]["file"]
        with open(database, "w") as f:
            json.dump(entries, f, indent=1)
        broken = run("-p", self.ws.build, check_status=(2,))
        self.assertIn('entry 4: missing or non-string "file"', broken.stderr)

    def test_a_file_restored_to_earlier_bytes_is_not_parsed_again(self):
        # Switching a branch back: the entry for the old bytes is still there.
        self.warm()
        target = self.ws.path("synthetic", "src", "unit_9.c")
        original = open(target).read()
        with open(target, "a") as f:
            f.write("\nint on_a_branch(int fd) { return fd; }\n")
        self.assertEqual(timings(self.warm().stderr), (1, self.ws.parsed - 1))
        with open(target, "w") as f:
            f.write(original)
        self.assertEqual(timings(self.warm().stderr), (0, self.ws.parsed))
        self.assertSameOutputs(self.ws.cold(), self.ws.outputs("-p", self.ws.build), "restored")

    def test_editing_a_header_reextracts_the_units_that_include_it(self):
        self.warm()
        # unit_5.h is included by unit_5.c and by the unit that calls into unit 5 (unit_4.c).
        header = self.ws.path("synthetic", "include", "unit_5.h")
        with open(header, "a") as f:
            f.write("\nint declared_by_the_test(int fd);\n")
        self.assertEqual(timings(self.warm().stderr), (2, self.ws.parsed - 2))
        self.assertSameOutputs(self.ws.cold(), self.ws.outputs("-p", self.ws.build), "after a header edit")

    def test_other_project_options_do_not_reuse_the_cache(self):
        self.warm()
        config = os.path.join(self.ws.root, "options.yaml")
        with open(config, "w") as f:
            f.write("socket_producers: [open_listener]\n")
        self.assertEqual(timings(self.warm(f"--config={config}").stderr), (self.ws.parsed, 0))

    def cache_packs(self):
        cache = os.path.join(self.ws.build, "afunix-cache")
        return sorted(os.path.join(cache, f) for f in os.listdir(cache) if f.endswith(".pack"))

    def test_damaged_cache_entry_is_detected_and_rebuilt(self):
        cold = self.ws.cold()
        self.warm()
        packs = self.cache_packs()
        self.assertTrue(packs)
        # One byte in the middle of the facts of some entry (past the pack's header).
        with open(packs[0], "r+b") as f:
            data = bytearray(f.read())
            where = len(data) * 2 // 3
            data[where] ^= 0x5a
            f.seek(0)
            f.write(data)
        rerun = self.warm()
        self.assertIn("facts cache", rerun.stderr)
        self.assertRegex(rerun.stderr, r"damaged|checksum")
        extracted, cached = timings(rerun.stderr)
        self.assertGreaterEqual(extracted, 1)
        self.assertEqual(extracted + cached, self.ws.parsed)
        self.assertSameOutputs(cold, self.ws.outputs("-p", self.ws.build), "after damage")
        # Rebuilt: the next run trusts the cache again, with no warning.
        again = self.warm()
        self.assertEqual(timings(again.stderr), (0, self.ws.parsed))
        self.assertNotIn("damaged", again.stderr)

    def test_truncated_pack_is_detected_and_rebuilt(self):
        cold = self.ws.cold()
        self.warm()
        for pack in self.cache_packs():
            with open(pack, "r+b") as f:
                size = os.path.getsize(pack)
                f.truncate(size // 2)
        rerun = self.warm()
        self.assertIn("damaged", rerun.stderr)
        self.assertGreaterEqual(timings(rerun.stderr)[0], 1)
        self.assertSameOutputs(cold, self.ws.outputs("-p", self.ws.build), "after truncation")

    def test_foreign_version_pack_is_never_read(self):
        cold = self.ws.cold()
        self.warm()
        # The cache layout version is the byte after the 8-byte magic: another afunix-check's pack.
        for pack in self.cache_packs():
            with open(pack, "r+b") as f:
                f.seek(8)
                f.write(bytes([0x7f]))
        rerun = self.warm()
        self.assertEqual(timings(rerun.stderr), (self.ws.parsed, 0))
        self.assertSameOutputs(cold, self.ws.outputs("-p", self.ws.build), "with a foreign pack")

    def test_concurrent_runs_share_one_cache(self):
        cold = self.ws.cold()
        procs = [subprocess.Popen([CHECKER, "-p", self.ws.build, "--format=json", "-j1"],
                                  cwd=self.ws.root, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True) for _ in range(3)]
        outs = [p.communicate(timeout=600) for p in procs]
        for p, (out, err) in zip(procs, outs):
            self.assertIn(p.returncode, (0, 1), err)
            self.assertEqual(out, cold["json"])
            self.assertNotIn("damaged", err)
        after = self.warm()
        self.assertEqual(timings(after.stderr), (0, self.ws.parsed))
        self.assertEqual(after.stdout, cold["json"])

    def test_interrupted_run_leaves_a_usable_cache(self):
        cold = self.ws.cold()
        proc = subprocess.Popen([CHECKER, "-p", self.ws.build, "--format=json", "-j1"],
                                cwd=self.ws.root, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        time.sleep(1.0)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        rerun = self.warm()
        self.assertNotIn("damaged", rerun.stderr)
        self.assertEqual(sum(timings(rerun.stderr)), self.ws.parsed)
        self.assertEqual(rerun.stdout, cold["json"])

    def test_many_packs_are_merged(self):
        # One pack per run of edits; past eight packs a run merges them into one.
        self.warm()
        target = self.ws.path("synthetic", "src", "unit_7.c")
        for i in range(10):
            with open(target, "a") as f:
                f.write(f"\nint edit_{i}(int fd) {{ return fd + {i}; }}\n")
            self.warm()
        self.assertLessEqual(len(self.cache_packs()), 8)
        self.assertEqual(timings(self.warm().stderr), (0, self.ws.parsed))

    # --- what a scan skips ----------------------------------------------------------------------

    def shared_prefix_project(self):
        """C++ files that begin with the same lines (skip 4 parses them once), with findings that
        need the link: the accepted socket reaches a reader of credentials in another file."""
        root = os.path.join(self.ws.root, "prefix")
        os.makedirs(root)
        prefix = ("// one licence for every file\n#include <map>\n#include <memory>\n#include <string>\n"
                  "#include <vector>\n#include <sys/socket.h>\n#include <sys/un.h>\n#include <unistd.h>\n"
                  "#include \"common.h\"\n\n")
        with open(os.path.join(root, "common.h"), "w") as f:
            f.write("#pragma once\nint common_limit(int fd);\n")
        entries = []
        for i in range(6):
            nxt = (i + 1) % 6
            code = prefix + f"""int read_peer_{nxt}(int fd);
struct Client{i} {{ int fd; std::string name; }};
std::map<int, std::unique_ptr<Client{i}>> clients{i};
int serve_{i}(const std::vector<std::string> &names) {{
  int listener = socket(AF_UNIX, SOCK_STREAM, 0);
  listen(listener, 8);
  int fd = accept(listener, nullptr, nullptr);
  clients{i}[fd] = std::make_unique<Client{i}>(Client{i}{{fd, names.empty() ? "" : names[0]}});
  return read_peer_{nxt}(fd);
}}
int read_peer_{i}(int fd) {{
  char data[64], control[CMSG_SPACE(sizeof(struct ucred))];
  struct iovec iov = {{data, sizeof data}};
  struct msghdr msg = {{}};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  if (recvmsg(fd, &msg, 0) < 0)
    return -1;
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  return c && c->cmsg_type == SCM_CREDENTIALS ? ((struct ucred *)CMSG_DATA(c))->uid : -1;
}}
"""
            path = os.path.join(root, f"part_{i}.cc")
            with open(path, "w") as f:
                f.write(code)
            entries.append({"directory": root, "file": path,
                            "arguments": ["c++", "-std=c++17", "-D_GNU_SOURCE", "-c", path]})
        build = os.path.join(root, "build")
        os.makedirs(build)
        with open(os.path.join(build, "compile_commands.json"), "w") as f:
            json.dump(entries, f)
        return build

    # Function bodies in system headers, the driver per command, file reads per job, files the
    # prefilter does not parse: none of them may change what is extracted. The linked program's
    # facts and the findings (C and C++, system headers with inline bodies, templates) are
    # compared with a --full-parse run (which parses every file). One test per input, so that the
    # growing testdata stays within one test's time.
    def assert_skips_change_nothing(self, *args):
        # Each way parses once: its report comes from the facts cache its dump filled (a warm
        # run reports as a cold one: test_warm_run_equals_cold_run).
        caches = [tempfile.mkdtemp(dir=self.ws.root, prefix=f"{way}-cache-") for way in ("skip", "full")]
        skipped = run(f"--cache-dir={caches[0]}", "--dump-facts", *args, cwd=self.ws.root,
                      check_status=(0, 1, 3))
        full = run(f"--cache-dir={caches[1]}", "--dump-facts", "--full-parse", *args,
                   cwd=self.ws.root, check_status=(0, 1, 3))
        self.assertEqual(skipped.stdout, full.stdout, f"facts differ for {args[:3]}...")
        self.assertGreater(len(skipped.stdout), 1000)
        reports = [run(f"--cache-dir={cache}", "--format=json", "--timings", *way, *args,
                       cwd=self.ws.root, check_status=(0, 1, 3))
                   for cache, way in zip(caches, ([], ["--full-parse"]))]
        for report in reports:
            self.assertEqual(timings(report.stderr)[0], 0, "the dump left its facts in the cache")
        a, b = (json.loads(r.stdout) for r in reports)
        self.assertEqual(b["skipped"], [])
        for report in (a, b):  # all the same but which files the prefilter skipped
            del report["skipped"], report["summary"]["skipped"]
        self.assertEqual(a, b, f"findings differ for {args[:3]}...")

    def checker_testdata(self, ext):
        testdata = os.path.join(REPO, "testdata", "checker")
        return sorted(os.path.join(testdata, rule, f) for rule in os.listdir(testdata)
                      if rule.startswith("afunix-")
                      for f in os.listdir(os.path.join(testdata, rule)) if f.endswith(ext))

    def test_skips_change_no_fact_and_no_finding(self):
        every_project = Workspace(projects=None)
        self.addCleanup(every_project.cleanup)
        self.assert_skips_change_nothing("-p", every_project.build)

    def test_skips_change_no_fact_and_no_finding_in_a_shared_preamble(self):
        prefix = self.shared_prefix_project()
        shared = run("-p", prefix, "--no-cache", "--timings", "--format=json", cwd=self.ws.root)
        self.assertRegex(shared.stderr, r"1 shared preambles, 6 units parsed from one")
        self.assertEqual(len(json.loads(shared.stdout)["findings"]), 6)
        self.assert_skips_change_nothing("-p", prefix)

    def test_skips_change_no_fact_and_no_finding_in_c_testdata(self):
        self.assert_skips_change_nothing(*self.checker_testdata(".c"), "--", "-std=gnu11")

    def test_skips_change_no_fact_and_no_finding_in_cpp_testdata(self):
        self.assert_skips_change_nothing(*self.checker_testdata(".cc"), "--", "-std=c++20")

    def test_a_header_in_a_shared_preamble_invalidates_the_cache(self):
        # The files parsed from a preamble read its headers through it: an edit of one of them
        # must still make every file that includes it parse again.
        prefix = self.shared_prefix_project()
        args = ("-p", prefix, "--timings", "--format=json")
        cold = run(*args, cwd=self.ws.root)
        self.assertEqual(timings(cold.stderr), (6, 0))
        self.assertEqual(timings(run(*args, cwd=self.ws.root).stderr), (0, 6))
        with open(os.path.join(os.path.dirname(prefix), "common.h"), "a") as f:
            f.write("int common_other(int fd);\n")
        after = run(*args, cwd=self.ws.root)
        self.assertEqual(timings(after.stderr), (6, 0))
        self.assertEqual(after.stdout, cold.stdout)

    # --- shards and the link --------------------------------------------------------------------

    def shards(self, count, *extra):
        dirs = []
        for k in range(1, count + 1):
            d = os.path.join(self.ws.root, "shards", f"{count}", f"{k}")
            proc = run("-p", self.ws.build, f"--shard={k}/{count}", f"--shard-dir={d}", *extra,
                       cwd=self.ws.root, check_status=(0,))
            self.assertIn(f"shard {k}/{count}", proc.stderr)
            dirs.append(d)
        return dirs

    def test_shards_linked_equal_one_run(self):
        one = self.ws.cold()
        for count in (1, 2, 3, 7):
            dirs = self.shards(count)
            self.assertSameOutputs(one, self.ws.outputs("link", *dirs), f"{count} shards")
            # In any order, and all slices' files in one directory (as CI artifacts download).
            merged = os.path.join(self.ws.root, "shards", f"all-{count}")
            os.makedirs(merged)
            for d in dirs:
                for f in os.listdir(d):
                    shutil.copy(os.path.join(d, f), merged)
            self.assertEqual(one["json"], run("link", "--format=json", merged, cwd=self.ws.root).stdout)
            self.assertEqual(one["json"], run("link", "--format=json", *reversed(dirs), cwd=self.ws.root).stdout)

    def test_shards_of_every_file_parsed_link_unit_by_unit(self):
        # No slice skipped a file: the link decodes each unit only when it merges it (from the
        # shard's outlines) instead of every unit first, and judges as one run does.
        one = self.ws.outputs("-p", self.ws.build, "--no-cache", "--no-store-facts", "--no-prefilter")
        self.assertEqual(json.loads(one["json"])["skipped"], [])
        self.assertGreater(len(json.loads(one["json"])["findings"]), 5)
        for count in (1, 3):
            dirs = self.shards(count, "--no-prefilter")
            self.assertSameOutputs(one, self.ws.outputs("link", *dirs), f"{count} shards, none skipped")

    def extract_each_file_alone(self, root, *extra, entries=None, pieces="pieces"):
        """Each file of the database extracted on its own, as a Bazel action does: a one-entry
        database, --shard=1/1, run in `root`. Returns the shard directories."""
        if entries is None:
            with open(os.path.join(self.ws.build, "compile_commands.json")) as f:
                entries = json.load(f)
        dirs = []
        for i, entry in enumerate(entries):
            database = os.path.join(root, pieces, f"db{i}")
            os.makedirs(database)
            with open(os.path.join(database, "compile_commands.json"), "w") as f:
                json.dump([entry], f)
            dirs.append(os.path.join(root, pieces, f"facts{i}"))
        def extract(i):
            run("-p", os.path.dirname(dirs[i]) + f"/db{i}", "--shard=1/1", f"--shard-dir={dirs[i]}",
                *extra, cwd=root, check_status=(0,))
        with concurrent.futures.ThreadPoolExecutor(max(2, os.cpu_count() or 2)) as pool:
            list(pool.map(extract, range(len(entries))))
        return dirs

    def test_files_extracted_alone_link_as_one_run_in_another_checkout(self):
        # Bazel's shape: one action per file (--relative-paths, in the execroot), the link in
        # another directory that holds the same sources (another sandbox, runner or checkout).
        one = self.ws.cold()
        # Filters match paths the same way, however the facts name the files. (The counts differ:
        # -p leaves excluded files out of the program, a link has their facts already.)
        filters = ("--exclude=src/synthetic", "--header-filter=^/.*/projects/pos_",
                   '--line-filter=[{"name": "src/projects/pos_fd_limit_header_helper/batch.h"}, '
                   '{"name": "src/projects/pos_wrong_family_helper_other_file/options.c"}]')
        one_filtered = run("-p", self.ws.build, "--no-cache", "--no-store-facts", "--format=json",
                           *filters, cwd=self.ws.root).stdout
        dirs = self.extract_each_file_alone(self.ws.root, "--relative-paths")
        with open(os.path.join(dirs[0], "shard-1-of-1.afxs"), "rb") as f:
            self.assertNotIn(self.ws.root.encode(), f.read(), "a relative shard names its checkout")
        elsewhere = tempfile.mkdtemp(dir=self.ws.root, prefix="checkout-")
        shutil.copytree(self.ws.src, os.path.join(elsewhere, "src"))
        moved = [os.path.join(elsewhere, os.path.relpath(d, self.ws.root)) for d in dirs]
        for d, m in zip(dirs, moved):
            shutil.copytree(d, m)
        # The same file extracted in the other checkout: the same bytes (no path of either).
        with open(os.path.join(self.ws.build, "compile_commands.json")) as f:
            some = [dict(e, directory=e["directory"].replace(self.ws.root, elsewhere),
                         file=e["file"].replace(self.ws.root, elsewhere),
                         arguments=[a.replace(self.ws.root, elsewhere) for a in e["arguments"]])
                    for e in json.load(f)[:4]]
        again = self.extract_each_file_alone(elsewhere, "--relative-paths", entries=some, pieces="again")
        for first, second in zip(dirs, again):
            with open(os.path.join(first, "shard-1-of-1.afxs"), "rb") as a, \
                 open(os.path.join(second, "shard-1-of-1.afxs"), "rb") as b:
                self.assertEqual(a.read(), b.read(), f"{first} and {second} differ")
        shutil.rmtree(self.ws.src)  # nothing may be read from the first checkout
        linked = run("link", "--several-databases", "--format=json", *reversed(moved), cwd=elsewhere)
        # The one run names files absolutely; the relative facts name them from the checkout.
        expected = json.loads(one["json"].replace(self.ws.root + "/", ""))
        self.assertGreater(len(expected["findings"]), 5)
        self.assertEqual(expected["findings"], json.loads(linked.stdout)["findings"])
        text = run("link", "--several-databases", *moved, cwd=elsewhere)
        self.assertEqual(one["text"], text.stdout)
        filtered = run("link", "--several-databases", "--format=json", *filters, *moved, cwd=elsewhere)
        expected = json.loads(one_filtered.replace(self.ws.root + "/", ""))
        self.assertLess(len(expected["findings"]), len(json.loads(one["json"])["findings"]))
        self.assertEqual(sorted({os.path.basename(f["file"]) for f in expected["findings"]}),
                         ["batch.h", "options.c"])
        self.assertEqual(expected["findings"], json.loads(filtered.stdout)["findings"])

    def test_link_of_several_databases_is_asked_for_and_consistent(self):
        with open(os.path.join(self.ws.build, "compile_commands.json")) as f:
            some = json.load(f)[:6]  # a few databases are enough to link, and cost little
        dirs = self.extract_each_file_alone(self.ws.root, "--relative-paths", entries=some)
        mixed = run("link", dirs[0], dirs[1], cwd=self.ws.root, check_status=(2,))
        self.assertIn("give --several-databases", mixed.stderr)
        # The same facts twice (two targets compile one file alike) are one unit; other facts of
        # the same database's slice are refused.
        again = os.path.join(self.ws.root, "pieces", "again")
        shutil.copytree(dirs[0], again)
        self.assertEqual(run("link", "--several-databases", "--format=json", *dirs, cwd=self.ws.root).stdout,
                         run("link", "--several-databases", "--format=json", again, *dirs, cwd=self.ws.root).stdout)
        absolute = self.extract_each_file_alone(tempfile.mkdtemp(dir=self.ws.root), entries=some[:2])
        both = run("link", "--several-databases", dirs[0], absolute[1], cwd=self.ws.root, check_status=(2,))
        self.assertIn("--relative-paths", both.stderr)
        usage = run("-p", self.ws.build, "--relative-paths", cwd=self.ws.root, check_status=(2,))
        self.assertIn("--relative-paths goes with --shard", usage.stderr)

    def test_link_reports_as_a_run_does(self):
        # Exit status, the summary and the filters work on linked shards as on one run.
        dirs = self.shards(2)
        one = run("-p", self.ws.build, "--no-cache", "--fail-on=error", "--exclude=synthetic", cwd=self.ws.root)
        linked = run("link", *dirs, "--fail-on=error", "--exclude=synthetic", cwd=self.ws.root)
        self.assertEqual(one.returncode, linked.returncode)
        self.assertEqual(one.stdout, linked.stdout)
        summary = [l for l in linked.stderr.splitlines() if l.startswith("afunix-check: ")]
        self.assertRegex(summary[-1], r"findings in \d+ files: \d+ afunix-")

    def test_link_refuses_slices_that_do_not_belong_together(self):
        dirs = self.shards(3)
        missing = run("link", dirs[0], dirs[2], cwd=self.ws.root, check_status=(2,))
        self.assertIn("slice 2 of 3 missing", missing.stderr)
        twice = run("link", dirs[0], dirs[0], dirs[1], dirs[2], cwd=self.ws.root, check_status=(2,))
        self.assertIn("given twice", twice.stderr)
        other = self.shards(2)
        mixed = run("link", dirs[0], dirs[1], other[1], cwd=self.ws.root, check_status=(2,))
        self.assertIn("another number of slices", mixed.stderr)
        # Another database: one file fewer.
        with open(os.path.join(self.ws.build, "compile_commands.json")) as f:
            entries = json.load(f)
        smaller = os.path.join(self.ws.root, "smaller")
        os.makedirs(smaller)
        with open(os.path.join(smaller, "compile_commands.json"), "w") as f:
            json.dump(entries[1:], f)
        d = os.path.join(self.ws.root, "shards", "smaller")
        run("-p", smaller, "--shard=2/3", f"--shard-dir={d}", cwd=self.ws.root, check_status=(0,))
        foreign = run("link", dirs[0], d, dirs[2], cwd=self.ws.root, check_status=(2,))
        self.assertIn("another database", foreign.stderr)
        empty = os.path.join(self.ws.root, "empty")
        os.makedirs(empty)
        self.assertIn("no shard files", run("link", empty, cwd=self.ws.root, check_status=(2,)).stderr)

    def test_damaged_shard_is_refused(self):
        dirs = self.shards(2)
        shard = os.path.join(dirs[1], os.listdir(dirs[1])[0])
        with open(shard, "r+b") as f:
            data = bytearray(f.read())
            data[len(data) // 2] ^= 0x01
            f.seek(0)
            f.write(data)
        proc = run("link", *dirs, cwd=self.ws.root, check_status=(2,))
        self.assertIn("damaged shard file", proc.stderr)
        with open(shard, "r+b") as f:
            f.truncate(100)
        self.assertIn("damaged shard file", run("link", *dirs, cwd=self.ws.root, check_status=(2,)).stderr)

    def test_shard_and_link_usage_errors(self):
        for args, message in (
                (["--shard=0/3"], "--shard expects K/N"),
                (["--shard=4/3"], "--shard expects K/N"),
                (["--shard=a/b"], "--shard expects K/N"),
                (["--shard=1/2", "--fix"], "--shard only extracts facts"),
                (["--shard-dir=x"], "--shard-dir goes with --shard")):
            proc = run("-p", self.ws.build, *args, cwd=self.ws.root, check_status=(2,))
            self.assertIn(message, proc.stderr)
        self.assertIn("--shard slices a compile database",
                      run("--shard=1/2", self.ws.path("synthetic", "src", "unit_1.c"),
                          cwd=self.ws.root, check_status=(2,)).stderr)
        self.assertIn("link needs the shard directories", run("link", cwd=self.ws.root, check_status=(2,)).stderr)
        self.assertIn("belongs to the runs that extract them",
                      run("link", "x", "-p", self.ws.build, cwd=self.ws.root, check_status=(2,)).stderr)

    # --- progress and the summary ---------------------------------------------------------------

    def test_progress_summary_and_quiet(self):
        proc = run("-p", self.ws.build, "--progress", "--no-cache", cwd=self.ws.root)
        lines = [l for l in proc.stderr.splitlines() if l.startswith("[")]
        self.assertEqual(len(lines), self.ws.units)
        self.assertEqual(lines[-1].split(" ", 1)[0], f"[{self.ws.units}/{self.ws.units}]")
        self.assertTrue(all(re.match(r"\[\d+/\d+\] \S+\.cc?$", l) for l in lines), lines[:3])
        report = json.loads(run("-p", self.ws.build, "--format=json", cwd=self.ws.root).stdout)
        counts = {}
        for f in report["findings"]:
            counts[f["rule"]] = counts.get(f["rule"], 0) + 1
        summary = proc.stderr.splitlines()[-1]
        for rule, n in counts.items():
            self.assertIn(f"{n} {rule}", summary)
        # Not a terminal, not asked: no progress. --quiet: nothing at all.
        self.assertNotIn("[1/", run("-p", self.ws.build, cwd=self.ws.root).stderr)
        self.assertEqual("", run("-p", self.ws.build, "--progress", "--quiet", cwd=self.ws.root).stderr)
        warm = run("-p", self.ws.build, cwd=self.ws.root).stderr
        self.assertIn(f"{self.ws.parsed} of {self.ws.parsed} from the facts cache", warm)


def worst_case_source(sockets):
    """A program where every socket meets every option: one global holds each of `sockets`
    datagram sockets in turn, each bound through one helper and given SO_PASSCRED in a function
    of its own. Each option is judged against every socket, and every socket against every other
    option: the credential rules' work grows with the cube of the sockets."""
    lines = ["#include <string.h>", "#include <sys/socket.h>", "#include <sys/un.h>",
             "static int on = 1;", "int g;",
             "int bind_to(int fd, const char *path) {",
             "  struct sockaddr_un a;",
             "  memset(&a, 0, sizeof a);",
             "  a.sun_family = AF_UNIX;",
             "  strncpy(a.sun_path, path, sizeof a.sun_path - 1);",
             "  return bind(fd, (struct sockaddr *)&a, sizeof a);",
             "}"]
    for i in range(sockets):
        lines.append(f'void make{i}(void) {{ g = socket(AF_UNIX, SOCK_DGRAM, 0); bind_to(g, "/run/s{i}"); }}')
        lines.append(f"void enable{i}(void) {{ make{i}(); "
                     f"setsockopt(g, SOL_SOCKET, SO_PASSCRED, &on, sizeof on); }}")
    return "\n".join(lines) + "\n"


class RememberedTest(unittest.TestCase):
    """What a run keeps in the facts cache besides facts, for the next run: the names that matter
    of each prefilter round (by a digest of every unit's facts its link read) and the jobs of the
    database (by its bytes). Neither may change an output: each test compares with a run on a
    fresh cache over the same tree."""

    PROJECT = "pos_fd_flood_loop_in_plain_file"

    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="afunix-remembered-")
        self.addCleanup(shutil.rmtree, self.root, True)
        self.src = os.path.join(self.root, "src")
        shutil.copytree(os.path.join(PROJECTS, self.PROJECT), self.src)
        self.build = os.path.join(self.root, "build")
        os.makedirs(self.build)
        self.database = os.path.join(self.build, "compile_commands.json")
        with open(self.database, "w") as f:
            json.dump([{"directory": self.src, "file": os.path.join(self.src, name),
                        # A -D value is text the prefilter reads too, but not a file.
                        "arguments": ["cc", "-std=gnu11", "-DREMEMBERED=1", "-c", name]}
                       for name in sorted(os.listdir(self.src)) if name.endswith(".c")], f, indent=1)

    def check(self, *extra):
        proc = run("-p", self.build, "--format=json", "--timings", *extra, cwd=self.root)
        return json.loads(proc.stdout), proc.stderr

    def fresh(self):
        cache = tempfile.mkdtemp(dir=self.root, prefix="fresh-cache-")
        return self.check(f"--cache-dir={cache}", "--no-store-facts")[0]

    def links_spared(self, stderr):
        m = re.search(r"(\d+) rounds not linked", stderr)
        return int(m[1]) if m else 0

    def test_prefilter_rounds_are_remembered_and_an_edit_is_still_seen(self):
        first, err = self.check()
        self.assertEqual(first["skipped"], [os.path.join(self.src, "usage.c")])
        self.assertRegex(err, r"prefilter: 1 seeds .*, 2 rounds, 1 skipped")
        self.assertEqual(self.links_spared(err), 0)
        # The first round links the facts it linked before: its names come from the cache.
        second, err = self.check()
        self.assertEqual(self.links_spared(err), 1, err)
        self.assertEqual(second, first)
        # A skipped file's text is read again each run: once it names what the remembered names
        # say matters, it is parsed (and its loop found), as on a fresh cache.
        usage = os.path.join(self.src, "usage.c")
        with open(usage, "w") as f:
            f.write('#include "pool.h"\n#include "usage.h"\n'
                    "int usage(const char *program) {\n  int channel = open_channel(program);\n"
                    "  while (hand_out_pair(channel) == 0)\n    ;\n  return 2;\n}\n")
        edited, err = self.check()
        self.assertEqual(self.links_spared(err), 1, err)
        self.assertEqual(edited["skipped"], [])
        self.assertIn(usage, {f["file"] for f in edited["findings"]})
        self.assertEqual(edited, self.fresh())
        # An edit of the facts of the first round's file: a new key, linked again.
        fdpass = os.path.join(self.src, "fdpass.c")
        with open(fdpass, "a") as f:
            f.write("\nint spare_channel(void) { return open_channel(\"/tmp/spare\"); }\n")
        refacted, err = self.check()
        self.assertEqual(self.links_spared(err), 0, err)
        self.assertEqual(refacted, self.fresh())

    def test_damaged_remembered_results_are_reported_and_derived_again(self):
        expected, _ = self.check()
        age_past_racy_margin()
        self.check()  # records the files' scans
        for name in ("derived-results", "file-results"):
            table = os.path.join(self.build, "afunix-cache", name)
            self.assertTrue(os.path.exists(table), name)
            with open(table, "r+b") as f:
                data = bytearray(f.read())
                data[len(data) // 2] ^= 0x5a
                f.seek(0)
                f.write(data)
        report, err = self.check()
        self.assertIn("derived-results is damaged", err)
        self.assertIn("file-results is damaged", err)
        self.assertEqual(self.links_spared(err), 0)
        self.assertEqual(self.files_by_stamp(err)[1], 0)
        self.assertEqual(report, expected)
        report, err = self.check()
        self.assertNotIn("damaged", err)
        self.assertEqual(self.links_spared(err), 1, err)
        read, known = self.files_by_stamp(err)
        self.assertEqual(known, read)
        self.assertEqual(report, expected)

    def files_by_stamp(self, stderr):
        m = re.search(r"(\d+) files read(?: \((\d+) of them known by their stamp)?", stderr)
        self.assertTrue(m, stderr)
        return int(m[1]), int(m[2] or 0)

    def test_the_prefilter_reads_again_only_the_text_whose_stamp_changed(self):
        first, err = self.check()
        read, _ = self.files_by_stamp(err)
        self.assertGreater(read, 4)  # the main files and their project headers
        age_past_racy_margin()
        self.check()  # the stamps are reliable now: the scans are recorded
        report, err = self.check()
        self.assertEqual(self.files_by_stamp(err), (read, read))
        self.assertEqual(report, first)
        # The same size, the time set back: the stamp (its change time) still tells.
        usage = os.path.join(self.src, "usage.c")
        same_size_edit(usage, "return 2;", "return 3;", os.stat(usage).st_mtime_ns)
        report, err = self.check()
        self.assertEqual(self.files_by_stamp(err), (read, read - 1))
        self.assertEqual(report, self.fresh())
        # A skipped file that now names what matters is parsed, its scan read anew.
        with open(usage, "a") as f:
            f.write('#include "pool.h"\nint usage_again(const char *path) {\n'
                    "  int channel = open_channel(path);\n"
                    "  while (hand_out_pair(channel) == 0)\n    ;\n  return 2;\n}\n")
        report, err = self.check()
        self.assertEqual(report["skipped"], [])
        self.assertEqual(report, self.fresh())

    def test_the_database_jobs_are_remembered_by_its_bytes(self):
        expected, _ = self.check()
        note = os.path.join(self.build, "afunix-cache", "database-jobs")
        self.assertTrue(os.path.exists(note), "the first run notes the jobs once it made the cache")
        self.assertEqual(self.check()[0], expected)
        # Other bytes: read again, the new command used (the note is of the old bytes).
        with open(self.database) as f:
            entries = json.load(f)
        entries[0]["arguments"].insert(1, "-DNOTED_BY_THE_TEST=1")
        with open(self.database, "w") as f:
            json.dump(entries, f)
        commands = run("-p", self.build, "--print-commands", cwd=self.root).stdout
        self.assertIn("-DNOTED_BY_THE_TEST=1", commands)
        self.assertEqual(self.check()[0], expected)
        # A note damaged since is not used: trusted, it would list a file that is not there.
        with open(note, "rb") as f:
            noted = f.read()
        self.assertIn(b"usage.c", noted)
        with open(note, "wb") as f:
            f.write(noted.replace(b"usage.c", b"usagX.c"))
        self.assertEqual(self.check()[0], expected)
        # The file system is asked each run: a listed file gone is an input error, note or not.
        os.remove(os.path.join(self.src, "usage.c"))
        gone = run("-p", self.build, check_status=(2,), cwd=self.root)
        self.assertIn("usage.c, which does not exist", gone.stderr)


class WorkBoundTest(unittest.TestCase):
    """Every rule's work is bounded (RuleContext::kWorkBound): on a generated worst case the run
    ends, says which rules stopped, and a program of ordinary shape never reaches the bound."""

    def check(self, sockets, *extra):
        root = tempfile.mkdtemp(prefix="afunix-worst-")
        self.addCleanup(shutil.rmtree, root, True)
        with open(os.path.join(root, "worst.c"), "w") as f:
            f.write(worst_case_source(sockets))
        with open(os.path.join(root, "compile_commands.json"), "w") as f:
            json.dump([{"directory": root, "file": "worst.c", "arguments": ["cc", "-c", "worst.c"]}], f)
        json_run = run("-p", root, "--no-cache", "--no-store-facts", "--format=json", *extra, cwd=root)
        text_run = run("-p", root, "--no-cache", "--no-store-facts", *extra, cwd=root)
        return json.loads(json_run.stdout), text_run.stderr

    def test_a_generated_worst_case_stops_at_the_bound_and_says_so(self):
        for extra in ([], ["--pedantic"]):
            report, stderr = self.check(500, *extra)
            stopped = report["stopped_at_work_bound"]
            self.assertIn("afunix-passcred-too-late", stopped, extra)
            self.assertIn("afunix-passcred-wrong-family", stopped, extra)
            for rule in stopped:
                self.assertIn(f"{rule} stopped at its work bound", stderr)

    def test_a_small_program_of_the_same_shape_is_judged_whole(self):
        report, stderr = self.check(20)
        self.assertEqual(report["stopped_at_work_bound"], [])
        self.assertNotIn("work bound", stderr)


def main():
    global CHECKER
    args = sys.argv[1:]
    if len(args) >= 2 and args[0] == "--checker":
        CHECKER = os.path.abspath(args[1])
        args = args[2:]
    # A test method named alone: the class that has it.
    def qualified(name):
        if name.startswith("-") or "." in name:
            return name
        for cls in (ScaleTest, RememberedTest, WorkBoundTest):
            if hasattr(cls, name):
                return f"{cls.__name__}.{name}"
        return name
    unittest.main(argv=[sys.argv[0], *[qualified(a) for a in args]])


if __name__ == "__main__":
    main()
