"""The local backend: a pool of --jobs threads, each running one task (one mpgpu process) at a time."""
import concurrent.futures as cf
import os

from .task import run_task, terminate_all


class LocalBackend:
    name = "local"

    def __init__(self, jobs=None):
        self.jobs = max(1, jobs or os.cpu_count() or 1)

    def check(self):
        pass  # always available

    def describe(self):
        return f"local, {self.jobs} at a time"

    def run(self, stage_dir, run_dirs, on_done):
        """Runs every task of run_dirs; on_done(run_dir, exit code) as each ends."""
        ex = cf.ThreadPoolExecutor(self.jobs)
        futs = {ex.submit(run_task, d): d for d in run_dirs}
        try:
            for f in cf.as_completed(futs):
                on_done(futs[f], f.result())
        except BaseException:  # Ctrl-C, SIGTERM: no task is left running
            ex.shutdown(wait=False, cancel_futures=True)
            terminate_all()
            raise
        ex.shutdown()
