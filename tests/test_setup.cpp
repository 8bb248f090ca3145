// Setup where the solve runs, on the tested backend (tested_backend.hpp): a case's load vector and
// error computed by the backend (Solver::solve_case), and a user's matrix whose Galerkin levels
// the backend forms, with a values-only re-setup into the storage of the first. The zeroed host
// storage a setup writes into is tested in test_zeroed_vector.cpp.

#include <adimg/error.hpp>
#include <adimg/hierarchy.hpp>
#include <adimg/nine_bands.hpp>
#include <adimg/problems.hpp>
#include <adimg/solver.hpp>

#include <catch2/catch.hpp>

#include "compare.hpp"
#include "tested_backend.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

using namespace adimg;

using adimg_test::tested_options;

TEST_CASE("solve_case gives the solve and the L2 error of the host's load vector and error measure", "[setup]") {
    for (const Precision precision : {Precision::mixed, Precision::double_, Precision::single}) {
        for (const char* name : {"U1", "A2", "A5"}) {
            INFO(name << ", " << to_string(precision));
            const CaseSpec spec = builtin_case(name);
            const int level = 7;
            Solver solver(tested_options(precision));
            solver.setup(spec, level);
            std::vector<double> x_case;
            const CaseSolveReport solved = solver.solve_case(&x_case);

            const TensorMesh mesh = spec.mesh(level);
            const PolynomialProblem problem{spec.x.length, spec.y.length};
            std::vector<double> x;
            const SolveReport report = solver.solve(assemble_load(mesh, problem), x);
            if (adimg_test::testing_cpu()) {  // the host's b and error measure themselves
                CHECK(solved.report.status == report.status);
                CHECK(solved.report.outer_iterations == report.outer_iterations);
                CHECK(solved.report.inner_cycles == report.inner_cycles);
                CHECK(x_case == x);
                CHECK(solved.relative_l2_error == relative_l2_error(mesh, problem, x));
            } else {
                // The GPU assembles b to 1e-14 of the host's and measures the error to 1e-12 of the
                // host's measure of the same x; a b that close may move a float solve's stop by a
                // step (single precision, whose refinement ends at float's rounding: two steps, as
                // A5 does on the H200) and its error by float's rounding, not by the stop's tolerance.
                const bool single = precision == Precision::single;
                CHECK(solved.report.status == report.status);
                CHECK(std::abs(solved.report.outer_iterations - report.outer_iterations) <= (single ? 2 : 1));
                CHECK(std::abs(solved.relative_l2_error - relative_l2_error(mesh, problem, x_case)) <=
                      1e-12 * solved.relative_l2_error);
                const double agreement = single ? 1e-2 : 1e-6;
                CHECK(std::abs(solved.relative_l2_error - relative_l2_error(mesh, problem, x)) <=
                      agreement * solved.relative_l2_error);
            }
            // Without x the solve is the same and nothing comes back.
            const CaseSolveReport again = solver.solve_case();
            CHECK(again.relative_l2_error == solved.relative_l2_error);
        }
    }
}

TEST_CASE("solve_case needs a case's setup", "[setup][errors]") {
    Solver solver(tested_options());
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

    Solver from_matrix(tested_options());
    from_matrix.setup(A);
    std::vector<double> x;
    const SolveReport report = from_matrix.solve(b, x);
    REQUIRE(report.ok());

    Solver from_hierarchy(tested_options());
    from_hierarchy.setup(galerkin_hierarchy(A, tested_options().coarse_level));
    std::vector<double> y;
    from_hierarchy.solve(b, y);
    CHECK(x == y);  // the backend's products equal galerkin_hierarchy()'s bit for bit (CPU and CUDA)

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
