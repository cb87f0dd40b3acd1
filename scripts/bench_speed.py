#!/usr/bin/env python3
"""Simulation speed of the warp-level model (a benchmark, not a test).

Runs the compute-bound and memory-bound warp-program examples and the sample SASS trace on the
GTX 1080 platform, one simulation at a time, and prints simulated warp-instructions per host
second and simulated core cycles per host second (best of --repeat runs; host time is the
simulation proper, without loading and elaboration). Then a large trace the script writes itself
(--large-mb of text, default 70, in a temporary folder): run once with a cold binary cache (parse +
simulate) and once warm (the cache reused), each with its wall time and peak memory (largest RSS
of the run's processes). Ends with one JSON line.
Usage: python3 scripts/bench_speed.py [--repeat N] [--platform FILE] [--large-mb MB]
"""
import argparse
import json
import os
import subprocess
import sys
import random
import resource
import tempfile
import time

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


def write_large_trace(folder, megabytes):
    """A matrix-multiply-like kernel in the Accel-Sim text format: 8-warp CTAs whose warps loop over
    shared-memory tiles (LDG from A and B, the B load listing its 32 lane addresses as the tracer writes uncompressed
    accesses, STS, BAR, 8 x (LDS + FFMA)), grown CTA by CTA until the
    text reaches `megabytes`. Returns (kernelslist path, CTAs, warp instructions)."""
    rnd = random.Random(1)
    path = os.path.join(folder, "kernel-1.traceg")
    body_per_warp = []
    ctas, instrs = 0, 0
    header = ("-kernel name = large_mm\n-kernel id = 1\n-grid dim = ({grid},1,1)\n-block dim = (256,1,1)\n"
              "-shmem = 8192\n-nregs = 32\n-binary version = 61\n-cuda stream id = 0\n"
              "-shmem base_addr = 0x00007f2000000000\n-local mem base_addr = 0x00007f1e00000000\n"
              "-nvbit version = 1.5.5\n-accelsim tracer version = 4\n-enable lineinfo = 0\n\n")
    target = megabytes * 1_000_000
    with open(path + ".body", "w") as f:
        while f.tell() < target:
            f.write(f"\n#BEGIN_TB\n\nthread block = {ctas},0,0\n\n")
            for w in range(8):
                lines = []
                for tile in range(16):
                    a = 0x7f1000000000 + ((ctas * 8 + w) * 16 + tile) * 128
                    b = 0x7f1100000000 + rnd.randrange(1 << 20) * 128
                    lines.append(f"0030 ffffffff 1 R4 LDG.E 1 R2 4 1 0x{a:x} 4 ")
                    lines.append("0038 ffffffff 1 R5 LDG.E 1 R3 4 0 " + " ".join(f"0x{b + 4 * l:x}" for l in range(32)) + " ")
                    lines.append(f"0048 ffffffff 0 STS 2 R1 R4 4 1 0x{w * 128:x} 4 ")
                    lines.append("0050 ffffffff 0 BAR.SYNC 0 0 ")
                    for k in range(8):
                        lines.append(f"0058 ffffffff 1 R6 LDS.U.32 1 R1 4 1 0x{k * 128:x} 4 ")
                        lines.append("0068 ffffffff 1 R8 FFMA 3 R6 R5 R8 0 ")
                    lines.append("0070 ffffffff 1 R2 IADD 2 R2 R7 0 ")
                    lines.append("0078 ffffffff 0 BRA 0 0 ")
                lines.append("0080 ffffffff 0 EXIT 0 0 ")
                f.write(f"warp = {w}\ninsts = {len(lines)}\n" + "\n".join(lines) + "\n\n")
                instrs += len(lines)
            f.write("#END_TB\n")
            ctas += 1
    with open(path, "w") as out, open(path + ".body") as body:
        out.write(header.format(grid=ctas))
        while chunk := body.read(1 << 20):
            out.write(chunk)
    os.remove(path + ".body")
    kl = os.path.join(folder, "kernelslist.g")
    with open(kl, "w") as f:
        f.write("kernel-1.traceg\n")
    return kl, ctas, instrs


def run_measured(platform, kernelslist, env):
    """One `mpgpu run --trace` in a child; returns (stats, wall seconds, peak RSS MiB of its processes)."""
    probe = ("import resource, subprocess, sys\n"
             "r = subprocess.run(sys.argv[1:])\n"
             "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
             "sys.exit(r.returncode)")
    with tempfile.TemporaryDirectory() as out:
        cmd = [sys.executable, "-c", probe, MPGPU, "run", "--platform", platform, "--trace", kernelslist,
               "--jobs", "1", "--out", out]
        t0 = time.time()
        res = subprocess.run(cmd, capture_output=True, text=True, env=env)
        wall = time.time() - t0
        if res.returncode != 0:
            sys.exit(f"failed: {' '.join(cmd)}\n{res.stdout[-2000:]}{res.stderr[-2000:]}")
        peak_mib = int(res.stdout.strip().splitlines()[-1]) / 1024
        with open(os.path.join(out, "stats.json")) as f:
            return json.load(f), wall, peak_mib


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--platform", default=os.path.join(ROOT, "platforms/gtx1080.yaml"))
    ap.add_argument("--large-mb", type=int, default=70, help="text size of the generated large trace (0: skip)")
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
    if a.large_mb > 0:
        with tempfile.TemporaryDirectory() as folder:
            kl, ctas, instrs = write_large_trace(folder, a.large_mb)
            mb = os.path.getsize(os.path.join(folder, "kernel-1.traceg")) / 1e6
            print(f"\nlarge trace: {mb:.0f} MB of text, {ctas} CTAs, {instrs:,} warp instructions")
            print(f"{'run':<15}{'wall s':>9}{'sim s':>9}{'warp instr/s':>15}{'peak MiB':>10}")
            env = dict(os.environ, MPGPU_TRACE_CACHE=os.path.join(folder, "cache"))
            for label in ("cold cache", "warm cache"):
                s, wall, peak = run_measured(a.platform, kl, env)
                h = s["host"]
                print(f"{label:<15}{wall:>9.2f}{h['main_simulation_seconds']:>9.2f}"
                      f"{h['warp_instructions_per_second']:>15,.0f}{peak:>10.0f}")
                key = label.split()[0]
                summary[f"large_trace_{key}_wall_s"] = round(wall, 2)
                summary[f"large_trace_{key}_peak_mib"] = round(peak)
                summary[f"large_trace_{key}_wips"] = round(h["warp_instructions_per_second"])
            ratio = summary["compute_bound_wips"] / max(1, summary["large_trace_warm_wips"])
            print(f"compute-bound synthetic / large trace (warm), warp instructions per second: {ratio:.2f}x")
            summary["synthetic_over_trace"] = round(ratio, 2)
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
