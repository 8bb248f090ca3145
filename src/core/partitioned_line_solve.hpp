#pragma once
// Long tridiagonal lines by the partition method: each thread eliminates a chunk of consecutive
// equations on its own, one warp solves the small system that couples the chunks, and each
// thread then fills in its chunk. Four block barriers per line, against the 2 log2 n phases of
// cyclic reduction (cyclic_reduction.hpp), whose barriers and latency chains bound the long
// lines (bench/PERFORMANCE.md, "Lines by the partition method").
//
// The line (n equations, normalised to a unit diagonal: a x_{i-1} + x_i + c x_{i+1} = v) is cut
// into C chunks of K or K + 1 consecutive equations (at least two each). Thread t, with chunk
// t = [s, s + m), rewrites it in place:
//  - forward, rows j = 2 .. m-1 lose their lower neighbour x_{s+j-1}, gaining a coupling to the
//    chunk's first unknown x_s instead: abar x_s + x_{s+j} + cbar x_{s+j+1} = vbar (row 1 has
//    that form already). The last row now couples x_s and x_{s+m}, the next chunk's first;
//  - backward, rows j = m-3 .. 1 lose their upper neighbour, gaining a coupling to the chunk's
//    last unknown: ahat x_s + x_{s+j} + chat x_{s+m-1} = vhat (row m-2 has that form already);
//  - row 0 loses x_{s+1} through row 1 and couples x_{s-1}, the previous chunk's last, and
//    x_{s+m-1}.
// Rows 0 and m-1 of all chunks, in the order first(0), last(0), first(1), last(1), ..., form a
// tridiagonal system of 2C unit-diagonal equations: one warp solves it in registers
// (warp_line_solve.hpp; 2C <= 32 Slots). Then x_{s+j} = vhat - ahat x_s - chat x_{s+m-1} for the
// interior rows. No division beyond one reciprocal per forward row and one per chunk.
//
// Shared memory: the three arrays a, c, v of the line, 3 n words plus padding, rewritten in
// place (the solution goes to v). Word i of an array lives at partition_slot<T>(i) = i + i / w,
// with w = 128 bytes / sizeof(T) (32 floats, 16 doubles): the threads of a warp walk their
// chunks in step, K words apart, and with one pad word per 128 bytes the accesses of a warp
// (float) or of each half-warp (double, 8-byte words) fall in different banks for every K that
// is a power of two up to w (addresses t K + t K / w). The loads (thread t takes equations t,
// t + P, ...) stay consecutive.
//
// The algorithm is written once over an executor: `phase(count, body)` calls body(t) for t in
// [0, count) with the threads of the block and then waits for all of them; `first_warp(body)`
// calls body(warp) in one warp (the Warp of warp_line_solve, with gather() and scatter() for its
// lanes' shared-memory reads and writes) and then waits for the block. The CUDA kernels pass
// loops over threads with barriers, the host test plain loops and 32 simulated lanes.

#include "warp_line_solve.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace adimg {

/// Where word i of a line array of T lives (see above: one pad word per 128 bytes keeps the chunk
/// walks free of bank conflicts).
template <class T>
ADIMG_HD constexpr int partition_slot(int i) {
    constexpr int per_pad = 128 / sizeof(T);
    return i + i / per_pad;
}

/// How a line of n equations is cut into chunks.
struct PartitionLayout {
    int n = 0;
    int chunks = 0;       ///< C
    int length = 0;       ///< K: equations per chunk; the first `longer` chunks have K + 1
    int longer = 0;
    int array_words = 0;  ///< words of each of the arrays a, c, v, padding included

    ADIMG_HD int start(int t) const { return t * length + (t < longer ? t : longer); }
    ADIMG_HD int size(int t) const { return length + (t < longer ? 1 : 0); }
    ADIMG_HD int reduced() const { return 2 * chunks; }  ///< unknowns of the coupling system
    /// Row of the line that holds equation r of the coupling system.
    ADIMG_HD int reduced_row(int r) const { return (r & 1) == 0 ? start(r >> 1) : start(r >> 1) + size(r >> 1) - 1; }
    int words() const { return 3 * array_words; }
};

/// The most chunks per line: their coupling system, 2 C equations, is one warp's (16 slots).
constexpr int partition_max_chunks = 256;

/// Warp slots of the coupling system of `chunks` chunks: the smallest power of two with
/// 2 chunks <= 32 slots (each is a kernel of its own, so only these are compiled).
constexpr int partition_slots(int chunks) {
    int slots = 1;
    while (warp_lanes * slots < 2 * chunks) slots *= 2;
    return slots;
}

/// Cuts n >= 2 equations of T into at most `chunks` chunks of at least two equations each.
template <class T>
PartitionLayout make_partition_layout(int n, int chunks) {
    if (n < 2 || chunks < 1 || chunks > partition_max_chunks)
        throw std::invalid_argument("partitioned line solve: needs at least 2 equations and 1 to " +
                                    std::to_string(partition_max_chunks) + " chunks, got " + std::to_string(n) + " and " +
                                    std::to_string(chunks));
    PartitionLayout L;
    L.n = n;
    L.chunks = std::min(chunks, n / 2);
    L.length = n / L.chunks;
    L.longer = n % L.chunks;
    L.array_words = partition_slot<T>(n - 1) + 1;
    return L;
}

/// Solves the line of L.n equations given by `load(i)` (normalised) and hands x_i to
/// `store(i, x)`; `Slots` >= partition_slots(L.chunks). `shared` holds L.words() words.
template <int Slots, class T, class Executor, class Load, class Store>
ADIMG_HD void partitioned_line_solve(const PartitionLayout& L, T* shared, Executor& exec, Load&& load, Store&& store) {
    T* const A = shared;
    T* const C = shared + L.array_words;
    T* const V = shared + 2 * L.array_words;
    auto get = [&](int i) {
        const int p = partition_slot<T>(i);
        return CrEquation<T>{A[p], C[p], V[p]};
    };
    auto put = [&](int i, const CrEquation<T>& e) {
        const int p = partition_slot<T>(i);
        A[p] = e.a;
        C[p] = e.c;
        V[p] = e.v;
    };
    exec.phase(L.n, [&](int i) { put(i, load(i)); });
    exec.phase(L.chunks, [&](int t) {
        const int s = L.start(t), m = L.size(t);
        CrEquation<T> row = get(s + 1);  // forward form already
        for (int j = 2; j < m; ++j) {
            const CrEquation<T> e = get(s + j);
            row = cr_normalise<T, true>(-e.a * row.a, T(1) - e.a * row.c, e.c, e.v - e.a * row.v);
            put(s + j, row);
        }
        if (m < 3) return;  // row 0 couples x_{s-1} and x_{s+1}, the chunk's last, already
        row = get(s + m - 2);  // backward form already
        for (int j = m - 3; j >= 1; --j) {
            const CrEquation<T> e = get(s + j);
            row = CrEquation<T>{e.a - e.c * row.a, -e.c * row.c, e.v - e.c * row.v};
            put(s + j, row);
        }
        const CrEquation<T> e = get(s);
        put(s, cr_normalise<T, true>(e.a, T(1) - e.c * row.a, -e.c * row.c, e.v - e.c * row.v));
    });
    exec.first_warp([&](const auto& warp) {
        // Lane l, slot m: equation l + 32 m of the coupling system; past its end, x = 0.
        auto slot = [&](int m) {
            auto word = [&](const T* array) {
                return warp.gather([&, array](int lane) {
                    const int r = lane + warp_lanes * m;
                    return r < L.reduced() ? array[partition_slot<T>(L.reduced_row(r))] : T(0);
                });
            };
            auto a = word(A);
            return CrEquation<decltype(a)>{a, word(C), word(V)};
        };
        decltype(slot(0)) eq[Slots];
#pragma unroll
        for (int m = 0; m < Slots; ++m) eq[m] = slot(m);
        warp_line_solve(eq, warp);
#pragma unroll
        for (int m = 0; m < Slots; ++m)
            warp.scatter(eq[m].v, [&](int lane, T x) {
                const int r = lane + warp_lanes * m;
                if (r < L.reduced()) V[partition_slot<T>(L.reduced_row(r))] = x;
            });
    });
    exec.phase(L.chunks, [&](int t) {
        const int s = L.start(t), m = L.size(t);
        const T first = V[partition_slot<T>(s)], last = V[partition_slot<T>(s + m - 1)];
        for (int j = 1; j + 1 < m; ++j) {
            const int p = partition_slot<T>(s + j);
            V[p] = V[p] - A[p] * first - C[p] * last;
        }
    });
    exec.phase(L.n, [&](int i) { store(i, V[partition_slot<T>(i)]); });
}

}  // namespace adimg
