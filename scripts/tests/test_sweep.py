"""The sweep runner on the local backend (ctest Sweep.*): results, resume, T_SP from isolated runs
of their own, failures, and bad input (exit 2, nothing run). MPGPU names the binary."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(SCRIPTS)
sys.path.insert(0, SCRIPTS)
from sweep.errors import SweepError  # noqa: E402
from sweep.run import Run  # noqa: E402
from sweep.runner import stages_of  # noqa: E402
from sweep.sweep_file import load, points  # noqa: E402

MPGPU = os.environ.get("MPGPU", os.path.join(ROOT, "build", "mpgpu"))
SMALL = f"""name: small
platforms: [{ROOT}/platforms/k20c.yaml]
workloads: [{ROOT}/configs/default.yaml]
grid:
  sm.count: [13, 7]
isolated: true
"""


def sweep(file, out, *extra, env=None):
    cmd = [sys.executable, os.path.join(SCRIPTS, "sweep"), file, "--out", out, "--mpgpu", MPGPU, "--jobs", "2", *extra]
    return subprocess.run(cmd, capture_output=True, text=True, env=env)


def load_json(*parts):
    with open(os.path.join(*parts)) as f:
        return json.load(f)


def write(d, name, text):
    p = os.path.join(d, name)
    with open(p, "w") as f:
        f.write(text)
    return p


class SweepFile(unittest.TestCase):
    def test_grid_points_are_every_combination(self):
        pts = points([("a", [1, 2]), ("b", [True, "x"])])
        self.assertEqual([p[1] for p in pts], [{"a": "1", "b": "true"}, {"a": "1", "b": "x"},
                                                {"a": "2", "b": "true"}, {"a": "2", "b": "x"}])
        self.assertEqual(pts[0][0], "a=1,b=true")
        self.assertEqual(points([]), [("base", {})])

    def test_errors_name_file_line_and_column(self):
        with tempfile.TemporaryDirectory() as d:
            cases = [
                (SMALL + "colour: blue\n", "small.yaml:7:1: unknown key 'colour' (known: name, out,"),
                (SMALL.replace("isolated: true", "isolated: 3"), "small.yaml:6:11: isolated: expected true or false"),
                (SMALL.replace("[13, 7]", "[]"), "small.yaml:5:13: grid.sm.count: expected a value or a non-empty list"),
                (SMALL + "timeout_s: 0\n", "small.yaml:7:12: timeout_s: expected a positive number"),
                (SMALL.replace("platforms:", "platforms: [nope.yaml]\nx:"), "small.yaml:2:13: platforms:"),
                (SMALL + "name: again\n", "small.yaml:7:1: sweep file: key 'name' given twice (first at line 1)"),
            ]
            for text, msg in cases:
                f = write(d, "small.yaml", text)
                with self.assertRaises(SweepError) as e:
                    load(f)
                self.assertIn(msg, str(e.exception))

    def test_stages_put_isolated_runs_first_and_refuse_bad_dependencies(self):
        iso = Run("iso", "p", workload="w", isolated="a")
        main = Run("main", "p", workload="w", tsp_from={"a": "iso"})
        self.assertEqual([[r.key for r in s] for s in stages_of([main, iso])], [["iso"], ["main"]])
        with self.assertRaisesRegex(SweepError, "not in the sweep"):
            stages_of([main])
        with self.assertRaisesRegex(SweepError, "two runs with the key iso"):
            stages_of([iso, iso])
        a = Run("a", "p", workload="w", tsp_from={"x": "b"})
        b = Run("b", "p", workload="w", tsp_from={"x": "a"})
        with self.assertRaisesRegex(SweepError, "cycle"):
            stages_of([a, b])


class LocalSweep(unittest.TestCase):
    def test_runs_resumes_and_redoes_only_what_is_missing(self):
        with tempfile.TemporaryDirectory() as d:
            f, out = write(d, "small.yaml", SMALL), os.path.join(d, "out")
            r = sweep(f, out)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("10 runs ran, 0 were already done", r.stderr)
            res = load_json(out, "sweep-results.json")
            self.assertEqual(len(res), 2)
            main = os.path.join(out, "k20c", "default", "sm.count=13", "run")
            # The multiprogrammed run took its T_SP from the isolated runs, not from simulations of its own.
            stats = load_json(main, "stats.json")
            self.assertEqual(stats["host"]["simulations"], 1)
            tsp = load_json(main, "tsp.json")
            for p in ("histo", "spmv", "sgemm", "cutcp"):
                iso = load_json(out, "k20c", "default", "sm.count=13", "isolated", p, "stats.json")
                self.assertEqual(tsp[p], iso["processes"][0]["T_SP"])
            # ... and they are what mpgpu measures when it runs the isolated runs itself.
            full = os.path.join(d, "full")
            subprocess.run([MPGPU, "run", "--platform", f"{ROOT}/platforms/k20c.yaml", "--workload",
                            f"{ROOT}/configs/default.yaml", "--out", full, "--jobs", "2"], check=True, capture_output=True)
            own = load_json(full, "stats.json")
            self.assertEqual(own["metrics"], stats["metrics"])

            r = sweep(f, out)
            self.assertIn("0 runs ran, 10 were already done", r.stderr)
            # An incomplete stats.json (a copy cut short, a full disk) is redone, and only it.
            with open(os.path.join(main, "stats.json"), "r+") as s:
                s.truncate(100)
            before = os.stat(os.path.join(out, "k20c", "default", "sm.count=7", "run", "stats.json")).st_mtime_ns
            r = sweep(f, out)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("1 runs ran, 9 were already done", r.stderr)
            self.assertEqual(load_json(out, "sweep-results.json"), res)
            after = os.stat(os.path.join(out, "k20c", "default", "sm.count=7", "run", "stats.json")).st_mtime_ns
            self.assertEqual(before, after)
            # A changed input is a different run: the grid point whose overrides changed runs again.
            r = sweep(write(d, "small.yaml", SMALL.replace("[13, 7]", "[13, 6]")), out)
            self.assertIn("5 runs ran, 5 were already done", r.stderr)

    def test_failed_runs_are_listed_with_their_logs_and_redone_alone(self):
        with tempfile.TemporaryDirectory() as d:
            f, out = write(d, "small.yaml", SMALL + "timeout_s: 0.001\n"), os.path.join(d, "out")
            r = sweep(f, out)
            self.assertEqual(r.returncode, 1, r.stderr)
            self.assertIn("sweep small: 10 of 10 runs failed", r.stderr)
            self.assertIn("sm.count=7/isolated/spmv: exit 124; log: ", r.stderr)
            self.assertIn("sm.count=7/run: not run: its isolated run", r.stderr)
            self.assertFalse(os.path.exists(os.path.join(out, "sweep-results.json")))
            r = sweep(write(d, "small.yaml", SMALL), out)
            self.assertEqual(r.returncode, 0, r.stderr)

    def test_bad_input_exits_2_and_runs_nothing(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "out")
            r = sweep(write(d, "s.yaml", SMALL + "colour: blue\n"), out)
            self.assertEqual(r.returncode, 2)
            self.assertIn("s.yaml:7:1: unknown key 'colour'", r.stderr)
            # An override mpgpu refuses: its message, with the file and key, before anything runs.
            r = sweep(write(d, "s.yaml", SMALL.replace("[13, 7]", "[13, -1]")), out)
            self.assertEqual(r.returncode, 2)
            self.assertIn("sm.count=-1", r.stderr)
            self.assertIn("sm.count", r.stderr.split("sm.count=-1", 1)[1])
            # A run naming a file that is not there (the API; sweep files check their files when loaded).
            code = ("import sys; sys.path.insert(0, %r); import sweep, argparse; ap = argparse.ArgumentParser(); "
                    "sweep.add_arguments(ap); a = ap.parse_args(['--mpgpu', %r]); "
                    "sweep.execute([sweep.Run('r', '/nonexistent/p.yaml', %r)], %r, a)"
                    % (SCRIPTS, MPGPU, f"{ROOT}/configs/default.yaml", out))
            r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn("error: run r: /nonexistent/p.yaml: no such file", r.stderr)
            # No Slurm on PATH.
            env = dict(os.environ, PATH="/nonexistent")
            r = sweep(write(d, "s.yaml", SMALL), out, "--backend", "slurm", env=env)
            self.assertEqual(r.returncode, 2)
            self.assertIn("--backend slurm: sbatch is not on PATH", r.stderr)
            self.assertFalse(os.path.exists(os.path.join(out, "k20c")))


if __name__ == "__main__":
    unittest.main()
