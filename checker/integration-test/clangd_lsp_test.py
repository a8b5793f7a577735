#!/usr/bin/env python3
"""Drives afunix-clangd over LSP the way an editor does and checks what arrives.

For each source file: copy it into a scratch project (compile_commands.json + a .clangd that
turns the afunix checks on), initialize, initialized, didOpen, wait for publishDiagnostics. The
afunix diagnostics must sit exactly on the file's `// EXPECT: <rule>` lines (testdata/README.md).
With --expect-fix, a codeAction request at the first afunix diagnostic must return a quickfix
whose edit changes the file.

usage: clangd_lsp_test.py --clangd BIN [--checks GLOB] [--expect-fix] FILE...
"""
import argparse
import json
import os
import re
import select
import shutil
import subprocess
import sys
import tempfile
import time

TIMEOUT = 90  # seconds for one file's diagnostics; a cold clangd parse takes ~1 s here


class Lsp:
    def __init__(self, argv, cwd, env):
        self.proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=open(os.path.join(cwd, "clangd.log"), "wb"))
        self.next_id = 1
        self.buffer = b""
        self.pending = []  # notifications read while waiting for a response

    def send(self, payload):
        body = json.dumps(payload).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method, params):
        rid = self.next_id
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        deadline = time.time() + TIMEOUT
        while True:
            msg = self.read(deadline)
            if msg.get("id") == rid and "method" not in msg:
                if "error" in msg:
                    raise AssertionError(f"{method} failed: {msg['error']}")
                return msg.get("result")
            self.handle(msg)

    def handle(self, msg):
        if "method" in msg and "id" in msg:  # server->client request (e.g. workDoneProgress/create)
            self.send({"jsonrpc": "2.0", "id": msg["id"], "result": None})
        else:
            self.pending.append(msg)

    def read(self, deadline):
        while True:
            header_end = self.buffer.find(b"\r\n\r\n")
            if header_end >= 0:
                headers = self.buffer[:header_end].decode()
                length = int(re.search(r"Content-Length: (\d+)", headers).group(1))
                start = header_end + 4
                if len(self.buffer) >= start + length:
                    body = self.buffer[start:start + length]
                    self.buffer = self.buffer[start + length:]
                    return json.loads(body)
            left = deadline - time.time()
            if left <= 0:
                raise AssertionError("timed out waiting for afunix-clangd")
            ready, _, _ = select.select([self.proc.stdout], [], [], left)
            if ready:
                chunk = os.read(self.proc.stdout.fileno(), 1 << 16)
                if not chunk:
                    raise AssertionError(f"afunix-clangd exited with {self.proc.wait()}")
                self.buffer += chunk

    def wait_notification(self, method, predicate):
        deadline = time.time() + TIMEOUT
        while True:
            for i, msg in enumerate(self.pending):
                if msg.get("method") == method and predicate(msg["params"]):
                    return self.pending.pop(i)["params"]
            self.pending = [m for m in self.pending if m.get("method") != method]
            self.handle(self.read(deadline))

    def close(self):
        try:
            self.request("shutdown", None)
            self.notify("exit", None)
            self.proc.wait(timeout=10)
        except Exception:
            self.proc.kill()


def expectations(text):
    expected = set()
    for number, line in enumerate(text.splitlines(), 1):
        m = re.search(r"//\s*EXPECT:\s*([\w,\s-]+)", line)
        if m:
            for rule in m.group(1).split(","):
                if rule.strip():
                    expected.add((rule.strip(), number))
    return expected


def compile_args(text, path):
    m = re.search(r"^//\s*ARGS:(.*)$", text, re.M)
    if m:
        return m.group(1).split()
    return ["-std=gnu11"] if path.endswith(".c") else ["-std=c++17"]


def check_file(clangd, source, checks, expect_fix):
    text = open(source).read()
    prefix = checks.rstrip("*")
    expected = expectations(text)
    with tempfile.TemporaryDirectory(prefix="afunix-lsp-") as project:
        path = os.path.join(project, os.path.basename(source))
        shutil.copy(source, path)
        compiler = "clang" if path.endswith(".c") else "clang++"
        with open(os.path.join(project, "compile_commands.json"), "w") as f:
            json.dump([{"directory": project, "file": path,
                        "arguments": [compiler, *compile_args(text, source), "-c", path]}], f)
        with open(os.path.join(project, ".clangd"), "w") as f:
            f.write("Diagnostics:\n  ClangTidy:\n    Add: [%s]\n    FastCheckFilter: Loose\n" % checks)
        env = dict(os.environ, XDG_CONFIG_HOME=os.path.join(project, "xdg"), HOME=project)
        lsp = Lsp([clangd, "--log=verbose", "--background-index=false", "--pch-storage=memory"],
                  project, env)
        uri = "file://" + path
        try:
            lsp.request("initialize", {
                "processId": os.getpid(), "rootUri": "file://" + project,
                "capabilities": {"textDocument": {
                    "publishDiagnostics": {"relatedInformation": True},
                    "codeAction": {"codeActionLiteralSupport": {
                        "codeActionKind": {"valueSet": ["quickfix"]}}}}}})
            lsp.notify("initialized", {})
            lsp.notify("textDocument/didOpen", {"textDocument": {
                "uri": uri, "languageId": "c" if path.endswith(".c") else "cpp",
                "version": 1, "text": text}})
            params = lsp.wait_notification("textDocument/publishDiagnostics",
                                           lambda p: p["uri"] == uri)
            diags = [d for d in params["diagnostics"]
                     if d.get("source") == "clang-tidy" and str(d.get("code", "")).startswith(prefix)]
            got = {(d["code"], d["range"]["start"]["line"] + 1) for d in diags}
            errors = [d["message"] for d in params["diagnostics"] if d.get("severity") == 1
                      and d.get("source") != "clang-tidy"]
            assert not errors, f"{source}: clangd could not parse it: {errors}"
            assert got == expected, (f"{source}: afunix diagnostics {sorted(got)} "
                                     f"!= EXPECT lines {sorted(expected)}")
            if expect_fix:
                assert diags, f"{source}: no afunix diagnostic to ask a fix for"
                actions = []
                for diag in diags:
                    actions = lsp.request("textDocument/codeAction", {
                        "textDocument": {"uri": uri}, "range": diag["range"],
                        "context": {"diagnostics": [diag], "only": ["quickfix"]}}) or []
                    actions = [a for a in actions if a.get("kind") == "quickfix" and a.get("edit")]
                    if actions:
                        break
                assert actions, f"{source}: no quickfix code action for {diags}"
                edits = actions[0]["edit"].get("changes", {}).get(uri, [])
                assert edits and any(e["newText"] or e["range"]["start"] != e["range"]["end"]
                                     for e in edits), f"{source}: empty fix {actions[0]}"
                print(f"{source}: fix '{actions[0]['title']}' with {len(edits)} edit(s)")
            print(f"{source}: {len(got)} afunix diagnostic(s) as expected")
        finally:
            lsp.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--clangd", required=True)
    parser.add_argument("--checks", default="afunix-*")
    parser.add_argument("--expect-fix", action="store_true")
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    for source in args.files:
        check_file(args.clangd, source, args.checks, args.expect_fix)


if __name__ == "__main__":
    try:
        main()
    except AssertionError as e:
        print(f"FAIL: {e}", file=sys.stderr)
        sys.exit(1)
