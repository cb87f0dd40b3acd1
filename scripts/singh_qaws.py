#!/usr/bin/env python3
"""SPEC 7 experiment (Singh, DATE 2022): QoS-aware warp scheduling (QAWS) against GTO and LRR.

Two processes share every SM of the TITAN V-like platform (80 SMs, or scaled with --sms): K1
(QAWS budget 1) launched first, K2 (budget 2, 4 or 8) right after; persistent threads put one
1024-thread TB of each kernel on every SM. Benchmarks are the warp-level programs of configs/experiments/singh_qaws.yaml. For
every pair the script runs GTO, LRR and QAWS (one run per K2 budget) through `build/mpgpu run`,
and reports K2's response time (end - launch) under QAWS against the better of GTO and LRR and
the pair's average execution time, model vs published. Each benchmark also runs alone (GTO) for
its isolated time. Outputs (workloads, stats.json, timelines, summary_<mode>.json) go under
out/singh_qaws/ (out/singh_qaws/smsN/ with --sms N). Ends with one JSON line of the key figures.
Every simulation is one run of a sweep (scripts/sweep): the isolated runs first, then the pair
runs, which take their T_SP from them; a re-invocation reruns only the runs whose inputs changed
(--redo: all), and --backend slurm runs them as Slurm job arrays.
Usage: python3 scripts/singh_qaws.py [--quick] [--jobs N] [--sms N] [--out DIR] [--backend local|slurm] ...
  --quick: the 9 homogeneous pairs and 8 heterogeneous pairs (94 simulations with the
           isolated runs; about 3 minutes on 2 cores at the default 80 SMs, 15 s at --sms 10);
  full:    the 9 homogeneous pairs and all 72 ordered heterogeneous pairs (414 simulations,
           about 12 minutes at 80 SMs, 1.5 minutes at --sms 10);
  --sms N: SM count (10, 20, 40 or 80, the default), L2 slices, DRAM channels and peak DRAM
           bandwidth scaled with it: the same memory system per SM; run time about linear in N.
  --jobs N: simulations at a time (default: the number of cores; each simulation is one
           single-threaded `mpgpu run --jobs 1`); see --help for the other sweep options.
"""
import os
import sys

import experiment_util

experiment_util.use_system_python("yaml")

import argparse
import collections
import copy
import json
import statistics
import time

import yaml  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sweep  # noqa: E402
from experiment_util import ROOT  # noqa: E402
CONFIG = os.path.join(ROOT, "configs", "experiments", "singh_qaws.yaml")
TIMEOUT_S = 900  # host seconds: a simulation still running has livelocked
TIMELINE = ("--timeline", "{out}/timeline.json")  # every run's timeline, for the placement check


def mean(xs):
    xs = [x for x in xs if x is not None]
    return statistics.mean(xs) if xs else float("nan")


def shift_global(node, offset):
    """Adds `offset` to the base of every global-memory address in a program (K2's own data)."""
    if isinstance(node, list):
        for x in node:
            shift_global(x, offset)
    elif isinstance(node, dict):
        if str(node.get("op", "")).endswith(".global") and "addr" in node:
            a = node["addr"]
            (a["random"] if "random" in a else a)["base"] += offset
        for k, v in node.items():
            if k != "addr":
                shift_global(v, offset)


def kernel_desc(exp, bench, n_sm, budget, offset):
    b = exp["benchmarks"][bench]
    prog = copy.deepcopy(b["program"])
    if offset:
        shift_global(prog, offset)
    return {"grid": n_sm, "threads_per_tb": exp["threads_per_tb"],
            "registers_per_thread": b["registers_per_thread"], "shared_mem_per_tb": b["shared_mem_per_tb"],
            "qos_budget": budget, "program": prog}


def workload(exp, benches, budgets, n_sm):
    """One process per kernel: K1 at time 0, K2 at k2_arrival_us (its data k2_address_offset away)."""
    kernels, procs = {}, []
    for i, (bench, budget) in enumerate(zip(benches, budgets)):
        kname = f"k{i + 1}_{bench}"
        kernels[kname] = kernel_desc(exp, bench, n_sm, budget, i * exp["k2_address_offset"])
        p = {"name": f"K{i + 1}", "launches": [{"kernel": kname}]}
        if i:
            p["arrival_us"] = exp["k2_arrival_us"]
        procs.append(p)
    # No max_sim_time_us: with it, stats.json's sim.cycles / time_ns become that limit (and the
    # DRAM bandwidth and SM utilization derived from them shrink accordingly); a host timeout
    # guards against livelock instead.
    return {"name": "singh-qaws-" + "-".join(benches), "seed": 1, "policy": "fcfs",
            "kernels": kernels, "processes": procs}


def checked(s, run_dir):
    """(stats, placement problems) of the run in run_dir."""
    with open(os.path.join(run_dir, "timeline.json")) as f:
        t = json.load(f)
    return s, placement_problems(s, t)


def placement_problems(s, tl):
    """Persistent-thread placement check: every SM held one TB of each launch at once."""
    problems = []
    events = tl["traceEvents"] if isinstance(tl, dict) else tl
    per_sm = collections.defaultdict(collections.Counter)
    for e in events:
        if e.get("ph") == "X" and e.get("cat") == "tb":
            per_sm[e["pid"] - 100][e["args"]["launch"]] += 1
    launches = len(s["kernels"])
    for sm in s["sms"]:
        c = per_sm.get(sm["id"], {})
        if sm["peak_resident_tbs"] != launches or sm["tbs"] != launches or any(c.get(k, 0) != 1 for k in range(launches)):
            problems.append(f"SM {sm['id']}: peak {sm['peak_resident_tbs']} TBs, by launch {dict(c)}")
    if not all(k["completed"] for k in s["kernels"]):
        problems.append("a kernel did not complete")
    return problems


def scaled_platform(platform, n_sm):
    """--set overrides for n_sm SMs with the L2 slices, DRAM channels and peak bandwidth scaled
    by the same factor: the memory system per SM stays that of the full platform."""
    with open(platform) as f:
        p = yaml.safe_load(f)
    full = p["sm"]["count"]
    slices, channels = p["l2"]["slices"] * n_sm / full, p["dram"]["channels"] * n_sm / full
    if n_sm < 1 or slices != int(slices) or channels != int(channels):
        sys.exit(f"--sms {n_sm}: {p['l2']['slices']} L2 slices and {p['dram']['channels']} DRAM channels for "
                 f"{full} SMs do not scale to whole numbers (try 10, 20, 40 or {full})")
    sets = {"sm.count": n_sm, "l2.slices": int(slices), "dram.channels": int(channels)}
    if "peak_gbps" in p["dram"]:
        sets["dram.peak_gbps"] = round(p["dram"]["peak_gbps"] * n_sm / full, 3)
    return sets


def response(s, i):
    k = s["kernels"][i]
    return k["end_ns"] - k["launch_ns"]


def pct(new, ref):
    return 100.0 * (new / ref - 1.0)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="all homogeneous pairs, 8 heterogeneous pairs")
    ap.add_argument("--sms", type=int, help="SM count (default: the config's `sms`, 80); memory scaled with it")
    ap.add_argument("--out", help="output directory (default: out/singh_qaws, out/singh_qaws/smsN with --sms N)")
    sweep.add_arguments(ap)
    args = ap.parse_args()
    if not args.out:
        args.out = os.path.join(ROOT, "out", "singh_qaws") + (f"/sms{args.sms}" if args.sms else "")
    run(args, time.time())


def run(args, t0):
    with open(CONFIG) as f:
        exp = yaml.safe_load(f)
    platform = os.path.join(ROOT, exp["platform"])
    n_sm = args.sms or exp["sms"]
    sets = scaled_platform(platform, n_sm)
    with open(platform) as f:
        full_sms = yaml.safe_load(f)["sm"]["count"]
    sets.update(exp.get("sets") or {})
    benches = list(exp["benchmarks"])
    cls = {b: exp["benchmarks"][b]["class"] for b in benches}
    k2_budgets = exp["k2_budgets"]
    k1_budget = exp["k1_budget"]
    mode = "quick" if args.quick else "full"
    het = exp["heterogeneous"][mode]
    if het == "all_ordered":
        het = [[a, b] for a in benches for b in benches if a != b]
    homo = [[b, b] for b in benches]
    pairs = [tuple(p) for p in homo + het]
    os.makedirs(args.out, exist_ok=True)

    # 1. Every benchmark alone (GTO; a single kernel is one QAWS group, i.e. GTO too): an isolated
    # run, whose T_SP (end - start of its one run of one launch from time 0) is the benchmark's
    # response time alone.
    iso_sets = dict(sets, **{"sm.warp_scheduler": "gto"})
    iso_key = {b: f"isolated/{b}" for b in benches}
    runs = [sweep.Run(key=iso_key[b], platform=platform, workload=workload(exp, [b], [k1_budget], n_sm),
                      sets=iso_sets, isolated="K1", args=TIMELINE, timeout_s=TIMEOUT_S) for b in benches]

    # 2. Every pair under GTO, LRR and QAWS with each K2 budget; T_SP of K1 and K2 from their
    # benchmarks' isolated runs (the sweep runs those first).
    labels = [("gto", "gto", 1), ("lrr", "lrr", 1)] + [(f"qaws{b}", "qaws", b) for b in k2_budgets]
    jobs = {}  # (pair, label) -> key of the run
    for a, b in pairs:
        for lab, sched, b2 in labels:
            jobs[((a, b), lab)] = key = f"pairs/{a}__{b}/{lab}"
            runs.append(sweep.Run(key=key, platform=platform, workload=workload(exp, [a, b], [k1_budget, b2], n_sm),
                                  sets=dict(sets, **{"sm.warp_scheduler": sched}),
                                  tsp_from={"K1": iso_key[a], "K2": iso_key[b]}, args=TIMELINE, timeout_s=TIMEOUT_S))
    print(f"{len(benches)} isolated runs, then {len(jobs)} pair runs ({len(pairs)} pairs x {len(labels)} "
          f"schedulers) ...", file=sys.stderr)
    stats = sweep.execute(runs, args.out, args, name="singh_qaws")
    bin_desc = stats.binary
    iso = {b: checked(stats[k], os.path.join(args.out, k)) for b, k in iso_key.items()}
    alone = {b: response(s, 0) for b, (s, _) in iso.items()}
    res = {job: checked(stats[k], os.path.join(args.out, k)) for job, k in jobs.items()}
    problems = [f"isolated {b}: {p}" for b, (_, ps) in iso.items() for p in ps]
    problems += [f"{a}+{b} {lab}: {p}" for ((a, b), lab), (_, ps) in res.items() for p in ps]

    # 3. Figures of merit.
    def r(pair, lab, i):
        return response(res[(pair, lab)][0], i)

    rows = {}
    for p in pairs:
        gto2, lrr2 = r(p, "gto", 1), r(p, "lrr", 1)
        best2 = min(gto2, lrr2)
        avg = {lab: (r(p, lab, 0) + r(p, lab, 1)) / 2 for lab, _, _ in labels}
        row = {"k2_gto": gto2, "k2_lrr": lrr2, "k1_gto": r(p, "gto", 0), "k1_lrr": r(p, "lrr", 0),
               "avg_gto": avg["gto"], "avg_lrr": avg["lrr"], "budgets": {}}
        for b2 in k2_budgets:
            lab = f"qaws{b2}"
            row["budgets"][b2] = {
                "k2": r(p, lab, 1), "k1": r(p, lab, 0), "avg": avg[lab],
                "k2_vs_best": pct(r(p, lab, 1), best2), "k2_vs_gto": pct(r(p, lab, 1), gto2),
                "k2_vs_lrr": pct(r(p, lab, 1), lrr2),
                "avg_vs_gto": pct(avg[lab], avg["gto"]), "avg_vs_lrr": pct(avg[lab], avg["lrr"])}
        rows[p] = row

    def agg(ps, key, b2=None):
        bs = [b2] if b2 is not None else k2_budgets
        return mean([rows[p]["budgets"][b][key] for p in ps for b in bs])

    homo_p = [p for p in pairs if p[0] == p[1]]
    het_p = [p for p in pairs if p[0] != p[1]]
    pub = exp["published"]

    # 4. Report.
    us = 1e-3
    scale = ("unscaled" if n_sm == full_sms else f"scaled from {full_sms} SMs: L2 slices, DRAM channels and "
             f"bandwidth scaled with the SM count, same L2 and DRAM per SM")
    print(f"\nSPEC 7 (Singh, DATE 2022) on {exp['platform']} with {n_sm} SMs ({scale}; "
          f"{', '.join(f'{k}={v}' for k, v in sets.items())}); {mode} run")
    print(f"K1 budget {k1_budget} launched at 0, K2 budget {k2_budgets} at {exp['k2_arrival_us']} us; "
          f"persistent threads: 1 TB ({exp['threads_per_tb']} threads) of each kernel per SM\n")
    print("Benchmarks alone (GTO, all SMs): time, IPC per SM, L1 hit rate, DRAM bandwidth utilization, main stall")
    print(f"{'benchmark':<12}{'class':<9}{'time us':>9}{'cycles':>8}{'IPC/SM':>8}{'L1 hit':>8}{'DRAM %':>8}  main stall")
    for b in benches:
        s = iso[b][0]
        w = s["kernels"][0]["warp_level"]
        st = w["stalls"]
        main_stall = max(st, key=st.get) if any(st.values()) else "-"
        m = s["memory"]
        print(f"{b:<12}{cls[b]:<9}{alone[b] * us:>9.2f}{s['sim']['cycles']:>8}{w['ipc'] / n_sm:>8.2f}"
              f"{w['l1']['hit_rate']:>8.2f}{100 * m['dram_bandwidth_gbps'] / m['dram_peak_gbps']:>8.1f}  {main_stall}")

    print("\nPer pair: response times in us (end - launch); QAWS K2 change vs min(GTO, LRR), avg = (K1 + K2) / 2")
    hdr = (f"{'K1 + K2':<24}{'K2 gto':>8}{'K2 lrr':>8}" + "".join(f"{f'K2 q{b}':>8}" for b in k2_budgets)
           + "".join(f"{f'dK2 q{b}':>9}" for b in k2_budgets) + f"{'K1 gto':>8}{'K1 lrr':>8}"
           + "".join(f"{f'K1 q{b}':>8}" for b in k2_budgets)
           + f"{'avg gto':>8}{'avg lrr':>8}" + "".join(f"{f'avg q{b}':>8}" for b in k2_budgets))
    for title, ps in (("homogeneous", homo_p), ("heterogeneous", het_p)):
        print(f"-- {title}")
        print(hdr)
        for p in ps:
            row = rows[p]
            bud = row["budgets"]
            print(f"{p[0] + ' + ' + p[1]:<24}{row['k2_gto'] * us:>8.2f}{row['k2_lrr'] * us:>8.2f}"
                  + "".join(f"{bud[b]['k2'] * us:>8.2f}" for b in k2_budgets)
                  + "".join(f"{bud[b]['k2_vs_best']:>+8.1f}%" for b in k2_budgets)
                  + f"{row['k1_gto'] * us:>8.2f}{row['k1_lrr'] * us:>8.2f}"
                  + "".join(f"{bud[b]['k1'] * us:>8.2f}" for b in k2_budgets)
                  + f"{row['avg_gto'] * us:>8.2f}{row['avg_lrr'] * us:>8.2f}"
                  + "".join(f"{bud[b]['avg'] * us:>8.2f}" for b in k2_budgets))

    def line(name, ps, key):
        return f"{name:<38}" + "".join(f"{agg(ps, key, b):>+9.1f}%" for b in k2_budgets) + f"{agg(ps, key):>+9.1f}%"

    print(f"\nModel vs published ({len(homo_p)} homogeneous, {len(het_p)} heterogeneous pairs; "
          f"change under QAWS, mean over pairs)")
    print(f"{'':<38}" + "".join(f"{f'K2 b={b}':>10}" for b in k2_budgets) + f"{'all b':>10}   published")
    print(line("K2 response vs best(GTO,LRR), homog.", homo_p, "k2_vs_best") +
          f"   {pub['k2_response_change_homogeneous_pct']:+d}%")
    print(line("K2 response vs best(GTO,LRR), heterog.", het_p, "k2_vs_best") +
          f"   {pub['k2_response_change_heterogeneous_pct']:+d}%")
    for c in ("compute", "memory"):
        ps = [p for p in het_p if cls[p[1]] == c]
        if ps:
            print(line(f"  heterog. with K2 {c} intensive ({len(ps)})", ps, "k2_vs_best") + "   -")
    print(line("K2 response vs GTO, all pairs", pairs, "k2_vs_gto") + "   -")
    print(line("K2 response vs LRR, all pairs", pairs, "k2_vs_lrr") + "   -")
    print(line("avg execution time vs GTO, all pairs", pairs, "avg_vs_gto") + "   close to GTO (~0%)")
    print(line("avg execution time vs LRR, all pairs", pairs, "avg_vs_lrr") + "   better than LRR (<0%)")
    lb = pub["latency_bound_gain_little"]
    lb_p = [p for p in homo_p if p[0] in lb]
    other_p = [p for p in homo_p if p[0] not in lb]
    print(line(f"K2 vs best, homog. {'+'.join(lb)}", lb_p, "k2_vs_best") + "   small gain")
    print(line("K2 vs best, homog. others", other_p, "k2_vs_best") + "   larger gain")
    # GTO's priority inversion: K2 under GTO slower than under LRR?
    inv = sum(1 for p in pairs if rows[p]["k2_gto"] > rows[p]["k2_lrr"])
    print(f"\nGTO favours K1 (K2 slower under GTO than LRR) in {inv} of {len(pairs)} pairs; "
          f"best of GTO/LRR for K2: GTO in {sum(1 for p in pairs if rows[p]['k2_gto'] <= rows[p]['k2_lrr'])}, "
          f"LRR in {sum(1 for p in pairs if rows[p]['k2_gto'] > rows[p]['k2_lrr'])}")

    def verdict(model, published):
        # within 35% of the published change (at least 3 points): reproduced
        if abs(model - published) <= max(3.0, 0.35 * abs(published)):
            return "reproduced"
        if model * published > 0:
            return "same direction, " + ("weaker" if abs(model) < abs(published) else "stronger")
        return "NOT reproduced"

    hm, ht = agg(homo_p, "k2_vs_best"), agg(het_p, "k2_vs_best")
    ag, al = agg(pairs, "avg_vs_gto"), agg(pairs, "avg_vs_lrr")
    lbm, otm = agg(lb_p, "k2_vs_best"), agg(other_p, "k2_vs_best")
    print("\nSummary (model, mean over budgets, vs published):")
    print(f"  homogeneous K2 response  {hm:+6.1f}%  vs {pub['k2_response_change_homogeneous_pct']:+d}%   "
          f"{verdict(hm, pub['k2_response_change_homogeneous_pct'])}")
    print(f"  heterogeneous K2 response {ht:+6.1f}%  vs {pub['k2_response_change_heterogeneous_pct']:+d}%   "
          f"{verdict(ht, pub['k2_response_change_heterogeneous_pct'])}")
    print(f"  avg execution time vs GTO {ag:+6.1f}%  (published: close to GTO)   "
          f"{'reproduced' if abs(ag) <= 5 else 'NOT reproduced'}")
    print(f"  avg execution time vs LRR {al:+6.1f}%  (published: better than LRR)   "
          f"{'reproduced' if al < -1 else 'about equal to LRR (within 1%)' if al <= 1 else 'NOT reproduced'}")
    print(f"  latency bound ({', '.join(lb)}) {lbm:+6.1f}% vs others {otm:+6.1f}%  (published: gain little)   "
          f"{'reproduced' if lbm > otm else 'NOT reproduced'}")
    if problems:
        print(f"\nWARNING: {len(problems)} placement/completion problems (persistent threads not one TB of each kernel per SM):")
        for p in problems[:20]:
            print("  " + p)
    else:
        print(f"\nPlacement check: every SM held one TB of K1 and one of K2 in all {len(jobs)} pair runs")
    wall = time.time() - t0
    jobs_desc = f"{args.jobs or os.cpu_count() or 1} jobs" if args.backend == "local" else f"{args.backend} backend"
    print(f"{len(jobs) + len(benches)} simulations in {wall:.0f} s wall time ({jobs_desc}) with {bin_desc}; "
          f"outputs: {args.out}")

    summary = {
        "mode": mode, "sm_count": n_sm, "pairs": {"homogeneous": len(homo_p), "heterogeneous": len(het_p)},
        "k2_response_vs_best_pct": {
            "homogeneous": {**{str(b): round(agg(homo_p, "k2_vs_best", b), 1) for b in k2_budgets}, "mean": round(hm, 1)},
            "heterogeneous": {**{str(b): round(agg(het_p, "k2_vs_best", b), 1) for b in k2_budgets}, "mean": round(ht, 1)}},
        "published_k2_response_pct": {"homogeneous": pub["k2_response_change_homogeneous_pct"],
                                      "heterogeneous": pub["k2_response_change_heterogeneous_pct"]},
        "avg_exec_vs_gto_pct": round(ag, 1), "avg_exec_vs_lrr_pct": round(al, 1),
        "latency_bound_k2_vs_best_pct": round(lbm, 1), "others_k2_vs_best_pct": round(otm, 1),
        "placement_problems": len(problems), "simulations": len(jobs) + len(benches), "wall_seconds": round(wall),
        "binary": bin_desc,
    }
    detail = {"summary": summary, "isolated_ns": alone,
              "pairs": {f"{a}+{b}": rows[(a, b)] for a, b in pairs}, "problems": problems}
    with open(os.path.join(args.out, f"summary_{mode}.json"), "w") as f:
        json.dump(detail, f, indent=1)
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
