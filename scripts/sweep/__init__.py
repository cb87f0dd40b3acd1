"""The sweep runner every experiment script uses: a sweep is a list of independent runs (Run), each
a file-in/file-out `mpgpu run` in its own directory; execute() runs the ones not already done on
a backend (a local process pool, or Slurm job arrays) and returns their stats.json.

Command line for sweep files: python3 scripts/sweep FILE [--backend local|slurm] (docs/sweeps.md)."""
from .errors import SweepError, SweepFailed
from .run import Run
from .runner import MPGPU, ROOT, Results, add_arguments, execute

__all__ = ["Run", "execute", "add_arguments", "Results", "SweepError", "SweepFailed", "MPGPU", "ROOT"]
