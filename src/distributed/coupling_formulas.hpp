#pragma once
// The coupling equations of one y-line across the ranks solved (distributed_lines.hpp says how):
// PPT's tridiagonal system of every rank's two end equations, PDD's 2 x 2 systems with the
// neighbouring ranks. One formula for the CPU ranks' loop over the lines (distributed_lines.hpp)
// and the GPU ranks' thread a line (coupling_kernels.cuh).

#include "../common/host_device.hpp"
#include "../lines/cyclic_reduction.hpp"
#include "../lines/warp_line_solve.hpp"
#include "strip_formulas.hpp"

#include <cmath>
#include <cstddef>
#include <limits>

namespace adimg {

/// The diagonal dominance |b| / (|a| + |c|) of the y-line row at p of A, its values rounded to T
/// (the precision the lines are solved in); infinite for a row without in-line couplings (the
/// edge rows). Its minimum decides whether PDD is exact (pdd_bound in distributed_lines.hpp).
template <class T, class S>
ADIMG_HD double y_line_row_dominance(const BandsView<S>& A, std::size_t p) {
    const LineRow<S> row = line_row(A, p, Direction::y);
    const double off = fabs(double(T(row.lower))) + fabs(double(T(row.upper)));
    return off > 0.0 ? fabs(double(T(row.diag))) / off : std::numeric_limits<double>::infinity();
}

/// Thomas on n unit-diagonal equations in place: on return eq[k].v holds x_k.
template <class T>
ADIMG_HD void solve_unit_tridiagonal(CrEquation<T>* eq, int n) {
    for (int k = 1; k < n; ++k) eq[k] = cr_eliminate_lower(eq[k - 1], eq[k]);
    for (int k = n - 2; k >= 0; --k) eq[k].v = cr_substitute(eq[k], T(0), eq[k + 1].v);
}

/// End equation `which` (0: the part's first row, 1: its last) of a line's y_line_end_words.
template <class T>
ADIMG_HD CrEquation<T> end_equation(const T* ends, int which) {
    return {ends[3 * which], ends[3 * which + 1], ends[3 * which + 2]};
}

/// PPT for line i: every rank's end equations of the line (`all`: rank t's at
/// (t mx + i) y_line_end_words) form the tridiagonal system first(0), last(0), first(1), ...,
/// solved in `reduced` (2 ranks equations of scratch); `rank`'s two unknowns into solved[0, 1],
/// and, where `beside` is given, the neighbours' next to them (the last of the rank below, the
/// first of the rank above; where there is one) into beside[0, 1].
template <class T>
ADIMG_HD void ppt_line_ends(const T* all, int mx, int ranks, int rank, int i, CrEquation<T>* reduced, T* solved,
                            T* beside = nullptr) {
    for (int t = 0; t < ranks; ++t) {
        const T* ends = all + (static_cast<std::size_t>(t) * mx + i) * y_line_end_words;
        reduced[2 * t] = end_equation(ends, 0);
        reduced[2 * t + 1] = end_equation(ends, 1);
    }
    solve_unit_tridiagonal(reduced, 2 * ranks);
    solved[0] = reduced[2 * rank].v;
    solved[1] = reduced[2 * rank + 1].v;
    if (beside && rank > 0) beside[0] = reduced[2 * rank - 1].v;
    if (beside && rank + 1 < ranks) beside[1] = reduced[2 * rank + 2].v;
}

/// PDD for one line: this rank's end equations (`mine`) with the neighbours' (`below`, `above`:
/// their end equations of the line, nullptr at the grid's edge), the coupling of a part's first
/// row to its own last dropped: the 2 x 2 systems of last(r - 1), first(r) and of last(r),
/// first(r + 1). At the grid's edges a part's end has no neighbour: its equation alone (the
/// dropped coupling is zero there, the edge rows being identity rows). Where `beside` is given,
/// the neighbours' unknowns of the same systems into beside[0, 1], as the neighbours solve them.
template <class T>
ADIMG_HD void pdd_line_ends(const T* mine, const T* below, const T* above, T* solved, T* beside = nullptr) {
    auto pair_solve = [](const CrEquation<T>& lower_last, const CrEquation<T>& upper_first, CrEquation<T>* pair) {
        pair[0] = {T(0), lower_last.c, lower_last.v};
        pair[1] = {upper_first.a, T(0), upper_first.v};
        solve_unit_tridiagonal(pair, 2);
    };
    const CrEquation<T> first = end_equation(mine, 0), last = end_equation(mine, 1);
    CrEquation<T> pair[2];
    if (below) {
        pair_solve(end_equation(below, 1), first, pair);
        solved[0] = pair[1].v;
        if (beside) beside[0] = pair[0].v;
    } else {
        solved[0] = first.v;
    }
    if (above) {
        pair_solve(last, end_equation(above, 0), pair);
        solved[1] = pair[0].v;
        if (beside) beside[1] = pair[1].v;
    } else {
        solved[1] = last.v;
    }
}

}  // namespace adimg
