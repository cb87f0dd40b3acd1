#!/usr/bin/env bash
# Sanitizer job: builds build-asan with AddressSanitizer and UBSan (MPGPU_ASAN=ON) and runs the
# test suite and the bundled examples under them. Any sanitizer report fails the job.
#   bash scripts/asan.sh              # test suite + examples
#   bash scripts/asan.sh -R Trace     # only the tests whose names match (ctest -R), no examples
#   bash scripts/asan.sh --examples   # the mpgpu binary only and the examples (CI: no test binary)
set -euo pipefail
cd "$(dirname "$0")/.."
examples_only=0
[ "${1:-}" = "--examples" ] && examples_only=1 && shift
# The twins are compiled unsanitized in either build: link those of build/ when it has them
# (brought up to date first) rather than verilating and compiling them again. -O1 -g1: ASan's
# advice, and a faster build than -O2 -g with the same reports.
twins=()
if [ -f build/CMakeCache.txt ] && cmake --build build --target mpgpu_twins -j"$(nproc)" >/dev/null; then
  twins=(-DMPGPU_TWINS_FROM="$PWD/build")
fi
cmake -S . -B build-asan -DMPGPU_ASAN=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" "${twins[@]}" >/dev/null
if [ $examples_only = 1 ]; then cmake --build build-asan --target mpgpu -j"$(nproc)"; else cmake --build build-asan -j"$(nproc)"; fi
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
# Leaks: SystemC keeps its kernel objects until exit by design. Every report halts with an error.
export ASAN_OPTIONS=detect_leaks=0:halt_on_error=1:exitcode=99
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
if [ $examples_only = 0 ]; then
  ctest --test-dir build-asan --output-on-failure -j"$(nproc)" "$@"
  [ $# -gt 0 ] && exit 0
fi

# The bundled examples (one per platform family and front end) and runs that end on an error
# path (time limit, deadline), with the exit code each must give.
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
starve="--platform sc_tests/data/tiny.yaml --set mechanisms.policies=[fcfs,ppq_exclusive]
  --set mechanisms.preemption=[context_switch,draining] --workload sc_tests/data/starvation.yaml"
runs=(
  "0|--platform platforms/k20c.yaml --workload configs/default.yaml"
  "0|--platform platforms/gtx1080.yaml --workload configs/warp/memory_bound.yaml"
  "0|--platform platforms/gtx1080.yaml --workload configs/warp/compute_bound.yaml"
  "0|--platform platforms/gtx1080.yaml --workload configs/warp/compute_bound.yaml --set sim.quantum_cycles=1"
  "0|--platform platforms/gtx1080.yaml --workload configs/warp/memory_bound.yaml --set sm.fault_organization=operand_log --set extensions.operand_log_bytes=16384 --set extensions.replay_queue.impl=verilog --set extensions.operand_log.impl=pins"
  "0|--platform platforms/gtx1080.yaml --trace sc_tests/data/fuzz/traces/vectoradd-100-32/kernelslist.g"
  "0|--platform platforms/gtx1080.yaml --workload configs/examples/every_key.yaml"
  "0|--platform platforms/gtx480.yaml --workload configs/examples/flush_preemption.yaml"
  "0|--platform platforms/gtx480.yaml --workload configs/examples/dual_kernel_preemption.yaml --set extensions.victim_sets.impl=verilog --set extensions.preempting_status.impl=pins --set extensions.running_tb_status.impl=verilog --set extensions.allocation_positions.impl=verilog"
  "0|--platform platforms/sixteen_sm.yaml --workload configs/examples/rtl_in_the_loop.yaml --set extensions.smst.impl=verilog --set extensions.smst.rtl=smst_serial_search --set extensions.ksrt.impl=verilog --set extensions.ptbq.impl=pins --set extensions.command_buffers.impl=verilog --set extensions.active_queue.impl=verilog"
  "0|--platform platforms/rtx2060.yaml --workload configs/default.yaml"
  "0|--platform platforms/rtx2060.yaml --workload configs/examples/mias_sharing.yaml --set workload.sharing.model=factor"
  "0|--platform platforms/rtx2060.yaml --workload configs/examples/mias_sharing.yaml --set sim.quantum_cycles=1"
  "1|$starve"
  "1|--platform platforms/k20c.yaml --workload configs/parboil/parboil.yaml --max-host-seconds 1"
)
for entry in "${runs[@]}"; do
  want=${entry%%|*} args=${entry#*|}
  rc=0
  # shellcheck disable=SC2086
  build-asan/mpgpu run $args --jobs 2 --out "$out/o" >"$out/log" 2>&1 || rc=$?
  if [ "$rc" != "$want" ] || grep -qE "ERROR: AddressSanitizer|runtime error:" "$out/log"; then
    cat "$out/log"
    echo "asan.sh: FAILED (exit $rc, expected $want): mpgpu run $args" >&2
    exit 1
  fi
  echo "asan.sh: clean (exit $rc): mpgpu run $args"
done
