#pragma once
// The distributed fast direct solver against the serial one: a right-hand side or a case solved
// both ways, and the comparison of their outcomes (status, refinement steps, solution, relative L2
// error). Used by the CPU ranks' tests (test_distributed_fast_direct.cpp) and the GPU ranks'
// (test_gpu_fast_direct.cpp).

#include <adimg/distributed_fast_direct.hpp>
#include <adimg/fast_direct.hpp>
#include <adimg/problems.hpp>

#include <catch2/catch.hpp>

#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace adimg::test {

/// The serial solver's options as the distributed solver runs: x transformed, on `backend`; at
/// least `min_refinements` refinement steps.
inline FastDirectOptions along_x(int min_refinements = 0, BackendKind backend = BackendKind::cpu) {
    FastDirectOptions options;
    options.backend = backend;
    options.axis = FastAxis::x;
    options.min_refinements = min_refinements;
    return options;
}

/// n reproducible values in [-1, 1), the same on every rank.
inline std::vector<double> pseudo_random(std::size_t n, std::uint64_t seed) {
    std::vector<double> v(n);
    std::uint64_t state = seed * 0x9E3779B97F4A7C15ull + 1;
    for (double& x : v) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        x = static_cast<double>(state >> 11) * 0x1.0p-52 - 1.0;
    }
    return v;
}

/// max |a - b| / max |b|
inline double max_relative_difference(const std::vector<double>& a, const std::vector<double>& b) {
    double difference = 0.0, size = 0.0;
    for (std::size_t p = 0; p < b.size(); ++p) {
        difference = std::max(difference, std::abs(a[p] - b[p]));
        size = std::max(size, std::abs(b[p]));
    }
    return difference / size;
}

struct Solved {
    FastDirectReport report;
    std::vector<double> x;          ///< the whole grid
    double relative_l2_error = 0;  ///< a case's (solve_case), else 0
};

inline Solved serial(const TensorMesh& mesh, const FastDirectEdges& edges, const std::vector<double>& b,
                     const FastDirectOptions& options = along_x()) {
    FastDirectSolver solver(options);
    solver.setup(mesh, edges);
    Solved s;
    s.report = solver.solve(b, s.x);
    return s;
}

inline Solved distributed(const TensorMesh& mesh, const FastDirectEdges& edges, const std::vector<double>& b,
                          const FastDirectOptions& options = along_x()) {
    DistributedFastDirectSolver solver(MPI_COMM_WORLD, options);
    solver.setup(mesh, edges);
    const RowRange rows = solver.rows();
    const std::size_t offset = static_cast<std::size_t>(rows.first) * solver.mx();
    std::vector<double> mine(static_cast<std::size_t>(rows.count) * solver.mx());
    Solved s;
    s.report = solver.solve(b.data() + offset, mine.data());
    s.x = solver.gather(mine.data());
    return s;
}

/// A case solved by solve_case(): its load vector assembled and its L2 error measured where the
/// solver runs.
inline Solved serial_case(const CaseSpec& spec, int level, const FastDirectOptions& options) {
    FastDirectSolver solver(options);
    solver.setup(spec, level);
    Solved s;
    const FastDirectCaseReport solved = solver.solve_case(&s.x);
    s.report = solved.report;
    s.relative_l2_error = solved.relative_l2_error;
    return s;
}

inline Solved distributed_case(const CaseSpec& spec, int level, const FastDirectOptions& options) {
    DistributedFastDirectSolver solver(MPI_COMM_WORLD, options);
    solver.setup(spec, level);
    std::vector<double> mine;
    const FastDirectCaseReport solved = solver.solve_case(&mine);
    Solved s;
    s.report = solved.report;
    s.relative_l2_error = solved.relative_l2_error;
    s.x = solver.gather(mine.data());
    return s;
}

/// The same status and refinement steps, and the same solution to `tolerance` (relative, max norm).
inline void check_same(const Solved& serial, const Solved& distributed, double tolerance = 1e-10) {
    const double difference = max_relative_difference(distributed.x, serial.x);
    INFO("serial: " << to_string(serial.report.status) << ", " << serial.report.refinement_steps
                    << " refinement steps, defect " << serial.report.final_defect << "; distributed: "
                    << to_string(distributed.report.status) << ", " << distributed.report.refinement_steps
                    << " steps, defect " << distributed.report.final_defect << "; solutions differ by " << difference
                    << " (relative, max norm)");
    CHECK(distributed.report.status == serial.report.status);
    CHECK(distributed.report.refinement_steps == serial.report.refinement_steps);
    CHECK(difference <= tolerance);
}

/// Every built-in case at L = 7, 8 and 9 solved by solve_case() both ways on `backend` (x
/// transformed), with at least 0 and 1 refinement steps: the same status, steps and solution to
/// 1e-10 (check_same); with one step both are the discrete solution to its doubles, and their
/// relative L2 errors agree to `l2_tolerance` of their value.
inline void check_every_case(BackendKind backend, double l2_tolerance) {
    for (const std::string& name : builtin_case_names())
        for (int level : {7, 8, 9})
            for (int min_refinements : {0, 1}) {
                INFO(name << " at L=" << level << ", at least " << min_refinements << " refinement steps");
                const CaseSpec spec = builtin_case(name);
                const FastDirectOptions options = along_x(min_refinements, backend);
                const Solved expected = serial_case(spec, level, options), got = distributed_case(spec, level, options);
                check_same(expected, got);
                if (min_refinements == 0) continue;
                const double difference =
                    std::abs(got.relative_l2_error - expected.relative_l2_error) / expected.relative_l2_error;
                INFO("relative L2 error " << expected.relative_l2_error << ", the distributed one off by " << difference
                                          << " of it");
                CHECK(difference <= l2_tolerance);
            }
}

/// A mesh without multigrid levels (37 x 45 elements: the rows cut evenly), graded both ways (the
/// eigenvector products in x), solved from a pseudo-random b both ways on `backend` with one
/// refinement step: the same status, steps and solution (check_same).
inline void check_uneven_mesh(BackendKind backend) {
    std::vector<double> hx(37), hy(45);
    for (std::size_t e = 0; e < hx.size(); ++e) hx[e] = 1.0 + 0.5 * std::sin(double(e));
    for (std::size_t e = 0; e < hy.size(); ++e) hy[e] = 1.0 / (1.0 + e);
    const TensorMesh mesh{Mesh1D{hx}, Mesh1D{hy}};
    const std::vector<double> b = pseudo_random(static_cast<std::size_t>(mesh.nodes()), 5);
    const FastDirectOptions options = along_x(1, backend);
    check_same(serial(mesh, {}, b, options), distributed(mesh, {}, b, options));
}

/// What a solve of A2 at L=8 on `backend` sends: per transform solve one all-gather (6 doubles
/// per mode) and, for its defect, one halo row to each neighbour and one norm; and ||b||.
inline void check_sends(BackendKind backend) {
    const CaseSpec spec = builtin_case("A2");
    const TensorMesh mesh = spec.mesh(8);
    const std::vector<double> b = assemble_load(mesh, PolynomialProblem{spec.x.length, spec.y.length});
    FastDirectOptions options;
    options.backend = backend;
    DistributedFastDirectSolver solver(MPI_COMM_WORLD, options);
    solver.setup(mesh);
    const RowRange rows = solver.rows();
    std::vector<double> x(static_cast<std::size_t>(rows.count) * solver.mx());
    const FastDirectReport report = solver.solve(b.data() + static_cast<std::size_t>(rows.first) * solver.mx(), x.data());
    const CommunicationCounts sent = solver.communication();
    const int transforms = report.outer_iterations, neighbours = (solver.rank() > 0) + (solver.rank() + 1 < solver.ranks());
    INFO(solver.method() << "; " << transforms << " transform solves; " << sent.messages << " messages, "
                         << sent.collectives << " collectives");
    REQUIRE(report.ok());
    CHECK(sent.messages == static_cast<long long>(transforms) * neighbours);
    CHECK(sent.message_bytes == static_cast<long long>(transforms) * neighbours * solver.mx() * 8);
    CHECK(sent.collectives == 1 + 2LL * transforms);
    CHECK(sent.collective_bytes == 8 + transforms * (6LL * 8 * (mesh.mx() - 2) + 8));
}

}  // namespace adimg::test
