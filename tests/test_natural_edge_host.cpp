// Natural edges on the host (issue 27): the CPU backend's transfers and the Galerkin product at
// natural edges, and the input errors a GridMatrix raises for them. Host code alone, so CPU tests
// only; the GPU's transfers and products are checked against these in gpu/test_gpu_boundaries.cu.

#include <adimg/error.hpp>
#include <adimg/io.hpp>

#include <cpu/cpu_backend.hpp>
#include <solver/galerkin.hpp>

#include <catch2/catch.hpp>

#include "boundary_problems.hpp"
#include "compare.hpp"
#include "input_error_of.hpp"

#include <cmath>
#include <numeric>
#include <random>
#include <string>
#include <vector>

using namespace adimg;
using namespace adimg_test;

namespace {
constexpr EdgeCondition D = EdgeCondition::dirichlet, Nm = EdgeCondition::neumann, R = EdgeCondition::robin;
}  // namespace

TEST_CASE("Transfers at natural edges: R is the transpose of P, and R A P of a Q1 Robin matrix on nested meshes "
          "is the coarse mesh's Q1 Robin matrix",
          "[boundary][galerkin]") {
    const FemMesh fine_mesh = graded_mesh(5);
    const FemMesh coarse_mesh = graded_mesh(4);  // the same grading: every second node of the fine mesh
    REQUIRE(std::abs(fine_mesh.x[2] - coarse_mesh.x[1]) <= 1e-15);
    auto unit = [](double, double) { return 1.0; };
    for (const EdgeConditions& edges : {EdgeConditions{R, R, R, R}, EdgeConditions{D, R, Nm, R}}) {
        NineBands<double> fine = GridMatrix::from_eigen(fine_mesh.grid, assemble(fine_mesh, edges, false, 1.0, {}, unit).A).bands();
        const NineBands<double> expected =
            GridMatrix::from_eigen(coarse_mesh.grid, assemble(coarse_mesh, edges, false, 1.0, {}, unit).A).bands();
        const auto [sx, sy] = fine_mesh.grid.split_positions_from(4);
        const NineBands<double> coarse = galerkin_coarse(fine, sx[0], sy[0]);
        CHECK(coarse.natural.east == expected.natural.east);
        CHECK(coarse.natural.west == expected.natural.west);
        CHECK(relative_max_difference(coarse.values, expected.values) <= 1e-12);

        // <v, P u> = <R v, u> for random u (coarse) and v (fine), u zero on the Dirichlet edges.
        CpuBackend cpu;
        std::mt19937 random(7);
        std::uniform_real_distribution<double> uniform(-1.0, 1.0);
        CpuBackend::vector<double> u(coarse.rows()), v(fine.rows()), Pu(fine.rows(), 0.0), Rv(coarse.rows());
        const CpuBackend::vector<double> tx(sx[0].begin(), sx[0].end()), ty(sy[0].begin(), sy[0].end());
        for (std::size_t p = 0; p < u.size(); ++p)
            u[p] = coarse.natural.dirichlet_node(static_cast<int>(p % coarse.mx), static_cast<int>(p / coarse.mx),
                                                 coarse.mx, coarse.my)
                       ? 0.0
                       : uniform(random);
        for (double& value : v) value = uniform(random);
        cpu.prolong_add(u, tx, ty, Pu, fine.mx, fine.my, fine.natural);
        cpu.restrict_to(v, fine.mx, fine.my, tx, ty, Rv, fine.natural);
        const double vPu = std::inner_product(v.begin(), v.end(), Pu.begin(), 0.0);
        const double Rvu = std::inner_product(Rv.begin(), Rv.end(), u.begin(), 0.0);
        CHECK(vPu == Approx(Rvu).epsilon(1e-13));
    }
}

TEST_CASE("Input that stays an error names the row and what to do", "[boundary][errors]") {
    const FemMesh mesh = graded_mesh(4);
    SECTION("a Neumann edge next to a Dirichlet edge is fine, but an asymmetric coupling between two equations is not") {
        NineBands<double> bands = from_eigen(assemble(mesh, {D, Nm, Nm, Nm}).A, mesh.mx, mesh.my);
        CHECK_NOTHROW(GridMatrix(mesh.grid, bands));
        bands(N, static_cast<std::size_t>(3 * mesh.mx + mesh.mx - 1)) *= 1.5;  // east edge, row (16, 3)
        const std::string message = input_error_of([&] { GridMatrix(mesh.grid, bands); });
        INFO(message);
        CHECK(message.find("not symmetric") != std::string::npos);
        CHECK(message.find("node (16, 3)") != std::string::npos);
        CHECK(message.find("natural edge") != std::string::npos);
    }
    SECTION("a singular matrix with a Dirichlet edge is no pure Neumann problem") {
        // The pure Neumann matrix with its west edge made Dirichlet, the couplings into it moved
        // onto the diagonal: the rows still sum to zero, and the unknowns have the constant null
        // vector.
        NineBands<double> bands = from_eigen(assemble(mesh, {Nm, Nm, Nm, Nm}).A, mesh.mx, mesh.my);
        for (int j = 0; j < mesh.my; ++j) {
            const std::size_t west = static_cast<std::size_t>(j) * mesh.mx, p = west + 1;
            for (int k = 0; k < 9; ++k) bands(k, west) = k == C ? 1.0 : 0.0;
            for (int k : {SW, W, NW}) {
                bands(C, p) += bands(k, p);
                bands(k, p) = 0.0;
            }
        }
        const std::string message = input_error_of([&] { GridMatrix(mesh.grid, bands); });
        INFO(message);
        CHECK(message.find("singular") != std::string::npos);
        CHECK(message.find("every edge natural") != std::string::npos);
    }
}
