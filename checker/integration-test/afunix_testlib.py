"""Helpers the integration tests share: testdata expectations (the same parser the checker's
expectation runner uses), afunix-check runs, and the mapping from afunix-check options to
clang-tidy CheckOptions (.clang-tidy, .clangd)."""
import collections
import glob
import json
import os
import re
import subprocess
import sys

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
TESTDATA = os.path.join(REPO, "testdata", "checker")
sys.path.insert(0, TESTDATA)
import run_expectations  # noqa: E402  (testdata/checker/run_expectations.py)


class Sample:
    """One testdata file: its afunix-check options, compiler args and expected (line, rule)s."""

    def __init__(self, path):
        self.path = os.path.abspath(path)
        options, args, expected = run_expectations.parse_expectations(self.path)[:3]
        self.options = options
        self.args = args if args is not None else run_expectations.default_args(self.path)
        self.expected = expected  # Counter of (line, rule)

    @property
    def is_cxx(self):
        return self.path.endswith((".cc", ".cpp", ".cxx"))


def samples(pattern="*/*"):
    files = sorted(glob.glob(os.path.join(TESTDATA, pattern + ".c")) +
                   glob.glob(os.path.join(TESTDATA, pattern + ".cc")))
    return [Sample(f) for f in files if "/cli/" not in f]


def run_check(checker, files, args, options=(), extra=(), cwd=REPO, expect=(0, 1)):
    """afunix-check --format=json; returns (exit status, report)."""
    command = [checker, "--format=json", "--quiet", *options, *extra, *files, "--", *args]
    proc = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    if proc.returncode not in expect:
        raise AssertionError(f"{' '.join(command)} exited {proc.returncode}:\n{proc.stderr}")
    report = json.loads(proc.stdout) if proc.stdout.strip().startswith("{") else None
    return proc.returncode, report


def finding_keys(report, path=None):
    return collections.Counter((f["rule"], f["file"], f["line"]) for f in report["findings"]
                               if path is None or f["file"] == path)


def check_options(options):
    """afunix-check options (an OPTIONS: header) as global clang-tidy CheckOptions, the way
    afunix-check itself hands them to the checks (checker/cli/Main.cpp)."""
    import yaml
    out = {"Pedantic": "false"}
    config = {}
    for opt in options:
        if opt == "--pedantic":
            out["Pedantic"] = "true"
        elif opt.startswith("--target-kernel="):
            out["TargetKernel"] = opt.split("=", 1)[1]
        elif opt.startswith("--config="):
            config = yaml.safe_load(open(os.path.join(REPO, opt.split("=", 1)[1]))) or {}
        else:
            return None  # an option with no CheckOptions equivalent (e.g. --checks)
    if config.get("pedantic") and out["Pedantic"] == "false":
        out["Pedantic"] = "true"
    if "TargetKernel" not in out and config.get("target_kernel"):
        out["TargetKernel"] = str(config["target_kernel"])
    for key, name in (("wrappers", "OptionWrappers"), ("socket_producers", "SocketProducers"),
                      ("external_sockets", "ExternalSocketSources")):
        if config.get(key):
            out[name] = ";".join(config[key])
    if set(config) - {"pedantic", "target_kernel", "wrappers", "socket_producers",
                      "external_sockets"}:
        return None  # severity/disable have no per-check option
    return out


def implemented_rules(checker):
    """Rule ids afunix-check has a static check for in this build (--list-rules)."""
    out = subprocess.run([checker, "--list-rules"], capture_output=True, text=True,
                         check=True).stdout
    return {line.split()[0] for line in out.splitlines()
            if line.strip() and "no static check" not in line}


def implemented_samples(checker, pattern="*/pos_*"):
    """pos_ samples whose every expected rule has a check in this build."""
    have = implemented_rules(checker)
    return [s for s in samples(pattern)
            if s.expected and all(rule in have for (_, rule) in s.expected)]


def debian_packages_loaded(binaries):
    """The Debian packages of the shared libraries the ELF files `binaries` need by name (their
    NEEDED entries, resolved as ldd resolves them; not what those libraries need in turn: their
    packages depend on that), each with the files that need it."""
    run = lambda *command: subprocess.run(command, capture_output=True, text=True)
    packages = {}
    for path in binaries:
        needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", run("readelf", "-d", path).stdout)
        listing = run("ldd", path).stdout
        resolved = dict(re.findall(r"^\s*(\S+) => (/\S+)", listing, re.M))
        # The dynamic loader is listed by its path alone.
        resolved.update((os.path.basename(p), p) for p in re.findall(r"^\s*(/\S+) \(0x", listing, re.M))
        for name in needed:
            assert name in resolved, f"{path} needs {name}, which ldd does not find"
            owner = None
            for candidate in (resolved[name], os.path.realpath(resolved[name])):
                proc = run("dpkg", "-S", candidate)
                if proc.returncode == 0:
                    owner = proc.stdout.split(":")[0]
                    break
            assert owner, f"no Debian package holds {resolved[name]} ({path} needs {name})"
            packages.setdefault(owner, []).append(f"{os.path.basename(path)}: {name}")
    return packages
