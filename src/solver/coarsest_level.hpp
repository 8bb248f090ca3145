#pragma once
// The coarsest level of a user's matrix, as every solver front end chooses it.

#include <adimg/grid.hpp>
#include <adimg/options.hpp>

#include <algorithm>

namespace adimg {

/// SolverOptions::coarse_level within the grid's levels, and for the direct coarse solve lowered
/// further, where the grid allows, until it is small enough (e.g. 97 x 49 nodes, whose finest
/// level is 4, stops at level 3, 49 x 25).
inline int coarsest_level(const Grid& grid, const SolverOptions& options) {
    int coarse = std::clamp(options.coarse_level, grid.coarsest_level(), grid.finest_level());
    if (options.coarse_solver == CoarseSolver::direct)
        while (coarse > grid.coarsest_level() &&
               static_cast<long long>(grid.mx_on_level(coarse)) * grid.my_on_level(coarse) > max_direct_coarse_unknowns)
            --coarse;
    return coarse;
}

}  // namespace adimg
