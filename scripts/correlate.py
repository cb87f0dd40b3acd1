#!/usr/bin/env python3
"""Correlation of the warp-level model with the reference trace-driven simulator.

Runs every Accel-Sim trace under the correlation folder (default ../shared/correlation/traces,
or --traces DIR) on the GTX 1080 configuration the reference used (platforms/gtx1080_accelsim.yaml)
and prints, per trace, the model's kernel cycles (kernels[].warp_level.cycles: first TB start to
last TB end, what the reference's gpu_sim_cycle counts), the reference's, their ratio and the
absolute error, and whether the thread instructions equal the reference's gpu_sim_insn exactly.
Ends with the mean absolute error and one JSON line. Exit status 1 when a trace's thread
instructions differ from the reference's (a front-end bug), or when --max-error is given and a
trace is outside it. Every trace is one run of a sweep (scripts/sweep): its stats.json and
mpgpu's log stay in OUT/<trace>/ (--out, default out/correlate), and a re-invocation reruns only
what changed.
Usage: python3 scripts/correlate.py [--traces DIR] [--platform FILE] [--out DIR] [--max-error 0.2]
                                    [--jobs N] [--backend local|slurm] [--redo] ...
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import experiment_util  # noqa: E402

experiment_util.use_system_python("yaml")  # the sweep runner writes YAML

import sweep  # noqa: E402
from experiment_util import ROOT  # noqa: E402

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


def log_tail(path, n=400):
    try:
        with open(path, errors="replace") as f:
            return f.read().strip()[-n:]
    except OSError:
        return ""


def trace_result(out_dir, name, res):
    """(figures, None) of a trace's run, or (None, why) when it failed."""
    if name in res.failed:
        o = res.outcome(name)
        why = f"exit {o['exit']}" if o else "no outcome"
        return None, f"{why}: {log_tail(os.path.join(out_dir, name, 'run.log'))}"
    s = res[name]
    wl = [k["warp_level"] for k in s["kernels"] if "warp_level" in k]
    return {"cycles": sum(k["cycles"] for k in wl),
            "thread_instructions": sum(k["thread_instructions"] for k in wl)}, None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--traces", default=os.path.join(SHARED, "traces"))
    ap.add_argument("--reference", default=None, help="folder of accelsim_gtx1080.tsv (default: the traces' parent)")
    ap.add_argument("--platform", default=os.path.join(ROOT, "platforms", "gtx1080_accelsim.yaml"))
    ap.add_argument("--set", action="append", default=[], help="platform override, as mpgpu run --set")
    ap.add_argument("--max-error", type=float, default=None, help="exit 1 when a trace's |ratio-1| exceeds this")
    ap.add_argument("--out", default=os.path.join(ROOT, "out", "correlate"),
                    help="the runs' directories, one per trace (default: out/correlate)")
    sweep.add_arguments(ap)
    a = ap.parse_args()
    if not os.path.isdir(a.traces):
        sys.exit(f"{a.traces}: no such folder of traces")
    ref = read_reference(a.reference or os.path.dirname(os.path.abspath(a.traces)))
    names = sorted(n for n in os.listdir(a.traces) if os.path.exists(os.path.join(a.traces, n, "kernelslist.g")))
    missing = [n for n in names if n not in ref]
    if missing:
        sys.exit(f"no reference figures for: {', '.join(missing)}")
    sets = {}
    for o in a.set:
        k, eq, v = o.partition("=")
        if not eq:
            ap.error(f"--set {o}: expected KEY=VALUE")
        sets[k] = v
    platform = os.path.abspath(a.platform)
    runs = [sweep.Run(key=n, platform=platform, trace=os.path.abspath(os.path.join(a.traces, n, "kernelslist.g")),
                      sets=sets) for n in names]
    # A failed trace is reported in the table (and the exit status is 1), not the end of the run.
    res = sweep.execute(runs, a.out, a, name="correlate", keep_failed=True)
    results = {n: trace_result(a.out, n, res) for n in names}
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
