#pragma once
// One row of the Galerkin product R A P, for the host (galerkin.cpp) and the device alike: each
// coarse row gathers what the fine rows around it give, in one fixed order, so that both give
// the same bits and the rows can be computed in parallel (docs/design.md §3).

#include "../common/host_device.hpp"
#include "stencil.hpp"

namespace adimg {

/// Whether coarse node I of direction `a` is a column of the Q1 prolongation P: not an eliminated
/// node, nor the coarse end node 0 or a.coarse - 1 where its edge is Dirichlet (`low_free`,
/// `high_free` false). The parents of a fine node are the coarse nodes it takes values from
/// (interpolation(), coarsening.hpp) that are columns, with their weights, less zero weights.
ADIMG_HD bool q1_column(int I, const Axis& a, bool low_free, bool high_free) {
    return !a.eliminated(I) && (I > 0 || low_free) && (I < a.coarse - 1 || high_free);
}

/// The parents of the five fine nodes of one direction that coarse node K's row
/// reaches, first_child(K) - 1 .. first_child(K) + 3 (K's three children and their outer
/// neighbours), by coarse node: w[c][r] is the weight with which fine node first_child(K) - 1 + c
/// takes the value of coarse node K - 1 + r; 0 where it takes none, and for fine nodes off the
/// grid (no fine entry couples to them). A parent further from K than one node (K - 2 or K + 2,
/// in a direction that is copied, at a fine node whose own weight on K is 0) is never reached.
/// Computed once per row, where the product would ask for them at each of its 81 (child, band)
/// pairs; the fixed slots keep the table in registers on the device.
struct RowParents {
    double w[5][3];
};

ADIMG_HD RowParents row_parents(int K, const double* split, const Axis& a, bool low_free, bool high_free) {
    RowParents out;
    const int first = a.first_child(K) - 1;
    ADIMG_UNROLL
    for (int c = 0; c < 5; ++c) {
        ADIMG_UNROLL
        for (int r = 0; r < 3; ++r) out.w[c][r] = 0.0;
        if (first + c < 0 || first + c >= a.fine) continue;
        const Interpolation<double> q = interpolation(a, split, first + c);
        ADIMG_UNROLL
        for (int e = 0; e < 2; ++e) {
            if (e >= q.count || !q1_column(q.node[e], a, low_free, high_free)) continue;
            ADIMG_UNROLL
            for (int r = 0; r < 3; ++r)
                if (q.node[e] == K - 1 + r) out.w[c][r] = q.weight[e];
        }
    }
    return out;
}

/// Row (I, J) of R A P on the coarse grid of mxc x myc nodes: `out[k]` receives band k
/// (SW S SE W C E NW N NE). `fine` holds the fine matrix's nine bands one after another
/// (band k of node p at fine[k * mx * my + p]); split_x, split_y the split positions of the
/// coarse elements; `natural` the fine grid's natural edges, which the coarse grid keeps. Coarse
/// rows on a Dirichlet edge are identity rows; those on a natural edge gather from the fine rows
/// the grid has around them.
///
/// The order is fixed: over the children (rows, then columns), their bands k, and the parents of
/// each band's neighbour (in y, then in x), every entry adding its terms in that order. The loops
/// have fixed bounds and the entries fixed places, so that on the device, unrolled, the sums stay
/// in registers.
ADIMG_HD void galerkin_row(const double* fine, int mx, int my, const double* split_x, const double* split_y,
                           NaturalEdges natural, int I, int J, double out[9]) {
    const Axis ax = x_axis(mx, natural), ay = y_axis(my, natural);
    if (natural.dirichlet_node(I, J, ax.coarse, ay.coarse)) {
        ADIMG_UNROLL
        for (int k = 0; k < 9; ++k) out[k] = k == 4 ? 1.0 : 0.0;
        return;
    }
    const RowParents px = row_parents(I, split_x, ax, natural.west, natural.east);
    const RowParents py = row_parents(J, split_y, ay, natural.south, natural.north);
    double sum[9];
    ADIMG_UNROLL
    for (int k = 0; k < 9; ++k) sum[k] = 0.0;
    const long long n = static_cast<long long>(mx) * my;
    const int i0 = ax.first_child(I), j0 = ay.first_child(J);
    ADIMG_UNROLL
    for (int b = 0; b < 3; ++b) {  // child row j0 + b, fine node 1 + b of py
        const double wy = py.w[1 + b][1];
        if (wy == 0.0) continue;  // as for a row off the grid
        ADIMG_UNROLL
        for (int a = 0; a < 3; ++a) {
            const double wx = px.w[1 + a][1];
            if (wx == 0.0) continue;
            const long long p = static_cast<long long>(j0 + b) * mx + (i0 + a);
            const double wyx = ADIMG_MUL_RN(wy, wx);
            ADIMG_UNROLL
            for (int k = 0; k < 9; ++k) {
                const double value = fine[k * n + p];
                if (value == 0.0) continue;
                const double wp = ADIMG_MUL_RN(wyx, value);
                const int cx = 1 + a + band_dx(k), cy = 1 + b + band_dy(k);  // the neighbour among the five
                ADIMG_UNROLL
                for (int ry = 0; ry < 3; ++ry) {
                    if (py.w[cy][ry] == 0.0) continue;
                    const double wpy = ADIMG_MUL_RN(wp, py.w[cy][ry]);
                    ADIMG_UNROLL
                    for (int rx = 0; rx < 3; ++rx)
                        if (px.w[cx][rx] != 0.0)
                            sum[3 * ry + rx] = ADIMG_ADD_RN(sum[3 * ry + rx], ADIMG_MUL_RN(wpy, px.w[cx][rx]));
                }
            }
        }
    }
    ADIMG_UNROLL
    for (int k = 0; k < 9; ++k) out[k] = sum[k];
}

}  // namespace adimg
