"""One task of a sweep: runs the `mpgpu run` a run directory's sweep-run.json names and records how
it ended in sweep-outcome.json. The local backend calls run_task() in a thread; a Slurm array
task runs this file: python3 task.py TASKS_FILE (the line of SLURM_ARRAY_TASK_ID names the run)."""
import json
import os
import signal
import subprocess
import sys
import threading
import time

SPEC = "sweep-run.json"         # what the task runs: argv and the spec hash (written before it runs)
OUTCOME = "sweep-outcome.json"  # how the task ended (written after it ran): exit, host time, peak RSS
LOG = "run.log"                 # mpgpu's stdout and stderr

_live = set()  # running mpgpu processes, stopped by terminate_all() when the sweep is interrupted
_live_lock = threading.Lock()


def run_task(run_dir):
    """Runs the task of run_dir; returns its exit code (124 after its timeout, like timeout(1))."""
    with open(os.path.join(run_dir, SPEC)) as f:
        spec = json.load(f)
    t0 = time.time()
    with open(os.path.join(run_dir, LOG), "w") as log:
        proc = subprocess.Popen(spec["argv"], stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                env=dict(os.environ, CI="true"))  # CI: no progress line in the log
    with _live_lock:
        _live.add(proc)
    timed_out = threading.Event()

    def expire():
        timed_out.set()
        proc.terminate()  # mpgpu stops its forked simulations on SIGTERM

    timer = threading.Timer(spec["timeout_s"], expire) if spec.get("timeout_s") else None
    if timer:
        timer.start()
    try:
        proc.wait()
    finally:
        if timer:
            timer.cancel()
        with _live_lock:
            _live.discard(proc)
    code = 124 if timed_out.is_set() else proc.returncode
    if code < 0:
        code = 128 - code  # killed by a signal: the shell's convention
    outcome = {"spec": spec["spec"], "exit": code, "host_seconds": round(time.time() - t0, 3),
               "peak_rss_mib": peak_rss_mib(run_dir)}
    tmp = os.path.join(run_dir, OUTCOME + ".tmp")
    with open(tmp, "w") as f:
        json.dump(outcome, f)
    os.replace(tmp, os.path.join(run_dir, OUTCOME))
    return code


def peak_rss_mib(run_dir):
    """mpgpu's own figure (stats.json host.peak_rss_mib), or None for a run without one. Not
    getrusage of the child here: its maxrss keeps the high-water mark of this Python process,
    which it was forked from."""
    try:
        with open(os.path.join(run_dir, "stats.json")) as f:
            return round(json.load(f)["host"]["peak_rss_mib"], 1)
    except (OSError, ValueError, KeyError, TypeError):
        return None


def terminate_all():
    with _live_lock:
        for proc in list(_live):
            proc.terminate()


def main(argv):
    """Slurm array task: the run directory is line SLURM_ARRAY_TASK_ID (from 0) of TASKS_FILE."""
    with open(argv[0]) as f:
        run_dir = f.read().splitlines()[int(os.environ["SLURM_ARRAY_TASK_ID"])]
    # scancel and the time limit send SIGTERM: pass it on, so mpgpu stops its simulations.
    signal.signal(signal.SIGTERM, lambda *_: terminate_all())
    print(f"run {run_dir}", flush=True)
    code = run_task(run_dir)
    print(f"exit {code}; mpgpu's output: {os.path.join(run_dir, LOG)}", flush=True)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
