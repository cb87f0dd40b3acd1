#!/usr/bin/env python3
"""SPEC 5 experiment (Nasef, 2023): intra-SM sharing by TB partitioning. MIAS (with its four
decision models: IPC, IPM_L1 x IPC, Factor, Linear) against Warped-Slicer and spatial
multitasking (and Left-Over with --left-over) on the RTX 2060-like platform (30 SMs), two
kernels at a time. The setup and the reasoning behind every choice are in the config's header.

Benchmarks are the warp-level programs of configs/experiments/nasef_mias.yaml (bfs, fwt, blk
memory intensive; mm, nbdy, bopt, dxtc compute intensive). Each benchmark runs alone (policy
fcfs, the whole GPU) and every pair runs under each policy, both kernels launched at time 0, for
a fixed window of core cycles (workload key stop_at_cycles: the run stops then, finished or not;
no kernel may finish within it). Metric (SPEC 5): IPC = warp instructions / cycles over the
window; speedup = IPC(policy) / IPC(sequential), IPC(sequential) = the mean of the two kernels'
isolated IPCs. Prints the isolated IPC and stall breakdown of every kernel beside SPEC 5's
character, the speedup of every pair under every policy, means per policy and per pair class
(compute-compute, memory-memory, memory-compute) beside the published ones, says which
published trends do not reproduce, writes PNG plots and ends with one JSON line of key figures.
Every simulation is one run of a sweep (scripts/sweep): a re-invocation reruns only the runs
whose inputs changed (--redo: all); outputs go under out/nasef_mias/ (--out).
Usage: python3 scripts/nasef_mias.py [--quick] [--jobs N] [--out DIR] [--mpgpu BIN] ...
  --quick: the config's 4 quick pairs (bfs-mm and one more pair of each class) at its shorter
           window (200k cycles): 31 simulations, about 50 s on 2 cores;
  full:    all 21 pairs of the 7 benchmarks at the full window (500k cycles): 133 simulations,
           about 11 minutes on 2 cores;
  --left-over: also every pair under Left-Over (FCFS): +21 (+4) simulations, about +1.5 minutes;
  --jobs N: simulations at a time (default: the number of cores); see --help for the other
           sweep options.
"""
import os
import sys

import experiment_util

experiment_util.use_system_python("yaml", optional=("matplotlib",))

import argparse
import copy
import itertools
import json
import statistics
import time

import yaml  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sweep  # noqa: E402
from experiment_util import ROOT  # noqa: E402

CONFIG = os.path.join(ROOT, "configs", "experiments", "nasef_mias.yaml")
TIMEOUT_S = 900  # host seconds: a simulation still running then has livelocked
STALLS = ("raw_memory", "raw_compute", "idle_control", "memory_pipe", "compute_pipe")
CLASSES = ("compute-compute", "memory-memory", "memory-compute")
# Policy label -> (workload policy, MIAS decision model or None)
POLICIES = {
    "left_over": ("fcfs", None),
    "spatial": ("spatial", None),
    "warped_slicer": ("warped_slicer", None),
    "mias_ipc": ("mias", "ipc"),
    "mias_ipm_ipc": ("mias", "ipm_ipc"),
    "mias_factor": ("mias", "factor"),
    "mias_linear": ("mias", "linear"),
}
SHORT = {"left_over": "LeftOver", "spatial": "Spatial", "warped_slicer": "W-Slicer", "mias_ipc": "MIAS IPC",
         "mias_ipm_ipc": "MIAS IPMxIPC", "mias_factor": "MIAS Factor", "mias_linear": "MIAS Linear"}


def mean(xs):
    xs = [x for x in xs if x is not None]
    return statistics.mean(xs) if xs else float("nan")


def clean(x):
    """x with NaN replaced by None (strict JSON)."""
    if isinstance(x, float) and x != x:
        return None
    if isinstance(x, dict):
        return {k: clean(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [clean(v) for v in x]
    return x


def fmt(x, spec=".2f"):
    return "-" if x is None or x != x else format(x, spec)


def kernel_desc(exp, bench):
    k = copy.deepcopy(exp["benchmarks"][bench])
    for key in ("class", "expect"):
        k.pop(key, None)
    return k


def workload(exp, benches, label, window):
    """One process per kernel, all launched at time 0; the run stops at `window` core cycles."""
    policy, model = POLICIES[label]
    kernels, procs = {}, []
    for i, b in enumerate(benches):
        kname = f"k{i + 1}_{b}"
        kernels[kname] = kernel_desc(exp, b)
        procs.append({"name": f"K{i + 1}", "launches": [{"kernel": kname}]})
    w = {"name": "nasef-mias-" + "-".join(benches) + "-" + label, "seed": 1, "policy": policy,
         "stop_at_cycles": window}
    if policy == "spatial":
        w["preemption"] = exp["spatial_preemption"]  # SMs change hands when a kernel arrives or leaves
    if policy in ("warped_slicer", "mias"):
        w["sharing"] = {"window_cycles": exp["profiling_window_cycles"]}
        if model:
            w["sharing"]["model"] = model
    w["kernels"] = kernels
    w["processes"] = procs
    return w


def pair_class(cls, a, b):
    ca, cb = cls[a], cls[b]
    if ca == cb:
        return f"{ca}-{cb}"
    return "memory-compute"


def window_ipc(s):
    return s["warp_instructions"] / s["sim"]["cycles"]


def kernel_ipcs(s):
    c = s["sim"]["cycles"]
    return [k["warp_level"]["warp_instructions"] / c for k in s["kernels"]]


def run_problems(s, what, may_starve=False):
    """A run must stop at the window with every kernel still running (and, except under
    Left-Over, where the first kernel may fill every SM, every kernel issuing)."""
    p = []
    if s.get("status") != "stopped_at":
        p.append(f"{what}: status {s.get('status')!r}, not 'stopped_at' (the window was not reached?)")
    done = [k["name"] for k in s["kernels"] if k.get("completed")]
    if done:
        p.append(f"{what}: kernel(s) {', '.join(done)} finished inside the window (grid too small)")
    if not may_starve and any(k["warp_level"]["warp_instructions"] == 0 for k in s["kernels"]):
        idle = [k["name"] for k in s["kernels"] if k["warp_level"]["warp_instructions"] == 0]
        p.append(f"{what}: kernel(s) {', '.join(idle)} issued nothing in the window")
    return p


def stall_shares(w):
    st = w["stalls"]
    tot = sum(st.get(k, 0) for k in STALLS)
    return {k: (st.get(k, 0) / tot if tot else 0.0) for k in STALLS}


def character_check(bench, exp_b, iso, ipc_all, n_sm, schedulers):
    """(expected character text, measured text, ok) for SPEC 5's description of the benchmark."""
    s = iso
    w = s["kernels"][0]["warp_level"]
    sh = stall_shares(w)
    rule = exp_b.get("expect", {})
    kind = rule.get("check")
    ipc = window_ipc(s)
    issue = w["issue_cycles"] / (s["sim"]["cycles"] * n_sm * schedulers)
    if kind == "dominant":
        top = max(sh, key=sh.get)
        return rule["text"], f"largest stall: {top} {100 * sh[top]:.0f}%", top == rule["stall"]
    if kind == "large":
        f = sh[rule["stall"]]
        return rule["text"], f"{rule['stall']} {100 * f:.0f}% of stalls", f >= rule.get("min_share", 1 / 3)
    if kind == "highest_ipc":
        best = max(ipc_all, key=ipc_all.get)
        return rule["text"], f"IPC {ipc:.1f} ({'highest' if best == bench else 'not the highest: ' + best})", best == bench
    if kind == "compute_bound":
        dram = s["memory"]["dram_bandwidth_gbps"] / s["memory"]["dram_peak_gbps"]
        ok = issue >= rule.get("min_issue", 0.5) and dram <= rule.get("max_dram", 0.1)
        return rule["text"], f"issue {100 * issue:.0f}% of slots, DRAM {100 * dram:.0f}%", ok
    return rule.get("text", "-"), "-", True


def sharing_summary(s):
    """The TB mix(es) MIAS / Warped-Slicer chose (scheduling.sharing), or None when absent."""
    sh = (s.get("scheduling") or {}).get("sharing")
    if not isinstance(sh, dict):
        return None
    decisions = sh.get("decisions") or []
    phases = sh.get("phases") or []
    mhz = s["sim"].get("core_clock_mhz") or 1.0
    parts = []
    for d in decisions:
        mix = d.get("mix")
        what = "spatial" if d.get("spatial") else ("+".join(str(n) for n in mix) if isinstance(mix, list) and mix else str(mix))
        at = d.get("at_ns")
        parts.append(what + (f" @{at * mhz / 1e3 / 1e3:.0f}k" if isinstance(at, (int, float)) else ""))
    rounds = max((p.get("rounds") or 0 for p in phases if p.get("kind") == "profile"), default=0)
    prof_ns = sum((p.get("end_ns") if p.get("end_ns") is not None else s["sim"]["time_ns"]) - p.get("start_ns", 0)
                  for p in phases if p.get("kind") == "profile")
    return {"decisions": parts, "profile_rounds": rounds,
            "profile_share": prof_ns / s["sim"]["time_ns"] if s["sim"].get("time_ns") else None}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="a few pairs covering the classes, shorter window")
    ap.add_argument("--out", help="output directory (default: out/nasef_mias)")
    ap.add_argument("--left-over", action="store_true",
                    help="also run every pair under Left-Over (FCFS: the first kernel takes every SM it fills)")
    sweep.add_arguments(ap)
    args = ap.parse_args()
    if not args.out:
        args.out = os.path.join(ROOT, "out", "nasef_mias")
    run(args, time.time())


def run(args, t0):
    with open(CONFIG) as f:
        exp = yaml.safe_load(f)
    platform = os.path.join(ROOT, exp["platform"])
    with open(platform) as f:
        plat = yaml.safe_load(f)
    n_sm, schedulers = plat["sm"]["count"], plat["sm"]["warp_schedulers"]
    sets = dict(exp.get("sets") or {})
    mode = "quick" if args.quick else "full"
    window = exp["window_cycles"][mode]
    benches = list(exp["benchmarks"])
    cls = {b: exp["benchmarks"][b]["class"] for b in benches}
    labels = [p for p in exp["policies"] if p in POLICIES]
    if getattr(args, "left_over", False) and "left_over" not in labels:
        labels.insert(0, "left_over")
    unknown = [p for p in exp["policies"] if p not in POLICIES]
    if unknown:
        sys.exit(f"{CONFIG}: unknown policies {unknown} (known: {', '.join(POLICIES)})")
    pairs = exp["pairs"][mode]
    pairs = list(itertools.combinations(benches, 2)) if pairs == "all" else [tuple(p) for p in pairs]
    out = os.path.join(args.out, mode)
    os.makedirs(out, exist_ok=True)

    # 1. Every benchmark alone (FCFS, the whole GPU) over the window; 2. every pair under every policy.
    iso_key = {b: f"isolated/{b}" for b in benches}
    runs = [sweep.Run(key=iso_key[b], platform=platform, workload=workload(exp, [b], "left_over", window),
                      sets=sets, timeout_s=TIMEOUT_S) for b in benches]
    jobs = {}
    for a, b in pairs:
        for lab in labels:
            jobs[((a, b), lab)] = key = f"pairs/{a}__{b}/{lab}"
            runs.append(sweep.Run(key=key, platform=platform, workload=workload(exp, [a, b], lab, window),
                                  sets=sets, timeout_s=TIMEOUT_S))
    print(f"{len(benches)} isolated runs and {len(jobs)} pair runs ({len(pairs)} pairs x {len(labels)} policies), "
          f"window {window} cycles ...", file=sys.stderr)
    res = sweep.execute(runs, out, args, name=f"nasef_mias_{mode}", keep_failed=True)
    failed = dict(getattr(res, "failed", {}))
    problems = [f"run {k} failed: {why}" for k, why in sorted(failed.items())]

    iso = {b: res[iso_key[b]] for b in benches if iso_key[b] not in failed}
    for b, s in iso.items():
        problems += run_problems(s, f"{b} alone")
    ipc_alone = {b: window_ipc(s) for b, s in iso.items()}

    # 2. Speedups.
    speed = {}   # (pair, label) -> speedup
    kipc = {}    # (pair, label) -> [IPC of K1, IPC of K2] in the pair
    mixes = {}   # (pair, label) -> sharing summary
    for (p, lab), key in jobs.items():
        if key in failed or p[0] not in ipc_alone or p[1] not in ipc_alone:
            continue
        s = res[key]
        problems += run_problems(s, f"{p[0]}+{p[1]} {lab}", may_starve=lab == "left_over")
        seq = (ipc_alone[p[0]] + ipc_alone[p[1]]) / 2
        speed[(p, lab)] = window_ipc(s) / seq
        kipc[(p, lab)] = kernel_ipcs(s)
        if POLICIES[lab][0] in ("mias", "warped_slicer"):
            mixes[(p, lab)] = sharing_summary(s)

    pclass = {p: pair_class(cls, *p) for p in pairs}
    pub = exp["published"]

    def pol_mean(lab, ps=None):
        return mean([speed.get((p, lab)) for p in (ps if ps is not None else pairs)])

    # 3. Report.
    print(f"\nSPEC 5 (Nasef 2023) on {exp['platform']} ({n_sm} SMs; {', '.join(f'{k}={v}' for k, v in sets.items())}); "
          f"{mode} run: window {window} core cycles from the launch of both kernels, profiling window "
          f"{exp['profiling_window_cycles']} cycles")
    print(f"\nBenchmarks alone (FCFS, all SMs), IPC = warp instructions / cycle over the window; stall shares of the "
          f"scheduler cycles without an issue; issue = share of the {n_sm} x {schedulers} scheduler slots that issued")
    print(f"{'bench':<6}{'class':<8}{'IPC':>8}{'IPC/SM':>7}{'issue':>6}" + "".join(f"{k:>13}" for k in STALLS)
          + f"{'DRAM':>6}{'TBs/SM':>7}  SPEC 5 character -> measured")
    chars = {}
    for b in benches:
        if b not in iso:
            print(f"{b:<6}{cls[b]:<8}  (run failed)")
            continue
        s = iso[b]
        w = s["kernels"][0]["warp_level"]
        sh = stall_shares(w)
        text, meas, ok = character_check(b, exp["benchmarks"][b], s, ipc_alone, n_sm, schedulers)
        chars[b] = ok
        issue = w["issue_cycles"] / (s["sim"]["cycles"] * n_sm * schedulers)
        dram = s["memory"]["dram_bandwidth_gbps"] / s["memory"]["dram_peak_gbps"]
        peak = max(sm.get("peak_resident_tbs", 0) for sm in s["sms"])
        print(f"{b:<6}{cls[b]:<8}{ipc_alone[b]:>8.2f}{ipc_alone[b] / n_sm:>7.2f}{100 * issue:>5.0f}%"
              + "".join(f"{100 * sh[k]:>12.1f}%" for k in STALLS)
              + f"{100 * dram:>5.0f}%{peak:>7}  {text} -> {meas} {'✓' if ok else '✗'}")

    print("\nSpeedup over sequential (IPC of the pair / mean of the two isolated IPCs) per pair and policy")
    print(f"{'pair':<12}{'class':<16}" + "".join(f"{SHORT[lab]:>14}" for lab in labels))
    for p in pairs:
        print(f"{p[0] + '-' + p[1]:<12}{pclass[p]:<16}" + "".join(f"{fmt(speed.get((p, lab))):>14}" for lab in labels))
    print(f"{'mean':<28}" + "".join(f"{fmt(pol_mean(lab)):>14}" for lab in labels))

    print("\nPer-kernel IPC in the pair as a share of its isolated IPC (K1 / K2)")
    print(f"{'pair':<12}" + "".join(f"{SHORT[lab]:>14}" for lab in labels))
    for p in pairs:
        cells = []
        for lab in labels:
            k = kipc.get((p, lab))
            cells.append("-" if k is None else f"{k[0] / ipc_alone[p[0]]:.2f}/{k[1] / ipc_alone[p[1]]:.2f}")
        print(f"{p[0] + '-' + p[1]:<12}" + "".join(f"{c:>14}" for c in cells))

    share_labels = [lab for lab in labels if POLICIES[lab][0] in ("mias", "warped_slicer")]
    if share_labels:
        print("\nTB mix chosen (K1+K2 TBs per SM, or spatial; @ decision time in kcycles); profiling rounds and share "
              "of the window spent profiling")
        any_mix = False
        for p in pairs:
            cells = []
            for lab in share_labels:
                m = mixes.get((p, lab))
                if m is None:
                    cells.append(f"{SHORT[lab]}: -")
                    continue
                any_mix = True
                ds = ", ".join(m["decisions"]) or "no decision"
                cells.append(f"{SHORT[lab]}: {ds} ({m['profile_rounds']} rnd, {fmt(100 * m['profile_share'] if m['profile_share'] is not None else None, '.0f')}%)")
            print(f"  {p[0] + '-' + p[1]:<12}" + "; ".join(cells))
        if not any_mix:
            print("  (no scheduling.sharing in stats.json: this simulator build does not report the decisions)")

    # Means per policy, model vs published.
    pub_pol = pub["mean_speedup"]
    print("\nMean speedup per policy, model vs published (SPEC 5)")
    print(f"{'policy':<16}{'model':>8}{'published':>11}")
    for lab in labels:
        print(f"{SHORT[lab]:<16}{fmt(pol_mean(lab)):>8}{fmt(pub_pol.get(lab)):>11}")

    print("\nMean speedup per pair class (pairs in the class), model vs published")
    print(f"{'class':<22}" + "".join(f"{SHORT[lab]:>14}" for lab in labels) + "   published")
    for c in CLASSES:
        ps = [p for p in pairs if pclass[p] == c]
        print(f"{c + f' ({len(ps)})':<22}" + "".join(f"{fmt(pol_mean(lab, ps)):>14}" for lab in labels)
              + f"   {pub['class_mean_speedup'][c]}")
    mc = [p for p in pairs if pclass[p] == "memory-compute"]
    best_lab = exp["class_policy"]
    mc_max = max((speed[(p, best_lab)] for p in mc if (p, best_lab) in speed), default=float("nan"))
    print(f"memory-compute maximum under {SHORT[best_lab]}: {fmt(mc_max)} (published: up to {pub['memory_compute_max_speedup']})")

    # Trends.
    trends = []

    def trend(name, ok, detail, values=()):
        """ok: the published trend holds in the model; not evaluated when a value is missing."""
        missing = any(v is None or v != v for v in values)
        trends.append({"trend": name, "reproduced": None if missing else bool(ok), "model": detail})

    mias_labs = [lab for lab in labels if lab.startswith("mias_")]
    if "warped_slicer" in labels and mias_labs:
        ws = pol_mean("warped_slicer")
        trend("every MIAS model beats Warped-Slicer on average",
              all(pol_mean(lab) > ws for lab in mias_labs),
              ", ".join(f"{SHORT[lab]} {fmt(pol_mean(lab))}" for lab in mias_labs) + f" vs W-Slicer {fmt(ws)}",
              [ws] + [pol_mean(lab) for lab in mias_labs])
    if mias_labs:
        tie = 0.005  # means closer than this count as equal
        best = max(mias_labs, key=pol_mean)
        if "mias_ipm_ipc" in mias_labs:
            ipm = pol_mean("mias_ipm_ipc")
            tied = [SHORT[lab] for lab in mias_labs if lab != "mias_ipm_ipc" and abs(pol_mean(lab) - ipm) < tie]
            # A tie is not a win: the published ordering needs IPM x IPC ahead of the others.
            trend("IPM_L1 x IPC is the best MIAS model", ipm >= pol_mean(best) - tie and not tied,
                  f"best: {SHORT[best]} {fmt(pol_mean(best))}; IPMxIPC {fmt(ipm)}"
                  + (f" (tied with {', '.join(tied)})" if tied else ""), [pol_mean(lab) for lab in mias_labs])
        order = sorted(mias_labs, key=pol_mean, reverse=True)
        pub_order = sorted(mias_labs, key=lambda lab: pub_pol.get(lab, 0), reverse=True)
        strict = all(pol_mean(a) - pol_mean(b) >= tie for a, b in zip(pub_order, pub_order[1:]))
        trend("order of the MIAS models (" + " > ".join(SHORT[lab].replace("MIAS ", "") for lab in pub_order) + ")",
              strict, " >= ".join(f"{SHORT[lab]} {fmt(pol_mean(lab))}" for lab in order)
              + ("" if strict else " (not strictly in the published order; ties within 0.005 count as not ordered)"),
              [pol_mean(lab) for lab in mias_labs])
    for lab in labels:
        if lab in pub_pol:
            m = pol_mean(lab)
            trend(f"{SHORT[lab]} beats sequential on average (published {pub_pol[lab]})", m > 1.0, fmt(m), [m])
    cm = {c: pol_mean(best_lab, [p for p in pairs if pclass[p] == c]) for c in CLASSES}
    if all(c in cm for c in CLASSES):
        trend(f"memory-compute pairs gain most ({SHORT[best_lab]})",
              cm["memory-compute"] > max(cm["compute-compute"], cm["memory-memory"]),
              ", ".join(f"{c} {fmt(v)}" for c, v in cm.items()), list(cm.values()))
    if "spatial" in labels and mias_labs:
        trend("MIAS (IPMxIPC) beats spatial multitasking on average",
              pol_mean("mias_ipm_ipc") > pol_mean("spatial") if "mias_ipm_ipc" in labels else False,
              f"{fmt(pol_mean('mias_ipm_ipc'))} vs {fmt(pol_mean('spatial'))}",
              [pol_mean("mias_ipm_ipc") if "mias_ipm_ipc" in labels else None, pol_mean("spatial")])
    bm = tuple(pub["no_gain_pair"])
    if bm in pairs:
        sharing = [lab for lab in labels if POLICIES[lab][0] in ("mias", "warped_slicer")]
        vals = {lab: speed.get((bm, lab)) for lab in sharing}
        trend(f"{bm[0]}-{bm[1]}: no configuration beats sequential", all(v is not None and v <= 1.0 for v in vals.values()),
              ", ".join(f"{SHORT[lab]} {fmt(v)}" for lab, v in vals.items()), list(vals.values()))
    print("\nPublished trends:")
    for t in trends:
        verdict = {True: "reproduced    ", False: "NOT reproduced", None: "not evaluated "}[t["reproduced"]]
        print(f"  {verdict}  {t['trend']}: {t['model']}")
    bad_chars = [b for b, ok in chars.items() if not ok]
    if bad_chars:
        print(f"  Benchmark character not as SPEC 5 describes it: {', '.join(bad_chars)} (see the first table)")

    if problems:
        print(f"\nWARNING: {len(problems)} problems:")
        for p in problems[:30]:
            print("  " + p)
    else:
        print(f"\nChecks: every run stopped at the window with every kernel still running ({len(runs)} runs)")

    plots = plot(out, pairs, labels, speed, pol_mean, pub_pol, mode,
                 {c: pol_mean(best_lab, [p for p in pairs if pclass[p] == c]) for c in CLASSES},
                 pub["class_mean_speedup"], SHORT[best_lab])
    wall = time.time() - t0
    print(f"{len(runs)} simulations in {wall:.0f} s wall time ({args.jobs or os.cpu_count() or 1} jobs) with "
          f"{res.binary}; outputs: {out}" + (f"; plots: {', '.join(plots)}" if plots else ""))

    summary = {
        "mode": mode, "window_cycles": window, "pairs": len(pairs), "simulations": len(runs),
        "isolated_ipc": {b: round(v, 3) for b, v in ipc_alone.items()},
        "character_ok": chars,
        "mean_speedup": {lab: round(pol_mean(lab), 3) for lab in labels},
        "published_mean_speedup": {lab: pub_pol[lab] for lab in labels if lab in pub_pol},
        "class_mean_speedup": {c: round(v, 3) for c, v in cm.items()}, "class_policy": best_lab,
        "published_class_mean_speedup": pub["class_mean_speedup"],
        "trends_reproduced": sum(t["reproduced"] is True for t in trends),
        "trends_not_reproduced": sum(t["reproduced"] is False for t in trends), "trends": len(trends),
        "problems": len(problems), "wall_seconds": round(wall),
    }
    detail = {"summary": summary, "trends": trends, "problems": problems,
              "speedup": {f"{p[0]}-{p[1]}": {lab: speed.get((p, lab)) for lab in labels} for p in pairs},
              "kernel_ipc": {f"{p[0]}-{p[1]}": {lab: kipc.get((p, lab)) for lab in labels} for p in pairs},
              "mixes": {f"{p[0]}-{p[1]}": {lab: mixes.get((p, lab)) for lab in share_labels} for p in pairs}}
    with open(os.path.join(out, f"summary_{mode}.json"), "w") as f:
        json.dump(clean(detail), f, indent=1)
    print(json.dumps(clean(summary)))


def plot(out, pairs, labels, speed, pol_mean, pub_pol, mode, class_model, class_pub, class_label):
    plt = experiment_util.pyplot()
    if plt is None:
        return []
    files = []

    def save(fig, name):
        fig.tight_layout()
        files.append(os.path.join(out, name))
        fig.savefig(files[-1], dpi=120)
        plt.close(fig)

    def model_vs_published(names, model, published, model_label, colour, title, name, rotation=0):
        # Model and published bars side by side, the published one hatched in the same colour.
        fig, ax = plt.subplots(figsize=(7 if len(names) > 3 else 6, 4))
        xs = range(len(names))
        ax.bar([x - 0.2 for x in xs], model, 0.4, label=model_label, color=colour)
        ax.bar([x + 0.2 for x in xs], published, 0.4, label="published", color=colour, alpha=0.45, hatch="//")
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_xticks(list(xs))
        ax.set_xticklabels(names, rotation=rotation, ha="right" if rotation else "center")
        ax.set_ylabel("mean speedup over sequential")
        ax.set_title(title)
        ax.legend()
        save(fig, name)

    fig, ax = plt.subplots(figsize=(max(8, 0.9 * len(pairs) + 2), 4.5))
    width = 0.8 / max(1, len(labels))
    for i, lab in enumerate(labels):
        xs = [j + (i - (len(labels) - 1) / 2) * width for j in range(len(pairs))]
        ax.bar(xs, [speed.get((p, lab), 0) for p in pairs], width, label=SHORT[lab])
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks(range(len(pairs)))
    ax.set_xticklabels([f"{a}-{b}" for a, b in pairs], rotation=45, ha="right")
    ax.set_ylabel("speedup over sequential")
    ax.set_title(f"SPEC 5: speedup per pair ({mode} run)")
    ax.legend(fontsize=7, ncol=4)
    save(fig, "speedup_per_pair.png")

    model_vs_published([SHORT[lab] for lab in labels], [pol_mean(lab) for lab in labels],
                       [pub_pol.get(lab, 0) for lab in labels], "model", "tab:blue",
                       f"SPEC 5: mean speedup per policy, model vs published ({mode})", "mean_speedup_per_policy.png", 30)
    model_vs_published(CLASSES, [class_model.get(c, 0) for c in CLASSES], [class_pub.get(c, 0) for c in CLASSES],
                       f"model ({class_label})", "tab:red", f"SPEC 5: mean speedup per pair class ({mode})",
                       "mean_speedup_per_class.png")
    return files


if __name__ == "__main__":
    main()
