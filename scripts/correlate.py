#!/usr/bin/env python3
"""Correlation of the warp-level model with the reference trace-driven simulator.

Runs every Accel-Sim trace under the correlation folder (default ../shared/correlation/traces,
or --traces DIR) on the GTX 1080 configuration the reference used (platforms/gtx1080_accelsim.yaml)
and prints, per trace, the model's kernel cycles (kernels[].warp_level.cycles: first TB start to
last TB end, what the reference's gpu_sim_cycle counts), the reference's, their ratio and the
absolute error, and whether the thread instructions equal the reference's gpu_sim_insn exactly.
Ends with the mean absolute error and one JSON line. Exit status 1 when a trace's thread
instructions differ from the reference's (a front-end bug), or when --max-error is given and a
trace is outside it.
Usage: python3 scripts/correlate.py [--traces DIR] [--platform FILE] [--jobs N] [--max-error 0.2]
"""
import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from experiment_util import MPGPU, ROOT, snapshot_binary  # noqa: E402

SHARED = os.path.join(os.path.dirname(ROOT), "shared", "correlation")


def read_reference(folder):
    """accelsim_gtx1080.tsv: trace, what it isolates, gpu_sim_cycle, gpu_sim_insn."""
    ref = {}
    with open(os.path.join(folder, "accelsim_gtx1080.tsv")) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            name, what, cycles, insn = line.rstrip("\n").split("\t")
            ref[name] = (what, int(cycles), int(insn))
    return ref


def run_trace(binary, platform, kernelslist, overrides):
    with tempfile.TemporaryDirectory() as out:
        cmd = [binary, "run", "--platform", platform, "--trace", kernelslist, "--jobs", "1", "--out", out]
        for o in overrides:
            cmd += ["--set", o]
        res = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, CI="true"))
        if res.returncode != 0:
            return None, f"exit {res.returncode}: {res.stderr.strip()[-400:]}"
        with open(os.path.join(out, "stats.json")) as f:
            s = json.load(f)
    wl = [k["warp_level"] for k in s["kernels"] if "warp_level" in k]
    return {"cycles": sum(k["cycles"] for k in wl),
            "thread_instructions": sum(k["thread_instructions"] for k in wl)}, None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--traces", default=os.path.join(SHARED, "traces"))
    ap.add_argument("--reference", default=None, help="folder of accelsim_gtx1080.tsv (default: the traces' parent)")
    ap.add_argument("--platform", default=os.path.join(ROOT, "platforms", "gtx1080_accelsim.yaml"))
    ap.add_argument("--set", action="append", default=[], help="platform override, as mpgpu run --set")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--max-error", type=float, default=None, help="exit 1 when a trace's |ratio-1| exceeds this")
    a = ap.parse_args()
    if not os.path.exists(MPGPU):
        sys.exit(f"{MPGPU} not found: build first (bash scripts/test.sh)")
    if not os.path.isdir(a.traces):
        sys.exit(f"{a.traces}: no such folder of traces")
    ref = read_reference(a.reference or os.path.dirname(os.path.abspath(a.traces)))
    names = sorted(n for n in os.listdir(a.traces) if os.path.exists(os.path.join(a.traces, n, "kernelslist.g")))
    missing = [n for n in names if n not in ref]
    if missing:
        sys.exit(f"no reference figures for: {', '.join(missing)}")
    with tempfile.TemporaryDirectory() as tmp:
        binary, _ = snapshot_binary(tmp)
        with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
            futures = {n: pool.submit(run_trace, binary, a.platform, os.path.join(a.traces, n, "kernelslist.g"), a.set)
                       for n in names}
            results = {n: f.result() for n, f in futures.items()}
    print(f"{'trace':<14}{'model':>9}{'reference':>11}{'ratio':>8}{'|error|':>9}  {'insn':<6}what it isolates")
    errors, bad_insn, failed, outside = [], [], [], []
    for n in names:
        what, ref_cycles, ref_insn = ref[n]
        r, err = results[n]
        if r is None:
            failed.append(n)
            print(f"{n:<14}{'failed':>9}{ref_cycles:>11}  {err}")
            continue
        ratio = r["cycles"] / ref_cycles
        e = abs(ratio - 1)
        errors.append(e)
        insn_ok = r["thread_instructions"] == ref_insn
        if not insn_ok:
            bad_insn.append(n)
        if a.max_error is not None and e > a.max_error:
            outside.append(n)
        flag = "ok" if insn_ok else f"{r['thread_instructions']}!"
        print(f"{n:<14}{r['cycles']:>9.0f}{ref_cycles:>11}{ratio:>8.2f}{e:>8.1%}  {flag:<6}{what}")
    mae = sum(errors) / len(errors) if errors else float("nan")
    within = sum(e <= 0.2 for e in errors)
    print(f"mean absolute error {mae:.1%} over {len(errors)} traces; {within} within 20%")
    print(json.dumps({"mean_abs_error": round(mae, 4), "traces": len(errors), "within_20pct": within,
                      "insn_mismatch": bad_insn, "failed": failed,
                      "ratios": {n: round(results[n][0]["cycles"] / ref[n][1], 3) for n in names if results[n][0]}}))
    sys.exit(1 if bad_insn or failed or outside else 0)


if __name__ == "__main__":
    main()
