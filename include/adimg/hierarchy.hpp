#pragma once
/// \file
/// The multigrid level hierarchy on the host: each level's nine-band matrix in double and the
/// positions at which its elements split into the next finer level (docs/design.md §3).
///
/// Two ways to build one: rediscretized_hierarchy() (problems.hpp) assembles every level of a
/// built-in or case-file problem on its own mesh; galerkin_hierarchy() below forms the coarse
/// levels of your matrix as Galerkin products. Solver::setup takes either.

#include <adimg/grid.hpp>
#include <adimg/nine_bands.hpp>

#include <vector>

namespace adimg {

struct HostLevel {
    int level = 0;               ///< refinement level (the finest is L)
    NineBands<double> A;         ///< the level's matrix; boundary nodes are identity rows
    std::vector<double> split_x; ///< t per element in x, toward the next finer level (empty on the finest)
    std::vector<double> split_y; ///< t per element in y
};

/// Levels from coarsest to finest.
struct Hierarchy {
    std::vector<HostLevel> levels;

    const HostLevel& finest() const { return levels.back(); }
};

/// `A` on the finest level and the Galerkin products R A P below it, down to `coarse_level`
/// (raised to Grid::coarsest_level() if lower, lowered to the finest level if higher), with the
/// grid's prolongation P (bilinear, or exact Q1 with positions) and R = P^T; coarse boundary
/// nodes are identity rows.
Hierarchy galerkin_hierarchy(const GridMatrix& A, int coarse_level);

}  // namespace adimg
