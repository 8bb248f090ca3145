#pragma once
/// \file
/// The point-wise formulas of the solver, shared by the CPU and CUDA backends: the nine-band row
/// product, the off-line part used by the ADI line sweeps, the Jacobi update and the Q1
/// prolongation and restriction weights, and which nodes the transfers reach at natural and
/// Dirichlet edges. Each is written once, here.

#include "../common/host_device.hpp"
#include "bands_view.hpp"

namespace adimg {

/// Which grid lines an ADI half-step solves implicitly.
enum class Direction { x, y };

/// The order of the four colours of a Gauss–Seidel sweep: forward (0,0), (1,0), (0,1), (1,1) as
/// (i%2, j%2), or backward, the adjoint sweep that the post-smoother of a symmetric cycle takes.
enum class SweepOrder { forward, backward };

/// The colour (ci, cj), as ci + 2 cj, that a sweep in `order` updates at its step 0..3.
ADIMG_HD constexpr int colour_at(int step, SweepOrder order) { return order == SweepOrder::forward ? step : 3 - step; }

/// (A x)_p for a node whose eight neighbours are all in the grid, where band(k) gives the row's
/// entry in band k and x_at(dx, dy) gives x at the neighbour (i + dx, j + dy): from a grid in
/// memory (row_product below), or from just-computed values in shared memory and a row's bands
/// held in registers (the fused Jacobi steps of the CUDA backend). No bounds checks, so that loops
/// over a row's interior vectorise.
template <class Acc, class Band, class At>
ADIMG_HD Acc nine_point_interior(Band&& band, At&& x_at) {
    Acc sum = 0;
    for (int k = 0; k < 9; ++k) sum += Acc(band(k)) * Acc(x_at(band_dx(k), band_dy(k)));
    return sum;
}

/// (A x)_p for node (i, j) of an mx x my grid: interior nodes as above, nodes on the grid edge
/// skipping neighbours outside the grid (their band entries are zero by contract); the terms are
/// the same, in the same order.
template <class Acc, class Band, class At>
ADIMG_HD Acc nine_point_product(int mx, int my, int i, int j, Band&& band, At&& x_at) {
    if (i > 0 && i < mx - 1 && j > 0 && j < my - 1) return nine_point_interior<Acc>(band, x_at);
    Acc sum = 0;
    for (int k = 0; k < 9; ++k) {
        const int ii = i + band_dx(k), jj = j + band_dy(k);
        if (ii >= 0 && ii < mx && jj >= 0 && jj < my) sum += Acc(band(k)) * Acc(x_at(band_dx(k), band_dy(k)));
    }
    return sum;
}

/// (A x)_p for node (i, j) of x in memory. `x` is a pointer, or anything indexed like one
/// (Corrected below).
template <class Acc, class T, class V>
ADIMG_HD Acc row_product(const BandsView<T>& A, const V& x, int i, int j) {
    const long long p = static_cast<long long>(j) * A.mx + i, mx = A.mx;
    return nine_point_product<Acc>(A.mx, A.my, i, j, [&](int k) { return A(k, p); },
                                   [&](int dx, int dy) { return x[p + dy * mx + dx]; });
}
/// The same for node p whose neighbours are all in the grid.
template <class Acc, class T, class V>
ADIMG_HD Acc row_product_interior(const BandsView<T>& A, const V& x, long long p) {
    const long long mx = A.mx;
    return nine_point_interior<Acc>([&](int k) { return A(k, p); }, [&](int dx, int dy) { return x[p + dy * mx + dx]; });
}

/// The iterate after a correction, x + alpha c, read entry by entry: the refinement loop's update
/// and its next defect then take one pass over memory (update_defect_norm in the backends), and
/// each entry is rounded exactly as the stored update is.
template <class X, class C>
struct Corrected {
    const X* x;
    const C* c;
    double alpha;
    ADIMG_HD X operator[](std::size_t q) const { return X(x[q] + alpha * c[q]); }
};

/// Whether band k couples a node to nodes off its own line: dy != 0 for x-lines, dx != 0 for
/// y-lines.
ADIMG_HD constexpr bool off_line_band(int k, Direction line) {
    return (line == Direction::x ? band_dy(k) : band_dx(k)) != 0;
}

/// The part of (A x)_p that couples node p to nodes off its own line, for a node whose eight
/// neighbours are all in the grid: no bounds checks, so that loops over a row's interior vectorise.
template <class T>
ADIMG_HD T off_line_interior(const BandsView<T>& A, const T* x, long long p, Direction line) {
    const long long mx = A.mx;
    T sum = 0;
    for (int k = 0; k < 9; ++k)
        if (off_line_band(k, line)) sum += A(k, p) * x[p + band_dy(k) * mx + band_dx(k)];
    return sum;
}

/// The part of (A x)_p that couples (i, j) to nodes off its own line: the six bands with dy != 0
/// for x-lines, with dx != 0 for y-lines. The ADI right-hand side is b - this. Nodes on the grid
/// edge skip neighbours outside the grid; the terms are the same, in the same order.
template <class T>
ADIMG_HD T off_line_product(const BandsView<T>& A, const T* x, int i, int j, Direction line) {
    const int mx = A.mx;
    const long long p = static_cast<long long>(j) * mx + i;
    if (i > 0 && i < mx - 1 && j > 0 && j < A.my - 1) return off_line_interior(A, x, p, line);
    T sum = 0;
    for (int k = 0; k < 9; ++k) {
        const int dx = band_dx(k), dy = band_dy(k), ii = i + dx, jj = j + dy;
        if (off_line_band(k, line) && ii >= 0 && ii < mx && jj >= 0 && jj < A.my) sum += A(k, p) * x[p + dy * mx + dx];
    }
    return sum;
}

/// The tridiagonal coefficients (lower, diagonal, upper) of node (i, j) within its line.
template <class T>
struct LineRow {
    T lower, diag, upper;
};
/// The bands that hold them: W C E for x-lines, S C N for y-lines.
ADIMG_HD constexpr Band lower_band(Direction line) { return line == Direction::x ? W : S; }
ADIMG_HD constexpr Band upper_band(Direction line) { return line == Direction::x ? E : N; }
template <class T>
ADIMG_HD LineRow<T> line_row(const BandsView<T>& A, std::size_t p, Direction line) {
    return {A(lower_band(line), p), A(C, p), A(upper_band(line), p)};
}

/// One damped Jacobi update of node p: x + omega (b - (A x)_p) / a_pp.
template <class T>
ADIMG_HD T jacobi_update(T x, T b, T Ax, T diag, T omega) { return x + omega * (b - Ax) / diag; }

/// A damped update toward `target`: x + omega (target - x). The ADI line sweeps use it with
/// omega < 1: undamped line Jacobi has amplification -1 for modes that oscillate across the lines
/// of a strongly anisotropic operator, and does not smooth them (U3 needs 76 cycles at omega = 1,
/// 5 at omega = 0.7).
template <class T>
ADIMG_HD T relax(T x, T target, T omega) { return x + omega * (target - x); }

/// Q1 prolongation in 1D: the weight of coarse node I+1 for the fine node 2I+1 is t_I (the
/// relative split position of coarse element I), the weight of coarse node I is 1 - t_I;
/// fine node 2I copies coarse node I.
template <class T>
ADIMG_HD T prolong_1d(const T* coarse, const T* t, int i_fine, std::size_t stride) {
    const int I = i_fine / 2;
    if ((i_fine & 1) == 0) return coarse[I * stride];
    return (T(1) - t[I]) * coarse[I * stride] + t[I] * coarse[(I + 1) * stride];
}

/// The value prolongation adds at fine node (i, j): the tensor product of two 1D
/// interpolations. `coarse` has mxc = mx/2 + 1 columns.
template <class T>
ADIMG_HD T prolong_value(const T* coarse, int mxc, const T* tx, const T* ty, int i, int j) {
    const int J = j / 2;
    const T row0 = prolong_1d(coarse + static_cast<std::size_t>(J) * mxc, tx, i, 1);
    if ((j & 1) == 0) return row0;
    const T row1 = prolong_1d(coarse + static_cast<std::size_t>(J + 1) * mxc, tx, i, 1);
    return (T(1) - ty[J]) * row0 + ty[J] * row1;
}

/// The nodes i0..i1 (inclusive) of fine row j that receive the prolongated correction: every
/// node but those on a Dirichlet edge (NaturalEdges, nine_bands.hpp), whose correction stays
/// zero. Row j receives nothing if i0 > i1.
ADIMG_HD void prolonged_range(int j, int mx, int my, NaturalEdges natural, int& i0, int& i1) {
    const bool dirichlet_row = (j == 0 && !natural.south) || (j == my - 1 && !natural.north);
    i0 = natural.west ? 0 : 1;
    i1 = dirichlet_row ? -1 : (natural.east ? mx - 1 : mx - 2);
}

/// The restriction (transpose of the prolongation) of fine values to coarse node (I, J):
/// sum over fine nodes 2I-1..2I+1 x 2J-1..2J+1 of the prolongation weights they received from
/// (I, J). Coarse nodes on a Dirichlet edge get 0: the correction must keep the fine Dirichlet
/// nodes at zero. A coarse node on a natural edge gathers what the grid has of its fine
/// neighbours (the weights of those outside are absent).
/// `fine(i, j)` gives the fine value at node (i, j), wherever it is kept (a grid in memory, or
/// a tile of just-computed defects in shared memory, as the fused kernel keeps them); it is
/// called only for nodes on the grid.
template <class T, class Fine>
ADIMG_HD T restrict_from(Fine&& fine, int mxc, int myc, const T* tx, const T* ty, int I, int J,
                         NaturalEdges natural = {}) {
    if (natural.dirichlet_node(I, J, mxc, myc)) return T(0);
    const bool inner = I > 0 && J > 0 && I < mxc - 1 && J < myc - 1;
    auto at = [&](int i, int j) {
        return inner || (i >= 0 && j >= 0 && i <= 2 * (mxc - 1) && j <= 2 * (myc - 1)) ? T(fine(i, j)) : T(0);
    };
    const T wx[3] = {I > 0 ? tx[I - 1] : T(0), T(1), I < mxc - 1 ? T(1) - tx[I] : T(0)};
    const T wy[3] = {J > 0 ? ty[J - 1] : T(0), T(1), J < myc - 1 ? T(1) - ty[J] : T(0)};
    T sum = 0;
    for (int b = 0; b < 3; ++b) {
        const int j = 2 * J - 1 + b, i = 2 * I - 1;
        sum += wy[b] * (wx[0] * at(i, j) + wx[1] * at(i + 1, j) + wx[2] * at(i + 2, j));
    }
    return sum;
}
template <class T>
ADIMG_HD T restrict_value(const T* fine, int mxf, int myf, const T* tx, const T* ty, int I, int J,
                          NaturalEdges natural = {}) {
    auto at = [&](int i, int j) { return fine[static_cast<std::size_t>(j) * mxf + i]; };
    return restrict_from<T>(at, mxf / 2 + 1, myf / 2 + 1, tx, ty, I, J, natural);
}

/// True for nodes on the edge of the grid (the Dirichlet rows of the built-in problems; a user's
/// matrix may have natural edges, NaturalEdges::dirichlet_node).
ADIMG_HD bool on_boundary(int i, int j, int mx, int my) { return i == 0 || j == 0 || i == mx - 1 || j == my - 1; }

}  // namespace adimg
