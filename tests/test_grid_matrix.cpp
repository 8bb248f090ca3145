// The embedding API (include/adimg/grid_matrix.hpp): a user's nine-band matrix on a Grid, checked
// by GridMatrix, solved by Solver with Galerkin coarse levels; set up once, solve many.

#include <adimg/problems.hpp>
#include <adimg/io.hpp>
#include <adimg/error.hpp>
#include <adimg/solver.hpp>
#include <adimg/hierarchy.hpp>
#include <solver/stencil.hpp>

#include <catch2/catch.hpp>

#include "compare.hpp"
#include "tested_backend.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

using namespace adimg;

namespace {

using adimg_test::tested_options;
using adimg_test::relative_max_difference;

/// The message of the input_error that `make` throws (fails the test if it throws nothing).
template <class F>
std::string error_of(F&& make) {
    try {
        make();
    } catch (const input_error& e) {
        return e.what();
    }
    FAIL("no input_error was thrown");
    return {};
}

/// A smooth right-hand side, zero on the edge rows; `seed` varies it.
std::vector<double> smooth_rhs(int mx, int my, int seed) {
    std::vector<double> b(static_cast<std::size_t>(mx) * my, 0.0);
    for (int j = 1; j < my - 1; ++j)
        for (int i = 1; i < mx - 1; ++i)
            b[static_cast<std::size_t>(j) * mx + i] =
                std::sin((seed + 1) * 3.0 * i / mx) * std::cos((seed % 3 + 1) * 2.0 * j / my) + 0.1 * seed;
    return b;
}

}  // namespace

TEST_CASE("Grid: sizes, level numbering, split positions", "[api][grid]") {
    const Grid square(257, 257);
    CHECK(square.finest_level() == 8);
    CHECK(square.coarsest_level() == 1);
    CHECK(square.mx_on_level(1) == 3);
    CHECK(!square.has_positions());

    // 193 = 3*2^6 + 1, 97 = 3*2^5 + 1: halvings down to 7 x 4, then 4 x 3 and 3 x 3 on level 1;
    // the finest is level 8 (193 nodes, about 2^8 + 1).
    const Grid odd(193, 97);
    CHECK(odd.finest_level() == 8);
    CHECK(odd.coarsest_level() == 1);
    CHECK(odd.mx_on_level(3) == 7);
    CHECK(odd.my_on_level(3) == 4);
    CHECK(odd.mx_on_level(1) == 3);
    const auto [sx, sy] = odd.split_positions_from(1);
    REQUIRE(sx.size() == 7);
    CHECK(sx.front().size() == 2);  // 4 -> 3 nodes: elements [0, 2] and [2, 3]
    CHECK(sx.front().back() == 1.0);
    CHECK(sy.back().size() == 48);
    CHECK(sx.back() == std::vector<double>(96, 0.5));

    // 257 x 5: both halve to 129 x 3, then x alone (semi-coarsening) to 3 x 3.
    const Grid thin(257, 5);
    CHECK(thin.finest_level() == 8);
    CHECK(thin.coarsest_level() == 1);
    CHECK(thin.mx_on_level(7) == 129);
    CHECK(thin.my_on_level(7) == 3);
    CHECK(thin.my_on_level(1) == 3);

    // With widths: t from the fine widths, exact for nested meshes.
    const TensorMesh mesh = builtin_case("A2").mesh(4);
    const Grid graded = Grid::from_mesh(mesh);
    CHECK(graded.has_positions());
    const auto [gx, gy] = graded.split_positions_from(3);
    REQUIRE(gx.size() == 1);
    CHECK(gx[0] == split_positions(builtin_case("A2").mesh(3).x, mesh.x));
    CHECK(gy[0] == split_positions(builtin_case("A2").mesh(3).y, mesh.y));

    // Coordinates: widths by subtraction.
    const Grid from_x = Grid::from_coordinates({0.0, 0.25, 1.0}, {0.0, 0.5, 1.0});
    CHECK(from_x.widths_x() == std::vector<double>{0.25, 0.75});

    std::string msg = error_of([] { Grid(1, 257); });
    INFO(msg);
    CHECK(msg.find("Mx = 1") != std::string::npos);
    CHECK(msg.find("at least 3 nodes") != std::string::npos);
    msg = error_of([] { Grid(9, 2); });
    CHECK(msg.find("My = 2") != std::string::npos);
    msg = error_of([] { Grid::from_widths({0.5, -0.5}, {0.5, 0.5}); });
    CHECK(msg.find("element 1 in x") != std::string::npos);
    msg = error_of([] { Grid::from_coordinates({0.0, 0.5, 1.0}, {0.0, 0.7, 0.6}); });
    CHECK(msg.find("element 1 in y") != std::string::npos);
    CHECK(msg.find("strictly increasing") != std::string::npos);
}

TEST_CASE("Solver with positions: Galerkin on nested meshes reproduces rediscretization (U1, A2, A5, L=7)",
          "[api][galerkin]") {
    // The user's matrix is the built-in case's stiffness matrix with its widths; the Galerkin
    // hierarchy built by the API must give the rediscretized solver's iterations and solution.
    // Measured: identical iteration counts and solutions equal to 4e-15 in double (rounding in the
    // coarse matrices), bit for bit in mixed precision; we allow 1e-12.
    for (const std::string name : {"U1", "A2", "A5"}) {
        for (Precision precision : {Precision::mixed, Precision::double_}) {
            const CaseSpec spec = builtin_case(name);
            const int level = 7;
            const TensorMesh mesh = spec.mesh(level);
            const std::vector<double> b = assemble_load(mesh, {spec.x.length, spec.y.length});
            const SolverOptions options = tested_options(precision);

            Solver reference(options);
            reference.setup(rediscretized_hierarchy(spec, level, options.coarse_level));
            std::vector<double> x_ref;
            const SolveReport r_ref = reference.solve(b, x_ref);

            Solver api(options);
            api.setup(GridMatrix(Grid::from_mesh(mesh), assemble_stiffness(mesh)));
            CHECK(api.levels().front().level == options.coarse_level);
            CHECK(api.levels().back().level == level);
            std::vector<double> x;
            const SolveReport r = api.solve(b, x);
            const double diff = relative_max_difference(x, x_ref);
            INFO(name << " " << to_string(precision) << ": rediscretized " << r_ref.iterations()
                      << ", Galerkin through the API " << r.iterations() << ", max |x - x_ref| / max |x_ref| = " << diff
                      << " (expected < 1e-12)");
            REQUIRE(r_ref.ok());
            REQUIRE(r.ok());
            CHECK(r.outer_iterations == r_ref.outer_iterations);
            CHECK(r.inner_cycles == r_ref.inner_cycles);
            CHECK(diff < 1e-12);
        }
    }
}

TEST_CASE("Solver: one setup, ten solves, then a values-only setup without reallocation", "[api][reuse]") {
    // A non-square grid that is not a power of two (97 x 49 nodes: 96 = 3*2^5, 48 = 3*2^4; levels 7
    // down to 1), from an Eigen matrix, without positions (bilinear prolongation).
    Mesh1D x{std::vector<double>(96)}, y{std::vector<double>(48)};
    for (int e = 0; e < 96; ++e) x.widths[e] = 1.0 + 0.5 * std::sin(0.1 * e);
    for (int e = 0; e < 48; ++e) y.widths[e] = 0.5 + 0.25 * std::cos(0.2 * e);
    const TensorMesh mesh{x, y};
    const NineBands<double> bands = assemble_stiffness(mesh);
    const Grid grid(97, 49);
    SolverOptions options = tested_options();
    options.coarse_level = 1;  // 3 x 3 nodes, so that there is a V-cycle above the direct solve
    Solver solver(options);
    solver.setup(GridMatrix::from_eigen(grid, to_eigen(bands)));
    CHECK(solver.levels().back().level == 7);
    CHECK(solver.levels().front().level == 1);

    for (int s = 0; s < 10; ++s) {
        const std::vector<double> b = smooth_rhs(97, 49, s);
        std::vector<double> xs;
        const SolveReport r = solver.solve(b, xs);
        const std::vector<double> direct = direct_solve(bands, b);
        const double diff = relative_max_difference(xs, direct);
        INFO("solve " << s << ": " << to_string(r.status) << " " << r.iterations() << ", " << r.solve_seconds
                      << " s, difference to the direct solve " << diff);
        REQUIRE(r.ok());
        CHECK(r.final_defect <= 1e-8 * r.initial_defect);
        CHECK(diff < 1e-6);
    }
    CHECK(solver.allocation_count() == 1);
    CHECK(solver.solve_count() == 10);

    // New values on the same grid (a differently stretched mesh, scaled by 3): no new allocation.
    for (double& w : x.widths) w = 2.0 - 0.5 * std::cos(0.05 * w);
    NineBands<double> bands2 = assemble_stiffness(TensorMesh{x, y});
    for (std::size_t p = 0; p < bands2.rows(); ++p)
        for (int k = 0; k < 9; ++k)
            if (!on_boundary(static_cast<int>(p % 97), static_cast<int>(p / 97), 97, 49)) bands2(k, p) *= 3.0;
    NineBands<double> copy = bands2;
    solver.setup(GridMatrix(grid, std::move(copy)));
    CHECK(solver.allocation_count() == 1);
    CHECK(solver.setup_count() == 2);
    const std::vector<double> b = smooth_rhs(97, 49, 3);
    std::vector<double> xs;
    const SolveReport r = solver.solve(b, xs);
    REQUIRE(r.ok());
    CHECK(relative_max_difference(xs, direct_solve(bands2, b)) < 1e-6);

    // A different grid does allocate.
    const TensorMesh small = builtin_case("U1").mesh(5);
    solver.setup(GridMatrix(Grid(33, 33), assemble_stiffness(small)));
    CHECK(solver.allocation_count() == 2);
}

TEST_CASE("Solver: a second setup on the same grids with other split positions (A2's graded mesh, then U1's uniform "
          "one) solves as a fresh setup does, bit for bit",
          "[api][reuse]") {
    // The values-only path keeps split positions that did not change and must upload those that
    // did: a user's matrix with positions (the Galerkin levels' splits) and a case's meshes (the
    // levels' own).
    const int level = 7, m = 129;
    const std::vector<double> b = smooth_rhs(m, m, 1);
    auto from_matrix = [&](const char* name) {
        const TensorMesh mesh = builtin_case(name).mesh(level);
        return GridMatrix(Grid::from_mesh(mesh), assemble_stiffness(mesh));
    };
    auto solved = [&](Solver& solver) {
        std::vector<double> x;
        REQUIRE(solver.solve(b, x).ok());
        return x;
    };
    Solver fresh_matrix(tested_options()), reused_matrix(tested_options());
    fresh_matrix.setup(from_matrix("U1"));
    reused_matrix.setup(from_matrix("A2"));
    (void)solved(reused_matrix);
    reused_matrix.setup(from_matrix("U1"));
    CHECK(reused_matrix.allocation_count() == 1);
    CHECK((solved(reused_matrix) == solved(fresh_matrix)));

    Solver fresh_case(tested_options()), reused_case(tested_options());
    fresh_case.setup(builtin_case("U1"), level);
    reused_case.setup(builtin_case("A2"), level);
    (void)solved(reused_case);
    reused_case.setup(builtin_case("U1"), level);
    CHECK(reused_case.allocation_count() == 1);
    CHECK((solved(reused_case) == solved(fresh_case)));
}

TEST_CASE("GridMatrix: nine pointers, one band-major array and NineBands give the same matrix", "[api]") {
    const TensorMesh mesh = builtin_case("A1").mesh(4);
    const NineBands<double> bands = assemble_stiffness(mesh);
    const std::size_t n = bands.rows();
    std::array<const double*, 9> pointers;
    for (int k = 0; k < 9; ++k) pointers[k] = bands.values.data() + k * n;
    const GridMatrix a = GridMatrix::from_bands(Grid(17, 17), pointers);
    const GridMatrix b = GridMatrix::from_band_major(Grid(17, 17), bands.values.data());
    const GridMatrix c = GridMatrix::from_eigen(Grid(17, 17), to_eigen(bands));
    CHECK(a.bands().values == bands.values);
    CHECK(b.bands().values == bands.values);
    CHECK(c.bands().values == bands.values);
    CHECK(a.scaled_rows().empty());
}

TEST_CASE("GridMatrix: Dirichlet edge rows with a diagonal other than 1 are scaled, with b", "[api][boundary]") {
    // Edge rows a x_q = a g_q with a = 4 and g_q = 1 + q/n; interior equations with the boundary
    // eliminated. The solution must have x_q = g_q on the edge and match the direct solve inside.
    const int m = 33;
    const TensorMesh mesh = builtin_case("U2").mesh(5);
    NineBands<double> bands = assemble_stiffness(mesh);
    std::vector<double> b = smooth_rhs(m, m, 1);
    std::vector<double> g(b.size(), 0.0);
    for (int j = 0; j < m; ++j)
        for (int i = 0; i < m; ++i)
            if (on_boundary(i, j, m, m)) {
                const std::size_t q = static_cast<std::size_t>(j) * m + i;
                g[q] = 1.0 + static_cast<double>(q) / bands.rows();
                bands(C, q) = 4.0;
                b[q] = 4.0 * g[q];
            }
    const GridMatrix A(Grid(m, m), bands);
    CHECK(A.scaled_rows().size() == 4 * (m - 1));
    CHECK(A.bands()(C, 0) == 1.0);
    Solver solver(tested_options());
    solver.setup(A);
    std::vector<double> x;
    const SolveReport r = solver.solve(b, x);
    REQUIRE(r.ok());
    for (const auto& [q, a] : A.scaled_rows()) {
        CHECK(a == 4.0);
        CHECK(x[q] == Approx(g[q]).epsilon(1e-12));
    }
    // The defect of the system as given (unscaled edge rows) has dropped by 8 digits too.
    const double b_norm = std::sqrt(std::inner_product(b.begin(), b.end(), b.begin(), 0.0));
    CHECK(A.defect_norm(b, x) <= 1e-8 * b_norm);
    CHECK(relative_max_difference(x, direct_solve(A.bands(), A.solver_rhs(b))) < 1e-7);
    // The Eigen and pointer forms scale the same rows (and leave the caller's b as it was).
    const std::vector<double> b_before = b;
    std::vector<double> x_pointer(b.size());
    REQUIRE(solver.solve(b.data(), x_pointer.data(), InitialGuess::zero).ok());
    CHECK(b == b_before);
    const Eigen::VectorXd b_eigen = Eigen::Map<const Eigen::VectorXd>(b.data(), static_cast<Eigen::Index>(b.size()));
    Eigen::VectorXd x_eigen;
    REQUIRE(solver.solve(b_eigen, x_eigen).ok());
    const std::vector<double> x_from_eigen(x_eigen.data(), x_eigen.data() + x_eigen.size());
    CHECK(relative_max_difference(x_pointer, x) < 1e-10);
    CHECK(relative_max_difference(x_from_eigen, x) < 1e-10);
    // A given guess is read: from half the solution the defect is half of b's.
    for (double& value : x_pointer) value *= 0.5;
    const SolveReport again = solver.solve(b.data(), x_pointer.data(), InitialGuess::given);
    REQUIRE(again.ok());
    CHECK(again.initial_defect == Approx(0.5 * r.initial_defect).epsilon(1e-6));
    CHECK(relative_max_difference(x_pointer, x) < 1e-7);
}

TEST_CASE("GridMatrix rejects bad matrices, naming the row and entry", "[api][errors]") {
    const int m = 9;
    const NineBands<double> good = assemble_stiffness(builtin_case("U1").mesh(3));
    const Grid grid(m, m);
    auto at = [&](int i, int j) { return static_cast<std::size_t>(j) * m + i; };
    auto reject = [&](NineBands<double> bands, std::initializer_list<const char*> says) {
        const std::string msg = error_of([&] { GridMatrix(grid, std::move(bands)); });
        INFO("message: " << msg);
        for (const char* s : says) CHECK(msg.find(s) != std::string::npos);
    };

    SECTION("wrong sizes") {
        const std::string msg = error_of([&] { GridMatrix(Grid(17, 9), good); });
        INFO(msg);
        CHECK(msg.find("9x9 grid, but the grid is 17x9") != std::string::npos);
        NineBands<double> short_bands = good;
        short_bands.values.pop_back();
        reject(short_bands, {"9 * 81 = 729"});
        const std::string eigen = error_of([&] { GridMatrix::from_eigen(Grid(17, 17), to_eigen(good)); });
        CHECK(eigen.find("the matrix is 81x81, but a 17x17 grid has 289 nodes") != std::string::npos);
    }
    SECTION("non-finite entry") {
        NineBands<double> bad = good;
        bad(E, at(3, 4)) = std::numeric_limits<double>::quiet_NaN();
        reject(bad, {"row 39 (node (3, 4)", "band E", "nan", "finite"});
        bad(C, at(5, 5)) = std::numeric_limits<double>::infinity();
        reject(bad, {"row 39", "1 more row like it"});
    }
    SECTION("zero or negative diagonal") {
        NineBands<double> bad = good;
        bad(C, at(2, 6)) = 0.0;
        reject(bad, {"row 56 (node (2, 6), Matrix Market row 57)", "diagonal entry is 0", "positive"});
        bad = good;
        bad(C, at(0, 8)) = -1.0;
        reject(bad, {"row 72 (node (0, 8)", "diagonal entry is -1"});
    }
    SECTION("couplings reaching outside the grid") {
        NineBands<double> bad = good;
        bad(W, at(0, 4)) = -0.5;  // node (-1, 4) does not exist
        reject(bad, {"row 36 (node (0, 4)", "band W", "node (-1, 4)", "outside the 9x9 grid"});
        bad = good;
        bad(NE, at(8, 8)) = 1e-3;
        reject(bad, {"row 80 (node (8, 8)", "band NE", "node (9, 9)"});
    }
    SECTION("entries that are not grid neighbours (Eigen input)") {
        Eigen::SparseMatrix<double> S = to_eigen(good);
        S.coeffRef(at(8, 3), at(0, 4)) = -0.25;  // the next index, but the other end of the grid
        S.coeffRef(at(0, 4), at(8, 3)) = -0.25;
        const std::string msg = error_of([&] { GridMatrix::from_eigen(grid, S); });
        INFO(msg);
        CHECK(msg.find("node (0, 4) with (8, 3)") != std::string::npos);
        CHECK(msg.find("not a neighbour") != std::string::npos);
    }
    SECTION("a coupling into a Dirichlet row is row-only enforcement: eliminated, not an error") {
        NineBands<double> one_sided = good;
        one_sided(N, at(0, 3)) = -0.1;  // an edge row coupling into the Dirichlet row (0, 4)
        one_sided(E, at(4, 0)) = 0.2;
        one_sided(SW, at(1, 1)) = -1.0 / 3.0;  // an interior row coupling into the corner
        const GridMatrix A(grid, one_sided);
        CHECK(A.eliminated().size() == 3);
        CHECK_FALSE(A.natural_edges().any());
        CHECK(A.bands().values == good.values);
    }
    SECTION("edge rows that couple make their edge natural, and must keep the matrix positive definite") {
        NineBands<double> bad = good;
        bad(N, at(0, 3)) = bad(S, at(0, 4)) = -2.0;  // |a_pq| >= sqrt(a_pp a_qq) on the west edge
        reject(bad, {"not positive definite", "row 27 (node (0, 3)", "band N, column 36 = node (0, 4)"});
    }
    SECTION("asymmetry beyond the tolerance") {
        NineBands<double> bad = good;
        bad(NE, at(3, 3)) *= 1.0 + 1e-6;
        reject(bad, {"not symmetric", "row 30 (node (3, 3)", "band NE, column 40 = node (4, 4)", "band SW",
                     "symmetry_tolerance"});
        // The same within a looser tolerance is accepted, and so is rounding noise against zero
        // (a coupling that cancels, e.g. W/E of Q1 on elements of aspect ratio sqrt(2)).
        CHECK_NOTHROW(GridMatrix(grid, bad, MatrixChecks{1e-5}));
        NineBands<double> noise = good;
        noise(SE, at(3, 3)) = 0.0;
        noise(NW, at(4, 2)) = 0.0;
        CHECK_NOTHROW(GridMatrix(grid, noise));
        noise(SE, at(3, 3)) = 1e-17;
        CHECK_NOTHROW(GridMatrix(grid, noise));
        noise(SE, at(3, 3)) = 1e-6;
        reject(noise, {"not symmetric", "row 30"});
    }
}

TEST_CASE("Solver: solve before setup and a right-hand side of the wrong size are input errors", "[api][errors]") {
    Solver solver(tested_options());
    std::vector<double> x;
    CHECK_THROWS_AS(solver.solve(std::vector<double>(81, 1.0), x), input_error);
    solver.setup(GridMatrix(Grid(9, 9), assemble_stiffness(builtin_case("U1").mesh(3))));
    CHECK_THROWS_AS(solver.solve(std::vector<double>(80, 1.0), x), input_error);
    Eigen::VectorXd bv = Eigen::VectorXd::Ones(81), xv;
    for (int q = 0; q < 9; ++q) bv[q] = 0.0;
    const SolveReport r = solver.solve(bv, xv);
    CHECK(r.ok());
    CHECK(xv.size() == 81);
}
