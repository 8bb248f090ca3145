// Setup where the solve runs: a case's load vector and error computed by the backend
// (Solver::solve_case), and a user's matrix whose Galerkin levels the backend forms, with a
// values-only re-setup into the storage of the first; and the zeroed storage a setup writes into.

#include <adimg/error.hpp>
#include <adimg/hierarchy.hpp>
#include <adimg/nine_bands.hpp>
#include <adimg/problems.hpp>
#include <adimg/solver.hpp>

#include <catch2/catch.hpp>

#include "cpu_options.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

using namespace adimg;

using adimg_test::cpu_options;

TEST_CASE("solve_case gives the solve and the L2 error of the host's load vector and error measure", "[setup]") {
    for (const Precision precision : {Precision::mixed, Precision::double_, Precision::single}) {
        for (const char* name : {"U1", "A2", "A5"}) {
            INFO(name << ", " << to_string(precision));
            const CaseSpec spec = builtin_case(name);
            const int level = 7;
            Solver solver(cpu_options(precision));
            solver.setup(spec, level);
            std::vector<double> x_case;
            const CaseSolveReport solved = solver.solve_case(&x_case);

            const TensorMesh mesh = spec.mesh(level);
            const PolynomialProblem problem{spec.x.length, spec.y.length};
            std::vector<double> x;
            const SolveReport report = solver.solve(assemble_load(mesh, problem), x);
            CHECK(solved.report.status == report.status);
            CHECK(solved.report.outer_iterations == report.outer_iterations);
            CHECK(solved.report.inner_cycles == report.inner_cycles);
            CHECK(x_case == x);
            CHECK(solved.relative_l2_error == relative_l2_error(mesh, problem, x));
            // Without x the solve is the same and nothing comes back.
            const CaseSolveReport again = solver.solve_case();
            CHECK(again.relative_l2_error == solved.relative_l2_error);
        }
    }
}

TEST_CASE("solve_case needs a case's setup", "[setup][errors]") {
    Solver solver(cpu_options());
    CHECK_THROWS_AS(solver.solve_case(), input_error);
    const TensorMesh mesh = builtin_case("U1").mesh(5);
    solver.setup(GridMatrix(Grid::from_mesh(mesh), assemble_stiffness(mesh)));
    CHECK_THROWS_WITH(solver.solve_case(), Catch::Contains("setup(case, level)"));
}

TEST_CASE("A user's matrix: the backend's Galerkin levels equal galerkin_hierarchy(), and a values-only re-setup "
          "reuses their storage",
          "[setup][galerkin]") {
    const CaseSpec spec = builtin_case("A3");
    const int level = 8;
    const TensorMesh mesh = spec.mesh(level);
    const GridMatrix A(Grid::from_mesh(mesh), assemble_stiffness(mesh));
    const std::vector<double> b = assemble_load(mesh, PolynomialProblem{spec.x.length, spec.y.length});

    Solver from_matrix(cpu_options());
    from_matrix.setup(A);
    std::vector<double> x;
    const SolveReport report = from_matrix.solve(b, x);
    REQUIRE(report.ok());

    Solver from_hierarchy(cpu_options());
    from_hierarchy.setup(galerkin_hierarchy(A, SolverOptions{}.coarse_level));
    std::vector<double> y;
    from_hierarchy.solve(b, y);
    CHECK(x == y);

    // New values on the same grid: 2 A x = b has the solution x / 2.
    NineBands<double> doubled = A.bands();
    for (double& v : doubled.values) v *= 2.0;
    from_matrix.setup(GridMatrix(A.grid(), doubled));
    CHECK(from_matrix.allocation_count() == 1);
    std::vector<double> half;
    REQUIRE(from_matrix.solve(b, half).ok());
    double worst = 0.0, scale = 0.0;
    for (std::size_t p = 0; p < x.size(); ++p) {
        worst = std::max(worst, std::abs(2.0 * half[p] - x[p]));
        scale = std::max(scale, std::abs(x[p]));
    }
    CHECK(worst <= 1e-8 * scale);
}

TEST_CASE("ZeroedVector: zeros() and a new NineBands hold zeros, and every other value-initialisation writes "
          "its zeros (after a shrink too)",
          "[setup]") {
    // Large enough for calloc to map fresh pages, small enough for a reused heap block.
    for (const std::size_t n : {std::size_t(1000), std::size_t(3) << 20}) {
        INFO(n << " values");
        ZeroedVector<double> v = zeros<double>(n);
        REQUIRE(v.size() == n);
        CHECK(std::all_of(v.begin(), v.end(), [](double a) { return a == 0.0; }));
        std::fill(v.begin(), v.end(), 7.0);
        v.resize(n / 2);
        v.resize(n);  // regrown within the capacity: the second half must be written as zeros
        CHECK(std::count(v.begin(), v.end(), 7.0) == static_cast<std::ptrdiff_t>(n / 2));
        CHECK(std::count(v.begin(), v.end(), 0.0) == static_cast<std::ptrdiff_t>(n - n / 2));
        v.clear();
        v.resize(n);
        CHECK(std::all_of(v.begin(), v.end(), [](double a) { return a == 0.0; }));
    }
    const NineBands<float> A(513, 257);
    REQUIRE(A.values.size() == 9u * 513 * 257);
    CHECK(std::all_of(A.values.begin(), A.values.end(), [](float a) { return a == 0.0f; }));
}
