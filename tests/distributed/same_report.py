#!/usr/bin/env python3
"""Runs `adimg solve ARGS` and `MPIEXEC -np RANKS adimg-mpi solve ARGS`, each with --json and --out,
and checks that the distributed command is the serial one over ranks (CTest mpi_cli_same_as_serial):
rank 0 alone prints the report; the JSON reports hold the same configuration, levels, iterations
and relative L2 error (to 1e-7, mixed precision's rounding), the distributed one its ranks,
transport and messages per V-cycle; the solutions written agree to 1e-6 of their largest value.

    same_report.py ADIMG ADIMG_MPI MPIEXEC RANKS FOLDER ARGS..."""
import json
import pathlib
import subprocess
import sys


def run(command, folder, name):
    json_path, out_path = folder / f"{name}.json", folder / f"{name}.mtx"
    done = subprocess.run(command + ["--json", str(json_path), "--out", str(out_path)], capture_output=True, text=True,
                          timeout=300)
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} exited {done.returncode}:\n{done.stdout}{done.stderr}")
    with open(json_path) as f:
        report = json.load(f)
    lines = [line for line in open(out_path) if line.strip() and not line.startswith("%")]
    values = [float(line) for line in lines[1:]]  # after the size line
    return done.stdout, report, values


def main(adimg, adimg_mpi, mpiexec, ranks, folder, args):
    folder = pathlib.Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    _, serial, x_serial = run([adimg, "solve"] + args, folder, "serial")
    output, ranked, x_ranked = run([mpiexec, "-np", ranks, adimg_mpi, "solve"] + args, folder, "ranks")
    failures = []

    def expect(condition, what):
        if not condition:
            failures.append(what)

    expect(output.count("\nstatus converged") == 1, "the report printed once (by rank 0), with status converged")
    expect(output.count("\nlevels") == 1 and output.count("\nconvergence:") == 1, "the serial report's sections")
    for report in (serial, ranked):
        report["configuration"].pop("device")  # a process's device against the ranks'
    for key in ("case", "level", "method", "configuration", "status", "iterations"):
        expect(ranked.get(key) == serial.get(key), f"{key}: {ranked.get(key)} (ranks) against {serial.get(key)}")
    expect([(l["level"], l["mx"], l["my"]) for l in ranked["levels"]] ==
           [(l["level"], l["mx"], l["my"]) for l in serial["levels"]], "the same levels")
    error, expected = ranked["relative_l2_error"], serial["relative_l2_error"]
    expect(abs(error - expected) <= 1e-7 * expected, f"relative L2 error {error} against {expected}")
    distributed = ranked.get("distributed", {})
    expect(distributed.get("ranks") == int(ranks), f"ranks: {distributed.get('ranks')}")
    expect(bool(distributed.get("transport")), "a transport named")
    per_cycle = distributed.get("per_cycle_most_of_a_rank", {})
    expect(int(ranks) == 1 or per_cycle.get("messages", 0) > 0, f"messages per V-cycle: {per_cycle}")
    expect(per_cycle.get("collectives", 0) > 0, f"collectives per V-cycle: {per_cycle}")
    expect(ranked.get("solution_file") == str(folder / "ranks.mtx"), "the solution file in the JSON report")
    largest = max(abs(v) for v in x_serial)
    expect(len(x_ranked) == len(x_serial) and
           max(abs(a - b) for a, b in zip(x_ranked, x_serial)) <= 1e-6 * largest, "the same solution written")
    if failures:
        sys.exit("adimg-mpi against adimg solve " + " ".join(args) + ":\n  " + "\n  ".join(failures) +
                 f"\n--- adimg-mpi's output:\n{output}")
    print(f"adimg-mpi on {ranks} ranks reports as adimg solve: {serial['iterations']} iterations, "
          f"relative L2 error {error:.10e} against {expected:.10e}")


if __name__ == "__main__":
    main(*sys.argv[1:6], sys.argv[6:])
