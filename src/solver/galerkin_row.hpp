#pragma once
// One row of the Galerkin product R A P, for the host (galerkin.cpp) and the device alike: each
// coarse row gathers what the fine rows around it give, in one fixed order, so that both give
// the same bits and the rows can be computed in parallel (docs/design.md §3).

#include "../common/host_device.hpp"
#include "stencil.hpp"

namespace adimg {

/// The coarse nodes that fine node i takes values from under the Q1 prolongation, with their
/// weights (interpolation(), coarsening.hpp), less those that are no unknowns: an eliminated
/// node, and the coarse end nodes 0 and a.coarse - 1 where their edge is Dirichlet (`low_free`,
/// `high_free` false); and less zero weights.
ADIMG_HD Interpolation<double> q1_parents(int i, const double* split, const Axis& a, bool low_free, bool high_free) {
    const Interpolation<double> all = interpolation(a, split, i);
    Interpolation<double> out;
    out.count = 0;
    for (int c = 0; c < all.count; ++c) {
        const int I = all.node[c];
        if (!a.eliminated(I) && (I > 0 || low_free) && (I < a.coarse - 1 || high_free) && all.weight[c] != 0.0) {
            out.node[out.count] = I;
            out.weight[out.count++] = all.weight[c];
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
ADIMG_HD void galerkin_row(const double* fine, int mx, int my, const double* split_x, const double* split_y,
                           NaturalEdges natural, int I, int J, double out[9]) {
    const Axis ax = x_axis(mx, natural), ay = y_axis(my, natural);
    for (int k = 0; k < 9; ++k) out[k] = 0.0;
    if (natural.dirichlet_node(I, J, ax.coarse, ay.coarse)) {
        out[4] = 1.0;
        return;
    }
    auto parents_x = [&](int i) { return q1_parents(i, split_x, ax, natural.west, natural.east); };
    auto parents_y = [&](int j) { return q1_parents(j, split_y, ay, natural.south, natural.north); };
    const long long n = static_cast<long long>(mx) * my;
    for (int j = ay.first_child(J); j <= ay.first_child(J) + 2; ++j) {
        if (j < 0 || j >= my) continue;
        const double wy = weight_of(parents_y(j), J);
        if (wy == 0.0) continue;
        for (int i = ax.first_child(I); i <= ax.first_child(I) + 2; ++i) {
            if (i < 0 || i >= mx) continue;
            const double wx = weight_of(parents_x(i), I);
            if (wx == 0.0) continue;
            const long long p = static_cast<long long>(j) * mx + i;
            for (int k = 0; k < 9; ++k) {
                const double a = fine[k * n + p];
                if (a == 0.0) continue;
                const double wp = ADIMG_MUL_RN(ADIMG_MUL_RN(wy, wx), a);
                const Interpolation<double> qx = parents_x(i + band_dx(k)), qy = parents_y(j + band_dy(k));
                for (int d = 0; d < qy.count; ++d)
                    for (int e = 0; e < qx.count; ++e) {
                        double& entry = out[band_index(qx.node[e] - I, qy.node[d] - J)];
                        entry = ADIMG_ADD_RN(entry, ADIMG_MUL_RN(ADIMG_MUL_RN(wp, qy.weight[d]), qx.weight[e]));
                    }
            }
        }
    }
}

}  // namespace adimg
