#!/usr/bin/env python3
"""Test of bench/corpus.py's scoring on a tiny project made at test time.

    bench/corpus_test.py --checker build/bin/afunix-check

The project has one function with an unmistakable afunix-creds-without-passcred bug (a socketpair
that never gets SO_PASSCRED, read for SCM_CREDENTIALS), a copy of it, a correct reader, a
wrong-family setsockopt nobody labelled, and a C++ file for the function finder. The labels say:
the bug (found), its copy labelled correct (false), the correct reader labelled as a bug that no
checker can find (missed), and nothing about the wrong-family call (unlabelled). Every count is
therefore fixed by the labels, not by how clever the checker is. A second project, in C++ and in
the other half, has the same bug in a C++ function (found) and its copy labelled correct (false),
so each half and each language has its own sums. Also: the before/after mode, the groups in the
text, --markdown and JSON output, the labels view, and the exit status for bad input. And
bench/corpus/setup.py, which rebuilds the corpus: its arguments, its selection, the setup:, deps: and
packages: keys and its messages, with a local repository as the mirror (no network).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import corpus  # noqa: E402

C_SOURCE = r"""#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>

static int read_creds(int fd)
{
  char control[CMSG_SPACE(sizeof(struct ucred))];
  char byte;
  struct iovec iov = { &byte, 1 };
  struct msghdr msg = { 0 };
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  if (recvmsg(fd, &msg, 0) < 0)
    return -1;
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  if (c && c->cmsg_type == SCM_CREDENTIALS)
    return ((struct ucred *)CMSG_DATA(c))->uid == 0;
  return 1;
}

int buggy_reader(void)
{
  int sv[2];
  socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
  char control[CMSG_SPACE(sizeof(struct ucred))];
  char byte;
  struct iovec iov = { &byte, 1 };
  struct msghdr msg = { 0 };
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  recvmsg(sv[0], &msg, 0);
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  if (c && c->cmsg_type == SCM_CREDENTIALS)
    return 1;
  return 0;
}

int copied_reader(void)
{
  int sv[2];
  socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
  char control[CMSG_SPACE(sizeof(struct ucred))];
  char byte;
  struct iovec iov = { &byte, 1 };
  struct msghdr msg = { 0 };
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  recvmsg(sv[0], &msg, 0);
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  if (c && c->cmsg_type == SCM_CREDENTIALS)
    return 1;
  return 0;
}

int good_reader(void)
{
  int sv[2], one = 1;
  socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
  setsockopt(sv[0], SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
  return read_creds(sv[0]);
}

int inet_option(void)
{
  int one = 1;
  int s = socket(AF_INET, SOCK_STREAM, 0);
  return setsockopt(s, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
}
"""

CXX_SOURCE = r"""namespace ns {
class Owner {
 public:
  explicit Owner(int fd) : fd_(fd), other_(0) {}
  int get() const { return fd_; }
 private:
  int fd_, other_;
};
}  // namespace ns

__attribute__((unused)) static int helper(int a)
{
  if (a) { return 1; }
  const char *s = "}{";  // braces in strings and comments: } {
  return s[0];
}

int ns_user(ns::Owner &o)
{
  struct { int x; } init = { 1 };
  return o.get() + init.x;
}
"""

# The second project (C++, test half): the bug of buggy_reader() inside a C++ member function, and a
# copy of it that the labels call correct.
CXX_PROJECT_SOURCE = r"""#include <sys/socket.h>

namespace tiny {
struct Channel {
  int read_peer() const;
  int read_peer_copy() const;
};

int Channel::read_peer() const
{
  int sv[2];
  socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
  char control[CMSG_SPACE(sizeof(struct ucred))];
  char byte;
  struct iovec iov = { &byte, 1 };
  struct msghdr msg = {};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  recvmsg(sv[0], &msg, 0);
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  return c && c->cmsg_type == SCM_CREDENTIALS;
}

int Channel::read_peer_copy() const
{
  int sv[2];
  socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
  char control[CMSG_SPACE(sizeof(struct ucred))];
  char byte;
  struct iovec iov = { &byte, 1 };
  struct msghdr msg = {};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  recvmsg(sv[0], &msg, 0);
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  return c && c->cmsg_type == SCM_CREDENTIALS;
}
}  // namespace tiny
"""


def line_of(text, needle):
    for i, line in enumerate(text.split("\n"), 1):
        if needle in line:
            return i
    raise AssertionError(f"{needle!r} not in the source")


def write_project(root):
    os.makedirs(root)
    with open(os.path.join(root, "tiny.c"), "w") as f:
        f.write(C_SOURCE)
    with open(os.path.join(root, "owner.cpp"), "w") as f:
        f.write(CXX_SOURCE)
    db = [
        {"directory": root, "file": "tiny.c", "arguments": ["cc", "-std=gnu11", "-c", "tiny.c"]},
        {"directory": root, "file": "owner.cpp", "arguments": ["c++", "-std=c++17", "-c", "owner.cpp"]},
    ]
    with open(os.path.join(root, "compile_commands.json"), "w") as f:
        json.dump(db, f)


def write_cxx_project(root):
    os.makedirs(root)
    with open(os.path.join(root, "channel.cpp"), "w") as f:
        f.write(CXX_PROJECT_SOURCE)
    db = [{"directory": root, "file": "channel.cpp", "arguments": ["c++", "-std=c++17", "-c", "channel.cpp"]}]
    with open(os.path.join(root, "compile_commands.json"), "w") as f:
        json.dump(db, f)


def write_labels(path, commit="0000000"):
    lines = C_SOURCE.split("\n")
    recvmsg_lines = [i for i, l in enumerate(lines, 1) if "recvmsg(sv[0]" in l]
    assert len(recvmsg_lines) == 2
    first_recvmsg, copy_recvmsg = recvmsg_lines
    cxx_recvmsg_lines = [i for i, l in enumerate(CXX_PROJECT_SOURCE.split("\n"), 1) if "recvmsg(sv[0]" in l]
    assert len(cxx_recvmsg_lines) == 2
    labels = {
        "version": 1,
        "window": 3,
        "projects": [{
            "name": "tiny",
            "repo": "example/tiny",
            "language": "C",
            "half": "dev",
            "commit": commit,
            "places": [
                {"file": "tiny.c", "function": "buggy_reader", "line": first_recvmsg, "pattern": ["local"],
                 "labels": [{"rule": "afunix-creds-without-passcred", "expect": "report", "why": "sv never gets SO_PASSCRED"}]},
                {"file": "tiny.c", "function": "copied_reader", "line": copy_recvmsg, "pattern": ["local"],
                 "labels": [{"rule": "afunix-creds-without-passcred", "expect": "none", "why": "labelled correct on purpose"}]},
                {"file": "tiny.c", "function": "good_reader", "line": line_of(C_SOURCE, "return read_creds(sv[0])"),
                 "pattern": ["cross-function"],
                 "labels": [{"rule": "afunix-creds-without-passcred", "expect": "report", "why": "labelled a bug on purpose: no checker finds it"}]},
            ],
        }, {
            "name": "tinypp",
            "repo": "example/tinypp",
            "language": "C++",
            "half": "test",
            "commit": commit,
            "places": [
                {"file": "channel.cpp", "function": "read_peer", "line": cxx_recvmsg_lines[0], "pattern": ["member"],
                 "labels": [{"rule": "afunix-creds-without-passcred", "expect": "report", "why": "sv never gets SO_PASSCRED"}]},
                {"file": "channel.cpp", "function": "read_peer_copy", "line": cxx_recvmsg_lines[1], "pattern": ["member"],
                 "labels": [{"rule": "afunix-creds-without-passcred", "expect": "none", "why": "labelled correct on purpose"}]},
            ],
        }],
    }
    with open(path, "w") as f:
        json.dump(labels, f)  # JSON is YAML


def run(argv, expect_status):
    proc = subprocess.run([sys.executable, os.path.join(HERE, "corpus.py"), *argv], capture_output=True, text=True)
    if proc.returncode != expect_status:
        raise AssertionError(f"corpus.py {' '.join(argv)}: exit {proc.returncode}, expected {expect_status}\n"
                             f"stdout:\n{proc.stdout}\nstderr:\n{proc.stderr}")
    return proc


def check_function_finder(root):
    idx = corpus.SourceIndex(root)
    names = [e[0] for e in idx.extents("owner.cpp")]
    assert names == ["Owner", "get", "helper", "ns_user"], names
    helper = idx.span("owner.cpp", "helper", 1)
    assert helper[1] == line_of(CXX_SOURCE, "static int helper"), helper
    assert helper[2] == line_of(CXX_SOURCE, "return s[0]") + 1, helper
    assert idx.function_at("owner.cpp", line_of(CXX_SOURCE, "init.x")) [0] == "ns_user"
    c_names = [e[0] for e in idx.extents("tiny.c")]
    assert c_names == ["read_creds", "buggy_reader", "copied_reader", "good_reader", "inet_option"], c_names


def check_docs_in_sync():
    """docs/accuracy.md's label tables are bench/corpus.py --markdown of the real labels file."""
    doc = os.path.join(HERE, "..", "docs", "accuracy.md")
    with open(doc, encoding="utf-8") as f:
        text = f.read()
    start = text.index("<!-- labels:")
    start = text.index("\n", start) + 1
    end = text.index("<!-- end labels -->")
    expected = corpus.labels_markdown(corpus.load_labels(corpus.DEFAULT_LABELS)[1])
    if text[start:end].strip() != expected.strip():
        raise AssertionError("docs/accuracy.md's label tables differ from bench/corpus/labels.yaml: "
                             "replace them with the output of bench/corpus.py --markdown")


def run_setup(argv, expect_status):
    proc = subprocess.run([sys.executable, os.path.join(HERE, "corpus", "setup.py"), *argv], capture_output=True,
                          text=True)
    if proc.returncode != expect_status:
        raise AssertionError(f"setup.py {' '.join(argv)}: exit {proc.returncode}, expected {expect_status}\n"
                             f"stdout:\n{proc.stdout}\nstderr:\n{proc.stderr}")
    return proc


def check_setup_script(tmp):
    """bench/corpus/setup.py on a local git repository as the mirror: no network, no real mirror."""
    def git(cwd, *args):
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@localhost", "-C", cwd, *args], check=True,
                       capture_output=True)

    # The real labels file: its setup:/deps:/packages: keys are well formed; a database of "none" has no setup.
    sys.path.insert(0, os.path.join(HERE, "corpus"))
    sys.dont_write_bytecode = True  # no bench/corpus/__pycache__ in the source tree
    import setup  # noqa: E402
    real = setup.load_projects(setup.DEFAULT_LABELS)
    assert any(p.get("setup") for p in real.values()), "no project of labels.yaml has a setup:"
    for name, p in real.items():
        if str(p.get("database", "")).startswith("none"):
            assert not p.get("setup"), f"{name}: database says none but there is a setup:"

    # A project in a mirror (a bare clone of a tiny repository), one without a setup, one whose mirror is absent,
    # one whose commit is absent, one that fails, and one with a patch and a dep.
    work = os.path.join(tmp, "upstream")
    os.makedirs(work)
    with open(os.path.join(work, "a.c"), "w") as f:
        f.write("int a(void) { return 1; }\n")
    git(work, "init", "-q")
    git(work, "add", "a.c")
    git(work, "commit", "-q", "-m", "one")
    first = subprocess.run(["git", "-C", work, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    with open(os.path.join(work, "a.c"), "a") as f:
        f.write("int b(void) { return 2; }\n")
    git(work, "commit", "-q", "-a", "-m", "two")
    mirror = os.path.join(tmp, "mirror")
    subprocess.run(["git", "clone", "-q", "--bare", work, os.path.join(mirror, "example+tiny", "repo")], check=True)
    make_db = ("printf '[{\"directory\": \"%s\", \"file\": \"a.c\", \"command\": \"cc -c a.c\"}]' "
               "\"$SRC\" > build/compile_commands.json")
    labels = {"version": 1, "projects": [
        {"name": "tiny", "repo": "example/tiny", "commit": first, "half": "dev", "language": "C", "places": [],
         "database": "a printf", "packages": ["libfoo-dev", "cmake"],
         "setup": ["test \"$(git rev-parse HEAD)\" = " + first, "! grep -q b a.c", "test \"$JOBS\" = 3",
                   "test \"$SRC\" = \"$ROOT/tiny\"", "mkdir build", make_db]},
        {"name": "tiny-patched", "repo": "example/tiny", "commit": first, "patch": "a.c emptied", "half": "dev",
         "language": "C", "places": [], "database": "a printf", "deps": ["example/tiny@" + first[:7]],
         "packages": ["cmake", "libbar-dev"],
         "setup": ["test -f \"$DEPS/tiny@" + first[:7] + "/a.c\"", ": > a.c",
                   "git -c user.name=t -c user.email=t@localhost commit -q -a -m patch", "mkdir build", make_db]},
        {"name": "tiny-unpatched", "repo": "example/tiny", "commit": first, "patch": "forgotten", "half": "dev",
         "language": "C", "places": [], "database": "a printf", "setup": ["mkdir build", make_db]},
        {"name": "nodb", "repo": "example/tiny", "commit": first, "half": "dev", "language": "C", "places": [],
         "database": "none - it needs the network"},
        {"name": "gone", "repo": "example/gone", "commit": first, "half": "test", "language": "C", "places": [],
         "database": "make", "setup": ["true"]},
        {"name": "old", "repo": "example/tiny", "commit": "1" * 40, "half": "dev", "language": "C", "places": [],
         "database": "make", "setup": ["true"]},
        {"name": "broken", "repo": "example/tiny", "commit": first, "half": "dev", "language": "C", "places": [],
         "database": "make", "setup": ["echo building", "false", "echo never"]},
    ]}
    path = os.path.join(tmp, "setup-labels.yaml")
    with open(path, "w") as f:
        json.dump(labels, f)
    root = os.path.join(tmp, "corpus")
    common = ["--labels", path, "--mirror", mirror, "--root", root]

    # --list: every project, its state, nothing built yet, nothing made.
    out = run_setup(common + ["--list"], 0).stdout
    assert [l.split()[0] for l in out.splitlines()] == ["tiny", "tiny-patched", "tiny-unpatched", "nodb", "gone",
                                                        "old", "broken"], out
    assert "not built" in out and "no setup (none - it needs the network)" in out, out
    assert not os.path.exists(root), "--list made the root"
    # --packages: the base, then each selected project's, once each, in order.
    out = run_setup(common + ["--packages", "tiny-patched", "tiny"], 0).stdout
    first_line = out.splitlines()[0]
    assert first_line.endswith(" ".join(setup.BASE_PACKAGES) + " cmake libbar-dev libfoo-dev"), out
    # Bad arguments and a malformed setup: exit 2.
    assert "no such project: nosuch" in run_setup(common + ["tiny", "nosuch"], 2).stderr
    assert "--jobs must be at least 1" in run_setup(common + ["-j", "0", "tiny"], 2).stderr
    bad = json.loads(json.dumps(labels))
    bad["projects"][0]["setup"] = "make"
    bad_path = os.path.join(tmp, "setup-bad.yaml")
    with open(bad_path, "w") as f:
        json.dump(bad, f)
    proc = run_setup(["--labels", bad_path, "--mirror", mirror, "--root", root, "--list"], 2)
    assert "project tiny: 'setup' must be a list of strings" in proc.stderr, proc.stderr
    bad["projects"][0]["setup"] = ["make"]
    bad["projects"][0]["deps"] = ["example/tiny"]
    with open(bad_path, "w") as f:
        json.dump(bad, f)
    assert "a dep is 'owner/name@sha'" in run_setup(["--labels", bad_path, "--list"], 2).stderr

    # A run, in the order given: built, skipped (no setup, no mirror, no commit), failed; exit 1.
    proc = run_setup(common + ["-j", "3", "tiny", "tiny-patched", "tiny-unpatched", "nodb", "gone", "old", "broken",
                               "tiny"], 1)
    rows = {l.split()[0]: l for l in proc.stdout.splitlines()[2:] if l.strip() and ":" not in l.split()[0]}
    assert list(rows) == ["tiny", "tiny-patched", "tiny-unpatched", "nodb", "gone", "old", "broken"], proc.stdout
    assert "built" in rows["tiny"] and "1 TUs in " + os.path.join(root, "tiny", "build") in rows["tiny"], proc.stdout
    assert "built" in rows["tiny-patched"], proc.stdout
    assert "FAILED" in rows["tiny-unpatched"] and "commit the change" in rows["tiny-unpatched"], proc.stdout
    assert "skipped" in rows["nodb"] and "no setup" in rows["nodb"], proc.stdout
    assert "skipped" in rows["gone"] and "no mirror of example/gone" in rows["gone"] and \
        "fetch github:example/gone" in rows["gone"], proc.stdout
    assert "skipped" in rows["old"] and "lacks commit " + "1" * 40 in rows["old"], proc.stdout
    assert "FAILED" in rows["broken"] and "setup command 2 failed: false" in rows["broken"], proc.stdout
    with open(os.path.join(root, ".logs", "broken.log")) as f:
        log = f.read()
    assert "building" in log and "never" not in log, log
    assert not os.path.exists(os.path.join(root, "gone")) and not os.path.exists(os.path.join(root, "nodb"))
    # The trees are what corpus.py expects: the labelled commit, or a local commit on top of it.
    assert corpus.tree_matches(os.path.join(root, "tiny"), labels["projects"][0]) == (first, True)
    head, ok = corpus.tree_matches(os.path.join(root, "tiny-patched"), labels["projects"][1])
    assert ok and head != first, head
    assert os.path.isfile(os.path.join(root, ".deps", "tiny@" + first[:7], "a.c"))
    # A second run leaves a built tree alone (nothing is deleted) and says how to rebuild.
    proc = run_setup(common + ["tiny"], 0)
    assert "exists (1 TUs); remove it to rebuild" in proc.stdout, proc.stdout
    out = run_setup(common + ["--list", "tiny", "broken"], 0).stdout
    assert "built, 1 TUs" in out and "present, no database" in out, out


def check_own_peak(checker, root):
    """The peak memory a run reports is the checker's, not this harness's: Linux keeps a parent's
    resident set in the child's getrusage() maximum across exec, so a large bench/corpus.py made
    small runs report gigabytes."""
    ballast = bytearray(512 * 1024 * 1024)
    for i in range(0, len(ballast), 4096):
        ballast[i] = 1  # resident, not just reserved
    with tempfile.TemporaryDirectory() as cache:
        r = corpus.run_checker(checker, root, ["--no-store-facts", f"--cache-dir={cache}"], 1, 300)
    del ballast
    assert "error" not in r, r
    assert r["peak_mib"] is not None and 0 < r["peak_mib"] < 256, r["peak_mib"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--checker", required=True)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = os.path.join(tmp, "tiny")
        write_project(root)
        labels = os.path.join(tmp, "labels.yaml")
        write_labels(labels)
        check_function_finder(root)

        cxx_root = os.path.join(tmp, "tinypp")
        write_cxx_project(cxx_root)

        out = os.path.join(tmp, "out.json")
        proc = run(["--checker", args.checker, "--baseline-checker", args.checker, "--labels", labels,
                    "--json", out, "--markdown", f"tiny={root}", f"tinypp={cxx_root}"], 0)
        with open(out) as f:
            result = json.load(f)
        projects = {p["project"]["name"]: p for p in result["projects"]}
        assert result["runs"] == ["before", "after"], result["runs"]
        assert projects["tiny"]["project"]["tus"] == 2 and projects["tinypp"]["project"]["tus"] == 1, projects
        assert (projects["tiny"]["project"]["half"], projects["tiny"]["project"]["language"]) == ("dev", "C")
        assert (projects["tinypp"]["project"]["half"], projects["tinypp"]["project"]["language"]) == ("test", "C++")
        for tag in ("before", "after"):
            s = projects["tiny"]["runs"][tag]["score"]
            got = dict(found=len(s["found"]), missed=len(s["missed"]), false=len(s["false"]),
                       unlabelled=len(s["unlabelled"]))
            assert got == dict(found=1, missed=1, false=1, unlabelled=1), (tag, got, proc.stdout)
            assert s["found"][0]["function"] == "buggy_reader"
            assert s["missed"][0]["function"] == "good_reader"
            assert s["false"][0]["function"] == "copied_reader"
            assert s["unlabelled"][0]["function"] == "inet_option"
            assert s["unlabelled"][0]["rule"] == "afunix-passcred-wrong-family"
            s = projects["tinypp"]["runs"][tag]["score"]
            assert [e["function"] for e in s["found"]] == ["read_peer"], (tag, s, proc.stdout)
            assert [e["function"] for e in s["false"]] == ["read_peer_copy"], (tag, s, proc.stdout)
            assert not s["missed"] and not s["unlabelled"], (tag, s)

            # The groups: each half and each language is one of the two projects, the total both.
            def counts(label):
                g = result["groups"][label][tag]
                return (g["projects"], g["found"], g["bugs"], g["missed"], g["false"], g["unlabelled"], g["tus"],
                        g["found_pct"], g["false_pct"])
            tiny_counts = (1, 1, 2, 1, 1, 1, 2, 50.0, 100.0)
            tinypp_counts = (1, 1, 1, 0, 1, 0, 1, 100.0, 100.0)
            assert counts("total") == (2, 2, 3, 1, 2, 1, 3, 66.7, 100.0), counts("total")
            for label, want in (("dev half", tiny_counts), ("C", tiny_counts), ("dev half, C", tiny_counts),
                                ("test half", tinypp_counts), ("C++", tinypp_counts),
                                ("test half, C++", tinypp_counts)):
                assert counts(label) == want, (tag, label, counts(label))
            assert "dev half, C++" not in result["groups"] and "test half, C" not in result["groups"], result["groups"]
        assert "1/2 -> 1/2" in proc.stdout, proc.stdout
        assert "UNLABELLED tiny.c:" in proc.stdout and "inet_option" in proc.stdout
        text_rows = {l.split("  ")[0].strip(): l for l in proc.stdout.splitlines()}
        assert "2/3 -> 2/3" in text_rows["total"] and "67% -> 67%" in text_rows["total"], proc.stdout
        assert "1/2 -> 1/2" in text_rows["dev half"] and "1/1 -> 1/1" in text_rows["test half"], proc.stdout
        assert "1/2 -> 1/2" in text_rows["C"] and "1/1 -> 1/1" in text_rows["C++"], proc.stdout
        # --markdown with a run: the same numbers as Markdown rows.
        assert "| tinypp | test | C++ | 1 | 1/1 -> 1/1 | 0 -> 0 | 1 -> 1 |" in proc.stdout, proc.stdout
        assert "| dev half | 1 | 2 | 1/2 -> 1/2 | 1 -> 1 | 1 -> 1 | 0 -> 0 | 1 -> 1 | 50% -> 50% |" in proc.stdout, \
            proc.stdout
        assert "| C++ | 1 | 1 | 1/1 -> 1/1 | 0 -> 0 | 1 -> 1 |" in proc.stdout, proc.stdout

        # --markdown without a run: the labels, with each project's half.
        md = run(["--labels", labels, "--markdown"], 0).stdout
        assert "#### tiny" in md and "| `tiny.c:" in md and "creds-without-passcred" in md, md
        assert "at `0000000`, C, dev half" in md and "at `0000000`, C++, test half" in md, md

        # Bad input: exit 2 with a message, never a traceback.
        bad = os.path.join(tmp, "bad.yaml")
        with open(bad, "w") as f:
            f.write("version: 1\nprojects:\n- name: x\n  commit: 1\n  half: dev\n  language: C\n  places:\n  - file: a.c\n")
        proc = run(["--checker", args.checker, "--labels", bad, f"x={root}"], 2)
        assert "missing 'function'" in proc.stderr, proc.stderr
        # A project without a half, with a bad one, or a family split over both halves.
        with open(labels) as f:
            good = json.load(f)
        for change, message in ((lambda d: d["projects"][1].pop("half"), "tinypp: 'half' must be one of dev, test (missing)"),
                                (lambda d: d["projects"][1].update(half="train"), "'half' must be one of dev, test ('train')"),
                                (lambda d: d["projects"][1].update(language="Rust"), "'language' must be one of C, C++ ('Rust')"),
                                (lambda d: d["projects"][1].update(repo="example/tiny"), "a family stays in one half")):
            doc = json.loads(json.dumps(good))
            change(doc)
            with open(bad, "w") as f:
                json.dump(doc, f)
            proc = run(["--checker", args.checker, "--labels", bad, f"tiny={root}"], 2)
            assert message in proc.stderr, (message, proc.stderr)
        proc = run(["--checker", args.checker, "--labels", labels, f"tiny={tmp}"], 2)
        assert "no compile_commands.json" in proc.stderr, proc.stderr
        proc = run(["--checker", args.checker, "--labels", labels, f"nosuch={root}"], 2)
        assert "no such project" in proc.stderr, proc.stderr
        proc = run(["--checker", os.path.join(tmp, "missing-checker"), "--labels", labels, f"tiny={root}"], 2)
        assert "not an executable" in proc.stderr, proc.stderr
        # A checker that fails is reported, the others still run, exit 2.
        failing = os.path.join(tmp, "failing-checker")
        with open(failing, "w") as f:
            f.write("#!/bin/sh\necho broken >&2\nexit 2\n")
        os.chmod(failing, 0o755)
        proc = run(["--checker", args.checker, "--baseline-checker", failing, "--labels", labels,
                    f"tiny={root}"], 2)
        assert "[before] could not run: exit status 2" in proc.stdout, proc.stdout
        assert "[after] bugs found 1/2" in proc.stdout, proc.stdout
        assert "[before] 1 project(s) could not run" in proc.stdout, proc.stdout
        check_own_peak(args.checker, root)
        check_docs_in_sync()
        check_setup_script(tmp)
    print("corpus_test: ok")


if __name__ == "__main__":
    main()
