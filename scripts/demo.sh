#!/usr/bin/env bash
# The main job on testdata: installs what is missing, builds, runs the static checker over every
# testdata snippet, asks the running kernel how it behaves, and runs a testdata program under the
# probe.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
bin=build/bin
echo "== afunix-check over testdata/checker"
"$bin/afunix-check" testdata/checker/*/*.c testdata/checker/*/*.cc -- -std=gnu11 || true
echo
echo "== afunix-probe kernel --quick"
"$bin/afunix-probe" kernel --quick || true
echo
echo "== afunix-probe run on testdata/probe/creds_never_enabled"
"$bin/afunix-probe" run --out build/demo-reports -- build/testdata/probe/creds_never_enabled || true
