// The CUDA transfers and Galerkin products at natural edges against the CPU backend (issue 27):
// every combination of natural and Dirichlet edges, both precisions, outputs poisoned with NaN.

#include "../../src/cpu/cpu_backend.hpp"
#include "../../src/cuda/cuda_backend.cuh"
#include "../../src/solver/coarsening.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

using namespace adimg;

namespace {

CudaBackend& backend() {
    static CudaBackend be;
    return be;
}

std::vector<double> random_values(std::size_t n, std::mt19937& rng) {
    std::vector<double> v(n);
    std::generate(v.begin(), v.end(), [&] { return std::uniform_real_distribution<double>(-1.0, 1.0)(rng); });
    return v;
}

/// A device copy of `values` in precision T (poisoned: NaN everywhere).
template <class T>
DeviceVector<T> on_device(const std::vector<double>& values, bool poisoned = false) {
    DeviceVector<T> v(values.size());
    if (poisoned)
        backend().fill(v, std::numeric_limits<T>::quiet_NaN());
    else
        backend().upload(values, v);
    return v;
}

/// max |device - host| / max |host|, infinite where a device value is not finite.
template <class T, class H>
double deviation(const DeviceVector<T>& device, const CpuBackend::vector<H>& host) {
    std::vector<double> got;
    backend().download(device, got);
    double diff = 0.0, scale = 0.0;
    for (std::size_t p = 0; p < host.size(); ++p) {
        if (!std::isfinite(got[p])) return HUGE_VAL;
        diff = std::max(diff, std::abs(got[p] - double(host[p])));
        scale = std::max(scale, std::abs(double(host[p])));
    }
    return diff / std::max(scale, 1e-300);
}

/// The 16 combinations of natural (true) and Dirichlet edges (bits 0..3), and with bit 4 every
/// natural edge bordering an eliminated boundary (a condensed matrix, coarsening.hpp).
NaturalEdges edges_of(int bits) {
    NaturalEdges e{(bits & 1) != 0, (bits & 2) != 0, (bits & 4) != 0, (bits & 8) != 0};
    if (bits & 16) {
        e.eliminated_west = e.west;
        e.eliminated_east = e.east;
        e.eliminated_south = e.south;
        e.eliminated_north = e.north;
    }
    return e;
}

/// A symmetric nine-band matrix coupling every node of the grid (the rows of a natural edge
/// included) with random weights, diagonally dominant; rows on Dirichlet edges are identity rows
/// that nothing couples into.
NineBands<double> natural_bands(int mx, int my, NaturalEdges natural, std::mt19937& rng) {
    std::uniform_real_distribution<double> u(0.1, 1.0);
    NineBands<double> A(mx, my);
    A.natural = natural;
    for (int j = 0; j < my; ++j)
        for (int i = 0; i < mx; ++i) {
            const std::size_t p = static_cast<std::size_t>(j) * mx + i;
            for (int k = C + 1; k < 9; ++k) {
                const int ii = i + band_dx(k), jj = j + band_dy(k);
                if (ii < 0 || jj < 0 || ii >= mx || jj >= my) continue;
                if (natural.dirichlet_node(i, j, mx, my) || natural.dirichlet_node(ii, jj, mx, my)) continue;
                const std::size_t q = static_cast<std::size_t>(jj) * mx + ii;
                A(k, p) = A(8 - k, q) = -u(rng);
            }
        }
    for (std::size_t p = 0; p < A.rows(); ++p) {
        double sum = 0.0;
        for (int k = 0; k < 9; ++k) sum -= k == C ? 0.0 : A(k, p);
        A(C, p) = sum > 0.0 ? sum + 0.5 : 1.0;
    }
    return A;
}

/// Grids of 2^k + 1 nodes and of any size (issue 43).
const std::pair<int, int> coarsenable[] = {{3, 3},   {33, 17}, {65, 129},  {257, 33},
                                           {513, 1025}, {4, 6}, {34, 17}, {300, 77}, {1000, 601}};

}  // namespace

TEMPLATE_TEST_CASE("CUDA transfers at natural edges (restriction, fused and not, and prolongation) equal the CPU "
                   "backend, on grids of any size and with eliminated boundaries",
                   "[gpu][boundary]", float, double) {
    using T = TestType;
    const double tolerance = sizeof(T) == 4 ? 2e-5 : 1e-12;
    std::mt19937 rng(27);
    std::uniform_real_distribution<double> t(0.05, 0.95);
    CpuBackend cpu;
    for (auto [mx, my] : coarsenable)
        for (int bits = 0; bits < 32; ++bits) {
            const NaturalEdges natural = edges_of(bits);
            INFO(mx << "x" << my << " fine grid, natural edges " << bits << ", " << (sizeof(T) == 4 ? "float" : "double"));
            const Axis ax = x_axis(mx, natural), ay = y_axis(my, natural);
            const int mxc = ax.coarse, myc = ay.coarse;
            std::vector<double> split_x(ax.splits()), split_y(ay.splits());
            for (double& s : split_x) s = t(rng);
            for (double& s : split_y) s = t(rng);
            const CpuBackend::vector<T> sx_host(split_x.begin(), split_x.end()), sy_host(split_y.begin(), split_y.end());
            const auto sx = on_device<T>(split_x), sy = on_device<T>(split_y);
            const std::vector<double> fine = random_values(static_cast<std::size_t>(mx) * my, rng);
            const std::vector<double> coarse = random_values(static_cast<std::size_t>(mxc) * myc, rng);
            const CpuBackend::vector<T> fine_t(fine.begin(), fine.end()), coarse_t(coarse.begin(), coarse.end());

            auto restricted = on_device<T>(coarse, true);
            backend().restrict_to(on_device<T>(fine), mx, my, sx, sy, restricted, natural);
            CpuBackend::vector<T> expected(coarse.size());
            cpu.restrict_to(fine_t, mx, my, sx_host, sy_host, expected, natural);
            CHECK(deviation(restricted, expected) < tolerance);

            const NineBands<double> A = natural_bands(mx, my, natural, rng);
            const std::vector<double> b = random_values(fine.size(), rng);
            CpuBackend::vector<T> d(fine.size()), expected_defect(coarse.size());
            cpu.restrict_defect(cpu.make_matrix<T>(A), CpuBackend::vector<T>(b.begin(), b.end()), fine_t, d, sx_host, sy_host,
                                expected_defect);
            for (bool fused : {true, false}) {
                INFO((fused ? "fused" : "unfused") << " defect and restriction");
                CudaPolicy choice;
                choice.fused_restriction = fused;
                CudaBackend be(choice);
                auto out = on_device<T>(coarse, true);
                auto scratch = on_device<T>(fine, true);
                be.restrict_defect(be.make_matrix<T>(A), on_device<T>(b), on_device<T>(fine), scratch, sx, sy, out);
                CHECK(deviation(out, expected_defect) < 10 * tolerance);
            }

            auto prolonged = on_device<T>(fine);
            backend().prolong_add(on_device<T>(coarse), sx, sy, prolonged, mx, my, natural);
            CpuBackend::vector<T> expected_fine = fine_t;
            cpu.prolong_add(coarse_t, sx_host, sy_host, expected_fine, mx, my, natural);
            CHECK(deviation(prolonged, expected_fine) < tolerance);
        }
}

TEST_CASE("Galerkin products at natural edges formed on the device equal the host's bit for bit, on grids of any size "
          "and with eliminated boundaries",
          "[gpu][boundary]") {
    std::mt19937 rng(28);
    std::uniform_real_distribution<double> t(0.05, 0.95);
    for (const auto [mx, my] : {std::pair{129, 65}, std::pair{100, 37}})
    for (int bits : {1, 6, 9, 15, 6 | 16, 15 | 16}) {
        INFO(mx << "x" << my << ", natural edges " << bits);
        NineBands<double> fine = natural_bands(mx, my, edges_of(bits), rng);
        auto fine_device = backend().make_matrix<double>(fine);
        while (fine.mx > 5 && fine.my > 5) {
            std::vector<double> split_x(x_axis(fine.mx, fine.natural).splits()),
                split_y(y_axis(fine.my, fine.natural).splits());
            for (double& s : split_x) s = t(rng);
            for (double& s : split_y) s = t(rng);
            const NineBands<double> coarse = galerkin_coarse(fine, split_x, split_y);
            auto coarse_device = backend().make_matrix<double>(coarse.mx, coarse.my);
            backend().galerkin_coarse(fine_device, on_device<double>(split_x), on_device<double>(split_y), coarse_device);
            NineBands<double> downloaded;
            backend().download(coarse_device, downloaded);
            CHECK(downloaded.values == coarse.values);
            CHECK(downloaded.natural.all() == coarse.natural.all());
            CHECK(downloaded.natural.any() == coarse.natural.any());
            fine = coarse;
            fine_device = std::move(coarse_device);
        }
    }
}
