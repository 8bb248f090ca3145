#pragma once
// Where `solve` runs its multigrid solve: adimg::Solver in this process (serial_solve.hpp), or
// adimg::DistributedSolver over MPI ranks (adimg-mpi, src/distributed/adimg_mpi.cpp). The
// command's sequence, its report and its --json are written once (command_solve.cpp) over this
// interface; an executor supplies the solver's calls and what its kind adds to the report.

#include "json_writer.hpp"

#include <adimg/grid.hpp>
#include <adimg/options.hpp>
#include <adimg/problems.hpp>
#include <adimg/report.hpp>
#include <adimg/solver.hpp>

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace adimg::cli {

class MultigridExecutor {
public:
    virtual ~MultigridExecutor() = default;

    // The solver's calls, as a Problem makes them (solve_problem.hpp).
    /// The case's levels, each rediscretized on its own mesh.
    virtual void setup(const CaseSpec& spec, int level) = 0;
    /// A whole matrix, with its Galerkin coarse levels.
    virtual void setup(const GridMatrix& A) = 0;
    /// The case of the last setup(spec, level) from a zero guess: its load vector and L2 error
    /// where the solve runs; `x` (unless null) receives the whole solution where the report is
    /// written (adimg-mpi: on rank 0).
    virtual CaseSolveReport solve_case(std::vector<double>* x, const StepCallback& on_step) = 0;
    /// A x = b from a zero guess, b and x of the whole grid.
    virtual SolveReport solve(const std::vector<double>& b, std::vector<double>& x, const StepCallback& on_step) = 0;

    // What the report reads; none of these communicates, so that only the reporting process may call them.
    /// The options as they run: effective_options(), and the backend that runs (cpu or cuda, not
    /// automatic), which the print-out and the JSON's configuration name.
    virtual const SolverOptions& options() const = 0;
    virtual std::string notice() const = 0;           ///< why backend auto chose the CPU, or ""
    virtual std::string device_name() const = 0;
    /// The levels, coarsest first, with the memory each holds (adimg-mpi: over all ranks).
    virtual std::vector<LevelInfo> levels() const = 0;
    virtual double setup_seconds() const = 0;  ///< the solver's setup (adimg-mpi: its slowest rank's)
    /// The phases of setup where the solver times them apart (Solver); nothing otherwise.
    virtual std::optional<SetupTimes> setup_times() const = 0;
    /// Lines of the report that this kind of executor adds after the outcome (adimg-mpi: the ranks,
    /// their transport and lines, the messages per V-cycle), and the same in the JSON report.
    virtual void print_run(std::FILE*, const SolveReport&) const {}
    virtual void write_run(JsonWriter&, const SolveReport&) const {}
};

}  // namespace adimg::cli
