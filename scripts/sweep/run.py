"""A run of a sweep: one file-in/file-out `mpgpu run`, its directory, and whether it is done."""
import dataclasses
import hashlib
import json
import os
from typing import Optional, Union

from .task import OUTCOME, SPEC


@dataclasses.dataclass
class Run:
    """key: unique in the sweep, the run's directory under the sweep's output directory.
    workload: a YAML file, or a dict written to the run's directory as workload.yaml.
    tsp_from: {process: key of an isolated run}: this run gets --tsp with those runs' T_SP and
    runs only after them. tsp: {process: ns} given directly. isolated: --isolated PROCESS.
    args: more `mpgpu run` arguments; "{out}" in them stands for the run's directory."""
    key: str
    platform: str
    workload: Union[str, dict, None] = None
    trace: Optional[str] = None
    sets: dict = dataclasses.field(default_factory=dict)
    tsp_from: Optional[dict] = None
    tsp: Optional[dict] = None
    isolated: Optional[str] = None
    args: tuple = ()
    timeout_s: Optional[float] = None

    def check(self):
        if (self.workload is None) == (self.trace is None):
            raise ValueError(f"run {self.key}: give exactly one of workload and trace")
        if self.tsp_from is not None and self.tsp is not None:
            raise ValueError(f"run {self.key}: give at most one of tsp_from and tsp")
        if os.path.isabs(self.key) or ".." in self.key.split("/") or not self.key:
            raise ValueError(f"run {self.key!r}: a key is a relative directory inside the sweep")


def file_digest(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def write_json_atomically(path, obj):
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w") as f:
        json.dump(obj, f, indent=1)
    os.replace(tmp, path)


def read_json(path):
    """The JSON in path, or None when it is missing or incomplete."""
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def prepare(run, run_dir, binary, binary_sha, tsp):
    """Writes the run's inputs to run_dir and returns (argv, spec hash). The hash covers what the
    result depends on: the binary's content, the argv, the platform, workload and trace files'
    content (not files they import) and the T_SP values."""
    import yaml
    os.makedirs(run_dir, exist_ok=True)
    if isinstance(run.workload, dict):
        wl = os.path.join(run_dir, "workload.yaml")
        text = yaml.safe_dump(run.workload, sort_keys=False)
        if read_text(wl) != text:
            with open(wl, "w") as f:
                f.write(text)
    else:
        wl = run.workload
    argv = [binary, "run", "--platform", run.platform]
    argv += ["--workload", wl] if wl is not None else ["--trace", run.trace]
    argv += ["--out", run_dir, "--jobs", "1"]
    if tsp is not None:
        tsp_file = os.path.join(run_dir, "tsp.json")
        write_json_atomically(tsp_file, tsp)
        argv += ["--tsp", tsp_file]
    if run.isolated:
        argv += ["--isolated", run.isolated]
    argv += [a.replace("{out}", run_dir) for a in run.args]
    for k, v in run.sets.items():
        argv += ["--set", f"{k}={v}"]
    h = hashlib.sha256()
    h.update(json.dumps({"binary": binary_sha, "argv": argv[1:], "tsp": tsp, "timeout_s": run.timeout_s}).encode())
    for f in (run.platform, wl, run.trace):
        if f is not None:
            h.update(file_digest(f).encode())
    return argv, h.hexdigest()


def read_text(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def done_stats(run_dir, spec):
    """The stats.json of the run in run_dir if it finished with exit 0 for this spec and the file
    is whole; else None."""
    outcome = read_json(os.path.join(run_dir, OUTCOME))
    if not outcome or outcome.get("spec") != spec or outcome.get("exit") != 0:
        return None
    stats = read_json(os.path.join(run_dir, "stats.json"))
    return stats if isinstance(stats, dict) and "processes" in stats and "host" in stats else None


def arm(run_dir, argv, spec, timeout_s):
    """Makes run_dir ready to run: no result of an earlier spec is left to be taken for this one."""
    for name in (OUTCOME, "stats.json"):
        try:
            os.remove(os.path.join(run_dir, name))
        except FileNotFoundError:
            pass
    write_json_atomically(os.path.join(run_dir, SPEC), {"argv": argv, "spec": spec, "timeout_s": timeout_s})
