"""Shared by the experiment scripts: project paths and a stable private copy of build/mpgpu."""
import datetime
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MPGPU = os.path.join(ROOT, "build", "mpgpu")


def use_system_python(*modules, optional=()):
    """The scripts need Debian's packages (PyYAML, matplotlib): when one of `modules` (or of
    `optional`, e.g. matplotlib for the plots) is missing because a non-Debian python3 is first on
    PATH, re-runs the script with /usr/bin/python3. Raises only for a missing required module."""
    import importlib.util
    missing = [m for m in (*modules, *optional) if importlib.util.find_spec(m) is None]
    if not missing:
        return
    if sys.executable != "/usr/bin/python3" and os.path.exists("/usr/bin/python3"):
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    required = [m for m in missing if m in modules]
    if required:
        raise ImportError(f"python modules missing: {', '.join(required)} (bash scripts/setup.sh installs them)")


def pyplot():
    """matplotlib.pyplot on the Agg backend (files only), or None after saying there will be no
    plots (the figures are printed either way)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        return plt
    except ImportError:
        print("matplotlib missing: no plots")
        return None


def snapshot_binary(out_dir):
    """Copies build/mpgpu to out_dir so that the whole sweep runs one binary even if build/ is
    rebuilt meanwhile; retries while the file is being written. Returns (path, description)."""
    for _ in range(60):
        try:
            before = os.stat(MPGPU).st_mtime
            dst = os.path.join(out_dir, f".mpgpu-{os.getpid()}")
            shutil.copy2(MPGPU, dst)
            ok = subprocess.run([dst, "--help"], capture_output=True).returncode == 0
            if ok and os.stat(MPGPU).st_mtime == before:
                with open(dst, "rb") as f:
                    digest = hashlib.sha256(f.read()).hexdigest()[:12]
                when = datetime.datetime.fromtimestamp(before).strftime("%Y-%m-%d %H:%M:%S")
                return dst, f"build/mpgpu of {when}, sha256 {digest}"
        except OSError:
            pass
        time.sleep(2)
    sys.exit(f"could not take a stable copy of {MPGPU} (being rebuilt?)")


def run_simulation(binary, platform, sets, wl, out_dir, timeout_s, tsp=None, extra_args=()):
    """Writes workload `wl` (a dict) to out_dir, runs `binary run` on it with the --set overrides
    `sets` and the given T_SPs ({process: ns}; none: placeholders, for experiments that do not use
    them, so no isolated runs), and returns stats.json. Raises RuntimeError with the command line
    and output on failure."""
    import yaml
    os.makedirs(out_dir, exist_ok=True)
    wl_file = os.path.join(out_dir, "workload.yaml")
    with open(wl_file, "w") as f:
        yaml.safe_dump(wl, f, sort_keys=False)
    tsp_file = os.path.join(out_dir, "tsp.json")
    with open(tsp_file, "w") as f:
        json.dump(tsp if tsp is not None else {p["name"]: 1.0 for p in wl["processes"]}, f)
    cmd = [binary, "run", "--platform", platform, "--workload", wl_file, "--out", out_dir, "--jobs", "1",
           "--tsp", tsp_file, *extra_args]
    for k, v in sets.items():
        cmd += ["--set", f"{k}={v}"]
    res = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, CI="true"), timeout=timeout_s)
    if res.returncode != 0:
        shown = " ".join(["build/mpgpu"] + cmd[1:])  # binary is a temporary snapshot of it
        raise RuntimeError(f"mpgpu failed ({res.returncode}): {shown}\n{res.stdout}{res.stderr}")
    with open(os.path.join(out_dir, "stats.json")) as f:
        return json.load(f)
