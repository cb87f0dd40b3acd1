"""Sweep files: YAML naming platforms, workloads (or traces), fixed --set overrides and a grid of
overrides whose every combination is a run. Every error names file:line:col and the key."""
import itertools
import os
import re

import yaml

from .errors import SweepError

KEYS = {
    "name": "the sweep's name (default: the file's name)",
    "out": "output directory (default: out/sweeps/NAME; relative to the current directory)",
    "platforms": "platform YAML files (relative to this file)",
    "workloads": "workload YAML files (relative to this file)",
    "traces": "Accel-Sim kernelslist.g files, each run as a one-process workload",
    "set": "overrides for every run: {key: value}, as mpgpu run --set",
    "grid": "overrides to sweep: {key: [values]}; every combination is a run",
    "isolated": "true: T_SP from isolated runs of their own (mpgpu run --isolated), shared by every run "
                "with the same platform and overrides; false (default): each run simulates its own",
    "timeout_s": "host seconds a run may take before it is stopped and counted as failed",
}


class Loc:
    def __init__(self, file, node):
        self.file, self.node = file, node

    def err(self, msg, node=None):
        m = (node or self.node).start_mark
        return SweepError(f"{self.file}:{m.line + 1}:{m.column + 1}: {msg}")


def _scalar(loc, node, what):
    if not isinstance(node, yaml.ScalarNode):
        raise loc.err(f"{what}: expected a single value", node)
    return yaml.safe_load(yaml.serialize(node))


def _list(loc, node, what):
    if isinstance(node, yaml.ScalarNode):
        return [(node, _scalar(loc, node, what))]
    if not isinstance(node, yaml.SequenceNode) or not node.value:
        raise loc.err(f"{what}: expected a value or a non-empty list", node)
    return [(n, _scalar(loc, n, what)) for n in node.value]


def _mapping(loc, node, what):
    if not isinstance(node, yaml.MappingNode):
        raise loc.err(f"{what}: expected a mapping", node)
    seen = {}
    for k, v in node.value:
        key = _scalar(loc, k, what)
        if not isinstance(key, str):
            raise loc.err(f"{what}: keys are names", k)
        if key in seen:
            raise loc.err(f"{what}: key '{key}' given twice (first at line {seen[key].start_mark.line + 1})", k)
        seen[key] = k
        yield key, k, v


def _file(loc, base, node, value, what):
    if not isinstance(value, str):
        raise loc.err(f"{what}: expected a file name", node)
    path = value if os.path.isabs(value) else os.path.normpath(os.path.join(base, value))
    if not os.path.isfile(path):
        raise loc.err(f"{what}: {path}: no such file", node)
    return path


def load(path):
    """The sweep file's settings: {name, out, platforms, inputs [(kind, file)], sets, grid [(key, [values])],
    isolated, timeout_s}."""
    try:
        with open(path) as f:
            root = yaml.compose(f)
    except OSError as e:
        raise SweepError(f"{path}: {e.strerror}")
    except yaml.YAMLError as e:
        raise SweepError(f"{path}: not YAML: {e}")
    loc = Loc(path, root)
    if root is None:
        raise SweepError(f"{path}: empty sweep file")
    base = os.path.dirname(os.path.abspath(path))
    s = {"file": path, "name": os.path.splitext(os.path.basename(path))[0], "out": None, "platforms": [], "inputs": [],
         "sets": {}, "grid": [], "isolated": False, "timeout_s": None}
    for key, knode, v in _mapping(loc, root, "sweep file"):
        if key not in KEYS:
            raise loc.err(f"unknown key '{key}' (known: {', '.join(KEYS)})", knode)
        if key in ("name", "out"):
            val = _scalar(loc, v, key)
            if not isinstance(val, str) or not val:
                raise loc.err(f"{key}: expected a name", v)
            if key == "name" and not re.fullmatch(r"[A-Za-z0-9_.-]+", val):
                raise loc.err("name: letters, digits, '_', '.', '-' only (it names directories)", v)
            s[key] = val
        elif key == "platforms":
            s["platforms"] = [_file(loc, base, n, val, key) for n, val in _list(loc, v, key)]
        elif key in ("workloads", "traces"):
            s["inputs"] += [(key[:-1], _file(loc, base, n, val, key)) for n, val in _list(loc, v, key)]
        elif key == "set":
            for k, _, vn in _mapping(loc, v, "set"):
                s["sets"][k] = _scalar(loc, vn, f"set.{k}")
        elif key == "grid":
            for k, _, vn in _mapping(loc, v, "grid"):
                s["grid"].append((k, [val for _, val in _list(loc, vn, f"grid.{k}")]))
        elif key == "isolated":
            val = _scalar(loc, v, key)
            if not isinstance(val, bool):
                raise loc.err("isolated: expected true or false", v)
            s["isolated"] = val
        elif key == "timeout_s":
            val = _scalar(loc, v, key)
            if isinstance(val, bool) or not isinstance(val, (int, float)) or val <= 0:
                raise loc.err("timeout_s: expected a positive number of seconds", v)
            s["timeout_s"] = val
    if not s["platforms"]:
        raise loc.err("no platforms: give platforms: [FILE, ...]")
    if not s["inputs"]:
        raise loc.err("no workloads: give workloads: [FILE, ...] or traces: [kernelslist.g, ...]")
    overlap = set(s["sets"]) & {k for k, _ in s["grid"]}
    if overlap:
        raise loc.err(f"key {sorted(overlap)[0]} is both in set and in grid")
    return s


def yaml_value(v):
    """A value as mpgpu --set reads it."""
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def points(grid):
    """Every combination of the grid's values: [(label, {key: value})]."""
    keys = [k for k, _ in grid]
    out = []
    for combo in itertools.product(*[vals for _, vals in grid]):
        sets = dict(zip(keys, map(yaml_value, combo)))
        label = ",".join(f"{k}={v}" for k, v in sets.items()) or "base"
        out.append((re.sub(r"[^A-Za-z0-9_.,=+-]", "_", label), sets))
    return out
