#!/usr/bin/env python3
"""Simulation speed of the warp-level model (a benchmark, not a test).

Runs the compute-bound and memory-bound warp-program examples and the sample SASS trace on the
GTX 1080 platform, one simulation at a time, and prints simulated warp-instructions per host
second and simulated core cycles per host second (best of --repeat runs; host time is the
simulation proper, without loading and elaboration). Ends with one JSON line.
Usage: python3 scripts/bench_speed.py [--repeat N] [--platform FILE]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MPGPU = os.path.join(ROOT, "build", "mpgpu")

CASES = [
    ("compute_bound", ["--workload", os.path.join(ROOT, "configs/warp/compute_bound.yaml")]),
    ("memory_bound", ["--workload", os.path.join(ROOT, "configs/warp/memory_bound.yaml")]),
    ("trace", ["--workload", os.path.join(ROOT, "configs/warp/vectoradd_trace.yaml")]),
]


def run(platform, args):
    with tempfile.TemporaryDirectory() as out:
        cmd = [MPGPU, "run", "--platform", platform, "--jobs", "1", "--out", out] + args
        res = subprocess.run(cmd, capture_output=True, text=True)
        if res.returncode != 0:
            sys.exit(f"failed: {' '.join(cmd)}\n{res.stdout}{res.stderr}")
        with open(os.path.join(out, "stats.json")) as f:
            return json.load(f)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--platform", default=os.path.join(ROOT, "platforms/gtx1080.yaml"))
    a = ap.parse_args()
    if not os.path.exists(MPGPU):
        sys.exit(f"{MPGPU} not found: build first (bash scripts/test.sh)")
    print(f"{'case':<15}{'warp instr':>12}{'cycles':>10}{'host s':>9}{'warp instr/s':>15}{'cycles/s':>12}")
    summary = {}
    for name, args in CASES:
        best = None
        for _ in range(a.repeat):
            s = run(a.platform, args)
            if best is None or s["host"]["main_simulation_seconds"] < best["host"]["main_simulation_seconds"]:
                best = s
        h = best["host"]
        print(f"{name:<15}{best['warp_instructions']:>12}{best['sim']['cycles']:>10}{h['main_simulation_seconds']:>9.3f}"
              f"{h['warp_instructions_per_second']:>15,.0f}{h['simulated_cycles_per_second']:>12,.0f}")
        summary[f"{name}_wips"] = round(h["warp_instructions_per_second"])
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
