#pragma once
// The removal of b's component along the constant null vector of a pure Neumann matrix
// (RightHandSideMap::apply on the host, the resident solves on the device): what it reports.

#include <cfloat>
#include <cmath>
#include <cstddef>

namespace adimg {

/// The size of the component along the unit null vector 1 / sqrt(n) of n values with sum `sum`,
/// sum of magnitudes `magnitude` and sum of squares `squares`, relative to their norm; zero where
/// the sum is at the rounding level of its terms.
inline double null_component(double sum, double magnitude, double squares, std::size_t n) {
    if (std::abs(sum) <= 64.0 * DBL_EPSILON * magnitude) return 0.0;
    return std::abs(sum) / std::sqrt(static_cast<double>(n) * squares);
}

}  // namespace adimg
