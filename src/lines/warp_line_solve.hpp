#pragma once
// Short tridiagonal lines solved by one warp in registers: no shared memory and no block barrier.
//
// Why: on the coarse levels of a V-cycle (lines of 65 to 513 unknowns) a line sweep is bound by
// latency, not bandwidth, and the shared-memory cyclic reduction spends it in 2 log2 n dependent
// phases, each ended by a barrier (docs/performance.md, "Short lines in one warp").
//
// Lane l holds the equations l, l + 32, l + 64, ... of the line in its K slots, so that the warp
// loads every slot coalesced. Five steps of parallel cyclic reduction (PCR) with strides 1, 2, 4,
// 8 and 16 follow: every equation eliminates its two neighbours at distance s, which live in
// other lanes (one shuffle each). Afterwards equation i couples only to i - 32 and i + 32, the
// neighbouring slots of its own lane, so the line has split into 32 independent systems of K
// equations, one per lane, and each lane solves its own by the Thomas algorithm.
//
// Equations are normalised to a unit diagonal, as in cyclic_reduction.hpp, whose elimination
// formula (cr_reduce) a PCR step is. Slots past the end of the line hold x = 0 ({0, 0, 0}), and
// a missing neighbour is {0, 0, 0} too: by induction an equation's coupling toward a neighbour
// outside the line is zero, so neither ever contributes.
//
// The algorithm is written once over a `Warp`, which supplies the lane exchange: the CUDA kernel
// passes shuffles on scalars, the host test 32 lanes at a time in arrays (tests/lanes.hpp), so
// CI checks the index arithmetic without a GPU.

#include "cyclic_reduction.hpp"

namespace adimg {

constexpr int warp_lanes = 32;

/// Slots per lane for a line of n unknowns: the smallest supported K with 32 K >= n (each K is a
/// kernel of its own, so only a few are compiled; the padding slots cost little).
constexpr int warp_line_slots(int n) {
    for (int k : {1, 2, 3, 5, 9, 17})
        if (warp_lanes * k >= n) return k;
    return 0;
}
/// The longest line one warp solves.
constexpr int warp_line_max = warp_lanes * 17;

/// The Thomas algorithm's forward step on unit-diagonal equations: `mid` with its lower
/// neighbour `lo` (already freed of its own lower coupling) eliminated, scaled back to a unit
/// diagonal; the upper coupling stays.
template <class T>
ADIMG_HD CrEquation<T> cr_eliminate_lower(const CrEquation<T>& lo, const CrEquation<T>& mid) {
    return cr_normalise<T, true>(T(0), T(1) - mid.a * lo.c, mid.c, mid.v - mid.a * lo.v);
}

/// Solves the line held in `eq` (lane l, slot m: equation l + 32 m, normalised); on return
/// eq[m].v holds the solution of that equation. `warp.lane()` is the lane index (or indices),
/// `warp.rotate(value, s)` gives every lane the value of lane (lane - s) mod 32, and
/// `warp.select(mask, a, b)` picks a where the mask holds.
template <int K, class T, class Warp>
ADIMG_HD void warp_line_solve(CrEquation<T> (&eq)[K], const Warp& warp) {
    const CrEquation<T> none{T(0), T(0), T(0)};
    auto rotate = [&](const CrEquation<T>& e, int s) {
        return CrEquation<T>{warp.rotate(e.a, s), warp.rotate(e.c, s), warp.rotate(e.v, s)};
    };
    auto select = [&](const auto& mask, const CrEquation<T>& x, const CrEquation<T>& y) {
        return CrEquation<T>{warp.select(mask, x.a, y.a), warp.select(mask, x.c, y.c), warp.select(mask, x.v, y.v)};
    };
    const auto lane = warp.lane();
#pragma unroll
    for (int s = 1; s < warp_lanes; s *= 2) {
        // Equation i = l + 32 m has its lower neighbour i - s in lane l - s, slot m, or (for
        // l < s) in lane l - s + 32, slot m - 1; its upper one likewise. Slot m is updated in
        // place once the old values of slots m and m + 1 have been passed on.
        const auto lower_in_slot = lane >= s, upper_in_slot = lane < warp_lanes - s;
        CrEquation<T> lo_prev = none, hi_cur = rotate(eq[0], -s);
#pragma unroll
        for (int m = 0; m < K; ++m) {
            const CrEquation<T> lo_cur = rotate(eq[m], s);
            const CrEquation<T> hi_next = m + 1 < K ? rotate(eq[m + 1], -s) : none;
            const CrEquation<T> lo = select(lower_in_slot, lo_cur, lo_prev);
            const CrEquation<T> hi = select(upper_in_slot, hi_cur, hi_next);
            eq[m] = cr_reduce(lo, eq[m], &hi);
            lo_prev = lo_cur;
            hi_cur = hi_next;
        }
    }
    // Each lane's own system, slot m coupled to slots m - 1 and m + 1: Thomas.
#pragma unroll
    for (int m = 1; m < K; ++m) eq[m] = cr_eliminate_lower(eq[m - 1], eq[m]);
#pragma unroll
    for (int m = K - 2; m >= 0; --m) eq[m].v = cr_substitute(eq[m], T(0), eq[m + 1].v);
}

}  // namespace adimg
