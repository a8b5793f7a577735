#!/usr/bin/env bash
# The main job on testdata: installs what is missing, builds, runs the static checker over every
# testdata snippet, asks the running kernel how it behaves, and runs the probe's testdata programs
# under the probe.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
bin=build/bin
shopt -s nullglob

echo "== afunix-check over testdata/checker (C, then C++)"
# Exit 1 means findings, which is what the positive snippets are for; 2 and 3 are real failures.
status=0
"$bin/afunix-check" testdata/checker/afunix-*/*.c -- -std=gnu11 || status=$?
[ "$status" -le 1 ] || { echo "demo: afunix-check failed with exit $status" >&2; exit "$status"; }
status=0
# C++20: a few snippets use its library (std::span); run_expectations.py reads their `// ARGS:`.
"$bin/afunix-check" testdata/checker/afunix-*/*.cc -- -std=c++20 || status=$?
[ "$status" -le 1 ] || { echo "demo: afunix-check failed with exit $status" >&2; exit "$status"; }

echo
echo "== afunix-probe kernel --quick"
"$bin/afunix-probe" kernel --quick

echo
echo "== afunix-probe run over the testdata/probe programs"
reports=$(mktemp -d "${TMPDIR:-/tmp}/afunix-demo.XXXXXX")
trap 'rm -rf "$reports"' EXIT
for program in creds_without_passcred passcred_too_late passcred_wrong_family fd_flood fd_cycle \
               fd_limit creds_multiprocess cxx_session peercred_auth clean_ipc; do
  echo "-- $program"
  "$bin/afunix-probe" run --out "$reports/evidence" --report "$reports/$program.txt" \
    -- "build/testdata/probe/$program" >/dev/null
  # The summary opens with the findings (call site, socket, stack): show that part.
  sed -n '1,/^processes (/p' "$reports/$program.txt" | grep -v '^processes (' || true
done
if [ -x "$bin/afunix-check" ]; then
  echo
  echo "== afunix-check on the same programs, with what the probe saw at run time"
  "$bin/afunix-check" -p build testdata/probe/*.c testdata/probe/*.cpp \
    --runtime-evidence="$reports/evidence" || true
fi
