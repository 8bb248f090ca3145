// Several right-hand sides side by side (CudaBackend::make_vectors): every operation of the
// V-cycle, on every path of the line sweeps and transfers, gives each column the bits of the same
// operation on that column alone; the operations on one column are checked against the CPU
// backend in test_cuda_backend.cu.

#include "../../src/cuda/cuda_backend.cuh"

#include "../../src/solver/stencil.hpp"
#include "../random_bands.hpp"

#include <catch2/catch.hpp>

#include <cstddef>
#include <limits>
#include <random>
#include <string>
#include <vector>

using namespace adimg;

namespace {

constexpr int columns = 3;

using adimg_test::random_bands;

std::vector<double> random_values(std::size_t n, std::mt19937& rng) {
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::vector<double> v(n);
    for (double& x : v) x = u(rng);
    return v;
}

template <class T>
DeviceVector<T> device(CudaBackend& be, const std::vector<double>& host) {
    DeviceVector<T> v(host.size());
    be.upload(host.data(), host.size(), v);
    return v;
}

template <class T>
std::vector<double> host(CudaBackend& be, const DeviceVector<T>& v) {
    std::vector<double> out;
    be.download(v, out);
    return out;
}

/// Column c of a batch of vectors of n values, borrowed.
template <class T>
DeviceVector<T> column(DeviceVector<T>& v, int c, std::size_t n) {
    return DeviceVector<T>::borrow(v.data() + c * n, n);
}

/// Runs op(inputs..., output) on `columns` columns at once and on each column alone, from the
/// same random inputs (`sizes`: the values per column of each input, then of the output, which
/// starts random too, as an in-place operation needs), and checks that every column has the same
/// bits both ways.
template <class T, class Op>
void check_columns(CudaBackend& be, std::vector<std::size_t> sizes, std::mt19937& rng, Op&& op) {
    std::vector<std::vector<double>> values;
    for (std::size_t n : sizes) values.push_back(random_values(n * columns, rng));
    auto batch = [&] {
        std::vector<DeviceVector<T>> v;
        for (const auto& h : values) v.push_back(device<T>(be, h));
        return v;
    };
    std::vector<DeviceVector<T>> together = batch(), alone = batch();
    op(together);
    for (int c = 0; c < columns; ++c) {
        std::vector<DeviceVector<T>> one;
        for (std::size_t k = 0; k < sizes.size(); ++k) one.push_back(column(alone[k], c, sizes[k]));
        op(one);
    }
    const std::vector<double> a = host(be, together.back()), b = host(be, alone.back());
    REQUIRE(a.size() == b.size());
    CHECK((a == b));
}

}  // namespace

TEMPLATE_TEST_CASE("several right-hand sides side by side: defect, products of several pairs, Jacobi (single and fused "
                   "steps), Gauss-Seidel, the transfers (fused and not) and the coarsest solve give each column its own bits",
                   "[gpu][columns]", float, double) {
    using T = TestType;
    std::mt19937 rng(31);
    for (const auto& grid : {std::pair{33, 17}, std::pair{300, 77}, std::pair{513, 1025}}) {
        const int mx = grid.first, my = grid.second;  // named, not bound: the lambdas below capture them
        INFO(mx << "x" << my << " grid, " << columns << " columns");
        CudaBackend& be = [&]() -> CudaBackend& {
            static CudaBackend shared;
            return shared;
        }();
        const auto A = be.make_matrix<T>(random_bands(mx, my, rng));
        const std::size_t n = static_cast<std::size_t>(mx) * my;
        check_columns<T>(be, {n, n, n}, rng, [&](auto& v) { be.defect(A, v[0], v[1], v[2]); });
        // The outer product of several pairs of vectors, each where it lies (a batch's lanes' own),
        // in one launch.
        check_columns<T>(be, {n, n}, rng, [&](auto& v) {
            const int k = static_cast<int>(v[0].size() / n);
            kernels::Products<T> pairs{};
            for (int c = 0; c < k; ++c) {
                pairs.x[c] = v[0].data() + c * n;
                pairs.y[c] = v[1].data() + c * n;
            }
            pairs.count = k;
            be.multiply(A, pairs);
        });
        check_columns<T>(be, {n, n, n}, rng, [&](auto& v) { be.jacobi(A, v[0], v[1], v[2], T(0.7)); });
        for (int steps : {1, 2, 3})
            check_columns<T>(be, {n, n, n}, rng, [&](auto& v) { be.jacobi_steps(A, v[0], v[2], v[1], T(0.7), steps); });
        for (SweepOrder order : {SweepOrder::forward, SweepOrder::backward})
            check_columns<T>(be, {n, n}, rng, [&](auto& v) { be.gauss_seidel(A, v[0], v[1], order); });

        const Axis ax = x_axis(mx, {}), ay = y_axis(my, {});
        const std::size_t nc = static_cast<std::size_t>(ax.coarse) * ay.coarse;
        std::uniform_real_distribution<double> t(0.05, 0.95);
        std::vector<double> split_x(ax.splits()), split_y(ay.splits());
        for (double& s : split_x) s = t(rng);
        for (double& s : split_y) s = t(rng);
        const auto sx = device<T>(be, split_x), sy = device<T>(be, split_y);
        check_columns<T>(be, {n, nc}, rng, [&](auto& v) { be.restrict_to(v[0], mx, my, sx, sy, v[1], A.natural); });
        check_columns<T>(be, {nc, n}, rng, [&](auto& v) { be.prolong_add(v[0], sx, sy, v[1], mx, my, A.natural); });
        for (bool fused : {true, false}) {
            INFO((fused ? "fused" : "unfused") << " defect and restriction");
            CudaPolicy choice;
            choice.fused_restriction = fused;
            CudaBackend chosen(choice);
            const auto Ac = chosen.make_matrix<T>(random_bands(mx, my, rng));
            check_columns<T>(chosen, {n, n, n, nc}, rng,
                             [&](auto& v) { chosen.restrict_defect(Ac, v[0], v[1], v[2], sx, sy, v[3]); });
        }
    }
    for (auto [mx, my] : {std::pair{3, 3}, std::pair{17, 9}, std::pair{33, 33}}) {
        INFO(mx << "x" << my << " coarsest grid");
        CudaBackend be;
        const auto solve = be.make_direct_solve(random_bands(mx, my, rng));
        const std::size_t n = static_cast<std::size_t>(mx) * my;
        check_columns<T>(be, {n, n}, rng, [&](auto& v) { be.direct_solve(solve, v[0], v[1]); });
    }
}

TEMPLATE_TEST_CASE("several right-hand sides side by side: the ADI sweeps give each column its own bits on every line "
                   "solver (one warp per line, cyclic reduction in place and transposed, partition method, segments)",
                   "[gpu][columns]", float, double) {
    using T = TestType;
    std::mt19937 rng(32);
    constexpr int no_partition = std::numeric_limits<int>::max();
    struct Choice {
        std::string name;
        LinePolicy lines;
    };
    std::vector<Choice> choices{{"the backend's own choices", {}}};
    for (int lines : {0, 1, 4}) {
        LinePolicy p;
        p.warp_lines_up_to = 0;
        p.partitioned_from = no_partition;
        p.y_lines_per_block = lines;
        choices.push_back({"cyclic reduction, " + (lines ? std::to_string(lines) + " y-lines per block" : "transposed"), p});
    }
    LinePolicy partitioned;
    partitioned.warp_lines_up_to = 0;
    partitioned.partitioned_from = 0;
    partitioned.y_lines_per_block = 0;
    choices.push_back({"partition method", partitioned});
    LinePolicy segments;
    segments.shared_bytes = 8 * 1024;
    segments.partition_chunks = 32;
    choices.push_back({"segments across blocks", segments});
    for (const Choice& choice : choices) {
        CudaPolicy policy;
        policy.lines = choice.lines;
        CudaBackend be(policy);
        for (const auto& grid : {std::pair{31, 32}, std::pair{129, 17}, std::pair{545, 96}, std::pair{1025, 65}, std::pair{63, 1025}}) {
            const int mx = grid.first, my = grid.second;
            const auto A = be.make_matrix<T>(random_bands(mx, my, rng));
            const std::size_t n = static_cast<std::size_t>(mx) * my;
            for (Direction direction : {Direction::x, Direction::y}) {
                INFO(choice.name << ", " << mx << "x" << my << " grid, " << (direction == Direction::x ? "x" : "y")
                                 << "-lines, " << columns << " columns");
                check_columns<T>(be, {n, n, n}, rng,
                                 [&](auto& v) { be.line_relax(A, v[0], v[1], v[2], direction, T(0.7)); });
            }
        }
    }
}
