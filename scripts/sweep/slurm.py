"""The Slurm backend: one job array per stage of a sweep (sbatch --array), each array task one run.
The runner waits for the array to leave the queue, then reads every run's outcome file; a task
Slurm killed (time limit, node failure, scancel) has none and counts as failed."""
import os
import shlex
import shutil
import subprocess
import sys
import time

from .errors import SweepError
from .run import read_json
from .task import OUTCOME

TASK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "task.py")


class SlurmBackend:
    name = "slurm"

    def __init__(self, jobs=None, sbatch_args="", poll_s=1.0):
        self.jobs, self.poll_s = jobs, poll_s
        self.sbatch_args = shlex.split(sbatch_args or "")
        self.logs = {}  # run directory -> its array task's Slurm log

    def check(self):
        """Fails with SweepError (exit 2, nothing submitted) when Slurm cannot take the sweep."""
        for tool in ("sbatch", "squeue", "scancel"):
            if shutil.which(tool) is None:
                raise SweepError(f"--backend slurm: {tool} is not on PATH (is Slurm installed here? "
                                 "--backend local runs the sweep on this machine)")
        try:
            r = subprocess.run(["squeue", "-h", "-o", "%i", "-u", str(os.getuid())], capture_output=True, text=True,
                               timeout=30)
        except subprocess.TimeoutExpired:
            raise SweepError("--backend slurm: squeue did not answer within 30 s (is slurmctld running?)")
        if r.returncode != 0:
            raise SweepError(f"--backend slurm: the Slurm controller does not answer: {r.stderr.strip()}")

    def describe(self):
        limit = f", at most {self.jobs} at a time" if self.jobs else ""
        extra = f", sbatch {' '.join(self.sbatch_args)}" if self.sbatch_args else ""
        return f"slurm job arrays{limit}{extra}"

    def run(self, stage_dir, run_dirs, on_done):
        os.makedirs(stage_dir, exist_ok=True)
        tasks = os.path.join(stage_dir, "tasks")
        with open(tasks, "w") as f:
            f.write("\n".join(run_dirs) + "\n")
        script = os.path.join(stage_dir, "array.sh")
        with open(script, "w") as f:
            f.write("#!/bin/sh\n# One array task of an mpgpu sweep: the run on line SLURM_ARRAY_TASK_ID of $1.\n"
                    f"exec {shlex.quote(sys.executable)} {shlex.quote(TASK)} \"$1\"\n")
        array = f"0-{len(run_dirs) - 1}" + (f"%{self.jobs}" if self.jobs else "")
        cmd = ["sbatch", "--parsable", f"--array={array}", f"--job-name=mpgpu-{os.path.basename(stage_dir)}",
               f"--output={os.path.join(stage_dir, 'task-%a.log')}", "--cpus-per-task=1", *self.sbatch_args,
               script, tasks]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            raise SweepError(f"sbatch refused the job array ({shlex.join(cmd)}): {r.stderr.strip()}")
        job = r.stdout.strip().split(";")[0]
        self.logs.update({d: os.path.join(stage_dir, f"task-{i}.log") for i, d in enumerate(run_dirs)})
        with open(os.path.join(stage_dir, "job"), "w") as f:
            f.write(job + "\n")
        reported = set()
        try:
            while True:
                queued = self._queued(job)
                for d in run_dirs:
                    if d not in reported and self._ended(d):
                        reported.add(d)
                        on_done(d, self._exit(d))
                if not queued:
                    break
                time.sleep(self.poll_s)
        except BaseException:  # interrupted: the array must not run on unattended
            subprocess.run(["scancel", job], capture_output=True)
            raise
        for d in run_dirs:  # tasks that left the queue without an outcome: killed by Slurm
            if d not in reported:
                on_done(d, None)

    def _queued(self, job):
        """True while any task of the array is pending or running."""
        for _ in range(10):
            r = subprocess.run(["squeue", "-h", "-o", "%i", "-j", job], capture_output=True, text=True)
            if r.returncode == 0:
                return bool(r.stdout.strip())
            if "Invalid job id" in r.stderr:  # purged after it ended (MinJobAge)
                return False
            time.sleep(2)  # the controller is busy: ask again
        raise SweepError(f"squeue keeps failing for job {job}: {r.stderr.strip()}")

    @staticmethod
    def _ended(run_dir):
        return os.path.exists(os.path.join(run_dir, OUTCOME))

    @staticmethod
    def _exit(run_dir):
        o = read_json(os.path.join(run_dir, OUTCOME))
        return o.get("exit") if o else None
