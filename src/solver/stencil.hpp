#pragma once
/// \file
/// The point-wise formulas of the solver, shared by the CPU and CUDA backends: the nine-band row
/// product, the off-line part used by the ADI line sweeps, the Jacobi update and the Q1
/// prolongation and restriction weights, and which nodes the transfers reach at natural and
/// Dirichlet edges. Each is written once, here.

#include "../common/host_device.hpp"
#include "bands_view.hpp"
#include "coarsening.hpp"

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

/// Q1 prolongation in 1D: the value fine node i takes from `coarse` (entries `stride` apart),
/// by interpolation() (coarsening.hpp); an eliminated coarse node gives zero.
template <class T>
ADIMG_HD T prolong_1d(const T* coarse, const T* t, int i, std::size_t stride, const Axis& a) {
    const Interpolation<T> w = interpolation(a, t, i);
    if (w.count == 1) return coarse[w.node[0] * stride];
    auto at = [&](int K) { return a.eliminated(K) ? T(0) : coarse[K * stride]; };
    return w.weight[0] * at(w.node[0]) + w.weight[1] * at(w.node[1]);
}

/// The value prolongation adds at fine node (i, j): the tensor product of two 1D
/// interpolations, x along coarse rows, then y between them.
template <class T>
ADIMG_HD T prolong_value(const T* coarse, const Axis& ax, const Axis& ay, const T* tx, const T* ty, int i, int j) {
    const Interpolation<T> w = interpolation(ay, ty, j);
    auto row = [&](int J) {
        return ay.eliminated(J) ? T(0) : prolong_1d(coarse + static_cast<std::size_t>(J) * ax.coarse, tx, i, 1, ax);
    };
    const T row0 = row(w.node[0]);
    if (w.count == 1) return row0;
    return w.weight[0] * row0 + w.weight[1] * row(w.node[1]);
}
/// The same on a grid that halves exactly in both directions, without eliminated ends
/// (c 2^k + 1 nodes), whose coarse grid has mxc columns: the distributed strips address part of
/// such a grid.
template <class T>
ADIMG_HD T prolong_value(const T* coarse, int mxc, const T* tx, const T* ty, int i, int j) {
    return prolong_value(coarse, halving_axis(mxc), halving_axis(), tx, ty, i, j);
}

/// The nodes i0..i1 (inclusive) of fine row j that receive the prolongated correction: every
/// node but those on a Dirichlet edge (NaturalEdges, nine_bands.hpp), whose correction stays
/// zero. Row j receives nothing if i0 > i1.
ADIMG_HD void prolonged_range(int j, int mx, int my, NaturalEdges natural, int& i0, int& i1) {
    const bool dirichlet_row = (j == 0 && !natural.south) || (j == my - 1 && !natural.north);
    i0 = natural.west ? 0 : 1;
    i1 = dirichlet_row ? -1 : (natural.east ? mx - 1 : mx - 2);
}

/// The restriction (transpose of the prolongation) of fine values to coarse node (I, J): the
/// sum over the fine nodes first_child..first_child + 2 in each direction (Axis) of the
/// prolongation weights they received from (I, J). Coarse nodes on a Dirichlet edge get 0: the
/// correction must keep the fine Dirichlet nodes at zero. A coarse node on a natural edge
/// gathers what the grid has of its fine neighbours (the weights of those outside are absent).
/// `fine(i, j)` gives the fine value at node (i, j), wherever it is kept (a grid in memory, or
/// a tile of just-computed defects in shared memory, as the fused kernel keeps them); it is
/// called only for nodes on the grid.
template <class T, class Fine>
ADIMG_HD T restrict_from(Fine&& fine, const Axis& ax, const Axis& ay, const T* tx, const T* ty, int I, int J,
                         NaturalEdges natural = {}) {
    if (natural.dirichlet_node(I, J, ax.coarse, ay.coarse)) return T(0);
    const bool inner = I > 0 && J > 0 && I < ax.coarse - 1 && J < ay.coarse - 1;
    auto at = [&](int i, int j) {
        return inner || (i >= 0 && j >= 0 && i < ax.fine && j < ay.fine) ? T(fine(i, j)) : T(0);
    };
    const int i0 = ax.first_child(I), j0 = ay.first_child(J);
    T wx[3], wy[3];
    for (int b = 0; b < 3; ++b) {
        wx[b] = i0 + b >= 0 && i0 + b < ax.fine ? weight_of(interpolation(ax, tx, i0 + b), I) : T(0);
        wy[b] = j0 + b >= 0 && j0 + b < ay.fine ? weight_of(interpolation(ay, ty, j0 + b), J) : T(0);
    }
    T sum = 0;
    for (int b = 0; b < 3; ++b) {
        const int j = j0 + b;
        sum += wy[b] * (wx[0] * at(i0, j) + wx[1] * at(i0 + 1, j) + wx[2] * at(i0 + 2, j));
    }
    return sum;
}
/// The same on a grid that halves exactly in both directions, without eliminated ends, whose
/// coarse grid has mxc x myc nodes (the distributed strips).
template <class T, class Fine>
ADIMG_HD T restrict_from(Fine&& fine, int mxc, int myc, const T* tx, const T* ty, int I, int J,
                         NaturalEdges natural = {}) {
    return restrict_from<T>(fine, halving_axis(mxc), halving_axis(myc), tx, ty, I, J, natural);
}
/// The restriction to coarse node (I, J) of `fine`, an mxf x myf grid in memory whose matrix
/// has the edges `natural`.
template <class T>
ADIMG_HD T restrict_value(const T* fine, int mxf, int myf, const T* tx, const T* ty, int I, int J,
                          NaturalEdges natural = {}) {
    auto at = [&](int i, int j) { return fine[static_cast<std::size_t>(j) * mxf + i]; };
    return restrict_from<T>(at, x_axis(mxf, natural), y_axis(myf, natural), tx, ty, I, J, natural);
}

/// True for nodes on the edge of the grid (the Dirichlet rows of the built-in problems; a user's
/// matrix may have natural edges, NaturalEdges::dirichlet_node).
ADIMG_HD bool on_boundary(int i, int j, int mx, int my) { return i == 0 || j == 0 || i == mx - 1 || j == my - 1; }

}  // namespace adimg
