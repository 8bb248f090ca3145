#!/usr/bin/env python3
"""The acceptance view of issue 26 from solver_bench's JSON: per case and level, the default
(mixed) solve against double, its work units and cycles, and the L2 errors' agreement; with
the mixed rows of an older run beside it.

    python3 table.py defaults.json before.json > table.md

(before.json: an older run's defaults.json, from git history; stamp.txt names it.)
"""
import json
import sys

new = json.load(open(sys.argv[1]))
old = json.load(open(sys.argv[2])) if len(sys.argv) > 2 else []


def row(rows, case, level, precision, inner=None):
    for r in rows:
        if r["case"] == case and r["level"] == level and r["precision"] == precision and \
                (inner is None or r["inner"] == inner):
            return r
    return None


print("| case | L | mixed ms | cycles | work units | double ms | cycles | double / mixed | "
      "L2 error, mixed against double | before: mixed ms, cycles, work units |")
print("|---|---|---|---|---|---|---|---|---|---|")
for case in ["U1", "U2", "U3", "A1", "A2", "A3", "A4", "A5"]:
    for level in [10, 11, 12]:
        m, d = row(new, case, level, "mixed"), row(new, case, level, "double")
        o = row(old, case, level, "mixed", "cycles:1")
        before = f"{o['ms']:.2f}, {o['outer']}, {o['ms'] / o['work_unit_ms']:.0f}" if o else "-"
        agreement = abs(m["l2_error"] - d["l2_error"]) / d["l2_error"]
        print(f"| {case} | {level} | {m['ms']:.2f} | {m['outer']} | {m['ms'] / m['work_unit_ms']:.0f} | "
              f"{d['ms']:.2f} | {d['outer']} | {d['ms'] / m['ms']:.2f} | {agreement:.1e} | {before} |")
