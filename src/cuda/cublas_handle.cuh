#pragma once
// A cuBLAS handle on a stream for the fast direct solver's eigenvector products (cuBLAS loaded
// when first needed, cuda_libraries.cuh), its calls checked: the one-GPU engine's
// (fast_direct.cu) and the GPU ranks' (src/distributed/cuda_strip_fast_direct.cu).

#include "cuda_libraries.cuh"

#include <adimg/error.hpp>

#include <cuda_runtime.h>

#include <string>

namespace adimg::fast_direct {

class CublasHandle {
public:
    explicit CublasHandle(cudaStream_t stream) : library_(cuda_libraries::cublas()) {
        check(library_.create(&handle_), "cublasCreate");
        check(library_.set_stream(handle_, stream), "cublasSetStream");
    }
    ~CublasHandle() { library_.destroy(handle_); }
    CublasHandle(const CublasHandle&) = delete;
    CublasHandle& operator=(const CublasHandle&) = delete;

    /// C = op_a(A) op_b(B), column-major, C m x n and the inner dimension k (cublasDgemm with
    /// alpha 1 and beta 0).
    void gemm(cublasOperation_t op_a, cublasOperation_t op_b, int m, int n, int k, const double* A, int lda,
              const double* B, int ldb, double* C, int ldc) const {
        const double one = 1.0, zero = 0.0;
        check(library_.dgemm(handle_, op_a, op_b, m, n, k, &one, A, lda, B, ldb, &zero, C, ldc), "cublasDgemm");
    }

private:
    void check(cublasStatus_t status, const char* call) const {
        if (status != CUBLAS_STATUS_SUCCESS)
            throw device_error(std::string(call) + " failed: " + library_.status_string(status));
    }

    const cuda_libraries::Cublas& library_;
    cublasHandle_t handle_ = nullptr;
};

}  // namespace adimg::fast_direct
