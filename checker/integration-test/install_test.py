#!/usr/bin/env python3
"""The installed tree and the .deb.

`cmake --install BUILD --prefix TMP/usr`, then every tool runs from the prefix (after the prefix
is moved elsewhere, so nothing points back into the build or the first prefix): afunix-check on
a testdata file gives that file's EXPECT findings; clang-tidy-19 --load of the installed plugin
lists the afunix checks; afunix-clangd --check reports the afunix diagnostics; afunix-probe --help
works and `run` preloads the installed libafunix-probe.so; the man pages are there,
afunix-check.1 documents every option of --help, afunix-check.1 and afunix-clangd.1 have OPTIONS,
EXIT STATUS and ENVIRONMENT sections and render without groff warnings. The installed docs are
whole: every relative link in them resolves inside the installed tree, every document the tools
name (in --help, in their messages) is installed, and the links the tools make (SARIF helpUri,
afunix-clangd's diagnostic links) point at installed pages. Then cpack
builds the .deb; dpkg-deb -c must list every tool, library, rule file, man page and guide, its
control fields must name the package and the Debian package of every shared library its tools
and libraries load by name (their ELF NEEDED entries, resolved as ldd resolves them), and the
extracted afunix-check must run.

usage: install_test.py --build DIR --clang-tidy BIN --cpack BIN SAMPLE.c
"""
import argparse
import collections
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

import afunix_testlib as lib

TOOLS = ["bin/afunix-check", "bin/afunix-clangd", "bin/afunix-probe"]
LIBS = ["lib/libafunix-tidy.so", "lib/libafunix-probe.so"]
MAN = ["share/man/man1/afunix-check.1", "share/man/man1/afunix-clangd.1",
       "share/man/man1/afunix-probe.1"]
DOCS = ["share/doc/afunix-compat/README.md", "share/doc/afunix-compat/guide-ci.md",
        "share/doc/afunix-compat/guide-sarif.md", "share/doc/afunix-compat/guide-clang-tidy.md",
        "share/doc/afunix-compat/guide-editors.md", "share/doc/afunix-compat/guarantees.md",
        "share/doc/afunix-compat/kernel-behaviour.md", "share/doc/afunix-compat/guide-cli.md"]
DOCDIR = "share/doc/afunix-compat"


def run(*command, **kw):
    return subprocess.run(command, capture_output=True, text=True, **kw)


def expected_files():
    rules = [f"share/afunix-compat/rules/{os.path.basename(r)}"
             for r in glob.glob(os.path.join(lib.REPO, "rules", "*.yaml"))]
    assert rules, "no rules/*.yaml"
    return TOOLS + LIBS + MAN + DOCS + rules


def check_docs(prefix, sources):
    """Relative links of every installed page resolve; every document named in `sources` (tool
    output) is installed."""
    docdir = os.path.join(prefix, DOCDIR)
    pages = glob.glob(os.path.join(docdir, "**", "*.md"), recursive=True)
    assert pages, f"no docs in {docdir}"
    broken = []
    for page in pages:
        text = open(page, encoding="utf-8").read()
        text = re.sub(r"```.*?```", "", text, flags=re.S)  # links inside code are examples
        text = re.sub(r"`[^`\n]*`", "", text)
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue
            path = os.path.normpath(os.path.join(os.path.dirname(page), target.split("#")[0]))
            if not os.path.exists(path):
                broken.append(f"{os.path.relpath(page, prefix)} -> {target}")
    assert not broken, f"broken links in the installed docs: {broken}"
    named = set()
    for text in sources:
        text = re.sub(r"\\fI[^\\]*\\f[RP]", "<placeholder>", text)  # man page: italic = placeholder
        text = re.sub(r"\\f[BIRP]", "", text)  # other roff font changes
        named |= set(re.findall(r"(?:docs/|doc/afunix-compat/)?([\w-]+\.md)\b", text))
    missing = sorted(n for n in named if not glob.glob(os.path.join(docdir, "**", n), recursive=True)
                     and "<" not in n)
    assert named and not missing, f"documents the tools name but the install lacks: {missing}"
    print(f"installed docs: {len(pages)} pages, their relative links resolve; the "
          f"{len(named)} documents the tools name are installed")


def check_man(prefix):
    for page in ("afunix-check.1", "afunix-clangd.1"):
        text = open(os.path.join(prefix, "share/man/man1", page)).read()
        for section in ("OPTIONS", "EXIT STATUS", "ENVIRONMENT"):
            assert re.search(rf"^\.SH {section}$", text, re.M), f"{page} has no {section} section"
        groff = shutil.which("groff")
        if groff:
            proc = run(groff, "-man", "-Tutf8", "-ww", "-z", os.path.join(prefix, "share/man/man1", page))
            assert proc.returncode == 0 and not proc.stderr.strip(), f"{page}: {proc.stderr}"
    print("afunix-check.1 and afunix-clangd.1: OPTIONS, EXIT STATUS, ENVIRONMENT"
          + (", no groff warnings" if shutil.which("groff") else ""))


def check_prefix(prefix, sample, clang_tidy, work):
    missing = [f for f in expected_files() if not os.path.isfile(os.path.join(prefix, f))]
    assert not missing, f"not installed in {prefix}: {missing}"

    check = os.path.join(prefix, "bin", "afunix-check")
    status, report = lib.run_check(check, [sample.path], sample.args, sample.options, cwd=work)
    got = collections.Counter((f["line"], f["rule"]) for f in report["findings"])
    assert status == 1 and got == sample.expected, (
        f"installed afunix-check: exit {status}, {sorted(got)} != {sorted(sample.expected)}")
    print(f"installed afunix-check: {sum(got.values())} finding(s) on {os.path.basename(sample.path)}")

    rules = run(check, "--list-rules").stdout.splitlines()
    have = {r.split()[0] for r in rules if r.strip() and "no static check" not in r}
    listed = run(clang_tidy, f"--load={os.path.join(prefix, 'lib', 'libafunix-tidy.so')}",
                 "--checks=-*,afunix-*", "--list-checks").stdout
    listed = {l.strip() for l in listed.splitlines() if l.strip().startswith("afunix-")}
    assert listed and listed == have, f"installed plugin lists {sorted(listed)}, afunix-check has {sorted(have)}"
    print(f"installed plugin: clang-tidy-19 --list-checks shows {len(listed)} afunix checks")

    # clangd's check mode, with the .clangd an editor user would write beside the file.
    project = os.path.join(work, "clangd-project")
    os.makedirs(project, exist_ok=True)
    copy = os.path.join(project, os.path.basename(sample.path))
    shutil.copy(sample.path, copy)
    with open(os.path.join(project, ".clangd"), "w") as f:
        f.write("CompileFlags:\n  Add: [%s]\nDiagnostics:\n  ClangTidy:\n    Add: [afunix-*]\n"
                "    FastCheckFilter: Loose\n" % ", ".join(sample.args))
    clangd = os.path.join(prefix, "bin", "afunix-clangd")
    proc = run(clangd, "--check-warnings", f"--check={copy}", cwd=project,
               env=dict(os.environ, XDG_CONFIG_HOME=os.path.join(work, "xdg")))
    out = proc.stdout + proc.stderr
    reported = collections.Counter((int(line), rule) for rule, line in
                                   re.findall(r"\[(afunix-[\w-]+)\] Line (\d+):", out))
    assert proc.returncode == 0 and reported == sample.expected, (
        f"installed afunix-clangd --check: exit {proc.returncode}, {sorted(reported)} != "
        f"{sorted(sample.expected)}\n{out[-3000:]}")
    version = run(clangd, "--version").stdout
    assert "afunix-clangd" in version and "clangd version 19" in version, version
    print(f"installed afunix-clangd --check: {sum(reported.values())} afunix diagnostic(s)")

    probe = run(os.path.join(prefix, "bin", "afunix-probe"), "--help")
    assert probe.returncode == 0 and "run" in probe.stdout, probe
    # `run` finds libafunix-probe.so relative to its own binary; the report only exists if the
    # preloaded library was found and loaded into the child.
    traced = run(os.path.join(prefix, "bin", "afunix-probe"), "run", "--out",
                 os.path.join(work, "probe-out"), "--", "/bin/true",
                 env={k: v for k, v in os.environ.items() if k != "AFUNIX_PROBE_LIBRARY"})
    assert traced.returncode == 0 and "1 process image" in traced.stdout + traced.stderr, traced
    print("installed afunix-probe --help, and run -- /bin/true with the installed probe library")

    help_text = run(check, "--help").stdout
    check_man(prefix)
    clean_env = {k: v for k, v in os.environ.items() if k != "AFUNIX_DOCS_URL"}
    # No URL configured: no links (never this machine's file://); the installed pages are
    # linked when --docs-url names them, and afunix-clangd says where they are.
    import json
    sarif = run(check, "--format=sarif", sample.path, "--", *sample.args, env=clean_env)
    assert "file://" + prefix not in sarif.stdout, "a file:// link nobody asked for"
    sarif = run(check, "--format=sarif", f"--docs-url=file://{prefix}/{DOCDIR}", sample.path, "--",
                *sample.args, env=clean_env)
    for rule in json.loads(sarif.stdout)["runs"][0]["tool"]["driver"]["rules"]:
        uri = rule.get("helpUri", "")
        assert uri == f"file://{prefix}/{DOCDIR}/rules/{rule['id']}.md" and \
            os.path.isfile(uri[len("file://"):]), uri
    clangd_log = run(clangd, "--log=info", input="", env=dict(clean_env,
                     XDG_CONFIG_HOME=os.path.join(work, "xdg"))).stderr
    assert f"the pages are in {prefix}/{DOCDIR}/rules" in clangd_log, clangd_log[-2000:]
    print("installed tools: no links unless configured; the installed rule pages exist and are "
          "linked when --docs-url names them; afunix-clangd logs where they are")
    probe_help = run(os.path.join(prefix, "bin", "afunix-probe"), "--help").stdout
    kernel_help = run(os.path.join(prefix, "bin", "afunix-probe"), "kernel", "--help")
    check_docs(prefix, [help_text, probe_help, kernel_help.stdout + kernel_help.stderr,
                        open(os.path.join(prefix, "share/man/man1", "afunix-clangd.1")).read(),
                        out])
    page = open(os.path.join(prefix, MAN[0])).read().replace("\\-", "-")
    options = set(re.findall(r"--[a-z][a-z-]+", help_text))
    undocumented = sorted(o for o in options if o not in page)
    assert options and not undocumented, f"afunix-check.1 lacks {undocumented}"
    print(f"afunix-check.1 documents all {len(options)} options of --help")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", required=True)
    parser.add_argument("--clang-tidy", required=True)
    parser.add_argument("--cpack", required=True)
    parser.add_argument("sample")
    args = parser.parse_args()
    sample = lib.Sample(args.sample)
    with tempfile.TemporaryDirectory(prefix="afunix-install-") as tmp:
        first = os.path.join(tmp, "first")
        proc = run("cmake", "--install", args.build, "--prefix", first)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        # Relocatable: the same tree moved elsewhere still works.
        prefix = os.path.join(tmp, "moved", "usr")
        os.makedirs(os.path.dirname(prefix))
        shutil.move(first, prefix)
        check_prefix(prefix, sample, args.clang_tidy, tmp)

        pkg = os.path.join(tmp, "pkg")
        proc = run(args.cpack, "-G", "DEB", "--config",
                   os.path.join(args.build, "CPackConfig.cmake"), "-B", pkg)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        debs = glob.glob(os.path.join(pkg, "*.deb"))
        assert len(debs) == 1, debs
        listing = run("dpkg-deb", "-c", debs[0]).stdout
        paths = {line.split()[-1].lstrip(".") for line in listing.splitlines()}
        missing = [f for f in expected_files() if "/usr/" + f not in paths]
        assert not missing, f"{os.path.basename(debs[0])} lacks {missing}"
        assert "Homepage" not in run("dpkg-deb", "-I", debs[0]).stdout or \
            "afunix-compat/afunix-compat" not in run("dpkg-deb", "-I", debs[0]).stdout, \
            "the .deb names a made-up homepage"
        fields = run("dpkg-deb", "-f", debs[0], "Package", "Version", "Depends").stdout
        assert "Package: afunix-compat" in fields, fields
        extracted = os.path.join(tmp, "x")
        subprocess.run(["dpkg-deb", "-x", debs[0], extracted], check=True)
        depends = {d.strip().split()[0] for d in fields.split("Depends:", 1)[1].splitlines()[0].split(",")}
        # clang's resource headers (stddef.h), which every parse reads, are no library.
        assert "libclang-common-19-dev" in depends, f"Depends lacks libclang-common-19-dev: {fields}"
        binaries = [os.path.join(extracted, "usr", rel) for rel in TOOLS + LIBS]
        for owner, needs in sorted(lib.debian_packages_loaded(binaries).items()):
            assert owner in depends, f"Depends lacks {owner} ({', '.join(needs)}): {fields}"
        version = run(os.path.join(extracted, "usr", "bin", "afunix-check"), "--version")
        assert version.returncode == 0 and "afunix-check" in version.stdout, version
        size = os.path.getsize(debs[0]) / 1e6
        print(f"{os.path.basename(debs[0])}: {size:.1f} MB, {len(paths)} entries, all "
              f"{len(expected_files())} expected files inside; the packaged afunix-check runs")


if __name__ == "__main__":
    try:
        main()
    except AssertionError as e:
        print(f"FAIL: {e}", file=sys.stderr)
        sys.exit(1)
