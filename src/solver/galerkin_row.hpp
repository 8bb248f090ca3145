#pragma once
// One row of the Galerkin product R A P, for the host (galerkin.cpp) and the device alike: each
// coarse row gathers what the fine rows around it give, in one fixed order, so that both give
// the same bits and the rows can be computed in parallel (docs/design.md §3).

#include "../common/host_device.hpp"
#include "stencil.hpp"

namespace adimg {

/// The coarse nodes that fine node i takes values from under the Q1 prolongation, with their
/// weights; the coarse end nodes 0 and coarse_nodes - 1 take part only where their edge is
/// natural (`low_free`, `high_free`): a Dirichlet end is no unknown, so P leaves it out.
/// `split[I]` is the relative position of the fine node inside coarse element I.
struct Parents {
    int count = 0;
    int node[2] = {0, 0};
    double weight[2] = {0.0, 0.0};
};

ADIMG_HD Parents q1_parents(int i, const double* split, int coarse_nodes, bool low_free, bool high_free) {
    Parents out;
    auto add = [&](int I, double w) {
        if ((I > 0 || low_free) && (I < coarse_nodes - 1 || high_free) && w != 0.0) {
            out.node[out.count] = I;
            out.weight[out.count++] = w;
        }
    };
    if (i % 2 == 0) {
        add(i / 2, 1.0);
    } else {
        add(i / 2, 1.0 - split[i / 2]);
        add(i / 2 + 1, split[i / 2]);
    }
    return out;
}

/// The weight with which fine node i takes the value of coarse node I (0 if it does not).
ADIMG_HD double q1_weight_of(const Parents& parents, int I) {
    for (int c = 0; c < parents.count; ++c)
        if (parents.node[c] == I) return parents.weight[c];
    return 0.0;
}

/// Row (I, J) of R A P on the coarse grid of mxc x myc nodes: `out[k]` receives band k
/// (SW S SE W C E NW N NE). `fine` holds the fine matrix's nine bands one after another
/// (band k of node p at fine[k * mx * my + p]); split_x, split_y the split positions of the
/// coarse elements; `natural` the fine grid's natural edges, which the coarse grid keeps. Coarse
/// rows on a Dirichlet edge are identity rows; those on a natural edge gather from the fine rows
/// the grid has around them.
ADIMG_HD void galerkin_row(const double* fine, int mx, int my, const double* split_x, const double* split_y,
                           NaturalEdges natural, int I, int J, double out[9]) {
    const int mxc = mx / 2 + 1, myc = my / 2 + 1;
    for (int k = 0; k < 9; ++k) out[k] = 0.0;
    if (natural.dirichlet_node(I, J, mxc, myc)) {
        out[4] = 1.0;
        return;
    }
    auto parents_x = [&](int i) { return q1_parents(i, split_x, mxc, natural.west, natural.east); };
    auto parents_y = [&](int j) { return q1_parents(j, split_y, myc, natural.south, natural.north); };
    const long long n = static_cast<long long>(mx) * my;
    for (int j = 2 * J - 1; j <= 2 * J + 1; ++j) {
        if (j < 0 || j >= my) continue;
        const double wy = q1_weight_of(parents_y(j), J);
        if (wy == 0.0) continue;
        for (int i = 2 * I - 1; i <= 2 * I + 1; ++i) {
            if (i < 0 || i >= mx) continue;
            const double wx = q1_weight_of(parents_x(i), I);
            if (wx == 0.0) continue;
            const long long p = static_cast<long long>(j) * mx + i;
            for (int k = 0; k < 9; ++k) {
                const double a = fine[k * n + p];
                if (a == 0.0) continue;
                const double wp = ADIMG_MUL_RN(ADIMG_MUL_RN(wy, wx), a);
                const Parents qx = parents_x(i + band_dx(k)), qy = parents_y(j + band_dy(k));
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
