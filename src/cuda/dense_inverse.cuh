#pragma once
// The coarsest grid's exact solve made ready on the device: its matrix scattered into a dense
// array and inverted by cuSOLVER (a Cholesky factorisation for a symmetric matrix, else LU), so
// that the V-cycle applies the inverse as one product. Computing the inverse on the host, by
// solving for the identity's columns with a sparse factor, took 50 of the 56 ms of a whole setup
// at L=12 (docs/performance.md, "Coarse inverse by cuSOLVER").

#include "device_memory.cuh"

#include <adimg/nine_bands.hpp>

#include <cusolverDn.h>

namespace adimg {

class DenseInverse {
public:
    explicit DenseInverse(cudaStream_t stream);
    ~DenseInverse();
    DenseInverse(const DenseInverse&) = delete;
    DenseInverse& operator=(const DenseInverse&) = delete;

    /// inverse = A^-1, row-major n x n (n = A.rows()), on the device. Throws input_error naming
    /// the grid if A is singular.
    void invert(const NineBands<double>& A, DeviceVector<double>& inverse);

private:
    cudaStream_t stream_;
    cusolverDnHandle_t handle_ = nullptr;
    DeviceVector<double> bands_{0}, dense_{0}, workspace_{0};
    DeviceVector<int> pivots_{0}, info_{0};
};

}  // namespace adimg
