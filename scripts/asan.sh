#!/usr/bin/env bash
# Sanitizer job: builds build-asan with AddressSanitizer and UBSan (MPGPU_ASAN=ON), runs the test
# suite and the bundled examples under them. Any sanitizer report fails the job.
#   bash scripts/asan.sh            # everything
#   bash scripts/asan.sh -R Trace   # only the tests whose names match (ctest -R)
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build-asan -DMPGPU_ASAN=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build-asan -j"$(nproc)"
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
# Leaks: SystemC keeps its kernel objects until exit by design. Every report halts with an error.
export ASAN_OPTIONS=detect_leaks=0:halt_on_error=1:exitcode=99
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ctest --test-dir build-asan --output-on-failure -j"$(nproc)" "$@"
[ $# -gt 0 ] && exit 0

# The bundled examples: README's runs, one per platform family and front end.
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
examples=(
  "--platform platforms/k20c.yaml --workload configs/default.yaml"
  "--platform platforms/gtx1080.yaml --workload configs/warp/memory_bound.yaml"
  "--platform platforms/gtx1080.yaml --workload configs/warp/compute_bound.yaml"
  "--platform platforms/gtx1080.yaml --trace ../shared/traces/vectoradd-100-32/kernelslist.g"
  "--platform platforms/rtx2060.yaml --workload configs/default.yaml"
)
for args in "${examples[@]}"; do
  # shellcheck disable=SC2086
  if ! build-asan/mpgpu run $args --jobs 2 --out "$out" >"$out/log" 2>&1 ||
     grep -qE "AddressSanitizer|runtime error:" "$out/log"; then
    cat "$out/log"
    echo "asan.sh: FAILED: mpgpu run $args" >&2
    exit 1
  fi
  echo "asan.sh: clean: mpgpu run $args"
done
