#!/usr/bin/env python3
"""SPEC 3 experiment (Tanasic, thesis ch. 6): the cost of the preemptible pipeline organizations
when nothing faults, on the Table 6.1 platform (platforms/sixteen_sm.yaml).

Every application of configs/experiments/tanasic_ch6.yaml (see its header for the modelling
choices) runs alone under stall_on_fault, wd_commit, wd_lastcheck, replay_queue and operand_log
(8, 16, 32 KB); performance = T_stall_on_fault / T_org. Printed per application and as the
geometric mean beside the published figures, with the counts that explain them (replay-queue /
operand-log refusals). Writes a PNG and summary.json under out/tanasic_ch6/ and ends with one
JSON line. Then local fault handling: the local_fault_handling applications (lazy output pages)
with the CPU handling every fault against the GPU allocating lazy pages itself, per link; gain =
T_cpu / T_gpu - 1, geomean per kind beside the published gains. Then block switching on fault:
the block_switching applications with their data in CPU memory, block switching off and on, gain =
T_off / T_on - 1 beside the published gains, with the context traffic the switches cost. Last,
preemption under faults: a high-priority kernel preempting a faulting one, latency under
stall_on_fault and operand_log.
Every simulation is one run of a sweep (scripts/sweep), all four parts in one: a re-invocation
reruns only the runs whose inputs changed (--redo: all); --backend slurm runs them as job arrays.
Usage: python3 scripts/tanasic_ch6.py [--quick] [--jobs N] [--out DIR] [--backend local|slurm] ...
  --quick: lbm, sgemm, stencil; operand log 8 KB only; local fault handling over NVLink only;
  block switching: sgemm and stencil, extra_tbs 4 only.
"""
import os
import sys

import experiment_util

experiment_util.use_system_python("yaml", optional=("matplotlib",))

import argparse
import json
import math
import time

import yaml  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sweep  # noqa: E402
from experiment_util import ROOT  # noqa: E402

CONFIG = os.path.join(ROOT, "configs", "experiments", "tanasic_ch6.yaml")
TIMEOUT_S = 900


def sim_run(key, platform, sets, wl):
    """The run of workload `wl` (a dict) with the --set overrides `sets` in OUT/key. Placeholder
    T_SPs: this experiment uses no isolated times, so mpgpu simulates no isolated runs."""
    return sweep.Run(key=key, platform=platform, workload=wl, sets=sets,
                     tsp={p["name"]: 1.0 for p in wl["processes"]}, timeout_s=TIMEOUT_S)


def workload(exp, app):
    return {"name": app, "policy": "fcfs", "kernels": {app: exp["apps"][app]},
            "processes": [{"name": app, "launches": [{"kernel": app}]}]}


def fault_workload(exp, app):
    spec = dict(exp["local_fault_handling"]["apps"][app])
    spec.pop("kind")
    memory = spec.pop("memory")
    if isinstance(spec["program"], str):  # the program of one of the no-fault applications
        spec["program"] = exp["apps"][spec["program"]]["program"]
    return {"name": app, "policy": "fcfs", "kernels": {app: spec},
            "processes": [{"name": app, "memory": memory, "launches": [{"kernel": app}]}]}


def configs(exp, quick):
    """(label, organization, operand-log KB or None)."""
    out = []
    for org in exp["organizations"]:
        if org == "operand_log":
            for kb in exp["operand_log_kb"][:1] if quick else exp["operand_log_kb"]:
                out.append((f"operand_log_{kb}", org, kb))
        else:
            out.append((org, org, None))
    return out


def run_time_ns(s):
    r = s["processes"][0]["runs"][0]
    return r["end_ns"] - r["start_ns"]


def fault_counts(s):
    total = {}
    for sm in s["sms"]:
        for k, v in sm["pipeline"]["faults"].items():
            total[k] = total.get(k, 0) + v
    return total


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def plot(path, apps, labels, perf):
    plt = experiment_util.pyplot()
    if not plt:
        return
    fig, ax = plt.subplots(figsize=(10, 4))
    width = 0.8 / len(labels)
    groups = apps + ["geomean"]
    for i, lab in enumerate(labels):
        vals = [perf[a][lab] for a in apps] + [geomean([perf[a][lab] for a in apps])]
        ax.bar([g + i * width for g in range(len(groups))], [100 * v for v in vals], width, label=lab)
    ax.set_xticks([g + 0.4 - width / 2 for g in range(len(groups))])
    ax.set_xticklabels(groups)
    ax.set_ylabel("performance vs stall_on_fault (%)")
    ax.set_ylim(0, 110)
    ax.legend(fontsize=7, ncol=4)
    ax.set_title("SPEC 3: preemptible pipelines without faults (sixteen_sm)")
    fig.tight_layout()
    fig.savefig(path)
    print(f"plot: {os.path.relpath(path, ROOT)}")


def no_fault_runs(exp, a, platform):
    """{(app, label): run}: every application alone under every organization."""
    runs = {}
    for app in (exp["quick_apps"] if a.quick else list(exp["apps"])):
        for label, org, kb in configs(exp, a.quick):
            sets = dict(exp["sets"])
            sets["sm.fault_organization"] = org
            if kb:
                sets["extensions.operand_log_bytes"] = kb * 1024
            runs[(app, label)] = sim_run(f"{app}/{label}", platform, sets, workload(exp, app))
    return runs


def local_fault_runs(exp, a, platform):
    """{(app, link, handler): run}: the lazy-output applications, CPU and GPU handling of lazy faults."""
    lf = exp["local_fault_handling"]
    links = ["nvlink"] if a.quick else list(lf["links"])
    runs = {}
    for app in lf["apps"]:
        for link in links:
            for handler in ("cpu", "gpu"):
                sets = dict(exp["sets"])
                sets["sm.fault_organization"] = lf["organization"]
                sets["extensions.operand_log_bytes"] = lf["operand_log_kb"] * 1024
                for k, v in lf["links"][link].items():
                    sets[f"fill_unit.fault.{k}"] = v
                sets["fill_unit.fault.lazy_pages"] = handler
                runs[(app, link, handler)] = sim_run(f"local/{app}/{link}_{handler}", platform, sets,
                                                     fault_workload(exp, app))
    return runs


def local_fault_handling(exp, a, res):
    """Prints and returns the (figure, model gain, published gain) rows of the lazy-output
    applications' runs `res` ({(app, link, handler): stats})."""
    lf = exp["local_fault_handling"]
    links = ["nvlink"] if a.quick else list(lf["links"])
    apps = list(lf["apps"])
    print("\nlocal fault handling: lazy pages allocated by the CPU (one handler at a time) or the GPU")
    print(f"{'app':<18}{'kind':<17}{'link':<8}{'faults':>7}{'T_cpu us':>10}{'T_gpu us':>10}{'CPU queue us/fault':>20}{'gain':>8}")
    gains = {}
    for app in apps:
        kind = lf["apps"][app]["kind"]
        for link in links:
            cpu, gpu = res[(app, link, "cpu")], res[(app, link, "gpu")]
            t = cpu["memory"]["translation"]
            faults = t["faults"]["lazy"]
            queue = t["cpu_handler_queue_ns"] / max(1, faults) / 1e3
            g = run_time_ns(cpu) / run_time_ns(gpu) - 1
            gains.setdefault((kind, link), []).append(1 + g)
            print(f"{app:<18}{kind:<17}{link:<8}{faults:>7}{run_time_ns(cpu) / 1e3:>10.1f}{run_time_ns(gpu) / 1e3:>10.1f}"
                  f"{queue:>20.1f}{100 * g:>7.1f}%")
    rows = []
    print(f"\n{'figure':<42}{'model':>8}{'published':>11}")
    for (kind, link), gs in gains.items():
        model = geomean(gs) - 1
        published = lf["published"][kind][link]
        name = f"local handling, {kind}, {link}"
        rows.append((name, model, published))
        print(f"{name:<42}{100 * model:>7.1f}%{published:>10.1f}%")
    return rows


def block_switching_apps(exp, a):
    bs = exp["block_switching"]
    apps = bs["quick_apps"] if a.quick else list(bs["memory"])
    extras = bs["extra_tbs"][:1] if a.quick else bs["extra_tbs"]
    return apps, extras


def block_switching_runs(exp, a, platform):
    """{(app, extra TBs, 0: off): run}: the block_switching applications with their data in CPU
    memory, block switching off and on."""
    bs = exp["block_switching"]
    apps, extras = block_switching_apps(exp, a)
    runs = {}
    for app in apps:
        for extra in [0] + extras:
            sets = dict(exp["sets"])
            sets["sm.fault_organization"] = bs["organization"]
            sets["extensions.operand_log_bytes"] = bs["operand_log_kb"] * 1024
            if extra:
                sets["sm.block_switching.enabled"] = "true"
                sets["sm.block_switching.extra_tbs"] = extra
            wl = {"name": app, "policy": "fcfs", "kernels": {app: exp["apps"][app]},
                  "processes": [{"name": app, "memory": {"allocations": bs["memory"][app]},
                                 "launches": [{"kernel": app}]}]}
            key = f"block_switching/{app}/" + (f"extra_{extra}" if extra else "off")
            runs[(app, extra)] = sim_run(key, platform, sets, wl)
    return runs


def block_switching(exp, a, res):
    """Prints and returns the (figure, model gain, published gain) rows of the block_switching
    runs `res` ({(app, extra): stats})."""
    bs = exp["block_switching"]
    apps, extras = block_switching_apps(exp, a)
    print("\nblock switching on fault (data in CPU memory, migrated / allocated on first touch; operand log "
          f"{bs['operand_log_kb']} KB)")
    print(f"{'app':<14}{'extra':>6}{'faults':>7}{'T_off us':>10}{'T_on us':>10}{'switches':>10}{'ctx MB':>8}"
          f"{'DRAM MB off/on':>16}{'gain':>8}{'published':>11}")
    rows = []
    for app in apps:
        off = res[(app, 0)]
        t = off["memory"]["translation"]["faults"]
        faults = t["host"] + t["lazy"]
        for e in extras:
            on = res[(app, e)]
            g = run_time_ns(off) / run_time_ns(on) - 1
            sw = on["scheduling"]["block_switching"]["switched_out"]
            ctx = sum(sm["block_switching"]["bytes_saved"] + sm["block_switching"]["bytes_restored"] for sm in on["sms"])
            dram = f"{off['memory']['dram_bytes'] / 1e6:.1f}/{on['memory']['dram_bytes'] / 1e6:.1f}"
            pub = bs["published"][app]
            print(f"{app:<14}{e:>6}{faults:>7}{run_time_ns(off) / 1e3:>10.1f}{run_time_ns(on) / 1e3:>10.1f}{sw:>10}"
                  f"{ctx / 1e6:>8.1f}{dram:>16}{100 * g:>7.1f}%{pub:>10.1f}%")
            if e == bs["extra_tbs"][0]:
                rows.append((f"block switching, {app}", g, pub))
    print("  ctx MB: context bytes the switches saved and restored (through L2 and DRAM)")
    plot_gains(os.path.join(a.out, "block_switching.png"), rows, "SPEC 3: block switching on fault (sixteen_sm)")
    return rows


def plot_gains(path, rows, title):
    """Model vs published gain per row (figure, model fraction, published percent)."""
    plt = experiment_util.pyplot()
    if not plt:
        return
    fig, ax = plt.subplots(figsize=(7, 3.5))
    xs = range(len(rows))
    ax.bar([x - 0.2 for x in xs], [100 * m for _, m, _ in rows], 0.4, label="model")
    ax.bar([x + 0.2 for x in xs], [p for _, _, p in rows], 0.4, label="published")
    ax.set_xticks(list(xs))
    ax.set_xticklabels([name.split(", ")[-1] for name, _, _ in rows])
    ax.axhline(0, color="black", linewidth=0.5)
    ax.set_ylabel("gain (%)")
    ax.set_title(title)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)
    print(f"plot: {os.path.relpath(path, ROOT)}")


def preemption_runs(exp, platform):
    """{organization: run}: a high-priority kernel preempting a faulting low-priority one."""
    pf = exp["preemption_under_faults"]
    runs = {}
    for org in pf["organizations"]:
        sets = dict(exp["sets"])
        sets["sm.fault_organization"] = org
        sets["extensions.operand_log_bytes"] = pf["operand_log_kb"] * 1024
        runs[org] = sim_run(f"preempt/{org}", platform, sets, pf["workload"])
    return runs


def preemption_under_faults(res):
    """The high-priority kernel's wait while the low-priority one has faults pending, per
    organization, from the runs `res` ({organization: stats}); returns {organization: preemption
    latency ns}."""
    print("\npreemption under faults (PPQ exclusive, context switch; the low-priority TBs have faults pending)")
    print(f"{'organization':<16}{'preemption latency us':>23}{'high response us':>18}{'TBs saved':>11}{'bytes saved':>13}")
    out = {}
    for org, st in res.items():
        sc = st["scheduling"]
        high = next(p for p in st["processes"] if p["name"] == "high")["runs"][0]
        out[org] = sc["preemption_latency_max_ns"]
        print(f"{org:<16}{sc['preemption_latency_max_ns'] / 1e3:>23.1f}{(high['end_ns'] - high['start_ns']) / 1e3:>18.1f}"
              f"{sc['tbs_saved']:>11}{sc['bytes_saved']:>13}")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--out", default=os.path.join(ROOT, "out", "tanasic_ch6"))
    sweep.add_arguments(ap)
    a = ap.parse_args()
    with open(CONFIG) as f:
        exp = yaml.safe_load(f)
    t0 = time.time()
    apps = exp["quick_apps"] if a.quick else list(exp["apps"])
    cfgs = configs(exp, a.quick)
    platform = os.path.join(ROOT, exp["platform"])

    # Every run of the four parts in one sweep; the parts then read their runs' stats.
    sections = [no_fault_runs(exp, a, platform), local_fault_runs(exp, a, platform),
                block_switching_runs(exp, a, platform), preemption_runs(exp, platform)]
    res = sweep.execute([r for runs in sections for r in runs.values()], a.out, a, name="tanasic_ch6")
    bin_desc = res.binary
    results, local_res, bs_res, preempt_res = [{job: res[r.key] for job, r in runs.items()} for runs in sections]
    labels = [c[0] for c in cfgs]
    perf = {app: {lab: run_time_ns(results[(app, "stall_on_fault")]) / run_time_ns(results[(app, lab)])
                  for lab in labels} for app in apps}

    print(f"SPEC 3 preemptible pipelines without faults (Tanasic ch. 6): {'quick' if a.quick else 'full'} mode, {bin_desc}")
    print("performance normalized to stall_on_fault (T_stall / T_org), percent")
    print(f"{'app':<14}{'T_stall us':>11}" + "".join(f"{lab:>16}" for lab in labels[1:]))
    for app in apps:
        t = run_time_ns(results[(app, "stall_on_fault")]) / 1e3
        print(f"{app:<14}{t:>11.1f}" + "".join(f"{100 * perf[app][lab]:>15.1f}%" for lab in labels[1:]))
    gm = {lab: geomean([perf[app][lab] for app in apps]) for lab in labels}
    print(f"{'geomean':<14}{'':>11}" + "".join(f"{100 * gm[lab]:>15.1f}%" for lab in labels[1:]))

    pub = exp["published"]
    rows = [("WD-commit", gm["wd_commit"], pub["wd_commit"]),
            ("WD-lastcheck", gm["wd_lastcheck"], pub["wd_lastcheck"]),
            ("replay queue", gm["replay_queue"], pub["replay_queue"]),
            ("operand log 8 KB", gm["operand_log_8"], pub["operand_log_8"])]
    if "operand_log_16" in gm:
        rows.append(("operand log 16 KB", gm["operand_log_16"], pub["operand_log_16"]))
    if "lbm" in perf:
        rows.append(("lbm, replay queue", perf["lbm"]["replay_queue"], pub["replay_queue_lbm"]))
        rows.append(("lbm, operand log 8 KB", perf["lbm"]["operand_log_8"], pub["operand_log_lbm_8"]))
        big = "operand_log_32" if "operand_log_32" in perf["lbm"] else None
        if big:
            rows.append(("lbm, operand log 32 KB", perf["lbm"][big], pub["operand_log_lbm_large"]))
    print(f"\n{'figure':<26}{'model':>8}{'published':>11}")
    for name, model, published in rows:
        print(f"{name:<26}{100 * model:>7.1f}%{published:>10.1f}%")
    print("  (geomean over the applications run; the published figures are over Parboil and more)")

    print("\ntable refusals (a ready global memory instruction found no replay-queue entry / log share):")
    for app in apps:
        parts = []
        for lab in labels:
            c = fault_counts(results[(app, lab)])
            if c["replay_queue_full"] or c["operand_log_full"]:
                parts.append(f"{lab}: rq {c['replay_queue_full']}, log {c['operand_log_full']}")
        print(f"  {app:<14}" + ("; ".join(parts) if parts else "none"))

    plot(os.path.join(a.out, "normalized_performance.png"), apps, labels[1:], perf)
    local_rows = local_fault_handling(exp, a, local_res)
    local_rows += block_switching(exp, a, bs_res)
    preempt = preemption_under_faults(preempt_res)
    summary = {"mode": "quick" if a.quick else "full", "binary": bin_desc,
               "performance": perf, "geomean": gm,
               "model_vs_published": {name: [round(100 * m, 1), p] for name, m, p in rows + local_rows},
               "preemption_latency_ns": preempt,
               "wall_s": round(time.time() - t0, 1)}
    with open(os.path.join(a.out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    print(json.dumps({"experiment": "tanasic_ch6", "mode": summary["mode"],
                      "model_vs_published": summary["model_vs_published"],
                      "preemption_latency_ns": preempt}))


if __name__ == "__main__":
    main()
