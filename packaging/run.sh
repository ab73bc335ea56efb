#!/usr/bin/env bash
# Installs the dependencies, builds RigScope and opens it on its built-in sample rig. Extra arguments go to rigscope.
set -euo pipefail
cd "$(dirname "$0")/.."
./packaging/deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build --parallel "$(nproc)" --target rigscope rigscope-import
exec ./build/bin/rigscope "$@"
