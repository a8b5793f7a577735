#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds everything in build/, runs ctest there,
# then rebuilds the runtime probe under ASan and TSan (build/asan, build/tsan) and runs its tests.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
# Scripts the tests start through `env python3` (run-clang-tidy-19, helpers) get the interpreter
# directly too, not through a version manager's shim (0.4 s per start).
PATH="$(dirname "$(python3 -c 'import sys; print(sys.executable)')"):$PATH"
export PATH
status=0
(cd build && ctest --output-on-failure -j "$(nproc)" --timeout 600) || status=$?

for sanitizer in address thread; do
  dir="build/${sanitizer:0:1}san"
  if [ ! -f "$dir/build.ninja" ]; then
    cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -gline-tables-only -DNDEBUG" \
      -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
      -DAFUNIX_BUILD_CHECKER=OFF -DAFUNIX_SANITIZER="$sanitizer" >/dev/null
  fi
  cmake --build "$dir" -j "$(nproc)"
  (cd "$dir" && ctest --output-on-failure -j "$(nproc)" --timeout 600 -L probe) || status=$?
done
exit "$status"
