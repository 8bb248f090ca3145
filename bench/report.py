#!/usr/bin/env python3
"""Turns the JSON of bench/run into results.md (the paper's Tables 1-6 for this machine, the
line solver against cuSPARSE, kernels against the copy bandwidth) and the PNG plots of Figs. 5-6."""
import json
import math
import pathlib
import sys

CASES = ["U1", "U2", "U3", "A1", "A2", "A3", "A4", "A5"]
VARIANTS = ["cycles:1", "cycles:2", "cycles:3", "digits:1", "digits:2", "digits:3"]
# Paper Table 1 (U1) and Table 2 (CPU-double), for reference columns.
PAPER_T1 = {2: (7.1663649e-2, 7.1663606e-2), 3: (1.7802522e-2, 1.7802586e-2), 4: (4.4428836e-3, 4.4429161e-3),
            5: (1.1103626e-3, 1.1102363e-3), 6: (2.7897810e-4, 2.7752805e-4), 7: (5.5209742e-5, 6.9380191e-5),
            8: (2.8037403e-5, 1.7344895e-5), 9: (2.2419906e-4, 4.3362264e-6), 10: (1.0585913e-3, 1.0841185e-6)}
PAPER_T2 = {("U1", 8): 1.7344895e-5, ("U1", 9): 4.3362264e-6, ("U2", 8): 1.6946217e-5, ("U2", 9): 4.2365330e-6,
            ("U3", 8): 1.6603963e-5, ("U3", 9): 4.1508011e-6, ("A1", 8): 2.2559231e-5, ("A1", 9): 5.6398002e-6,
            ("A2", 8): 3.3671244e-5, ("A2", 9): 8.4177915e-6, ("A3", 8): 4.9063089e-5, ("A3", 9): 1.2265724e-5,
            ("A4", 8): 6.3654794e-5, ("A4", 9): 1.5913491e-5, ("A5", 8): 6.6448219e-5, ("A5", 9): 1.6612151e-5}


def load(folder, name):
    path = folder / f"{name}.json"
    return json.loads(path.read_text()) if path.exists() else []


def find(rows, **keys):
    for r in rows:
        if all(r.get(k) == v for k, v in keys.items()):
            return r
    return None


def fmt_it(r):
    return f"{r['outer']}:{r['inner_cycles']}" if r else "-"


def per_digit(r):
    """The paper's normalised time: ms per unknown per digit gained."""
    return r["ms"] / (r["unknowns"] * r["digits"]) if r and r["digits"] > 0 else float("nan")


def smoother_name(r):
    """The smoother of a row, with Jacobi's damping where the row records it ("jacobi ω=0.6")."""
    if r["smoother"] == "jacobi" and "omega" in r:
        return f"jacobi ω={r['omega']:g}"
    return r["smoother"]


def ratio(a, b):
    return f"{a / b:.2f}" if a and b and not math.isnan(a) and not math.isnan(b) else "-"


def save_figure(plt, fig, path, title, bottom=0.0):
    """Writes a figure as PNG and gives the Markdown that shows it; `bottom` (a fraction of the
    height) is kept free below the axes for a note."""
    fig.tight_layout(rect=(0, bottom, 1, 1))
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return f"![{title}]({path.name})\n"


# The order of solvers in the peer tables; others follow in the order of the run.
HYPRE_SOLVERS = ["pcg-smg", "pcg-pfmg", "smg", "pfmg", "boomeramg", "pcg-boomeramg"]
PEER_ORDER = (["adimg", "adimg-1t", "adimg-rediscretized"] + [f"hypre-{s}" for s in HYPRE_SOLVERS] +
              [f"hypre3-{s}" for s in HYPRE_SOLVERS] + ["amgx-pcg-classical", "amgx-pcg-aggregation", "eigen-ldlt", "cholmod", "cudss"])
# What the ratio tables compare, and their names: time to solution first (the headline).
PEER_FIELDS = (("total_ms", "time to solution (matrix object, setup and solve, from host arrays)"), ("ms", "solve time"))


def reference_name(r):
    """The adimg row a peer's ratio is taken against: the one measured in the same process. A row
    of a program beside peer_bench (peer_bench_amgx, ...) has its own, adimg@<tag>."""
    process = r.get("process", "peer_bench")
    return "adimg" if process == "peer_bench" else "adimg@" + process[len("peer_bench_"):]


def peer_notes(rows, keys, ok, reference):
    """The facts a reader of a peer table must not have to dig for: which solves did not converge
    and why, which peers beat adimg on a row, and whether adimg is at least twice as fast as every
    converged peer at time to solution at L = 12, with where the time goes where it is not."""
    out = []
    failed = [r for r in rows if r.get("status") not in ("converged", "skipped")]
    out.append("### Solves that did not converge\n")
    if failed:
        out += [f"- {r['solver']} on {r['case']} at L = {r['level']}: {r['status']}"
                f"{', ' + r['iterations'] + ' iterations' if r.get('iterations') not in (None, '-') else ''}"
                f"{': ' + r['note'] if r.get('note') else ''}" for r in failed]
        skipped = sorted({(r["solver"], r["case"]) for r in rows if r.get("status") == "skipped"})
        if skipped:
            out.append("- not run on the finer levels of the case after that (skipped): " +
                       ", ".join(f"{s} on {c}" for s, c in skipped))
    else:
        out.append("- none: every solver converged on every case and level it ran.")
    out.append("")
    out.append("### Where a peer is faster than adimg\n")
    wins = []
    for c, L in keys:
        for r in rows:
            if r["case"] != c or r["level"] != L or r["solver"].startswith("adimg") or not ok(r):
                continue
            a = reference(r)
            for field, title in PEER_FIELDS:
                if ok(a) and a.get(field) and r.get(field) is not None and r[field] < a[field]:
                    wins.append(f"- {r['solver']} on {c} at L = {L}: {title.split(' (')[0]} {r[field]:.1f} ms against "
                                f"adimg's {a[field]:.1f} ms ({a['solver']}, ratio {r[field] / a[field]:.2f})")
    out += wins or ["- none: adimg is faster than every converged peer on every row, in time to solution and in solve time."]
    out.append("")
    levels12 = [k for k in keys if k[1] == 12]
    if levels12:
        out.append("### Time to solution at L = 12: adimg at least 2x faster than every converged peer?\n")
        out.append("| case | slowest margin: peer | peer ms | adimg ms | ratio | met | where the peer's and adimg's time goes "
                   "(matrix object / rest of setup / solve, ms) |")
        out.append("|---|---|---|---|---|---|---|")
        for c, L in levels12:
            peers = [r for r in rows if r["case"] == c and r["level"] == L and not r["solver"].startswith("adimg") and ok(r)
                     and ok(reference(r)) and r.get("total_ms")]
            if not peers:
                out.append(f"| {c} | - | - | - | - | - | no converged peer |")
                continue
            for r in sorted(peers, key=lambda r: r["total_ms"] / reference(r)["total_ms"]):
                a = reference(r)
                q = r["total_ms"] / a["total_ms"]
                split = lambda x: (f"{x.get('matrix_ms') or 0:.1f} / {x['setup_ms'] - (x.get('matrix_ms') or 0):.1f} / "
                                   f"{x['ms']:.1f}")
                out.append(f"| {c} | {r['solver']} | {r['total_ms']:.1f} | {a['total_ms']:.1f} | {q:.2f} | {'yes' if q >= 2 else '**no**'} | "
                           f"{r['solver']}: {split(r)}; {a['solver']}: {split(a)} |")
        out.append("")
    return out


def peers_section(folder, stamp):
    """adimg beside its peers (peers.json of bench/peers/run): the ratios to adimg, every row, plots."""
    rows = load(folder, "peers")
    if not rows:
        return []
    solvers = sorted({r["solver"] for r in rows}, key=lambda s: (PEER_ORDER.index(s) if s in PEER_ORDER else 99, s))
    keys = []
    for r in rows:
        if (r["case"], r["level"]) not in keys:
            keys.append((r["case"], r["level"]))
    keys.sort(key=lambda k: (CASES.index(k[0]) if k[0] in CASES else 99, k[1]))
    ok = lambda r: r is not None and r.get("status") == "converged"

    def reference(r):
        """The adimg row of r's process and run (bench/peers/run tags each row with its program's
        run; rows of older folders carry no tag), or None where that row was measured again in a
        later run: no ratio across runs."""
        a = find(rows, case=r["case"], level=r["level"], solver=reference_name(r))
        return a if a is not None and a.get("run") == r.get("run") else None

    runs = sorted({r["runs"] for r in rows if ok(r)})
    out = ["## adimg and its peers, side by side\n",
           f"Libraries: {stamp.get('libraries', '?').replace(';', '; ')}. BLAS: {stamp.get('blas', '?')}. "
           f"Load average before and after the run: {stamp.get('load average before', '?')}, {stamp.get('load average after', '?')}.\n",
           "Every solver solves the same system: adimg's assembly of the case at the level (boundary nodes as identity rows "
           "with no couplings into them), its load vector, x = 0 to start, and the stop ||b - A x|| / ||b|| < "
           f"{stamp.get('tolerance') or '1e-8'} by the "
           "solver's own measure (hypre's PCG recomputes b - A x before it stops). `relative defect` is b - A x recomputed in "
           "double after the solve. Setup runs from adimg's nine-band host arrays to a solver ready to solve (the library's "
           "matrix object, `matrix ms`, included: conversion, copy to the device, assembly; then coarse levels or the "
           "factorisation; the previous run's objects are freed before the timer starts); solve runs from b on the host to x on the host. Time to solution is setup + solve: what a user "
           "with the matrix in host arrays waits for. "
           f"Medians of {'/'.join(str(n) for n in runs)} runs after a warm-up (1 run for a row whose warm-up took over 5 s; a warm-up of over 60 s is itself the run). "
           "A ratio is the peer's time over adimg's, measured in the same process (a program beside peer_bench has its own "
           "adimg row, `adimg@<tag>`): above 1, adimg is faster; `-` where that adimg row was measured again in a later run. `threads`: the CPU threads a "
           "solver used (hypre from a distribution: one MPI rank without OpenMP; CHOLMOD: those of its BLAS); `gpu`: on the "
           "device. A solver that does not converge is shown from its warm-up and not run on the finer levels of that case "
           "(skipped).\n"]
    ref = "adimg"
    ref1 = "adimg-1t" if any(r["solver"] == "adimg-1t" for r in rows) else None
    if ref1:
        out.append("On a machine busy with other work (a load average above its core count) adimg's threads, which meet "
                   "at every sweep, lose most: `adimg-1t`, on one thread like the hypre and Eigen peers, is the steadier "
                   "reference there.\n")

    def cell_ratio(r, a, field):
        if not ok(r) or not ok(a) or not a.get(field):
            return "-" if not r else (r["status"] if r["status"] != "converged" else "-")
        return f"{r[field] / a[field]:.2f}"

    # On the CPU the peers run on one thread (a distribution's hypre has no OpenMP, Eigen's solver
    # is sequential): the ratios to adimg on one thread come first, those to adimg on all cores next
    # (or to the adimg of the peer's own process).
    references = [r for r in (ref1, ref) if r]
    others = [s for s in solvers if not s.startswith("adimg")]
    for field, title in PEER_FIELDS:
        for reference_solver in references:
            label = "adimg on one thread" if reference_solver == ref1 else ("adimg on all cores" if ref1 else "adimg of the same process")
            out.append(f"### Ratio of {title} to {label}\n")
            out.append(f"| case | L | N | adimg ms | " + " | ".join(others) + " |")
            out.append("|---|---|---|---|" + "---|" * len(others))
            for c, L in keys:
                a = find(rows, case=c, level=L, solver=ref)
                n = next(r["unknowns"] for r in rows if r["case"] == c and r["level"] == L)
                cells = []
                for s in others:
                    r = find(rows, case=c, level=L, solver=s)
                    against = find(rows, case=c, level=L, solver=reference_solver) if reference_solver == ref1 else (reference(r) if r else None)
                    cells.append(cell_ratio(r, against, field))
                out.append(f"| {c} | {L} | {n} | {a[field]:.1f} | " + " | ".join(cells) + " |" if ok(a) else
                           f"| {c} | {L} | {n} | - | " + " | ".join(cells) + " |")
            out.append("")
    out += peer_notes(rows, keys, ok, reference)

    out.append("### Every solve\n")
    out.append("| case | L | N | solver | backend | threads | status | iterations | matrix ms | setup ms | solve ms | to solution ms | "
               "to solution / adimg | solve / adimg | " + ("to solution / adimg-1t | " if ref1 else "") +
               "relative defect | L2 error | L2 error, relative difference to adimg | note |")
    out.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|" + ("---|" if ref1 else "") + "---|---|---|---|")
    fmt = lambda v, f: "-" if v is None else format(v, f)
    for c, L in keys:
        a1 = find(rows, case=c, level=L, solver=ref1) if ref1 else None
        for s in solvers:
            r = find(rows, case=c, level=L, solver=s)
            if r is None:
                continue
            a = reference(r)
            threads = r.get("threads")
            threads = "-" if threads is None else ("gpu" if threads == 0 else str(threads))
            diff = "-"
            if ok(r) and ok(a) and r.get("l2_error") and a.get("l2_error"):
                diff = f"{abs(r['l2_error'] - a['l2_error']) / a['l2_error']:.1e}"
            line = (f"| {c} | {L} | {r['unknowns']} | {s} | {r['backend']} | {threads} | {r['status']} | {r.get('iterations', '-')} | "
                    f"{fmt(r.get('matrix_ms'), '.2f')} | {fmt(r.get('setup_ms'), '.2f')} | {fmt(r.get('ms'), '.2f')} | "
                    f"{fmt(r.get('total_ms'), '.2f')} | {cell_ratio(r, a, 'total_ms')} | {cell_ratio(r, a, 'ms')} | ")
            if ref1:
                line += f"{cell_ratio(r, a1, 'total_ms')} | "
            line += (f"{fmt(r.get('relative_defect'), '.1e')} | {fmt(r.get('l2_error'), '.7e')} | {diff} | "
                     f"{(r.get('note') or '').replace('|', '/')} |")
            out.append(line)
    out.append("")
    # How far each converged solution's L2 error lies from adimg's: the algebraic error left at
    # the stop, seen against the discretisation error (about 1e-6 at L = 10).
    apart, agree = [], 0
    for c, L in keys:
        a = find(rows, case=c, level=L, solver=ref)
        for r in rows:
            if r["case"] == c and r["level"] == L and r["solver"] != ref and ok(r) and ok(a):
                d = abs(r["l2_error"] - a["l2_error"]) / a["l2_error"]
                if d > 1e-5:
                    apart.append(f"{r['solver']} {c} L={L} ({d:.1e})")
                else:
                    agree += 1
    out.append(f"L2 errors of converged solves within 1e-5 (relative) of adimg's: {agree} of {agree + len(apart)}" +
               (f"; further apart: {', '.join(apart)}." if apart else ".") + "\n")
    out += peer_plots(folder, stamp, rows, keys, solvers, ok)
    return out


def peer_plots(folder, stamp, rows, keys, solvers, ok):
    """Per case, time to solution and solve time against unknowns, log-log, a line per solver
    (the adimg@<tag> rows of the other processes left out: they repeat adimg's line)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return ["(matplotlib is not installed: no plots)\n"]
    out = []
    markers = "os^vD<>ph*xP"
    shown = [s for s in solvers if "@" not in s]
    for c in [c for c in CASES if any(k[0] == c for k in keys)]:
        fig, axes = plt.subplots(1, 2, figsize=(12.5, 4.2))
        for ax, field, title in ((axes[0], "total_ms", "time to solution (matrix object, setup, solve)"), (axes[1], "ms", "solve")):
            for i, s in enumerate(shown):
                pts = sorted((r["unknowns"], r[field]) for r in rows if r["case"] == c and r["solver"] == s and ok(r))
                if pts:
                    ax.plot([p[0] for p in pts], [p[1] for p in pts], marker=markers[i % len(markers)],
                            linestyle="-" if s.startswith("adimg") else "--", linewidth=2.2 if s == "adimg" else 1.2, label=s)
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlabel("unknowns N")
            ax.set_ylabel("ms")
            ax.set_title(f"{c}: {title}", fontsize=9)
            ax.grid(True, which="both", alpha=0.3)
        axes[1].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0))
        fig.suptitle(f"{stamp.get('gpu') if stamp.get('backend') == 'cuda' else stamp.get('cpu', '')}", fontsize=8)
        out.append(save_figure(plt, fig, folder / f"peers-{c}.png", c))
    return out


def main(folder):
    folder = pathlib.Path(folder)
    stamp = json.loads((folder / "stamp.json").read_text()) if (folder / "stamp.json").exists() else {}
    command = stamp.get("command", "bench/run")
    out = [f"# adimg comparison runs\n",
           f"Machine: {stamp.get('gpu', 'no GPU')}; host CPU: {stamp.get('cpu', '?')}; date {stamp.get('date', '?')}; "
           f"commit {stamp.get('commit', '?')}. Every ratio below comes from one run of `{command}`, "
           "both sides measured side by side. Times include the transfer of the right-hand side and the "
           "solution (the paper's convention) and are medians of repeated solves after a warm-up.\n"]

    t1 = load(folder, "table1")
    if t1:
        out.append("## Table 1: solver precision and accuracy (U1, ADI multigrid)\n")
        backend = t1[0]["backend"]
        out.append(f"Backend: {backend}. Relative L2 error; 'red.' is the reduction from the previous level (4 = O(h^2)).\n")
        out.append("| L | N | single: error | red. | status | double: error | red. | paper single | paper double |")
        out.append("|---|---|---|---|---|---|---|---|---|")
        prev = {}
        for level in sorted({r["level"] for r in t1}):
            s, d = find(t1, level=level, precision="single"), find(t1, level=level, precision="double")
            cells = []
            for key, r in (("single", s), ("double", d)):
                red = f"{prev[key] / r['l2_error']:.2f}" if key in prev and r else ""
                cells.append((f"{r['l2_error']:.7e}" if r else "-", red))
                if r:
                    prev[key] = r["l2_error"]
            paper = PAPER_T1.get(level, ("", ""))
            out.append(f"| {level} | {s['unknowns'] if s else '-'} | {cells[0][0]} | {cells[0][1]} | {s['status'] if s else '-'} | "
                       f"{cells[1][0]} | {cells[1][1]} | {paper[0]} | {paper[1]} |")
        out.append("")

    rows = load(folder, "tables") + load(folder, "tables_large")
    if rows:
        levels = sorted({r["level"] for r in rows})
        cases = [c for c in CASES if any(r["case"] == c for r in rows)]
        gpu = any(r["backend"] == "cuda" for r in rows)
        out.append("## Table 2: accuracy of the double and mixed solvers\n")
        out.append(f"| case | L | CPU-double | {'GPU' if gpu else 'CPU'}-mixed (digits:2) | relative difference | paper CPU-double |")
        out.append("|---|---|---|---|---|---|")
        for c in cases:
            for L in levels:
                cd = find(rows, case=c, level=L, backend="cpu", precision="double")
                gm = find(rows, case=c, level=L, backend="cuda", precision="mixed", inner="digits:2") or \
                    find(rows, case=c, level=L, backend="cpu", precision="mixed", inner="digits:2")
                diff = f"{abs(gm['l2_error'] - cd['l2_error']) / cd['l2_error']:.1e}" if cd and gm else "-"
                out.append(f"| {c} | {L} | {cd['l2_error']:.7e} | {gm['l2_error']:.7e} | {diff} | {PAPER_T2.get((c, L), '')} |"
                           if cd and gm else f"| {c} | {L} | - | - | - | |")
        out.append("")
        if gpu:
            for title, variants in (("Table 3: fixed inner cycles", VARIANTS[:3]), ("Table 4: inner digits gained", VARIANTS[3:])):
                out.append(f"## {title} (GPU, ADI; a:b = outer:total inner; time in ms)\n")
                out.append("| case | L | double #it | double ms | " + " | ".join(f"{v} #it | {v} ms" for v in variants) + " |")
                out.append("|---|---|---|---|" + "---|---|" * len(variants))
                for c in cases:
                    for L in levels:
                        gd = find(rows, case=c, level=L, backend="cuda", precision="double")
                        cells = []
                        for v in variants:
                            r = find(rows, case=c, level=L, backend="cuda", precision="mixed", inner=v)
                            cells.append(f"{fmt_it(r)} | {r['ms']:.3f}" if r else "- | -")
                        out.append(f"| {c} | {L} | {gd['outer'] if gd else '-'} | {gd['ms']:.3f} | " + " | ".join(cells) + " |"
                                   if gd else f"| {c} | {L} | - | - | " + " | ".join(cells) + " |")
                out.append("")
            for title, f in (("Table 5: speedups (raw times)", lambda r: r["ms"] if r else float("nan")),
                             ("Table 6: speedups of the normalised time per unknown per digit", per_digit)):
                out.append(f"## {title}\n")
                out.append("C = CPU backend (all host cores, OpenMP), G = GPU; (d) double, (m) mixed digits:2.\n")
                out.append("| case | L | C(d)/G(d) | C(m)/G(m) | C(d)/G(m) | G(d)/G(m) |")
                out.append("|---|---|---|---|---|---|")
                for c in cases:
                    for L in levels:
                        cd = f(find(rows, case=c, level=L, backend="cpu", precision="double"))
                        cm = f(find(rows, case=c, level=L, backend="cpu", precision="mixed"))
                        gd = f(find(rows, case=c, level=L, backend="cuda", precision="double"))
                        gm = f(find(rows, case=c, level=L, backend="cuda", precision="mixed", inner="digits:2"))
                        out.append(f"| {c} | {L} | {ratio(cd, gd)} | {ratio(cm, gm)} | {ratio(cd, gm)} | {ratio(gd, gm)} |")
                out.append("")
            out.append("## Whole solves in work units (GPU)\n")
            out.append("One work unit is one double-precision fine-grid defect b - A x, timed in the same run.\n")
            out.append("| case | L | double: ms | work units | mixed digits:2: ms | work units |")
            out.append("|---|---|---|---|---|---|")
            for c in cases:
                for L in levels:
                    gd = find(rows, case=c, level=L, backend="cuda", precision="double")
                    gm = find(rows, case=c, level=L, backend="cuda", precision="mixed", inner="digits:2")
                    if gd and gm and gd["work_unit_ms"] > 0:
                        out.append(f"| {c} | {L} | {gd['ms']:.3f} | {gd['ms'] / gd['work_unit_ms']:.0f} | {gm['ms']:.3f} | "
                                   f"{gm['ms'] / gm['work_unit_ms']:.0f} |")
            out.append("")

    figs = load(folder, "figures")
    if figs:
        out.append("## Figs. 5-6: time per unknown per digit, by smoother\n")
        try:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
            markers = {"jacobi": "o", "gauss-seidel": "s", "adi": "^"}
            for c in ("U1", "A2"):
                fig, ax = plt.subplots(figsize=(6, 4))
                failed = []  # the smoothers with no converged level, said on the plot
                for backend in ("cpu", "cuda"):
                    device = "GPU" if backend == "cuda" else "CPU"
                    rows = [r for r in figs if r["case"] == c and r["backend"] == backend]
                    for name in sorted({smoother_name(r) for r in rows}):
                        mine = [r for r in rows if smoother_name(r) == name]
                        pts = sorted((r["level"], per_digit(r) * 1e6) for r in mine if r["status"] == "converged")
                        if pts:
                            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker=markers[mine[0]["smoother"]],
                                    linestyle="-" if backend == "cuda" else "--", label=f"{device} {name}")
                        levels = sorted(r["level"] for r in mine if r["status"] != "converged")
                        if levels:
                            statuses = "/".join(sorted({r["status"] for r in mine if r["status"] != "converged"}))
                            failed.append(f"{device} {name}: {statuses} at L = {', '.join(map(str, levels))}")
                bottom = 0.0
                if failed:  # below the axes, where no curve or legend can hide it
                    fig.set_size_inches(6, 4 + 0.15 * (len(failed) + 1))
                    bottom = 0.035 * (len(failed) + 1)
                    fig.text(0.01, 0.01, "\n".join(["no point where the solve failed:"] + failed), fontsize=7,
                             va="bottom", ha="left")
                ax.set_yscale("log")
                ax.set_xlabel("level L")
                ax.set_ylabel("ns per unknown per digit")
                ax.set_title(f"{c}: mixed precision (digits:2), {stamp.get('gpu', '')}", fontsize=9)
                ax.grid(True, which="both", alpha=0.3)
                ax.legend(fontsize=7)
                out.append(save_figure(plt, fig, folder / f"fig-{c}.png", c, bottom))
        except ImportError:
            out.append("(matplotlib is not installed: no plots)\n")
        out.append("| case | L | backend | smoother | status | iterations | ms | ns per unknown per digit |")
        out.append("|---|---|---|---|---|---|---|---|")
        for r in sorted(figs, key=lambda r: (r["case"], r["backend"], smoother_name(r), r["level"])):
            out.append(f"| {r['case']} | {r['level']} | {r['backend']} | {smoother_name(r)} | {r['status']} | {fmt_it(r)} | "
                       f"{r['ms']:.3f} | {per_digit(r) * 1e6:.3f} |")
        out.append("")

    out += peers_section(folder, stamp)

    for name, title in (("tridiagonal", "Line solver against cuSPARSE"), ("kernels", "Kernels against the copy bandwidth")):
        md = folder / f"{name}.md"
        if md.exists():
            text = md.read_text()
            out.append(f"## {title}\n")
            out.append(text[text.find("copy bandwidth"):] if "copy bandwidth" in text else text)
            out.append("")
    (folder / "results.md").write_text("\n".join(out) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
