#pragma once
// A RightHandSideMap (grid.hpp) held on the device, for the solves on device memory: b mapped into
// a buffer of its own (the caller's b stays as given), and after the solve x's Dirichlet rows set
// and, for a pure Neumann matrix, its mean removed. Lists and buffers are allocated by assign()
// (a setup), never by a solve.

#include "device_memory.cuh"
#include "launcher.cuh"

#include "../solver/compensated_sum.hpp"

#include <adimg/grid.hpp>

#include <cstddef>
#include <vector>

namespace adimg {

namespace kernels {
struct Lift;  // kernels/rhs_map.cuh, whose kernels only resident_map.cu compiles
}

class ResidentMap {
public:
    /// The map of the last setup, for vectors of n rows.
    void assign(const RightHandSideMap& map, std::size_t n, cudaStream_t stream);

    /// The solver's right-hand side from the caller's b (n values): b itself where the map changes
    /// nothing, else the mapped copy. `null_component`, unless nullptr, receives what
    /// RightHandSideMap::apply returns (reading it back is the one synchronisation, which a caller
    /// that does not report it, the preconditioner, spares).
    const double* apply(Launcher& launch, const double* b, double* null_component = nullptr);
    /// The map of the last assign().
    const RightHandSideMap& map() const { return map_; }
    /// After the solve: x's Dirichlet rows from the mapped b (set_dirichlet_values()).
    void set_dirichlet_values(Launcher& launch, const double* mapped_b, double* x);
    /// For a pure Neumann matrix: x to zero mean (remove_mean()); nothing otherwise.
    void remove_mean(Launcher& launch, double* x);

private:
    /// sums_[0..2] = the compensated sums of x, |x|, x^2, and mean_ = sum / n.
    void sums(Launcher& launch, const double* x);

    static constexpr int sum_blocks = 256;
    RightHandSideMap map_;
    std::size_t n_ = 0;
    DeviceVector<double> mapped_;
    DeviceVector<kernels::Lift> lifts_;
    DeviceVector<unsigned int> lift_starts_;
    unsigned int lifted_rows_ = 0;
    DeviceVector<unsigned long long> scaled_rows_, dirichlet_rows_;
    DeviceVector<double> scaled_diagonals_;
    DeviceVector<CompensatedSum> parts_{3 * sum_blocks};
    DeviceVector<double> sums_{4};  ///< sum, magnitude, squares, mean
};

}  // namespace adimg
