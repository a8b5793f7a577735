#!/usr/bin/env python3
"""afunix-clangd as an editor meets it (issues 13 and 22, Editor):

- the link of each afunix diagnostic (codeDescription.href): none unless a URL is configured (a
  file:// link to this machine's pages would be dead anywhere else), the rule's page under
  --afunix-docs-url / AFUNIX_DOCS_URL, a file:// one only when given so; never clangd's made-up
  clang.llvm.org page;
- without FastCheckFilter: Loose (or with no .clangd at all) clangd skips the afunix checks:
  afunix-clangd logs why and tells the editor (window/showMessage) the .clangd line to add;
  with it, neither;
- a hover over a finding says what the rule is (its title, what breaks, the fix), elsewhere not;
- a quick fix is titled by what it does;
- docs/guide-editors.md's Neovim snippets: the one for Neovim 0.7 (Debian's) runs in a headless
  Neovim against afunix-clangd and shows the afunix diagnostic; the 0.11 one is compiled by
  Neovim's Lua (no Neovim 0.11 here to run it).

usage: clangd_editor_test.py --clangd BIN [--nvim BIN]
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time

import afunix_testlib as lib
from clangd_lsp_test import Lsp

SOURCE = textwrap.dedent("""\
    #include <sys/socket.h>
    int make(void) {
      int fd = socket(AF_INET, SOCK_STREAM, 0);
      int one = 1;
      return setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
    }
    """)
RULE = "afunix-passcred-wrong-family"
LOOSE = "Diagnostics:\n  ClangTidy:\n    Add: [afunix-*]\n    FastCheckFilter: Loose\n"
STRICT = "Diagnostics:\n  ClangTidy:\n    Add: [afunix-*]\n"
NOT_RUN = "no afunix check ran on "


def project(root, clangd_config):
    os.makedirs(root)
    src = os.path.join(root, "net.c")
    with open(src, "w") as f:
        f.write(SOURCE)
    with open(os.path.join(root, ".clangd"), "w") as f:
        f.write(clangd_config)
    with open(os.path.join(root, "compile_commands.json"), "w") as f:
        json.dump([{"directory": root, "file": src, "arguments": ["clang", "-c", src]}], f)
    return src


def session(clangd, root, src, extra=(), env_extra=None, source=SOURCE, then=None):
    """One LSP session: open the file; returns its afunix diagnostics, clangd's log, the
    window/showMessage texts that arrived, and what `then(lsp, diagnostics)` returned."""
    env = dict(os.environ, XDG_CONFIG_HOME=os.path.join(root, "xdg"), HOME=root)
    env.pop("AFUNIX_DOCS_URL", None)
    env.update(env_extra or {})
    lsp = Lsp([clangd, "--log=info", "--background-index=false", *extra], root, env)
    shown, after = [], None
    try:
        lsp.request("initialize", {"processId": os.getpid(), "rootUri": "file://" + root,
                                   "capabilities": {"textDocument": {
                                       "publishDiagnostics": {"codeDescriptionSupport": True},
                                       "hover": {"contentFormat": ["markdown", "plaintext"]},
                                       "codeAction": {"codeActionLiteralSupport": {
                                           "codeActionKind": {"valueSet": ["quickfix"]}}}}}})
        lsp.notify("initialized", {})
        lsp.notify("textDocument/didOpen", {"textDocument": {
            "uri": "file://" + src, "languageId": "c", "version": 1, "text": source}})
        uri = "file://" + src
        params = None
        while params is None:  # read in order, keeping the notifications that come along
            for msg in lsp.pending:
                if msg.get("method") == "window/showMessage":
                    shown.append(msg["params"]["message"])
                elif msg.get("method") == "textDocument/publishDiagnostics" and msg["params"]["uri"] == uri:
                    params = msg["params"]
            lsp.pending = []
            if params is None:
                lsp.handle(lsp.read(time.time() + 90))
        diags = [d for d in params["diagnostics"] if str(d.get("code", "")).startswith("afunix-")]
        # A request answered after the diagnostics: what clangd sent before it has arrived.
        after = then(lsp, diags) if then else lsp.request("textDocument/hover", {
            "textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}})
        shown += [m["params"]["message"] for m in lsp.pending if m.get("method") == "window/showMessage"]
    finally:
        lsp.close()
    log = open(os.path.join(root, "clangd.log"), encoding="utf-8", errors="replace").read()
    return diags, log, shown, after


def test_links(clangd, tmp):
    src = project(os.path.join(tmp, "links"), LOOSE)
    root = os.path.dirname(src)
    page = os.path.join(lib.REPO, "docs", "rules", RULE + ".md")
    cases = [
        ((), None, None),  # nothing configured: no link, rather than this machine's file://
        (("--afunix-docs-url=https://example.org/afunix/docs",), None,
         f"https://example.org/afunix/docs/rules/{RULE}.md"),
        ((), {"AFUNIX_DOCS_URL": "https://mirror.example/docs/"},
         f"https://mirror.example/docs/rules/{RULE}.md"),
        ((f"--afunix-docs-url=file://{os.path.join(lib.REPO, 'docs')}",), None, "file://" + page),
    ]
    for extra, env, want in cases:
        diags, log, _, _ = session(clangd, root, src, extra, env)
        assert [d["code"] for d in diags] == [RULE], (extra, env, diags)
        href = diags[0].get("codeDescription", {}).get("href")
        assert href == want, f"{extra} {env}: href {href}, want {want}"
        assert "clang.llvm.org" not in json.dumps(diags), diags
        if want is None:
            assert "no published URL, diagnostic links removed" in log, log[-2000:]
    assert os.path.exists(page)
    print("codeDescription.href: none by default, the configured URL's page when one is given "
          "(file:// only when configured so)")


def test_fast_check_filter(clangd, tmp):
    for name, config in (("strict", STRICT), ("plain", "CompileFlags:\n  Add: [-Wall]\n")):
        src = project(os.path.join(tmp, name), config)
        diags, log, shown, _ = session(clangd, os.path.dirname(src), src)
        assert diags == [], diags
        lines = [l for l in log.splitlines() if NOT_RUN + src in l]
        assert len(lines) == 1, log
        assert "FastCheckFilter: Loose" in lines[0], lines[0]
        # The editor is told, once, what to add.
        assert len(shown) == 1 and "Diagnostics: {ClangTidy: {Add: [afunix-*], FastCheckFilter: Loose}}" \
            in shown[0] and "net.c" in shown[0], shown
    src = project(os.path.join(tmp, "loose"), LOOSE)
    diags, log, shown, _ = session(clangd, os.path.dirname(src), src)
    assert [d["code"] for d in diags] == [RULE], diags
    assert NOT_RUN not in log and shown == [], (log, shown)
    # --check mode says it too.
    strict = os.path.join(tmp, "strict", "net.c")
    proc = subprocess.run([clangd, "--check-warnings", f"--check={strict}"], capture_output=True,
                          text=True, cwd=os.path.dirname(strict),
                          env=dict(os.environ, XDG_CONFIG_HOME=os.path.join(tmp, "xdg")))
    assert NOT_RUN + strict in proc.stderr, proc.stderr[-2000:]
    proc = subprocess.run([clangd, "--check-warnings", f"--check={src}"], capture_output=True,
                          text=True, cwd=os.path.dirname(src),
                          env=dict(os.environ, XDG_CONFIG_HOME=os.path.join(tmp, "xdg")))
    assert RULE in proc.stderr and NOT_RUN not in proc.stderr, proc.stderr[-2000:]
    print("without FastCheckFilter: Loose (or without a .clangd) no afunix diagnostic; "
          "afunix-clangd logs why and shows the editor the line to add")


LATE = textwrap.dedent("""\
    #include <sys/socket.h>
    int serve(void) {
      int one = 1;
      int fd = socket(AF_UNIX, SOCK_STREAM, 0);
      listen(fd, 8);
      setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
      return fd;
    }
    """)


def test_hover_and_fix_title(clangd, tmp):
    import yaml
    src = project(os.path.join(tmp, "hover"), LOOSE)
    with open(src, "w") as f:
        f.write(LATE)
    uri = "file://" + src

    def probe(lsp, diags):
        (diag,) = diags
        at = lambda pos: lsp.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                             "position": pos})
        actions = lsp.request("textDocument/codeAction", {
            "textDocument": {"uri": uri}, "range": diag["range"],
            "context": {"diagnostics": [diag], "only": ["quickfix"]}}) or []
        return diag, at(diag["range"]["start"]), at({"line": 0, "character": 1}), actions

    diags, _, _, (diag, over, elsewhere, actions) = session(
        clangd, os.path.dirname(src), src, source=LATE, then=probe)
    rule = diag["code"]
    assert rule == "afunix-passcred-too-late", diag
    title = yaml.safe_load(open(os.path.join(lib.REPO, "rules", rule + ".yaml")))["title"]
    text = (over or {}).get("contents", {}).get("value", "")
    assert f"**{rule}**" in text and title in text and "**Fix:**" in text, over
    assert rule not in json.dumps(elsewhere), elsewhere
    quick = [a for a in actions if a.get("kind") == "quickfix"]
    assert [a["title"] for a in quick] == ["Move the SO_PASSCRED call above listen()"], actions
    print(f"hover over the finding: '{rule}: {title}' with what breaks and the fix; "
          f"quick fix titled '{quick[0]['title']}'")


def guide_snippets():
    """The Lua blocks of guide-editors.md, by the Neovim version named in the line above them."""
    text = open(os.path.join(lib.REPO, "docs", "guide-editors.md")).read()
    blocks = {}
    for match in re.finditer(r"<!-- snippet: (\S+) -->\n```lua\n(.*?)```", text, re.S):
        blocks[match.group(1)] = match.group(2)
    assert {"neovim-0.7", "neovim-0.11"} <= set(blocks), sorted(blocks)
    return blocks


CHECK_LUA = textwrap.dedent("""\
    local ok = vim.wait(60000, function()
      for _, d in ipairs(vim.diagnostic.get(0)) do
        if d.code == '%(rule)s' or (d.user_data and d.user_data.lsp and
                                    d.user_data.lsp.code == '%(rule)s') then
          return true
        end
      end
      return false
    end, 200)
    local out = {}
    for _, d in ipairs(vim.diagnostic.get(0)) do
      local lsp = (d.user_data or {}).lsp or {}
      table.insert(out, { code = d.code or lsp.code, lnum = d.lnum, message = d.message,
                          href = lsp.codeDescription and lsp.codeDescription.href or vim.NIL })
    end
    local f = io.open('%(out)s', 'w')
    f:write(vim.fn.json_encode({ ok = ok, diagnostics = out,
                                 clients = #vim.lsp.get_active_clients() }))
    f:close()
    vim.cmd('qa!')
    """)


def test_neovim(clangd, nvim, tmp):
    blocks = guide_snippets()
    src = project(os.path.join(tmp, "nvim"), LOOSE)
    root = os.path.dirname(src)
    # The snippet runs `afunix-clangd` from PATH, as an installed one would be.
    bindir = os.path.join(tmp, "bin")
    os.makedirs(bindir)
    os.symlink(clangd, os.path.join(bindir, "afunix-clangd"))
    config = os.path.join(tmp, "nvim-config", "nvim")
    os.makedirs(config)
    with open(os.path.join(config, "init.lua"), "w") as f:
        f.write(blocks["neovim-0.7"])
    out = os.path.join(tmp, "nvim-result.json")
    check = os.path.join(tmp, "check.lua")
    with open(check, "w") as f:
        f.write(CHECK_LUA % {"rule": RULE, "out": out})
    env = dict(os.environ, PATH=bindir + os.pathsep + os.environ["PATH"],
               XDG_CONFIG_HOME=os.path.join(tmp, "nvim-config"), XDG_DATA_HOME=os.path.join(tmp, "d"),
               XDG_STATE_HOME=os.path.join(tmp, "s"), XDG_CACHE_HOME=os.path.join(tmp, "c"),
               HOME=tmp)
    env.pop("AFUNIX_DOCS_URL", None)
    proc = subprocess.run([nvim, "--headless", src, "-c", f"luafile {check}"], cwd=root, env=env,
                          capture_output=True, text=True, timeout=120)
    assert os.path.exists(out), f"nvim wrote nothing (exit {proc.returncode}): {proc.stderr}"
    result = json.load(open(out))
    assert result["ok"], f"no {RULE} diagnostic in Neovim: {result}"
    found = [d for d in result["diagnostics"] if d["code"] == RULE]
    assert found[0]["lnum"] == 4, found  # 0-based: line 5
    version = subprocess.run([nvim, "--version"], capture_output=True, text=True).stdout.split("\n")[0]
    print(f"{version}: guide-editors.md's snippet shows {RULE} at line 5 "
          f"(href {found[0]['href']})")
    # The Neovim 0.11 snippet: compiled by this Neovim's Lua; vim.lsp.config/enable need 0.11.
    syntax = os.path.join(tmp, "syntax.lua")
    with open(syntax, "w") as f:
        f.write("local chunk, err = loadstring(%s)\nio.stdout:write(err or 'compiled')\nvim.cmd('qa!')\n"
                % json.dumps(blocks["neovim-0.11"]))
    proc = subprocess.run([nvim, "--headless", "-u", "NONE", "-c", f"luafile {syntax}"],
                          capture_output=True, text=True, timeout=60, env=env)
    assert "compiled" in proc.stdout + proc.stderr, proc.stdout + proc.stderr
    print("guide-editors.md's Neovim 0.11 snippet compiles (not run: no Neovim 0.11 here)")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--clangd", required=True)
    parser.add_argument("--nvim")
    args = parser.parse_args()
    clangd = os.path.abspath(args.clangd)
    with tempfile.TemporaryDirectory(prefix="afunix-editor-") as tmp:
        test_links(clangd, tmp)
        test_fast_check_filter(clangd, tmp)
        test_hover_and_fix_title(clangd, tmp)
        if args.nvim:
            test_neovim(clangd, os.path.abspath(args.nvim), tmp)
        else:
            print("Neovim not found at configure time: the guide's snippet was not run",
                  file=sys.stderr)


if __name__ == "__main__":
    try:
        main()
    except AssertionError as e:
        print(f"FAIL: {e}", file=sys.stderr)
        sys.exit(1)
