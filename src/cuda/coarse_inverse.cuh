#pragma once
// The coarsest grid's dense inverse for the CUDA backend's direct coarse solve, made on the device
// from the host's sparse factor (CoarseFactor): the factor's arrays go up (tens of thousands of
// entries, not the n x n inverse), one kernel solves all columns (kernels/coarse_inverse.cuh),
// and the result is CoarseFactor::inverse() bit for bit.

#include "device_memory.cuh"
#include "launcher.cuh"

#include "../solver/coarse_factor.hpp"

#include <vector>

namespace adimg {

class CoarseInverse {
public:
    /// inverse = A^-1 of the factor's matrix (A^+ for a pure Neumann one), row-major n x n in
    /// device memory (n = factor.rows()), made on `launch`'s stream; returns when it is made.
    /// Throws input_error (CoarseFactor::throw_not_finite()) if it is not finite. Storage grows
    /// only for a factor with more entries than any before, so a values-only re-setup allocates
    /// nothing.
    ///
    /// An LU factor (a matrix that is not symmetric, which the contract's symmetry tolerance
    /// still admits) is inverted on the host and uploaded: Eigen's SparseLU solves through
    /// supernodes, whose order the device would have to follow to give the same bits, for a case
    /// that symmetric user matrices and their Galerkin levels do not reach.
    void make(const CoarseFactor& factor, DeviceVector<double>& inverse, Launcher& launch);

    /// Device bytes besides the inverse: the factor's arrays and the projection's means.
    long long bytes() const;

private:
    DeviceVector<int> indices_;     ///< column starts, permutation, rows of L
    DeviceVector<double> numbers_;  ///< D, values of L
    DeviceVector<double> means_;    ///< a pure Neumann projection's row means, column means, mean
    DeviceVector<int> not_finite_{1};
    std::vector<double> host_inverse_;  ///< an LU factor's inverse
};

}  // namespace adimg
