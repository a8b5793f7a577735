#!/usr/bin/env bash
# Builds integrations/bazel/example with afunix-check's Bazel aspect, offline, and checks it
# (docs/guide-bazel.md):
#   1. cold, with an empty --disk_cache: one AfunixExtract action per source file, one AfunixLink
#      per cc_binary/cc_test; each program's findings equal `afunix-check -p` on its sources;
#   2. after `bazel clean`, with the same disk cache: no extraction runs again (Bazel's summary and
#      its execution log say every one was a disk cache hit);
#   3. after an edit of one library's source: only that file's extraction and the links of the
#      programs that depend on it run;
#   4. with --@afunix_compat//:fail_on=error the build fails on the error finding;
#   5. `bazel test`: afunix_test fails on the manager's program, passes on the channel's;
#   6. with --@afunix_compat//:config=FILE every action reads the project's configuration.
# Installs Debian's bazel-bootstrap when Bazel is missing, builds afunix-check when it is not
# built (or uses `--checker PATH`). Exit 0 when every check holds. Works in a scratch copy; the
# tree is not touched.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"

if ! command -v bazel >/dev/null 2>&1; then
  echo "bazel-example: installing bazel-bootstrap"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends bazel-bootstrap
fi
checker="$repo/build/bin/afunix-check"
if [ "${1:-}" = --checker ]; then # a checker already built (the ctest integration.bazel)
  checker="$(realpath "$2")"
else
  "$repo/scripts/build.sh" afunix-check >/dev/null
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/afunix-bazel-XXXXXX")"
example="$work/rules/example"
cleanup() {
  (cd "$example" 2>/dev/null && bazel --output_base="$work/output-base" shutdown >/dev/null 2>&1) || true
  chmod -R u+w "$work" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
[ -z "${AFUNIX_KEEP_BAZEL_WORK:-}" ] || trap - EXIT  # keep the logs to look at
cp -r "$repo/integrations/bazel" "$work/rules"
# The checker the actions run, as the repository the example's WORKSPACE names.
mkdir "$work/checker"
cp "$checker" "$work/checker/afunix-check"
echo 'workspace(name = "afunix_check")' >"$work/checker/WORKSPACE"
echo 'exports_files(["afunix-check"])' >"$work/checker/BUILD"

offline="$work/rules/offline"
flags=(
  # Debian's Bazel 4 asks for repositories it would download: local stand-ins (offline/).
  "--override_repository=rules_cc=$offline/rules_cc"
  "--override_repository=rules_java=$offline/rules_java"
  "--override_repository=remote_coverage_tools=$offline/remote_coverage_tools"
  "--override_repository=afunix_check=$work/checker"
  --repo_env=CC=clang-19
  --aspects=@afunix_compat//:afunix.bzl%afunix_aspect
  --output_groups=afunix_report
  "--disk_cache=$work/disk-cache"
  --color=no --curses=no --noshow_progress
)
bazel_build() { # LOG-NAME [FLAGS...]: builds //..., keeps Bazel's output and execution log
  local name=$1
  shift
  local start end status=0
  start=$(date +%s.%N)
  (cd "$example" && bazel --output_base="$work/output-base" build "${flags[@]}" \
    "--execution_log_json_file=$work/$name.exec.json" "$@" //...) >"$work/$name.log" 2>&1 || status=$?
  end=$(date +%s.%N)
  echo "bazel-example: $name: exit $status, $(python3 -c "print(f'{$end - $start:.1f}')") s;" \
    "Bazel: $(grep -o 'INFO: [0-9]* process.*' "$work/$name.log" | tail -1)" \
    "$(grep -o 'Critical Path: .*' "$work/$name.log" | tail -1)"
  return $status
}

failures=0
check() { # PYTHON-CHECK-NAME ARGS...: the checks below, in one Python helper
  python3 "$work/checks.py" "$@" || failures=$((failures + 1))
}
cat >"$work/checks.py" <<'PY'
import json, os, subprocess, sys

work, example = os.environ["WORK"], os.environ["EXAMPLE"]
checker = os.environ["CHECKER"]


def spawns(name):
    """Bazel's execution log: a stream of JSON objects, one per spawn it ran or found cached."""
    text, objects, at = open(os.path.join(work, name + ".exec.json")).read(), [], 0
    decoder = json.JSONDecoder()
    while True:
        while at < len(text) and text[at].isspace():
            at += 1
        if at >= len(text):
            return objects
        value, at = decoder.raw_decode(text, at)
        objects.append(value)


def executed(name, mnemonic):
    """The spawns of that mnemonic Bazel ran (not taken from a cache): their progress messages."""
    return sorted(s.get("progressMessage", "") for s in spawns(name)
                  if s.get("mnemonic") == mnemonic and not s.get("remoteCacheHit"))


def findings(report):
    return [{k: f[k] for k in ("rule", "severity", "file", "line", "column", "message", "notes")}
            for f in report["findings"]]


def fail(message):
    print("bazel-example: FAILED: " + message)
    sys.exit(1)


PROGRAMS = {  # each cc_binary/cc_test: its sources, as the BUILD files list them
    "manager/manager": ["net/net.c", "options/options.c", "manager/main.c"],
    "ipc/channel_test": ["ipc/channel.cc", "ipc/channel_test.cc"],
}
SOURCES = sorted({s for sources in PROGRAMS.values() for s in sources})
# The flags the BUILD files give each file beyond the toolchain's: //net's `defines` reach the
# targets that depend on it, //manager's `copts` its own file.
FLAGS = {"net/net.c": ["-DMANAGER_HAS_TCP=1"], "manager/main.c": ["-DMANAGER_HAS_TCP=1",
                                                                   "-DMANAGER_WEB_PORT=8080"]}

what = sys.argv[1]
if what == "cold":
    extracted = executed("cold", "AfunixExtract")
    if len(extracted) != len(SOURCES) or not all(any(s in m for m in extracted) for s in SOURCES):
        fail(f"cold: the extraction actions run were {extracted}, not one per source {SOURCES}")
    if len(executed("cold", "AfunixLink")) != len(PROGRAMS):
        fail(f"cold: {len(executed('cold', 'AfunixLink'))} link actions, not {len(PROGRAMS)}")
    total = 0
    for program, sources in PROGRAMS.items():
        bazel = json.load(open(os.path.join(example, "bazel-bin", program + ".afunix.json")))
        database = os.path.join(work, "db", program)
        os.makedirs(database)
        with open(os.path.join(database, "compile_commands.json"), "w") as f:
            json.dump([{"directory": example, "file": os.path.join(example, s),
                        "arguments": ["clang++-19" if s.endswith(".cc") else "clang-19",
                                      "-I" + example, *FLAGS.get(s, []), "-c",
                                      os.path.join(example, s)]}
                       for s in sources], f)
        run = subprocess.run([checker, "-p", database, "--format=json", "--no-cache",
                              "--no-store-facts", "--no-service-files", "-q"],
                             cwd=example, capture_output=True, text=True)
        if run.returncode not in (0, 1):
            fail(f"afunix-check -p on {program}'s sources exited {run.returncode}: {run.stderr}")
        direct = json.loads(run.stdout.replace(example + "/", ""))
        if bazel["unparsed"] or direct["unparsed"]:
            fail(f"{program}: files not parsed: {bazel['unparsed']} {direct['unparsed']}")
        if findings(bazel) != findings(direct):
            fail(f"{program}: the aspect's findings\n{json.dumps(findings(bazel), indent=1)}\n"
                 f"differ from afunix-check -p's\n{json.dumps(findings(direct), indent=1)}")
        total += len(bazel["findings"])
        print(f"bazel-example: {program}: {len(bazel['findings'])} finding(s), as afunix-check -p "
              f"reports on its {len(sources)} sources")
    if total == 0:
        fail("no finding at all: the example's finding across //net and //options is missing")
    sarif = json.load(open(os.path.join(example, "bazel-bin", "manager/manager.afunix.sarif")))
    if "uri" in sarif["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]:
        fail("the SARIF report names the sandbox it was linked in")
elif what == "cached":
    log = open(os.path.join(work, "cached.log")).read()
    ran = executed("cached", "AfunixExtract")
    hits = [s for s in spawns("cached") if s.get("mnemonic") == "AfunixExtract" and s.get("remoteCacheHit")]
    if ran or len(hits) != len(SOURCES):
        fail(f"after bazel clean: extractions run again {ran}, {len(hits)} disk cache hits of {len(SOURCES)}")
    # Bazel 4 counts --disk_cache hits as "remote cache hit" in its summary; later ones as "disk".
    summary = [l for l in log.splitlines() if " processes: " in l or " process: " in l]
    every_hit = sum(1 for s in spawns("cached") if s.get("remoteCacheHit"))  # the links too
    if not summary or not any(f"{every_hit} remote cache hit" in l or f"{every_hit} disk cache hit" in l
                              for l in summary):
        fail(f"Bazel's summary does not count the cache hits: {summary}")
    print(f"bazel-example: after bazel clean: all {len(hits)} extractions were disk cache hits, none ran "
          f"({summary[-1].strip()})")
elif what == "edited":
    ran = executed("edited", "AfunixExtract")
    links = executed("edited", "AfunixLink")
    if len(ran) != 1 or "net/net.c" not in ran[0]:
        fail(f"after editing net/net.c the extractions run were {ran}")
    if len(links) != 1 or "//manager:manager" not in links[0]:
        fail(f"after editing net/net.c the links run were {links}")
    print(f"bazel-example: after editing net/net.c: ran {ran + links}")
elif what == "config":
    report = json.load(open(os.path.join(example, "bazel-bin", "manager/manager.afunix.json")))
    severities = [f["severity"] for f in report["findings"]]
    if severities != ["note"]:
        fail(f"with the configuration's severity: note, the manager's findings are {severities}")
    ran = executed("config", "AfunixExtract")
    if len(ran) != len(SOURCES):
        fail(f"a new configuration file re-ran {len(ran)} extractions, not {len(SOURCES)}")
    print(f"bazel-example: --@afunix_compat//:config: every extraction ran again with it, the "
          f"link reports the finding as a note")
elif what == "gate":
    log = open(os.path.join(work, "gate.log")).read()
    if "afunix-passcred-wrong-family" not in log:
        fail("the failing link did not print its finding")
    print("bazel-example: with fail_on=error the build fails and prints the finding")
PY
export WORK="$work" EXAMPLE="$example" CHECKER="$checker"

bazel_build cold || { cat "$work/cold.log"; exit 1; }
check cold
(cd "$example" && bazel --output_base="$work/output-base" clean >/dev/null 2>&1)
bazel_build cached || { cat "$work/cached.log"; exit 1; }
check cached
echo "// edited by bazel-example.sh" >>"$example/net/net.c"
bazel_build edited || { cat "$work/edited.log"; exit 1; }
check edited
if bazel_build gate --@afunix_compat//:fail_on=error; then
  echo "bazel-example: FAILED: the build with fail_on=error succeeded"
  failures=$((failures + 1))
else
  check gate
fi
# `bazel test` as the gate (afunix_test in the example's BUILD): the manager's test fails on its
# error finding and logs it, the channel's passes.
bazel_test() { # TARGET: exit status of `bazel test TARGET`, its log in $work/test.log
  (cd "$example" && bazel --output_base="$work/output-base" test "${flags[@]}" "$1") \
    >"$work/test.log" 2>&1
}
if ! bazel_test //:channel_afunix_test; then
  echo "bazel-example: FAILED: //:channel_afunix_test failed"; cat "$work/test.log"
  failures=$((failures + 1))
elif bazel_test //:manager_afunix_test; then
  echo "bazel-example: FAILED: //:manager_afunix_test passed with an error finding"
  failures=$((failures + 1))
elif ! grep -q "afunix-passcred-wrong-family" "$example/bazel-testlogs/manager_afunix_test/test.log"; then
  echo "bazel-example: FAILED: //:manager_afunix_test's log has no finding"
  failures=$((failures + 1))
else
  echo "bazel-example: bazel test: //:channel_afunix_test passes, //:manager_afunix_test fails and logs the finding"
fi

# The project's configuration, an input of every action: here it lowers the rule's severity.
echo 'exports_files(["afunix-check.yaml"])' >>"$example/BUILD"
printf 'severity:\n  afunix-passcred-wrong-family: note\n' >"$example/afunix-check.yaml"
bazel_build config --@afunix_compat//:config=//:afunix-check.yaml || { cat "$work/config.log"; exit 1; }
check config
if [ "$failures" -ne 0 ]; then
  echo "bazel-example: $failures check(s) failed"
  exit 1
fi
echo "bazel-example: OK"
