#!/usr/bin/env python3
"""SPEC 6 experiment (Jain, RTAS 2019): isolation by compute partitioning (CP), CP plus page
colouring (CMP) and an MPS-style thread limit, on gtx1080 and titanv.

For every platform and scheme of configs/experiments/jain_isolation.yaml (see its header for
every modelling choice): application A runs in partition P1 with P2 idle (T_A,-) and with P2
running each B; variation(A) = max over B of |T_A,B - T_A,-| / T_A,-; the average and max over
the A's are printed beside the published figures. Also printed: per scheme, the bandwidth A's
partition achieved alone and the cross-partition L2 evictions and DRAM row conflicts (0 under
CMP), and the coloured partition's bandwidth against A alone on the whole GPU (the trade-off:
colouring halves the modules a partition has). Writes PNGs (runtimes normalized to
2 x T_baseline) and summary.json under out/jain_isolation/, and ends with one JSON line.
The runs go through the sweep runner (scripts/sweep): one directory each under --out, and a
re-invocation skips the runs already done for the same inputs.
Usage: python3 scripts/jain_isolation.py [--quick] [--out DIR] [sweep options: --backend, --jobs N, ...]
  --quick: gtx1080 only (CP and CMP: 27 simulations);
  full:    gtx1080 and titanv (MPS, CP, CMP).
"""
import os
import sys

import experiment_util

experiment_util.use_system_python("yaml", optional=("matplotlib",))

import argparse
import copy
import json
import time

import yaml  # noqa: E402

from experiment_util import ROOT  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sweep  # noqa: E402

CONFIG = os.path.join(ROOT, "configs", "experiments", "jain_isolation.yaml")
TIMEOUT_S = 900


def sm_count(platform_file):
    with open(os.path.join(ROOT, platform_file)) as f:
        return yaml.safe_load(f)["sm"]["count"]


def kernel(exp, app, sms):
    k = copy.deepcopy(exp["apps"][app])
    k["grid"] = exp["tbs_per_sm"] * sms
    return k


def workload(exp, scheme, a, b, n_sm):
    """A in P1 (and B in P2), or A alone on the whole GPU (scheme None). Every application's grid
    is a half GPU's worth (tbs_per_sm x SMs / 2), in every scheme and alone, so T_A compares."""
    half = n_sm // 2
    w = {"name": f"{scheme or 'alone'}-{a}-{b or 'idle'}", "policy": "fcfs", "kernels": {}, "processes": []}
    if scheme is None:
        w["kernels"]["A_" + a] = kernel(exp, a, half)
        w["processes"].append({"name": "A", "launches": [{"kernel": "A_" + a}]})
        return w
    parts = [{"name": "P1"}, {"name": "P2"}]
    if scheme == "mps":
        for p in parts:
            p["thread_limit"] = exp["mps_thread_limit"]
    else:
        parts[0]["sms"], parts[1]["sms"] = list(range(half)), list(range(half, n_sm))
        if scheme in exp["colours"]:
            parts[0]["colours"], parts[1]["colours"] = exp["colours"][scheme]
    w["partitions"] = parts
    w["kernels"]["A_" + a] = kernel(exp, a, half)
    w["processes"].append({"name": "A", "partition": "P1", "launches": [{"kernel": "A_" + a}]})
    if b:
        w["kernels"]["B_" + b] = kernel(exp, b, half)
        w["processes"].append({"name": "B", "partition": "P2", "launches": [{"kernel": "B_" + b}]})
        w["replay"] = "until_all_done"
    return w


def t_a(s):
    p = next(p for p in s["processes"] if p["name"] == "A")
    r = p["runs"][0]
    return r["end_ns"] - r["start_ns"]


def run_key(job):
    """The run's directory under --out: platform/scheme/A_B."""
    pl, scheme, a_app, b = job
    return f"{pl}/{scheme or 'alone'}/{a_app}_{b or 'idle'}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--out", default=os.path.join(ROOT, "out", "jain_isolation"))
    sweep.add_arguments(ap)
    a = ap.parse_args()
    with open(CONFIG) as f:
        exp = yaml.safe_load(f)
    t0 = time.time()
    apps = list(exp["apps"])
    platforms = ["gtx1080"] if a.quick else list(exp["platforms"])
    jobs = []  # (platform, scheme, A, B)
    for pl in platforms:
        for a_app in apps:
            jobs.append((pl, None, a_app, None))
            for scheme in exp["platforms"][pl]["schemes"]:
                for b in [None] + apps:
                    jobs.append((pl, scheme, a_app, b))

    runs = []
    for job in jobs:
        pl, scheme, a_app, b = job
        plat = exp["platforms"][pl]["file"]
        wl = workload(exp, scheme, a_app, b, sm_count(plat))
        # T_SP placeholders: the experiment uses no T_SP, so mpgpu simulates no isolated runs.
        runs.append(sweep.Run(key=run_key(job), platform=os.path.join(ROOT, plat), workload=wl, sets=exp["sets"],
                              tsp={p["name"]: 1.0 for p in wl["processes"]}, timeout_s=TIMEOUT_S))
    res = sweep.execute(runs, a.out, a, name="jain_isolation")
    results = {job: res[run_key(job)] for job in jobs}
    print(f"SPEC 6 isolation (Jain): {'quick' if a.quick else 'full'} mode, {res.binary}")
    summary = {"mode": "quick" if a.quick else "full", "platforms": {}}
    for pl in platforms:
        print(f"\n{pl}: T_A in us (A in P1; P2 idle or running B); variation = max_B |T_A,B - T_A,-| / T_A,-")
        print(f"{'scheme':<7}{'A':<6}{'alone GPU':>10}{'P2 idle':>9}" + "".join(f"{'B=' + b:>9}" for b in apps) +
              f"{'variation':>11}{'BW idle':>9}{'L2 evict x':>11}{'row conf x':>11}")
        summary["platforms"][pl] = {}
        for scheme in exp["platforms"][pl]["schemes"]:
            variations = []
            for a_app in apps:
                base = t_a(results[(pl, None, a_app, None)])
                idle_s = results[(pl, scheme, a_app, None)]
                idle = t_a(idle_s)
                with_b = [t_a(results[(pl, scheme, a_app, b)]) for b in apps]
                var = max(abs(t - idle) / idle for t in with_b)
                variations.append(var)
                cross_l2 = cross_rows = 0
                for b in apps:
                    for part in results[(pl, scheme, a_app, b)].get("partitions", []):
                        cross_l2 += part["l2_lines_evicted_by_others"]
                        cross_rows += part["dram_rows_closed_by_others"]
                bw = idle_s["partitions"][0]["dram_bandwidth_gbps"]
                print(f"{scheme:<7}{a_app:<6}{base / 1e3:>10.1f}{idle / 1e3:>9.1f}" +
                      "".join(f"{t / 1e3:>9.1f}" for t in with_b) +
                      f"{100 * var:>10.1f}%{bw:>9.1f}{cross_l2:>11}{cross_rows:>11}")
                summary["platforms"][pl].setdefault(scheme, {})[a_app] = {
                    "t_baseline_ns": base, "t_idle_ns": idle, "t_with_b_ns": dict(zip(apps, with_b)),
                    "variation": var, "normalized": [t / (2 * base) for t in [idle] + with_b],
                    "cross_l2_evictions": cross_l2, "cross_row_conflicts": cross_rows,
                    "bandwidth_idle_gbps": bw}
            avg, mx = 100 * sum(variations) / len(variations), 100 * max(variations)
            pub = exp["platforms"][pl]["published"][scheme]
            summary["platforms"][pl][scheme]["average_max_variation_pct"] = [round(avg, 1), round(mx, 1)]
            summary["platforms"][pl][scheme]["published_pct"] = pub
        print(f"\n{'scheme':<7}{'model avg / max variation':>28}{'published':>20}")
        for scheme in exp["platforms"][pl]["schemes"]:
            m = summary["platforms"][pl][scheme]["average_max_variation_pct"]
            p = summary["platforms"][pl][scheme]["published_pct"]
            print(f"{scheme:<7}{m[0]:>17.1f}% / {m[1]:>5.1f}%{p[0]:>11.1f}% / {p[1]:>5.1f}%")
        order = sorted(exp["platforms"][pl]["schemes"],
                       key=lambda s: summary["platforms"][pl][s]["average_max_variation_pct"][0])
        pub_order = sorted(exp["platforms"][pl]["schemes"], key=lambda s: exp["platforms"][pl]["published"][s][0])
        verdict = "order reproduces" if order == pub_order else "order does not reproduce"
        print(f"isolation order (least variation first): model {' < '.join(order)}, published "
              f"{' < '.join(pub_order)}: {verdict}")
        summary["platforms"][pl]["order"] = order
        summary["platforms"][pl]["verdict"] = verdict
    plot(summary, apps, a.out)
    summary["host_seconds"] = round(time.time() - t0, 1)
    print(f"{len(jobs)} simulations in {summary['host_seconds']:.0f} s (host)")
    with open(os.path.join(a.out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    line = {pl: {s: v["average_max_variation_pct"] for s, v in d.items() if isinstance(v, dict)}
            for pl, d in summary["platforms"].items()}
    print(json.dumps({"mode": summary["mode"], "variation_pct": line,
                      "verdicts": {pl: d["verdict"] for pl, d in summary["platforms"].items()},
                      "host_seconds": summary["host_seconds"]}))


def plot(summary, apps, out):
    plt = experiment_util.pyplot()
    if not plt:
        return
    for pl, d in summary["platforms"].items():
        schemes = [s for s in d if isinstance(d[s], dict)]
        fig, axes = plt.subplots(1, len(schemes), figsize=(4.5 * len(schemes), 3.5), sharey=True, squeeze=False)
        for ax, scheme in zip(axes[0], schemes):
            labels = ["idle"] + apps
            for i, a_app in enumerate(apps):
                vals = d[scheme][a_app]["normalized"]
                ax.bar([j + 0.25 * i for j in range(len(labels))], vals, width=0.25, label=f"A={a_app}")
            ax.set_xticks([j + 0.25 for j in range(len(labels))])
            ax.set_xticklabels([f"B={l}" if l != "idle" else "P2 idle" for l in labels])
            ax.set_title(f"{pl} {scheme}")
            ax.set_ylabel("T_A / (2 x T_baseline)")
        axes[0][0].legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(os.path.join(out, f"{pl}.png"), dpi=100)
        plt.close(fig)


if __name__ == "__main__":
    main()
