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
drained TBs); resource utilization during preemption (the share of the SM's registers held by
executing TBs of either kernel from the request until the last planned TB left, dual-kernel's
over Chimera's); the techniques chosen; violations of the idempotent (Y) and the other (N)
kernels apart. Two choices are not published (TB run time; where an N kernel's TBs execute
their first global overwrite): the config's `sensitivity` variants rerun the sweep with other
values and print their violation rates beside the configured ones.
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


def workload(exp, name, row, mhz, n_sm, sm, policy=None, drain=None, constraint=None, arrival_us=None,
             tb_us=None, n_first_overwrite=0.0):
    """One run's workload. An N kernel's TBs are idempotent for the first `n_first_overwrite` of
    their run (0: never flushable, the configured reading of Table 4.2's N)."""
    regs, shm, threads, idem = row
    cycles = (tb_us or exp["tb_us"]) * mhz
    task_cycles = exp["task_tb_us"] * mhz
    idempotent = True if idem == "Y" else (n_first_overwrite if n_first_overwrite > 0 else False)
    w = {"name": name, "policy": policy or "fcfs", "kernels": {
        "victim": {"grid": n_sm * tbs_per_sm(sm, regs, shm, threads) * 3, "threads_per_tb": threads,
                   "registers_per_tb": regs, "shared_mem_per_tb": shm, "idempotent": idempotent,
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


def variants(exp):
    """(name, tb_us, fraction of an N kernel's TB before its first overwrite, kernels rerun): the
    configured experiment first, then the sensitivity variants (an N-kernel variant reruns only
    the N kernels: the Y kernels' runs are the same)."""
    out = [("configured", exp["tb_us"], 0.0, None)]
    sens = exp.get("sensitivity", {})
    for f in sens.get("n_first_overwrite", []):
        out.append((f"N kernels flushable for the first {f:g} of each TB", exp["tb_us"], f, "N"))
    for t in sens.get("tb_us", []):
        out.append((f"victim TBs of {t:g} us", t, 0.0, None))
    return out


def aggregate(res, items):
    """Per (variant, mechanism, constraint): runs, violations (all, Y, N kernels), overhead and its
    flush reference, drain-estimate errors, register utilizations, techniques."""
    agg = {}
    for key, (v, k, idem, label, c, deadline) in items:
        s = res.stats(key)
        a = agg.setdefault((v, label, c), {"runs": 0, "violations": 0, "group": {"Y": [0, 0], "N": [0, 0]},
                                           "overhead": 0.0, "flush_ref": 0.0, "err": [], "util": [],
                                           "tech": {"switch": 0, "drain": 0, "flush": 0}})
        task = next(p for p in s["processes"] if p["name"] == "task")
        late = task["T_MP"] > deadline
        a["runs"] += 1
        a["violations"] += late
        a["group"][idem][0] += late
        a["group"][idem][1] += 1
        for p in s["scheduling"]["preemption_list"]:
            a["flush_ref"] += p.get("resident_instructions", 0)
            if p.get("register_utilization") is not None:
                a["util"].append(p["register_utilization"])
            for t in p["tbs"]:
                a["tech"][t["technique"]] += 1
                a["overhead"] += t.get("estimated_overhead", 0)
                if t["technique"] == "drain" and t.get("estimated_latency_ns") is not None and t["latency_ns"] > 0:
                    a["err"].append(abs(t["estimated_latency_ns"] - t["latency_ns"]) / t["latency_ns"])
    return agg


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
    vs = variants(exp)
    tb_times = sorted({t for _, t, _, _ in vs})
    # Stage 1: each victim alone at each TB time (its run length places the preemption points) and
    # the task alone.
    def iso_key(k, t):
        return f"iso/{k}" if t == exp["tb_us"] else f"iso_tb{t:g}/{k}"
    iso = [sweep.Run(iso_key(k, t), PLATFORM, workload(exp, k, row, mhz, n_sm, sm, tb_us=t), isolated="victim")
           for t in tb_times for k, row in kernels.items()]
    first = next(iter(kernels))
    iso.append(sweep.Run("iso/task", PLATFORM, workload(exp, "task", kernels[first], mhz, n_sm, sm), isolated="task"))
    res = sweep.execute(iso, args.out, args, name="shieh_ch4 (alone)")
    def alone(key, name):
        return next(p["T_SP"] for p in res.stats(key)["processes"] if p["name"] == name)
    t_task = alone("iso/task", "task")
    runs, meta = [], []  # meta: (run key, what it is); a reused run appears once per variant
    for v, (vname, tb_us, frac, only) in enumerate(vs):
        rng = random.Random(exp["seed"])  # the same uniform points in every variant
        prefix = "" if v == 0 else f"v{v}/"
        for k, row in kernels.items():
            t_victim = alone(iso_key(k, tb_us), "victim")
            draws = [rng.uniform(0, 1) for _ in range(points)]
            reuse = only is not None and row[3] != only  # a Y kernel in an N-kernel variant
            for i, u in enumerate(draws):
                arrival_us = u * t_victim / 1e3
                for label, policy, drain in MECHANISMS:
                    for c in exp["constraints_us"]:
                        base = f"{k}/p{i}/{label}/c{c}"
                        key = base if reuse else prefix + base
                        if not reuse:
                            w = workload(exp, key.replace("/", "-"), row, mhz, n_sm, sm, policy, drain, c, arrival_us,
                                         tb_us=tb_us, n_first_overwrite=frac)
                            runs.append(sweep.Run(key, PLATFORM, w, tsp={"victim": t_victim, "task": t_task}))
                        meta.append((key, (v, k, row[3], label, c, c * 1e3 + t_task)))
    res = sweep.execute(runs, args.out, args, name="shieh_ch4")
    agg = aggregate(res, meta)

    pub = exp["published"]
    cs = exp["constraints_us"]
    summary = {}
    def a0(label, c):
        return agg[(0, label, c)]
    print(f"\nSPEC 4 on gtx480: {len(kernels)} kernels x {points} preemption points; task alone {t_task / 1e3:.2f} us; "
          f"victim TBs {exp['tb_us']} us (cv {exp['tb_cv']}, not published); N kernels never flushed")
    print("\nDeadline violation rate (%), model vs published")
    print(f"{'constraint':>12}" + "".join(f"{label:>22}" for label, *_ in MECHANISMS))
    for c_i, c in enumerate(cs):
        row = f"{str(c) + ' us':>12}"
        for label, *_ in MECHANISMS:
            a = a0(label, c)
            v = 100.0 * a["violations"] / a["runs"]
            p = pub["violation_pct"].get(label)
            row += f"{v:>12.2f} ({'-' if p is None else p[c_i]:>6})"
            summary.setdefault(label, {}).setdefault("violation_pct", []).append(round(v, 2))
        print(row)
    print("  of which idempotent (Y) / other (N) kernels, % of their runs:")
    for c in cs:
        row = f"{str(c) + ' us':>12}"
        for label, *_ in MECHANISMS:
            g = a0(label, c)["group"]
            y = 100.0 * g["Y"][0] / max(1, g["Y"][1])
            n = 100.0 * g["N"][0] / max(1, g["N"][1])
            row += f"{y:>12.1f} / {n:<7.1f}"
            summary[label].setdefault("violation_pct_y_n", []).append([round(y, 1), round(n, 1)])
        print(row)
    print("\nThroughput overhead normalized to flushing (%), model vs published")
    for c_i, c in enumerate(cs):
        row = f"{str(c) + ' us':>12}"
        for label, *_ in MECHANISMS:
            a = a0(label, c)
            o = 100.0 * a["overhead"] / a["flush_ref"] if a["flush_ref"] else 0.0
            p = pub["overhead_vs_flush_pct"].get(label)
            row += f"{o:>12.1f} ({'-' if p is None else p[c_i]:>6})"
            summary[label].setdefault("overhead_vs_flush_pct", []).append(round(o, 1))
        print(row)
    print("\nResource utilization during preemption (mean share of the SM's registers held by executing TBs)")
    for label, *_ in MECHANISMS:
        us = [u for c in cs for u in a0(label, c)["util"]]
        summary[label]["register_utilization"] = round(sum(us) / len(us), 4) if us else None
        print(f"  {label:<12} {summary[label]['register_utilization']} over {len(us)} preemptions that took time")
    cu, du = summary["chimera"]["register_utilization"], summary["dual_kernel"]["register_utilization"]
    ratio = du / cu if cu and du is not None else None
    summary["utilization_dual_over_chimera"] = round(ratio, 2) if ratio is not None else None
    print(f"  dual-kernel / Chimera: {'-' if ratio is None else f'{ratio:.2f}x'} (published 2.93x)")
    print("\nDraining-estimate error (mean |estimate - actual| / actual over drained TBs) and techniques")
    for label, *_ in MECHANISMS:
        errs = [e for c in cs for e in a0(label, c)["err"]]
        tech = {t: sum(a0(label, c)["tech"][t] for c in cs) for t in ("switch", "drain", "flush")}
        mean = 100.0 * sum(errs) / len(errs) if errs else 0.0
        summary[label]["drain_estimate_error_pct"] = round(mean, 1)
        summary[label]["techniques"] = tech
        print(f"  {label:<12} error {mean:6.1f}% over {len(errs)} drained TBs; techniques {tech}")
    ce, de = summary["chimera"]["drain_estimate_error_pct"], summary["dual_kernel"]["drain_estimate_error_pct"]
    print(f"  dual-kernel's error vs Chimera's: {de - ce:+.1f} points (published: about 15.6% lower)")
    if len(vs) > 1:
        print("\nSensitivity to the unpublished choices: violation rate (%) at " + "/".join(f"{c}" for c in cs) + " us")
        sens = []
        for v, (vname, *_rest) in enumerate(vs):
            cells = []
            for label, *_ in MECHANISMS:
                vals = [100.0 * agg[(v, label, c)]["violations"] / agg[(v, label, c)]["runs"] for c in cs]
                cells.append(f"{label} " + "/".join(f"{x:.0f}" for x in vals))
                sens.append({"variant": vname, "mechanism": label, "violation_pct": [round(x, 2) for x in vals]})
            print(f"  {vname:<44} " + "   ".join(cells))
        print("  published: chimera " + "/".join(f"{x:g}" for x in pub["violation_pct"]["chimera"]) +
              "   dual_kernel " + "/".join(f"{x:g}" for x in pub["violation_pct"]["dual_kernel"]))
        summary["sensitivity"] = sens
    with open(os.path.join(args.out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(1, 2, figsize=(10, 4))
        colour = {label: f"C{i}" for i, (label, *_) in enumerate(MECHANISMS)}  # model and published alike
        for label, *_ in MECHANISMS:
            ax[0].plot(cs, summary[label]["violation_pct"], marker="o", color=colour[label], label=f"{label} (model)")
            ax[1].plot(cs, summary[label]["overhead_vs_flush_pct"], marker="o", color=colour[label], label=f"{label} (model)")
        for label, ys in pub["violation_pct"].items():
            ax[0].plot(cs, ys, ls="--", color=colour[label], label=f"{label} (published)")
        for label, ys in pub["overhead_vs_flush_pct"].items():
            ax[1].plot(cs, ys, ls="--", color=colour[label], label=f"{label} (published)")
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
