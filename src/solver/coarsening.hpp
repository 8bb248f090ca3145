#pragma once
/// \file
/// How one direction of a grid coarsens, for the transfers of both backends and the Galerkin
/// product alike (docs/design.md §3).
///
/// A direction of m nodes coarsens to the nodes at its even indices and its last node:
/// m / 2 + 1 nodes (2^k + 1 -> 2^(k-1) + 1 as ever; 1000 -> 501, the last coarse element then
/// one fine element wide, split position 1). A direction whose Dirichlet end was eliminated
/// (NaturalEdges::eliminated_west ...) coarsens as the grid with that end put back does: its
/// "full" indices count the eliminated node, whose value is zero on every level (2^k - 1 interior
/// nodes -> 2^(k-1) - 1). A direction of three full nodes or fewer does not coarsen: the other one
/// may still (semi-coarsening), and this one is copied.

#include "../common/host_device.hpp"

#include <adimg/nine_bands.hpp>

#include <vector>

namespace adimg {

/// One direction of a fine grid and its coarse grid.
struct Axis {
    int fine = 0;            ///< stored nodes of the fine grid
    int coarse = 0;          ///< stored nodes of the coarse grid
    int shift = 0;           ///< 1 if an eliminated node lies before index 0: full index = index + shift
    bool eliminated_high = false;  ///< an eliminated node lies after the last one
    bool halves = false;     ///< false: the direction is not coarsened (coarse = fine, copied)

    /// The fine grid's nodes with the eliminated ends put back.
    ADIMG_HD constexpr int full() const { return fine + shift + eliminated_high; }
    /// Split positions that the transfers read: one per element of the full coarse grid.
    ADIMG_HD constexpr int splits() const { return halves ? full() / 2 : 0; }
    /// Whether coarse node K (stored index) is an eliminated node, whose value is zero.
    ADIMG_HD constexpr bool eliminated(int K) const { return (shift && K < 0) || (eliminated_high && K >= coarse); }
    /// The first of the fine nodes (stored indices) that coarse node K interpolates into; the
    /// others are the next two.
    ADIMG_HD constexpr int first_child(int K) const { return halves ? 2 * K + shift - 1 : K - 1; }
};

/// The direction of `fine` nodes with eliminated ends as given.
ADIMG_HD constexpr Axis make_axis(int fine, bool eliminated_low, bool eliminated_high) {
    Axis a;
    a.fine = fine;
    a.shift = eliminated_low ? 1 : 0;
    a.eliminated_high = eliminated_high;
    a.halves = a.full() > 3;
    a.coarse = a.halves ? a.full() / 2 + 1 - a.shift - (eliminated_high ? 1 : 0) : fine;
    return a;
}
/// The x and y directions of an mx x my grid with the edges of its matrix.
ADIMG_HD constexpr Axis x_axis(int mx, NaturalEdges e) { return make_axis(mx, e.eliminated_west, e.eliminated_east); }
ADIMG_HD constexpr Axis y_axis(int my, NaturalEdges e) { return make_axis(my, e.eliminated_south, e.eliminated_north); }

/// A direction that halves exactly, without eliminated ends, to `coarse` nodes (2 coarse - 1
/// fine ones); 0 leaves the length unstated, for the distributed strips, which address part of a
/// c 2^k + 1 grid (no index reaches past its ends, so nothing needs it).
ADIMG_HD constexpr Axis halving_axis(int coarse = 0) {
    Axis a;
    a.fine = coarse > 0 ? 2 * coarse - 1 : 0;
    a.coarse = coarse;
    a.halves = true;
    return a;
}

/// Node counts of one direction from the finest grid down, until it no longer halves (the
/// hierarchy of a Grid or of a case's mesh of any size keeps the last count on the levels below).
inline std::vector<int> level_sizes(int m, bool eliminated_low, bool eliminated_high) {
    std::vector<int> sizes{m};
    for (Axis a = make_axis(m, eliminated_low, eliminated_high); a.halves;
         a = make_axis(a.coarse, eliminated_low, eliminated_high))
        sizes.push_back(a.coarse);
    return sizes;
}

/// The coarse nodes (stored indices) that fine node i takes its value from under the Q1
/// prolongation, with their weights: one node with weight 1 where i lies on a coarse node, else
/// the two ends of the coarse element around it, weights 1 - t and t for the split position t of
/// that element (full coarse element index). Either node may be an eliminated one
/// (Axis::eliminated).
template <class T>
struct Interpolation {
    int count = 1;
    int node[2] = {0, 0};
    T weight[2] = {T(1), T(0)};
};

template <class T>
ADIMG_HD Interpolation<T> interpolation(const Axis& a, const T* t, int i) {
    Interpolation<T> w;
    if (!a.halves) {
        w.node[0] = i;
        return w;
    }
    const int f = i + a.shift, I = f / 2 - a.shift;
    w.node[0] = I;
    if ((f & 1) == 0) return w;
    w.count = 2;
    w.node[1] = I + 1;
    w.weight[0] = T(1) - t[f / 2];
    w.weight[1] = t[f / 2];
    return w;
}

/// The weight with which fine node i (interpolation w) takes the value of coarse node K; 0 if
/// it does not.
template <class T>
ADIMG_HD T weight_of(const Interpolation<T>& w, int K) {
    for (int c = 0; c < w.count; ++c)
        if (w.node[c] == K) return w.weight[c];
    return T(0);
}

}  // namespace adimg
