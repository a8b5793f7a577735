#!/usr/bin/env python3
"""What afunix-check does with inputs that are not what they should be (issue 21, reliability
round 2): non-regular files where files are read, JSON nested far too deep, runtime evidence that
points where it cannot, shards of different databases, a cache directory that is not a cache,
a file size limit, and a few smaller ones. Each test failed before its fix; docs/guarantees.md
("What each input may be") states the rules.

Runs that could hang or eat memory before the fixes run with a time limit and an address-space
limit, so a regression fails the test instead of the machine.

Run one test: inputs_test.py --checker PATH TestName.
"""
import json
import os
import re
import resource
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import textwrap
import unittest

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
PROJECTS = os.path.join(REPO, "testdata", "checker", "projects")
CHECKER = os.path.join(REPO, "build", "bin", "afunix-check")
TIME_LIMIT = 60  # seconds; every run here takes one or two
MEMORY_LIMIT = 6 << 30  # address space: /dev/zero read whole would pass it within seconds


def limited():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def run(*args, cwd=None, preexec=limited, timeout=TIME_LIMIT):
    try:
        proc = subprocess.run([CHECKER, *args], cwd=cwd, capture_output=True, text=True,
                              timeout=timeout, preexec_fn=preexec, errors="replace")
    except subprocess.TimeoutExpired as e:
        raise AssertionError(f"afunix-check {' '.join(args)} still ran after {timeout} s "
                             f"(stderr so far: {e.stderr!r})")
    return proc.returncode, proc.stdout, proc.stderr


def run_json(*args, cwd=None, **kw):
    code, out, err = run("--format=json", *args, cwd=cwd, **kw)
    try:
        return code, json.loads(out), err
    except json.JSONDecodeError:
        raise AssertionError(f"no JSON on stdout (exit {code}):\n{out[-2000:]}\n{err[-4000:]}")


def write(path, text, mode="w"):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, mode) as f:
        f.write(text)
    return path


def deep(depth, inner="1"):
    return "[" * depth + inner + "]" * depth


def summary(findings, processes=((4242, 1000),), command=("./daemon",)):
    """An afunix-probe run summary (version 2) with these runtime findings."""
    return json.dumps({
        "version": 2, "tool": "afunix-probe run", "command": list(command), "exit_status": 0,
        "library": "libafunix-probe.so", "report_dir": "/tmp/r", "symbolizer": None, "notes": [],
        "findings": findings, "candidates": [], "fixes": [], "missing_processes": [],
        "sites_recorded": False, "sites": [],
        "processes": [{"version": 2, "tool": "afunix-probe",
                       "process": {"pid": pid, "ppid": 1, "exe": command[0], "argv0": command[0],
                                   "start_ns": start}} for pid, start in processes],
        "totals": {}})


def runtime_finding(file, line, rule="afunix-fd-flood"):
    return {"rule": rule, "variant": "since-6.8", "severity": "warning",
            "message": "fds sent faster than the peer takes them", "count": 3, "pids": [4242],
            "programs": ["./daemon"],
            "location": {"file": file, "line": line, "column": 3, "function": "serve"},
            "stack": [{"file": file, "line": line, "column": 3, "function": "serve"}]}


SEND_FD = textwrap.dedent("""\
    #include <string.h>
    #include <sys/socket.h>
    int send_fd(int sock, int fd) {
      char byte = 0;
      char control[CMSG_SPACE(sizeof(int))];
      struct iovec iov = {.iov_base = &byte, .iov_len = 1};
      struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
                           .msg_controllen = sizeof control};
      struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
      c->cmsg_level = SOL_SOCKET;
      c->cmsg_type = SCM_RIGHTS;
      c->cmsg_len = CMSG_LEN(sizeof(int));
      memcpy(CMSG_DATA(c), &fd, sizeof(int));
      return (int)sendmsg(sock, &msg, 0);
    }
    """)


def database(directory, files):
    with open(os.path.join(directory, "compile_commands.json"), "w") as f:
        json.dump([{"directory": directory, "file": name,
                    "arguments": ["cc", "-std=gnu11", "-c", name]} for name in files], f)


def wrappers(directory, fan, levels):
    """send.c sends n fds; w1.c..wL.c hold `fan` wrappers each, every one calling all of the level
    below in a loop, with its own parameters; main.c calls the top level. The sources' names."""
    os.makedirs(directory, exist_ok=True)
    names = [f"w{k}_{j}" for k in range(1, levels + 1) for j in range(fan)]
    write(os.path.join(directory, "w.h"), "#pragma once\n" + "".join(
        f"int {n}(int sock, int *fds, int n);\n" for n in ["send_fds", *names]))
    write(os.path.join(directory, "send.c"), textwrap.dedent("""\
        #include <string.h>
        #include <sys/socket.h>
        #include "w.h"
        int send_fds(int sock, int *fds, int n) {
          char byte = 0;
          char control[CMSG_SPACE(sizeof(int) * 16)];
          struct iovec iov = {.iov_base = &byte, .iov_len = 1};
          struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
                               .msg_controllen = CMSG_SPACE(sizeof(int) * n)};
          struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
          c->cmsg_level = SOL_SOCKET;
          c->cmsg_type = SCM_RIGHTS;
          c->cmsg_len = CMSG_LEN(sizeof(int) * n);
          memcpy(CMSG_DATA(c), fds, sizeof(int) * n);
          return (int)sendmsg(sock, &msg, 0);
        }
        """))
    files = ["send.c"]
    for k in range(1, levels + 1):
        below = ["send_fds"] if k == 1 else [f"w{k - 1}_{i}" for i in range(fan)]
        calls = "".join(f"    r += {b}(sock, fds, n);\n" for b in below)
        write(os.path.join(directory, f"w{k}.c"), '#include "w.h"\n' + "".join(
            f"int w{k}_{j}(int sock, int *fds, int n) {{\n  int r = 0;\n"
            f"  for (int i = 0; i < n; ++i) {{\n{calls}  }}\n  return r;\n}}\n"
            for j in range(fan)))
        files.append(f"w{k}.c")
    top = "".join(f"    w{levels}_{j}(sock, fds, argc);\n" for j in range(fan))
    write(os.path.join(directory, "main.c"),
          '#include "w.h"\nint main(int argc, char **argv) {\n'
          "  int sock = argc, fds[4] = {argc, argc, argc, argc};\n"
          f"  for (;;) {{\n{top}  }}\n}}\n")
    return files + ["main.c"]


class Project:
    """A copy of one testdata project with its compile database, in a scratch directory."""

    def __init__(self, root, name="pos_creds_socket_unit_without_passcred", flags=()):
        self.dir = os.path.join(root, name)
        shutil.copytree(os.path.join(PROJECTS, name), self.dir)
        self.sources = sorted(os.path.join(self.dir, f) for f in os.listdir(self.dir)
                              if f.endswith((".c", ".cpp")))
        self.database(flags)

    def database(self, flags=(), path=None):
        path = path or os.path.join(self.dir, "compile_commands.json")
        with open(path, "w") as f:
            json.dump([{"directory": self.dir, "file": src,
                        "arguments": ["cc", *flags, f"-I{self.dir}", "-c", src]}
                       for src in self.sources], f)
        return path

    def path(self, *parts):
        return os.path.join(self.dir, *parts)


class InputsTest(unittest.TestCase):
    def setUp(self):
        self.root = os.path.realpath(tempfile.mkdtemp(prefix="afunix-inputs-"))
        self.addCleanup(shutil.rmtree, self.root, True)
        self.project = Project(self.root)

    def fifo(self, path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        os.mkfifo(path)
        return path

    def baseline_run(self, *args):
        """The findings of a plain run of the project, as JSON."""
        code, report, err = run_json("-p", self.project.dir, "--no-cache", "--no-store-facts",
                                     *args, cwd=self.root)
        self.assertEqual(code, 1, err)
        return report["findings"]

    # --- non-regular files ------------------------------------------------------------------------

    def test_non_regular_runtime_evidence_is_refused_without_blocking(self):
        for name, make in (("fifo", self.fifo), ("zero", lambda p: os.symlink("/dev/zero", p)),
                           ("urandom", lambda p: os.symlink("/dev/urandom", p))):
            with self.subTest(entry=name):
                directory = os.path.join(self.root, "evidence-" + name)
                os.makedirs(directory)
                make(os.path.join(directory, "afunix-probe-run.1.1.json"))
                code, out, err = run("-p", self.project.dir, f"--runtime-evidence={directory}",
                                     cwd=self.root)
                self.assertEqual((code, out), (2, ""), err)
                self.assertIn("not a regular file", err)
                code, out, err = run("-p", self.project.dir, "--runtime-evidence=/dev/zero",
                                     cwd=self.root)
                self.assertEqual(code, 2, err)
                self.assertIn("not a regular file", err)

    def test_runtime_evidence_pointing_at_non_regular_files_is_not_used(self):
        fifo = self.fifo(os.path.join(self.project.dir, "pipe.c"))
        evidence = write(os.path.join(self.root, "run.json"), summary(
            [runtime_finding(fifo, 3), runtime_finding("/dev/zero", 2),
             runtime_finding("/dev/urandom", 4)]))
        code, report, err = run_json("-p", self.project.dir, f"--runtime-evidence={evidence}",
                                     "--show-source", cwd=self.root)
        self.assertEqual(code, 1, err)
        self.assertEqual(report["findings"], self.baseline_run())
        self.assertRegex(err, r"3 runtime findings? not used")

    def test_non_regular_cache_files_are_not_read(self):
        cache = os.path.join(self.root, "cache")
        run("-p", self.project.dir, f"--cache-dir={cache}", "--no-store-facts", cwd=self.root)
        self.fifo(os.path.join(cache, "pack-00000000000000000001-1-0.pack"))
        os.symlink("/dev/zero", os.path.join(cache, "pack-00000000000000000002-1-0.pack"))
        for name in ("input-stamps", "derived-results", "file-results", "database-jobs"):
            if os.path.lexists(os.path.join(cache, name)):
                os.remove(os.path.join(cache, name))
            os.symlink("/dev/urandom", os.path.join(cache, name))
        code, report, err = run_json("-p", self.project.dir, f"--cache-dir={cache}",
                                     "--no-store-facts", cwd=self.root)
        self.assertEqual(code, 1, err)
        self.assertEqual(report["findings"], self.baseline_run())
        self.assertIn("not a regular file", err)
        os.remove(os.path.join(cache, "input-stamps"))
        self.fifo(os.path.join(cache, "input-stamps"))
        code, report, err = run_json("-p", self.project.dir, f"--cache-dir={cache}",
                                     "--no-store-facts", cwd=self.root)
        self.assertEqual((code, report["findings"]), (1, self.baseline_run()), err)

    def test_a_non_regular_shard_file_is_refused(self):
        shards = os.path.join(self.root, "shards")
        self.fifo(os.path.join(shards, "shard-1-of-1.afxs"))
        code, out, err = run("link", shards, cwd=self.root)
        self.assertEqual((code, out), (2, ""), err)
        self.assertIn("not a regular file", err)
        os.symlink("/dev/zero", os.path.join(self.root, "zero.afxs"))
        code, out, err = run("link", os.path.join(self.root, "zero.afxs"), cwd=self.root)
        self.assertEqual((code, out), (2, ""), err)
        self.assertIn("not a regular file", err)

    def test_service_files_that_are_not_regular_files_are_skipped(self):
        self.fifo(os.path.join(self.root, "extra", "pipe.socket"))
        os.symlink("/dev/zero", os.path.join(self.root, "extra", "zero.socket"))
        for glob in ("extra/*.socket", "extra/pipe.socket", "extra/zero.socket"):
            with self.subTest(glob=glob):
                code, report, err = run_json("-p", self.project.dir, f"--service-files={glob}",
                                             "--no-cache", "--no-store-facts", cwd=self.root)
                self.assertEqual(code, 1, err)
                self.assertEqual(report["findings"], self.baseline_run())
                self.assertIn("not a regular file", err)

    def test_other_inputs_that_are_not_regular_files_are_refused(self):
        fifo = self.fifo(os.path.join(self.root, "fifo"))
        for args in ([f"--baseline={fifo}"], ["--baseline=/dev/zero"], [f"--config={fifo}"],
                     ["--config=/dev/urandom"]):
            with self.subTest(args=args):
                code, out, err = run("-p", self.project.dir, *args, cwd=self.root)
                self.assertEqual((code, out), (2, ""), err)
                self.assertIn("not a regular file", err)
        build = os.path.join(self.root, "build")
        self.fifo(os.path.join(build, "compile_commands.json"))
        code, out, err = run("-p", build, cwd=self.root)
        self.assertEqual((code, out), (2, ""), err)
        self.assertIn("not a regular file", err)

    # --- JSON nested too deep ---------------------------------------------------------------------

    def test_json_nested_deeper_than_the_limit_is_refused(self):
        for depth in (20_000, 60_000, 100_000):
            with self.subTest(depth=depth):
                build = os.path.join(self.root, f"deep-{depth}")
                write(os.path.join(build, "compile_commands.json"), deep(depth))
                code, out, err = run("-p", build, cwd=self.root)
                self.assertEqual((code, out), (2, ""), err)
                self.assertIn("nested deeper than", err)
                baseline = write(os.path.join(self.root, f"baseline-{depth}.json"),
                                 '{"version": 1, "findings": ' + deep(depth) + "}")
                code, out, err = run("-p", self.project.dir, f"--baseline={baseline}",
                                     cwd=self.root)
                self.assertEqual((code, out), (2, ""), err)
                self.assertIn("nested deeper than", err)
                if len(deep(depth)) < 128 * 1024:  # one argument of at most MAX_ARG_STRLEN
                    code, out, err = run("-p", self.project.dir, "--line-filter=" + deep(depth),
                                         cwd=self.root)
                    self.assertEqual((code, out), (2, ""), err)
                    self.assertIn("nested deeper than", err)
                evidence = write(os.path.join(self.root, f"evidence-{depth}.json"),
                                 '{"version": 2, "tool": "afunix-probe run", "findings": ' +
                                 deep(depth) + "}")
                code, out, err = run("-p", self.project.dir, f"--runtime-evidence={evidence}",
                                     cwd=self.root)
                self.assertEqual((code, out), (2, ""), err)
                self.assertIn("nested deeper than", err)

    def test_stored_facts_nested_too_deep_are_not_used(self):
        # A run that takes some files' facts from afunix-facts.json (--exclude leaves them out).
        run("-p", self.project.dir, cwd=self.root)
        stored = self.project.path("afunix-facts.json")
        with open(stored) as f:
            header, *units = f.read().split("\n")
        write(stored, header + "\n" + deep(100_000, '{"main_file": "x"}') + "\n")
        code, out, err = run("-p", self.project.dir, "--exclude=conn.c", cwd=self.root)
        self.assertIn(code, (0, 1), err)
        self.assertIn("nested deeper than", err)

    # --- runtime evidence validated ---------------------------------------------------------------

    def test_runtime_evidence_is_validated(self):
        conn = self.project.path("conn.c")
        lines = open(conn).read().count("\n")
        good = runtime_finding(conn, 7)
        evidence = write(os.path.join(self.root, "run.json"), summary([
            good,
            runtime_finding("/etc/hostname" if os.path.exists("/etc/hostname") else "/etc/passwd", 1),
            runtime_finding(self.project.path("units"), 3),  # a directory
            runtime_finding(conn, lines + 40),        # past the end of the file
            runtime_finding(conn, -5),                # not a line
        ]))
        code, report, err = run_json("-p", self.project.dir, f"--runtime-evidence={evidence}",
                                     cwd=self.root)
        self.assertEqual(code, 1, err)
        runtime = [(os.path.relpath(f["file"], self.project.dir), f["line"])
                   for f in report["findings"] if "seen at run time" in f["message"]]
        self.assertEqual(runtime, [("conn.c", 7)], err)
        self.assertRegex(err, r"4 runtime findings not used")
        for why in ("outside the project", "not a regular file", "past the end", "no line"):
            self.assertIn(why, err)

    def test_two_summaries_of_one_run_count_once(self):
        conn = self.project.path("conn.c")
        directory = os.path.join(self.root, "probe-out")
        text = summary([runtime_finding(conn, 7)])
        write(os.path.join(directory, "afunix-probe-run.4242.1000.json"), text)
        write(os.path.join(directory, "afunix-probe-run.4242.1001.json"), text)
        code, report, err = run_json("-p", self.project.dir, f"--runtime-evidence={directory}",
                                     cwd=self.root)
        runtime = [f for f in report["findings"] if "seen at run time" in f["message"]]
        self.assertEqual(len(runtime), 1, err)
        self.assertIn("3 occurrences in 1 process", runtime[0]["message"])
        self.assertIn("1 found only at run time", err)
        self.assertIn("same run", err)
        # Two different runs still count as two.
        write(os.path.join(directory, "afunix-probe-run.4242.1001.json"),
              summary([runtime_finding(conn, 7)], processes=((5151, 2000),)))
        code, report, err = run_json("-p", self.project.dir, f"--runtime-evidence={directory}",
                                     cwd=self.root)
        self.assertEqual(len([f for f in report["findings"] if "seen at run time" in f["message"]]),
                         2, err)

    def test_runtime_findings_of_a_disabled_rule_are_counted(self):
        conn = self.project.path("conn.c")
        evidence = write(os.path.join(self.root, "run.json"),
                         summary([runtime_finding(conn, 7, rule="afunix-fd-flood")]))
        code, report, err = run_json("-p", self.project.dir, f"--runtime-evidence={evidence}",
                                     "--checks=-afunix-fd-flood", cwd=self.root)
        self.assertEqual(report["summary"]["not_shown"]["disabled"], 1, err)
        self.assertIn("1 disabled by configuration", err)

    # --- link: slices of one database -------------------------------------------------------------

    def test_link_refuses_slices_of_databases_with_other_commands(self):
        other = self.project.database(("-DVARIANT=2",), os.path.join(self.root, "other.json"))
        a, b = os.path.join(self.root, "a"), os.path.join(self.root, "b")
        for shard, database, directory in (("1/2", self.project.path("compile_commands.json"), a),
                                           ("2/2", other, b)):
            code, _, err = run("-p", database, f"--shard={shard}", f"--shard-dir={directory}",
                               "--no-cache", cwd=self.root)
            self.assertEqual(code, 0, err)
        code, out, err = run("link", a, b, cwd=self.root)
        self.assertEqual((code, out), (2, ""), err)
        self.assertIn("another database", err)

    # --- the cache directory ----------------------------------------------------------------------

    def test_cache_dir_adopts_only_an_empty_directory_or_its_own(self):
        mine = os.path.join(self.root, "my-files")
        files = {"pack-holiday.pack": b"photos", "input-stamps": b"stamps I collect",
                 "notes.tmp": b"draft", "database-checked": b"yes"}
        for name, data in files.items():
            write(os.path.join(mine, name), data, "wb")
        old = os.path.getmtime(os.path.join(mine, "notes.tmp")) - 7200
        os.utime(os.path.join(mine, "notes.tmp"), (old, old))
        code, out, err = run("-p", self.project.dir, f"--cache-dir={mine}", cwd=self.root)
        self.assertEqual((code, out), (2, ""), err)
        self.assertIn("not a facts cache", err)
        self.assertEqual(sorted(os.listdir(mine)), sorted(files))
        for name, data in files.items():
            with open(os.path.join(mine, name), "rb") as f:
                self.assertEqual(f.read(), data, name)
        # A CACHEDIR.TAG of another tool does not make it ours.
        write(os.path.join(mine, "CACHEDIR.TAG"), "Signature: 8a477f597d28d172789f06886806bc55\n"
              "# ccache\n")
        code, out, err = run("-p", self.project.dir, f"--cache-dir={mine}", cwd=self.root)
        self.assertEqual(code, 2, err)
        # An empty directory is adopted and marked; then it is ours.
        empty = os.path.join(self.root, "empty")
        os.makedirs(empty)
        for _ in range(2):
            code, out, err = run("-p", self.project.dir, f"--cache-dir={empty}", cwd=self.root)
            self.assertEqual(code, 1, err)
            self.assertIn("afunix-check", open(os.path.join(empty, "CACHEDIR.TAG")).read())
            self.assertTrue(any(n.endswith(".pack") for n in os.listdir(empty)))

    def test_damaged_cache_pack_is_detected_and_not_kept(self):
        cache = os.path.join(self.root, "cache")
        run("-p", self.project.dir, f"--cache-dir={cache}", cwd=self.root)
        packs = [os.path.join(cache, n) for n in os.listdir(cache) if n.endswith(".pack")]
        self.assertEqual(len(packs), 1)
        with open(packs[0], "r+b") as f:
            data = bytearray(f.read())
            data[len(data) - 40] ^= 0x5a  # inside the last entry's facts
            f.seek(0)
            f.write(data)
        # A run that needs none of the pack's entries (another database, same cache) still says so
        # and drops the damaged pack.
        other = Project(self.root, "neg_creds_listener_enabled_elsewhere")
        code, _, err = run("-p", other.dir, f"--cache-dir={cache}", "--no-store-facts",
                           cwd=self.root)
        self.assertIn(code, (0, 1), err)
        self.assertIn("damaged", err)
        self.assertFalse(os.path.exists(packs[0]), "the damaged pack was kept")
        code, _, err = run("-p", self.project.dir, f"--cache-dir={cache}", cwd=self.root)
        self.assertNotIn("damaged", err)

    # --- file size limit (ulimit -f) --------------------------------------------------------------

    def test_file_size_limit_is_an_output_error_not_a_signal(self):
        limit = 4096

        def small_files():
            limited()
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

        out_file = os.path.join(self.root, "out.sarif")
        with open(out_file, "w") as out:
            proc = subprocess.run([CHECKER, "-p", self.project.dir, "--format=sarif"], cwd=self.root,
                                  stdout=out, stderr=subprocess.PIPE, text=True, timeout=TIME_LIMIT,
                                  preexec_fn=small_files)
        self.assertEqual(proc.returncode, 4,
                         f"exit {proc.returncode} ({signal.Signals(-proc.returncode).name if proc.returncode < 0 else ''}"
                         f"{signal.Signals(proc.returncode - 128).name if proc.returncode > 128 else ''}): "
                         f"{proc.stderr}")
        self.assertIn("cannot write", proc.stderr)
        self.assertIn("File too large", proc.stderr)
        baseline = os.path.join(self.root, "baseline.json")
        proc = subprocess.run([CHECKER, "-p", self.project.dir, f"--write-baseline={baseline}",
                               "--format=json"], cwd=self.root, capture_output=True, text=True,
                              timeout=TIME_LIMIT, preexec_fn=lambda: (
                                  limited(), resource.setrlimit(resource.RLIMIT_FSIZE, (300, 300))))
        self.assertEqual(proc.returncode, 4, proc.stderr)
        self.assertIn("baseline", proc.stderr)
        left = [os.path.join(d, n) for d, _, names in os.walk(self.root) for n in names
                if ".tmp" in n]
        self.assertEqual(left, [], "temporary files left behind")
        self.assertFalse(os.path.exists(baseline))

    # --- every rule's work is bounded -------------------------------------------------------------

    def test_pedantic_work_is_bounded_on_generated_worst_cases(self):
        # Two nested loops of one macro expansion share a site, and the link made the inner one
        # its own parent: the walk up the loops around a send of fds of unknown kind (--pedantic)
        # never ended.
        hang = os.path.join(self.root, "macro-loops")
        write(os.path.join(hang, "a.c"), SEND_FD + textwrap.dedent("""\
            #define EACH_PAIR(i, j) for (i = 0; i < 4; i++) for (j = 0; j < 4; j++)
            int spread(int sock, const int *fds) {
              int i, j, r = 0;
              EACH_PAIR(i, j) r += send_fd(sock, fds[i * 4 + j]);
              return r;
            }
            """))
        database(hang, ["a.c"])
        code, report, err = run_json("-p", hang, "--no-cache", "--pedantic", cwd=self.root)
        # 4 x 4 turns: at most 16 fds in flight, nothing to report.
        self.assertEqual((code, report["findings"]), (0, []), err)
        # Wrappers of wrappers: 40 functions at each of four levels each call all 40 of the level
        # below in a loop, so one sendmsg() is reached by 40^4 (2.6 million) paths. Judged path by
        # path this took 47 s of CPU and 3 GB; the paths from one send are bounded
        # (analysis::kMaxSendPaths) and what a loop receives is asked once per loop.
        wide = os.path.join(self.root, "wrappers")
        database(wide, wrappers(wide, fan=40, levels=4))

        def cpu_limited():
            limited()
            resource.setrlimit(resource.RLIMIT_CPU, (20, 20))

        for mode in ([], ["--pedantic"]):
            with self.subTest(mode=mode):
                code, report, err = run_json("-p", wide, "--no-cache", "--no-store-facts", *mode,
                                             cwd=self.root, preexec=cpu_limited)
                self.assertEqual(code, 0, err)
                where = {os.path.basename(f["file"]) for f in report["findings"]}
                # Each loop around the send is reported once, at its own call of send_fds() (the
                # statement to change: w1.c), the levels above only as notes; fds of unknown kind:
                # with --pedantic only.
                self.assertEqual(where, {"w1.c"} if mode else set(), err)
                self.assertEqual(len(report["findings"]), 40 if mode else 0, err)


    def unit_with(self, passcred_line, newline="\n"):
        unit = self.project.path("units", "daemon.socket")
        text = open(unit).read()
        text = text.replace("ListenStream=/run/daemon.sock\n",
                            "ListenStream=/run/daemon.sock\n" + passcred_line)
        with open(unit, "w", newline="") as f:
            f.write(text.replace("\n", newline))
        return unit

    def creds_findings(self):
        code, report, err = run_json("-p", self.project.dir, "--no-cache", "--no-store-facts",
                                     cwd=self.root)
        return [f for f in report["findings"] if f["rule"] == "afunix-creds-without-passcred"], err

    def test_pass_credentials_maybe_is_not_on(self):
        without, _ = self.creds_findings()
        self.assertEqual(len(without), 1)
        self.unit_with("PassCredentials=yes\n")
        self.assertEqual(self.creds_findings()[0], [])
        shutil.copy(os.path.join(PROJECTS, "pos_creds_socket_unit_without_passcred", "units",
                                 "daemon.socket"), self.project.path("units", "daemon.socket"))
        self.unit_with("PassCredentials=maybe\n")
        found, err = self.creds_findings()
        self.assertEqual(len(found), 1, err)
        self.assertIn("without SO_PASSCRED", found[0]["message"])

    def test_a_crlf_unit_gets_a_crlf_line_from_the_fix_it(self):
        unit = self.unit_with("", newline="\r\n")
        code, _, err = run("-p", self.project.dir, "--fix", "--no-cache", "--no-store-facts",
                           cwd=self.root)
        with open(unit, "rb") as f:
            data = f.read()
        self.assertIn(b"ListenStream=/run/daemon.sock\r\nPassCredentials=yes\r\nSocketMode=0666\r\n",
                      data, err)
        self.assertNotRegex(data.decode(), r"[^\r]\n")

    def test_a_quoted_socket_name_in_an_rc_file_is_matched(self):
        rc_project = Project(self.root, "pos_creds_android_rc_without_passcred", flags=("-std=c++17",))
        rc = rc_project.path("init", "mylogd.rc")
        text = open(rc).read()
        write(rc, text.replace("socket mylogw dgram 0222", 'socket "mylogw" dgram 0222'))
        code, report, err = run_json("-p", rc_project.dir, "--no-cache", "--no-store-facts",
                                     cwd=self.root)
        creds = [f for f in report["findings"] if f["rule"] == "afunix-creds-without-passcred"]
        self.assertEqual(len(creds), 1, err)
        self.assertIn("service mylogd in mylogd.rc", creds[0]["message"])
        # Fixed by the fix-it: +passcred inside the quotes' token, and then nothing is reported.
        run("-p", rc_project.dir, "--fix", "--no-cache", "--no-store-facts", cwd=self.root)
        self.assertIn('socket "mylogw" dgram+passcred 0222', open(rc).read())
        code, report, err = run_json("-p", rc_project.dir, "--no-cache", "--no-store-facts",
                                     cwd=self.root)
        self.assertEqual([f for f in report["findings"]
                          if f["rule"] == "afunix-creds-without-passcred"], [], err)


def main():
    global CHECKER
    args = sys.argv[1:]
    if len(args) >= 2 and args[0] == "--checker":
        CHECKER = os.path.abspath(args[1])
        args = args[2:]
    suite = unittest.defaultTestLoader.loadTestsFromNames(
        [f"InputsTest.{a}" for a in args] or ["InputsTest"], sys.modules[__name__])
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    sys.exit(0 if result.wasSuccessful() else 1)


if __name__ == "__main__":
    main()
