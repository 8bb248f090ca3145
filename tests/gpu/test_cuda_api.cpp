// The embedding API (GridMatrix, Solver) on the GPU against the CPU backend: users' matrices
// with Galerkin coarse levels, with and without node positions, set up once and solved many
// times, and a values-only setup that must not reallocate device storage.

#include <adimg/problems.hpp>
#include <adimg/io.hpp>
#include <adimg/solver.hpp>
#include <adimg/hierarchy.hpp>
#include <adimg/pinned_memory.hpp>
#include <solver/stencil.hpp>

#include <catch2/catch.hpp>

#include "../compare.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

using namespace adimg;

namespace {

SolverOptions on(BackendKind backend) {
    SolverOptions options;
    options.backend = backend;
    return options;
}

using adimg_test::relative_max_difference;

/// A smooth right-hand side, zero on the edge; `seed` varies it.
std::vector<double> smooth_rhs(int mx, int my, int seed) {
    std::vector<double> b(static_cast<std::size_t>(mx) * my, 0.0);
    for (int j = 1; j < my - 1; ++j)
        for (int i = 1; i < mx - 1; ++i)
            b[static_cast<std::size_t>(j) * mx + i] =
                1e-4 * (std::sin((seed + 1) * 3.0 * i / mx) * std::cos((seed % 3 + 1) * 2.0 * j / my) + 0.1 * seed);
    return b;
}

/// A stretched, non-square mesh whose sizes are not powers of two: 385 x 193 nodes
/// (384 = 3 * 2^7, 192 = 3 * 2^6), widths varying smoothly.
TensorMesh stretched_mesh(double phase) {
    Mesh1D x{std::vector<double>(384)}, y{std::vector<double>(192)};
    for (int e = 0; e < 384; ++e) x.widths[e] = 1.0 + 0.5 * std::sin(0.03 * e + phase);
    for (int e = 0; e < 192; ++e) y.widths[e] = 0.7 + 0.3 * std::cos(0.05 * e);
    return {x, y};
}

}  // namespace

TEST_CASE("GPU and CPU agree through the embedding API: Galerkin levels with positions (A3, L=9)", "[gpu][api]") {
    const CaseSpec spec = builtin_case("A3");
    const TensorMesh mesh = spec.mesh(9);
    const GridMatrix A(Grid::from_mesh(mesh), assemble_stiffness(mesh));
    const std::vector<double> b = assemble_load(mesh, {spec.x.length, spec.y.length});
    Solver cpu(on(BackendKind::cpu)), gpu(on(BackendKind::cuda));
    cpu.setup(A);
    gpu.setup(A);
    std::vector<double> x_cpu, x_gpu;
    const SolveReport r_cpu = cpu.solve(b, x_cpu), r_gpu = gpu.solve(b, x_gpu);
    const double diff = relative_max_difference(x_gpu, x_cpu);
    INFO("CPU " << r_cpu.iterations() << " in " << r_cpu.solve_seconds << " s, GPU (" << gpu.device_name()
                << ") " << r_gpu.iterations() << " in " << r_gpu.solve_seconds
                << " s; max |x_gpu - x_cpu| / max |x_cpu| = " << diff << " (expected < 1e-6: both stop at 8 digits)");
    REQUIRE(r_cpu.ok());
    REQUIRE(r_gpu.ok());
    CHECK(gpu.backend() == BackendKind::cuda);
    CHECK(std::abs(r_gpu.outer_iterations - r_cpu.outer_iterations) <= 1);
    CHECK(diff < 1e-6);
    // The L2 errors (1.2e-5) agree to 1.6e-5 relative (measured on an H200): the solutions differ
    // by 2e-10 of their maximum, which is 2e-5 of the small discretisation error.
    CHECK(relative_l2_error(mesh, {spec.x.length, spec.y.length}, x_gpu) ==
          Approx(relative_l2_error(mesh, {spec.x.length, spec.y.length}, x_cpu)).epsilon(1e-4));
}

TEST_CASE(
    "GPU through the embedding API: one setup, ten solves, a values-only setup, no reallocation (385x193, "
    "bilinear)",
    "[gpu][api][reuse]") {
    const Grid grid(385, 193);
    NineBands<double> bands = assemble_stiffness(stretched_mesh(0.0));
    Solver cpu(on(BackendKind::cpu)), gpu(on(BackendKind::cuda));
    // From an Eigen matrix, edge rows scaled by 2 (a 2 x_q = 2 g_q): the API scales them back.
    for (std::size_t p = 0; p < bands.rows(); ++p)
        if (on_boundary(static_cast<int>(p % 385), static_cast<int>(p / 385), 385, 193)) bands(C, p) = 2.0;
    const GridMatrix A = GridMatrix::from_eigen(grid, to_eigen(bands));
    cpu.setup(A);
    gpu.setup(A);
    for (int s = 0; s < 10; ++s) {
        const std::vector<double> b = smooth_rhs(385, 193, s);
        std::vector<double> x_cpu, x_gpu;
        const SolveReport r_cpu = cpu.solve(b, x_cpu), r_gpu = gpu.solve(b, x_gpu);
        const double diff = relative_max_difference(x_gpu, x_cpu);
        INFO("solve " << s << ": CPU " << r_cpu.iterations() << ", GPU " << r_gpu.iterations() << " in "
                      << r_gpu.solve_seconds << " s, difference " << diff);
        REQUIRE(r_gpu.ok());
        CHECK(std::abs(r_gpu.outer_iterations - r_cpu.outer_iterations) <= 1);
        CHECK(diff < 1e-6);
    }
    CHECK(gpu.allocation_count() == 1);

    // New values on the same grid: copied into the device storage of the first setup.
    const GridMatrix A2(grid, assemble_stiffness(stretched_mesh(1.0)));
    cpu.setup(A2);
    gpu.setup(A2);
    CHECK(gpu.allocation_count() == 1);
    const std::vector<double> b = smooth_rhs(385, 193, 4);
    std::vector<double> x_cpu, x_gpu;
    const SolveReport r_cpu = cpu.solve(b, x_cpu), r_gpu = gpu.solve(b, x_gpu);
    REQUIRE(r_gpu.ok());
    CHECK(std::abs(r_gpu.outer_iterations - r_cpu.outer_iterations) <= 1);
    CHECK(relative_max_difference(x_gpu, x_cpu) < 1e-6);
    CHECK(relative_max_difference(x_gpu, direct_solve(A2.bands(), b)) < 1e-6);
}

TEST_CASE("GPU: b and x in pinned memory travel without staging and give the staged solve's solution (A2, L=8)",
          "[gpu][api][pinned]") {
    const CaseSpec spec = builtin_case("A2");
    const TensorMesh mesh = spec.mesh(8);
    const std::vector<double> b = assemble_load(mesh, {spec.x.length, spec.y.length});
    Solver solver(on(BackendKind::cuda));
    solver.setup(rediscretized_hierarchy(spec, 8, SolverOptions{}.coarse_level));
    std::vector<double> x_staged;
    const SolveReport staged = solver.solve(b, x_staged);
    const pinned_vector<double> b_pinned(b.begin(), b.end());
    pinned_vector<double> x_pinned(b.size(), std::numeric_limits<double>::quiet_NaN());  // not read: zero guess
    REQUIRE(is_pinned(b_pinned.data()));
    REQUIRE(is_pinned(x_pinned.data()));
    const SolveReport direct = solver.solve(b_pinned.data(), x_pinned.data(), InitialGuess::zero);
    INFO("staged " << staged.iterations() << " in " << staged.solve_seconds * 1e3 << " ms (transfers "
                   << (staged.upload_seconds + staged.download_seconds) * 1e3 << " ms), pinned " << direct.iterations()
                   << " in " << direct.solve_seconds * 1e3 << " ms (transfers "
                   << (direct.upload_seconds + direct.download_seconds) * 1e3 << " ms)");
    REQUIRE(staged.ok());
    REQUIRE(direct.ok());
    CHECK(direct.iterations() == staged.iterations());
    // The same kernels on the same bits: the transfers of doubles are exact either way.
    CHECK(std::equal(x_pinned.begin(), x_pinned.end(), x_staged.begin()));

    // From a given guess in pinned memory: the solution of that guess, as through the vector API.
    std::vector<double> x0(b.size());
    for (std::size_t p = 0; p < x0.size(); ++p) x0[p] = 1e-3 * std::sin(0.01 * static_cast<double>(p));
    pinned_vector<double> x0_pinned(x0.begin(), x0.end());
    const SolveReport from_x0 = solver.solve(b, x0), from_x0_pinned = solver.solve(b_pinned.data(), x0_pinned.data(), InitialGuess::given);
    REQUIRE(from_x0_pinned.ok());
    CHECK(from_x0_pinned.initial_defect == from_x0.initial_defect);
    CHECK(std::equal(x0_pinned.begin(), x0_pinned.end(), x0.begin()));
}
