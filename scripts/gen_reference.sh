#!/usr/bin/env bash
# Regenerates docs/platform-reference.md from the readers' own schema (`mpgpu schema`) over every
# bundled platform and example workload, with the notes of docs/key-notes.yaml.
#   bash scripts/gen_reference.sh          write docs/platform-reference.md
#   bash scripts/gen_reference.sh --check  fail (exit 1) when it is stale or a key has no note
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${MPGPU:-build/mpgpu}
workloads=(configs/default.yaml configs/parboil/parboil.yaml configs/warp/compute_bound.yaml
           configs/warp/memory_bound.yaml configs/examples/every_key.yaml configs/examples/flush_preemption.yaml
           configs/examples/dual_kernel_preemption.yaml configs/examples/mias_sharing.yaml
           configs/examples/rtl_in_the_loop.yaml)
# Optional platform sections no bundled platform sets, so that their keys are read too.
sets=(--set sm.preemption.drain_cycles=100 --set extensions.smst.impl=core --set extensions.smst.latency_cycles=1
      --set extensions.ksrt.impl=core --set extensions.ptbq.impl=core --set extensions.victim_sets.impl=core
      --set extensions.command_buffers.impl=core --set extensions.active_queue.impl=core
      --set extensions.preempting_status.impl=core --set extensions.replay_queue.impl=core
      --set extensions.operand_log.impl=core --set extensions.running_tb_status.impl=core
      --set extensions.allocation_positions.impl=core)
run() { "$bin" schema --platform platforms/*.yaml "${sets[@]}" --workload "${workloads[@]}" --notes docs/key-notes.yaml "$@"; }
if [[ "${1:-}" == "--check" ]]; then
  tmp=$(mktemp)
  trap 'rm -f "$tmp"' EXIT
  run --check > "$tmp"
  if ! diff -u docs/platform-reference.md "$tmp"; then
    echo "docs/platform-reference.md is stale: run bash scripts/gen_reference.sh and commit it" >&2
    exit 1
  fi
  echo "docs/platform-reference.md is up to date"
else
  run > docs/platform-reference.md
  echo "wrote docs/platform-reference.md"
fi
