// Every CUDA operation against the CPU backend on random data: both precisions, grid sizes at
// warp and bank edges, non-square grids, outputs poisoned with NaN before each run; and the line
// solvers of src/lines on batches of systems (bench/batch_solve.cuh) against Thomas.

#include "../../src/cpu/cpu_backend.hpp"
#include "../../bench/batch_solve.cuh"
#include "../../src/cuda/cuda_backend.cuh"
#include "../random_bands.hpp"
#include "../thomas.hpp"

#include <adimg/error.hpp>
#include <adimg/problems.hpp>

#include "../../src/problems/mesh_hierarchy.hpp"
#include "../../src/solver/coarse_factor.hpp"
#include "../../src/solver/galerkin.hpp"
#include "../../src/solver/matrix_rules.hpp"
#include "../coarse_matrices.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

using namespace adimg;

namespace {

CudaBackend& gpu() {
    static CudaBackend backend;
    return backend;
}

using adimg_test::random_bands;

/// The CPU backend's vectors, which the tests compare the device's against.
template <class T>
using CpuVector = CpuBackend::vector<T>;

CpuVector<double> random_vector(std::size_t n, std::mt19937& rng) {
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    CpuVector<double> v(n);
    for (double& x : v) x = u(rng);
    return v;
}

/// Host values (any vector of doubles) on the device in precision T.
template <class T, class Host>
DeviceVector<T> device(const Host& host) {
    DeviceVector<T> v(host.size());
    gpu().upload(host.data(), host.size(), v);
    return v;
}

/// A device output filled with NaN, so that an element the kernel forgets shows up.
template <class T>
DeviceVector<T> poisoned(std::size_t n) {
    DeviceVector<T> v(n);
    gpu().fill(v, std::numeric_limits<T>::quiet_NaN());
    return v;
}

template <class T>
std::vector<double> host(const DeviceVector<T>& v) {
    std::vector<double> out;
    gpu().download(v, out);
    return out;
}

/// The CPU result in precision T, as doubles (a std::vector or NineBands::values).
template <class Values>
std::vector<double> as_double(const Values& v) { return {v.begin(), v.end()}; }
template <class T, class Values>
CpuVector<T> as(const Values& v) { return {v.begin(), v.end()}; }

/// max |gpu - cpu| / max |cpu|; every GPU value must be finite (no element left poisoned).
template <class Cpu>
double difference(const std::vector<double>& gpu_result, const Cpu& cpu_result) {
    REQUIRE(gpu_result.size() == cpu_result.size());
    double diff = 0.0, scale = 0.0;
    for (std::size_t p = 0; p < cpu_result.size(); ++p) {
        REQUIRE(std::isfinite(gpu_result[p]));
        diff = std::max(diff, std::abs(gpu_result[p] - cpu_result[p]));
        scale = std::max(scale, std::abs(cpu_result[p]));
    }
    return diff / std::max(scale, 1e-300);
}

template <class T>
double tolerance() { return sizeof(T) == 4 ? 2e-5 : 1e-12; }

/// The GPU's direct coarsest-grid solve of A equals the CPU backend's for a random b (both
/// relative to the solution's largest entry, as the solve is: A5's spans many orders).
template <class T>
void check_direct_solve(const NineBands<double>& A, std::mt19937& rng) {
    const CpuVector<double> b = random_vector(A.rows(), rng);
    auto x_gpu = poisoned<T>(A.rows());
    gpu().direct_solve(gpu().make_direct_solve(A), device<T>(b), x_gpu);
    CpuBackend cpu;
    CpuVector<T> x_cpu(A.rows());
    cpu.direct_solve(cpu.make_direct_solve(A), as<T>(b), x_cpu);
    CHECK(difference(host(x_gpu), as_double(x_cpu)) < 10 * tolerance<T>());
}

/// One ADI half-step (omega 0.7) of `be` on a random mx x my grid equals the CPU backend's
/// (Thomas).
template <class T>
void check_line_relax(CudaBackend& be, int mx, int my, Direction direction, std::mt19937& rng) {
    const NineBands<double> A = random_bands(mx, my, rng);
    const std::size_t n = A.rows();
    const CpuVector<double> b = random_vector(n, rng), x = random_vector(n, rng);
    auto out_gpu = poisoned<T>(n);
    be.line_relax(be.make_matrix<T>(A), device<T>(b), device<T>(x), out_gpu, direction, T(0.7));
    CpuBackend cpu;
    CpuVector<T> out_cpu(n);
    cpu.line_relax(cpu.make_matrix<T>(A), as<T>(b), as<T>(x), out_cpu, direction, T(0.7));
    CHECK(difference(host(out_gpu), as_double(out_cpu)) < 10 * tolerance<T>());
}

/// Grid sizes at warp (32) and tile edges, odd and even, square and not.
const std::pair<int, int> grids[] = {{31, 32}, {32, 33}, {33, 31}, {3, 65}, {129, 17}, {257, 257}, {1025, 65}, {63, 1025}};
/// Coarsenable grids (odd sizes) for the transfer operators.
/// Grids of 2^k + 1 nodes and of any size (issue 43).
const std::pair<int, int> coarsenable[] = {{3, 3},   {33, 17}, {65, 129},  {257, 33},
                                           {513, 1025}, {4, 6}, {34, 17}, {300, 77}, {1000, 601}};

}  // namespace

TEMPLATE_TEST_CASE("CUDA defect, product, Jacobi (one to five steps in place, two fused per pass) and Gauss-Seidel equal the CPU backend",
                   "[gpu]", float, double) {
    using T = TestType;
    std::mt19937 rng(11);
    CpuBackend cpu;
    // The grids at the edges, and one large enough that the fused Jacobi steps take bands of
    // more than their minimum of rows.
    std::vector<std::pair<int, int>> sizes(std::begin(grids), std::end(grids));
    sizes.emplace_back(2049, 1537);
    for (auto [mx, my] : sizes) {
        INFO(mx << "x" << my << " grid, " << (sizeof(T) == 4 ? "float" : "double"));
        const NineBands<double> A = random_bands(mx, my, rng);
        const std::size_t n = A.rows();
        const CpuVector<double> b = random_vector(n, rng), x = random_vector(n, rng);
        const auto A_gpu = gpu().make_matrix<T>(A);
        const auto A_cpu = cpu.make_matrix<T>(A);
        const auto b_gpu = device<T>(b), x_gpu = device<T>(x);
        const CpuVector<T> b_cpu = as<T>(b), x_cpu = as<T>(x);

        auto d_gpu = poisoned<T>(n);
        gpu().defect(A_gpu, b_gpu, x_gpu, d_gpu);
        CpuVector<T> d_cpu(n);
        cpu.defect(A_cpu, b_cpu, x_cpu, d_cpu);
        CHECK(difference(host(d_gpu), as_double(d_cpu)) < tolerance<T>());

        auto y_gpu = poisoned<T>(n);
        gpu().multiply(A_gpu, x_gpu, y_gpu);
        CpuVector<T> y_cpu(n);
        cpu.multiply(A_cpu, x_cpu, y_cpu);
        CHECK(difference(host(y_gpu), as_double(y_cpu)) < tolerance<T>());

        // One step (the plain kernel, which PCG uses too), and passes of two on large grids:
        // strips of 124 columns and bands of rows, cut by the grids' edges; an odd count ends
        // with a single step, and an odd count of passes with a copy back into x.
        for (int steps = 1; steps <= 5; ++steps) {
            INFO(steps << " steps in place");
            auto fused_gpu = device<T>(x), work_gpu = poisoned<T>(n);
            gpu().jacobi_steps(A_gpu, b_gpu, fused_gpu, work_gpu, T(0.7), steps);
            CpuVector<T> fused_cpu = x_cpu, work_cpu(n);
            cpu.jacobi_steps(A_cpu, b_cpu, fused_cpu, work_cpu, T(0.7), steps);
            CHECK(difference(host(fused_gpu), as_double(fused_cpu)) < steps * tolerance<T>());
        }

        auto g_gpu = device<T>(x);
        gpu().gauss_seidel(A_gpu, b_gpu, g_gpu);
        CpuVector<T> g_cpu = x_cpu;
        cpu.gauss_seidel(A_cpu, b_cpu, g_cpu);
        CHECK(difference(host(g_gpu), as_double(g_cpu)) < tolerance<T>());
    }
}

TEMPLATE_TEST_CASE("CUDA ADI line sweeps (cyclic reduction, one warp per short line, partition method) equal the CPU backend (Thomas)",
                   "[gpu]", float, double) {
    using T = TestType;
    std::mt19937 rng(12);
    // Every level-0 staging of the cyclic reduction, not only the one the backend picks, with
    // short lines by cyclic reduction too; y-lines 1, 2, 4 and 8 per block in place, and by
    // transposing the grid; then the backend's own choices for each line length, where every
    // line that fits one warp is solved by one. Each policy gets a backend of its own.
    constexpr int no_partition = std::numeric_limits<int>::max();
    std::vector<LinePolicy> solvers;
    auto policy = [](std::optional<CrStaging> staging, int warp_up_to, std::optional<int> y_lines, int partitioned_from,
                     std::optional<int> chunks = {}, int slots = 2) {
        LinePolicy p;
        p.staging = staging;
        p.warp_lines_up_to = warp_up_to;
        p.y_lines_per_block = y_lines;
        p.partitioned_from = partitioned_from;
        p.partition_chunks = chunks;
        p.partition_slots = slots;
        return p;
    };
    for (CrStaging staging : all_cr_stagings) solvers.push_back(policy(staging, 0, std::nullopt, no_partition));
    for (int lines : {0, 1, 2, 4, 8}) solvers.push_back(policy(std::nullopt, 0, lines, no_partition));
    solvers.push_back({});
    // Every line by the partition method (y-lines transposed), 32 to 256 chunks per line.
    for (int chunks : {32, 64, 128, 256})
        for (int slots : {2, 8}) solvers.push_back(policy(std::nullopt, 0, 0, 0, chunks, slots));
    // The warps' edges (lengths 544 and 545, slot counts), and y-lines of 4097, too long for 8
    // per block in shared memory (the backend then takes fewer).
    const std::pair<int, int> edges[] = {{544, 513}, {545, 96}, {97, 160}, {161, 288}, {9, 4097}};
    std::vector<std::pair<int, int>> sizes(std::begin(grids), std::end(grids));
    sizes.insert(sizes.end(), std::begin(edges), std::end(edges));
    for (const LinePolicy& solver : solvers) {
        CudaPolicy with_lines;
        with_lines.lines = solver;
        CudaBackend be(with_lines);
        const LineSweeps& lines_of = be.lines();
        for (auto [mx, my] : sizes) {
            for (Direction direction : {Direction::x, Direction::y}) {
                const int length = direction == Direction::x ? mx : my;
                const bool by_warp = length <= lines_of.warp_lines_up_to();
                const int lines = direction == Direction::x ? 1 : lines_of.y_lines_per_block<T>(length, mx);
                const std::string method =
                    by_warp ? "one warp per line, " + std::to_string(warp_line_slots(length)) + " slots per lane"
                    : lines <= 1 && lines_of.partitioned<T>(length)
                        ? "partition method, " + std::to_string(lines_of.partition_chunks<T>(length)) + " chunks asked, " +
                              std::to_string(solver.partition_slots) + " slots per lane"
                        : std::string("cyclic reduction, level 0 staged: ") +
                              (solver.staging ? to_string(*solver.staging) : "the backend's choice") + ", " +
                              (lines ? std::to_string(lines) + " lines per block" : "transposed");
                INFO(mx << "x" << my << " grid, " << (direction == Direction::x ? "x" : "y") << "-lines, "
                        << (sizeof(T) == 4 ? "float" : "double") << ", " << method);
                check_line_relax<T>(be, mx, my, direction, rng);
            }
        }
    }
}

/// What the sweeps of `be` do with lines of `length` unknowns too long for one block.
template <class T>
std::string segments_of(const CudaBackend& be, int length, int slots) {
    const Chunks cut = be.lines().line_segments<T>(length, slots).cut;
    return std::to_string(cut.count) + " segments of " + std::to_string(cut.length) + " unknowns (" +
           std::to_string(cut.longer) + " one longer), " + std::to_string(slots) + " slots per lane, " +
           (sizeof(T) == 4 ? "float" : "double");
}

TEMPLATE_TEST_CASE("CUDA ADI sweeps of lines too long for one block (segments across blocks) equal the CPU backend (Thomas)",
                   "[gpu]", float, double) {
    using T = TestType;
    std::mt19937 rng(18);
    // Blocks held to a few KiB of shared memory, so that lines of a few thousand unknowns take
    // several segments of 32 to 256 chunks each, one or two levels in warp 0. Lengths just past
    // one block, twice that, a whole number of the longest segments, and one whose 20 segments
    // give the segment ends' warp two slots per lane; x-lines, and y-lines (transposed).
    struct Limit {
        std::size_t bytes;
        std::optional<int> chunks;
        int slots;
    };
    for (const Limit limit : {Limit{8 * 1024, 32, 2}, Limit{16 * 1024, std::nullopt, 2}, Limit{24 * 1024, 256, 8}}) {
        CudaPolicy policy;
        policy.lines.shared_bytes = limit.bytes;
        policy.lines.partition_chunks = limit.chunks;
        policy.lines.partition_slots = limit.slots;
        CudaBackend be(policy);
        const int one_block = be.lines().longest_line<T>(), segment = be.lines().longest_segment<T>();
        for (const int length : {one_block + 1, 2 * one_block + 3, segment * (one_block / segment + 2), 20 * segment - 7}) {
            REQUIRE_FALSE(be.lines().cr_fits<T>(length));
            for (const int lines : {2, 6, 33}) {
                for (const Direction direction : {Direction::x, Direction::y}) {
                    const bool along_x = direction == Direction::x;
                    INFO((along_x ? length : lines) << "x" << (along_x ? lines : length) << " grid, "
                                                    << (along_x ? "x" : "y") << "-lines, blocks of " << limit.bytes
                                                    << " bytes, " << segments_of<T>(be, length, limit.slots));
                    check_line_relax<T>(be, along_x ? length : lines, along_x ? lines : length, direction, rng);
                }
            }
        }
    }
}

TEMPLATE_TEST_CASE("CUDA ADI sweeps of the lines of L = 15 (float) and L = 14 (double), longer than one block holds, equal "
                   "the CPU backend",
                   "[gpu]", float, double) {
    using T = TestType;
    std::mt19937 rng(19);
    const int length = sizeof(T) == 4 ? 32769 : 16385;
    const bool segmented = !gpu().lines().cr_fits<T>(length);
    for (const Direction direction : {Direction::x, Direction::y}) {
        const bool along_x = direction == Direction::x;
        INFO((along_x ? length : 5) << "x" << (along_x ? 5 : length) << " grid, " << (along_x ? "x" : "y") << "-lines, "
                                    << (segmented ? segments_of<T>(gpu(), length, LinePolicy{}.partition_slots)
                                                  : std::string("one block per line on this device")));
        check_line_relax<T>(gpu(), along_x ? length : 5, along_x ? 5 : length, direction, rng);
    }
}

TEMPLATE_TEST_CASE("CUDA restriction (also fused with the defect) and prolongation equal the CPU backend on graded meshes "
                   "of any size",
                   "[gpu]", float, double) {
    using T = TestType;
    std::mt19937 rng(13);
    std::uniform_real_distribution<double> t(0.05, 0.95);
    CpuBackend cpu;
    for (auto [mx, my] : coarsenable) {
        INFO(mx << "x" << my << " fine grid, " << (sizeof(T) == 4 ? "float" : "double"));
        const Axis ax = x_axis(mx, {}), ay = y_axis(my, {});
        const int mxc = ax.coarse, myc = ay.coarse;
        std::vector<double> split_x(ax.splits()), split_y(ay.splits());
        for (double& s : split_x) s = t(rng);
        for (double& s : split_y) s = t(rng);
        const CpuVector<double> fine = random_vector(static_cast<std::size_t>(mx) * my, rng);
        const CpuVector<double> coarse = random_vector(static_cast<std::size_t>(mxc) * myc, rng);
        const auto sx = device<T>(split_x), sy = device<T>(split_y);

        auto r_gpu = poisoned<T>(coarse.size());
        gpu().restrict_to(device<T>(fine), mx, my, sx, sy, r_gpu);
        CpuVector<T> r_cpu(coarse.size());
        cpu.restrict_to(as<T>(fine), mx, my, as<T>(split_x), as<T>(split_y), r_cpu);
        CHECK(difference(host(r_gpu), as_double(r_cpu)) < tolerance<T>());

        // The fused defect and restriction, and its unfused path, against defect then restriction on the CPU.
        const NineBands<double> A = random_bands(mx, my, rng);
        const CpuVector<double> b = random_vector(fine.size(), rng);
        CpuVector<T> d_cpu(fine.size()), rd_cpu(coarse.size());
        cpu.restrict_defect(cpu.make_matrix<T>(A), as<T>(b), as<T>(fine), d_cpu, as<T>(split_x), as<T>(split_y), rd_cpu);
        for (bool fused : {true, false}) {
            INFO((fused ? "fused" : "unfused") << " defect and restriction");
            CudaPolicy choice;
            choice.fused_restriction = fused;
            CudaBackend be(choice);
            auto rd_gpu = poisoned<T>(coarse.size());
            auto d_gpu = poisoned<T>(fine.size());
            be.restrict_defect(be.make_matrix<T>(A), device<T>(b), device<T>(fine), d_gpu, sx, sy, rd_gpu);
            CHECK(difference(host(rd_gpu), as_double(rd_cpu)) < 10 * tolerance<T>());
        }

        auto p_gpu = device<T>(fine);
        gpu().prolong_add(device<T>(coarse), sx, sy, p_gpu, mx, my);
        CpuVector<T> p_cpu = as<T>(fine);
        cpu.prolong_add(as<T>(coarse), as<T>(split_x), as<T>(split_y), p_cpu, mx, my);
        CHECK(difference(host(p_gpu), as_double(p_cpu)) < tolerance<T>());
    }
}

TEST_CASE("CUDA vector operations and double-accumulated reductions equal the CPU backend", "[gpu]") {
    std::mt19937 rng(14);
    CpuBackend cpu;
    for (std::size_t n : {1ul, 31ul, 32ul, 33ul, 1025ul, 257ul * 257ul, 1025ul * 1025ul + 7ul}) {
        INFO("n = " << n);
        const CpuVector<double> x = random_vector(n, rng), y = random_vector(n, rng);
        // axpy float -> double (the mixed-precision update) and double -> float.
        auto yd = device<double>(y);
        gpu().axpy(0.37, device<float>(x), yd);
        CpuVector<double> yd_cpu = y;
        cpu.axpy(0.37, as<float>(x), yd_cpu);
        CHECK(difference(host(yd), yd_cpu) < 1e-15);
        // scale_convert double -> float with a scale that would overflow float without it.
        CpuVector<double> huge = x;
        for (double& v : huge) v *= 1e300;
        auto scaled = poisoned<float>(n);
        gpu().scale_convert(1e-300, device<double>(huge), scaled);
        CpuVector<float> scaled_cpu(n);
        cpu.scale_convert(1e-300, huge, scaled_cpu);
        CHECK(difference(host(scaled), as_double(scaled_cpu)) < 1e-7);
        // xpay
        auto z = device<double>(y);
        gpu().xpay(device<double>(x), -1.5, z);
        CpuVector<double> z_cpu = y;
        cpu.xpay(x, -1.5, z_cpu);
        CHECK(difference(host(z), z_cpu) < 1e-15);
        // dot in double, also of float vectors whose float sum of squares would overflow.
        CHECK(gpu().dot(device<double>(x), device<double>(y)) == Approx(cpu.dot(x, y)).epsilon(1e-12));
        CpuVector<double> big = x;
        for (double& v : big) v *= 1e30;
        CHECK(gpu().norm2(device<float>(big)) == Approx(cpu.norm2(as<float>(big))).epsilon(1e-6));
        CHECK(std::isfinite(gpu().norm2(device<float>(big))));
    }
}

TEMPLATE_TEST_CASE("CUDA fused update, defect and norm equal the CPU backend", "[gpu]", float, double) {
    // Outer precision TestType, the correction in float (mixed and single) and in TestType.
    using T = TestType;
    std::mt19937 rng(16);
    CpuBackend cpu;
    for (auto [mx, my] : grids) {
        INFO(mx << "x" << my);
        const std::size_t n = static_cast<std::size_t>(mx) * my;
        const NineBands<double> bands = random_bands(mx, my, rng);
        const CpuVector<double> b = random_vector(n, rng), x = random_vector(n, rng), c = random_vector(n, rng);
        auto A = gpu().make_matrix<T>(bands);
        const NineBands<T> A_cpu = cpu.make_matrix<T>(bands);
        auto check = [&](auto correction) {
            using C = decltype(correction);
            auto x_next = poisoned<T>(n), d = poisoned<T>(n);
            const double norm = gpu().update_defect_norm(A, device<T>(b), device<T>(x), 0.37, device<C>(c), x_next, d);
            CpuVector<T> x_next_cpu(n), d_cpu(n);
            const double norm_cpu = cpu.update_defect_norm(A_cpu, as<T>(b), as<T>(x), 0.37, as<C>(c), x_next_cpu, d_cpu);
            // Within one rounding: the device contracts x + alpha c into a fused multiply-add.
            CHECK(difference(host(x_next), as_double(x_next_cpu)) < 1e-15);
            CHECK(difference(host(d), as_double(d_cpu)) < tolerance<T>());
            CHECK(norm == Approx(norm_cpu).epsilon(sizeof(T) == 4 ? 1e-5 : 1e-12));
        };
        check(float{});
        check(T{});
    }
}

TEMPLATE_TEST_CASE("CUDA dense product equals the product in double on the host, and the direct coarsest-grid solve "
                   "equals the CPU backend's",
                   "[gpu]", float, double) {
    using T = TestType;
    // Sizes around the warp width and the largest coarsest grid solved directly (65 x 65).
    std::mt19937 rng(15);
    for (std::size_t n : {1ul, 9ul, 31ul, 32ul, 33ul, 289ul, 1089ul, 4225ul}) {
        INFO("n = " << n);
        const CpuVector<double> M = random_vector(n * n, rng), b = random_vector(n, rng);
        auto x_gpu = poisoned<T>(n);
        gpu().dense_apply(device<double>(M), device<T>(b), x_gpu);
        const CpuVector<T> b_t = as<T>(b);
        std::vector<double> x_host(n);
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j < n; ++j) x_host[i] += M[i * n + j] * double(b_t[j]);
        CHECK(difference(host(x_gpu), as_double(as<T>(x_host))) < tolerance<T>());
    }
    for (auto [mx, my] : {std::pair{3, 3}, std::pair{17, 9}, std::pair{33, 33}}) {
        INFO(mx << "x" << my << " coarsest grid");
        check_direct_solve<T>(random_bands(mx, my, rng), rng);
    }
}

TEST_CASE("transfers in chunks of any size round-trip exactly, a chunk smaller than an element is refused", "[gpu]") {
    std::mt19937 rng(16);
    const std::vector<double> h = as_double(random_vector(100003, rng));
    for (std::optional<std::size_t> chunk : {std::optional<std::size_t>(4096), std::optional<std::size_t>(4104),
                                             std::optional<std::size_t>(std::size_t(1) << 20), std::optional<std::size_t>()}) {
        INFO("chunks of " << (chunk ? std::to_string(*chunk) + " bytes" : std::string("the automatic size")));
        CudaPolicy policy;
        policy.transfer_chunk_bytes = chunk;
        CudaBackend be(policy);
        DeviceVector<double> d(h.size());
        DeviceVector<float> f(h.size());
        std::vector<double> back, back_float;
        be.upload(h, d);
        be.download(d, back);
        CHECK(back == h);
        be.upload(h, f);
        be.download(f, back_float);
        CHECK(back_float == as_double(as<float>(h)));
    }
    CudaPolicy empty_chunks;
    empty_chunks.transfer_chunk_bytes = 0;
    CHECK_THROWS_WITH(CudaBackend(empty_chunks), Catch::Contains("at least 8"));
}

TEST_CASE("transfers from and into pinned memory: one DMA for double, staged for float, same values either way", "[gpu]") {
    std::mt19937 rng(17);
    const CpuVector<double> h = random_vector(100003, rng);
    const pinned_vector<double> source(h.begin(), h.end());
    REQUIRE(is_pinned(source.data()));
    CHECK_FALSE(is_pinned(h.data()));
    for (const bool staged : {false, true}) {
        INFO((staged ? "staged (forced)" : "direct"));
        CudaPolicy policy;
        policy.staged_transfers = staged;
        CudaBackend be(policy);
        DeviceVector<double> d(h.size());
        DeviceVector<float> f(h.size());
        pinned_vector<double> back(h.size(), std::numeric_limits<double>::quiet_NaN()),
            back_float(h.size(), std::numeric_limits<double>::quiet_NaN());
        be.upload(source.data(), source.size(), d);
        CHECK(be.last_transfer_direct() == !staged);
        be.download(d, back.data());
        CHECK(be.last_transfer_direct() == !staged);
        CHECK(std::equal(back.begin(), back.end(), h.begin()));
        be.upload(h.data(), h.size(), d);  // pageable memory: always staged
        CHECK_FALSE(be.last_transfer_direct());
        be.upload(source.data(), source.size(), f);
        CHECK_FALSE(be.last_transfer_direct());  // float on the device: converted on the host
        be.download(f, back_float.data());
        CHECK_FALSE(be.last_transfer_direct());
        const std::vector<double> rounded = as_double(as<float>(h));
        CHECK(std::equal(back_float.begin(), back_float.end(), rounded.begin()));
    }
    DeviceVector<double> wrong(h.size() + 1);
    CHECK_THROWS_AS(gpu().upload(source.data(), source.size(), wrong), std::logic_error);
}

TEMPLATE_TEST_CASE("CUDA cyclic reduction and partition method agree with Thomas for lengths 3, 5, 9, ... up to the "
                   "shared-memory maximum",
                   "[gpu]", float, double) {
    using T = TestType;
    std::mt19937 rng(15);
    std::uniform_real_distribution<double> u(0.1, 1.0), v(-1.0, 1.0);
    const int longest = gpu().lines().longest_line<T>();
    std::vector<int> lengths = {1, 2, 31, 32, 33, 1000, longest};
    for (int n = 3; n <= longest; n = 2 * n - 1) lengths.push_back(n);
    // Each level-0 staging of the cyclic reduction (chunks 0), then the partition method with
    // 1 to 256 chunks per system, each system loaded per equation or staged raw by cp.async
    // (where that does not fit, solve_batch loads per equation).
    struct Method {
        CrStaging staging;
        int chunks;
        bool raw;
    };
    std::vector<Method> methods;
    for (CrStaging staging : all_cr_stagings) methods.push_back({staging, 0, false});
    for (bool raw : {false, true})
        for (int chunks : {1, 7, 32, 33, 64, 128, 256}) methods.push_back({CrStaging::all, chunks, raw});
    for (int n : lengths) {
        for (auto [staging, chunks, raw] : methods) {
            const std::size_t shared = gpu().launcher().shared_limit();
            if (chunks == 0 && make_cr_layout(n, sizeof(T), staging).words * sizeof(T) > shared) continue;
            if (chunks > 0 && (n < 2 || make_partition_layout<T>(n, chunks, 8).words() * sizeof(T) > shared)) continue;
            INFO("line of " << n << " unknowns (longest " << longest << "), " << (sizeof(T) == 4 ? "float" : "double") << ", "
                            << (chunks ? "partition method, " + std::to_string(chunks) + " chunks asked, " +
                                             (raw ? "staged raw" : "loaded per equation")
                                       : std::string("cyclic reduction, level 0 staged: ") + to_string(staging)));
            const int batch = 8;
            std::vector<double> a(n * batch), b(n * batch), c(n * batch), rhs(n * batch);
            for (int s = 0; s < batch; ++s)
                for (int i = 0; i < n; ++i) {
                    const int p = s * n + i;
                    a[p] = i > 0 ? -u(rng) : 0.0;
                    c[p] = i + 1 < n ? -u(rng) : 0.0;
                    b[p] = -a[p] - c[p] + u(rng);
                    rhs[p] = v(rng);
                }
            auto x = device<T>(rhs);
            bench::solve_batch(gpu(), device<T>(a), device<T>(b), device<T>(c), x, n, batch, {0, staging, chunks, 2, raw});
            const std::vector<double> result = host(x);
            for (int s = 0; s < batch; ++s) {
                auto slice = [&](const std::vector<double>& w) {
                    return std::vector<double>(w.begin() + s * n, w.begin() + (s + 1) * n);
                };
                const std::vector<double> ref = test::thomas({slice(a), slice(b), slice(c), slice(rhs)});
                CHECK(difference(slice(result), ref) < 50 * tolerance<T>());
            }
        }
    }
}

TEST_CASE("a line needing more segments than the multi-block solve takes fails with a message naming the sizes", "[gpu]") {
    CudaPolicy small_blocks;
    small_blocks.lines.shared_bytes = 1024;
    CudaBackend be(small_blocks);
    const int too_long = (warp_line_max / 2 + 1) * be.lines().longest_segment<double>();
    NineBands<double> A(too_long, 3);
    for (std::size_t p = 0; p < A.rows(); ++p) A(C, p) = 1.0;
    DeviceVector<double> b(A.rows()), x(A.rows()), out(A.rows());
    CHECK_THROWS_WITH(be.line_relax(be.make_matrix<double>(A), b, x, out, Direction::x, 1.0),
                      Catch::Contains(std::to_string(too_long) + " unknowns") && Catch::Contains("1024 bytes") &&
                          Catch::Contains("273 of them") && Catch::Contains("use a lower level"));
}

TEST_CASE("running out of device memory says how much was needed and how much is free", "[gpu][oom]") {
    std::size_t free_bytes = 0, total = 0;
    ADIMG_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total));
    CHECK_THROWS_WITH(DeviceVector<double>(2 * (total / sizeof(double))),
                      Catch::Contains("out of device memory") && Catch::Contains("MiB free"));
    DeviceVector<double> still_works(1024);  // the failed allocation left the device usable
    CHECK(still_works.size() == 1024);
}

TEST_CASE("matrices assembled on the device equal the host assembly entry by entry on every level (all cases, L=6..8, "
          "A5 at L=10)",
          "[gpu][assembly]") {
    // Each entry relative to the largest of its row (the A-cases' entries span 18 orders of
    // magnitude, so a tolerance relative to the matrix would hide their small entries).
    auto worst_row_difference = [](const std::vector<double>& device, const NineBands<double>& host) {
        const std::size_t n = host.rows();
        double worst = 0.0;
        for (std::size_t p = 0; p < n; ++p) {
            double scale = 0.0;
            for (int k = 0; k < 9; ++k) scale = std::max(scale, std::abs(host(k, p)));
            for (int k = 0; k < 9; ++k) worst = std::max(worst, std::abs(device[k * n + p] - host(k, p)) / scale);
        }
        return worst;
    };
    std::vector<std::pair<std::string, int>> problems;
    for (const std::string& name : builtin_case_names())
        for (int level = 6; level <= 8; ++level) problems.emplace_back(name, level);
    problems.emplace_back("A5", 10);
    for (const auto& [name, level] : problems) {
        for (const MeshLevel& m : mesh_hierarchy(builtin_case(name), level, 1).levels) {
            INFO(name << " at L=" << level << ", level " << m.level << " (" << m.mesh.mx() << "x" << m.mesh.my() << ")");
            const NineBands<double> host_bands = assemble_stiffness(m.mesh);
            const auto in_double = gpu().make_matrix<double>(m.mesh);
            const double difference = worst_row_difference(host(in_double.values), host_bands);
            CHECK(difference <= 1e-14);
            const auto in_float = gpu().make_matrix<float>(m.mesh);
            const CpuVector<float> rounded(host_bands.values.begin(), host_bands.values.end());
            CHECK(host(in_float.values) == as_double(rounded));  // each entry rounded once, as on the host
        }
    }
}

TEST_CASE("load vectors and L2 errors computed on the device equal the host's (all cases, L=6..8, A5 at L=10)",
          "[gpu][assembly]") {
    std::vector<std::pair<std::string, int>> problems;
    for (const std::string& name : builtin_case_names())
        for (int level = 6; level <= 8; ++level) problems.emplace_back(name, level);
    problems.emplace_back("A5", 10);
    for (const auto& [name, level] : problems) {
        INFO(name << " at L=" << level);
        const CaseSpec spec = builtin_case(name);
        const TensorMesh mesh = spec.mesh(level);
        const PolynomialProblem problem{spec.x.length, spec.y.length};
        const std::vector<double> b = assemble_load(mesh, problem);
        DeviceVector<double> b_device = poisoned<double>(b.size());
        gpu().assemble_load(mesh, problem, b_device);
        CHECK(difference(host(b_device), b) <= 1e-14);
        // The error of a perturbed exact solution: nodal values u0 (1 + 1e-3 sin p).
        std::vector<double> u(b.size());
        for (int j = 0; j < mesh.my(); ++j)
            for (int i = 0; i < mesh.mx(); ++i) {
                const double x = 1.0 * i / (mesh.mx() - 1), y = 1.0 * j / (mesh.my() - 1);
                const std::size_t p = static_cast<std::size_t>(j) * mesh.mx() + i;
                u[p] = x * (1 - x) * y * (1 - y) * (1.0 + 1e-3 * std::sin(double(p)));
            }
        const double host_error = relative_l2_error(mesh, problem, u);
        const double device_error = gpu().relative_l2_error(mesh, problem, device<double>(u));
        CHECK(std::abs(device_error - host_error) <= 1e-12 * host_error);
        const double float_error = gpu().relative_l2_error(mesh, problem, device<float>(u));
        CHECK(std::abs(float_error - relative_l2_error(mesh, problem, as_double(as<float>(u)))) <= 1e-12 * host_error);
    }
}

TEST_CASE("Galerkin products formed on the device equal the host's bit for bit, and convert to float as on the host "
          "(A3 and A5 with their split positions, L=8)",
          "[gpu][galerkin]") {
    for (const std::string name : {"A3", "A5"}) {
        INFO(name);
        const CaseSpec spec = builtin_case(name);
        NineBands<double> fine = assemble_stiffness(spec.mesh(8));
        auto fine_device = gpu().make_matrix<double>(fine);
        for (int level = 7; level >= 5; --level) {
            INFO("level " << level);
            const std::vector<double> split_x = split_positions(refine(spec.x, level), refine(spec.x, level + 1));
            const std::vector<double> split_y = split_positions(refine(spec.y, level), refine(spec.y, level + 1));
            const NineBands<double> coarse = galerkin_coarse(fine, split_x, split_y);
            auto coarse_device = gpu().make_matrix<double>(coarse.mx, coarse.my);
            gpu().galerkin_coarse(fine_device, device<double>(split_x), device<double>(split_y), coarse_device);
            CHECK(host(coarse_device.values) == as_double(coarse.values));
            const auto in_float = gpu().make_matrix<float>(coarse_device);
            CHECK(host(in_float.values) == as_double(as<float>(coarse.values)));
            NineBands<double> downloaded;
            gpu().download(coarse_device, downloaded);
            CHECK(downloaded.values == coarse.values);
            fine = coarse;
            fine_device = std::move(coarse_device);
        }
    }
}

TEMPLATE_TEST_CASE("the coarsest grid's inverse from the host factor: Cholesky for the symmetric Q1 matrices, LU otherwise, "
                   "equal to the CPU's sparse factor, a singular matrix is an input error",
                   "[gpu][coarse]", float, double) {
    using T = TestType;
    std::mt19937 rng(16);
    for (const std::string name : {"U1", "A3", "A5"}) {
        INFO(name << " at L=5 (33x33)");
        const NineBands<double> A = assemble_stiffness(builtin_case(name).mesh(5));
        REQUIRE(nearly_symmetric(A));
        check_direct_solve<T>(A, rng);
    }
    NineBands<double> singular = assemble_stiffness(builtin_case("U1").mesh(3));
    for (int k = 0; k < 9; ++k) singular(k, 40) = 0.0;
    CHECK_THROWS_AS(gpu().make_direct_solve(singular), input_error);
}

namespace {
/// The device's coarsest-grid inverse of A, and CoarseFactor::inverse() on the host.
std::pair<std::vector<double>, std::vector<double>> device_and_host_inverse(const NineBands<double>& A) {
    std::vector<double> expected(A.rows() * A.rows());
    CoarseFactor(A).inverse(expected.data());
    return {host(gpu().make_direct_solve(A).inverse), expected};
}
bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}
}  // namespace

TEST_CASE("the coarsest grid's inverse made on the device from the LDL^T factor equals CoarseFactor::inverse() bit for "
          "bit: a graded case's level, pure Neumann (pinned, projected), a user's Galerkin levels; LU on the host; a "
          "values-only update allocates nothing; an inverse that is not finite is an input error",
          "[gpu][coarse]") {
    for (const auto& [name, A] : adimg_test::coarse_matrices()) {
        INFO(name);
        const auto [device, expected] = device_and_host_inverse(A);
        CHECK(CoarseFactor(A).pinned() == constant_null_space(A));
        CHECK(same_bits(device, expected));
    }
    // 65 x 65, the largest coarsest grid solved directly: one warp per column, the most shared memory.
    const NineBands<double> largest = assemble_stiffness(builtin_case("A2").mesh(6));
    {
        INFO("A2 at L = 6 (65 x 65)");
        const auto [device, expected] = device_and_host_inverse(largest);
        CHECK(same_bits(device, expected));
    }
    {
        INFO("not symmetric: LU, inverted on the host");
        NineBands<double> skew = assemble_stiffness(builtin_case("U1").mesh(3));
        skew(E, 4 * 9 + 4) += 0.1;
        REQUIRE(!nearly_symmetric(skew));
        const auto [device, expected] = device_and_host_inverse(skew);
        CHECK(same_bits(device, expected));
    }
    {
        INFO("new values on the same grid: the same storage, the new inverse");
        const NineBands<double> first = assemble_stiffness(builtin_case("A5").mesh(5));
        NineBands<double> scaled = assemble_stiffness(builtin_case("A3").mesh(5));
        auto s = gpu().make_direct_solve(first);
        const double* storage = s.inverse.data();
        const long long bytes = s.bytes();
        gpu().update_direct_solve(scaled, s);
        CHECK(s.inverse.data() == storage);
        CHECK(s.bytes() == bytes);
        std::vector<double> expected(scaled.rows() * scaled.rows());
        CoarseFactor(scaled).inverse(expected.data());
        CHECK(same_bits(host(s.inverse), expected));
    }
    {
        INFO("a pivot of 1e-310: D is finite and nonzero, its inverse 1 / d is not");
        NineBands<double> tiny = assemble_stiffness(builtin_case("U1").mesh(3));
        tiny(C, 40) = 1e-310;
        for (int k = 0; k < 9; ++k)
            if (k != C) tiny(k, 40) = tiny(8 - k, matrix_rules::neighbour(40, k, tiny.mx)) = 0.0;
        try {
            gpu().make_direct_solve(tiny);
            FAIL("an inverse that is not finite was accepted");
        } catch (const input_error& e) {
            CHECK(std::string(e.what()).find("singular to working precision") != std::string::npos);
        }
    }
}
