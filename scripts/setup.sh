#!/usr/bin/env bash
# Installs the Debian bookworm packages afunix-compat needs (only those missing), then configures
# build/ with clang++-19 and Ninja. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  clang-19 libclang-19-dev llvm-19-dev clang-tidy-19 clangd-19 lld-19 libclang-rt-19-dev
  libyaml-cpp-dev libgtest-dev libgmock-dev libbenchmark-dev
  cmake ninja-build python3 gcc g++ rt-tests iproute2 util-linux
  clang-tools-19 python3-yaml python3-jsonschema git
  neovim  # integration.clangd_editor runs docs/guide-editors.md's Neovim snippet in it
  chromium  # integration.html renders the HTML reports headless
  android-libbase-dev  # testdata's android-base projects include its real <android-base/cmsg.h>
  libglib2.0-dev pkg-config  # testdata's GLib projects include GIO's real headers (pkg-config --cflags gio-unix-2.0)
  libevent-dev  # testdata's libevent projects include its real <event2/bufferevent.h>
  libuv1-dev  # testdata's libuv projects include its real <uv.h>
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Microsoft's SARIF validator for integration.sarif (npm: the only registry besides Debian's).
if ! command -v sarif-multitool >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then
  echo "setup: installing @microsoft/sarif-multitool (npm)"
  npm install -g --no-fund --no-audit @microsoft/sarif-multitool >/dev/null 2>&1 ||
    echo "setup: warning: npm could not install @microsoft/sarif-multitool; integration.sarif will not run it"
fi

# C++ with line tables only: stacks and profiles keep file:line and function names, and the build
# (mostly Clang's headers) costs about a fifth less than with full debug information.
if [ ! -f build/build.ninja ]; then
  cmake -S . -B build -G Ninja \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -gline-tables-only -DNDEBUG" \
    -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
    -DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=lld -DCMAKE_SHARED_LINKER_FLAGS=-fuse-ld=lld \
    -DCMAKE_MODULE_LINKER_FLAGS=-fuse-ld=lld
fi
