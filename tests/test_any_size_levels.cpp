// The levels of grids of any size (issue 43, docs/design.md §3): how each direction coarsens, the
// eliminated boundary of a condensed matrix, the transfers' adjointness and the Galerkin products
// with the exact prolongation on uneven grids. Host code only (the CUDA backend's transfers and
// Galerkin products are compared with these in tests/gpu).

#include "any_size_meshes.hpp"
#include "boundary_problems.hpp"
#include "compare.hpp"

#include <adimg/error.hpp>
#include <adimg/grid.hpp>
#include <adimg/problems.hpp>

#include <cpu/cpu_backend.hpp>
#include <solver/coarsening.hpp>
#include <solver/galerkin.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

using namespace adimg;
using namespace adimg_test;

namespace {

/// Nodes per level of one direction, finest first.
std::vector<int> sizes_x(const Grid& g) {
    std::vector<int> s;
    for (int l = g.finest_level(); l >= g.coarsest_level(); --l) s.push_back(g.mx_on_level(l));
    return s;
}
std::vector<int> sizes_y(const Grid& g) {
    std::vector<int> s;
    for (int l = g.finest_level(); l >= g.coarsest_level(); --l) s.push_back(g.my_on_level(l));
    return s;
}

}  // namespace

TEST_CASE("Grid: any size coarsens to m/2 + 1 nodes per direction, semi-coarsening where one runs out, 2^k + 1 as "
          "before",
          "[grid][any_size]") {
    const Grid square(257, 257);
    CHECK(square.finest_level() == 8);
    CHECK(square.coarsest_level() == 1);
    CHECK(sizes_x(square) == std::vector<int>{257, 129, 65, 33, 17, 9, 5, 3});

    // 1000 x 77: x halves nine times, y six, then stays at 3 while x goes on.
    const Grid uneven(1000, 77);
    CHECK(uneven.finest_level() == 10);
    CHECK(sizes_x(uneven) == std::vector<int>{1000, 501, 251, 126, 64, 33, 17, 9, 5, 3});
    CHECK(sizes_y(uneven) == std::vector<int>{77, 39, 20, 11, 6, 4, 3, 3, 3, 3});
    const auto [sx, sy] = uneven.split_positions_from(1);
    REQUIRE(sx.size() == 9);
    // Entry l splits level l + 1 into l + 2: the finest x step has 500 elements, the last one
    // fine element wide (t = 1); y does not halve below level 4.
    CHECK(sx.back().size() == 500);
    CHECK(sx.back().front() == 0.5);
    CHECK(sx.back().back() == 1.0);
    CHECK(sy[2].empty());
    CHECK(sy[3].size() == 2);  // 4 nodes -> 3: elements [0, 2] and [2, 3]

    // 4097 x 33, which halved in both directions only to 129 x 3 before, goes on in x to 3 x 3.
    const Grid thin(4097, 33);
    CHECK(thin.finest_level() == 12);
    CHECK(thin.mx_on_level(5) == 33);
    CHECK(thin.my_on_level(5) == 3);

    // With widths: the coarse widths are pairwise sums, the last one alone, t from them.
    const TensorMesh mesh = case_mesh("A2", 12, 7);
    const Grid graded = Grid::from_mesh(mesh);
    const auto [gx, gy] = graded.split_positions_from(graded.finest_level() - 1);
    REQUIRE(gx.size() == 1);
    CHECK(gx[0] == split_positions(mesh.x));
    CHECK(gy[0] == split_positions(mesh.y));
    CHECK(gx[0].back() == 1.0);  // 11 elements: the last coarse element is the last fine one
    CHECK(coarsened(mesh.x).widths.back() == mesh.x.widths.back());

    std::string message;
    try {
        Grid(2, 9);
    } catch (const input_error& e) {
        message = e.what();
    }
    INFO(message);
    CHECK(message.find("Mx = 2") != std::string::npos);
    CHECK(message.find("at least 3 nodes") != std::string::npos);
}

TEST_CASE("refine_to: any element count with the case's grading, refine() itself on powers of two",
          "[mesh][any_size]") {
    const CaseSpec a2 = builtin_case("A2");
    CHECK(refine_to(a2.x, 1024).widths == refine(a2.x, 10).widths);
    for (int elements : {7, 76, 600, 999}) {
        const Mesh1D m = refine_to(a2.x, elements);
        REQUIRE(m.elements() == elements);
        double length = 0.0;
        for (double h : m.widths) length += h;
        INFO(elements << " elements: length " << length << ", smallest width " << m.smallest_width());
        CHECK(std::abs(length - 1.0) < 1e-14);
        // The layer at x = 1 (A2: x_layer = high) keeps the smallest element at the end.
        CHECK(m.widths.back() == m.smallest_width());
    }
}

TEST_CASE("GridMatrix reads a condensed matrix's eliminated boundary, which coarsens as the 2^k + 1 grid's interior",
          "[grid][any_size]") {
    for (const std::string name : {"U1", "A2"}) {
        INFO(name);
        const TensorMesh mesh = builtin_case(name).mesh(6);
        const GridMatrix A(interior_grid(mesh), interior_of(assemble_stiffness(mesh)));
        const NaturalEdges e = A.natural_edges();
        CHECK((e.west && e.east && e.south && e.north));
        CHECK((e.eliminated_west && e.eliminated_east && e.eliminated_south && e.eliminated_north));
        const Grid& g = A.grid();
        CHECK(g.finest_level() == 6);
        for (int l = 1; l <= 6; ++l) CHECK(g.mx_on_level(l) == (1 << l) - 1);
    }
    // Neumann and Robin edges are natural, not eliminated; Dirichlet edges are neither.
    const FemMesh mesh = graded_mesh(5);
    using EC = EdgeCondition;
    const FemSystem system = assemble(mesh, {EC::neumann, EC::robin, EC::dirichlet, EC::neumann});
    const GridMatrix A = GridMatrix::from_eigen(mesh.grid, system.A);
    const NaturalEdges e = A.natural_edges();
    CHECK((e.west && e.east && !e.south && e.north));
    CHECK(!(e.eliminated_west || e.eliminated_east || e.eliminated_south || e.eliminated_north));
    CHECK(A.grid().mx_on_level(4) == 17);
}

TEST_CASE("Restriction is the transpose of prolongation on uneven grids, with and without eliminated ends",
          "[transfer][any_size]") {
    // <R f, c> = <f, P c> for random f, c: measured to rounding (below 1e-15 relative).
    std::mt19937 rng(43);
    std::uniform_real_distribution<double> value(-1.0, 1.0), split(0.05, 0.95);
    CpuBackend cpu;
    for (const auto [mx, my] : {std::pair{10, 7}, std::pair{9, 12}, std::pair{3, 8}}) {
        for (int kind = 0; kind < 16; ++kind) {
            NaturalEdges natural{true, true, true, true};
            natural.eliminated_west = kind & 1;
            natural.eliminated_east = kind & 2;
            natural.eliminated_south = kind & 4;
            natural.eliminated_north = kind & 8;
            const Axis ax = x_axis(mx, natural), ay = y_axis(my, natural);
            INFO(mx << "x" << my << " -> " << ax.coarse << "x" << ay.coarse << ", eliminated ends " << kind);
            auto random = [&](std::size_t n, auto& dist) {
                ZeroedVector<double> v = zeros<double>(n);
                for (double& x : v) x = dist(rng);
                return v;
            };
            const auto tx = random(ax.splits(), split), ty = random(ay.splits(), split);
            const auto f = random(static_cast<std::size_t>(mx) * my, value);
            const auto c = random(static_cast<std::size_t>(ax.coarse) * ay.coarse, value);
            auto rf = zeros<double>(c.size()), pc = zeros<double>(f.size());
            cpu.restrict_to(f, mx, my, tx, ty, rf, natural);
            cpu.prolong_add(c, tx, ty, pc, mx, my, natural);
            double left = 0.0, right = 0.0, scale = 0.0;
            for (std::size_t q = 0; q < c.size(); ++q) left += rf[q] * c[q];
            for (std::size_t p = 0; p < f.size(); ++p) {
                right += f[p] * pc[p];
                scale += std::abs(f[p] * pc[p]);
            }
            CHECK(std::abs(left - right) <= 1e-13 * scale);
        }
    }
}

TEST_CASE("Galerkin coarse matrices of uneven grids equal the rediscretized ones, condensed interiors too (A2 widths)",
          "[hierarchy][galerkin][any_size]") {
    // With the exact Q1 prolongation (the last coarse element one fine element wide at t = 1) the
    // Galerkin product of the fine stiffness matrix is the coarse mesh's stiffness matrix.
    for (const auto [mx, my] : {std::pair{41, 24}, std::pair{30, 9}}) {
        const TensorMesh fine = case_mesh("A2", mx, my);
        const TensorMesh coarse{coarsened(fine.x), coarsened(fine.y)};
        const NineBands<double> galerkin =
            galerkin_coarse(assemble_stiffness(fine), split_positions(fine.x), split_positions(fine.y));
        const double full = relative_max_difference(galerkin.values, assemble_stiffness(coarse).values);
        // The interior alone, its boundary eliminated: the interior of the coarse matrix.
        NineBands<double> condensed = interior_of(assemble_stiffness(fine));
        condensed.natural = {true, true, true, true, true, true, true, true};
        const NineBands<double> condensed_galerkin =
            galerkin_coarse(condensed, split_positions(fine.x), split_positions(fine.y));
        const double interior =
            relative_max_difference(condensed_galerkin.values, interior_of(assemble_stiffness(coarse)).values);
        INFO(mx << "x" << my << ": max |RAP - A_coarse| / max |A_coarse| = " << full << ", condensed " << interior
                << " (expected < 1e-12)");
        CHECK(full < 1e-12);
        CHECK(interior < 1e-12);
    }
}
