"""Shared by the experiment scripts: the project root, Debian's python3 and matplotlib. Their runs go
through the sweep runner (scripts/sweep)."""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


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
