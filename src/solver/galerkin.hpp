#pragma once
// One Galerkin coarsening step, R A P, the building block of galerkin_hierarchy().

#include <adimg/nine_bands.hpp>

#include <cstddef>
#include <vector>

namespace adimg {

/// The Galerkin product R A P of a fine matrix, with P the Q1 prolongation given by the split
/// positions (restricted to the coarse nodes that are not on a Dirichlet edge of fine.natural)
/// and R = P^T; coarse nodes on a Dirichlet edge are identity rows. The coarse matrix keeps the
/// fine one's natural edges.
/// Throws input_error if the grid cannot be coarsened or the split positions do not fit it.
NineBands<double> galerkin_coarse(const NineBands<double>& fine, const std::vector<double>& split_x,
                                  const std::vector<double>& split_y);

/// The same into `coarse`, whose storage is reused when it has the coarse grid's size.
void galerkin_coarse(const NineBands<double>& fine, const std::vector<double>& split_x,
                     const std::vector<double>& split_y, NineBands<double>& coarse);

/// Throws input_error unless the grid of `fine` (with its eliminated edges) coarsens in some
/// direction and the split positions have one entry per element of the coarse grid with its
/// eliminated ends (Axis::splits, coarsening.hpp).
void check_coarsening(const NineBands<double>& fine, std::size_t split_x, std::size_t split_y);

}  // namespace adimg
