"""python3 scripts/sweep FILE [--out DIR] [--backend local|slurm] [--jobs N] ...

Runs the sweep a sweep file describes (docs/sweeps.md): every platform x workload x grid point is
a run; with `isolated: true` each process's isolated run is a run of its own and the others take
their T_SP from it. Checks every input with `mpgpu validate` first (exit 2, nothing run), prints
a line per run and writes OUT/sweep-results.json; ends with one JSON line."""
import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from sweep import Run, add_arguments, execute  # noqa: E402
from sweep.errors import SweepError  # noqa: E402
from sweep.runner import ROOT, backend_of  # noqa: E402
from sweep.sweep_file import load, points  # noqa: E402


def stem(path):
    name = os.path.basename(path)
    return os.path.basename(os.path.dirname(path)) if name == "kernelslist.g" else os.path.splitext(name)[0]


def validate(sweep_file, binary, platform, kind, path, sets):
    """`mpgpu validate --format json` of one combination; its processes. SweepError with mpgpu's message."""
    cmd = [binary, "validate", "--platform", platform, f"--{kind}", path, "--format", "json"]
    for k, v in sets.items():
        cmd += ["--set", f"{k}={v}"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        msg = (r.stderr or r.stdout).strip().removeprefix("error: ")
        point = " ".join(f"{k}={v}" for k, v in sets.items()) or "no overrides"
        raise SweepError(f"{sweep_file}: the run of {os.path.basename(path)} on {os.path.basename(platform)} with "
                         f"{point} is refused by mpgpu validate: {msg}")
    return json.loads(r.stdout.splitlines()[-1])["workload"]["processes"]


def plan(s, binary):
    runs = []
    for platform in s["platforms"]:
        for label, grid_sets in points(s["grid"]):
            sets = {**{k: str(v) for k, v in s["sets"].items()}, **grid_sets}
            for kind, path in s["inputs"]:
                procs = validate(s["file"], binary, platform, kind, path, sets)
                base = f"{stem(platform)}/{stem(path)}/{label}"
                wl = {"workload": path} if kind == "workload" else {"trace": path}
                tsp_from = None
                if s["isolated"]:
                    tsp_from = {}
                    for p in procs:
                        key = f"{base}/isolated/{p}"
                        runs.append(Run(key, platform, sets=sets, isolated=p, timeout_s=s["timeout_s"], **wl))
                        tsp_from[p] = key
                runs.append(Run(f"{base}/run", platform, sets=sets, tsp_from=tsp_from, timeout_s=s["timeout_s"], **wl))
    return runs


def summary(stats):
    if stats.get("status") != "completed":
        return {"status": stats.get("status")}
    return {"status": "completed", "sim_ns": stats["sim"]["time_ns"], "metrics": stats.get("metrics"),
            "processes": [{k: p.get(k) for k in ("name", "T_SP", "T_MP", "NTT")} for p in stats["processes"]]}


def main():
    ap = argparse.ArgumentParser(prog="python3 scripts/sweep", description=__doc__.split("\n\n")[1],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("file", help="the sweep file (YAML)")
    ap.add_argument("--out", help="output directory (default: the file's out:, else out/sweeps/NAME)")
    add_arguments(ap)
    args = ap.parse_args()
    try:
        s = load(args.file)
        backend_of(args).check()  # before validating anything: nothing is run on an unavailable backend
        binary = os.path.abspath(args.mpgpu)
        if not os.path.exists(binary):
            raise SweepError(f"{binary} not found: build first (bash scripts/test.sh or cmake --build build)")
        runs = plan(s, binary)
    except SweepError as e:
        print(f"error: {e}", file=sys.stderr)
        sys.exit(2)
    out = args.out or s["out"] or os.path.join(ROOT, "out", "sweeps", s["name"])
    res = execute(runs, out, args, name=s["name"])
    table = {r.key: summary(res[r.key]) for r in runs if not r.isolated}
    print(f"{'run':<60}{'sim us':>11}{'ANTT':>8}{'STP':>7}{'fairness':>9}")
    for key, t in table.items():
        if t["status"] != "completed":
            print(f"{key:<60}  {t['status']}")
            continue
        m = t["metrics"]
        print(f"{key:<60}{t['sim_ns'] / 1e3:>11.1f}{m['antt']:>8.3f}{m['stp']:>7.3f}{m['fairness']:>9.3f}")
    path = os.path.join(out, "sweep-results.json")
    with open(path, "w") as f:
        json.dump(table, f, indent=1)
    print(f"results: {path}")
    print(json.dumps({"sweep": s["name"], "runs": len(runs), "results": path}))


if __name__ == "__main__":
    main()
