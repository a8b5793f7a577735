#!/usr/bin/env python3
"""The editor sees the project: afunix-clangd links the file being edited with the facts the last
`afunix-check -p` run stored beside the compile database (docs/facts-format.md).

A two-file daemon (the accept loop in server.c, the credential check in peer.c) is built in a
scratch project with its compile_commands.json and a .clangd. Over LSP, as an editor would:

1. no stored facts: server.c alone shows nothing (peer.c's reader is unknown to it);
2. after `afunix-check -p`: server.c shows afunix-creds-without-passcred at the call that hands
   the accepted socket to the reader in peer.c, as afunix-check does, with its notes;
3. peer.c edited since that run: its stored facts are stale and left out (a stale fact never
   makes a finding), and afunix-clangd's log says so, naming peer.c;
4. `afunix-check -p` again: the finding is back.

5. the reader inline in a header instead, in a one-file project: clangd parses headers without
   function bodies, so the file alone shows nothing; with stored facts the editor takes the
   header's bodies from the stored unit of the same file and shows the finding; with the header
   edited since the run they are stale and left out.

peer.c has a finding of its own (SO_PASSCRED on an inet socket): the editor shows it in peer.c and
never in server.c, as a partial run `afunix-check -p . server.c` reports only server.c's
findings (and those of the headers it includes).

usage: clangd_project_test.py --clangd BIN --checker BIN
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

from clangd_lsp_test import Lsp, clangd_config

SERVER = """\
#include <sys/socket.h>
#include <unistd.h>

#include "peer.h"

int serve(void) {
  int listener = socket(AF_UNIX, SOCK_STREAM, 0);
  listen(listener, 8);
  for (;;) {
    int fd = accept(listener, 0, 0);
    read_peer(fd);
    close(fd);
  }
}
"""
FINDING_LINE = 11

PEER_H = "int read_peer(int fd);\n"

PEER = """\
#define _GNU_SOURCE
#include <sys/socket.h>

#include "peer.h"

int read_peer(int fd) {
  char buf[64];
  char control[CMSG_SPACE(sizeof(struct ucred))];
  struct iovec iov = {buf, sizeof buf};
  struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
                     .msg_controllen = sizeof control};
  if (recvmsg(fd, &m, 0) < 0)
    return -1;
  struct cmsghdr *c = CMSG_FIRSTHDR(&m);
  return c && c->cmsg_type == SCM_CREDENTIALS;
}

int peer_inet(void) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  return setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
}
"""
PEER_FINDING = (21, "afunix-passcred-wrong-family")

# The reader of peer.c, inline in a header: its body is in clangd's preamble.
INLINE_SERVER = "#define _GNU_SOURCE\n" + SERVER.replace('#include "peer.h"', '#include "peer_inline.h"')
PEER_INLINE_H = "#include <sys/socket.h>\n\n" + PEER[PEER.index("int read_peer"):PEER.index(
    "int peer_inet")].replace("int read_peer", "static inline int read_peer")


def afunix_diagnostics(clangd, project, path):
    """(line, code, message, related messages) of afunix diagnostics for `path`, and the log."""
    env = dict(os.environ, XDG_CONFIG_HOME=os.path.join(project, "xdg"), HOME=project)
    log = os.path.join(project, "clangd.log")
    lsp = Lsp([clangd, "--log=error", "--background-index=false", "--pch-storage=memory",
               f"--compile-commands-dir={project}"], project, env)
    try:
        lsp.request("initialize", {"processId": os.getpid(), "rootUri": "file://" + project,
                                   "capabilities": {"textDocument": {"publishDiagnostics": {
                                       "relatedInformation": True}}}})
        lsp.notify("initialized", {})
        uri = "file://" + path
        lsp.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "c", "version": 1, "text": open(path).read()}})
        params = lsp.diagnostics_for({uri})[uri]
    finally:
        lsp.close()
    found = []
    for d in params["diagnostics"]:
        if not str(d.get("code", "")).startswith("afunix-"):
            continue
        related = [(os.path.basename(r["location"]["uri"]), r["location"]["range"]["start"]["line"] + 1,
                    r["message"]) for r in d.get("relatedInformation", [])]
        found.append((d["range"]["start"]["line"] + 1, d["code"], d["message"], related))
    with open(log, errors="replace") as f:
        return found, f.read()


def run_check(checker, project):
    proc = subprocess.run([checker, "-p", project, "--format=json", "--quiet"],
                          capture_output=True, text=True)
    assert proc.returncode in (0, 1), proc.stderr
    return json.loads(proc.stdout)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--clangd", required=True)
    parser.add_argument("--checker", required=True)
    args = parser.parse_args()
    clangd, checker = os.path.abspath(args.clangd), os.path.abspath(args.checker)
    with tempfile.TemporaryDirectory(prefix="afunix-project-lsp-") as project:
        files = {"server.c": SERVER, "peer.c": PEER, "peer.h": PEER_H}
        for name, text in files.items():
            with open(os.path.join(project, name), "w") as f:
                f.write(text)
        with open(os.path.join(project, ".clangd"), "w") as f:
            f.write(clangd_config({"Pedantic": "false"}, "afunix-*"))
        with open(os.path.join(project, "compile_commands.json"), "w") as f:
            json.dump([{"directory": project, "file": os.path.join(project, src),
                        "arguments": ["clang", "-c", src]} for src in ("server.c", "peer.c")], f)
        server = os.path.join(project, "server.c")
        stored = os.path.join(project, "afunix-facts.json")

        found, _ = afunix_diagnostics(clangd, project, server)
        assert found == [], f"without stored facts server.c alone shows nothing, got {found}"
        print("1. no stored facts: server.c alone shows nothing")

        report = run_check(checker, project)
        assert os.path.isfile(stored), "afunix-check -p stored no afunix-facts.json"
        everywhere = [(os.path.basename(f["file"]), f["line"], f["rule"]) for f in report["findings"]]
        assert everywhere == [("peer.c", *PEER_FINDING),
                              ("server.c", FINDING_LINE, "afunix-creds-without-passcred")], everywhere
        want = [(line, rule) for name, line, rule in everywhere if name == "server.c"]
        found, _ = afunix_diagnostics(clangd, project, server)
        got = [(line, code) for line, code, _, _ in found]
        assert got == want, f"the editor shows {got}, afunix-check {want}"
        related = [(f, l, m.lower()) for f, l, m in found[0][3]]  # clangd capitalises notes
        assert ("peer.c", 12, "credentials are read here") in related, \
            f"the note into peer.c is missing: {related}"
        print(f"2. stored facts: server.c:{FINDING_LINE} {found[0][1]}, with a note in peer.c")
        peer = os.path.join(project, "peer.c")
        found, _ = afunix_diagnostics(clangd, project, peer)
        got = [(line, code) for line, code, _, _ in found]
        assert got == [PEER_FINDING], f"peer.c shows {got}, its own finding only is {PEER_FINDING}"
        print("   peer.c shows its own finding, server.c's stays in server.c")

        with open(os.path.join(project, "peer.c"), "a") as f:
            f.write("/* edited since the run */\n")
        found, log = afunix_diagnostics(clangd, project, server)
        assert found == [], f"a stale unit must not make findings, got {found}"
        assert "1 of 2 stored TUs changed since the last afunix-check -p run" in log, log[-2000:]
        assert f"({os.path.join(project, 'peer.c')})" in log, log[-2000:]
        print("3. peer.c edited since: its stale facts are left out, and the log says so")

        run_check(checker, project)
        found, _ = afunix_diagnostics(clangd, project, server)
        assert [(l, c) for l, c, _, _ in found] == want, found
        print("4. afunix-check -p again: the finding is back")

    with tempfile.TemporaryDirectory(prefix="afunix-project-lsp-") as project:
        for name, text in {"server.c": INLINE_SERVER, "peer_inline.h": PEER_INLINE_H}.items():
            with open(os.path.join(project, name), "w") as f:
                f.write(text)
        with open(os.path.join(project, ".clangd"), "w") as f:
            f.write(clangd_config({"Pedantic": "false"}, "afunix-*"))
        with open(os.path.join(project, "compile_commands.json"), "w") as f:
            json.dump([{"directory": project, "file": os.path.join(project, "server.c"),
                        "arguments": ["clang", "-c", "server.c"]}], f)
        server = os.path.join(project, "server.c")
        found, _ = afunix_diagnostics(clangd, project, server)
        assert found == [], f"clangd skips the header's bodies: nothing without stored facts, got {found}"
        report = run_check(checker, project)
        want = [(f["line"], f["rule"]) for f in report["findings"]]
        assert want == [(FINDING_LINE + 1, "afunix-creds-without-passcred")], want
        found, _ = afunix_diagnostics(clangd, project, server)
        assert [(l, c) for l, c, _, _ in found] == want, f"the editor shows {found}, afunix-check {want}"
        with open(os.path.join(project, "peer_inline.h"), "a") as f:
            f.write("/* edited since the run */\n")
        found, _ = afunix_diagnostics(clangd, project, server)
        assert found == [], f"a header changed since the run: its stored bodies are stale, got {found}"
        print("5. a reader inline in a header: shown from the stored unit's header bodies, "
              "and left out once the header changed")


if __name__ == "__main__":
    try:
        main()
    except AssertionError as e:
        print(f"FAIL: {e}", file=sys.stderr)
        sys.exit(1)
