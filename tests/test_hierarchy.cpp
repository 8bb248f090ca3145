// The level hierarchy: Galerkin products R A P with the exact Q1 prolongation reproduce the
// rediscretized coarse matrices on nested meshes (docs/design.md §3), so a user's matrix handed in
// with its split positions gets the same multigrid as a built-in case.

#include "compare.hpp"

#include <adimg/problems.hpp>
#include <adimg/error.hpp>
#include <adimg/hierarchy.hpp>
#include <adimg/solver.hpp>

#include <solver/galerkin.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

using namespace adimg;

namespace {

/// max |a - b| over all entries of two nine-band matrices, divided by the largest |entry| of b.
double relative_to_largest(const NineBands<double>& a, const NineBands<double>& b) {
    REQUIRE(a.mx == b.mx);
    REQUIRE(a.my == b.my);
    return adimg_test::relative_max_difference(a.values, b.values);  // infinite where an entry is not finite
}

/// max over rows of (max |a - b| in the row) / (largest |entry| of b in the row): a stricter
/// check on the graded meshes, where the entries of different rows differ by many orders.
double relative_per_row(const NineBands<double>& a, const NineBands<double>& b) {
    double worst = 0.0;
    for (std::size_t p = 0; p < b.rows(); ++p) {
        double diff = 0.0, largest = 0.0;
        for (int k = 0; k < 9; ++k) {
            diff = std::max(diff, std::abs(a(k, p) - b(k, p)));
            largest = std::max(largest, std::abs(b(k, p)));
        }
        if (largest > 0.0) worst = std::max(worst, diff / largest);
    }
    return worst;
}

}  // namespace

TEST_CASE("design §3: Galerkin R·A·P equals the rediscretized coarse matrix on nested meshes (U1, A2, A5)",
          "[hierarchy][galerkin]") {
    // With the exact Q1 prolongation the Galerkin product of the fine stiffness matrix is the
    // stiffness matrix of the coarse mesh. Measured: every difference is below 5e-16 relative to
    // the largest entry, and below 7e-16 relative to the largest entry of its own row (rounding
    // only); we allow 1e-12 and 1e-10.
    for (const std::string name : {"U1", "A2", "A5"}) {
        const CaseSpec spec = builtin_case(name);
        for (int fine_level : {2, 4, 6}) {
            const TensorMesh fine = spec.mesh(fine_level), coarse = spec.mesh(fine_level - 1);
            const NineBands<double> galerkin = galerkin_coarse(assemble_stiffness(fine), split_positions(coarse.x, fine.x),
                                                               split_positions(coarse.y, fine.y));
            const NineBands<double> rediscretized = assemble_stiffness(coarse);
            const double largest = relative_to_largest(galerkin, rediscretized);
            const double per_row = relative_per_row(galerkin, rediscretized);
            INFO(name << " level " << fine_level << " -> " << fine_level - 1 << ": max |RAP - A_coarse| / max |A_coarse| = "
                      << largest << " (expected < 1e-12); worst row-relative difference " << per_row
                      << " (expected < 1e-10)");
            CHECK(largest < 1e-12);
            CHECK(per_row < 1e-10);
        }
    }
}

TEST_CASE("design §3: galerkin_hierarchy reproduces rediscretized_hierarchy level by level (U1, A2, A5, L=6)",
          "[hierarchy][galerkin]") {
    // Measured: at most 5.4e-15 relative to the largest entry (rounding accumulates over the five
    // Galerkin products down to level 1).
    for (const std::string name : {"U1", "A2", "A5"}) {
        const Hierarchy rediscretized = rediscretized_hierarchy(builtin_case(name), 6, 1);
        REQUIRE(rediscretized.levels.size() == 6);
        const Hierarchy galerkin =
            galerkin_hierarchy(GridMatrix(Grid::from_mesh(builtin_case(name).mesh(6)), rediscretized.finest().A), 1);
        REQUIRE(galerkin.levels.size() == rediscretized.levels.size());
        for (std::size_t l = 0; l < galerkin.levels.size(); ++l) {
            const HostLevel &g = galerkin.levels[l], &r = rediscretized.levels[l];
            const double difference = relative_to_largest(g.A, r.A);
            INFO(name << " level " << r.level << ": galerkin level " << g.level << ", grid " << g.A.mx << "x" << g.A.my
                      << " (expected " << r.A.mx << "x" << r.A.my << "), max difference relative to the largest entry "
                      << difference << " (expected < 1e-12)");
            CHECK(g.level == r.level);
            CHECK(g.split_x == r.split_x);
            CHECK(g.split_y == r.split_y);
            CHECK(difference < 1e-12);
        }
    }
}

TEST_CASE("design §3: multigrid on a Galerkin hierarchy converges like on the rediscretized one (A2, L=7, double)",
          "[hierarchy][galerkin][multigrid]") {
    const CaseSpec spec = builtin_case("A2");
    const TensorMesh mesh = spec.mesh(7);
    const std::vector<double> b = assemble_load(mesh, {spec.x.length, spec.y.length});
    const Hierarchy rediscretized = rediscretized_hierarchy(spec, 7, 1);
    const Hierarchy galerkin = galerkin_hierarchy(GridMatrix(Grid::from_mesh(spec.mesh(7)), rediscretized.finest().A), 1);

    SolverOptions options;
    options.backend = BackendKind::cpu;
    options.precision = Precision::double_;
    Solver a(options), g(options);
    a.setup(rediscretized);
    g.setup(galerkin);
    std::vector<double> xa, xg;
    const SolveReport ra = a.solve(b, xa), rg = g.solve(b, xg);
    INFO("rediscretized " << ra.iterations() << " " << to_string(ra.status) << ", Galerkin " << rg.iterations() << " "
                          << to_string(rg.status));
    REQUIRE(ra.ok());
    REQUIRE(rg.ok());
    CHECK(std::abs(ra.outer_iterations - rg.outer_iterations) <= 1);
    const double diff = adimg_test::relative_max_difference(xg, xa);
    // Measured: the same 6 cycles, solutions equal to 4e-15.
    INFO("max |x_rediscretized - x_galerkin| / max |x| = " << diff << " (expected < 1e-7: both stop at 8 digits)");
    CHECK(diff < 1e-7);
}

TEST_CASE("galerkin_coarse rejects grids that cannot be coarsened and split positions that do not fit",
          "[hierarchy][errors]") {
    NineBands<double> smallest(3, 3);
    CHECK_THROWS_AS(galerkin_coarse(smallest, std::vector<double>(), std::vector<double>()), input_error);
    NineBands<double> odd(5, 5);
    CHECK_THROWS_AS(galerkin_coarse(odd, std::vector<double>(1, 0.5), std::vector<double>(2, 0.5)), input_error);
}
