#!/usr/bin/env python3
"""Simulation speed of the model (a benchmark, not a test).

Sections (--only picks some; host time is always the simulation proper, without loading and
elaboration: its CPU time, host.main_simulation_cpu_seconds, as the headline, and its wall time):
- cases: the compute-bound and memory-bound warp-program examples and the sample SASS trace on the
  GTX 1080 platform, one simulation at a time: simulated warp instructions and core cycles per
  host second, best of --repeat runs by CPU time, with the targets (compute-bound >= 50 M,
  memory-bound >= 5 M warp instructions per CPU second).
- quantum: the two warp-program cases at sim.quantum_cycles 1 and 100: CPU cost per warp
  instruction q1 / q100 (target <= 2x), the simulated cycles of both, and the SM steps that ran
  ahead of the calendar at quantum 1 (sim.run_ahead; host.sm_steps_run_ahead).
- translation: the two warp-program cases with address translation on (the platform's
  fill_unit.translation: paged) and off (none): CPU cost per warp instruction of each and the
  ratio on / off (target <= 1.25: TLB hits must be a fast path), with the simulated cycles.
- faults: the two warp-program cases under sm.fault_organization stall_on_fault and operand_log
  (the costliest organization to simulate: replay queue and operand log looked up per global
  memory instruction), side by side: CPU cost per warp instruction and simulated cycles.
- scaling: the two cases at 20, 80 and 320 SMs with the grid scaled alike: ns per warp
  instruction and its ratio 320 / 20 SMs (target <= 1.25), from each count's best run over the
  rounds, then each round's own ratio (how far the host's spells move it); beside each count, the
  SM wake-ups per 1000 warp instructions (host.sm_steps), which the simulated dynamics set.
- tb: the TB-level 8-process Parboil workload of scripts/tanasic_ch5.py under FCFS and under PPQ
  with context switch preemption: seconds per simulation and microseconds per TB.
- tables: the same PPQ run with the scheduling framework's five tables (command buffers, active
  queue, KSRT, SMST, PTBQ) reached as the C++
  core (the default), as pin views and as verilated Verilog twins (extensions.<table>.impl): CPU
  seconds of each and its ratio to core (what co-simulating the tables in the loop costs); then
  the memory-bound case under operand_log with each SM's replay queue and operand log likewise.
- instructions: host instructions per warp instruction of the two warp-program cases, counted by
  valgrind's callgrind over the simulation proper (everything under sc_start): a figure that does
  not depend on the host or its load, so runs on different machines compare. With the cases
  section it also prints the host's rate on that code (those instructions / the case's best CPU
  seconds) and what each speed target asks of the code at that rate (instructions per warp
  instruction = rate / target): on a slower host the targets ask for fewer. The same count at
  quantum 1 and with translation off gives those sections' ratios without the host's noise.
- large: a large trace the script writes itself (--large-mb of text, default 70, in a temporary
  folder): run once with a cold binary cache (parse + simulate) and once warm (the cache reused),
  each with its wall time and peak memory (largest RSS of the run's processes). Then the same
  for the compute-bound example's work written as a SASS trace, compared with the synthetic
  compute-bound case (target: within 2x), since the matrix-multiply trace is memory-bound.
- cachemodel (opt-in: only when --only names it; about 40 minutes on a slow 2-core host): the
  scaling section's 20- and 320-SM runs of both cases under callgrind's cache model, with a
  1 MiB second level (the per-core L2 of current x86 server parts; callgrind models two levels):
  per warp instruction the host instructions, first-level instruction and data misses and data
  misses of that L2, their ratios 320 / 20 SMs and what 320 SMs add. The timed scaling ratio
  moves by 10% between runs on a shared VM; these counts do not, and show what the 320-SM runs
  cost more (host instructions per warp instruction stay flat; the misses grow).
Ends with one JSON line.
Usage: python3 scripts/bench_speed.py [--repeat N] [--platform FILE] [--large-mb MB] [--mpgpu PATH]
                                      [--only cases,quantum,translation,faults,scaling,instructions,tb,tables,large,cachemodel]
"""
import argparse
import json
import os
import subprocess
import sys
import random
import tempfile
import time

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MPGPU = os.path.join(ROOT, "build", "mpgpu")  # --mpgpu replaces it
SECTIONS = ("cases", "quantum", "translation", "faults", "scaling", "instructions", "tb", "tables", "large")
OPT_IN_SECTIONS = ("cachemodel",)  # run only when --only names them (long)
CACHE_MODEL_L2 = "--LL=1048576,16,64"  # 1 MiB, 16-way, 64 B lines: a per-core L2 of current x86 servers
LINKED_TABLES = ("command_buffers", "active_queue", "ksrt", "smst", "ptbq")  # the SM driver's, extensions.<table>.impl
SM_TABLES = ("replay_queue", "operand_log")  # each SM pipeline's, under sm.fault_organization operand_log
TARGET_WIPS = {"compute_bound": 50e6, "memory_bound": 5e6}  # warp instructions per CPU second
TARGET_QUANTUM_RATIO = 2.0   # CPU per warp instruction, quantum 1 / quantum 100
TARGET_SCALING_RATIO = 1.25  # ns per warp instruction, 320 SMs / 20 SMs
TARGET_TRANSLATION_RATIO = 1.25  # CPU per warp instruction, translation on / off
TRANSLATION_KEY = "fill_unit.translation"  # paged | none
FAULT_KEY = "sm.fault_organization"
FAULT_ORGS = ("stall_on_fault", "operand_log")
FAULT_SETS = ["--set", "extensions.operand_log_bytes=16384"]  # 32 TBs per GTX 1080 SM: 2 entries each
QUANTUM_KEY = "sim.quantum_cycles"  # platforms/*.yaml: sim: {quantum_cycles: 100}
SCALING_SMS = (20, 80, 320)
SCALING_ROUNDS = 5  # rounds of the scaling section (each SM count once per round); --repeat overrides
TB_LABELS = ("fcfs", "ppq_ex_switch")  # tanasic_ch5.RUNS: FCFS, PPQ (exclusive) with context switch

CASES = [
    ("compute_bound", ["--workload", os.path.join(ROOT, "configs/warp/compute_bound.yaml")]),
    ("memory_bound", ["--workload", os.path.join(ROOT, "configs/warp/memory_bound.yaml")]),
    ("trace", ["--workload", os.path.join(ROOT, "configs/warp/vectoradd_trace.yaml")]),
]
WARP_CASES = [c for c in CASES if c[0] in TARGET_WIPS]  # the quantum and scaling sections


def mpgpu_run(args, prefix=(), env=None):
    """One `mpgpu run --jobs 1 --out <temporary folder>` with the given arguments, under an optional
    command prefix (a wrapper such as valgrind); exits on failure. Returns (stats, stderr, wall
    seconds, stdout)."""
    with tempfile.TemporaryDirectory() as out:
        cmd = list(prefix) + [MPGPU, "run", "--jobs", "1", "--out", out] + list(args)
        t0 = time.time()
        try:
            res = subprocess.run(cmd, capture_output=True, text=True, env=env)
        except FileNotFoundError:
            if prefix:
                return None  # the wrapper is not installed
            raise
        wall = time.time() - t0
        if res.returncode != 0:
            sys.exit(f"failed: {' '.join(cmd)}\n{res.stdout[-2000:]}{res.stderr[-2000:]}")
        with open(os.path.join(out, "stats.json")) as f:
            return json.load(f), res.stderr, wall, res.stdout


def run(platform, args):
    """One `mpgpu run` with the given arguments; returns its stats."""
    return mpgpu_run(["--platform", platform] + args)[0]


CPU_SOURCE = None  # the host key the CPU figures came from (the fallback sticks once seen)


def sim_seconds(stats):
    """(CPU, wall) seconds of the main simulation. Binaries from before host.main_simulation_cpu_seconds
    (e.g. the pre-speed-work baseline) give wall time for both; CPU_SOURCE records which it was."""
    global CPU_SOURCE
    h = stats["host"]
    if "main_simulation_cpu_seconds" not in h:
        CPU_SOURCE = "main_simulation_seconds (fallback)"
    elif CPU_SOURCE is None:
        CPU_SOURCE = "main_simulation_cpu_seconds"
    return h.get("main_simulation_cpu_seconds", h["main_simulation_seconds"]), h["main_simulation_seconds"]


def best_run(platform, args, repeat):
    """Best of `repeat` runs by CPU time of the simulation: the least disturbed by other load."""
    runs = [run(platform, args) for _ in range(repeat)]
    return min(runs, key=lambda s: sim_seconds(s)[0])


def target_note(value, target, unit="", at_least=True):
    met = value >= target if at_least else value <= target
    return f"{'>=' if at_least else '<='} {target:g}{unit}: {'met' if met else 'NOT met'}"


TRACE_HEADER = ("-kernel name = {name}\n-kernel id = 1\n-grid dim = ({grid},1,1)\n-block dim = (256,1,1)\n"
                "-shmem = {shmem}\n-nregs = {nregs}\n-binary version = 61\n-cuda stream id = 0\n"
                "-shmem base_addr = 0x00007f2000000000\n-local mem base_addr = 0x00007f1e00000000\n"
                "-nvbit version = 1.5.5\n-accelsim tracer version = 4\n-enable lineinfo = 0\n\n")


def write_trace(folder, megabytes, name, shmem, nregs, warp_lines):
    """An Accel-Sim text trace of 8-warp CTAs of 256 threads in `folder`, grown CTA by CTA until the
    text reaches `megabytes`; warp_lines(cta, warp) gives a warp's instruction lines. The header,
    written last, carries the CTA count. Returns (kernelslist path, CTAs, warp instructions)."""
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "kernel-1.traceg")
    target = megabytes * 1_000_000
    ctas, instrs = 0, 0
    with open(path + ".body", "w") as f:
        while f.tell() < target:
            f.write(f"\n#BEGIN_TB\n\nthread block = {ctas},0,0\n\n")
            for w in range(8):
                lines = warp_lines(ctas, w)
                f.write(f"warp = {w}\ninsts = {len(lines)}\n" + "\n".join(lines) + "\n\n")
                instrs += len(lines)
            f.write("#END_TB\n")
            ctas += 1
    with open(path, "w") as out, open(path + ".body") as body:
        out.write(TRACE_HEADER.format(name=name, grid=ctas, shmem=shmem, nregs=nregs))
        while chunk := body.read(1 << 20):
            out.write(chunk)
    os.remove(path + ".body")
    kl = os.path.join(folder, "kernelslist.g")
    with open(kl, "w") as f:
        f.write("kernel-1.traceg\n")
    return kl, ctas, instrs


def write_large_trace(folder, megabytes):
    """A matrix-multiply-like kernel: warps loop over shared-memory tiles (LDG from A and B, the B
    load listing its 32 lane addresses as the tracer writes uncompressed accesses, STS, BAR,
    8 x (LDS + FFMA)). Returns (kernelslist path, CTAs, warp instructions)."""
    rnd = random.Random(1)

    def warp_lines(cta, w):
        lines = []
        for tile in range(16):
            a = 0x7f1000000000 + ((cta * 8 + w) * 16 + tile) * 128
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
        return lines

    return write_trace(folder, megabytes, "large_mm", 8192, 32, warp_lines)


def write_fma_trace(folder, megabytes):
    """The compute-bound example (configs/warp/compute_bound.yaml) as a dynamic SASS trace: per
    warp one coalesced LDG, 256 iterations of 4 FFMA + 2 FADD with the loop's IADD, ISETP and BRA
    (as the tracer lists a loop: every iteration), one STG, EXIT. Same kind of work as the
    synthetic case, so the two rates compare the trace front end with the program one.
    Returns (kernelslist path, CTAs, warp instructions)."""
    loop = ["0040 ffffffff 1 R2 FFMA 3 R1 R2 R2 0 ", "0048 ffffffff 1 R3 FFMA 3 R1 R3 R3 0 ",
            "0050 ffffffff 1 R4 FFMA 3 R1 R4 R4 0 ", "0058 ffffffff 1 R5 FFMA 3 R1 R5 R5 0 ",
            "0060 ffffffff 1 R6 FADD 2 R2 R3 0 ", "0068 ffffffff 1 R7 FADD 2 R4 R5 0 ",
            "0070 ffffffff 1 R9 IADD3 2 R9 R10 0 ", "0078 ffffffff 0 ISETP.NE.AND 2 R9 R11 0 ",
            "0080 ffffffff 0 BRA 0 0 "]

    def warp_lines(cta, w):
        base = 0x7f1000000000 + (cta * 8 + w) * 128
        return ([f"0030 ffffffff 1 R1 LDG.E 1 R12 4 1 0x{base:x} 4 "] + loop * 256 +
                ["0088 ffffffff 1 R8 FADD 2 R6 R7 0 ",
                 f"0090 ffffffff 0 STG.E 2 R12 R8 4 1 0x{base + 0x10000000:x} 4 ",
                 "0098 ffffffff 0 EXIT 0 0 "])

    return write_trace(os.path.join(folder, "fma"), megabytes, "large_fma", 0, 16, warp_lines)


def run_measured(platform, kernelslist, env):
    """One `mpgpu run --trace` in a child; returns (stats, wall seconds, peak RSS MiB of its processes)."""
    probe = ("import resource, subprocess, sys\n"
             "r = subprocess.run(sys.argv[1:])\n"
             "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
             "sys.exit(r.returncode)")
    stats, _, wall, stdout = mpgpu_run(["--platform", platform, "--trace", kernelslist],
                                       prefix=[sys.executable, "-c", probe], env=env)
    return stats, wall, int(stdout.strip().splitlines()[-1]) / 1024


def section_cases(a, summary):
    print(f"{'case':<15}{'warp instr':>12}{'cycles':>10}{'CPU s':>8}{'wall s':>8}{'winstr/s CPU':>15}"
          f"{'winstr/s wall':>15}{'cycles/s CPU':>14}{'cycles/s wall':>15}  target (winstr/s CPU)")
    for name, args in CASES:
        best = best_run(a.platform, args, a.repeat or 3)
        cpu, wall = sim_seconds(best)
        wi, cy = best["warp_instructions"], best["sim"]["cycles"]
        target = target_note(wi / cpu / 1e6, TARGET_WIPS[name] / 1e6, " M") if name in TARGET_WIPS else "-"
        print(f"{name:<15}{wi:>12}{cy:>10}{cpu:>8.3f}{wall:>8.3f}{wi / cpu:>15,.0f}{wi / wall:>15,.0f}"
              f"{cy / cpu:>14,.0f}{cy / wall:>15,.0f}  {target}")
        summary[f"{name}_wips"] = round(wi / cpu)
        summary[f"{name}_cpu_s"] = round(cpu, 4)
        summary[f"{name}_wips_wall"] = round(wi / wall)
        summary[f"{name}_cycles_per_s"] = round(cy / cpu)
        summary[f"{name}_cycles_per_s_wall"] = round(cy / wall)


def section_quantum(a, summary):
    # Quantum 1 is the reference timing (every component in step each cycle); the platform's 100
    # lets SMs run ahead. Same work, so the CPU ratio is the cost of the finer synchronization.
    print(f"\nquantum 1 vs 100 (--set {QUANTUM_KEY}=N): CPU cost per warp instruction")
    # "SM steps ahead": SM wake-ups at quantum 1 run without the calendar (sim.run_ahead), of
    # cycles x SMs at most; 0 from a binary without run-ahead.
    print(f"{'case':<15}{'cycles q1':>11}{'cycles q100':>13}{'ns/winstr q1':>14}{'ns/winstr q100':>16}{'q1/q100':>9}"
          f"{'SM steps ahead q1':>19}  target")
    for name, args in WARP_CASES:
        res, ahead = {}, 0
        for q in (1, 100):
            best = best_run(a.platform, args + ["--set", f"{QUANTUM_KEY}={q}"], a.repeat or 3)
            res[q] = (best["sim"]["cycles"], sim_seconds(best)[0] / best["warp_instructions"] * 1e9)
            if q == 1:
                ahead = best["host"].get("sm_steps_run_ahead", 0)
        ratio = res[1][1] / res[100][1]
        print(f"{name:<15}{res[1][0]:>11}{res[100][0]:>13}{res[1][1]:>14.1f}{res[100][1]:>16.1f}{ratio:>8.2f}x"
              f"{ahead:>19,}  {target_note(ratio, TARGET_QUANTUM_RATIO, 'x', at_least=False)}")
        summary[f"{name}_sm_steps_run_ahead_q1"] = ahead
        summary[f"{name}_cycles_q1"], summary[f"{name}_cycles_q100"] = res[1][0], res[100][0]
        summary[f"{name}_q1_over_q100"] = round(ratio, 2)


def section_translation(a, summary):
    print(f"\ntranslation on vs off (--set {TRANSLATION_KEY}=paged|none): CPU cost per warp instruction")
    print(f"{'case':<15}{'cycles on':>11}{'cycles off':>12}{'ns/winstr on':>14}{'ns/winstr off':>15}{'on/off':>8}"
          f"{'L1 TLB hit+merge':>18}  target")
    for name, args in WARP_CASES:
        res = {}
        for mode in ("paged", "none"):
            best = best_run(a.platform, args + ["--set", f"{TRANSLATION_KEY}={mode}"], a.repeat or 3)
            res[mode] = (best["sim"]["cycles"], sim_seconds(best)[0] / best["warp_instructions"] * 1e9, best)
        ratio = res["paged"][1] / res["none"][1]
        l1 = res["paged"][2]["memory"]["translation"]["l1_tlb"]
        hit = (l1["hits"] + l1["merged"]) / max(1, l1["accesses"])
        print(f"{name:<15}{res['paged'][0]:>11}{res['none'][0]:>12}{res['paged'][1]:>14.1f}{res['none'][1]:>15.1f}"
              f"{ratio:>7.2f}x{hit:>18.3f}  {target_note(ratio, TARGET_TRANSLATION_RATIO, 'x', at_least=False)}")
        summary[f"{name}_cycles_translation_on"], summary[f"{name}_cycles_translation_off"] = res["paged"][0], res["none"][0]
        summary[f"{name}_translation_on_over_off"] = round(ratio, 2)


def section_faults(a, summary):
    print(f"\nfault organizations (--set {FAULT_KEY}=...): CPU cost per warp instruction, no faults")
    print(f"{'case':<15}" + "".join(f"{'cycles ' + o:>26}{'ns/winstr ' + o:>29}" for o in FAULT_ORGS) + f"{'ratio':>8}")
    for name, args in WARP_CASES:
        res = {}
        for org in FAULT_ORGS:
            best = best_run(a.platform, args + ["--set", f"{FAULT_KEY}={org}"] + FAULT_SETS, a.repeat or 3)
            res[org] = (best["sim"]["cycles"], sim_seconds(best)[0] / best["warp_instructions"] * 1e9)
        ratio = res[FAULT_ORGS[1]][1] / res[FAULT_ORGS[0]][1]
        print(f"{name:<15}" + "".join(f"{res[o][0]:>26}{res[o][1]:>29.1f}" for o in FAULT_ORGS) + f"{ratio:>7.2f}x")
        for o in FAULT_ORGS:
            summary[f"{name}_cycles_{o}"] = res[o][0]
            summary[f"{name}_ns_per_winstr_{o}"] = round(res[o][1], 1)


def platform_sms(platform):
    with open(platform) as f:
        return yaml.safe_load(f)["sm"]["count"]


def scaled_sets(platform, args, sms):
    """--set arguments for `sms` SMs with every kernel's grid of the workload (args[1]) scaled alike."""
    with open(args[1]) as f:
        grids = {k: v["grid"] for k, v in yaml.safe_load(f)["kernels"].items()}
    sets = ["--set", f"sm.count={sms}"]
    for k, g in grids.items():
        sets += ["--set", f"workload.kernels.{k}.grid={g * sms // platform_sms(platform)}"]
    return sets


def section_scaling(a, summary):
    # The platform's memory system is kept at every SM count: gtx1080's XOR address hash is defined
    # for exactly its 8 memory modules, so L2 slices and DRAM channels do not scale by --set alone.
    # The memory-bound case is then DRAM-bound over 16x the work at 320 SMs (15.5x the cycles, SMs
    # mostly waiting): its ns per warp instruction also carries the cost of idle SM cycles and of
    # a memory system 16x over its bandwidth. Its loop steps by grid_stride, so a scaled grid
    # streams 16x the data; before 2026-11-27 the step stayed 320 KiB, and 15 of 16 TBs re-read
    # lines other TBs had read (1.16 M cycles, far fewer DRAM accesses).
    print(f"\nscaling: --set sm.count=N and every kernel's grid x N/{platform_sms(a.platform)}, the platform's memory system kept")
    # The SM counts take turns, round by round, each keeping its best run: the host's slower and
    # faster spells (this one's speed drifts by 10-20% over minutes) then fall on every count
    # alike, where consecutive repeats of one count put a whole spell on it and moved the ratio.
    for name, args in WARP_CASES:
        # SM steps per 1000 warp instructions: the wake-ups the simulated dynamics ask for, each
        # reading its SM's state afresh (a host statistic; blank from a binary without it).
        print(f"{name}\n{'SMs':>6}{'warp instr':>12}{'cycles':>10}{'CPU s':>9}{'ns/winstr':>11}{'steps/k winstr':>16}")
        ns, best_of, round_ratios = {}, {}, []
        for _ in range(a.repeat or SCALING_ROUNDS):
            this_round = {}
            for sms in SCALING_SMS:
                got = run(a.platform, args + scaled_sets(a.platform, args, sms))
                this_round[sms] = sim_seconds(got)[0] / got["warp_instructions"]
                if sms not in best_of or sim_seconds(got)[0] < sim_seconds(best_of[sms])[0]:
                    best_of[sms] = got
            round_ratios.append(this_round[SCALING_SMS[-1]] / this_round[SCALING_SMS[0]])
        for sms in SCALING_SMS:
            best = best_of[sms]
            cpu, wi = sim_seconds(best)[0], best["warp_instructions"]
            ns[sms] = cpu / wi * 1e9
            steps = best["host"].get("sm_steps")
            per_k = None if steps is None else 1000 * steps / wi
            print(f"{sms:>6}{wi:>12}{best['sim']['cycles']:>10}{cpu:>9.3f}{ns[sms]:>11.1f}"
                  + (f"{per_k:>16.1f}" if per_k is not None else f"{'':>16}"))
            if per_k is not None:
                summary[f"{name}_sm_steps_per_k_winstr_{sms}sm"] = round(per_k, 1)
            summary[f"{name}_ns_per_winstr_{sms}sm"] = round(ns[sms], 2)
        ratio = ns[SCALING_SMS[-1]] / ns[SCALING_SMS[0]]
        print(f"ns({SCALING_SMS[-1]})/ns({SCALING_SMS[0]}): {ratio:.2f}  target {target_note(ratio, TARGET_SCALING_RATIO, at_least=False)}")
        # Each round's own ratio (its two runs minutes apart at most): how far the host's spells move it.
        print(f"  each round's ratio: {' '.join(f'{r:.2f}' for r in round_ratios)}")
        summary[f"{name}_scaling_ratio"] = round(ratio, 2)
        summary[f"{name}_scaling_ratio_rounds"] = [round(r, 2) for r in round_ratios]


def callgrind_counts(platform, args, cache_model=False):
    """({event: count} of callgrind over the simulation proper (everything under sc_start), warp
    instructions) of one run, with the cache model's events too when asked; None without valgrind.
    The run's child process simulates; the parent's counts (no sc_start) are 0."""
    model = ["--cache-sim=yes", CACHE_MODEL_L2] if cache_model else []
    got = mpgpu_run(["--platform", platform] + args,
                    prefix=["valgrind", "--tool=callgrind"] + model + ["--trace-children=yes",
                            "--toggle-collect=sc_core::sc_start(*", "--callgrind-out-file=/dev/null"])
    if got is None:
        return None
    events, counts = [], {}
    for line in got[1].splitlines():
        if "Events    :" in line:
            events = line.split(":", 1)[1].split()
        elif "Collected :" in line:  # one line per process
            for e, v in zip(events, line.split(":", 1)[1].split()):
                counts[e] = counts.get(e, 0) + int(v)
    return counts, got[0]["warp_instructions"]


def host_instructions(platform, args):
    """(host instructions under sc_start, warp instructions) of one run; None without valgrind."""
    got = callgrind_counts(platform, args)
    return None if got is None else (got[0]["Ir"], got[1])


def section_cachemodel(a, summary):
    low, high = SCALING_SMS[0], SCALING_SMS[-1]
    print(f"\ncache model (callgrind, {CACHE_MODEL_L2[5:]}: size, ways, line of the second level), the simulation"
          f" under sc_start, per warp instruction, at {low} and {high} SMs as in the scaling section")
    cols = (("Ir", "host instr"), ("I1mr", "I1 misses"), ("D1mr+D1mw", "D1 misses"), ("DLmr+DLmw", "L2 misses"))
    print(f"{'case':<15}{'SMs':>5}" + "".join(f"{title:>13}" for _, title in cols))
    for name, args in WARP_CASES:
        per = {}
        for sms in (low, high):
            got = callgrind_counts(a.platform, args + scaled_sets(a.platform, args, sms), cache_model=True)
            if got is None:
                print("valgrind not found: section skipped")
                return
            counts, wi = got
            per[sms] = {key: sum(counts[e] for e in key.split("+")) / wi for key, _ in cols}
            print(f"{name:<15}{sms:>5}" + "".join(f"{per[sms][key]:>13.1f}" for key, _ in cols))
            summary[f"{name}_l2_misses_per_winstr_{sms}sm"] = round(per[sms]["DLmr+DLmw"], 2)
        # The ratio, and what the larger GPU adds per warp instruction (a ratio of near-zero counts,
        # such as the compute-bound example's L2 misses at 20 SMs, says little on its own).
        print(f"{'':<15}{'ratio':>5}" + "".join(f"{per[high][key] / max(per[low][key], 1e-9):>12.2f}x" for key, _ in cols))
        print(f"{'':<15}{'added':>5}" + "".join(f"{per[high][key] - per[low][key]:>+13.1f}" for key, _ in cols))
        summary[f"{name}_host_instructions_{high}_over_{low}"] = round(per[high]["Ir"] / per[low]["Ir"], 3)


def section_instructions(a, summary):
    print("\nhost instructions (callgrind, the simulation under sc_start): independent of the host and its load;"
          " q1 and translation off as in their sections, their ratios to the base run beside")
    print(f"{'case':<15}{'host instr':>15}{'per winstr':>12}{'host G instr/s':>16}{'target asks <= per winstr':>27}"
          f"{'q1/q100':>9}{'on/off':>8}")
    for name, args in WARP_CASES:
        per = {}
        for label, extra in (("base", []), ("q1", ["--set", f"{QUANTUM_KEY}=1"]),
                             ("off", ["--set", f"{TRANSLATION_KEY}=none"])):
            got = host_instructions(a.platform, args + extra)
            if got is None:
                print("valgrind not found: section skipped")
                return
            per[label] = got
        ir, wi = per["base"]
        base = ir / wi
        cpu = summary.get(name + "_cpu_s")
        rate = f"{ir / cpu / 1e9:>16.2f}" if cpu else f"{'-':>16}"
        asks = f"{ir / cpu / TARGET_WIPS[name]:>27.0f}" if cpu else f"{'-':>27}"
        q1 = per["q1"][0] / per["q1"][1] / base
        on_off = base / (per["off"][0] / per["off"][1])
        print(f"{name:<15}{ir:>15,}{base:>12.1f}{rate}{asks}{q1:>8.2f}x{on_off:>7.2f}x")
        summary[f"{name}_host_instructions_per_winstr"] = round(base, 1)
        summary[f"{name}_host_instructions_q1_over_q100"] = round(q1, 3)
        summary[f"{name}_host_instructions_translation_on_over_off"] = round(on_off, 3)


def tanasic_workload():
    """The first 8-process workload of scripts/tanasic_ch5.py (its platform, applications and
    random pick), built by that script's own functions."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import tanasic_ch5 as tc
    exp, platform, apps_file, apps = tc.load_experiment()
    n = max(exp["process_counts"])
    return tc, exp, platform, apps_file, tc.pick_processes(exp, apps, n, 0), n


def tanasic_run_args(folder, tc, apps_file, procs, run):
    """`mpgpu run` arguments for one of tanasic_ch5.RUNS (label, policy, preemption, high priority)
    on `procs`: its workload file, and placeholder T_SP values. T_SP only enters the metrics after
    the simulation: placeholders spare the isolated runs, so one simulation runs (the
    main_simulation_* times cover only it anyway)."""
    label, policy, pre, hp = run
    tsp = os.path.join(folder, "tsp.json")
    with open(tsp, "w") as f:
        json.dump({p: 1.0 for p in procs}, f)
    wl = os.path.join(folder, f"{label}.yaml")
    with open(wl, "w") as f:
        f.write(tc.workload_yaml(apps_file, procs, policy, pre, hp))
    return ["--workload", wl, "--tsp", tsp]


def section_tables(a, summary):
    tc, exp, platform, apps_file, procs, n = tanasic_workload()
    print(f"\nExtension tables in the loop: {n}-process Parboil, PPQ with context switch, on {exp['platform']}, "
          f"{', '.join(LINKED_TABLES)} as core / pins / verilog, best of {a.repeat or 3}")
    print(f"{'impl':<10}{'CPU s':>8}{'wall s':>8}{'x core':>8}{'table accesses':>16}")
    with tempfile.TemporaryDirectory() as folder:
        run_args = tanasic_run_args(folder, tc, apps_file, procs, next(r for r in tc.RUNS if r[0] == "ppq_ex_switch"))
        base = None
        for impl in ("core", "pins", "verilog"):
            sets = [x for t in LINKED_TABLES for x in ("--set", f"extensions.{t}.impl={impl}")]
            best = best_run(platform, run_args + sets, a.repeat or 3)
            cpu, wall = sim_seconds(best)
            base = base or cpu
            accesses = sum(c["accesses"] for c in best["host"].get("cosim", {}).values())
            print(f"{impl:<10}{cpu:>8.2f}{wall:>8.2f}{cpu / base:>8.2f}{accesses:>16}")
            summary[f"tables_{impl}_cpu_s"], summary[f"tables_{impl}_x_core"] = round(cpu, 3), round(cpu / base, 3)
    # The SM's tables: every global memory instruction updates both at issue (and again at commit).
    name, args = next(c for c in WARP_CASES if c[0] == "memory_bound")
    print(f"\n{name} on {a.platform} under {FAULT_KEY}=operand_log, {', '.join(SM_TABLES)} as core / pins / verilog")
    print(f"{'impl':<10}{'CPU s':>8}{'wall s':>8}{'x core':>8}{'table accesses':>16}")
    base = None
    for impl in ("core", "pins", "verilog"):
        sets = ["--set", f"{FAULT_KEY}=operand_log"] + FAULT_SETS
        sets += [x for t in SM_TABLES for x in ("--set", f"extensions.{t}.impl={impl}")]
        best = best_run(a.platform, args + sets, a.repeat or 3)
        cpu, wall = sim_seconds(best)
        base = base or cpu
        accesses = sum(c["accesses"] for c in best["host"].get("cosim", {}).values())
        print(f"{impl:<10}{cpu:>8.2f}{wall:>8.2f}{cpu / base:>8.2f}{accesses:>16}")
        summary[f"sm_tables_{impl}_cpu_s"], summary[f"sm_tables_{impl}_x_core"] = round(cpu, 3), round(cpu / base, 3)


def section_tb(a, summary):
    tc, exp, platform, apps_file, procs, n = tanasic_workload()
    print(f"\nTB level: {n}-process Parboil workload of tanasic_ch5.py ({', '.join(procs)}) on {exp['platform']}, "
          f"best of {a.repeat or 1}")
    print(f"{'run':<15}{'TBs':>10}{'sim ms':>9}{'CPU s':>8}{'wall s':>8}{'us/TB CPU':>11}{'us/TB wall':>12}")
    with tempfile.TemporaryDirectory() as folder:
        for r in (r for r in tc.RUNS if r[0] in TB_LABELS):
            label = r[0]
            best = best_run(platform, tanasic_run_args(folder, tc, apps_file, procs, r), a.repeat or 1)
            cpu, wall = sim_seconds(best)
            tbs = best["tbs_done"]
            print(f"{label:<15}{tbs:>10}{best['sim']['time_ns'] / 1e6:>9.1f}{cpu:>8.2f}{wall:>8.2f}"
                  f"{cpu / tbs * 1e6:>11.3f}{wall / tbs * 1e6:>12.3f}")
            summary[f"tb_{label}_cpu_s"], summary[f"tb_{label}_wall_s"] = round(cpu, 3), round(wall, 3)
            summary[f"tb_{label}_us_per_tb"] = round(cpu / tbs * 1e6, 4)


def main():
    global MPGPU
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=None,
                    help="best of N runs by CPU time (default: 3, the TB section 1; a large trace's cold run once)")
    ap.add_argument("--platform", default=os.path.join(ROOT, "platforms/gtx1080.yaml"))
    ap.add_argument("--large-mb", type=int, default=70, help="text size of the generated large trace (0: skip)")
    ap.add_argument("--mpgpu", default=MPGPU, help="the simulator binary (default: build/mpgpu)")
    ap.add_argument("--only", default=",".join(SECTIONS),
                    help=f"comma-separated sections of {','.join(SECTIONS + OPT_IN_SECTIONS)} "
                         f"(default: all but {','.join(OPT_IN_SECTIONS)})")
    a = ap.parse_args()
    MPGPU = os.path.abspath(a.mpgpu)
    only = set(a.only.split(","))
    known = set(SECTIONS + OPT_IN_SECTIONS)
    if not only <= known:
        sys.exit(f"--only: unknown section(s) {','.join(sorted(only - known))}; sections: {','.join(sorted(known))}")
    if not os.path.exists(MPGPU):
        sys.exit(f"{MPGPU} not found: build first (bash scripts/test.sh)")
    print(f"binary: {MPGPU}")
    summary = {}
    for name, section in (("cases", section_cases), ("quantum", section_quantum),
                          ("translation", section_translation), ("faults", section_faults),
                          ("scaling", section_scaling), ("instructions", section_instructions),
                          ("tb", section_tb), ("tables", section_tables), ("cachemodel", section_cachemodel)):
        if name in only:
            section(a, summary)
    if CPU_SOURCE and "fallback" in CPU_SOURCE:
        print("\nnote: this binary has no host.main_simulation_cpu_seconds: every CPU figure above is the "
              "wall time of the simulation (host.main_simulation_seconds)")
    if CPU_SOURCE:
        summary["cpu_seconds_from"] = CPU_SOURCE
    if a.large_mb > 0 and "large" in only:
        with tempfile.TemporaryDirectory() as folder:
            env = dict(os.environ, MPGPU_TRACE_CACHE=os.path.join(folder, "cache"))
            for key, title, writer in (
                    ("large_trace", "large trace", write_large_trace),
                    # The same comparison on the same kind of work: the compute-bound example as a trace.
                    ("fma_trace", "compute-bound trace (compute_bound.yaml's work as SASS)", write_fma_trace)):
                kl, ctas, instrs = writer(folder, a.large_mb)
                mb = os.path.getsize(os.path.join(os.path.dirname(kl), "kernel-1.traceg")) / 1e6
                print(f"\n{title}: {mb:.0f} MB of text, {ctas} CTAs, {instrs:,} warp instructions")
                print(f"{'run':<15}{'wall s':>9}{'sim s':>9}{'warp instr/s':>15}{'peak MiB':>10}")
                for label in ("cold cache", "warm cache"):
                    # The cold run parses once; warm runs are the best of --repeat like the cases
                    # (the peak is the largest seen), so the two rates compare alike.
                    runs = [run_measured(a.platform, kl, env) for _ in range(1 if label == "cold cache" else (a.repeat or 3))]
                    s, wall, _ = max(runs, key=lambda r: r[0]["host"]["warp_instructions_per_second"])
                    peak = max(r[2] for r in runs)
                    h = s["host"]
                    print(f"{label:<15}{wall:>9.2f}{h['main_simulation_seconds']:>9.2f}"
                          f"{h['warp_instructions_per_second']:>15,.0f}{peak:>10.0f}")
                    cache = label.split()[0]
                    summary[f"{key}_{cache}_wall_s"] = round(wall, 2)
                    summary[f"{key}_{cache}_peak_mib"] = round(peak)
                    summary[f"{key}_{cache}_wips"] = round(h["warp_instructions_per_second"])
            if "compute_bound_wips" in summary:
                ratio = summary["compute_bound_wips"] / max(1, summary["large_trace_warm_wips"])
                fma = summary["compute_bound_wips"] / max(1, summary["fma_trace_warm_wips"])
                print(f"compute-bound synthetic / matrix-multiply trace (warm), warp instructions per second: {ratio:.2f}x "
                      f"(different work: the trace's random B loads make it memory-bound)")
                print(f"compute-bound synthetic / compute-bound trace (warm): {fma:.2f}x  "
                      f"{target_note(fma, 2.0, 'x', at_least=False)}")
                summary["synthetic_over_trace"] = round(ratio, 2)
                summary["synthetic_over_fma_trace"] = round(fma, 2)
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
