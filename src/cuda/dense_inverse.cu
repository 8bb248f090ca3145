#include "dense_inverse.cuh"

#include "kernels/launch.cuh"

#include "../solver/coarse_factor.hpp"

#include <adimg/error.hpp>

#include <string>

namespace adimg {
namespace {

void check(cusolverStatus_t status, const char* call) {
    if (status != CUSOLVER_STATUS_SUCCESS)
        throw device_error(std::string("cuSOLVER: ") + call + " failed with status " + std::to_string(int(status)) +
                           "; check that the CUDA toolkit's cuSOLVER matches the driver");
}

/// dense = 0 and inverse = the identity, both n x n.
__global__ void zero_and_identity(std::size_t n, double* __restrict__ dense, double* __restrict__ inverse) {
    ADIMG_GRID_STRIDE(e, n * n) {
        dense[e] = 0.0;
        inverse[e] = e % (n + 1) == 0 ? 1.0 : 0.0;
    }
}

/// Entry (p, q) of row p goes to dense[q * n + p]: column-major A.
__global__ void place_entries(const double* __restrict__ bands, int mx, int my, double* __restrict__ dense) {
    const std::size_t n = static_cast<std::size_t>(mx) * my;
    ADIMG_GRID_STRIDE(p, n) {
        const int i = static_cast<int>(p % mx), j = static_cast<int>(p / mx);
        for (int k = 0; k < 9; ++k) {
            const int qi = i + band_dx(k), qj = j + band_dy(k);
            const double a = bands[k * n + p];
            if (qi >= 0 && qi < mx && qj >= 0 && qj < my && a != 0.0)
                dense[(static_cast<std::size_t>(qj) * mx + qi) * n + p] = a;
        }
    }
}

}  // namespace

DenseInverse::DenseInverse(cudaStream_t stream) : stream_(stream) {
    check(cusolverDnCreate(&handle_), "cusolverDnCreate");
    check(cusolverDnSetStream(handle_, stream_), "cusolverDnSetStream");
    info_ = DeviceVector<int>(1);
}

DenseInverse::~DenseInverse() { cusolverDnDestroy(handle_); }

void DenseInverse::invert(const NineBands<double>& A, DeviceVector<double>& inverse) {
    const int n = static_cast<int>(A.rows());
    if (bands_.size() != A.values.size()) bands_ = DeviceVector<double>(A.values.size(), Uninitialised{});
    if (dense_.size() != inverse.size()) dense_ = DeviceVector<double>(inverse.size(), Uninitialised{});
    ADIMG_CUDA_CHECK(cudaMemcpyAsync(bands_.data(), A.values.data(), A.values.size() * sizeof(double),
                                     cudaMemcpyHostToDevice, stream_));
    auto fill = [&] {
        zero_and_identity<<<1024, 256, 0, stream_>>>(A.rows(), dense_.data(), inverse.data());
        ADIMG_CUDA_CHECK_LAUNCH("zero_and_identity kernel");
        place_entries<<<(n + 255) / 256, 256, 0, stream_>>>(bands_.data(), A.mx, A.my, dense_.data());
        ADIMG_CUDA_CHECK_LAUNCH("place_entries kernel");
    };
    auto info = [&] {
        int value = 0;
        ADIMG_CUDA_CHECK(cudaMemcpyAsync(&value, info_.data(), sizeof(int), cudaMemcpyDeviceToHost, stream_));
        ADIMG_CUDA_CHECK(cudaStreamSynchronize(stream_));
        return value;
    };
    auto reserve = [&](int doubles) {
        if (workspace_.size() < static_cast<std::size_t>(doubles)) workspace_ = DeviceVector<double>(doubles, Uninitialised{});
    };
    fill();
    if (nearly_symmetric(A)) {
        int lwork = 0;
        check(cusolverDnDpotrf_bufferSize(handle_, CUBLAS_FILL_MODE_LOWER, n, dense_.data(), n, &lwork), "potrf_bufferSize");
        reserve(lwork);
        check(cusolverDnDpotrf(handle_, CUBLAS_FILL_MODE_LOWER, n, dense_.data(), n, workspace_.data(), lwork, info_.data()),
              "cusolverDnDpotrf");
        if (info() == 0) {
            // A^-1 is symmetric: column-major is row-major.
            check(cusolverDnDpotrs(handle_, CUBLAS_FILL_MODE_LOWER, n, n, dense_.data(), n, inverse.data(), n, info_.data()),
                  "cusolverDnDpotrs");
            if (info() == 0) return;
        }
        fill();  // not positive definite: LU below
    }
    int lwork = 0;
    check(cusolverDnDgetrf_bufferSize(handle_, n, n, dense_.data(), n, &lwork), "getrf_bufferSize");
    reserve(lwork);
    if (pivots_.size() != static_cast<std::size_t>(n)) pivots_ = DeviceVector<int>(n, Uninitialised{});
    check(cusolverDnDgetrf(handle_, n, n, dense_.data(), n, workspace_.data(), pivots_.data(), info_.data()),
          "cusolverDnDgetrf");
    if (info() != 0)
        throw input_error("the coarsest grid's matrix (" + std::to_string(A.mx) + "x" + std::to_string(A.my) +
                          " nodes) is singular, so it has no direct solve: check the matrix (every node needs a "
                          "nonzero diagonal and Dirichlet rows need their identity), or use "
                          "SolverOptions::coarse_solver = pcg");
    // Solving with the transpose gives (A^T)^-1 = (A^-1)^T in column-major order: A^-1 row-major.
    check(cusolverDnDgetrs(handle_, CUBLAS_OP_T, n, n, dense_.data(), n, pivots_.data(), inverse.data(), n, info_.data()),
          "cusolverDnDgetrs");
    ADIMG_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

}  // namespace adimg
