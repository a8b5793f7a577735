#!/usr/bin/env bash
# Builds targets in build/ (all by default). Serialised with a lock so that several builds started
# at once (developers, helpers, CI steps) never run two Ninja processes in one tree.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f build/build.ninja ] || scripts/setup.sh
jobs="${AFUNIX_BUILD_JOBS:-$(nproc)}"
exec flock build/.build-lock cmake --build build -j "$jobs" ${1:+--target "$@"}
