#include <adimg/error.hpp>
#include <adimg/hierarchy.hpp>

#include "galerkin.hpp"
#include "coarsening.hpp"
#include "galerkin_row.hpp"

#include <algorithm>

#include <string>
#include <utility>

namespace adimg {

void check_coarsening(const NineBands<double>& fine, std::size_t split_x, std::size_t split_y) {
    const Axis ax = x_axis(fine.mx, fine.natural), ay = y_axis(fine.my, fine.natural);
    if (!ax.halves && !ay.halves)
        throw input_error("galerkin_coarse: a " + std::to_string(fine.mx) + "x" + std::to_string(fine.my) +
                          " grid cannot be coarsened; a direction coarsens from 4 nodes up (eliminated ends counted)");
    if (split_x != static_cast<std::size_t>(ax.splits()) || split_y != static_cast<std::size_t>(ay.splits()))
        throw input_error("galerkin_coarse: need one split position per coarse element of the grid with its "
                          "eliminated ends, " + std::to_string(ax.splits()) + " in x and " +
                          std::to_string(ay.splits()) + " in y, but got " + std::to_string(split_x) + " and " +
                          std::to_string(split_y));
}

void galerkin_coarse(const NineBands<double>& fine, const std::vector<double>& split_x,
                     const std::vector<double>& split_y, NineBands<double>& coarse) {
    const int mx = fine.mx, my = fine.my;
    check_coarsening(fine, split_x.size(), split_y.size());
    const int mxc = x_axis(mx, fine.natural).coarse, myc = y_axis(my, fine.natural).coarse;
    if (coarse.mx != mxc || coarse.my != myc) coarse = NineBands<double>(mxc, myc);
    coarse.natural = fine.natural;
    const std::size_t nc = coarse.rows();
#pragma omp parallel for schedule(static)
    for (int J = 0; J < myc; ++J)
        for (int I = 0; I < mxc; ++I) {
            double row[9];
            galerkin_row(fine.values.data(), mx, my, split_x.data(), split_y.data(), fine.natural, I, J, row);
            const std::size_t P = static_cast<std::size_t>(J) * mxc + I;
            for (int k = 0; k < 9; ++k) coarse.values[k * nc + P] = row[k];
        }
}

NineBands<double> galerkin_coarse(const NineBands<double>& fine, const std::vector<double>& split_x,
                                  const std::vector<double>& split_y) {
    NineBands<double> coarse;
    galerkin_coarse(fine, split_x, split_y, coarse);
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
