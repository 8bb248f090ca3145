#pragma once
// The distributed solver against the serial Solver: one case solved both ways, and the
// comparison of their outcomes (status, iteration counts, relative L2 error). Used by the CPU
// ranks' tests (test_distributed_solve.cpp) and the GPU ranks' (test_gpu_solves.cpp).

#include <adimg/distributed.hpp>
#include <adimg/grid.hpp>
#include <adimg/problems.hpp>
#include <adimg/solver.hpp>

#include <catch2/catch.hpp>

#include <mpi.h>

#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

namespace adimg::test {

/// What is compared: status, outer iterations, inner cycles, relative L2 error.
struct Outcome {
    double values[4] = {};
};

inline int world_rank() {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank;
}

/// How a solver is set up: from the case (its levels rediscretized), from its assembled matrix
/// (Galerkin levels), or from each rank's rows of that matrix.
enum class Setup { levels, matrix, rows };

/// This rank's rows of a whole matrix.
inline NineBands<double> rows_of(const NineBands<double>& A, RowRange rows) {
    NineBands<double> mine(A.mx, rows.count);
    for (int k = 0; k < 9; ++k)
        for (std::size_t q = 0; q < mine.rows(); ++q) mine(k, q) = A(k, static_cast<std::size_t>(rows.first) * A.mx + q);
    return mine;
}

/// The case on `level`, set up as `setup` says, solved from b = the load vector; its outcome.
template <class AnySolver>
Outcome solve_case(AnySolver& solver, const CaseSpec& spec, int level, Setup setup) {
    const TensorMesh mesh = spec.mesh(level);
    if (setup == Setup::levels) {
        solver.setup(spec, level);
    } else if constexpr (std::is_same_v<AnySolver, DistributedSolver>) {
        if (setup == Setup::rows) {
            const Grid grid = Grid::from_mesh(mesh);
            solver.setup(grid, rows_of(assemble_stiffness(mesh), solver.rows_for(grid)));
        } else {
            solver.setup(GridMatrix(Grid::from_mesh(mesh), assemble_stiffness(mesh)));
        }
    } else {
        solver.setup(GridMatrix(Grid::from_mesh(mesh), assemble_stiffness(mesh)));
    }
    const PolynomialProblem problem{spec.x.length, spec.y.length};
    const std::vector<double> b = assemble_load(mesh, problem);
    std::vector<double> x;
    SolveReport report;
    if constexpr (std::is_same_v<AnySolver, Solver>) {
        report = solver.solve(b, x);
    } else {
        const RowRange rows = solver.rows();
        std::vector<double> mine(static_cast<std::size_t>(rows.count) * solver.mx());
        report = solver.solve(b.data() + static_cast<std::size_t>(rows.first) * solver.mx(), mine.data());
        x = solver.gather(mine.data());
    }
    return {{double(report.status), double(report.outer_iterations), double(report.inner_cycles),
             relative_l2_error(mesh, problem, x)}};
}

/// The serial solve (on options.backend), on rank 0, its outcome broadcast.
inline Outcome serial(const CaseSpec& spec, int level, const SolverOptions& options, Setup setup = Setup::levels) {
    Outcome out;
    if (world_rank() == 0) {
        Solver solver(options);
        out = solve_case(solver, spec, level, setup);
    }
    MPI_Bcast(out.values, 4, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    return out;
}

/// The distributed solve on every rank of MPI_COMM_WORLD (on options.backend).
inline Outcome distributed(const CaseSpec& spec, int level, const SolverOptions& options, Setup setup = Setup::levels,
                    DistributedLines lines = DistributedLines::ppt) {
    DistributedSolver solver(MPI_COMM_WORLD, options, lines);
    return solve_case(solver, spec, level, setup);
}

/// The same status and iteration counts, and for a converged solve the same relative L2 error:
/// to double_tolerance in double precision (1e-10: CPU ranks; GPU ranks ask 1e-9 and say why,
/// test_gpu_solves.cpp). In mixed precision the float cycles differ by float's rounding
/// (the y-lines by the partition method instead of Thomas, the scaling 1 / ||d|| of the inner
/// right-hand side from sums taken in another order), which the last corrections carry into x:
/// measured differences of the L2 error up to 5e-9 of it (U3 with ADI); 1e-7 is asked. A failed
/// solve's iterate is no solution, and its error is not compared. Solves of more than 50 outer
/// steps (Jacobi on A2 at L=7: 269 steps that gain little each) are a process that rounding
/// steers, to another step count or status: they are reported, not compared.
inline void check_same(const Outcome& serial, const Outcome& distributed, Precision precision,
                       double double_tolerance = 1e-10) {
    const bool converged = serial.values[0] == double(SolveStatus::converged);
    const double tolerance = precision == Precision::double_ ? double_tolerance : 1e-7;
    const double difference = std::abs(distributed.values[3] - serial.values[3]) / serial.values[3];
    INFO("serial: status " << serial.values[0] << ", " << serial.values[1] << ":" << serial.values[2]
                           << "; distributed: status " << distributed.values[0] << ", " << distributed.values[1] << ":"
                           << distributed.values[2] << "; relative L2 errors " << serial.values[3] << " and "
                           << distributed.values[3] << ": relative difference " << difference);
    if (serial.values[1] > 50) {
        WARN("a long solve, not compared");
        return;
    }
    CHECK(distributed.values[0] == serial.values[0]);
    CHECK(distributed.values[1] == serial.values[1]);
    CHECK(distributed.values[2] == serial.values[2]);
    if (converged) CHECK(difference <= tolerance);
}

}  // namespace adimg::test
