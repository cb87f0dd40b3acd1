#!/usr/bin/env python3
"""Pictures of one `mpgpu run`: per-SM occupancy over time, a kernel Gantt chart per process, and
the warp-level stall breakdown per SM, as PNGs next to the run's stats.json.

Usage: python3 scripts/plot_run.py OUT_DIR [--timeline FILE] [--bins N]
  OUT_DIR     the run's --out directory (its stats.json);
  --timeline  the run's --timeline file (default OUT_DIR/timeline.json when it exists); without
              one there is no occupancy picture (the TB spans are only in the timeline);
  --bins N    time bins of the occupancy picture (default 200).
Writes OUT_DIR/occupancy.png, OUT_DIR/gantt.png and OUT_DIR/stalls.png (warp-level runs only) and
says what it wrote; exit 2 when stats.json is missing or not a finished run's.
"""
import os
import sys

import experiment_util

experiment_util.use_system_python(optional=("matplotlib",))

import argparse  # noqa: E402
import json  # noqa: E402

SM_PID_BASE = 100  # timeline: SM i's TB slots are process id 100 + i (platform/timeline)


def load_json(path, what):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        sys.stderr.write(f"error: {path}: cannot read the {what}: {e}\n")
        sys.exit(2)


def tb_spans(timeline):
    """(sm, start_ns, end_ns) of every TB span of the timeline (ts and dur are in microseconds)."""
    events = timeline["traceEvents"] if isinstance(timeline, dict) else timeline
    return [(e["pid"] - SM_PID_BASE, e["ts"] * 1e3, (e["ts"] + e["dur"]) * 1e3)
            for e in events if e.get("ph") == "X" and e.get("cat") == "tb" and e.get("pid", 0) >= SM_PID_BASE]


def occupancy_grid(spans, sms, t_end, bins):
    """Average resident TBs per SM in each of `bins` equal time bins of [0, t_end)."""
    grid = [[0.0] * bins for _ in range(sms)]
    width = t_end / bins
    for sm, a, b in spans:
        if sm >= sms:
            continue
        for k in range(max(0, int(a // width)), min(bins, int(b // width) + 1)):
            lo, hi = k * width, (k + 1) * width
            overlap = min(b, hi) - max(a, lo)
            if overlap > 0:
                grid[sm][k] += overlap / width
    return grid


def plot_occupancy(plt, spans, sms, t_end, bins, path):
    grid = occupancy_grid(spans, sms, t_end, bins)
    fig, ax = plt.subplots(figsize=(10, 0.25 * sms + 1.5))
    im = ax.imshow(grid, aspect="auto", interpolation="nearest", cmap="viridis",
                   extent=(0, t_end / 1e3, sms - 0.5, -0.5))
    ax.set_xlabel("time (us)")
    ax.set_ylabel("SM")
    ax.yaxis.get_major_locator().set_params(integer=True)
    ax.set_title("resident TBs per SM")
    fig.colorbar(im, ax=ax, label="TBs (average over the bin)")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def plot_gantt(plt, stats, path):
    kernels = stats["kernels"]
    procs = [p["name"] for p in stats["processes"]]
    row = {p: i for i, p in enumerate(procs)}
    names = sorted({k["name"] for k in kernels})
    colour = {n: plt.cm.tab20(i % 20) for i, n in enumerate(names)}
    fig, ax = plt.subplots(figsize=(12, 0.5 * len(procs) + 1.5))
    for k in kernels:
        if k.get("start_ns", -1) < 0 or k.get("end_ns", -1) < 0:
            continue
        ax.barh(row[k["process"]], (k["end_ns"] - k["start_ns"]) / 1e3, left=k["start_ns"] / 1e3,
                color=colour[k["name"]], edgecolor="black", linewidth=0.3)
    ax.set_yticks(range(len(procs)), procs)
    ax.invert_yaxis()
    ax.set_xlabel("time (us)")
    ax.set_title("kernels per process (start to end)")
    if len(names) <= 20:
        ax.legend(handles=[plt.Rectangle((0, 0), 1, 1, color=colour[n]) for n in names], labels=names,
                  fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def stall_table(stats):
    """{sm: {reason: cycles}} of the warp-level pipelines, or {} for a TB-level run."""
    table = {sm["id"]: sm["pipeline"]["stalls"] for sm in stats["sms"] if "pipeline" in sm}
    return table if any(v for s in table.values() for v in s.values()) else {}


def plot_stalls(plt, stalls, path):
    reasons = sorted({r for s in stalls.values() for r in s})
    sms = sorted(stalls)
    fig, ax = plt.subplots(figsize=(max(6, 0.4 * len(sms) + 2), 4))
    bottom = [0.0] * len(sms)
    for r in reasons:
        vals = [stalls[s].get(r, 0) for s in sms]
        ax.bar(sms, vals, bottom=bottom, label=r)
        bottom = [a + b for a, b in zip(bottom, vals)]
    ax.set_xlabel("SM")
    ax.set_ylabel("warp stall cycles (scheduler slots without an issue)")
    ax.set_title("stall breakdown per SM")
    ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out", help="the run's --out directory")
    ap.add_argument("--timeline", help="the run's --timeline file")
    ap.add_argument("--bins", type=int, default=200)
    a = ap.parse_args()
    if a.bins < 1:
        sys.stderr.write("error: --bins must be at least 1\n")
        sys.exit(2)
    stats = load_json(os.path.join(a.out, "stats.json"), "run's statistics (stats.json)")
    if "kernels" not in stats or "sms" not in stats:
        sys.stderr.write(f"error: {a.out}/stats.json is not a finished run's statistics\n")
        sys.exit(2)
    plt = experiment_util.pyplot()
    if plt is None:
        sys.exit(1)
    written = []
    timeline = a.timeline or os.path.join(a.out, "timeline.json")
    if os.path.exists(timeline):
        spans = tb_spans(load_json(timeline, "timeline"))
        t_end = max([b for _, _, b in spans] + [stats["sim"]["time_ns"], 1e-9])
        path = os.path.join(a.out, "occupancy.png")
        plot_occupancy(plt, spans, len(stats["sms"]), t_end, a.bins, path)
        written.append(path)
    else:
        print(f"no timeline ({timeline}): no occupancy picture (run with --timeline)")
    path = os.path.join(a.out, "gantt.png")
    plot_gantt(plt, stats, path)
    written.append(path)
    stalls = stall_table(stats)
    if stalls:
        path = os.path.join(a.out, "stalls.png")
        plot_stalls(plt, stalls, path)
        written.append(path)
    else:
        print("no warp-level pipeline ran (TB-level kernels): no stall breakdown")
    print("wrote " + ", ".join(written))


if __name__ == "__main__":
    main()
