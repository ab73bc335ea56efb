#!/usr/bin/env bash
# Installs the dependencies, builds RigScope and runs the whole test suite through ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
./packaging/deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build --parallel "$(nproc)"
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$(mktemp -d)}"
ctest --test-dir build --output-on-failure --timeout 900
