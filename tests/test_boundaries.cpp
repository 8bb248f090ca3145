// Natural boundaries in the multigrid solver (issue 27), on the tested backend
// (tested_backend.hpp): Neumann, Robin, mixed and pure Neumann edges of Q1 problems on graded and
// deformed meshes against Eigen's direct solve, at the convergence rate of the all-Dirichlet
// problem; row-only Dirichlet input; a Dirichlet point inside a Neumann edge. The host's parts
// (transfers and Galerkin products at natural edges, input errors) are in
// test_natural_edge_host.cpp.

#include <adimg/error.hpp>
#include <adimg/io.hpp>
#include <adimg/solver.hpp>

#include <catch2/catch.hpp>

#include "boundary_problems.hpp"
#include "compare.hpp"
#include "tested_backend.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <random>
#include <string>
#include <vector>

using namespace adimg;
using namespace adimg_test;

namespace {

constexpr EdgeCondition D = EdgeCondition::dirichlet, Nm = EdgeCondition::neumann, R = EdgeCondition::robin;

struct Posed {
    const char* name;
    EdgeConditions edges;
};
const Posed problems[] = {
    {"Neumann (Dirichlet west)", {D, Nm, Nm, Nm}},
    {"Robin", {R, R, R, R}},
    {"mixed (Dirichlet west+south, Neumann east, Robin north)", {D, Nm, D, R}},
    {"pure Neumann", {Nm, Nm, Nm, Nm}},
};

/// The solver options of these tests: the defaults on the tested backend, to 10 digits.
SolverOptions ten_digits(Precision precision = Precision::mixed) {
    SolverOptions options = tested_options(precision);
    options.digits = 10;
    return options;
}

/// Digits gained per outer iteration: -log10 of the average defect reduction.
double digits_per_iteration(const SolveReport& r) { return r.digits_gained() / r.outer_iterations; }

/// Solves `system` on `mesh` with adimg and returns the report; x receives the solution.
SolveReport solve(const FemMesh& mesh, const FemSystem& system, std::vector<double>& x,
                  const SolverOptions& options = ten_digits()) {
    const GridMatrix A = GridMatrix::from_eigen(mesh.grid, system.A);
    Solver solver(options);
    solver.setup(A);
    x.clear();
    return solver.solve(system.b, x);
}

}  // namespace

TEST_CASE("Neumann, Robin, mixed and pure Neumann edges match a direct solve to 1e-8, at the all-Dirichlet "
          "problem's convergence rate (graded and deformed meshes, variable coefficient)",
          "[boundary]") {
    for (const FemMesh& mesh : {graded_mesh(7), deformed_mesh(7)}) {
        std::vector<double> x;
        const SolveReport dirichlet = solve(mesh, assemble(mesh, {D, D, D, D}), x);
        REQUIRE(dirichlet.ok());
        std::printf("%s 129^2, all Dirichlet: %d outer iterations (%s), %.2f digits per iteration\n",
                    mesh.name.c_str(), dirichlet.outer_iterations, dirichlet.iterations().c_str(),
                    digits_per_iteration(dirichlet));
        for (const Posed& posed : problems) {
            INFO(mesh.name << " mesh, " << posed.name);
            const FemSystem system = assemble(mesh, posed.edges);
            const bool singular = pure_neumann(posed.edges);
            const GridMatrix A = GridMatrix::from_eigen(mesh.grid, system.A);
            CHECK(A.natural_edges().west == (posed.edges[0] != D));
            CHECK(A.natural_edges().north == (posed.edges[3] != D));
            CHECK(A.constant_null_space() == singular);
            const SolveReport report = solve(mesh, system, x);
            REQUIRE(report.ok());
            const double difference = relative_difference(x, reference_solution(system, singular));
            std::printf("%s 129^2, %s: %d outer iterations (%s), %.2f digits per iteration, %.2e from the direct "
                        "solve\n",
                        mesh.name.c_str(), posed.name, report.outer_iterations, report.iterations().c_str(),
                        digits_per_iteration(report), difference);
            CHECK(difference <= 1e-8);
            // Within 20% of the all-Dirichlet problem: the iterations and the average reduction.
            CHECK(report.outer_iterations <= std::ceil(1.2 * dirichlet.outer_iterations));
            CHECK(digits_per_iteration(report) >= 0.8 * digits_per_iteration(dirichlet));
            if (singular) {
                const double mean = std::accumulate(x.begin(), x.end(), 0.0) / x.size();
                CHECK(std::abs(mean) <= 1e-12 * std::sqrt(std::inner_product(x.begin(), x.end(), x.begin(), 0.0)));
            }
        }
    }
}

TEST_CASE("Natural edges converge with refinement and in double precision too", "[boundary]") {
    const FemMesh mesh = deformed_mesh(6);
    for (const Posed& posed : {problems[2], problems[3]}) {
        const FemSystem system = assemble(mesh, posed.edges);
        const std::vector<double> expected = reference_solution(system, pure_neumann(posed.edges));
        for (const OuterMethod outer : {OuterMethod::refinement, OuterMethod::cg})
            for (const Precision precision : {Precision::double_, Precision::mixed}) {
                INFO(posed.name << ", " << (outer == OuterMethod::cg ? "cg" : "refinement") << ", "
                                << to_string(precision));
                SolverOptions options = ten_digits(precision);
                options.outer = outer;
                std::vector<double> x;
                REQUIRE(solve(mesh, system, x, options).ok());
                CHECK(relative_difference(x, expected) <= 1e-8);
            }
    }
}

// On the deformed mesh: the point smoothers do not suit the graded one's stretched cells (Jacobi
// needs 218 cycles there with four Dirichlet edges and stalls with natural ones; ADI, the default,
// takes 8 either way, as the first test shows).
TEST_CASE("Natural edges with every smoother, and with PCG on the coarsest grid", "[boundary]") {
    const FemMesh mesh = deformed_mesh(6);
    const EdgeConditions edges{D, Nm, D, R};
    const FemSystem system = assemble(mesh, edges);
    const std::vector<double> expected = reference_solution(system, false);
    for (const Smoother smoother : {Smoother::jacobi, Smoother::gauss_seidel, Smoother::adi})
        for (const CoarseSolver coarse : {CoarseSolver::direct, CoarseSolver::pcg}) {
            INFO("smoother " << int(smoother) << ", coarse solver " << int(coarse));
            SolverOptions options = ten_digits();
            options.smoother = smoother;
            options.coarse_solver = coarse;
            std::vector<double> x;
            REQUIRE(solve(mesh, system, x, options).ok());
            CHECK(relative_difference(x, expected) <= 1e-8);
        }
}

TEST_CASE("Row-only Dirichlet rows (identity rows whose columns stay, as scikit-fem enforces them) are "
          "eliminated, and b is lifted at each solve",
          "[boundary]") {
    const FemMesh mesh = graded_mesh(6);
    const EdgeConditions edges{D, Nm, D, R};
    const FemSystem row_only = assemble(mesh, edges, true);
    const FemSystem symmetric = assemble(mesh, edges);
    const GridMatrix A = GridMatrix::from_eigen(mesh.grid, row_only.A);
    CHECK_FALSE(A.eliminated().empty());
    CHECK(A.natural_edges().east);
    CHECK_FALSE(A.natural_edges().west);
    // The solver's matrix is the symmetric elimination, and b is lifted to its right-hand side.
    const GridMatrix B = GridMatrix::from_eigen(mesh.grid, symmetric.A);
    CHECK(relative_max_difference(A.bands().values, B.bands().values) == 0.0);
    CHECK(relative_difference(A.solver_rhs(row_only.b), symmetric.b) <= 1e-14);
    std::vector<double> x;
    const SolveReport report = solve(mesh, row_only, x);
    REQUIRE(report.ok());
    CHECK(relative_difference(x, reference_solution(symmetric, false)) <= 1e-8);
    // The defect of the system as given (the couplings included) has dropped by 10 digits.
    const double b_norm = std::sqrt(std::inner_product(row_only.b.begin(), row_only.b.end(), row_only.b.begin(), 0.0));
    CHECK(A.defect_norm(row_only.b, x) <= 1e-9 * b_norm);
}

TEST_CASE("Dirichlet nodes carry their values exactly: x_q = b_q / a_qq, bit for bit, at the default 8 digits",
          "[boundary]") {
    const FemMesh mesh = deformed_mesh(6);
    for (const bool row_only : {false, true})
        for (const double diagonal : {1.0, 3.0}) {
            INFO((row_only ? "row-only" : "symmetric") << " elimination, a_qq = " << diagonal);
            const FemSystem system = assemble(mesh, {D, Nm, D, R}, row_only, diagonal);
            std::vector<double> x;
            REQUIRE(solve(mesh, system, x, tested_options()).ok());
            for (int j = 0; j < mesh.my; ++j)
                for (int i = 0; i < mesh.mx; ++i) {
                    const int q = j * mesh.mx + i;
                    if (i == 0 || j == 0) CHECK(x[q] == system.b[q] / system.A.coeff(q, q));  // west and south
                }
        }
}

TEST_CASE("A Dirichlet point inside a Neumann edge, and scaled Dirichlet rows next to natural edges", "[boundary]") {
    const FemMesh mesh = deformed_mesh(6);
    const int point = (mesh.my / 2) * mesh.mx + mesh.mx - 1;  // the middle of the east edge
    SECTION("a point in an otherwise pure Neumann problem") {
        const FemSystem system = assemble(mesh, {Nm, Nm, Nm, Nm}, false, 1.0, {point});
        const GridMatrix A = GridMatrix::from_eigen(mesh.grid, system.A);
        CHECK(A.natural_edges().all());
        CHECK_FALSE(A.constant_null_space());
        std::vector<double> x;
        REQUIRE(solve(mesh, system, x).ok());
        CHECK(x[point] == Approx(dirichlet_value(mesh.x[point], mesh.y[point])).epsilon(1e-9));
        CHECK(relative_difference(x, reference_solution(system, false)) <= 1e-8);
    }
    SECTION("the same point enforced on its row alone, with Dirichlet rows of diagonal 3 on the west edge") {
        const FemSystem system = assemble(mesh, {D, Nm, Nm, R}, true, 1.0, {point});
        const FemSystem symmetric = assemble(mesh, {D, Nm, Nm, R}, false, 3.0, {point});
        std::vector<double> x, y;
        REQUIRE(solve(mesh, system, x).ok());
        REQUIRE(solve(mesh, symmetric, y).ok());
        const std::vector<double> expected = reference_solution(symmetric, false);
        CHECK(relative_difference(x, expected) <= 1e-8);
        CHECK(relative_difference(y, expected) <= 1e-8);
    }
}

TEST_CASE("Pure Neumann: b's component along the constant is removed (with a note beyond rounding), and x has "
          "zero mean",
          "[boundary]") {
    const FemMesh mesh = graded_mesh(6);
    FemSystem system = assemble(mesh, {Nm, Nm, Nm, Nm});
    std::vector<double> x;
    const SolveReport incompatible = solve(mesh, system, x);
    REQUIRE(incompatible.ok());
    CHECK(incompatible.message.find("pure Neumann") != std::string::npos);
    const std::vector<double> x_incompatible = x;
    const double mean = std::accumulate(system.b.begin(), system.b.end(), 0.0) / system.b.size();
    for (double& v : system.b) v -= mean;
    const SolveReport compatible = solve(mesh, system, x);
    REQUIRE(compatible.ok());
    CHECK(compatible.message.empty());
    CHECK(relative_difference(x, x_incompatible) <= 1e-9);
    // The preconditioner maps into the zero-mean vectors as well.
    Solver solver(ten_digits(Precision::double_));
    solver.setup(GridMatrix::from_eigen(mesh.grid, system.A));
    std::vector<double> z(system.b.size());
    solver.precondition(system.b.data(), z.data());
    CHECK(std::abs(std::accumulate(z.begin(), z.end(), 0.0)) <=
          1e-12 * std::sqrt(z.size() * std::inner_product(z.begin(), z.end(), z.begin(), 0.0)));
}

