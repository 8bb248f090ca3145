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

// The rank's part of y-line i (m rows, row r the equation of y_line_equation) is solved as the
// partition method's two levels: it is cut into K chunks (k m / K .. (k + 1) m / K - 1, two rows
// or more each), each chunk eliminated on its own and its two coupling equations passed to rows
// 2 k and 2 k + 1 of the reduced arrays (ra, rc, rv, at q * mx + i); those 2 K equations, a
// tridiagonal system, are eliminated as one chunk, whose first and last equations are the part's
// coupling equations across the ranks. Once the ranks have solved those, the reduced system is
// filled in, then each chunk. K = 1 is the plain partition method on the part (CPU ranks, whose
// parallelism is across lines); GPU ranks take enough chunks for a thread each.
//
// The chunk formulas take any source of equations and any store of the solution
// (line_chunk_reduce, line_chunk_finish); the y-lines' are y_chunk_reduce and y_chunk_finish. A
// chunk is walked by one thread, so it is eliminated in one forward pass that makes its equations
// as it goes: rows 1 .. n - 2 keep their forward form (partition_forward) in (a, c, v)
// at r * mx + i, and the backward form of row 1, which the first coupling equation needs, is
// carried in registers by substituting each forward row into it. The chunk is then filled in by
// back substitution through the forward rows. Each node's equation is made once, and its forward
// row written once and read once: no pass over stored equations.

/// The first row of chunk k of K of a part of m rows.
ADIMG_HD int y_chunk_start(int m, int chunks, int k) { return static_cast<int>(static_cast<long long>(k) * m / chunks); }

/// Chunk k of line i of a part of m rows eliminated, its row r's unit-diagonal equation made by
/// load(r) (CrEquation<T>): its forward rows into (a, c, v), its coupling equations into rows
/// 2 k, 2 k + 1 of (ra, rc, rv); lines lie side by side, row r of line i at r * mx + i. The
/// y-lines of ADI load their equations from the strip (y_chunk_reduce), the fast direct
/// solver's mode lines from their coefficients (strip_mode_lines.hpp).
template <class T, class Load>
ADIMG_HD void line_chunk_reduce(Load&& load, T* a, T* c, T* v, T* ra, T* rc, T* rv, int mx, int m, int chunks, int i,
                                int k) {
    auto slot = [mx, i](int r) { return static_cast<std::size_t>(r) * mx + i; };
    const int s = y_chunk_start(m, chunks, k), n = y_chunk_start(m, chunks, k + 1) - s;
    const CrEquation<T> row0 = load(s);
    CrEquation<T> row = load(s + 1);  // forward form already
    // Row 1 as P - Q x_s - R x_j (held as a = Q, c = R, v = P), x_j the last row substituted;
    // x_1 itself to begin with.
    CrEquation<T> backward1{T(0), T(-1), T(0)};
    for (int j = 1; j + 1 < n; ++j) {
        // The next equation is made before this row's arithmetic, so that its loads overlap it.
        const CrEquation<T> next = load(s + j + 1);
        const std::size_t q = slot(s + j);
        a[q] = row.a;
        c[q] = row.c;
        v[q] = row.v;
        backward1 = partition_backward(backward1, row);  // x_j = vbar - abar x_s - cbar x_{j+1} into it
        row = partition_forward(row, next);
    }
    auto pass = [&](int e, const CrEquation<T>& coupling) {
        const std::size_t q = slot(2 * k + e);
        ra[q] = coupling.a;
        rc[q] = coupling.c;
        rv[q] = coupling.v;
    };
    pass(0, partition_first(row0, backward1));
    pass(1, row);
}

/// Chunk k of y-line i eliminated from its equations (A, b and x_in, whose halos must be current).
template <class T>
ADIMG_HD void y_chunk_reduce(const BandsView<T>& A, const T* b, const T* x_in, T* a, T* c, T* v, T* ra, T* rc, T* rv,
                             int m, int chunks, int i, int k) {
    line_chunk_reduce([&](int r) { return y_line_equation(A, b, x_in, i, r); }, a, c, v, ra, rc, rv, A.mx, m, chunks,
                      i, k);
}

/// The 2 K reduced equations of line i eliminated as one chunk, its two coupling equations (the
/// part's) copied to ends[6 i .. 6 i + 5].
template <class T>
ADIMG_HD void y_line_reduce(T* ra, T* rc, T* rv, int mx, int chunks, int i, T* ends) {
    auto slot = [mx, i](int r) { return r * mx + i; };
    partition_eliminate(ra, rc, rv, slot, 0, 2 * chunks);
    partition_pass_ends(ra, rc, rv, slot, 0, 2 * chunks, ends + y_line_end_words * static_cast<std::size_t>(i),
                        ends + y_line_end_words * static_cast<std::size_t>(i) + 1,
                        ends + y_line_end_words * static_cast<std::size_t>(i) + 2, [](int e) { return 3 * e; });
}

/// The reduced equations of line i filled in from the part's solved first and last unknowns.
template <class T>
ADIMG_HD void y_line_fill(const T* ra, const T* rc, T* rv, int mx, int chunks, int i, T first, T last) {
    auto slot = [mx, i](int r) { return r * mx + i; };
    rv[slot(0)] = first;
    rv[slot(2 * chunks - 1)] = last;
    partition_substitute(ra, rc, rv, slot, 0, 2 * chunks);
}

/// Chunk k of line i filled in from its ends (rows 2 k, 2 k + 1 of rv, filled in) by back
/// substitution through its forward rows, each row's solution handed to store(r, solution).
template <class T, class Store>
ADIMG_HD void line_chunk_finish(const T* a, const T* c, const T* v, const T* rv, int mx, int m, int chunks, int i,
                                int k, Store&& store) {
    auto slot = [mx, i](int r) { return static_cast<std::size_t>(r) * mx + i; };
    const int s = y_chunk_start(m, chunks, k), n = y_chunk_start(m, chunks, k + 1) - s;
    const T first = rv[slot(2 * k)];
    T next = rv[slot(2 * k + 1)];
    store(s, first);
    store(s + n - 1, next);
    for (int j = n - 2; j >= 1; --j) {
        const std::size_t q = slot(s + j);
        next = cr_substitute(CrEquation<T>{a[q], c[q], v[q]}, first, next);
        store(s + j, next);
    }
}

/// Chunk k of y-line i filled in, and x_out = x_in + omega (solution - x_in) on its rows
/// (storage row r + 1 of the strip).
template <class T>
ADIMG_HD void y_chunk_finish(const T* a, const T* c, const T* v, const T* rv, int mx, int m, int chunks, int i, int k,
                             const T* x_in, T* x_out, T omega) {
    line_chunk_finish(a, c, v, rv, mx, m, chunks, i, k, [&](int r, T solution) {
        const std::size_t p = static_cast<std::size_t>(r + 1) * mx + i;
        x_out[p] = relax(x_in[p], solution, omega);
    });
}

/// The halo rows of y-line i in x_out (storage rows 0 and m + 1), from the neighbours' solved end
/// rows (`beside`: the row below at 2 i, the row above at 2 i + 1) relaxed as their owners relax
/// them, bit for bit: x_in's halos hold the owners' x_in, and the ends are solved by the same
/// formula on every rank. `below`, `above`: whether there is a neighbour on that side.
template <class T>
ADIMG_HD void y_halo_finish(const T* beside, int mx, int m, int i, bool below, bool above, const T* x_in, T* x_out,
                            T omega) {
    if (below) x_out[i] = relax(x_in[i], beside[2 * static_cast<std::size_t>(i)], omega);
    if (above) {
        const std::size_t p = static_cast<std::size_t>(m + 1) * mx + i;
        x_out[p] = relax(x_in[p], beside[2 * static_cast<std::size_t>(i) + 1], omega);
    }
}

}  // namespace adimg
