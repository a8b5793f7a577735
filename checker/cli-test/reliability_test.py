#!/usr/bin/env python3
"""What afunix-check never damages and never loses (issue 14, the checker's items). Each test
reproduces one reported failure with the real binary and checks the outcome a careful user
expects: files that are not ours stay as they were, every failure is reported with its own exit
status.

Run one test: reliability_test.py --checker PATH TestName.
"""
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import unittest

import cli_test
from cli_test import fixture

SKIPPED = 77
PASSCRED_LATE = os.path.join(cli_test.REPO, "testdata", "checker", "afunix-passcred-too-late",
                             "pos_accepted_socket.c")


def run(*args, cwd=None, stdout=subprocess.PIPE, input=None):
    proc = subprocess.run([cli_test.CHECKER, *args], cwd=cwd, stdout=stdout,
                          stderr=subprocess.PIPE, timeout=300, input=input)
    out = proc.stdout.decode("utf-8", "surrogateescape") if proc.stdout is not None else None
    return proc.returncode, out, proc.stderr.decode("utf-8", "surrogateescape")


def run_json(*args, cwd=None):
    code, out, err = run("--format=json", *args, cwd=cwd)
    try:
        return code, json.loads(out), err
    except json.JSONDecodeError:
        raise AssertionError(f"no JSON on stdout (exit {code}):\n{out}\n{err}")


class ReliabilityTest(unittest.TestCase):
    def setUp(self):
        self.dir = os.path.realpath(tempfile.mkdtemp(prefix="afunix-rel-"))

    def tearDown(self):
        for root, dirs, files in os.walk(self.dir):
            for d in dirs:
                os.chmod(os.path.join(root, d), 0o755)
        shutil.rmtree(self.dir, ignore_errors=True)

    def need(self, *rules):
        missing = [r for r in rules if r not in cli_test.registered_rules()]
        if missing:
            self.skipTest("no check in this build for " + ", ".join(missing))

    def path(self, name):
        return os.path.join(self.dir, name)

    def write(self, name, text, mode="w"):
        with open(self.path(name), mode) as f:
            f.write(text)
        return self.path(name)

    def read(self, name):
        with open(self.path(name), "rb") as f:
            return f.read()

    # --- 1. --write-baseline never replaces what is not a regular file ------------------------

    def test_write_baseline_refuses_non_regular_files(self):
        self.write("victim.json", "keep\n")
        os.symlink(self.path("victim.json"), self.path("link.json"))
        os.mkfifo(self.path("fifo"))
        os.mkdir(self.path("dir"))
        for target, kind in (("link.json", "a symbolic link"), ("fifo", "a FIFO"),
                             ("dir", "a directory"), ("/dev/null", "a device")):
            path = target if target.startswith("/") else self.path(target)
            with self.subTest(target=target):
                code, out, err = run(f"--write-baseline={path}", fixture("fd_limit.c"))
                self.assertEqual((code, out), (2, ""), err)
                self.assertIn(f"it is {kind}, not a regular file", err)
        self.assertTrue(stat.S_ISLNK(os.lstat(self.path("link.json")).st_mode))
        self.assertTrue(stat.S_ISFIFO(os.lstat(self.path("fifo")).st_mode))
        self.assertTrue(stat.S_ISCHR(os.lstat("/dev/null").st_mode))
        self.assertEqual(self.read("victim.json"), b"keep\n")
        self.assertEqual(sorted(os.listdir(self.dir)), ["dir", "fifo", "link.json", "victim.json"])

    # --- 6. inputs are read before outputs are written ----------------------------------------

    def test_write_baseline_to_the_baseline_file_reads_it_first(self):
        self.need("afunix-fd-limit", "afunix-passcred-wrong-family")
        base = self.path("base.json")
        code, _, err = run("--quiet", f"--write-baseline={base}", fixture("fd_limit.c"))
        self.assertEqual(code, 0, err)
        # Now a new finding appears: it must be reported, not silently baselined by writing the
        # file before reading it.
        code, report, err = run_json(f"--baseline={base}", f"--write-baseline={base}",
                                     fixture("fd_limit.c"), fixture("wrong_family.c"))
        self.assertEqual([f["rule"] for f in report["findings"]], ["afunix-passcred-wrong-family"])
        self.assertIn("1 in the baseline", err)
        self.assertEqual(len(json.load(open(base))["findings"]), 2)  # the updated baseline

    def test_broken_baseline_stops_before_anything_is_written(self):
        self.write("broken.json", "{ not json")
        self.write("out.json", "previous\n")
        code, out, err = run(f"--baseline={self.path('broken.json')}",
                             f"--write-baseline={self.path('out.json')}",
                             f"--export-fixes={self.path('fixes.yaml')}", fixture("fd_limit.c"))
        self.assertEqual((code, out), (2, ""))
        self.assertIn("not valid JSON", err)
        self.assertEqual(self.read("out.json"), b"previous\n")
        self.assertFalse(os.path.exists(self.path("fixes.yaml")))

    # --- 2./3. --fix edits only what it read, in place ----------------------------------------

    def copy_fixable(self, name="server.c"):
        shutil.copy(PASSCRED_LATE, self.path(name))
        return self.path(name)

    def test_fix_through_two_names_of_one_file_edits_it_once(self):
        self.need("afunix-passcred-too-late")
        work = self.copy_fixable()
        os.symlink(work, self.path("alias.c"))
        code, _, err = run("--fix", work, self.path("alias.c"), "--", "-std=gnu11")
        self.assertIn("1 fix applied", err)
        # Once: the result parses and has nothing left to fix.
        code, report, err = run_json(work, "--", "-std=gnu11")
        self.assertEqual((code, report["findings"]), (0, []), err)
        clang = shutil.which("clang-19")
        if clang:
            subprocess.run([clang, "-fsyntax-only", "-std=gnu11", work], check=True)

    def test_fix_keeps_symlinks_links_mode_and_refuses_read_only_files(self):
        self.need("afunix-passcred-too-late")
        target = self.copy_fixable("real.c")
        os.chmod(target, 0o640)
        os.symlink(target, self.path("via-link.c"))
        os.link(target, self.path("hard.c"))
        inode = os.stat(target).st_ino
        code, _, err = run("--fix", self.path("via-link.c"), "--", "-std=gnu11")
        self.assertIn("1 fix applied", err)
        self.assertTrue(stat.S_ISLNK(os.lstat(self.path("via-link.c")).st_mode))
        self.assertEqual(os.stat(target).st_ino, inode)
        self.assertEqual(stat.S_IMODE(os.stat(target).st_mode), 0o640)
        self.assertEqual(self.read("hard.c"), self.read("real.c"))
        self.assertNotEqual(open(target).read(), open(PASSCRED_LATE).read())  # the target was fixed

        locked = self.copy_fixable("locked.c")
        os.chmod(locked, 0o444)
        code, _, err = run("--fix", locked, "--", "-std=gnu11")
        self.assertEqual(code, 1)
        self.assertIn("is read-only (mode 0444); not fixed", err)
        self.assertIn("0 fixes applied", err)
        self.assertEqual(open(locked).read(), open(PASSCRED_LATE).read())

    def test_fix_on_a_file_that_did_not_parse_needs_fix_errors(self):
        self.need("afunix-passcred-too-late")
        work = self.copy_fixable()
        with open(work, "a") as f:
            f.write("\nint broken( {\n")
        before = open(work).read()
        code, _, err = run("--fix", work, "--", "-std=gnu11")
        self.assertEqual(code, 3)
        self.assertIn("could not be parsed: its fix-its were not applied (--fix-errors", err)
        self.assertEqual(open(work).read(), before)
        code, _, err = run("--fix-errors", work, "--", "-std=gnu11")
        self.assertEqual(code, 3)
        self.assertIn("1 fix applied", err)
        self.assertNotEqual(open(work).read(), before)

    # --- 4. --export-fixes does not follow a planted symlink ----------------------------------

    def test_export_fixes_refuses_a_symlink(self):
        self.need("afunix-passcred-too-late")
        self.write("victim", "precious\n")
        os.symlink(self.path("victim"), self.path("fixes.yaml"))
        code, out, err = run(f"--export-fixes={self.path('fixes.yaml')}", PASSCRED_LATE, "--",
                             "-std=gnu11")
        self.assertEqual((code, out), (2, ""))
        self.assertIn("it is a symbolic link, not a regular file", err)
        self.assertEqual(self.read("victim"), b"precious\n")

    # --- 12. a file that overflows the stack costs that file only -----------------------------

    def test_stack_overflow_in_one_file_keeps_the_others(self):
        self.need("afunix-fd-limit")
        # 5000 nested unary minus crash clang-19 itself (8 MiB stack); afunix-check parses it.
        self.write("deep.c", "int f(void) { return " + "- " * 5000 + "1; }\n")
        # Deep enough to overflow any stack: the crash is contained and reported.
        self.write("deeper.c", "int g(void) { return " + "- " * 1500000 + "1; }\n")
        code, report, err = run_json(self.path("deep.c"), self.path("deeper.c"), fixture("fd_limit.c"))
        self.assertEqual(code, 3, err)
        self.assertEqual([(os.path.basename(f["file"]), f["line"]) for f in report["findings"]],
                         [("fd_limit.c", 15)])
        unparsed = {os.path.basename(u["file"]): u["errors"] for u in report["unparsed"]}
        self.assertEqual(list(unparsed), ["deeper.c"])
        self.assertIn("crashed (SIGSEGV", unparsed["deeper.c"][0])
        self.assertIn("deeper.c: could not be parsed", err)

    # --- 14. databases clang-tidy-19 reads ----------------------------------------------------

    def database(self, arguments, extra_files=()):
        src = self.path("ok.c")
        shutil.copy(fixture("clean.c"), src)
        with open(self.path("compile_commands.json"), "w") as f:
            json.dump([{"directory": self.dir, "file": "ok.c", "arguments": arguments}], f)
        return src

    def test_response_files_are_expanded(self):
        self.write("flags.rsp", "-DAFUNIX_TEST_DEFINE -std=gnu11\n")
        shutil.copy(fixture("needs_define.c"), self.path("needs_define.c"))
        with open(self.path("compile_commands.json"), "w") as f:
            json.dump([{"directory": self.dir, "file": "needs_define.c",
                        "arguments": ["gcc", "@flags.rsp", "-c", "needs_define.c"]}], f)
        code, report, err = run_json("-p", self.dir)
        self.assertEqual(code, 0, err)
        self.assertEqual(report["summary"]["parse_errors"], 0)

    def test_gcc_only_flags_clang_refuses_are_dropped(self):
        for flag in (["-mrecord-mcount"], ["-mabi=ms"], ["-fsanitize=bounds-strict"],
                     ["-fsanitize=address,bounds-strict"], ["-traditional"],
                     ["-resource-dir", "/usr/lib/gcc/x86_64-linux-gnu/12"]):
            with self.subTest(flag=flag):
                self.database(["gcc", *flag, "-c", "ok.c", "-o", "ok.o"])
                code, report, err = run_json("-p", self.dir)
                self.assertEqual((code, report["summary"]["parse_errors"]), (0, 0), err)
                code, out, _ = run("--print-commands", "-p", self.dir)
                argv = json.loads(out)[0]["arguments"]
                self.assertNotIn("/usr/lib/gcc/x86_64-linux-gnu/12", argv)
        # Only the refused value of a list goes.
        self.database(["gcc", "-fsanitize=address,bounds-strict", "-c", "ok.c"])
        argv = json.loads(run("--print-commands", "-p", self.dir)[1])[0]["arguments"]
        self.assertIn("-fsanitize=address", argv)

    # --- 15. a write error on stdout is reported, with its own status -------------------------

    def test_write_error_on_stdout_is_exit_4(self):
        self.need("afunix-fd-limit")
        with open("/dev/full", "w") as full:
            for args in (["--format=json", fixture("fd_limit.c")], ["--list-rules"], ["--help"],
                         ["--format=sarif", fixture("fd_limit.c")]):
                with self.subTest(args=args):
                    code, _, err = run(*args, stdout=full)
                    self.assertEqual(code, 4, err)
                    self.assertIn("cannot write the output to stdout: No space left on device", err)
                    self.assertNotIn("LLVM ERROR", err)
        read, write = os.pipe()
        os.close(read)
        try:
            code, _, err = run("--format=json", fixture("fd_limit.c"), stdout=write)
        finally:
            os.close(write)
        self.assertEqual(code, 4, err)
        self.assertIn("cannot write the output to stdout: Broken pipe", err)

    # --- 17. the smaller ones -----------------------------------------------------------------

    def test_duplicate_yaml_keys_and_documents_are_errors(self):
        cases = {
            "pedantic: true\npedantic: false\n": ":2:1: field 'pedantic': duplicate key (first at line 1)",
            "severity:\n  afunix-fd-flood: error\n  afunix-fd-flood: note\n":
                ":3:3: field 'severity.afunix-fd-flood': duplicate key (first at line 2)",
            "pedantic: true\n---\npedantic: false\n": ":3:1: a second YAML document",
        }
        for text, message in cases.items():
            with self.subTest(text=text):
                config = self.write("c.yaml", text)
                code, out, err = run(f"--config={config}", fixture("clean.c"))
                self.assertEqual((code, out), (2, ""))
                self.assertIn(config + message, err)

    def test_empty_option_values_are_errors(self):
        for args in (["--config="], ["-j", ""], ["--jobs="], ["--format="], ["--checks="],
                     ["-p", ""], ["--header-filter="], ["--baseline="], ["--write-baseline="]):
            with self.subTest(args=args):
                code, out, err = run(*args, fixture("clean.c"))
                self.assertEqual((code, out), (2, ""), err)
                self.assertIn("needs a value, not an empty one", err)

    def test_relative_directory_in_the_database(self):
        os.makedirs(self.path("build"))
        os.makedirs(self.path("src"))
        shutil.copy(fixture("needs_define.c"), self.path("src/n.c"))
        with open(self.path("build/compile_commands.json"), "w") as f:
            json.dump([{"directory": "../src", "file": "n.c",
                        "arguments": ["cc", "-DAFUNIX_TEST_DEFINE", "-c", "n.c"]}], f)
        for cwd in (self.dir, "/"):
            code, report, err = run_json("-p", self.path("build"), self.path("src/n.c"), cwd=cwd)
            self.assertEqual(code, 0, err)
            self.assertEqual(report["summary"]["parse_errors"], 0)
        code, report, err = run_json("-p", self.path("build"))
        self.assertEqual(code, 0, err)
        self.assertEqual([u["file"] for u in report["unparsed"]], [])

    def test_the_same_tree_in_two_places_links_its_units_in_one_order(self):
        # The link's order decides ties and budgets: a checkout in CI and one on a laptop (or the
        # fix verification's copies) must judge alike. Seen: systemd at two paths, 6 and 5 findings.
        orders = []
        for place in ("a", "checkout-elsewhere"):
            root = self.path(place)
            entries = []
            for i in range(40):
                name = f"d{i % 7}/unit_{(i * 37) % 101:03d}.c"
                os.makedirs(os.path.join(root, os.path.dirname(name)), exist_ok=True)
                with open(os.path.join(root, name), "w") as f:
                    f.write(f"int unit_{i}(void) {{ return {i}; }}\n")
                entries.append({"directory": root, "file": name, "arguments": ["cc", "-c", name]})
            os.makedirs(os.path.join(root, "build"))
            with open(os.path.join(root, "build", "compile_commands.json"), "w") as f:
                json.dump(entries[::-1], f)
            code, _, err = run_json("-p", os.path.join(root, "build"))
            self.assertEqual(code, 0, err)
            with open(os.path.join(root, "build", "afunix-facts.json")) as f:
                units = [json.loads(line).get("main_file") for line in list(f)[1:]]
            orders.append([os.path.relpath(u, root) for u in units if u])
        self.assertEqual(len(orders[0]), 40)
        self.assertEqual(orders[0], sorted(orders[0]))
        self.assertEqual(orders[0], orders[1])

    def test_non_utf8_paths_give_valid_json_and_percent_encoded_sarif(self):
        self.need("afunix-fd-limit")
        name = os.path.join(os.fsencode(self.dir), b"bad\xff.c")
        shutil.copy(fixture("fd_limit.c"), name)
        proc = subprocess.run([cli_test.CHECKER, "--format=json", name], capture_output=True)
        report = json.loads(proc.stdout.decode("utf-8", "strict"))  # strict: valid UTF-8
        self.assertTrue(report["findings"][0]["file"].endswith("bad\ufffd.c"))
        proc = subprocess.run([cli_test.CHECKER, "--format=sarif", f"--sarif-root={self.dir}", name],
                              capture_output=True)
        log = json.loads(proc.stdout.decode("utf-8", "strict"))
        uri = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        self.assertEqual(uri, "bad%FF.c")  # lossless
        proc = subprocess.run([cli_test.CHECKER, "--print-commands", name, "--", b"-DX=\xfe"],
                              capture_output=True)
        self.assertIn("-DX=\ufffd", json.loads(proc.stdout.decode("utf-8", "strict"))[0]["arguments"])

    def test_terminal_escapes_in_paths_are_not_printed(self):
        self.need("afunix-fd-limit")
        evil = self.path("evil\x1b]0;owned\x07\x1b[2J.c")
        shutil.copy(fixture("fd_limit.c"), evil)
        missing = self.path("gone\x1b[31m.c")
        for args in ([evil, "--show-source", "--color=never"], [missing],
                     [evil, "--", "-DBROKEN=\x1b[1m("], [f"--config={missing}", evil]):
            with self.subTest(args=args):
                code, out, err = run(*args)
                self.assertNotIn("\x1b", out + err)
                self.assertNotIn("\x07", out + err)
        code, out, _ = run("--no-show-source", evil)
        self.assertIn("evil<U+001B>]0;owned<U+0007><U+001B>[2J.c:15:3: error:", out)


if __name__ == "__main__":
    args = sys.argv[1:]
    if len(args) >= 2 and args[0] == "--checker":
        cli_test.CHECKER = args[1]
        args = args[2:]
    suite = unittest.defaultTestLoader.loadTestsFromNames(
        [f"ReliabilityTest.{name}" for name in args] if args else ["ReliabilityTest"],
        sys.modules[__name__])
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    if not result.wasSuccessful():
        sys.exit(1)
    sys.exit(SKIPPED if result.skipped and len(result.skipped) == result.testsRun else 0)
