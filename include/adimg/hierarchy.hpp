#pragma once
/// \file
/// The multigrid level hierarchy on the host: each level's nine-band matrix in double and the
/// positions at which its elements split into the next finer level (DESIGN.md §3).

#include <adimg/case.hpp>
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

/// Each level the case rediscretized on its own mesh, levels coarse_level..level.
Hierarchy rediscretized_hierarchy(const CaseSpec& spec, int level, int coarse_level);

/// The Galerkin product R A P of a fine matrix, with P the Q1 prolongation given by the split
/// positions (restricted to interior nodes) and R = P^T; coarse boundary nodes are identity rows.
NineBands<double> galerkin_coarse(const NineBands<double>& fine, const std::vector<double>& split_x,
                                  const std::vector<double>& split_y);

/// Coarse levels by Galerkin products from the finest matrix. `split_x[l]`, `split_y[l]` are the
/// split positions from level l to l+1 counted from the coarsest (l = 0), so there are
/// `levels - 1` of each. Grid sizes must halve: mx = c 2^k + 1.
Hierarchy galerkin_hierarchy(NineBands<double> finest, const std::vector<std::vector<double>>& split_x,
                             const std::vector<std::vector<double>>& split_y, int finest_level);

/// The same grids and split positions as `h`, with every coarse matrix replaced by the Galerkin
/// product of the next finer one (the finest matrix is kept).
Hierarchy galerkin_from_finest(Hierarchy h);

}  // namespace adimg
