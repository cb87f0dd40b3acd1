#!/usr/bin/env python3
"""SPEC 6 experiment (Jain, RTAS 2019): memory interference on GTX 1080 by L2 set, DRAM bank and module.

A primary thread (one lane of one warp on SM 0) chases a dependent chain of loads over lines that
all map to one (memory module, L2 set, DRAM bank) under the XOR equations of platforms/gtx1080.yaml;
N secondary threads (one lane each, on SMs 1..19) chase their own lines in the same set and bank
(SCSB), another set of the same bank (DCSB), the same set of another bank (SCDB), another set
and bank of the same module (DCDB) or another module (DM). The lines are offsets in one
physically contiguous allocation, reached through the page tables; lines of one (module, set,
bank) are offsets in the null space of the XOR equations. For every pattern and N the script
builds a one-process workload (two streams: the primary kernel, the N-TB secondary kernel) from configs/experiments/jain_interference.yaml
(see its header for every modelling choice), runs `build/mpgpu run`, and reports the primary's run time
normalized to N = 0, model vs published (worst SCSB, best DM, more than 10x apart). Outputs
(workloads, stats.json, summary_<mode>.json) go under out/jain_interference/. Ends with one JSON
line of the key figures. The runs go through the sweep runner (scripts/sweep): a re-invocation
skips the runs already done for the same inputs.
Usage: python3 scripts/jain_interference.py [--quick] [--out DIR] [--show-map] [--set K=V]... [sweep options]
  --quick:    N in {0, 5, 20, 50} (16 simulations; about 15 s on 2 cores);
  full:       N in {0, 1, 2, 5, 10, 20, 50} (31 simulations; about 15-20 s on 2 cores);
  --jobs N:   simulations at a time (default: the number of cores; a sweep option, like
              --backend local|slurm, --retries, --redo and --mpgpu: see scripts/sweep);
  --set K=V:  extra platform override for every run (sensitivity studies; use another --out);
  --show-map: only print the decoded (module, set, bank, row) of the lines used (as offsets in
              the allocation), the bits entering each equation and the null-space basis (from
              the platform file, as modules/common/address_map.cpp decodes), then exit.
"""
import os
import sys

import experiment_util

experiment_util.use_system_python("yaml")

import argparse
import copy
import json
import time

import yaml  # noqa: E402

from experiment_util import ROOT  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sweep  # noqa: E402

CONFIG = os.path.join(ROOT, "configs", "experiments", "jain_interference.yaml")
TIMEOUT_S = 900  # host seconds: a simulation still running has livelocked


class XorMap:
    """The model's xor decode (modules/common/address_map.cpp) from the platform file."""

    def __init__(self, plat):
        am = plat["address_map"]
        self.pb, self.sb, self.bb = am["partition_bits"], am["set_bits"], am["bank_bits"]
        self.parts = plat["l2"]["slices"]
        self.sets = plat["l2"]["sets"]
        self.banks = plat["dram"]["banks"]
        self.row_span = plat["dram"]["row_bytes"] * self.banks * plat["dram"]["channels"]

    @staticmethod
    def bits(a, eqs):
        out = 0
        for i, eq in enumerate(eqs):
            out |= (sum((a >> b) & 1 for b in eq) & 1) << i
        return out

    def decode(self, a):
        return (self.bits(a, self.pb) % self.parts, self.bits(a, self.sb) % self.sets,
                self.bits(a, self.bb) % self.banks, a // self.row_span)

    def entering(self, bit):
        return ([f"b{i}" for i, e in enumerate(self.pb) if bit in e] +
                [f"c{i + 3}" for i, e in enumerate(self.sb) if bit in e] +
                [f"b{i + 3}" for i, e in enumerate(self.bb) if bit in e])


def delta_of(bits):
    return sum(1 << b for b in bits)


def null_basis(m, top_bit):
    """Offsets (bits 7..top_bit-1) that decode to module 0, set 0, bank 0: one vector per free bit,
    in the order of their free bits (each vector's highest bit is its free bit)."""
    eqs = m.pb + m.sb + m.bb

    def col(b):
        return sum(1 << i for i, e in enumerate(eqs) if b in e)
    pivots, basis = {}, []  # pivots: leading equation -> (equation vector, offset bits)
    for b in range(7, top_bit):
        v, comb = col(b), 1 << b
        for lead in sorted(pivots, reverse=True):
            if v >> lead & 1:
                v ^= pivots[lead][0]
                comb ^= pivots[lead][1]
        if v:
            pivots[v.bit_length() - 1] = (v, comb)
        else:
            basis.append(comb)
    return basis


def line_offset(basis, i):
    """Line i of one (module, set, bank): the XOR of the basis vectors selected by i's bits."""
    x = 0
    for k, v in enumerate(basis):
        if i >> k & 1:
            x ^= v
    return x


J_BITS = 5  # line index bits 0..4: the line within a chain; bits 5..: the secondary TB


def primary_line(exp, basis, p):
    """Primary line p: the line numbers 24..31 no secondary uses, times TB parts 0, 1, 2, ..."""
    free = (1 << J_BITS) - exp["kernels"]["secondary"]["lines"]
    return line_offset(basis, (exp["kernels"]["secondary"]["lines"] + p % free) | (p // free) << J_BITS)


def secondary_base(exp, basis, pattern, j):
    """Secondary line j of TB 0 (offset); TB t's is this XOR tb_masks(t)."""
    return line_offset(basis, j) ^ delta_of(exp["patterns"][pattern])


def tb_masks(basis):
    """The kernel's tb_xor: index bit J_BITS + k of the line number for TB index bit k."""
    return [basis[J_BITS + k] for k in range(len(basis) - J_BITS)]


def secondary_line(exp, basis, pattern, t, j):
    x = secondary_base(exp, basis, pattern, j)
    for k, v in enumerate(tb_masks(basis)):
        if t >> k & 1:
            x ^= v
    return x


def relation(m, p, s):
    """SCSB / DCSB / SCDB / DCDB / DM of decoded line s relative to decoded line p."""
    if s[0] != p[0]:
        return "DM"
    return ("SC" if s[1] == p[1] else "DC") + ("SB" if s[2] == p[2] else "DB")


def check_map(exp, m, basis, n_max):
    """Every line used has the decode its pattern promises, lies in the allocation and in a row of
    its own; returns a list of problems."""
    prob = []
    kp, ks = exp["kernels"]["primary"], exp["kernels"]["secondary"]
    size = exp["allocation"]["bytes"]
    if size & (size - 1) or exp["allocation"]["va"] % size:
        prob.append("the allocation must be a power of two in size and aligned to it (offsets = physical bits)")
    free = (1 << J_BITS) - ks["lines"]
    if ks["lines"] >= 1 << J_BITS or free <= 0 or (kp["lines"] + free - 1) // free > 1 << (len(basis) - J_BITS):
        prob.append(f"line numbers: {J_BITS} bits per chain do not hold the primary's and a secondary's lines")
    if n_max > 1 << (len(basis) - J_BITS):
        prob.append(f"{n_max} secondaries need more than the {len(basis) - J_BITS} TB-index bits of the null space")
    used = {primary_line(exp, basis, j) for j in range(kp["lines"])}
    if len(used) != kp["lines"]:
        prob.append("primary lines repeat")
    p0 = m.decode(primary_line(exp, basis, 0))
    rows = set()
    for j in range(kp["lines"]):
        d = m.decode(primary_line(exp, basis, j))
        rows.add(d[3])
        if d[:3] != p0[:3]:
            prob.append(f"primary line {j} decodes to {d}, not {p0[:3]}")
    if len(rows) != kp["lines"]:
        prob.append("primary lines share DRAM rows")
    for pat in exp["patterns"]:
        seen = set()
        for t in range(n_max):
            for j in range(ks["lines"]):
                a = secondary_line(exp, basis, pat, t, j)
                d = m.decode(a)
                if pat == "SCSB" and a in used:
                    prob.append(f"secondary {t} line {j} is a primary line")
                if a >= size:
                    prob.append(f"{pat}: secondary {t} line {j} at offset {a:#x} is outside the allocation")
                if relation(m, p0, d) != pat:
                    prob.append(f"{pat}: secondary {t} line {j} decodes to {d}: {relation(m, p0, d)}")
                    break
                seen.add(a)
        if len(seen) != n_max * ks["lines"]:
            prob.append(f"{pat}: secondaries share lines")
    if kp["lines"] <= 16 or ks["lines"] <= 16:
        prob.append("chains of <= 16 lines would hit in the 16-way L2")
    return prob


def show_map(exp, m, basis):
    print("bits entering the equations (b0..b2 module, c3..c9 set, b3..b6 bank):")
    for b in range(7, 34):
        print(f"  bit {b:2d}: {' '.join(m.entering(b)) or '-'}")
    print("\nnull-space basis (offsets decoding to module 0, set 0, bank 0):")
    for k, v in enumerate(basis):
        print(f"  index bit {k:2d}: {v:#12x} (free bit {v.bit_length() - 1})")
    print(f"\n{'line (offset in the allocation)':<34}{'offset':>14}{'module':>8}{'set':>5}{'bank':>6}{'row':>8}")
    for j in (0, 1, 31):
        a = primary_line(exp, basis, j)
        print(f"{'primary line ' + str(j):<34}{a:>#14x}" + "".join(f"{v:>{w}}" for v, w in zip(m.decode(a), (8, 5, 6, 8))))
    for pat, bits in exp["patterns"].items():
        for t, j in ((0, 0), (0, 1), (49, 23)):
            a = secondary_line(exp, basis, pat, t, j)
            lab = f"{pat} (^{bits}) TB {t} line {j}"
            print(f"{lab:<34}{a:>#14x}" + "".join(f"{v:>{w}}" for v, w in zip(m.decode(a), (8, 5, 6, 8))))


def chain(lines_addr):
    return [{"op": "ld.global", "dst": "r1", "src": ["r1"], "addr": {"base": a}} for a in lines_addr]


def kernel(exp, role, grid, addrs):
    k = exp["kernels"][role]
    out = {"grid": grid, "threads_per_tb": k["threads_per_tb"], "registers_per_thread": k["registers_per_thread"],
           "shared_mem_per_tb": k["shared_mem_per_tb"]}
    prog = copy.deepcopy(k["program"])
    prog["body"] = [{"loop": k["passes"], "body": [{"op": "ld.global", "dst": "r1", "src": ["r1"], "addr": a}
                                                   for a in addrs]}]
    out["program"] = prog
    return out


def workload(exp, basis, pattern, n):
    va = exp["allocation"]["va"]
    kp, ks = exp["kernels"]["primary"], exp["kernels"]["secondary"]
    kernels = {"primary": kernel(exp, "primary", 1,
                                 [{"base": va + primary_line(exp, basis, j)} for j in range(kp["lines"])])}
    streams = [{"launches": [{"kernel": "primary"}]}]
    if n:
        masks = tb_masks(basis)
        kernels["secondary"] = kernel(exp, "secondary", n, [{"base": va + secondary_base(exp, basis, pattern, j),
                                                             "tb_xor": masks} for j in range(ks["lines"])])
        streams.append({"launches": [{"kernel": "secondary"}]})
    alloc = {"name": "lines", "va": va, "bytes": exp["allocation"]["bytes"], "contiguous": True}
    proc = {"name": "interference", "memory": {"allocations": [alloc]}, "streams": streams}
    return {"name": f"jain-{pattern}-{n}", "seed": 1, "policy": "fcfs", "kernels": kernels, "processes": [proc]}


def measure(s, n):
    ks = {k["name"]: k for k in s["kernels"]}
    p = ks["primary"]
    r = {"primary_ns": p["end_ns"] - p["start_ns"], "primary_start_ns": p["start_ns"]}
    probs = []
    sm0 = s["sms"][0]
    tbs0 = sm0.get("tbs")
    if tbs0 != 1 or sm0.get("peak_resident_tbs") != 1:
        probs.append(f"SM 0 ran {tbs0} TBs (expected only the primary)")
    if n:
        sec = ks["secondary"]
        r["secondary_start_ns"] = sec["start_ns"]
        if sec["end_ns"] < p["end_ns"]:
            probs.append("secondary kernel ended before the primary")
        if sec["start_ns"] > p["start_ns"] + 100:
            probs.append(f"secondaries started {sec['start_ns'] - p['start_ns']:.0f} ns after the primary")
    tr = s["processes"][0].get("translation", {})
    r["translation"] = {k: v for k, v in tr.items() if k in ("l1_tlb", "l2_tlb") or not isinstance(v, (list, dict))}
    mem = s.get("memory", {})
    r["memory"] = {k: v for k, v in mem.items() if not isinstance(v, (list, dict))}
    return r, probs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer secondary counts (about 1 minute)")
    ap.add_argument("--out", default=os.path.join(ROOT, "out", "jain_interference"))
    ap.add_argument("--show-map", action="store_true", help="print the decoded lines and exit")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="extra override for every run (after the config's `sets`), e.g. dram.timing.RC=100")
    sweep.add_arguments(ap)
    a = ap.parse_args()
    with open(CONFIG) as f:
        exp = yaml.safe_load(f)
    platform = os.path.join(ROOT, exp["platform"])
    with open(platform) as f:
        plat = yaml.safe_load(f)
    m = XorMap(plat)
    basis = null_basis(m, exp["allocation"]["bytes"].bit_length() - 1)
    if a.show_map:
        show_map(exp, m, basis)
        return
    mode = "quick" if a.quick else "full"
    for kv in a.set:
        k, _, v = kv.partition("=")
        exp["sets"][k] = v
    ns = exp["secondaries"][mode]
    probs = check_map(exp, m, basis, max(ns))
    if probs:
        sys.exit("address map check failed:\n  " + "\n  ".join(probs))
    summary = run(a, exp, m, basis, mode, ns, platform)
    print(json.dumps(summary))


def run(a, exp, m, basis, mode, ns, platform):
    jobs = [("alone", 0)] + [(pat, n) for pat in exp["patterns"] for n in ns if n]
    keys = {job: f"{mode}/{job[0]}_{job[1]}" for job in jobs}  # run directories under --out
    runs = []
    for pat, n in jobs:
        wl = workload(exp, basis, pat if n else "SCSB", n)
        # T_SP placeholders: the experiment uses no T_SP, so mpgpu simulates no isolated run.
        runs.append(sweep.Run(key=keys[(pat, n)], platform=platform, workload=wl, sets=exp["sets"],
                              tsp={p["name"]: 1.0 for p in wl["processes"]}, timeout_s=TIMEOUT_S))
    t0 = time.time()
    res = sweep.execute(runs, a.out, a, name="jain_interference")
    bin_desc = res.binary
    results, problems = {}, []
    for pat, n in jobs:
        r, pr = measure(res[keys[(pat, n)]], n)
        r["host_s"] = res.outcome(keys[(pat, n)])["host_seconds"]
        results[(pat, n)] = r
        problems += [f"{pat} N={n}: {p}" for p in pr]

    p0 = m.decode(primary_line(exp, basis, 0))
    print(f"SPEC 6 interference (Jain): {mode} mode, {bin_desc}, --set " +
          " ".join(f"{k}={v}" for k, v in exp["sets"].items()))
    print(f"primary (offsets from the allocation's start, decoded as if it started at 0): module {p0[0]}, set {p0[1]}, "
          f"bank {p0[2]}; {exp['kernels']['primary']['lines']} lines x "
          f"{exp['kernels']['primary']['passes']} passes; secondaries: "
          + ", ".join(f"{pat} m/s/b {'/'.join(map(str, m.decode(secondary_line(exp, basis, pat, 0, 0))[:3]))}"
                      for pat in exp["patterns"]))
    base = results[("alone", 0)]["primary_ns"]
    norm = {pat: {n: (results[(pat, n)]["primary_ns"] / base if n else 1.0) for n in ns} for pat in exp["patterns"]}

    print(f"\nprimary run time alone: {base:.0f} ns ({exp['kernels']['primary']['lines'] * exp['kernels']['primary']['passes']}"
          f" dependent loads, {base / (exp['kernels']['primary']['lines'] * exp['kernels']['primary']['passes']):.0f} ns each)")
    print("primary run time / alone, by number of secondary threads:")
    print(f"{'pattern':<8}" + "".join(f"{'N=' + str(n):>9}" for n in ns))
    for pat in exp["patterns"]:
        print(f"{pat:<8}" + "".join(f"{norm[pat][n]:>9.2f}" for n in ns))
    nmax = max(ns)
    order = sorted(exp["patterns"], key=lambda p: -norm[p][nmax])
    groups = []  # patterns within 1% of each other are tied
    for p in order:
        if groups and norm[groups[-1][0]][nmax] <= norm[p][nmax] * 1.01:
            groups[-1].append(p)
        else:
            groups.append([p])
    order_txt = " > ".join(" = ".join(g) for g in groups)
    ratio = norm["SCSB"][nmax] / norm["DM"][nmax]
    pub = exp["published"]
    print(f"\nmemory counters at N={nmax} (whole run: primary + secondaries; MSHR occ = busy L2 MSHRs per slice, averaged over slices and the run):")
    print(f"{'pattern':<8}{'L2 hit':>8}{'MSHR occ':>10}{'MSHR-full waits':>17}{'DRAM row hit/miss/conflict':>28}{'DRAM GB/s':>11}")
    for pat in exp["patterns"]:
        mm = results[(pat, nmax)]["memory"]
        rows = "/".join(str(mm.get(f"dram_row_{x}")) for x in ("hits", "misses", "conflicts"))
        print(f"{pat:<8}{mm.get('l2_hit_rate', float('nan')):>8.2f}{mm.get('l2_mshr_occupancy', float('nan')):>10.2f}"
              f"{mm.get('l2_mshr_full_waits', 0):>17}{rows:>28}{mm.get('dram_bandwidth_gbps', float('nan')):>11.2f}")
    print(f"\ntranslation at N={nmax} (2 MiB pages; walks = pages touched once: no TLB capacity misses):")
    print(f"{'pattern':<8}{'L1 TLB hit':>11}{'L2 TLB hit':>11}{'walks':>7}{'mean walk (cycles)':>20}")
    for pat in ["alone"] + list(exp["patterns"]):
        tr = results[(pat, 0 if pat == "alone" else nmax)]["translation"]
        l1, l2 = tr.get("l1_tlb", {}), tr.get("l2_tlb", {})
        rate = lambda t: t.get("hits", 0) / t["accesses"] if t.get("accesses") else float("nan")
        print(f"{pat:<8}{rate(l1):>11.2f}{rate(l2):>11.2f}{tr.get('walks', 0):>7}{tr.get('walk_cycles_mean', 0):>20.0f}")
    print(f"\n{'':<34}{'model':>24}{'published':>24}")
    print(f"{'worst (most slowdown) at N=' + str(nmax):<34}{' = '.join(groups[0]):>24}{'SCSB':>24}")
    print(f"{'best (least slowdown) at N=' + str(nmax):<34}{' = '.join(groups[-1]):>24}{'DM':>24}")
    print(f"{'order worst..best':<34}{order_txt:>36}{'SCSB ... DM':>12}")
    print(f"{'SCSB / DM slowdown at N=' + str(nmax):<34}{ratio:>23.2f}x{'> ' + str(pub['scsb_over_dm_min']) + 'x':>24}")
    ends = "SCSB" in groups[0] and groups[-1] == ["DM"]
    verdict = ("reproduces" if ends and ratio > pub["scsb_over_dm_min"] else
               "order of the ends reproduces, size does not" if ends else "does not reproduce")
    if ends and len(groups[0]) > 1:
        verdict += f" (SCSB tied with {', '.join(p for p in groups[0] if p != 'SCSB')})"
    print(f"verdict: {verdict}")
    if problems:
        print("placement / coverage problems:\n  " + "\n  ".join(problems))
    elapsed = time.time() - t0
    print(f"{len(jobs)} simulations in {elapsed:.0f} s (host)")
    summary = {"mode": mode, "primary_alone_ns": round(base, 1), "n_max": nmax,
               "slowdown_at_nmax": {p: round(norm[p][nmax], 3) for p in exp["patterns"]},
               "scsb_over_dm": round(ratio, 3), "published_scsb_over_dm_min": pub["scsb_over_dm_min"],
               "order": order_txt, "verdict": verdict, "problems": len(problems), "host_seconds": round(elapsed, 1)}
    with open(os.path.join(a.out, f"summary_{mode}.json"), "w") as f:
        json.dump({"summary": summary, "normalized": {p: {str(n): v for n, v in d.items()} for p, d in norm.items()},
                   "runs": {f"{k[0]}_{k[1]}": v for k, v in results.items()}, "problems": problems,
                   "binary": bin_desc}, f, indent=1)
    return summary


if __name__ == "__main__":
    main()
