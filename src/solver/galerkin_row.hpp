#pragma once
// One row of the Galerkin product R A P, for the host (galerkin.cpp) and the device alike: each
// coarse row gathers what the fine rows around it give, in one fixed order, so that both give
// the same bits and the rows can be computed in parallel (docs/design.md §3).

#include "../common/host_device.hpp"
#include "stencil.hpp"

namespace adimg {

/// The coarse nodes that fine node i takes values from under the Q1 prolongation, with their
/// weights; coarse boundary nodes are left out (they are Dirichlet, so P acts on interior nodes).
/// `split[I]` is the relative position of the fine node inside coarse element I.
struct Parents {
    int count = 0;
    int node[2] = {0, 0};
    double weight[2] = {0.0, 0.0};
};

ADIMG_HD Parents q1_parents(int i, const double* split, int coarse_nodes) {
    Parents out;
    auto add = [&](int I, double w) {
        if (I > 0 && I < coarse_nodes - 1 && w != 0.0) {
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
/// coarse elements. Coarse boundary rows are identity rows.
ADIMG_HD void galerkin_row(const double* fine, int mx, int my, const double* split_x, const double* split_y, int I,
                           int J, double out[9]) {
    const int mxc = mx / 2 + 1, myc = my / 2 + 1;
    for (int k = 0; k < 9; ++k) out[k] = 0.0;
    if (on_boundary(I, J, mxc, myc)) {
        out[4] = 1.0;
        return;
    }
    const long long n = static_cast<long long>(mx) * my;
    for (int j = 2 * J - 1; j <= 2 * J + 1; ++j) {
        const double wy = q1_weight_of(q1_parents(j, split_y, myc), J);
        if (wy == 0.0) continue;
        for (int i = 2 * I - 1; i <= 2 * I + 1; ++i) {
            const double wx = q1_weight_of(q1_parents(i, split_x, mxc), I);
            if (wx == 0.0) continue;
            const long long p = static_cast<long long>(j) * mx + i;
            for (int k = 0; k < 9; ++k) {
                const double a = fine[k * n + p];
                if (a == 0.0) continue;
                const double wp = ADIMG_MUL_RN(ADIMG_MUL_RN(wy, wx), a);
                const Parents qx = q1_parents(i + band_dx(k), split_x, mxc), qy = q1_parents(j + band_dy(k), split_y, myc);
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
