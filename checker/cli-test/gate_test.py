#!/usr/bin/env python3
"""afunix-check as a CI gate (issue 13): findings in the project's headers reported once, header
and path filters, changed-lines filters, --fail-on, colour and clang's source lines, per-file
configuration, option typos. Each test builds a small project in a scratch directory and runs the
real binary on it, as a CI job or a hook would.

Run one test: gate_test.py --checker PATH TestName.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
import unittest

import cli_test
from cli_test import fixture

SKIPPED = 77

# A static inline function in a header that sends 300 fds in one message (afunix-fd-limit, an
# error) at line 12 of the header.
FLOOD_HEADER = textwrap.dedent("""\
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
HEADER_LINE = 12

# SO_PASSCRED on an inet socket (afunix-passcred-wrong-family) at line 5.
WRONG_FAMILY = textwrap.dedent("""\
    #include <sys/socket.h>
    int make(void) {
      int fd = socket(AF_INET, SOCK_STREAM, 0);
      int one = 1;
      return setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
    }
    """)


def run(*args, cwd=None, env=None):
    proc = subprocess.run([cli_test.CHECKER, *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300, env=env)
    return proc.returncode, proc.stdout, proc.stderr


def run_json(*args, cwd=None, env=None):
    code, out, err = run("--format=json", *args, cwd=cwd, env=env)
    try:
        return code, json.loads(out), err
    except json.JSONDecodeError:
        raise AssertionError(f"no JSON on stdout (exit {code}):\n{out}\n{err}")


def where(report, base):
    return [(os.path.relpath(f["file"], base), f["line"], f["rule"]) for f in report["findings"]]


class GateTest(unittest.TestCase):
    def setUp(self):
        self.dir = os.path.realpath(tempfile.mkdtemp(prefix="afunix-gate-"))
        cli_test.registered_rules()  # fails early if the binary does not run

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def need(self, *rules):
        missing = [r for r in rules if r not in cli_test.registered_rules()]
        if missing:
            self.skipTest("no check in this build for " + ", ".join(missing))

    def write(self, name, text):
        path = os.path.join(self.dir, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        return path

    def project(self):
        """Two sources including one project header with a finding, and a vendored header
        with a finding of its own."""
        self.write("include/flood.h", FLOOD_HEADER)
        self.write("vendor/lib/vflood.h", FLOOD_HEADER.replace("send_batch", "vendor_batch"))
        main = '#include "flood.h"\n#include "vflood.h"\nint a(int s, const int *f) { return send_batch(s, f); }\n'
        other = '#include "flood.h"\nint b(int s, const int *f) { return send_batch(s, f) + 1; }\n'
        return [self.write("src/a.c", main), self.write("src/b.c", other)]

    def args(self):
        return ["--", "-I" + os.path.join(self.dir, "include"),
                "-I" + os.path.join(self.dir, "vendor/lib")]

    # --- findings in headers -------------------------------------------------------------------

    def test_header_findings_are_reported_once(self):
        self.need("afunix-fd-limit")
        code, report, err = run_json(*self.project(), *self.args(), cwd=self.dir)
        # Before: both header findings were dropped and the run exited 0.
        self.assertEqual(code, 1, err)
        self.assertEqual(where(report, self.dir),
                         [("include/flood.h", HEADER_LINE, "afunix-fd-limit"),
                          ("vendor/lib/vflood.h", HEADER_LINE, "afunix-fd-limit")])
        self.assertIn("2 findings in 2 files", err)

    def test_header_filter_and_exclude_header_filter_say_what_they_hide(self):
        self.need("afunix-fd-limit")
        files = self.project()
        code, report, err = run_json("--header-filter=/include/", *files, *self.args(), cwd=self.dir)
        self.assertEqual(where(report, self.dir), [("include/flood.h", HEADER_LINE, "afunix-fd-limit")])
        self.assertEqual(report["summary"]["not_shown"]["header_filter"], 1)
        self.assertIn("1 in headers outside --header-filter", err)
        code, report, err = run_json("--exclude-header-filter=vendor/", *files, *self.args(), cwd=self.dir)
        self.assertEqual(where(report, self.dir), [("include/flood.h", HEADER_LINE, "afunix-fd-limit")])
        code, report, err = run_json("--header-filter=nothing-matches", *files, *self.args(), cwd=self.dir)
        self.assertEqual((code, report["findings"]), (0, []))
        self.assertIn("2 not shown: 2 in headers outside --header-filter", err)

    def test_invalid_header_filter_regex_is_an_error(self):
        for option in ("--header-filter=(unclosed", "--exclude-header-filter=[z-a]"):
            code, out, err = run(option, fixture("clean.c"))
            self.assertEqual((code, out), (2, ""), err)
            self.assertIn("is not a valid regular expression", err)

    # --- --exclude -----------------------------------------------------------------------------

    def test_exclude_skips_files_and_findings_in_them(self):
        self.need("afunix-fd-limit", "afunix-passcred-wrong-family")
        files = self.project()
        gen = self.write("src/gen/wf.c", WRONG_FAMILY)
        code, report, err = run_json("--exclude=vendor", "--exclude=src/gen/**", *files, gen,
                                     *self.args(), cwd=self.dir)
        self.assertEqual(code, 1, err)
        self.assertEqual(where(report, self.dir), [("include/flood.h", HEADER_LINE, "afunix-fd-limit")])
        self.assertEqual(report["summary"]["files"], 2)  # src/gen/wf.c was not checked
        self.assertEqual(report["summary"]["not_shown"]["excluded"], 1)
        self.assertIn("(1 excluded)", err)
        code, report, err = run_json("--exclude=*.h", *files, *self.args(), cwd=self.dir)
        self.assertEqual((code, report["findings"]), (0, []), err)
        code, out, err = run("--exclude=[abc", fixture("clean.c"))
        self.assertEqual(code, 2)
        self.assertIn("without a closing ']'", err)

    # --- changed lines -------------------------------------------------------------------------

    def test_line_filter_keeps_only_the_listed_lines(self):
        self.need("afunix-fd-limit")
        files = self.project()
        only = json.dumps([{"name": "include/flood.h", "lines": [[HEADER_LINE, HEADER_LINE]]}])
        code, report, err = run_json(f"--line-filter={only}", *files, *self.args(), cwd=self.dir)
        self.assertEqual(where(report, self.dir), [("include/flood.h", HEADER_LINE, "afunix-fd-limit")])
        self.assertEqual(report["summary"]["not_shown"]["line_filter"], 1)
        elsewhere = json.dumps([{"name": "flood.h", "lines": [[1, 3]]}])
        code, report, err = run_json(f"--line-filter={elsewhere}", *files, *self.args(), cwd=self.dir)
        self.assertEqual((code, report["findings"]), (0, []))
        for bad in ("{", "[{\"lines\": []}]", "[{\"name\": \"a.c\", \"lines\": [[5, 1]]}]"):
            code, _, err = run(f"--line-filter={bad}", fixture("clean.c"))
            self.assertEqual(code, 2, bad)
            self.assertIn("--line-filter", err)

    def test_diff_from_reports_only_changed_lines(self):
        self.need("afunix-passcred-wrong-family")
        git = shutil.which("git")
        if not git:
            self.skipTest("git is not installed")
        env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.org",
                   GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.org",
                   GIT_CONFIG_GLOBAL="/dev/null", GIT_CONFIG_NOSYSTEM="1")
        g = lambda *a: subprocess.run([git, *a], cwd=self.dir, env=env, check=True,
                                      capture_output=True)
        g("init", "-q")
        old = self.write("old.c", WRONG_FAMILY)
        self.write("untouched.c", WRONG_FAMILY.replace("make", "untouched"))
        g("add", ".")
        g("commit", "-q", "-m", "old findings")
        # A new finding in the working tree: a second function appended to old.c.
        with open(old, "a") as f:
            f.write(WRONG_FAMILY.replace("#include <sys/socket.h>\n", "").replace("make", "make2"))
        code, report, err = run_json("--diff-from=HEAD", "old.c", "untouched.c", cwd=self.dir, env=env)
        self.assertEqual(code, 1, err)
        self.assertEqual(where(report, self.dir), [("old.c", 10, "afunix-passcred-wrong-family")])
        self.assertEqual(report["summary"]["not_shown"]["line_filter"], 2)
        # With a database and no FILE, only the files the diff touches are checked.
        with open(os.path.join(self.dir, "compile_commands.json"), "w") as f:
            json.dump([{"directory": self.dir, "file": n, "arguments": ["cc", "-c", n]}
                       for n in ("old.c", "untouched.c")], f)
        code, report, err = run_json("--diff-from=HEAD", "-p", ".", cwd=self.dir, env=env)
        self.assertEqual(report["summary"]["files"], 1, err)
        self.assertEqual(where(report, self.dir), [("old.c", 10, "afunix-passcred-wrong-family")])
        code, out, err = run("--diff-from=no-such-revision", "old.c", cwd=self.dir, env=env)
        self.assertEqual((code, out), (2, ""))
        self.assertIn("--diff-from=no-such-revision", err)

    # --- --fail-on -----------------------------------------------------------------------------

    def test_fail_on_decides_the_exit_status(self):
        self.need("afunix-fd-limit", "afunix-passcred-too-late")
        # afunix-passcred-too-late is a warning in the catalog; afunix-fd-limit an error.
        late = os.path.join(cli_test.REPO, "testdata", "checker", "afunix-passcred-too-late",
                            "pos_accepted_socket.c")
        self.assertEqual(run("--quiet", "--format=json", late)[0], 1)
        self.assertEqual(run("--quiet", "--format=json", "--fail-on=error", late)[0], 0)
        self.assertEqual(run("--quiet", "--format=json", "--fail-on=error", fixture("fd_limit.c"))[0], 1)
        # A rule configured as a note is reported but does not fail CI...
        self.write(".afunix-check.yaml", "severity: {afunix-passcred-too-late: note}\n")
        shutil.copy(late, os.path.join(self.dir, "late.c"))
        code, report, _ = run_json("late.c", cwd=self.dir)
        self.assertEqual(code, 0)
        self.assertEqual([f["severity"] for f in report["findings"]], ["note"])
        # ...unless asked.
        self.assertEqual(run_json("--fail-on=note", "late.c", cwd=self.dir)[0], 1)
        code, _, err = run("--fail-on=critical", fixture("clean.c"))
        self.assertEqual(code, 2)
        self.assertIn("--fail-on must be error, warning or note", err)

    # --- text output ---------------------------------------------------------------------------

    def test_source_lines_with_carets_and_ranges_like_clang(self):
        self.need("afunix-passcred-wrong-family")
        src = self.write("wf.c", WRONG_FAMILY.replace("  return setsockopt", "\treturn setsockopt"))
        code, out, err = run("--show-source", "--color=never", "wf.c", cwd=self.dir)
        lines = out.splitlines()
        self.assertRegex(lines[0], r"^wf\.c:5:9: error: .*\[afunix-passcred-wrong-family\]$")
        # The tab is expanded to clang's tab stop; ^ at the call, ~ under the rest of it.
        self.assertEqual(lines[1], "        return setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);")
        self.assertEqual(lines[2], "               ^" + "~" * (len("setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one)") - 1))
        self.assertEqual(lines[3], "wf.c:3:12: note: socket created here with AF_INET")

    def test_color_always_never_auto(self):
        self.need("afunix-fd-limit")
        code, out, _ = run("--color=always", "--no-show-source", fixture("fd_limit.c"))
        self.assertIn("\x1b[", out)
        self.assertRegex(out, r"\x1b\[0;1;31merror: ")
        code, out, _ = run("--color=never", "--show-source", fixture("fd_limit.c"))
        self.assertNotIn("\x1b", out)
        code, out, _ = run("--color=auto", fixture("fd_limit.c"))  # stdout is a pipe
        self.assertNotIn("\x1b", out)
        code, _, err = run("--color=sometimes", fixture("clean.c"))
        self.assertEqual(code, 2)
        self.assertIn("--color must be auto, always or never", err)

    def test_color_auto_on_a_terminal_honours_no_color(self):
        self.need("afunix-fd-limit")
        import pty
        def on_tty(env):
            pid, fd = pty.fork()
            if pid == 0:
                os.execve(cli_test.CHECKER, [cli_test.CHECKER, "--no-show-source", fixture("fd_limit.c")], env)
            chunks = []
            while True:
                try:
                    data = os.read(fd, 4096)
                except OSError:
                    break
                if not data:
                    break
                chunks.append(data)
            os.waitpid(pid, 0)
            return b"".join(chunks).decode()
        env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
        env["TERM"] = "xterm"
        self.assertIn("\x1b[", on_tty(env))
        self.assertNotIn("\x1b[", on_tty(dict(env, NO_COLOR="1")))

    # --- configuration discovery ---------------------------------------------------------------

    def test_config_is_found_walking_up_from_each_file(self):
        self.need("afunix-fd-limit", "afunix-passcred-wrong-family")
        self.write(".afunix-check.yaml", "severity: {afunix-passcred-wrong-family: note}\n")
        self.write("legacy/.afunix-check.yaml", "disable: [afunix-passcred-wrong-family]\n")
        self.write("src/net/wf.c", WRONG_FAMILY)
        self.write("legacy/old/wf.c", WRONG_FAMILY)
        self.write("include/flood.h", FLOOD_HEADER)
        self.write("legacy/old/uses.c", '#include "flood.h"\nint u(int s, const int *f) { return send_batch(s, f); }\n')
        self.write("legacy/include/flood.h", FLOOD_HEADER)
        # A header's findings follow the header's configuration, not the includer's.
        self.write("include/.afunix-check.yaml", "severity: {afunix-fd-limit: warning}\n")
        expected = [("include/flood.h", HEADER_LINE, "afunix-fd-limit", "warning"),
                    ("src/net/wf.c", 5, "afunix-passcred-wrong-family", "note")]
        files = ["src/net/wf.c", "legacy/old/wf.c", "legacy/old/uses.c"]
        # From the project root and from deep inside it (as a hook in a subdirectory would run):
        # the same configuration governs each file.
        for cwd in (self.dir, os.path.join(self.dir, "legacy", "old")):
            rel = [os.path.relpath(os.path.join(self.dir, f), cwd) for f in files]
            code, report, err = run_json(*rel, "--", "-I" + os.path.join(self.dir, "include"), cwd=cwd)
            got = [(os.path.relpath(f["file"], self.dir), f["line"], f["rule"], f["severity"])
                   for f in report["findings"]]
            self.assertEqual(got, expected, (cwd, err))
        # --config overrides discovery for every file.
        code, report, _ = run_json(f"--config={fixture('config-good.yaml')}", *files, "--",
                                   "-I" + os.path.join(self.dir, "include"), cwd=self.dir)
        self.assertEqual([(f["rule"], f["severity"]) for f in report["findings"]],
                         [("afunix-fd-limit", "note")])
        # A broken configuration anywhere on the way is an input error naming it.
        self.write("src/.afunix-check.yaml", "pedantic: maybe\n")
        code, out, err = run("src/net/wf.c", cwd=self.dir)
        self.assertEqual((code, out), (2, ""))
        self.assertIn(os.path.join(self.dir, "src", ".afunix-check.yaml") + ":1:11: field 'pedantic'", err)

    # --- SARIF links -------------------------------------------------------------------------

    def test_sarif_help_uri_from_option_config_environment_or_installed_pages(self):
        self.need("afunix-fd-limit")
        env = {k: v for k, v in os.environ.items() if k != "AFUNIX_DOCS_URL"}
        shutil.copy(fixture("fd_limit.c"), self.path("a.c"))

        def help_uri(*args, env=env):
            code, out, err = run("--format=sarif", *args, "a.c", cwd=self.dir, env=env)
            self.assertEqual(code, 1, err)
            rules = json.loads(out)["runs"][0]["tool"]["driver"]["rules"]
            return {r["id"]: r.get("helpUri") for r in rules}["afunix-fd-limit"]

        # Nothing configured: no link (a file:// one would be dead wherever the log is read).
        self.assertIsNone(help_uri())
        self.assertEqual(help_uri("--docs-url=file:///usr/share/doc/afunix-compat"),
                         "file:///usr/share/doc/afunix-compat/rules/afunix-fd-limit.md")
        self.assertEqual(help_uri(env=dict(env, AFUNIX_DOCS_URL="https://env.example/d")),
                         "https://env.example/d/rules/afunix-fd-limit.md")
        self.write(".afunix-check.yaml", "docs_url: https://config.example/docs/\n")
        self.assertEqual(help_uri(env=dict(env, AFUNIX_DOCS_URL="https://env.example/d")),
                         "https://config.example/docs/rules/afunix-fd-limit.md")
        self.assertEqual(help_uri("--docs-url=https://option.example/x"),
                         "https://option.example/x/rules/afunix-fd-limit.md")
        for bad in ("--docs-url=not a url", "--docs-url=docs/"):
            code, out, err = run(bad, "a.c", cwd=self.dir)
            self.assertEqual((code, out), (2, ""))
            self.assertIn("is not an absolute URL", err) if "docs/" in bad else \
                self.assertIn("--docs-url", err)

    def path(self, name):
        return os.path.join(self.dir, name)

    # --- options -------------------------------------------------------------------------------

    def test_mistyped_option_suggests_the_nearest(self):
        cases = {
            "--fomat=json": "did you mean '--format=json'?",
            "--header-filer=x": "did you mean '--header-filter=x'?",
            "--exlude=a": "did you mean '--exclude=a'?",
            "--fail-no=note": "did you mean '--fail-on=note'?",
            "--pedntic": "did you mean '--pedantic'?",
            "--colour=never": "did you mean '--color=never'?",
        }
        for arg, suggestion in cases.items():
            with self.subTest(arg=arg):
                code, out, err = run(arg, fixture("clean.c"))
                self.assertEqual((code, out), (2, ""))
                self.assertIn(f"unknown option '{arg}'; {suggestion}", err)
        code, _, err = run("--completely-different", fixture("clean.c"))
        self.assertIn("unknown option '--completely-different'", err)
        self.assertNotIn("did you mean", err)


if __name__ == "__main__":
    args = sys.argv[1:]
    if len(args) >= 2 and args[0] == "--checker":
        cli_test.CHECKER = args[1]
        args = args[2:]
    suite = unittest.defaultTestLoader.loadTestsFromNames(
        [f"GateTest.{name}" for name in args] if args else ["GateTest"], sys.modules[__name__])
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    if not result.wasSuccessful():
        sys.exit(1)
    sys.exit(SKIPPED if result.skipped and len(result.skipped) == result.testsRun else 0)
