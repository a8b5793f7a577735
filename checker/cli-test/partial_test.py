#!/usr/bin/env python3
"""Partial runs are exact (issue 21): `afunix-check -p DB FILE...` reports the findings located in
the named files and in the project headers they include, judged against the current facts of
every other file of the database.

A small daemon in a scratch directory: main.c accepts connections and hands each to conn.c, which
reads the peer's credentials (afunix-creds-without-passcred in conn.c, a finding that exists only
because of main.c); other.c includes flood.h, whose inline helper sends 300 fds (afunix-fd-limit
in flood.h, a header conn.c does not include); page.c has no socket code at all. Each failure the
issue describes is a test here, and a property test compares partial runs with the full run over
random subsets and random edits of the testdata projects.

Run one test: partial_test.py --checker PATH TestName.
"""
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
import unittest

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
PROJECTS = os.path.join(REPO, "testdata", "checker", "projects")
CHECKER = os.path.join(REPO, "build", "bin", "afunix-check")

MAIN = textwrap.dedent("""\
    #define _GNU_SOURCE
    #include <string.h>
    #include <sys/socket.h>
    #include <sys/un.h>
    #include <unistd.h>

    #include "conn.h"

    int main(void) {
      struct sockaddr_un addr = {.sun_family = AF_UNIX};
      strcpy(addr.sun_path, "/run/ctl.sock");
      int listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
      if (listener < 0 || bind(listener, (struct sockaddr *)&addr, sizeof addr) < 0)
        return 1;
      if (listen(listener, 16) < 0)
        return 1;
      for (;;) {
        int fd = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0)
          continue;
        handle_client(fd);
        close(fd);
      }
    }
    """)
# main.c with SO_PASSCRED on the listener before listen(): conn.c's finding goes away.
MAIN_ENABLED = MAIN.replace(
    "  if (listen(listener, 16) < 0)\n",
    "  int on = 1;\n  setsockopt(listener, SOL_SOCKET, SO_PASSCRED, &on, sizeof on);\n"
    "  if (listen(listener, 16) < 0)\n")

CONN_H = "#pragma once\nint handle_client(int fd);\n"
CONN = textwrap.dedent("""\
    #define _GNU_SOURCE
    #include <sys/socket.h>
    #include <sys/types.h>

    #include "conn.h"

    static int read_request(int fd, char *buf, size_t size, uid_t *uid) {
      char control[CMSG_SPACE(sizeof(struct ucred))];
      struct iovec iov = {.iov_base = buf, .iov_len = size};
      struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
                           .msg_controllen = sizeof control};
      if (recvmsg(fd, &msg, 0) <= 0)
        return -1;
      for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS)
          *uid = ((struct ucred *)CMSG_DATA(c))->uid;
      return 0;
    }

    int handle_client(int fd) {
      char buf[256];
      uid_t uid = 0;
      if (read_request(fd, buf, sizeof buf, &uid) < 0)
        return -1;
      return uid == 0 ? 0 : -1;
    }
    """)
CONN_LINE = 23

FLOOD_H = textwrap.dedent("""\
    #pragma once
    #include <string.h>
    #include <sys/socket.h>
    static inline int send_batch(int over, const int *fds) {
      char byte = 0;
      static char buf[CMSG_SPACE(300 * sizeof(int))];
      struct iovec iov = {.iov_base = &byte, .iov_len = 1};
      struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = buf,
                           .msg_controllen = sizeof buf};
      struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
      cmsg->cmsg_level = SOL_SOCKET; cmsg->cmsg_type = SCM_RIGHTS;
      cmsg->cmsg_len = CMSG_LEN(300 * sizeof(int));
      memcpy(CMSG_DATA(cmsg), fds, 300 * sizeof(int));
      return sendmsg(over, &msg, 0);
    }
    """)
FLOOD_LINE = 12
OTHER = '#include "flood.h"\nint flush(int s, const int *fds) { return send_batch(s, fds); }\n'
PAGE = "int page_count(int bytes) { return (bytes + 4095) / 4096; }\n"

SOURCES = ("main.c", "conn.c", "other.c", "page.c")


def run(*args, cwd=None, env=None):
    proc = subprocess.run([CHECKER, *args], cwd=cwd, capture_output=True, text=True, timeout=300,
                          env=env)
    return proc.returncode, proc.stdout, proc.stderr


def run_json(*args, cwd=None):
    code, out, err = run("--format=json", *args, cwd=cwd)
    try:
        return code, json.loads(out), err
    except json.JSONDecodeError:
        raise AssertionError(f"no JSON on stdout (exit {code}):\n{out}\n{err}")


def found(report, base):
    return sorted((os.path.relpath(f["file"], base), f["line"], f["rule"])
                  for f in report["findings"])


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


class Daemon:
    """The scratch project: sources, headers and compile_commands.json in one directory."""

    def __init__(self):
        self.dir = os.path.realpath(tempfile.mkdtemp(prefix="afunix-partial-"))
        for name, text in (("main.c", MAIN), ("conn.h", CONN_H), ("conn.c", CONN),
                           ("flood.h", FLOOD_H), ("other.c", OTHER), ("page.c", PAGE)):
            write(self.path(name), text)
        with open(self.path("compile_commands.json"), "w") as f:
            json.dump([{"directory": self.dir, "file": name,
                        "arguments": ["cc", "-std=gnu11", "-c", name]} for name in SOURCES], f)

    def path(self, name):
        return os.path.join(self.dir, name)


class PartialRunTest(unittest.TestCase):
    def setUp(self):
        self.daemon = Daemon()
        self.dir = self.daemon.dir
        self.addCleanup(shutil.rmtree, self.dir, True)

    def full_run(self):
        code, report, err = run_json("-p", ".", cwd=self.dir)
        self.assertEqual(code, 1, err)
        self.assertEqual(found(report, self.dir), [("conn.c", CONN_LINE, "afunix-creds-without-passcred"),
                                                   ("flood.h", FLOOD_LINE, "afunix-fd-limit")])
        return report

    def test_a_file_without_socket_code_reports_nothing_after_a_full_run(self):
        self.full_run()
        code, report, err = run_json("-p", ".", "page.c", cwd=self.dir)
        self.assertEqual((code, found(report, self.dir)), (0, []), err)
        self.assertEqual(report["summary"]["files"], 1)
        self.assertEqual(report["summary"]["not_shown"]["nolint"], 0)

    def test_a_file_gets_its_own_findings_and_those_of_headers_it_includes_only(self):
        self.full_run()
        code, report, err = run_json("-p", ".", "conn.c", cwd=self.dir)
        self.assertEqual(code, 1, err)
        self.assertEqual(found(report, self.dir), [("conn.c", CONN_LINE, "afunix-creds-without-passcred")])
        code, report, err = run_json("-p", ".", "other.c", cwd=self.dir)
        self.assertEqual(found(report, self.dir), [("flood.h", FLOOD_LINE, "afunix-fd-limit")], err)
        # Without a full run first (no stored facts): the same answers.
        os.remove(self.daemon.path("afunix-facts.json"))
        shutil.rmtree(self.daemon.path("afunix-cache"))
        code, report, err = run_json("-p", ".", "conn.c", cwd=self.dir)
        self.assertEqual(found(report, self.dir), [("conn.c", CONN_LINE, "afunix-creds-without-passcred")], err)

    def test_a_file_changed_since_the_full_run_is_judged_as_it_is_now(self):
        self.full_run()
        # main.c edited without a full run since: conn.c's finding still stands (a comment)...
        with open(self.daemon.path("main.c"), "a") as f:
            f.write("/* edited since the full run */\n")
        code, report, err = run_json("-p", ".", "conn.c", cwd=self.dir)
        self.assertEqual(found(report, self.dir), [("conn.c", CONN_LINE, "afunix-creds-without-passcred")],
                         err)
        self.assertEqual(code, 1)
        # ...and goes once main.c enables SO_PASSCRED: judged with main.c's facts of now.
        write(self.daemon.path("main.c"), MAIN_ENABLED)
        code, report, err = run_json("-p", ".", "conn.c", cwd=self.dir)
        self.assertEqual((code, found(report, self.dir)), (0, []), err)
        # A header changed since: the files including it are judged with it as it is.
        write(self.daemon.path("main.c"), MAIN)
        write(self.daemon.path("flood.h"), FLOOD_H.replace("300", "400"))
        code, report, err = run_json("-p", ".", "other.c", cwd=self.dir)
        self.assertEqual(found(report, self.dir), [("flood.h", FLOOD_LINE, "afunix-fd-limit")], err)
        self.assertIn("400 fds", report["findings"][0]["message"])

    def test_what_a_partial_run_cannot_have_as_it_is_now_is_named(self):
        self.full_run()
        # Another file that does not parse: judged with what could be read, said, and the exit
        # status stays the checked file's.
        with open(self.daemon.path("page.c"), "a") as f:
            f.write("int broken(int type = SOCK_STREAM {\n")  # a socket word: it is parsed
        code, report, err = run_json("-p", ".", "conn.c", cwd=self.dir)
        self.assertEqual(code, 1, err)
        self.assertEqual(found(report, self.dir), [("conn.c", CONN_LINE, "afunix-creds-without-passcred")])
        self.assertIn("1 other file of the program could not be parsed (" + self.daemon.path("page.c"),
                      err)
        write(self.daemon.path("page.c"), PAGE)
        # A file the database lists that does not exist: a run over all of it refuses; a partial
        # run goes on without it and says so.
        with open(self.daemon.path("compile_commands.json")) as f:
            entries = json.load(f)
        entries.append({"directory": self.dir, "file": "gen.c", "arguments": ["cc", "-c", "gen.c"]})
        with open(self.daemon.path("compile_commands.json"), "w") as f:
            json.dump(entries, f)
        code, out, err = run("-p", ".", cwd=self.dir)
        self.assertEqual(code, 2, err)
        code, report, err = run_json("-p", ".", "conn.c", cwd=self.dir)
        self.assertEqual(code, 1, err)
        self.assertIn("1 file of the database does not exist (e.g. " + self.daemon.path("gen.c"), err)
        # A file --exclude leaves out (its stored facts stand in) that changed since they were
        # stored: left out, by name.
        entries.pop()
        with open(self.daemon.path("compile_commands.json"), "w") as f:
            json.dump(entries, f)
        self.full_run()
        write(self.daemon.path("main.c"), MAIN.replace("16)", "32)"))
        code, report, err = run_json("-p", ".", "conn.c", "--exclude=main.c", cwd=self.dir)
        self.assertIn("the stored facts of 1 file not extracted now changed since they were stored "
                      "and were left out: " + self.daemon.path("main.c"), err)

    def test_the_pre_commit_hook_gives_one_answer(self):
        git = shutil.which("git")
        if not git:
            self.skipTest("git is not installed")
        guide = open(os.path.join(REPO, "docs", "guide-ci.md")).read()
        m = re.search(r"<!-- recipe: pre-commit-hook -->\n```\w*\n(.*?)^```", guide, re.M | re.S)
        self.assertTrue(m, "guide-ci.md has no pre-commit-hook recipe")
        env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.org",
                   GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.org",
                   GIT_CONFIG_GLOBAL="/dev/null", GIT_CONFIG_NOSYSTEM="1",
                   PATH=os.path.dirname(CHECKER) + os.pathsep + os.environ["PATH"],
                   AFUNIX_BUILD_DIR=".")

        def git_run(*args, check=True):
            return subprocess.run([git, *args], cwd=self.dir, env=env, capture_output=True,
                                  text=True, check=check)

        git_run("init", "-q")
        hook = os.path.join(self.dir, ".git", "hooks", "pre-commit")
        write(hook, m.group(1))
        os.chmod(hook, 0o755)
        with open(os.path.join(self.dir, ".gitignore"), "w") as f:
            f.write("afunix-cache/\nafunix-facts.json\n")
        git_run("add", ".")
        git_run("commit", "-q", "--no-verify", "-m", "the daemon")
        # A change to page.c, committed through the hook before and after a full run.
        with open(self.daemon.path("page.c"), "a") as f:
            f.write("int page_size(void) { return 4096; }\n")
        answers = []
        for full_run_first in (False, True):
            if full_run_first:
                self.full_run()
            git_run("add", "page.c")
            commit = git_run("commit", "-q", "-m", "page size", check=False)
            answers.append((commit.returncode, commit.stderr))
            if commit.returncode == 0:
                git_run("reset", "-q", "--soft", "HEAD~1")
        self.assertEqual([code for code, _ in answers], [0, 0], answers)


# --- the property: a partial run is the full run filtered to the named files --------------------

def includes_of(entry):
    """The project headers a database entry's file includes (clang's -MM: no system headers)."""
    args = [a for a in entry["arguments"][1:] if a not in ("-c",) and not a.endswith((".c", ".cc"))]
    proc = subprocess.run(["clang-19", "-MM", "-MG", *args, entry["file"]], cwd=entry["directory"],
                          capture_output=True, text=True)
    deps = proc.stdout.replace("\\\n", " ").split(":", 1)[-1].split()
    return {os.path.realpath(os.path.join(entry["directory"], d)) for d in deps}


class PartialRunPropertyTest(unittest.TestCase):
    """For random subsets of a database of testdata projects and random edits of its files, the
    findings of `-p DB FILE...` are those of the full run located in FILE... and the project
    headers they include (seeded: a failure names its seed and case)."""

    SEED = 21
    CASES = 24

    def setUp(self):
        if not shutil.which("clang-19"):
            self.skipTest("clang-19 is not installed (needed for the include lists)")
        self.root = os.path.realpath(tempfile.mkdtemp(prefix="afunix-partial-prop-"))
        self.addCleanup(shutil.rmtree, self.root, True)
        rng = random.Random(self.SEED)
        names = sorted(n for n in os.listdir(PROJECTS)
                       if any(f.endswith(".c") for f in os.listdir(os.path.join(PROJECTS, n))))
        # Enough projects for cross-file findings and headers, few enough for a quick test.
        self.entries = []
        for name in sorted(rng.sample(names, 8)):
            directory = os.path.join(self.root, name)
            shutil.copytree(os.path.join(PROJECTS, name), directory)
            for f in sorted(os.listdir(directory)):
                if f.endswith(".c"):
                    self.entries.append({"directory": directory, "file": os.path.join(directory, f),
                                         "arguments": ["cc", "-std=gnu11", f"-I{directory}", "-c",
                                                       os.path.join(directory, f)]})
        with open(os.path.join(self.root, "compile_commands.json"), "w") as f:
            json.dump(self.entries, f, indent=1)
        self.rng = rng

    def edit(self, path):
        """One random edit: a blank line inserted, a line deleted or a line doubled (anywhere
        a line does not continue a macro). The file may stop parsing: both runs see that."""
        with open(path) as f:
            lines = f.read().split("\n")
        candidates = [i for i in range(len(lines)) if i == 0 or not lines[i - 1].endswith("\\")]
        i = self.rng.choice(candidates)
        how = self.rng.choice(("blank", "delete", "double"))
        if how == "blank":
            lines.insert(i, "")
        elif how == "delete":
            del lines[i]
        else:
            lines.insert(i, lines[i])
        with open(path, "w") as f:
            f.write("\n".join(lines))
        return f"{how} line {i + 1} of {os.path.relpath(path, self.root)}"

    def findings(self, *args):
        code, out, err = run("--format=json", "-p", self.root, *args, cwd=self.root)
        self.assertIn(code, (0, 1, 3), err)
        return [(f["file"], f["line"], f["column"], f["rule"], f["message"],
                 tuple((n["file"], n["line"], n["message"]) for n in f["notes"]))
                for f in json.loads(out)["findings"]]

    def test_partial_runs_equal_the_full_run_filtered_to_their_files(self):
        run("-p", self.root, "--quiet", cwd=self.root)  # the stored facts and cache of a first run
        sources = [e["file"] for e in self.entries]
        headers = [os.path.join(d, f) for d in {e["directory"] for e in self.entries}
                   for f in os.listdir(d) if f.endswith(".h")]
        reported = elsewhere = 0  # cases with findings to compare, and with findings left out
        for case in range(self.CASES):
            edits = [self.edit(self.rng.choice(sources + headers))
                     for _ in range(self.rng.randint(0, 2))]
            named = sorted(self.rng.sample(sources, self.rng.randint(1, 3)))
            scope = set(named)
            for e in self.entries:
                if e["file"] in named:
                    scope |= includes_of(e)
            # The partial run first: it must not lean on a full run made after the edits.
            partial = self.findings(*named)
            print(f"case {case}: {len(partial)} findings in {len(named)} files after {edits}",
                  file=sys.stderr)
            full = self.findings()
            expected = [f for f in full if f[0] in scope]
            reported += bool(expected)
            elsewhere += len(expected) < len(full)
            self.assertEqual(partial, expected,
                             f"seed {self.SEED} case {case}: edits {edits}, named "
                             f"{[os.path.relpath(n, self.root) for n in named]}")
        # The cases compare something: findings in the named files, and findings elsewhere.
        self.assertGreater(reported, self.CASES // 4)
        self.assertGreater(elsewhere, self.CASES // 2)


def main():
    global CHECKER
    args = sys.argv[1:]
    if len(args) >= 2 and args[0] == "--checker":
        CHECKER = os.path.abspath(args[1])
        args = args[2:]
    classes = (PartialRunTest, PartialRunPropertyTest)
    names = [next(f"{c.__name__}.{a}" for c in classes if hasattr(c, a)) for a in args]
    suite = unittest.defaultTestLoader.loadTestsFromNames(
        names or [c.__name__ for c in classes], sys.modules[__name__])
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    sys.exit(0 if result.wasSuccessful() else 1)


if __name__ == "__main__":
    main()
