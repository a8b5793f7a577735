#!/usr/bin/env python3
"""Drives afunix-clangd over LSP the way an editor does and checks what arrives.

Every testdata file is copied into a scratch project (compile_commands.json, and per file a
.clangd that adds the afunix checks with FastCheckFilter: Loose and the file's options as
CheckOptions); one afunix-clangd session does initialize, initialized, then didOpen of each file
and waits for its publishDiagnostics. The afunix diagnostics must be exactly afunix-check's
findings on the same file (rule, line; testdata/checker runs check those against the EXPECT
markers), and for every finding afunix-check gives a fix-it for, a codeAction request must
return a quickfix with exactly that edit.

usage: clangd_lsp_test.py --clangd BIN --checker BIN [--require-fix] [FILE...]
"""
import argparse
import collections
import json
import os
import re
import select
import shutil
import subprocess
import sys
import tempfile
import time

import afunix_testlib as lib

BATCH = 8  # files open at once
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

    def diagnostics_for(self, uris):
        """publishDiagnostics params of each uri, read in whatever order clangd sends them."""
        deadline = time.time() + TIMEOUT
        found = {}
        while True:
            for msg in self.pending:
                if msg.get("method") == "textDocument/publishDiagnostics" and \
                        msg["params"]["uri"] in uris:
                    found[msg["params"]["uri"]] = msg["params"]
            self.pending = []
            if len(found) == len(uris):
                return found
            self.handle(self.read(deadline))

    def close(self):
        try:
            self.request("shutdown", None)
            self.notify("exit", None)
            self.proc.wait(timeout=10)
        except Exception:
            self.proc.kill()


def position(text, offset):
    """LSP position (0-based line, UTF-16 character) of a byte offset."""
    data = text.encode()
    line = data.count(b"\n", 0, offset)
    start = data.rfind(b"\n", 0, offset) + 1
    return {"line": line, "character": len(data[start:offset].decode().encode("utf-16-le")) // 2}


def clangd_config(check_options, checks):
    lines = ["Diagnostics:", "  ClangTidy:", f"    Add: [{checks}]", "    FastCheckFilter: Loose",
             "    CheckOptions:"]
    lines += [f"      {k}: '{v}'" for k, v in sorted(check_options.items())]
    return "\n".join(lines) + "\n"


def run(clangd, checker, samples, checks):
    with tempfile.TemporaryDirectory(prefix="afunix-lsp-") as project:
        database, copies = [], []
        for n, sample in enumerate(samples):
            # One directory per file: its own .clangd carries the file's CheckOptions.
            folder = os.path.join(project, f"f{n}")
            os.makedirs(folder)
            path = os.path.join(folder, os.path.basename(sample.path))
            shutil.copy(sample.path, path)
            with open(os.path.join(folder, ".clangd"), "w") as f:
                f.write(clangd_config(lib.check_options(sample.options), checks))
            compiler = "clang++" if sample.is_cxx else "clang"
            database.append({"directory": folder, "file": path,
                             "arguments": [compiler, *sample.args, "-c", path]})
            copies.append(path)
        with open(os.path.join(project, "compile_commands.json"), "w") as f:
            json.dump(database, f)
        env = dict(os.environ, XDG_CONFIG_HOME=os.path.join(project, "xdg"), HOME=project)
        lsp = Lsp([clangd, "--log=error", "--background-index=false", "--pch-storage=memory",
                   f"--compile-commands-dir={project}"], project, env)
        tally = {"diagnostics": 0, "fixes": 0}
        try:
            lsp.request("initialize", {
                "processId": os.getpid(), "rootUri": "file://" + project,
                "capabilities": {"textDocument": {
                    "publishDiagnostics": {"relatedInformation": True},
                    "codeAction": {"codeActionLiteralSupport": {
                        "codeActionKind": {"valueSet": ["quickfix"]}}}}}})
            lsp.notify("initialized", {})
            # afunix-check once per (options, arguments) group, on the same copies.
            reports = {}
            groups = collections.defaultdict(list)
            for sample, path in zip(samples, copies):
                groups[(tuple(sample.options), tuple(sample.args))].append(path)
            for (options, args), paths in groups.items():
                # Without stored facts the editor sees one TU: afunix-check's per-file mode.
                _, report = lib.run_check(checker, paths, list(args), list(options), ["--single-tu"],
                                          cwd=lib.REPO)
                for path in paths:
                    reports[path] = {"findings": [f for f in report["findings"]
                                                  if f["file"] == path]}
            # Files are opened a batch at a time: clangd builds them in parallel, as it does for
            # an editor with several tabs.
            published = {}
            for start in range(0, len(copies), BATCH):
                batch = list(zip(samples, copies))[start:start + BATCH]
                for sample, path in batch:
                    lsp.notify("textDocument/didOpen", {"textDocument": {
                        "uri": "file://" + path, "languageId": "cpp" if sample.is_cxx else "c",
                        "version": 1, "text": open(path).read()}})
                published.update(lsp.diagnostics_for({"file://" + p for _, p in batch}))
                for sample, path in batch:
                    check_one(lsp, sample, path, published["file://" + path], reports[path], tally)
                    lsp.notify("textDocument/didClose", {"textDocument": {"uri": "file://" + path}})
        finally:
            lsp.close()
        return tally["diagnostics"], tally["fixes"]


def check_one(lsp, sample, path, params, report, tally):
    text = open(path).read()
    uri = "file://" + path
    errors = [d["message"] for d in params["diagnostics"] if d.get("severity") == 1
              and d.get("source") != "clang-tidy"]
    assert not errors, f"{sample.path}: clangd could not parse it: {errors}"
    diags = [d for d in params["diagnostics"] if d.get("source") == "clang-tidy"
             and str(d.get("code", "")).startswith("afunix-")]
    got = collections.Counter((d["range"]["start"]["line"] + 1, d["code"]) for d in diags)
    # What afunix-check reports on the same file is what the editor must show.
    want = collections.Counter((f["line"], f["rule"]) for f in report["findings"]
                               if f["file"] == path)
    assert got == want, (f"{sample.path}: afunix-clangd reports "
                         f"{sorted(got.elements())}, afunix-check "
                         f"{sorted(want.elements())}")
    tally["diagnostics"] += sum(got.values())
    # Every fix-it afunix-check offers must come back as a quickfix code action.
    for finding in report["findings"]:
        if not finding["fixes"]:
            continue
        diag = next(d for d in diags if d["code"] == finding["rule"]
                    and d["range"]["start"]["line"] + 1 == finding["line"])
        actions = lsp.request("textDocument/codeAction", {
            "textDocument": {"uri": uri}, "range": diag["range"],
            "context": {"diagnostics": [diag], "only": ["quickfix"]}}) or []
        edits = [sorted((json.dumps(e["range"], sort_keys=True), e["newText"])
                        for e in a["edit"]["changes"][uri])
                 for a in actions if a.get("kind") == "quickfix" and a.get("edit")]
        want = sorted((json.dumps({"start": position(text, e["offset"]),
                                   "end": position(text, e["offset"] + e["length"])},
                                  sort_keys=True), e["text"])
                      for e in finding["fixes"])
        assert want in edits, (f"{sample.path}:{finding['line']}: no code action with "
                               f"afunix-check's fix {want}; got {edits}")
        # One quick fix per finding, titled by what it does (not the message, not "insert '...'").
        titles = [a["title"] for a in actions if a.get("kind") == "quickfix" and a.get("edit")]
        assert len(titles) == 1 and titles[0][:1].isupper() and \
            not titles[0].startswith(("insert '", "change '", "remove '")) and \
            titles[0] != finding["message"], (sample.path, titles)
        tally["fixes"] += 1
    print(f"{os.path.basename(sample.path)}: {sum(got.values())} afunix diagnostic(s) as expected")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--clangd", required=True)
    parser.add_argument("--checker", required=True)
    parser.add_argument("--checks", default="afunix-*")
    parser.add_argument("--require-fix", action="store_true",
                        help="fail unless some diagnostic's fix-it was checked")
    parser.add_argument("files", nargs="*", help="default: every testdata/checker file")
    args = parser.parse_args()
    samples = [lib.Sample(f) for f in args.files] if args.files else lib.samples()
    samples = [s for s in samples if lib.check_options(s.options) is not None]
    diagnostics, fixes = run(os.path.abspath(args.clangd), os.path.abspath(args.checker),
                             samples, args.checks)
    assert diagnostics, "no afunix diagnostic arrived at all"
    assert fixes or not args.require_fix, "no afunix diagnostic with a fix-it was checked"
    print(f"{len(samples)} files: {diagnostics} afunix diagnostics over LSP, {fixes} fix-it "
          f"code action(s) equal to afunix-check's")


if __name__ == "__main__":
    try:
        main()
    except AssertionError as e:
        print(f"FAIL: {e}", file=sys.stderr)
        sys.exit(1)
