#!/usr/bin/env bash
# Builds (if needed) and runs every test; each GoogleTest TEST runs in its own process.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)"
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
ctest --test-dir build --output-on-failure -j"$(nproc)"
