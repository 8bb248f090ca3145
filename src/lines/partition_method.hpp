#pragma once
// Long tridiagonal lines by the partition method: each thread eliminates a chunk of consecutive
// equations on its own, one warp solves the small system that couples the chunks, and each
// thread then fills in its chunk. Four block barriers per line, against the 2 log2 n phases of
// cyclic reduction (cyclic_reduction.hpp), whose barriers and latency chains bound long lines
// (docs/performance.md, "Long lines by the partition method").
//
// The line (n equations, normalised to a unit diagonal: a x_{i-1} + x_i + c x_{i+1} = v) is cut
// into C chunks of K or K + 1 consecutive equations (at least two each). Thread t, with chunk
// [s, s + m), rewrites it in place (partition_eliminate):
//  - forward, rows j = 2 .. m-1 lose their lower neighbour x_{s+j-1}, gaining a coupling to the
//    chunk's first unknown x_s instead: abar x_s + x_{s+j} + cbar x_{s+j+1} = vbar (row 1 has
//    that form already). The last row now couples x_s and x_{s+m}, the next chunk's first;
//  - backward, rows j = m-3 .. 1 lose their upper neighbour, gaining a coupling to the chunk's
//    last unknown: ahat x_s + x_{s+j} + chat x_{s+m-1} = vhat (row m-2 has that form already);
//  - row 0 loses x_{s+1} through row 1 and couples x_{s-1}, the previous chunk's last, and
//    x_{s+m-1}.
// Rows 0 and m-1 of all chunks, in the order first(0), last(0), first(1), last(1), ..., form a
// tridiagonal system of 2C unit-diagonal equations, the coupling system. Once it is solved,
// x_{s+j} = vhat - ahat x_s - chat x_{s+m-1} for the interior rows (partition_substitute).
// One reciprocal per forward row and one per chunk; no other division.
//
// The coupling system is solved by warp 0. If it has at most 32 Slots equations, the warp solves
// it in registers (warp_line_solve.hpp, Slots per lane), reading them from the line's arrays.
// Larger ones are solved by the same method once more: they are copied to arrays of their own,
// each of the 32 lanes eliminates a chunk of 2C / 32 of them, and the 64 equations that couple
// those chunks go to the registers. Registers bound the first way (they limit the blocks per
// SM), the lanes' serial chunks the second; docs/performance.md, "Long lines by the partition method", has which wins where.
//
// Shared memory, in words of T: the arrays a, c, v of the line (3 n plus padding), rewritten in
// place, the solution going to v; with two levels also the coupling system (3 x 2C) and the
// warp's 64 equations (3 x 64). Word i of an array lives at partition_slot<T>(i) = i + i / w,
// with w = 128 bytes / sizeof(T) (32 floats, 16 doubles): the threads of a warp walk their
// chunks in step, K words apart, and with one pad word per 128 bytes the accesses of a warp
// (float) or of each half-warp (double, 8-byte words) fall in different banks for every K that
// is a power of two up to w (addresses t K + t K / w). The loads (thread t takes equations t,
// t + P, ...) stay consecutive.
//
// A line is given either by `load(i)`, which returns equation i normalised, or as a RawLine: the
// four arrays of a system in gtsv layout, for a layout made `raw`. A RawLine is copied into
// shared memory as it is, by asynchronous copies that need no registers, so that a block has all
// of its line's loads in flight at once rather than a few per thread; a phase then normalises the
// equations in place. The diagonal waits in a fourth array, which overlays the coupling system's
// arrays (those are written only after the normalisation).
//
// The algorithm is written once over an executor:
//  - `phase(count, body)` calls body(t) for t in [0, count) with the threads of the block, then
//    waits for all of them;
//  - `copy_phase(count, body)` calls body(t, copy) likewise, where copy(to, from) copies one word
//    (asynchronously on the device), and waits until all copies have landed;
//  - `first_warp(body)` calls body(warp) in warp 0 and then waits for the block. The warp is
//    warp_line_solve's, plus each_lane(f) (f(lane) in every lane, then a warp barrier), and
//    gather() and scatter() for the lanes' own reads and writes.
// The CUDA kernels pass loops over threads with barriers (kernels.cuh, BlockPartition), the host
// test plain loops and 32 simulated lanes, so CI checks the index arithmetic without a GPU.
//
// A line too long for one block is cut into segments, each itself a chunk of the method one
// level up (partition_reduce): the segment's chunks are eliminated as above, the coupling system
// of their ends is eliminated in place in 32 lane chunks, and the 64 lane-chunk ends by lane 0,
// which leaves the segment's own two coupling equations (docs/performance.md, "Lines longer than
// one block: segments across blocks").

#include "warp_line_solve.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace adimg {

/// Where word i >= 0 of a line array of T lives (see above: one pad word per 128 bytes keeps the
/// chunk walks free of bank conflicts). Unsigned, the division is one shift; a signed one costs
/// four more instructions, at every step of every chunk walk.
template <class T>
ADIMG_HD constexpr int partition_slot(int i) {
    constexpr unsigned per_pad = 128 / sizeof(T);
    return i + static_cast<int>(static_cast<unsigned>(i) / per_pad);
}

/// Consecutive chunks of a sequence of n equations: `count` of them, the first `longer` one
/// equation longer than the rest.
struct Chunks {
    int count = 0;
    int length = 0;
    int longer = 0;
    ADIMG_HD int start(int t) const { return t * length + (t < longer ? t : longer); }
    ADIMG_HD int size(int t) const { return length + (t < longer ? 1 : 0); }
};
ADIMG_HD Chunks make_chunks(int n, int count) { return {count, n / count, n % count}; }

/// The equations the warp solves in registers after a second level: two per lane.
constexpr int partition_warp_equations = 2 * warp_lanes;

/// How a line of n equations is cut into chunks, and where its arrays lie.
struct PartitionLayout {
    int n = 0;
    Chunks line;      ///< C chunks of the line, one per thread
    Chunks coupling;  ///< the coupling system's 32 chunks, one per lane (count 0: no second level)
    int array_words = 0;     ///< words of each of the line's arrays a, c, v, padding included
    int coupling_words = 0;  ///< words of each of the coupling system's arrays (0: no second level)
    int warp_words = 0;      ///< words of each of the warp's arrays (0: no second level)
    bool raw = false;        ///< a RawLine is staged as it is, its diagonal at diagonal_base()
    ADIMG_HD int reduced() const { return 2 * line.count; }  ///< equations of the coupling system
    /// Row of the line that holds equation r of the coupling system.
    ADIMG_HD int reduced_row(int r) const {
        const int t = r >> 1;
        return (r & 1) == 0 ? line.start(t) : line.start(t) + line.size(t) - 1;
    }
    /// Array bases: the line's a, c, v, then the coupling system's, then the warp's.
    ADIMG_HD int line_base(int array) const { return array * array_words; }
    ADIMG_HD int coupling_base(int array) const { return 3 * array_words + array * coupling_words; }
    ADIMG_HD int warp_base(int array) const { return 3 * (array_words + coupling_words) + array * warp_words; }
    /// The staged diagonal of a raw line: where the coupling system's arrays begin.
    ADIMG_HD int diagonal_base() const { return 3 * array_words; }
    int words() const { return std::max(warp_base(3), raw ? diagonal_base() + array_words : 0); }
};

/// A tridiagonal system as four arrays: a_i x_{i-1} + b_i x_i + c_i x_{i+1} = v_i.
template <class T>
struct RawLine {
    const T* a;
    const T* b;
    const T* c;
    const T* v;
};

/// The most chunks per line (a limit of the kernels' block size, two threads per chunk, not of
/// the method).
constexpr int partition_max_chunks = 256;

/// Cuts n >= 2 equations of T into at most `chunks` chunks of at least two equations each, for a
/// warp that holds `slots` equations per lane; `raw`: room to stage a RawLine as it is.
template <class T>
PartitionLayout make_partition_layout(int n, int chunks, int slots, bool raw = false) {
    if (n < 2 || chunks < 1 || chunks > partition_max_chunks)
        throw std::invalid_argument("partitioned line solve: needs at least 2 equations and 1 to " +
                                    std::to_string(partition_max_chunks) + " chunks, got " + std::to_string(n) + " and " +
                                    std::to_string(chunks));
    PartitionLayout L;
    L.n = n;
    L.raw = raw;
    L.line = make_chunks(n, std::min(chunks, n / 2));
    L.array_words = partition_slot<T>(n - 1) + 1;
    if (L.reduced() > warp_lanes * slots) {
        L.coupling = make_chunks(L.reduced(), warp_lanes);
        L.coupling_words = partition_slot<T>(L.reduced() - 1) + 1;
        L.warp_words = partition_warp_equations;
    }
    return L;
}

/// Row j of a chunk in forward form (abar x_s + x_j + cbar x_{j+1} = vbar) from its equation e
/// and row j - 1 in forward form.
template <class T>
ADIMG_HD CrEquation<T> partition_forward(const CrEquation<T>& previous, const CrEquation<T>& e) {
    return cr_normalise<T, true>(-e.a * previous.a, T(1) - e.a * previous.c, e.c, e.v - e.a * previous.v);
}

/// An equation e (a x_s + x_j + c x_{j+1} = v, as a, c, v) with x_{j+1} replaced by
/// x_{j+1} = r.v - r.a x_s - r.c x_last: it then couples x_s, x_j and x_last. The backward pass
/// of the partition method (e a forward row, r the backward row below it), or the backward form
/// of row 1 carried down a chunk (e that form, r the next forward row).
template <class T>
ADIMG_HD CrEquation<T> partition_backward(const CrEquation<T>& e, const CrEquation<T>& r) {
    return {e.a - e.c * r.a, -e.c * r.c, e.v - e.c * r.v};
}

/// The chunk's first coupling equation (x_{s-1}, x_s, x_{s+m-1}) from its row 0 and its row 1 in
/// backward form (ahat x_s + x_{s+1} + chat x_{s+m-1} = vhat, as a, c, v).
template <class T>
ADIMG_HD CrEquation<T> partition_first(const CrEquation<T>& row0, const CrEquation<T>& backward1) {
    return cr_normalise<T, true>(row0.a, T(1) - row0.c * backward1.a, -row0.c * backward1.c,
                                 row0.v - row0.c * backward1.v);
}

/// Rewrites the chunk [s, s + m), m >= 2, of the unit-diagonal equations at (a, c, v)[slot(i)]
/// in place as described above: on return row s is the chunk's first coupling equation and
/// row s + m - 1 its second.
template <class T, class Slot>
ADIMG_HD void partition_eliminate(T* a, T* c, T* v, Slot slot, int s, int m) {
    auto get = [&](int i) {
        const int p = slot(i);
        return CrEquation<T>{a[p], c[p], v[p]};
    };
    auto put = [&](int i, const CrEquation<T>& e) {
        const int p = slot(i);
        a[p] = e.a;
        c[p] = e.c;
        v[p] = e.v;
    };
    // Each loop reads the next equation before it writes the current row: the two touch
    // different words, which the compiler cannot prove, so written the other way round every
    // step would wait for its shared-memory reads after the previous step's writes.
    CrEquation<T> row = get(s + 1);  // forward form already
    CrEquation<T> e = get(s + 2 < s + m ? s + 2 : s + 1);
    for (int j = 2; j < m; ++j) {
        const CrEquation<T> next = get(j + 1 < m ? s + j + 1 : s + j);
        row = partition_forward(row, e);
        put(s + j, row);
        e = next;
    }
    if (m < 3) return;  // row 0 couples x_{s-1} and x_{s+1}, the chunk's last, already
    row = get(s + m - 2);  // backward form already
    e = get(s + m - 3);
    for (int j = m - 3; j >= 1; --j) {
        const CrEquation<T> next = get(s + j - 1);
        row = partition_backward(e, row);
        put(s + j, row);
        e = next;
    }
    put(s, partition_first(e, row));
}

/// The interior of the chunk [s, s + m) once v[slot(s)] and v[slot(s + m - 1)] hold the
/// solution of its two coupling equations.
template <class T, class Slot>
ADIMG_HD void partition_substitute(const T* a, const T* c, T* v, Slot slot, int s, int m) {
    const T first = v[slot(s)], last = v[slot(s + m - 1)];
    // As in partition_eliminate, the next row is read before the current one is written.
    int p = slot(s + 1);
    T ap = a[p], cp = c[p], vp = v[p];
    for (int j = 1; j + 1 < m; ++j) {
        const int q = slot(j + 2 < m ? s + j + 1 : s + j);
        const T aq = a[q], cq = c[q], vq = v[q];
        v[p] = vp - ap * first - cp * last;
        p = q;
        ap = aq;
        cp = cq;
        vp = vq;
    }
}

/// Copies the two equations that chunk [s, s + m) keeps after partition_eliminate (its first and
/// its last) into the next level's arrays, at to(0) and to(1).
template <class T, class Slot, class To>
ADIMG_HD void partition_pass_ends(const T* a, const T* c, const T* v, Slot slot, int s, int m, T* next_a, T* next_c,
                                  T* next_v, To to) {
    for (int k = 0; k < 2; ++k) {
        const int from = slot(k == 0 ? s : s + m - 1);
        next_a[to(k)] = a[from];
        next_c[to(k)] = c[from];
        next_v[to(k)] = v[from];
    }
}

/// Fills the line's arrays a, c, v with its normalised equations: from `load(i)`, or from a
/// RawLine, staged as it is (the layout must be raw; see above).
template <class T, class Executor, class Load, class Slot>
ADIMG_HD void partition_load(const PartitionLayout& L, T* shared, Executor& exec, const Load& load, Slot slot) {
    T* const a = shared + L.line_base(0);
    T* const c = shared + L.line_base(1);
    T* const v = shared + L.line_base(2);
    auto put = [&](int i, const CrEquation<T>& e) {
        const int p = slot(i);
        a[p] = e.a;
        c[p] = e.c;
        v[p] = e.v;
    };
    if constexpr (std::is_same_v<Load, RawLine<T>>) {
        T* const diagonal = shared + L.diagonal_base();
        exec.copy_phase(L.n, [&](int i, auto&& copy) {
            const int p = slot(i);
            copy(a + p, load.a + i);
            copy(diagonal + p, load.b + i);
            copy(c + p, load.c + i);
            copy(v + p, load.v + i);
        });
        exec.phase(L.n, [&](int i) {
            const int p = slot(i);
            put(i, cr_normalise(a[p], diagonal[p], c[p], v[p]));
        });
    } else {
        exec.phase(L.n, [&](int i) { put(i, load(i)); });
    }
}

/// The two coupling equations of the line of L.n equations given by `load` (partition_load()) as
/// one chunk of a longer system, x_{-1} and x_n being its neighbours outside: those
/// partition_eliminate would leave in its first row (a x_{-1} + x_0 + c x_{n-1} = v) and its last
/// (a x_0 + x_{n-1} + c x_n = v), handed to ends(first, last) in lane 0 of the executor's warp.
/// All is eliminated in place in the line's arrays, which hold garbage afterwards.
template <class T, class Executor, class Load, class Ends>
ADIMG_HD void partition_reduce(const PartitionLayout& L, T* shared, Executor& exec, const Load& load, Ends&& ends) {
    T* const a = shared + L.line_base(0);
    T* const c = shared + L.line_base(1);
    T* const v = shared + L.line_base(2);
    auto slot = [](int i) { return partition_slot<T>(i); };
    partition_load(L, shared, exec, load, slot);
    exec.phase(L.line.count, [&](int t) { partition_eliminate(a, c, v, slot, L.line.start(t), L.line.size(t)); });
    // Equation r of the coupling system lives in row reduced_row(r) of the line; lane l takes
    // chunk l of that system, and equation q of the lanes' ends is the first (q even) or last
    // row of chunk q / 2.
    const Chunks lanes = make_chunks(L.reduced(), L.line.count < warp_lanes ? L.line.count : warp_lanes);
    auto coupling_slot = [&](int r) { return slot(L.reduced_row(r)); };
    auto lane_end_slot = [&](int q) {
        const int l = q >> 1;
        return coupling_slot((q & 1) == 0 ? lanes.start(l) : lanes.start(l) + lanes.size(l) - 1);
    };
    exec.first_warp([&](const auto& warp) {
        warp.each_lane([&](int l) {
            if (l < lanes.count) partition_eliminate(a, c, v, coupling_slot, lanes.start(l), lanes.size(l));
        });
        warp.each_lane([&](int l) {
            if (l != 0) return;
            const int last = 2 * lanes.count - 1;
            partition_eliminate(a, c, v, lane_end_slot, 0, last + 1);
            const int p = lane_end_slot(0), q = lane_end_slot(last);
            ends(CrEquation<T>{a[p], c[p], v[p]}, CrEquation<T>{a[q], c[q], v[q]});
        });
    });
}

/// Solves the line of L.n equations given by `load` (partition_load()) and hands x_i to
/// `store(i, x)`. `shared` holds L.words() words; the executor is described above. `Slots` is
/// the `slots` the layout was made for.
template <int Slots, class T, class Executor, class Load, class Store>
ADIMG_HD void partitioned_line_solve(const PartitionLayout& L, T* shared, Executor& exec, const Load& load, Store&& store) {
    T* const a = shared + L.line_base(0);
    T* const c = shared + L.line_base(1);
    T* const v = shared + L.line_base(2);
    T* const ra = shared + L.coupling_base(0);
    T* const rc = shared + L.coupling_base(1);
    T* const rv = shared + L.coupling_base(2);
    T* const wa = shared + L.warp_base(0);
    T* const wc = shared + L.warp_base(1);
    T* const wv = shared + L.warp_base(2);
    auto slot = [](int i) { return partition_slot<T>(i); };
    const bool two_levels = L.coupling.count > 0;
    partition_load(L, shared, exec, load, slot);
    // Each chunk of the line; with two levels, its two coupling equations copied to the
    // coupling system's arrays.
    exec.phase(L.line.count, [&](int t) {
        const int s = L.line.start(t), m = L.line.size(t);
        partition_eliminate(a, c, v, slot, s, m);
        if (two_levels) partition_pass_ends(a, c, v, slot, s, m, ra, rc, rv, [&](int k) { return slot(2 * t + k); });
    });
    exec.first_warp([&](const auto& warp) {
        // With two levels, lane l eliminates chunk l of the coupling system and passes its two
        // coupling equations on to the warp's arrays.
        if (two_levels)
            warp.each_lane([&](int l) {
                const int s = L.coupling.start(l), m = L.coupling.size(l);
                partition_eliminate(ra, rc, rv, slot, s, m);
                partition_pass_ends(ra, rc, rv, slot, s, m, wa, wc, wv, [&](int k) { return 2 * l + k; });
            });
        const int in_registers = two_levels ? partition_warp_equations : L.reduced();
        // Where equation r of those the registers take lives: the warp's arrays, or the line's.
        auto at = [&](int r) { return two_levels ? r : slot(L.reduced_row(r)); };
        const T* const sa = two_levels ? wa : a;
        const T* const sc = two_levels ? wc : c;
        T* const sv = two_levels ? wv : v;
        // Lane l, slot k: equation l + 32 k; past the end, x = 0.
        auto equation = [&](int k) {
            auto word = [&](const T* array) {
                return warp.gather([&, array](int lane) {
                    const int r = lane + warp_lanes * k;
                    return r < in_registers ? array[at(r)] : T(0);
                });
            };
            auto first = word(sa);
            return CrEquation<decltype(first)>{first, word(sc), word(sv)};
        };
        decltype(equation(0)) eq[Slots];
        for (int k = 0; k < Slots; ++k) eq[k] = equation(k);
        warp_line_solve(eq, warp);
        for (int k = 0; k < Slots; ++k)
            warp.scatter(eq[k].v, [&](int lane, T x) {
                const int r = lane + warp_lanes * k;
                if (r < in_registers) sv[at(r)] = x;
            });
        // With two levels: the lanes' chunk ends, then their interiors.
        if (two_levels)
            warp.each_lane([&](int l) {
                const int s = L.coupling.start(l), m = L.coupling.size(l);
                rv[slot(s)] = wv[2 * l];
                rv[slot(s + m - 1)] = wv[2 * l + 1];
                partition_substitute(ra, rc, rv, slot, s, m);
            });
    });
    exec.phase(L.line.count, [&](int t) {
        const int s = L.line.start(t), m = L.line.size(t);
        if (two_levels) {
            v[slot(s)] = rv[slot(2 * t)];
            v[slot(s + m - 1)] = rv[slot(2 * t + 1)];
        }
        partition_substitute(a, c, v, slot, s, m);
    });
    exec.phase(L.n, [&](int i) { store(i, v[slot(i)]); });
}

}  // namespace adimg
