#!/usr/bin/env python3
"""Storage of the hardware extensions: the model's sizes (mpgpu report) beside the published ones
(SPEC 2 on k20c, SPEC 3 operand log, SPEC 4 on gtx480), with the differences explained.
Usage: python3 scripts/extension_sizes.py
"""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MPGPU = os.path.join(ROOT, "build", "mpgpu")


def report(platform, *sets):
    cmd = [MPGPU, "report", "--platform", os.path.join(ROOT, "platforms", platform + ".yaml"), "--format", "json"]
    for s in sets:
        cmd += ["--set", s]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    return {x["name"]: x for x in json.loads(out)["extensions"]}


def fields(x):
    return " ".join(f"{f['name']}:{f['bits']}" for f in x["fields"])


def main():
    if not os.path.exists(MPGPU):
        sys.exit(f"{MPGPU} not found: build first")
    print("SPEC 2 scheduling framework on k20c (13 SMs, T_max 16, 8 contexts)")
    r = report("k20c")
    small = ["command_buffers", "active_queue", "ksrt", "smst"]
    for n in small + ["ptbq"]:
        x = r[n]
        print(f"  {n:<18} {x['entries']:>6} x {x['bits_per_entry']:>4} bits = {x['bytes_total']:>8.0f} B   {fields(x)}")
    total = sum(r[n]["bytes_total"] for n in small)
    ptbq_bytes = r["ptbq"]["bytes_total"]
    print(f"  {'framework total':<18} model {total:.0f} B   published < 512 B")
    print(f"  {'PTBQ':<18} model {r['ptbq']['bytes_total'] / 1024:.1f} KB   published about 21 KB "
          "(13 queues x 13 SMs x 16 TBs x 8 B: TB id 32 bits + save pointer 32 bits)")

    print("\nSPEC 3 operand log (entries of 32 threads x 8 B, plus warp id and valid bit)")
    for kb in (8, 16, 32):
        x = report("sixteen_sm", f"extensions.operand_log_bytes={kb * 1024}")["operand_log"]
        print(f"  {kb:>2} KB log: {x['entries']:>4} entries x {x['bits_per_entry']} bits = {x['bytes_per_sm']:.0f} B per SM"
              f"   published {kb} KB of operand storage (tags not counted)")

    print("\nSPEC 4 dual-kernel tables on gtx480 (8 TBs per SM, 15 SMs)")
    names = ["candidate_victim_sets", "allocation_positions", "running_tb_status", "preempting_allocation_status",
             "preempting_kernel"]
    for label, sets in (("positions = T_max (model default)", []),
                        ("64 positions (published allocation-position table)", ["extensions.dual_kernel_positions=64"])):
        r = report("gtx480", *sets)
        per_sm = sum(r[n]["bytes_per_sm"] for n in names)
        print(f"  {label}: {per_sm:.0f} B per SM")
        for n in names:
            x = r[n]
            print(f"    {n:<30} {x['entries']:>3} x {x['bits_per_entry']:>3} bits = {x['bytes_per_sm']:>6.0f} B   {fields(x)}")
    print("  published: about 0.5 KB per SM + 0.12 KB. Differences: the published allocation-position table has")
    print("  64 positions x 2 offsets x 16 bits = 256 B; the published candidate sets store up to 16 candidates x")
    print("  16 TB ids of 4 bits = 128 B, where the model keeps a K x P bitset (the same information for P <= 16,")
    print("  fewer bits); running-TB status is the same (4 B + 4 B + flush bit per resident TB).")
    print(json.dumps({"k20c_framework_bytes": total, "k20c_ptbq_bytes": ptbq_bytes, "gtx480_dual_kernel_bytes_per_sm": per_sm}))


if __name__ == "__main__":
    main()
