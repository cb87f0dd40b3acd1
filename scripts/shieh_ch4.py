#!/usr/bin/env python3
"""SPEC 4 experiment (Shieh, NTU 2016; Chimera, Park ASPLOS 2015): fine-grained preemption on
gtx480 with the 19 kernels of Table 4.2 (configs/experiments/shieh_ch4.yaml; its header gives
every modelling choice). For each victim kernel and each preemption point (uniform over the
victim's run alone), the synthetic high-priority task arrives; Chimera, dual-kernel and
dual-kernel with the oracle drain estimate preempt under 2/3/4/5 us constraints. Printed, model
vs published: deadline violation rate (the task ends later than arrival + constraint + its
own run time alone); throughput overhead normalized to flushing (the cost model's overhead of
the chosen techniques over the instructions the preempted SMs' TBs had executed, which
flushing them all would lose); the draining-estimate error (|estimated - actual| / actual over
drained TBs); the techniques chosen. Resource utilization during preemption is not measured.
Writes PNGs and summary.json under the output directory and ends with one JSON line.
Usage: python3 scripts/shieh_ch4.py [--quick] [--out DIR] [sweep options: --backend, --jobs N, ...]
"""
import os
import sys

import experiment_util

experiment_util.use_system_python("yaml", optional=("matplotlib",))

import argparse  # noqa: E402
import json  # noqa: E402
import random  # noqa: E402

import yaml  # noqa: E402

from experiment_util import ROOT  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sweep  # noqa: E402

CONFIG = os.path.join(ROOT, "configs", "experiments", "shieh_ch4.yaml")
PLATFORM = os.path.join(ROOT, "platforms", "gtx480.yaml")
MECHANISMS = [("chimera", "chimera", "predicted"), ("dual_kernel", "dual_kernel", "predicted"),
              ("oracle", "dual_kernel", "oracle")]


def platform_facts():
    with open(PLATFORM) as f:
        p = yaml.safe_load(f)
    sm = p["sm"]
    return p["clocks_mhz"]["core"], sm["count"], sm


def tbs_per_sm(sm, regs, shm, threads):
    n = min(sm["max_tbs"], sm["max_threads"] // threads, sm["registers"] // regs)
    if shm:
        n = min(n, max(sm["shared_mem_kb"]["configs"]) * 1024 // shm)
    return n


def workload(exp, name, row, mhz, n_sm, sm, policy=None, drain=None, constraint=None, arrival_us=None):
    regs, shm, threads, idem = row
    cycles = exp["tb_us"] * mhz
    task_cycles = exp["task_tb_us"] * mhz
    w = {"name": name, "policy": policy or "fcfs", "kernels": {
        "victim": {"grid": n_sm * tbs_per_sm(sm, regs, shm, threads) * 3, "threads_per_tb": threads,
                   "registers_per_tb": regs, "shared_mem_per_tb": shm, "idempotent": idem == "Y",
                   "instructions_per_tb": int(cycles / 4),
                   "tb_time": {"kind": "normal", "mean_cycles": cycles, "cv": exp["tb_cv"]}},
        "task": {"grid": exp["task_grid"], "threads_per_tb": 256, "registers_per_tb": 4096, "shared_mem_per_tb": 2048,
                 "tb_time": {"kind": "fixed", "mean_cycles": task_cycles}}},
        "processes": [{"name": "victim", "launches": [{"kernel": "victim"}]},
                      {"name": "task", "priority": 1, "arrival_us": arrival_us or 0, "launches": [{"kernel": "task"}]}]}
    if policy:
        w["latency_constraint_us"] = constraint
        w["drain_estimate"] = drain
    return w


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="4 preemption points per kernel instead of the config's")
    ap.add_argument("--out", default=os.path.join(ROOT, "out", "shieh_ch4"))
    sweep.add_arguments(ap)
    args = ap.parse_args()
    with open(CONFIG) as f:
        exp = yaml.safe_load(f)
    mhz, n_sm, sm = platform_facts()
    points = 4 if args.quick else exp["points"]
    kernels = exp["kernels"]
    # Stage 1: each victim alone (its run length places the preemption points) and the task alone.
    iso = [sweep.Run(f"iso/{k}", PLATFORM, workload(exp, k, row, mhz, n_sm, sm), isolated="victim")
           for k, row in kernels.items()]
    first = next(iter(kernels))
    iso.append(sweep.Run("iso/task", PLATFORM, workload(exp, "task", kernels[first], mhz, n_sm, sm), isolated="task"))
    res = sweep.execute(iso, args.out, args, name="shieh_ch4 (alone)")
    def alone(key, name):
        return next(p["T_SP"] for p in res.stats(key)["processes"] if p["name"] == name)
    t_task = alone("iso/task", "task")
    rng = random.Random(exp["seed"])
    runs, meta = [], {}
    for k, row in kernels.items():
        t_victim = alone(f"iso/{k}", "victim")
        for i in range(points):
            arrival_us = rng.uniform(0, 1) * t_victim / 1e3
            for label, policy, drain in MECHANISMS:
                for c in exp["constraints_us"]:
                    key = f"{k}/p{i}/{label}/c{c}"
                    w = workload(exp, key.replace("/", "-"), row, mhz, n_sm, sm, policy, drain, c, arrival_us)
                    runs.append(sweep.Run(key, PLATFORM, w, tsp={"victim": t_victim, "task": t_task}))
                    meta[key] = (k, label, c)
    res = sweep.execute(runs, args.out, args, name="shieh_ch4")

    agg = {}
    for key, (k, label, c) in meta.items():
        s = res.stats(key)
        a = agg.setdefault((label, c), {"runs": 0, "violations": 0, "overhead": 0.0, "flush_ref": 0.0,
                                        "err": [], "tech": {"switch": 0, "drain": 0, "flush": 0}})
        a["runs"] += 1
        task = next(p for p in s["processes"] if p["name"] == "task")
        a["violations"] += task["T_MP"] > c * 1e3 + t_task
        for p in s["scheduling"]["preemption_list"]:
            a["flush_ref"] += p.get("resident_instructions", 0)
            for t in p["tbs"]:
                a["tech"][t["technique"]] += 1
                a["overhead"] += t.get("estimated_overhead", 0)
                if t["technique"] == "drain" and t.get("estimated_latency_ns") is not None and t["latency_ns"] > 0:
                    a["err"].append(abs(t["estimated_latency_ns"] - t["latency_ns"]) / t["latency_ns"])
    pub = exp["published"]
    cs = exp["constraints_us"]
    summary = {}
    print(f"\nSPEC 4 on gtx480: {len(kernels)} kernels x {points} preemption points; task alone {t_task / 1e3:.2f} us; "
          f"victim TBs {exp['tb_us']} us (cv {exp['tb_cv']}, not published)")
    print("\nDeadline violation rate (%), model vs published")
    print(f"{'constraint':>12}" + "".join(f"{label:>22}" for label, *_ in MECHANISMS))
    for c_i, c in enumerate(cs):
        row = f"{str(c) + ' us':>12}"
        for label, *_ in MECHANISMS:
            a = agg[(label, c)]
            v = 100.0 * a["violations"] / a["runs"]
            p = pub["violation_pct"].get(label)
            row += f"{v:>12.2f} ({'-' if p is None else p[c_i]:>6})"
            summary.setdefault(label, {}).setdefault("violation_pct", []).append(round(v, 2))
        print(row)
    print("\nThroughput overhead normalized to flushing (%), model vs published")
    for c_i, c in enumerate(cs):
        row = f"{str(c) + ' us':>12}"
        for label, *_ in MECHANISMS:
            a = agg[(label, c)]
            o = 100.0 * a["overhead"] / a["flush_ref"] if a["flush_ref"] else 0.0
            p = pub["overhead_vs_flush_pct"].get(label)
            row += f"{o:>12.1f} ({'-' if p is None else p[c_i]:>6})"
            summary[label].setdefault("overhead_vs_flush_pct", []).append(round(o, 1))
        print(row)
    print("\nDraining-estimate error (mean |estimate - actual| / actual over drained TBs) and techniques")
    for label, *_ in MECHANISMS:
        errs = [e for c in cs for e in agg[(label, c)]["err"]]
        tech = {t: sum(agg[(label, c)]["tech"][t] for c in cs) for t in ("switch", "drain", "flush")}
        mean = 100.0 * sum(errs) / len(errs) if errs else 0.0
        summary[label]["drain_estimate_error_pct"] = round(mean, 1)
        summary[label]["techniques"] = tech
        print(f"  {label:<12} error {mean:6.1f}% over {len(errs)} drained TBs; techniques {tech}")
    ce, de = summary["chimera"]["drain_estimate_error_pct"], summary["dual_kernel"]["drain_estimate_error_pct"]
    print(f"  dual-kernel's error vs Chimera's: {de - ce:+.1f} points (published: about 15.6% lower)")
    print("  Resource utilization during preemption (published 2.93x Chimera's): not measured by this script.")
    with open(os.path.join(args.out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(1, 2, figsize=(10, 4))
        for label, *_ in MECHANISMS:
            ax[0].plot(cs, summary[label]["violation_pct"], marker="o", label=f"{label} (model)")
            ax[1].plot(cs, summary[label]["overhead_vs_flush_pct"], marker="o", label=f"{label} (model)")
        for label, ys in pub["violation_pct"].items():
            ax[0].plot(cs, ys, ls="--", label=f"{label} (published)")
        for label, ys in pub["overhead_vs_flush_pct"].items():
            ax[1].plot(cs, ys, ls="--", label=f"{label} (published)")
        ax[0].set(xlabel="latency constraint (us)", ylabel="deadline violations (%)")
        ax[1].set(xlabel="latency constraint (us)", ylabel="overhead vs flushing (%)")
        ax[0].legend(fontsize=7)
        ax[1].legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(os.path.join(args.out, "shieh_ch4.png"), dpi=110)
    except ImportError:
        print("matplotlib missing: no plot", file=sys.stderr)
    print(json.dumps({"experiment": "shieh_ch4", "points": points, **summary}))


if __name__ == "__main__":
    main()
