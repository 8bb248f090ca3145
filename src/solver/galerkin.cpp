#include <adimg/error.hpp>
#include <adimg/hierarchy.hpp>

#include "galerkin.hpp"
#include "stencil.hpp"

#include <algorithm>

#include <string>
#include <utility>

namespace adimg {

namespace {

/// The coarse nodes a fine node takes values from under the Q1 prolongation, with their weights;
/// coarse boundary nodes are left out (they are Dirichlet, so P acts on interior nodes only).
struct Parents {
    int count = 0;
    int node[2];
    double weight[2];
};

Parents parents(int i, const std::vector<double>& split, int coarse_nodes) {
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

}  // namespace

NineBands<double> galerkin_coarse(const NineBands<double>& fine, const std::vector<double>& split_x,
                                  const std::vector<double>& split_y) {
    const int mx = fine.mx, my = fine.my;
    if (mx % 2 == 0 || my % 2 == 0 || mx < 3 || my < 3)
        throw input_error("galerkin_coarse: a " + std::to_string(mx) + "x" + std::to_string(my) +
                          " grid cannot be coarsened; both sizes must be odd and at least 3");
    const int mxc = mx / 2 + 1, myc = my / 2 + 1;
    if (static_cast<int>(split_x.size()) != mxc - 1 || static_cast<int>(split_y.size()) != myc - 1)
        throw input_error("galerkin_coarse: need one split position per coarse element");
    NineBands<double> coarse(mxc, myc);
    for (int j = 0; j < my; ++j) {
        const Parents py = parents(j, split_y, myc);
        for (int i = 0; i < mx; ++i) {
            const Parents px = parents(i, split_x, mxc);
            if (px.count == 0 || py.count == 0) continue;
            const std::size_t p = static_cast<std::size_t>(j) * mx + i;
            for (int k = 0; k < 9; ++k) {
                const double a = fine(k, p);
                if (a == 0.0) continue;
                const int qi = i + band_dx(k), qj = j + band_dy(k);
                const Parents qx = parents(qi, split_x, mxc), qy = parents(qj, split_y, myc);
                for (int b = 0; b < py.count; ++b)
                    for (int c = 0; c < px.count; ++c) {
                        const std::size_t P = static_cast<std::size_t>(py.node[b]) * mxc + px.node[c];
                        const double wp = py.weight[b] * px.weight[c] * a;
                        for (int d = 0; d < qy.count; ++d)
                            for (int e = 0; e < qx.count; ++e)
                                coarse(band_index(qx.node[e] - px.node[c], qy.node[d] - py.node[b]), P) +=
                                    wp * qy.weight[d] * qx.weight[e];
                    }
            }
        }
    }
    for (int J = 0; J < myc; ++J)
        for (int I = 0; I < mxc; ++I)
            if (on_boundary(I, J, mxc, myc)) coarse(C, static_cast<std::size_t>(J) * mxc + I) = 1.0;
    return coarse;
}

Hierarchy galerkin_hierarchy(const GridMatrix& A, int coarse_level) {
    const Grid& grid = A.grid();
    const int coarse = std::clamp(coarse_level, grid.coarsest_level(), grid.finest_level());
    auto [split_x, split_y] = grid.split_positions_from(coarse);
    Hierarchy h;
    h.levels.resize(split_x.size() + 1);
    for (std::size_t l = 0; l < h.levels.size(); ++l) {
        h.levels[l].level = coarse + static_cast<int>(l);
        if (l < split_x.size()) {
            h.levels[l].split_x = std::move(split_x[l]);
            h.levels[l].split_y = std::move(split_y[l]);
        }
    }
    h.levels.back().A = A.bands();
    for (std::size_t l = h.levels.size() - 1; l-- > 0;)
        h.levels[l].A = galerkin_coarse(h.levels[l + 1].A, h.levels[l].split_x, h.levels[l].split_y);
    return h;
}

}  // namespace adimg
