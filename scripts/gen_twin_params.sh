#!/usr/bin/env bash
# Rewrites rtl/twin_params.cmake: the Verilog parameter sets of every extension twin the bundled
# platforms need (run after adding or changing a platform, then rebuild). --check: exit 1 when the
# file is stale instead of writing it (the test TwinParams.BuiltForEveryBundledPlatform runs the same check).
set -euo pipefail
cd "$(dirname "$0")/.."
MPGPU=${MPGPU:-build/mpgpu}
new=$("$MPGPU" twins --platform platforms/*.yaml)
if [[ "${1:-}" == "--check" ]]; then
  diff <(echo "$new") rtl/twin_params.cmake && echo "rtl/twin_params.cmake is up to date"
else
  echo "$new" > rtl/twin_params.cmake
  echo "wrote rtl/twin_params.cmake; rebuild to verilate the new parameter sets"
fi
