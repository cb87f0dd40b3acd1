"""The Slurm backend against a real single-node cluster (ctest Sweep.Slurm): installs Debian's
slurm-wlm and munge when missing (scripts/setup.sh --slurm), starts munged,
slurmctld and slurmd on this host (scripts/slurm_cluster.sh), runs a small sweep through job
arrays, checks its results equal the local backend's and that a second invocation submits
nothing, and stops the daemons. Exit 77 (ctest: skipped) with the reason when the cluster cannot
be started here (not root, Slurm not installed, daemons refusing); never a silent pass."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

SCRIPTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(SCRIPTS)
MPGPU = os.environ.get("MPGPU", os.path.join(ROOT, "build", "mpgpu"))
CLUSTER = os.path.join(SCRIPTS, "slurm_cluster.sh")
SWEEP = f"""name: slurm_check
platforms: [{ROOT}/platforms/k20c.yaml]
workloads: [{ROOT}/configs/default.yaml]
grid:
  sm.count: [13, 7]
  workload.policy: [fcfs, dss]
isolated: true
"""


def sweep(file, out, *extra, env=None):
    cmd = [sys.executable, os.path.join(SCRIPTS, "sweep"), file, "--out", out, "--mpgpu", MPGPU, *extra]
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    print(f"$ {' '.join(cmd[1:])}\n{r.stderr}{r.stdout}", flush=True)
    return r


def check(cond, what):
    if not cond:
        print(f"FAILED: {what}", flush=True)
        sys.exit(1)


def install_slurm():
    """Debian's Slurm and munge through setup.sh, when they are missing; None, or why not."""
    if all(shutil.which(t, path=os.environ.get("PATH", "") + ":/usr/sbin:/sbin") for t in ("munged", "slurmctld", "slurmd", "sbatch")):
        return None
    if os.geteuid() != 0:
        return "slurm-wlm and munge are not installed, and this single-node cluster needs root anyway"
    r = subprocess.run(["bash", os.path.join(SCRIPTS, "setup.sh"), "--slurm"], capture_output=True, text=True,
                       stdin=subprocess.DEVNULL)
    return None if r.returncode == 0 else f"bash scripts/setup.sh --slurm failed: {(r.stderr or r.stdout).strip()[-300:]}"


def main():
    why = install_slurm()
    if why:
        print(f"SKIPPED: {why}", flush=True)
        return 77
    with tempfile.TemporaryDirectory(prefix="mpgpu-slurm-") as d:
        cluster = os.path.join(d, "cluster")
        r = subprocess.run(["bash", CLUSTER, "start", cluster], capture_output=True, text=True)
        if r.returncode == 77:
            print(f"SKIPPED: no Slurm cluster here: {r.stderr.strip()}", flush=True)
            return 77
        try:
            check(r.returncode == 0, f"slurm_cluster.sh start: exit {r.returncode}: {r.stderr}")
            env = dict(os.environ, SLURM_CONF=os.path.join(cluster, "slurm.conf"))
            f = os.path.join(d, "sweep.yaml")
            with open(f, "w") as fh:
                fh.write(SWEEP)
            slurm_out, local_out = os.path.join(d, "slurm"), os.path.join(d, "local")
            r = sweep(f, slurm_out, "--backend", "slurm", env=env)
            check(r.returncode == 0, "the sweep on Slurm")
            check("backend slurm job arrays" in r.stderr and "20 runs ran" in r.stderr, "20 runs through Slurm")
            for stage in ("stage0", "stage1"):  # isolated runs, then the runs taking their T_SP
                with open(os.path.join(slurm_out, ".sweep", stage, "job")) as fh:
                    check(fh.read().strip().isdigit(), f"{stage} was a Slurm job")
            r = sweep(f, local_out, "--backend", "local", "--jobs", "2", env=env)
            check(r.returncode == 0, "the same sweep on the local backend")
            with open(os.path.join(slurm_out, "sweep-results.json")) as a, open(os.path.join(local_out, "sweep-results.json")) as b:
                check(json.load(a) == json.load(b), "Slurm's results equal the local backend's")
            r = sweep(f, slurm_out, "--backend", "slurm", env=env)
            check(r.returncode == 0 and "0 runs ran, 20 were already done" in r.stderr, "nothing resubmitted")
        finally:
            subprocess.run(["bash", CLUSTER, "stop", cluster])
        print("Slurm backend: results equal the local backend's", flush=True)
        return 0


if __name__ == "__main__":
    sys.exit(main())
