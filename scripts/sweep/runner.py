"""Executes a sweep: plans its stages (isolated runs before the runs that take their T_SP), skips
the runs already done for the same inputs, hands the rest to a backend, retries failed ones if
asked, and returns every run's stats.json."""
import hashlib
import os
import shutil
import signal
import subprocess
import sys
import time

from .errors import SweepError, SweepFailed
from .local import LocalBackend
from .progress import Progress
from .run import arm, done_stats, prepare, read_json
from .task import LOG, OUTCOME
from .slurm import SlurmBackend

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MPGPU = os.path.join(ROOT, "build", "mpgpu")


def add_arguments(ap):
    """The sweep options every experiment script and the sweep CLI take."""
    g = ap.add_argument_group("sweep")
    g.add_argument("--backend", choices=("local", "slurm"), default="local",
                   help="local: a pool of --jobs processes (default); slurm: one job array per stage")
    g.add_argument("--jobs", type=int, default=None,
                   help="runs at a time (local: default the core count; slurm: array throttle, default none)")
    g.add_argument("--sbatch-args", default="", help='more sbatch options, e.g. "--partition=gpu --time=1:00:00"')
    g.add_argument("--retries", type=int, default=0, help="resubmit the runs that failed, up to this many times")
    g.add_argument("--redo", action="store_true", help="run everything again, even runs already done")
    g.add_argument("--mpgpu", default=MPGPU, help="the simulator binary (default: build/mpgpu)")


def backend_of(args):
    if args.backend == "slurm":
        return SlurmBackend(args.jobs, args.sbatch_args)
    return LocalBackend(args.jobs)


class Results(dict):
    """key -> stats.json of every run; outcome(key): exit, host seconds, peak RSS MiB."""

    def __init__(self, out_dir):
        super().__init__()
        self.out_dir = out_dir

    def stats(self, key):
        """The run's stats.json, read once."""
        if key not in self:
            self[key] = read_json(os.path.join(self.out_dir, key, "stats.json"))
        return self[key]

    def outcome(self, key):
        return read_json(os.path.join(self.out_dir, key, OUTCOME))


def snapshot_binary(binary, sweep_dir):
    """A copy of the binary named by its content, so that every run of the sweep (and a re-invocation
    after a rebuild of something else) uses one binary while build/ may be rebuilt."""
    if not os.path.exists(binary):
        raise SweepError(f"{binary} not found: build first (bash scripts/test.sh or cmake --build build)")
    os.makedirs(sweep_dir, exist_ok=True)
    for _ in range(30):  # retry while the build is writing it
        before = os.stat(binary).st_mtime
        tmp = os.path.join(sweep_dir, f".mpgpu-{os.getpid()}")
        shutil.copy2(binary, tmp)
        h = hashlib.sha256()
        with open(tmp, "rb") as f:
            h.update(f.read())
        ok = subprocess.run([tmp, "--help"], capture_output=True).returncode == 0
        if ok and os.stat(binary).st_mtime == before:
            sha = h.hexdigest()[:16]
            dst = os.path.join(sweep_dir, f"mpgpu-{sha}")
            os.replace(tmp, dst)
            when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(before))
            return dst, sha, f"{os.path.relpath(binary, ROOT) if binary.startswith(ROOT) else binary} of {when}, sha256 {sha[:12]}"
        os.remove(tmp)
        time.sleep(2)
    raise SweepError(f"could not take a stable copy of {binary} (being rebuilt?)")


def stages_of(runs):
    """Runs grouped by dependency depth: a run comes after the isolated runs it takes T_SP from."""
    by_key = {}
    for r in runs:
        r.check()
        if r.key in by_key:
            raise SweepError(f"two runs with the key {r.key}")
        by_key[r.key] = r
    depth = {}

    def depth_of(r, seen=()):
        if r.key in depth:
            return depth[r.key]
        if r.key in seen:
            raise SweepError(f"runs {' -> '.join(seen)} take T_SP from each other in a cycle")
        d = 0
        for proc, dep in (r.tsp_from or {}).items():
            if dep not in by_key:
                raise SweepError(f"run {r.key}: T_SP of {proc} from run {dep}, which is not in the sweep")
            d = max(d, depth_of(by_key[dep], seen + (r.key,)) + 1)
        depth[r.key] = d
        return d

    for r in runs:
        depth_of(r)
    return [[r for r in runs if depth[r.key] == k] for k in range(max(depth.values(), default=-1) + 1)]


def tsp_of(run, results):
    """{process: T_SP ns} from the isolated runs run.tsp_from names (done: in `results`)."""
    if run.tsp_from is None:
        return run.tsp
    tsp = {}
    for proc, dep in run.tsp_from.items():
        ps = results.stats(dep)["processes"]
        p = next((p for p in ps if p["name"] == proc), ps[0] if len(ps) == 1 else None)
        if p is None:
            raise SweepError(f"run {run.key}: run {dep} has no process {proc}")
        tsp[proc] = p["T_SP"]
    return tsp


def execute(runs, out_dir, args, name=None, log=sys.stderr, keep_failed=False):
    """Runs the sweep and returns its Results; exits 2 on bad input or an unavailable backend
    (before anything runs) and 1 when runs failed (after the others ran: re-invoking redoes only
    the failed ones). keep_failed: failed runs are listed and left out of the Results instead
    (Results.failed names them), for callers that report on the others."""
    try:
        return _execute(runs, out_dir, args, name or os.path.basename(os.path.normpath(out_dir)), log, keep_failed)
    except (SweepError, SweepFailed) as e:
        print(f"error: {e}", file=sys.stderr)
        sys.exit(e.exit_code)


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def _execute(runs, out_dir, args, name, log, keep_failed):
    stages = stages_of(runs)
    backend = backend_of(args)
    backend.check()
    out_dir = os.path.abspath(out_dir)
    sweep_dir = os.path.join(out_dir, ".sweep")
    binary, sha, desc = snapshot_binary(os.path.abspath(args.mpgpu), sweep_dir)
    for old in os.listdir(sweep_dir):  # snapshots of earlier binaries: no run uses them any more
        if old.startswith("mpgpu-") and old != os.path.basename(binary):
            os.remove(os.path.join(sweep_dir, old))
    print(f"sweep {name}: {len(runs)} runs in {len(stages)} stage(s), {desc}, backend {backend.describe()}", file=log)
    failed = {}  # key -> reason
    skipped = blocked = 0
    results = Results(out_dir)
    progress = Progress(name, len(runs), 0)
    # SIGTERM (a batch system ending the script) unwinds like Ctrl-C: the backends stop their tasks.
    old_term = signal.signal(signal.SIGTERM, _interrupt)
    try:
        for k, stage in enumerate(stages):
            todo = {}  # run dir -> run
            for r in stage:
                failed_deps = [d for d in (r.tsp_from or {}).values() if d in failed]
                if failed_deps:
                    failed[r.key] = f"not run: its isolated run {failed_deps[0]} failed"
                    blocked += 1
                    progress.add(False)
                    continue
                d = os.path.join(out_dir, r.key)
                try:
                    argv, spec = prepare(r, d, binary, sha, tsp_of(r, results))
                except FileNotFoundError as e:
                    raise SweepError(f"run {r.key}: {e.filename}: no such file")
                stats = None if args.redo else done_stats(d, spec)
                if stats is not None:
                    results[r.key] = stats
                    skipped += 1
                    progress.skip()
                    continue
                arm(d, argv, spec, r.timeout_s)
                todo[d] = r
            for attempt in range(args.retries + 1):
                if not todo:
                    break
                ended = {}

                def on_done(d, code):
                    ended[d] = code
                    progress.add(code == 0)

                stage_dir = os.path.join(sweep_dir, f"stage{k}" + (f"-retry{attempt}" if attempt else ""))
                backend.run(stage_dir, list(todo), on_done)
                todo = {d: r for d, r in todo.items() if ended.get(d) != 0}
                if todo and attempt < args.retries:
                    progress.retry(len(todo))
                    progress.note(f"{len(todo)} failed runs resubmitted (retry {attempt + 1} of {args.retries})")
            for d, r in todo.items():
                o = read_json(os.path.join(d, OUTCOME))
                why = f"exit {o['exit']}" if o else "no outcome (killed before it ended)"
                logs = [os.path.join(d, LOG)] + ([backend.logs[d]] if d in getattr(backend, "logs", {}) else [])
                failed[r.key] = f"{why}; log: {', '.join(logs)}"
    except KeyboardInterrupt:
        progress.close()
        print(f"sweep {name} interrupted: the runs that did not end are redone when it is invoked again", file=log)
        sys.exit(130)
    finally:
        signal.signal(signal.SIGTERM, old_term)
    progress.close()
    ran = len(runs) - skipped - blocked
    print(f"sweep {name}: {ran} runs ran, {skipped} were already done for the same inputs", file=log)
    if failed:
        lines = "\n".join(f"  {k}: {why}" for k, why in sorted(failed.items()))
        msg = (f"sweep {name}: {len(failed)} of {len(runs)} runs failed (invoke it again to redo only those, or add "
               f"--retries N):\n{lines}")
        if not keep_failed:
            raise SweepFailed(msg)
        print(f"error: {msg}", file=sys.stderr)
    results.failed = failed
    for r in runs:
        if r.key not in failed:
            results.stats(r.key)  # the runs that ran now: read once
    results.binary = desc
    return results
