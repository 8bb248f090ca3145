#pragma once
// The point-wise and per-line formulas of the distributed backend on a rank's strip (storage row
// r + 1 is grid row first + r, rows 0 and rows + 1 the halos), compiled for host and device so
// that the CPU ranks' loops and the GPU ranks' kernels run the same arithmetic: a grid transfer
// with the strip's row offset, and the y-lines' chunk of the partition method.

#include "../common/host_device.hpp"
#include "../lines/cyclic_reduction.hpp"
#include "../lines/partition_method.hpp"
#include "../solver/bands_view.hpp"
#include "../solver/stencil.hpp"

#include <cstddef>

namespace adimg {

/// (R fine) at coarse node (I, J), fine a strip whose storage row 1 is grid row fine_first
/// (restrict_from with the strip's rows; the fine row below the strip is its halo).
template <class T>
ADIMG_HD T strip_restrict_value(const T* fine, int mx_fine, int fine_first, int mxc, int myc, const T* tx, const T* ty,
                                int I, int J) {
    auto at = [fine, mx_fine, fine_first](int i, int j) {
        return fine[static_cast<std::size_t>(j - fine_first + 1) * mx_fine + i];
    };
    return restrict_from<T>(at, mxc, myc, tx, ty, I, J);
}

/// (P coarse) at the interior fine node (i, j), coarse a strip whose storage row 1 is grid row
/// coarse_first, the row of fine row 2 coarse_first (the coarse row above the strip is its halo).
template <class T>
ADIMG_HD T strip_prolong_value(const T* coarse, int mxc, int coarse_first, const T* tx, const T* ty, int i, int j) {
    return prolong_value(coarse + mxc, mxc, tx, ty + coarse_first, i, j - 2 * coarse_first);
}

/// Row r of a rank's part of y-line i, normalised to a unit diagonal: the in-line couplings of
/// storage row r + 1, with b minus the off-line couplings of x_in on the right.
template <class T>
ADIMG_HD CrEquation<T> y_line_equation(const BandsView<T>& A, const T* b, const T* x_in, int i, int r) {
    const std::size_t p = static_cast<std::size_t>(r + 1) * A.mx + i;
    const LineRow<T> row = line_row(A, p, Direction::y);
    return cr_normalise(row.lower, row.diag, row.upper, b[p] - off_line_product(A, x_in, i, r + 1, Direction::y));
}

/// Words per line of the coupling equations a rank's part of a y-line leaves: its first and its
/// last equation, (a, c, v) each.
constexpr int y_line_end_words = 6;

/// The rank's part of y-line i (m rows in a, c, v at r * mx + i) as one chunk of the partition
/// method: eliminated, and its two coupling equations copied to ends[6 i .. 6 i + 5].
template <class T>
ADIMG_HD void y_line_reduce(T* a, T* c, T* v, int mx, int m, int i, T* ends) {
    auto slot = [mx, i](int r) { return r * mx + i; };
    partition_eliminate(a, c, v, slot, 0, m);
    for (int k = 0; k < 2; ++k) {
        const int q = slot(k == 0 ? 0 : m - 1);
        T* const to = ends + static_cast<std::size_t>(y_line_end_words) * i + 3 * k;
        to[0] = a[q];
        to[1] = c[q];
        to[2] = v[q];
    }
}

/// The rank's part of y-line i once its first and last unknowns are solved: the interior filled
/// in (partition_substitute) and x_out = x_in + omega (solution - x_in) on its rows.
template <class T>
ADIMG_HD void y_line_finish(const T* a, const T* c, T* v, int mx, int m, int i, T first, T last, const T* x_in, T* x_out,
                            T omega) {
    auto slot = [mx, i](int r) { return r * mx + i; };
    v[slot(0)] = first;
    v[slot(m - 1)] = last;
    partition_substitute(a, c, v, slot, 0, m);
    for (int r = 0; r < m; ++r) {
        const std::size_t p = static_cast<std::size_t>(r + 1) * mx + i;
        x_out[p] = relax(x_in[p], v[slot(r)], omega);
    }
}

}  // namespace adimg
