#!/usr/bin/env bash
# Installs what is missing, builds, and runs the bundled default: four Parboil processes on k20c.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)"
./build/mpgpu run --platform platforms/k20c.yaml --workload configs/default.yaml --out out \
  --timeline out/timeline.json
