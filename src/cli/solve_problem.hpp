#pragma once
// What `solve` solves: a case (--case or --case-file) on a level, or a user's system (--matrix
// with --grid and --rhs). Either gives its matrix and right-hand side as the direct solve and the
// multigrid solver take them, and the accuracy of a solution, so that each solver's sequence is
// written once for both.

#include "cli_options.hpp"
#include "multigrid_executor.hpp"

#include <adimg/fast_direct.hpp>
#include <adimg/problems.hpp>
#include <adimg/solver.hpp>

#include "../common/seconds_since.hpp"

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace adimg::cli {

using adimg::seconds_since;

/// The options of the --matrix path.
struct MatrixOptions {
    std::string matrix, grid, rhs, x_widths, y_widths;
};

/// A problem to solve, as the direct solve, the multigrid solve and the reports see it.
class Problem {
public:
    virtual ~Problem() = default;

    /// The matrix and right-hand side of the direct solve.
    struct DirectSystem {
        const NineBands<double>& A;
        const std::vector<double>& b;
    };
    /// Builds the direct solve's system; building the case's matrix counts as preparation.
    virtual DirectSystem direct_system() = 0;
    /// Sets up the multigrid solver; assembling the case's levels counts as preparation.
    virtual void setup(MultigridExecutor& solver) = 0;
    /// Solves with the solver of setup() from a zero guess; x receives the solution if
    /// `keep_x` (a case's solve may leave it where it was computed). `accuracy` receives the
    /// JSON key and value of accuracy(), which this prints.
    virtual SolveReport solve(MultigridExecutor& solver, bool keep_x, std::vector<double>& x,
                              const StepCallback& on_step, std::pair<const char*, double>& accuracy) = 0;
    /// The nodes of the coarsest grid that the multigrid solve with `options` has, as the solver
    /// chooses it (for check_given_options()).
    virtual long long coarsest_nodes(const SolverOptions& options) const = 0;
    /// Prints the accuracy of x; returns its JSON key and value.
    virtual std::pair<const char*, double> accuracy(const std::vector<double>& x) const = 0;
    /// The fast direct solver's setup and solve, as setup(Solver&) and solve(Solver&, ...) are
    /// the multigrid solver's: a case's load vector assembled and its error measured where the
    /// solve runs. Only a case has them (check_ignored_options refuses --matrix with fast-direct).
    virtual void setup(FastDirectSolver& solver) = 0;
    virtual FastDirectReport solve(FastDirectSolver& solver, bool keep_x, std::vector<double>& x,
                                   std::pair<const char*, double>& accuracy) = 0;

    std::string kind;  ///< "case" or "matrix": the JSON key of `name`
    std::string name;  ///< the case's name, or the matrix file
    int level = 0;     ///< of the finest grid
    const char* preparation = "";      ///< what preparation_seconds timed: "case on the host" or "reading"
    double preparation_seconds = 0.0;  ///< before the solver's own setup
    bool galerkin = false;             ///< the coarse levels are Galerkin products R A P of the finest matrix
};

/// ||b - Ax|| / ||b|| (||b - Ax|| if b = 0), with norms that neither overflow nor underflow for
/// finite values (a right-hand side of 1e170 has a relative defect, not NaN).
double relative_defect(const std::vector<double>& b, const std::vector<double>& Ax);

/// The line of an accuracy (its JSON key and value, as Problem::accuracy() returns them):
/// "relative L2 error" with eight significant digits, or a matrix's relative defect with four.
void print_accuracy(std::FILE* out, const std::pair<const char*, double>& accuracy);

/// The problem of the command line: --matrix, or --case/--case-file (for the direct solve if
/// `direct`, with Galerkin coarse levels if `galerkin`). Throws input_error for options of both.
std::unique_ptr<Problem> load_problem(const ProblemOptions& problem, const MatrixOptions& matrix, bool direct, bool galerkin);

/// Throws input_error if a case's level is out of range or its grid would not fit the host's
/// memory, with the bytes per node of the multigrid solve (or of the direct solve if `direct`).
void check_case_size(const CaseSpec& spec, int level, bool direct);

}  // namespace adimg::cli
