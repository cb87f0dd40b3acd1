#!/usr/bin/env python3
"""SPEC 2 experiments (Tanasic ch. 5): prioritization (NPQ, PPQ with draining / context switch)
and Dynamic Spatial Sharing against FCFS, on random multiprogrammed Parboil workloads.

Prints model vs published side by side, writes one PNG per figure, the largest peak memory of
a run, and ends with one JSON line.
Usage: python3 scripts/tanasic_ch5.py [--quick] [--out DIR] [--backend local|slurm] [--jobs N] [--mpgpu PATH]
Runs through the sweep runner (scripts/sweep): re-invoked, it redoes only the runs not done.
"""
import os
import sys

try:
    import yaml  # noqa: F401
    if __name__ == "__main__":  # bench_speed.py imports the workload construction, without matplotlib
        import matplotlib  # noqa: F401
except ImportError:  # a non-Debian python3 first on PATH: use the system one with the packages
    if __name__ == "__main__" and sys.executable != "/usr/bin/python3" and os.path.exists("/usr/bin/python3"):
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    raise

import argparse
import json
import random
import statistics

import yaml  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sweep  # noqa: E402

ROOT = sweep.ROOT
MAX_SIM_US = 5_000_000  # a run still busy after 5 s of GPU time has starved or livelocked

# (label, policy, preemption, prioritized)
RUNS = [
    ("fcfs", "fcfs", "context_switch", False),
    ("npq", "npq", "draining", True),
    ("ppq_ex_drain", "ppq_exclusive", "draining", True),
    ("ppq_ex_switch", "ppq_exclusive", "context_switch", True),
    ("ppq_sh_drain", "ppq_shared", "draining", True),
    ("ppq_sh_switch", "ppq_shared", "context_switch", True),
    ("dss_drain", "dss", "draining", False),
    ("dss_switch", "dss", "context_switch", False),
]


def load_experiment():
    """The experiment config, its platform file, its applications file and the application names."""
    with open(os.path.join(ROOT, "configs", "experiments", "tanasic_ch5.yaml")) as f:
        exp = yaml.safe_load(f)
    apps_file = os.path.join(ROOT, exp["applications"])
    with open(apps_file) as f:
        apps = [p["name"] for p in yaml.safe_load(f)["processes"]]
    return exp, os.path.join(ROOT, exp["platform"]), apps_file, apps


def pick_processes(exp, apps, n, i):
    """The i-th random workload of n processes (fixed seed); the first is the high-priority one."""
    return random.Random(exp["seed"] * 1000 + n * 100 + i).sample(apps, n)


def workload_yaml(apps_file, procs, policy, preemption, hp):
    lines = [f"name: tanasic-{len(procs)}", "seed: 1", f"policy: {policy}", f"preemption: {preemption}",
             "replay: until_all_done", f"max_sim_time_us: {MAX_SIM_US}", "import:", f"  file: {apps_file}", "  processes:"]
    for i, p in enumerate(procs):
        if hp and i == 0:  # the high-priority process runs once; the others replay
            lines.append(f"    - {{name: {p}, priority: 1, replays: false}}")
        else:
            lines.append(f"    - {{name: {p}, priority: 0}}")
    return "\n".join(lines) + "\n"


def mean(xs):
    return statistics.mean(xs) if xs else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true",
                    help="fewer workloads per process count, no shared-PPQ runs (about 2.5 minutes on 2 cores)")
    ap.add_argument("--out", default=os.path.join(ROOT, "out", "tanasic_ch5"))
    sweep.add_arguments(ap)
    args = ap.parse_args()
    exp, platform, apps_file, apps = load_experiment()
    counts = exp["process_counts"]
    per_count = exp["workloads_per_count"]["quick" if args.quick else "full"]

    # T_SP: every application alone under FCFS, a run of its own that the multiprogrammed runs
    # take their T_SP from (one stage before them).
    runs = [sweep.Run(f"iso/{a}", platform, yaml.safe_load(workload_yaml(apps_file, [a], "fcfs", "draining", False)))
            for a in apps]
    # --quick leaves out the shared PPQ variants (not in the published comparison's JSON).
    labels = [r for r in RUNS if not (args.quick and r[0].startswith("ppq_sh"))]
    picks = {}
    mp = []
    for n in counts:
        for i in range(per_count):
            procs = picks[(n, i)] = pick_processes(exp, apps, n, i)
            for label, policy, pre, hp in labels:
                wl = yaml.safe_load(workload_yaml(apps_file, procs, policy, pre, hp))
                mp.append((n, sweep.Run(f"n{n}/w{i}/{label}", platform, wl, tsp_from={p: f"iso/{p}" for p in procs})))
    mp.sort(key=lambda r: -r[0])  # the longest (most processes) first keeps both cores busy to the end
    runs += [r for _, r in mp]
    res = sweep.execute(runs, args.out, args, name="tanasic_ch5")
    peaks = {r.key: res.outcome(r.key)["peak_rss_mib"] for r in runs}  # run -> peak RSS MiB of its processes
    results = {(n, i, label): (picks[(n, i)], res[f"n{n}/w{i}/{label}"])
               for n in counts for i in range(per_count) for label, *_ in labels}

    def hp_ntt(n, i, label):
        procs, s = results[(n, i, label)]
        return next(p["NTT"] for p in s["processes"] if p["name"] == procs[0])

    def metric(n, i, label, key):
        return results[(n, i, label)][1]["metrics"][key]

    out = {"processes": counts, "ntt_improvement": {}, "stp_overhead": {}, "dss_vs_fcfs": {}}
    done = {label for (_, _, label) in results}
    for key, label in [("npq", "npq"), ("ppq_drain", "ppq_ex_drain"), ("ppq_switch", "ppq_ex_switch"),
                       ("ppq_shared_drain", "ppq_sh_drain"), ("ppq_shared_switch", "ppq_sh_switch")]:
        if label not in done:
            continue
        out["ntt_improvement"][key] = [mean([hp_ntt(n, i, "fcfs") / hp_ntt(n, i, label) for i in range(per_count)]) for n in counts]
    for key, label in [("ppq_drain", "ppq_ex_drain"), ("ppq_switch", "ppq_ex_switch"),
                       ("ppq_shared_drain", "ppq_sh_drain"), ("ppq_shared_switch", "ppq_sh_switch")]:
        if label not in done:
            continue
        out["stp_overhead"][key] = [mean([metric(n, i, "npq", "stp") / metric(n, i, label, "stp") for i in range(per_count)]) for n in counts]
    dss_per_n = {}
    for mech, label in [("switch", "dss_switch"), ("drain", "dss_drain")]:
        per_n = {
            "antt": [mean([metric(n, i, "fcfs", "antt") / metric(n, i, label, "antt") for i in range(per_count)]) for n in counts],
            "fairness": [mean([metric(n, i, label, "fairness") / metric(n, i, "fcfs", "fairness") for i in range(per_count)]) for n in counts],
            "stp": [mean([metric(n, i, "fcfs", "stp") / metric(n, i, label, "stp") for i in range(per_count)]) for n in counts],
        }
        dss_per_n[mech] = per_n
        out["dss_vs_fcfs"][mech] = {k: mean(v) for k, v in per_n.items()}
    pre = {label: mean([results[(n, i, label)][1]["scheduling"]["preemption_latency_mean_ns"] / 1e3
                        for n in counts for i in range(per_count)]) for label in ("ppq_ex_drain", "ppq_ex_switch")}

    pub = exp["published"]
    print(f"\nSPEC 2 on {exp['platform']}: {per_count} random workloads per process count "
          f"({'quick' if args.quick else 'full'}), replay until all completed once\n")
    print("High-priority NTT improvement (NTT under FCFS / NTT under policy)")
    print(f"{'policy':<20}" + "".join(f"{f'n={n}':>9}" for n in counts) + "   published (2 -> 8)")
    for key in (k for k in ("npq", "ppq_drain", "ppq_switch", "ppq_shared_drain", "ppq_shared_switch")
                if k in out["ntt_improvement"]):
        p = pub["ntt_improvement"].get(key)
        ps = f"{p[0]:.1f}x -> {p[1]:.1f}x" if p else "-"
        print(f"{key:<20}" + "".join(f"{v:>8.2f}x" for v in out["ntt_improvement"][key]) + f"   {ps}")
    print("\nSTP overhead vs NPQ (STP NPQ / STP policy)")
    for key in (k for k in ("ppq_drain", "ppq_switch", "ppq_shared_drain", "ppq_shared_switch") if k in out["stp_overhead"]):
        p = pub["stp_overhead"].get(key)
        ps = f"{p[0]:.2f}x - {p[1]:.2f}x" if p else "higher than exclusive"
        print(f"{key:<20}" + "".join(f"{v:>8.2f}x" for v in out["stp_overhead"][key]) + f"   {ps}")
    print("\nDSS (equal sharing) vs FCFS: ANTT and fairness improvement, STP degradation")
    for mech in ("switch", "drain"):
        for k in ("antt", "fairness", "stp"):
            p = pub["dss_vs_fcfs"][mech][k]
            print(f"{mech + ' ' + k:<20}" + "".join(f"{v:>8.2f}x" for v in dss_per_n[mech][k]) + f"   {p[0]:.2f}x - {p[1]:.2f}x")
    print(f"\nMean preemption latency (PPQ exclusive): draining {pre['ppq_ex_drain']:.1f} us, "
          f"context switch {pre['ppq_ex_switch']:.1f} us (published: context switch lower)")

    # Figures (matplotlib imported here: see the top).
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6, 4))
    for key, style in (("npq", "o-"), ("ppq_drain", "s-"), ("ppq_switch", "^-")):
        ax.plot(counts, out["ntt_improvement"][key], style, label=f"model {key}")
        p = pub["ntt_improvement"][key]
        ax.plot([counts[0], counts[-1]], p, style.replace("-", "--"), alpha=0.5, label=f"published {key}")
    ax.set_xlabel("processes")
    ax.set_ylabel("high-priority NTT improvement (x)")
    ax.set_yscale("log")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(args.out, "ntt_improvement.png"), dpi=120)
    fig, ax = plt.subplots(figsize=(6, 4))
    for key, style in (("ppq_drain", "s-"), ("ppq_switch", "^-"), ("ppq_shared_drain", "s:"), ("ppq_shared_switch", "^:")):
        if key not in out["stp_overhead"]:
            continue
        ax.plot(counts, out["stp_overhead"][key], style, label=f"model {key}")
    for key in ("ppq_drain", "ppq_switch"):
        lo, hi = pub["stp_overhead"][key]
        ax.axhspan(lo, hi, alpha=0.15, label=f"published {key}")
    ax.set_xlabel("processes")
    ax.set_ylabel("STP overhead vs NPQ (x)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(args.out, "stp_overhead.png"), dpi=120)
    fig, ax = plt.subplots(figsize=(6, 4))
    keys = ["antt", "fairness", "stp"]
    for j, mech in enumerate(("switch", "drain")):
        xs = [k + j * 0.35 for k in range(3)]
        ax.bar(xs, [out["dss_vs_fcfs"][mech][k] for k in keys], width=0.3, label=f"model {mech}")
        for x, k in zip(xs, keys):
            lo, hi = pub["dss_vs_fcfs"][mech][k]
            ax.plot([x, x], [lo, hi], "k-", lw=3, alpha=0.5)
    ax.set_xticks([k + 0.17 for k in range(3)], ["ANTT impr.", "fairness impr.", "STP degr."])
    ax.set_ylabel("DSS vs FCFS (x); black: published range")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(args.out, "dss_vs_fcfs.png"), dpi=120)
    print(f"\nfigures: {args.out}/ntt_improvement.png, stp_overhead.png, dss_vs_fcfs.png")
    peak_run = max(peaks, key=peaks.get)
    print(f"largest peak memory of a run: {peaks[peak_run]:.0f} MiB ({peak_run}, of {len(peaks)} runs)")
    summary = {"processes": counts,
               "ntt_improvement": {k: [round(v, 3) for v in out["ntt_improvement"][k]] for k in ("npq", "ppq_drain", "ppq_switch")},
               "stp_overhead": {k: [round(v, 3) for v in out["stp_overhead"][k]] for k in ("ppq_drain", "ppq_switch")},
               "dss_vs_fcfs": {m: {k: round(v, 3) for k, v in out["dss_vs_fcfs"][m].items()} for m in ("switch", "drain")},
               "peak_rss_mib_max": round(peaks[peak_run], 1), "peak_rss_run": peak_run}
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
