// The line solvers of the CUDA backend run on the host with the same code: the shared-memory
// cyclic reduction with its layout (src/lines/cyclic_reduction.hpp), the one-warp solver for
// short lines (src/lines/warp_line_solve.hpp) with 32 simulated lanes, and the partition method
// for long lines (src/lines/partition_method.hpp), so that CI checks where each equation
// lives at each level, in which lane and slot, and in which chunk, without a GPU.

#include "compare.hpp"
#include "lanes.hpp"
#include "thomas.hpp"

#include <lines/cyclic_reduction.hpp>
#include <lines/partition_method.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

using namespace adimg;

namespace {

/// A diagonally dominant system like the ADI lines: a, c < 0, b > |a| + |c|, ends decoupled.
test::Tridiagonal random_system(int n, std::mt19937& rng) {
    std::uniform_real_distribution<double> u(0.1, 1.0), v(-1.0, 1.0);
    test::Tridiagonal s{std::vector<double>(n), std::vector<double>(n), std::vector<double>(n), std::vector<double>(n)};
    for (int i = 0; i < n; ++i) {
        s.a[i] = i > 0 ? -u(rng) : 0.0;
        s.c[i] = i + 1 < n ? -u(rng) : 0.0;
        s.b[i] = -s.a[i] - s.c[i] + u(rng);
        s.v[i] = v(rng);
    }
    return s;
}

/// Runs cyclic_reduction<T> on the host for the lines `systems` (of one length) as one block
/// solves them: each phase is a plain loop, which is exactly what the threads of a block do
/// between two barriers, since no phase reads what it writes. Returns each line's solution;
/// `touched` receives the words of the block's buffer that were written.
template <class T>
std::vector<std::vector<double>> host_cyclic_reduction(const std::vector<test::Tridiagonal>& systems, CrStaging staging,
                                                       std::vector<int>* touched = nullptr) {
    const int n = static_cast<int>(systems.front().b.size()), lines = static_cast<int>(systems.size());
    const CrLayout layout = make_cr_layout(n, sizeof(T), staging, lines);
    std::vector<T> shared(layout.block_words(), std::numeric_limits<T>::quiet_NaN());
    std::vector<std::vector<double>> x(lines, std::vector<double>(n, std::numeric_limits<double>::quiet_NaN()));
    auto phase = [lines](CrAccess, int count, auto&& body) {
        for (int g = 0; g < lines; ++g)
            for (int t = 0; t < count; ++t) body(g, t);
    };
    auto load = [&](int g, int i) {
        const test::Tridiagonal& s = systems[g];
        return cr_normalise(T(s.a[i]), T(s.b[i]), T(s.c[i]), T(s.v[i]));
    };
    auto store = [&](int g, int i, T value) { x[g][i] = value; };
    cyclic_reduction<T>(layout, layout.staging, shared.data(), phase, load, store);
    if (touched)
        for (int w = 0; w < layout.block_words(); ++w)
            if (!std::isnan(static_cast<double>(shared[w]))) touched->push_back(w);
    return x;
}

template <class T>
std::vector<double> host_cyclic_reduction(const test::Tridiagonal& s, CrStaging staging, std::vector<int>* touched = nullptr) {
    return host_cyclic_reduction<T>(std::vector<test::Tridiagonal>{s}, staging, touched).front();
}

/// Runs warp_line_solve<K> on 32 simulated lanes: lane l, slot m holds equation l + 32 m.
template <class T, int K>
std::vector<double> host_warp_line_solve(const test::Tridiagonal& s) {
    const int n = static_cast<int>(s.b.size());
    using V = test::Lanes<T>;
    CrEquation<V> eq[K];
    for (int m = 0; m < K; ++m)
        for (int l = 0; l < warp_lanes; ++l) {
            const int i = l + warp_lanes * m;
            const CrEquation<T> e = i < n ? cr_normalise(T(s.a[i]), T(s.b[i]), T(s.c[i]), T(s.v[i])) : CrEquation<T>{0, 0, 0};
            eq[m].a[l] = e.a;
            eq[m].c[l] = e.c;
            eq[m].v[l] = e.v;
        }
    warp_line_solve(eq, test::HostWarp{});
    std::vector<double> x(n);
    for (int i = 0; i < n; ++i) x[i] = eq[i / warp_lanes].v[i % warp_lanes];
    return x;
}

template <class T>
std::vector<double> host_warp_line_solve(const test::Tridiagonal& s) {
    switch (warp_line_slots(static_cast<int>(s.b.size()))) {
    case 1: return host_warp_line_solve<T, 1>(s);
    case 2: return host_warp_line_solve<T, 2>(s);
    case 3: return host_warp_line_solve<T, 3>(s);
    case 5: return host_warp_line_solve<T, 5>(s);
    case 9: return host_warp_line_solve<T, 9>(s);
    case 17: return host_warp_line_solve<T, 17>(s);
    }
    throw std::logic_error("no slot count for this length");
}
/// The executor of partitioned_line_solve() on the host: a phase is a loop over its items (no
/// phase reads what another item of it writes), the warp is 32 simulated lanes.
struct HostPartitionExecutor {
    template <class Body>
    void phase(int count, Body&& body) {
        for (int t = 0; t < count; ++t) body(t);
    }
    template <class Read, class Write>
    void streamed(int count, Read&& read, Write&& write) {
        for (int t = 0; t < count; ++t) write(t, read(t));
    }
    template <class Body>
    void copy_phase(int count, Body&& body) {
        for (int t = 0; t < count; ++t) body(t, [](auto* to, const auto* from) { *to = *from; });
    }
    template <class Body>
    void first_warp(Body&& body) {
        body(test::HostWarp{});
    }
};

/// Runs partitioned_line_solve<Slots, T> on the host for `chunks` chunks, the line given by
/// `load(i)` or, `raw`, as a RawLine staged as it is; `touched` receives the words of the buffer
/// that were written.
template <int Slots, class T>
std::vector<double> host_partitioned_solve(const test::Tridiagonal& s, int chunks, bool raw, std::vector<int>* touched) {
    const int n = static_cast<int>(s.b.size());
    const PartitionLayout layout = make_partition_layout<T>(n, chunks, Slots, raw);
    std::vector<T> shared(layout.words(), std::numeric_limits<T>::quiet_NaN());
    std::vector<double> x(n, std::numeric_limits<double>::quiet_NaN());
    HostPartitionExecutor exec;
    auto store = [&](int i, T value) { x[i] = value; };
    const std::vector<T> a(s.a.begin(), s.a.end()), b(s.b.begin(), s.b.end()), c(s.c.begin(), s.c.end()),
        v(s.v.begin(), s.v.end());
    if (raw)
        partitioned_line_solve<Slots, T>(layout, shared.data(), exec, RawLine<T>{a.data(), b.data(), c.data(), v.data()}, store);
    else
        partitioned_line_solve<Slots, T>(
            layout, shared.data(), exec, [&](int i) { return cr_normalise(a[i], b[i], c[i], v[i]); }, store);
    if (touched)
        for (int w = 0; w < layout.words(); ++w)
            if (!std::isnan(static_cast<double>(shared[w]))) touched->push_back(w);
    return x;
}

std::vector<int> line_lengths() {
    std::vector<int> n;
    for (int i = 1; i <= 70; ++i) n.push_back(i);
    for (int k = 7; k <= 13; ++k)
        for (int d : {-1, 0, 1}) n.push_back((1 << k) + d);
    return n;
}

}  // namespace

TEMPLATE_TEST_CASE("host cyclic reduction agrees with Thomas for line lengths 1..70 and 2^k-1, 2^k, 2^k+1 up to 8193",
                   "[cyclic-reduction]", float, double) {
    std::mt19937 rng(7);
    const double tolerance = sizeof(TestType) == 4 ? 2e-5 : 1e-13;
    for (int n : line_lengths()) {
        for (CrStaging staging : all_cr_stagings) {
            const test::Tridiagonal s = random_system(n, rng);
            const double error = adimg_test::relative_max_difference(host_cyclic_reduction<TestType>(s, staging), test::thomas(s));
            INFO("n = " << n << ", level 0 staged: " << to_string(staging) << ", relative max-norm difference " << error);
            REQUIRE(error < tolerance);
        }
    }
}

TEMPLATE_TEST_CASE("host cyclic reduction of 2, 4 and 8 lines per block solves each line, each in its own part of the buffer",
                   "[cyclic-reduction]", float, double) {
    std::mt19937 rng(9);
    const double tolerance = sizeof(TestType) == 4 ? 2e-5 : 1e-13;
    for (int lines : {2, 4, 8}) {
        for (int n : {1, 2, 3, 17, 64, 65, 257, 1025}) {
            for (CrStaging staging : all_cr_stagings) {
                INFO(lines << " lines of " << n << ", level 0 staged: " << to_string(staging));
                std::vector<test::Tridiagonal> systems;
                for (int g = 0; g < lines; ++g) systems.push_back(random_system(n, rng));
                std::vector<int> touched;
                const auto x = host_cyclic_reduction<TestType>(systems, staging, &touched);
                for (int g = 0; g < lines; ++g) {
                    const double error = adimg_test::relative_max_difference(x[g], test::thomas(systems[g]));
                    INFO("line " << g << ", relative max-norm difference " << error);
                    REQUIRE(error < tolerance);
                }
                // Line g writes only inside [g * line_stride, g * line_stride + words).
                const CrLayout L = make_cr_layout(n, sizeof(TestType), staging, lines);
                REQUIRE(L.line_stride >= L.words);
                for (int w : touched) REQUIRE(w % L.line_stride < L.words);
            }
        }
    }
}

TEST_CASE("lines of one block start 64 / lines bytes apart mod 128, so a warp's accesses to their E_0 and O_0 spread over the banks",
          "[cyclic-reduction]") {
    for (int n : {33, 513, 1025, 4097}) {
        for (int word : {4, 8}) {
            for (int lines : {2, 4, 8}) {
                const CrLayout L = make_cr_layout(n, word, CrStaging::evens, lines);
                INFO(lines << " lines of " << n << ", " << word << "-byte words, stride " << L.line_stride);
                REQUIRE(L.line_stride * word % 128 == 64 / lines);
            }
        }
    }
}

TEMPLATE_TEST_CASE("one-warp line solver (PCR across lanes, Thomas within) agrees with Thomas for every length up to 544",
                   "[cyclic-reduction]", float, double) {
    std::mt19937 rng(8);
    const double tolerance = sizeof(TestType) == 4 ? 2e-5 : 1e-13;
    REQUIRE(warp_line_slots(warp_line_max) == 17);
    REQUIRE(warp_line_slots(warp_line_max + 1) == 0);
    for (int n = 1; n <= warp_line_max; ++n) {
        const int slots = warp_line_slots(n);
        REQUIRE(warp_lanes * slots >= n);
        const test::Tridiagonal s = random_system(n, rng);
        const double error = adimg_test::relative_max_difference(host_warp_line_solve<TestType>(s), test::thomas(s));
        INFO("n = " << n << " (" << slots << " slots per lane), relative max-norm difference " << error);
        REQUIRE(error < tolerance);
    }
}

TEMPLATE_TEST_CASE("partitioned line solver (chunks by Thomas, their coupling system by one warp, in one or two levels) agrees with Thomas",
                   "[cyclic-reduction]", float, double) {
    std::mt19937 rng(11);
    const double tolerance = sizeof(TestType) == 4 ? 2e-5 : 1e-13;
    for (bool raw : {false, true})
    for (int slots : {2, 8}) {
        for (int chunks : {1, 2, 3, 16, 32, 33, 64, 128, 129, 256}) {
            for (int n : line_lengths()) {
                if (n < 2) continue;
                const test::Tridiagonal s = random_system(n, rng);
                std::vector<int> touched;
                const std::vector<double> x = slots == 2 ? host_partitioned_solve<2, TestType>(s, chunks, raw, &touched)
                                                         : host_partitioned_solve<8, TestType>(s, chunks, raw, &touched);
                const double error = adimg_test::relative_max_difference(x, test::thomas(s));
                const PartitionLayout L = make_partition_layout<TestType>(n, chunks, slots, raw);
                INFO("n = " << n << (raw ? ", staged raw" : ", loaded per equation") << ", " << chunks << " chunks asked, "
                            << L.line.count << " of " << L.line.length
                            << " (+1 for " << L.line.longer << "), coupling system of " << L.reduced() << " by "
                            << (L.coupling.count ? "32 lane chunks, then" : "") << " a warp with " << slots
                            << " slots, relative max-norm difference " << error);
                REQUIRE(error < tolerance);
                // The chunks tile the line, and the lanes' chunks the coupling system, each chunk
                // with two equations or more.
                auto tiles = [](const Chunks& k, int total) {
                    REQUIRE(k.start(0) == 0);
                    REQUIRE(k.start(k.count - 1) + k.size(k.count - 1) == total);
                    for (int t = 0; t < k.count; ++t) REQUIRE(k.size(t) >= 2);
                };
                tiles(L.line, n);
                REQUIRE((L.coupling.count > 0) == (L.reduced() > warp_lanes * slots));
                if (L.coupling.count) tiles(L.coupling, L.reduced());
                // The line's arrays were written in full (padding aside), nothing outside the buffer.
                REQUIRE(std::count_if(touched.begin(), touched.end(), [&](int w) { return w < L.coupling_base(0); }) == 3 * n);
                REQUIRE(touched.back() < L.words());
            }
        }
    }
    REQUIRE_THROWS_WITH(make_partition_layout<TestType>(1, 4, 8), Catch::Contains("at least 2 equations"));
    REQUIRE_THROWS_WITH(make_partition_layout<TestType>(4097, 512, 8), Catch::Contains("1 to 256 chunks"));
}

TEST_CASE("partitioned line solver: the threads of a warp walking their chunks hit different banks", "[cyclic-reduction]") {
    // Float: 32 lanes, 4-byte banks; double: each half-warp of 16 lanes, two banks per word.
    auto check = [](auto word, int lanes) {
        using T = decltype(word);
        for (int K = 1; K <= 128 / static_cast<int>(sizeof(T)); K *= 2) {
            for (int j = 0; j < K; ++j) {
                std::vector<int> banks;
                for (int t = 0; t < lanes; ++t) banks.push_back(partition_slot<T>(t * K + j) % lanes);
                std::sort(banks.begin(), banks.end());
                INFO(sizeof(T) << "-byte words, chunks of " << K << ", step " << j);
                REQUIRE(std::adjacent_find(banks.begin(), banks.end()) == banks.end());
            }
        }
    };
    check(float{}, 32);
    check(double{}, 16);
}

TEST_CASE("cyclic-reduction layout: regions disjoint and inside the buffer, every word written is inside", "[cyclic-reduction]") {
    for (int n : line_lengths()) {
        for (int word : {4, 8}) {
            const CrLayout L = make_cr_layout(n, word);
            INFO("n = " << n << ", " << word << "-byte words");
            REQUIRE(L.levels == static_cast<int>(std::floor(std::log2(n))));
            REQUIRE(L.size(L.levels) == 1);
            // E levels do not overlap and fit in even_size.
            for (int k = 0; k < L.levels; ++k) REQUIRE(L.even_offset[k] + L.evens(k) <= L.even_offset[k + 1]);
            REQUIRE(L.even_offset[L.levels] + L.evens(L.levels) <= L.even_size);
            // Odd ping-pong buffers hold the largest level of their parity.
            for (int k = 1; k <= L.levels; ++k) {
                const int end = L.odd_offset[k & 1] + L.size(k) / 2;
                REQUIRE(end <= L.odd_size);
                if ((k & 1) == 1) REQUIRE(end <= L.odd_offset[0]);
            }
            // O_0 lies after everything else.
            REQUIRE(L.first_odd_base(0) >= 3 * L.even_size + 3 * L.odd_size);
            REQUIRE(L.first_odd_base(2) + L.size(1) <= L.words);
            // Solution ping-pong buffers lie in the O region (dead by then) and do not overlap E.
            for (int k = 1; k <= L.levels; ++k) {
                const int start = L.solution_base(k), end = start + L.size(k);
                REQUIRE(start >= 3 * L.even_size);
                REQUIRE(end <= L.words);
                if ((k & 1) == 1) REQUIRE(end <= L.solution_base(0));
            }
        }
    }
    std::mt19937 rng(3);
    for (int n : {5, 33, 1025}) {
        for (CrStaging staging : all_cr_stagings) {
            std::vector<int> touched;
            host_cyclic_reduction<float>(random_system(n, rng), staging, &touched);
            const CrLayout L = make_cr_layout(n, 4, staging);
            REQUIRE(std::all_of(touched.begin(), touched.end(), [&](int w) { return w >= 0 && w < L.words; }));
        }
    }
}

TEST_CASE("cyclic-reduction writes are bank-conflict free: E and O bases differ by 64 bytes mod 128", "[cyclic-reduction]") {
    for (int n : {33, 1025, 4097, 8193}) {
        for (int word : {4, 8}) {
            const CrLayout L = make_cr_layout(n, word);
            for (int array = 0; array < 3; ++array) {
                const int offset_bytes = (L.first_odd_base(array) - L.even_base(array, 0)) * word;
                INFO("n = " << n << ", level 0, array " << array << ", offset " << offset_bytes << " bytes");
                REQUIRE(((offset_bytes % 128) + 128) % 128 == 64);
            }
            for (int k = 1; k <= L.levels; ++k) {
                for (int array = 0; array < 3; ++array) {
                    const int offset_bytes = (L.odd_base(array, k) - L.even_base(array, k)) * word;
                    INFO("n = " << n << ", level " << k << ", array " << array << ", offset " << offset_bytes << " bytes");
                    REQUIRE(((offset_bytes % 128) + 128) % 128 == 64);
                }
            }
        }
    }
}

TEST_CASE("an H200 block (227 KiB of shared memory) holds float lines of 8193 and double lines of 4097, "
          "double lines of 8193 only without level 0", "[cyclic-reduction]") {
    const std::size_t h200_bytes = 227 * 1024;
    for (CrStaging staging : all_cr_stagings) {
        INFO("level 0 staged: " << to_string(staging));
        CHECK(make_cr_layout(8193, 4, staging).words * 4u <= h200_bytes);
        CHECK(make_cr_layout(4097, 8, staging).words * 8u <= h200_bytes);
        CHECK((make_cr_layout(8193, 8, staging).words * 8u <= h200_bytes) == (staging == CrStaging::none));
    }
}
