#!/usr/bin/env python3
"""Static and runtime findings together, end to end with the real tools: the testdata/probe
programs (built with -g) run under `afunix-probe run --out DIR`, then `afunix-check --runtime-evidence
DIR` on their sources. Checks that static findings the run confirmed say so (text note and SARIF
property), runtime-only findings appear at their source lines with the stack as related locations,
held-back candidates add nothing, a call whose line moved still matches by its text, and that the
merged SARIF and `afunix-probe run --format sarif` both validate against the SARIF 2.1.0 schema and
with Microsoft's validator (GitHub rules), when that is installed (npm @microsoft/sarif-multitool).

usage: runtime_evidence_test.py --probe BIN --checker BIN --build DIR --source DIR --schema FILE
       [--clang CC]
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

FAILURES = []

# Two static findings: one in a function the run never calls, one on a line it runs without the
# problem showing (nothing is ever queued on the datagram socket, so no pid 0 arrives).
SITES_PROGRAM = r"""#include <netinet/in.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static void never_called(void) {
  int inet = socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  setsockopt(inet, SOL_SOCKET, SO_PASSCRED, &one, sizeof one); // never reached
  close(inet);
}

int main(int argc, char **argv) {
  (void)argv;
  if (argc > 5)
    never_called();
  int fd = socket(AF_UNIX, SOCK_DGRAM, 0);
  struct sockaddr_un addr;
  memset(&addr, 0, sizeof addr);
  addr.sun_family = AF_UNIX;
  snprintf(addr.sun_path + 1, sizeof addr.sun_path - 1, "afunix-sites-%d", (int)getpid());
  socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(addr.sun_path + 1));
  bind(fd, (struct sockaddr *)&addr, len);
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one); // reached, nothing queued
  close(fd);
  return 0;
}
"""


def check(condition, message):
    if not condition:
        FAILURES.append(message)
        print("FAIL:", message, file=sys.stderr)


def markers(path, marker):
    """(line, rest of the line) for each line of `path` containing `marker`."""
    found = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            at = line.find(marker)
            if at >= 0:
                found.append((n, line[at + len(marker):].strip()))
    return found


def probe(args, program, out_dir, extra=()):
    result = subprocess.run([args.probe, "run", "--out", out_dir, *extra, "--", program],
                            capture_output=True, text=True)
    check(result.returncode == 0, f"afunix-probe run {program}: exit {result.returncode}: {result.stderr[-2000:]}")
    return result


def validate(args, sarif_path):
    schema = subprocess.run([sys.executable, os.path.join(args.source, "checker/integration-test/validate_sarif.py"),
                             args.schema, sarif_path], capture_output=True, text=True)
    check(schema.returncode == 0, f"{sarif_path}: not valid SARIF 2.1.0: {schema.stderr}")
    multitool = shutil.which("sarif-multitool") or shutil.which("Sarif.Multitool")
    if not multitool:
        return False
    # GitHub's rules must all pass; of the general SARIF rules no error may fire (their warnings are
    # printed: rule name == id is the SARIF writer's, see issue 13).
    for kind in ("Gh", "Sarif"):
        out = f"{sarif_path}.{kind}.validation.sarif"
        if os.path.exists(out):
            os.unlink(out)
        subprocess.run([multitool, "validate", sarif_path, "--rule-kind", kind, "-o", out],
                       capture_output=True, text=True)
        check(os.path.exists(out), f"{sarif_path}: the SARIF validator ({kind}) wrote no result")
        if not os.path.exists(out):
            continue
        for r in json.load(open(out))["runs"][0].get("results", []):
            text = r.get("message", {}).get("text") or json.dumps(r.get("message"))
            level = r.get("level", "warning")
            if kind == "Gh" or level == "error":
                check(False, f"{sarif_path}: validator ({kind}): {r.get('ruleId')} {level}: {text[:300]}")
            else:
                print(f"note: validator ({kind}): {r.get('ruleId')} {level}: {text[:160]}", file=sys.stderr)
    return True


def results_at(sarif, suffix, line=None):
    found = []
    for r in sarif["runs"][0]["results"]:
        loc = r["locations"][0]["physicalLocation"]
        if loc["artifactLocation"]["uri"].endswith(suffix) and (line is None or loc["region"]["startLine"] == line):
            found.append(r)
    return found


def related_lines(result, suffix):
    return {rl["physicalLocation"]["region"]["startLine"] for rl in result.get("relatedLocations", [])
            if rl["physicalLocation"]["artifactLocation"]["uri"].endswith(suffix)}


def main():
    parser = argparse.ArgumentParser()
    for name in ("--probe", "--checker", "--build", "--source", "--schema"):
        parser.add_argument(name, required=True)
    parser.add_argument("--clang", default="clang-19")
    args = parser.parse_args()
    sources = os.path.join(args.source, "testdata/probe")
    programs = os.path.join(args.build, "testdata/probe")
    work = tempfile.mkdtemp(prefix="afunix-runtime-evidence-")
    evidence = os.path.join(work, "evidence")
    names = ["fd_flood", "fd_cycle", "fd_limit", "creds_without_passcred", "passcred_too_late",
             "passcred_wrong_family", "creds_multiprocess", "cxx_session", "peercred_auth", "clean_ipc"]
    for name in names:
        probe(args, os.path.join(programs, name), evidence)
    summaries = [f for f in os.listdir(evidence) if f.startswith("afunix-probe-run.")]
    check(len(summaries) == len(names), f"one afunix-probe-run.*.json per run in --out, got {len(summaries)}")

    files = sorted(os.path.join(sources, f) for f in os.listdir(sources) if f.endswith((".c", ".cpp")))
    # The probe programs' own entries of the build's compile database: a database of their own, so
    # the check judges them as one program without extracting the whole of afunix-compat (minutes).
    database = os.path.join(work, "database")
    os.makedirs(database)
    with open(os.path.join(args.build, "compile_commands.json")) as f:
        entries = [e for e in json.load(f) if os.path.abspath(e["file"]) in files]
    check(len(entries) == len(files), f"the build's database compiles {len(entries)} of the {len(files)} probe programs")
    with open(os.path.join(database, "compile_commands.json"), "w") as f:
        json.dump(entries, f)
    sarif_path = os.path.join(work, "merged.sarif")
    merged = subprocess.run([args.checker, "-p", database, *files, f"--runtime-evidence={evidence}",
                             "--format=sarif", f"--sarif-root={args.source}"], capture_output=True, text=True)
    check(merged.returncode == 1, f"afunix-check with runtime evidence: exit {merged.returncode}: {merged.stderr}")
    open(sarif_path, "w").write(merged.stdout)
    sarif = json.loads(merged.stdout)
    check(re.search(r"run time: [1-9]\d* confirmed, [1-9]\d* found only at run time", merged.stderr),
          f"summary line counts confirmed and runtime-only findings: {merged.stderr.strip()}")

    def props(r):
        return r.get("properties", {})

    # A static finding the run confirmed: passcred_wrong_family.c's setsockopt line.
    wrong_family = os.path.join(sources, "passcred_wrong_family.c")
    (at_line, _), = markers(wrong_family, "PROBE-AT: ")
    confirmed = results_at(sarif, "passcred_wrong_family.c", at_line)
    check(len(confirmed) == 1 and props(confirmed[0]).get("afunix/runtime") == "confirmed",
          f"passcred_wrong_family.c:{at_line} is confirmed at run time: {confirmed}")
    if confirmed:
        check(props(confirmed[0]).get("afunix/runtimeCount") == 1, "the confirmation counts one occurrence")

    # Runtime-only findings at their call, with the program's line as a related location.
    helper_calls = {line for line, _ in markers(os.path.join(sources, "probe_util.h"), "/* PROBE-CALL */")}
    for name, rule in [("fd_flood", "afunix-fd-flood"), ("fd_limit", "afunix-fd-limit"),
                       ("creds_without_passcred", "afunix-creds-without-passcred"),
                       ("creds_multiprocess", "afunix-creds-without-passcred"),
                       ("passcred_too_late", "afunix-passcred-too-late")]:
        source = os.path.join(sources, name + ".c")
        calls = {line for line, rest in markers(source, "PROBE-AT: ") if rest.split()[0] == rule}
        found = [r for r in sarif["runs"][0]["results"] if r["ruleId"] == rule
                 and props(r).get("afunix/runtime") in ("runtime-only", "confirmed")
                 and related_lines(r, name + ".c") & calls]
        check(len(found) >= 1, f"{name}: a {rule} result whose stack reaches {name}.c:{sorted(calls)}")
        for r in found:
            loc = r["locations"][0]["physicalLocation"]
            if props(r).get("afunix/runtime") == "runtime-only":
                check(loc["artifactLocation"]["uri"].endswith("probe_util.h") and
                      loc["region"]["startLine"] in helper_calls,
                      f"{name}: the runtime-only {rule} is at the intercepted call, got {loc}")
                check("[seen at run time:" in r["message"]["text"], f"{name}: the message says it was seen at run time")
    cxx = os.path.join(sources, "cxx_session.cpp")
    (cxx_line, _), = markers(cxx, "PROBE-AT: ")
    check(any(r["ruleId"] == "afunix-passcred-too-late" for r in results_at(sarif, "cxx_session.cpp", cxx_line)),
          f"cxx_session.cpp:{cxx_line}: the C++ member function's recvmsg() is a finding")
    # Held back (SO_PEERCRED / no sign credentials are expected): nothing from peercred_auth.
    check(not [r for r in sarif["runs"][0]["results"] if r["ruleId"] == "afunix-creds-without-passcred"
               and related_lines(r, "peercred_auth.c")],
          "peercred_auth.c's fd-buffer recvmsg() calls are not credential findings")
    validated = validate(args, sarif_path)

    # The text form says the same.
    text = subprocess.run([args.checker, "-p", database, wrong_family, f"--runtime-evidence={evidence}"],
                          capture_output=True, text=True)
    check(f"passcred_wrong_family.c:{at_line}:" in text.stdout and "note: confirmed at run time: 1 occurrence" in text.stdout,
          f"text output notes the confirmation: {text.stdout}")

    # `afunix-probe run --format sarif` on its own.
    run_sarif = os.path.join(work, "run.sarif")
    probe(args, os.path.join(programs, "fd_flood"), os.path.join(work, "single"),
          ["--format", "sarif", "--report", run_sarif, "--sarif-root", args.source])
    single = json.load(open(run_sarif))
    check(single["runs"][0]["tool"]["driver"]["name"] == "afunix-probe", "run --format sarif names afunix-probe")
    check([r["ruleId"] for r in single["runs"][0]["results"]] == ["afunix-fd-flood"],
          f"run --format sarif has fd_flood's one finding: {single['runs'][0]['results']}")
    validate(args, run_sarif)

    # Line drift: the source gains three lines after the binary was built and probed.
    drift = os.path.join(work, "drift")
    os.makedirs(drift)
    shutil.copy(os.path.join(sources, "probe_util.h"), drift)
    moved_source = os.path.join(drift, "passcred_wrong_family.c")
    shutil.copy(wrong_family, moved_source)
    binary = os.path.join(drift, "passcred_wrong_family")
    subprocess.run([args.clang, "-g", "-O1", "-o", binary, moved_source], check=True)
    probe(args, binary, os.path.join(drift, "evidence"))
    original = open(moved_source).read()
    open(moved_source, "w").write("// three lines\n// added after\n// the build\n" + original)
    moved = subprocess.run([args.checker, moved_source, f"--runtime-evidence={os.path.join(drift, 'evidence')}",
                            "--format=sarif", "--", "-I" + drift], capture_output=True, text=True)
    moved_sarif = json.loads(moved.stdout)
    moved_results = results_at(moved_sarif, "passcred_wrong_family.c", at_line + 3)
    check(len(moved_results) == 1 and props(moved_results[0]).get("afunix/runtime") == "confirmed"
          and props(moved_results[0]).get("afunix/runtimeLine") == at_line,
          f"a call 3 lines down still matches its runtime evidence: {moved_results} {moved.stderr}")
    check(not [r for r in moved_sarif["runs"][0]["results"] if props(r).get("afunix/runtime") == "runtime-only"],
          "the moved call is not reported a second time as runtime-only")

    # --runtime-unexercised: a static finding the run never showed.
    unseen_file = os.path.join(args.source, "testdata/checker/afunix-fd-limit/pos_array_256.c")
    unseen = subprocess.run([args.checker, unseen_file, f"--runtime-evidence={evidence}", "--runtime-unexercised",
                             "--format=sarif"], capture_output=True, text=True)
    unseen_results = json.loads(unseen.stdout)["runs"][0]["results"]
    check(unseen_results and all(props(r).get("afunix/runtime") == "not-seen" for r in unseen_results
                                 if r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].endswith("pos_array_256.c")),
          f"--runtime-unexercised marks findings without evidence: {unseen_results}")

    # --sites: the run records every socket call it made, so a static finding the run did not
    # confirm is either reached without the problem (reached-clean) or never reached.
    sites_dir = os.path.join(work, "sites")
    os.makedirs(sites_dir)
    sites_source = os.path.join(sites_dir, "sites.c")
    open(sites_source, "w").write(SITES_PROGRAM)
    sites_binary = os.path.join(sites_dir, "sites")
    subprocess.run([args.clang, "-g", "-O1", "-o", sites_binary, sites_source], check=True)
    probe(args, sites_binary, os.path.join(sites_dir, "evidence"), ["--sites"])
    marked = subprocess.run([args.checker, sites_source, f"--runtime-evidence={os.path.join(sites_dir, 'evidence')}",
                             "--runtime-unexercised", "--format=sarif", f"--sarif-root={sites_dir}"],
                            capture_output=True, text=True)
    sites_sarif_path = os.path.join(sites_dir, "sites.sarif")
    open(sites_sarif_path, "w").write(marked.stdout)
    states = {r["locations"][0]["physicalLocation"]["region"]["startLine"]: props(r).get("afunix/runtime")
              for r in json.loads(marked.stdout)["runs"][0]["results"]}
    unreached = [n for n, line in enumerate(SITES_PROGRAM.splitlines(), 1) if "never reached" in line][0]
    reached = [n for n, line in enumerate(SITES_PROGRAM.splitlines(), 1) if "reached, nothing queued" in line][0]
    check(states == {unreached: "not-exercised", reached: "reached-clean"},
          f"--sites tells reached from never reached: {states} (want {unreached}: not-exercised, "
          f"{reached}: reached-clean) {marked.stderr}")
    validate(args, sites_sarif_path)

    # A bad evidence path is an input error before any analysis.
    bad = subprocess.run([args.checker, wrong_family, "--runtime-evidence=" + os.path.join(work, "nothing-here")],
                         capture_output=True, text=True)
    check(bad.returncode == 2 and "nothing-here" in bad.stderr, f"missing evidence: exit 2 naming it: {bad.stderr}")

    shutil.rmtree(work, ignore_errors=True)
    if FAILURES:
        print(f"{len(FAILURES)} failure(s)", file=sys.stderr)
        return 1
    if not validated:
        print("SKIP: Microsoft's SARIF validator is not installed (npm install -g @microsoft/sarif-multitool); "
              "everything else passed", file=sys.stderr)
        return 77
    print("runtime evidence: all checks passed (schema and Microsoft's validator included)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
