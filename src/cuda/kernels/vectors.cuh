#pragma once
// Vector operations and the deterministic reductions of the CUDA backend (grid-stride loops).

#include "launch.cuh"

#include "../../solver/scalar_ratio.hpp"

#include <cstddef>

namespace adimg::kernels {

template <class T>
__global__ void fill(T* v, std::size_t n, T value) {
    follow_previous_kernel();
    ADIMG_GRID_STRIDE(p, n) v[p] = value;
}
template <class T>
__global__ void copy(const T* __restrict__ src, T* __restrict__ dst, std::size_t n) {
    follow_previous_kernel();
    ADIMG_GRID_STRIDE(p, n) dst[p] = src[p];
}
template <class S, class T>
__global__ void axpy(double alpha, const S* __restrict__ x, T* __restrict__ y, std::size_t n) {
    follow_previous_kernel();
    ADIMG_GRID_STRIDE(p, n) y[p] = T(y[p] + alpha * x[p]);
}
template <class T>
__global__ void xpay(const T* __restrict__ x, double beta, T* __restrict__ y, std::size_t n) {
    follow_previous_kernel();
    ADIMG_GRID_STRIDE(p, n) y[p] = T(x[p] + beta * y[p]);
}
template <class S, class T>
__global__ void scale_convert(double alpha, const S* __restrict__ src, T* __restrict__ dst, std::size_t n) {
    follow_previous_kernel();
    ADIMG_GRID_STRIDE(p, n) dst[p] = T(alpha * src[p]);
}

template <class T>
__global__ void axpy_ratio(const double* num, const double* den, double sign, const T* __restrict__ x, T* __restrict__ y,
                           std::size_t n) {
    follow_previous_kernel();
    const double alpha = sign * scalar_ratio(*num, 0.0, *den);
    ADIMG_GRID_STRIDE(p, n) y[p] = T(y[p] + alpha * x[p]);
}
template <class T>
__global__ void xpay_ratio(const T* __restrict__ x, const double* num, const double* num_minus, const double* den,
                           T* __restrict__ y, std::size_t n) {
    follow_previous_kernel();
    const double beta = scalar_ratio(*num, *num_minus, *den);
    ADIMG_GRID_STRIDE(p, n) y[p] = T(x[p] + beta * y[p]);
}

/// x = M b for the dense row-major n x n matrix M in double (the coarsest grid's inverse): one
/// warp per row, so each row is read coalesced, and the sum is accumulated in double.
constexpr int dense_rows_per_block = 8;
template <class T>
__global__ void dense_apply(const double* __restrict__ M, const T* __restrict__ b, T* __restrict__ x, int n, int columns) {
    follow_previous_kernel();
    const ColumnBlock block = column_block(columns);
    b += static_cast<std::size_t>(block.column) * n;
    x += static_cast<std::size_t>(block.column) * n;
    const int row = block.x * dense_rows_per_block + threadIdx.x / 32, lane = threadIdx.x % 32;
    if (row >= n) return;
    const double* m = M + static_cast<std::size_t>(row) * n;
    double sum = 0.0;
    for (int j = lane; j < n; j += 32) sum += m[j] * double(b[j]);
    for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
    if (lane == 0) x[row] = T(sum);
}

/// Deterministic dot product, first pass: one double partial sum per block.
constexpr int reduce_threads = 256;
template <class T>
__global__ void dot_partial(const T* __restrict__ x, const T* __restrict__ y, std::size_t n, double* partial) {
    follow_previous_kernel();
    __shared__ double sums[reduce_threads];
    double sum = 0.0;
    ADIMG_GRID_STRIDE(p, n) sum += double(x[p]) * double(y[p]);
    sum = block_sum(sum, sums, threadIdx.x, reduce_threads);
    if (threadIdx.x == 0) partial[blockIdx.x] = sum;
}
/// Second pass: one block adds the partial sums in a fixed order. Internal linkage, as every
/// kernel of these headers that is not a template, so that a program linking adimg as a shared
/// library (whose internal symbols are hidden) has its own copy.
static __global__ void dot_final(const double* partial, int count, double* result) {
    follow_previous_kernel();
    __shared__ double sums[1024];
    double sum = 0.0;
    for (int i = threadIdx.x; i < count; i += blockDim.x) sum += partial[i];
    sum = block_sum(sum, sums, threadIdx.x, blockDim.x);
    if (threadIdx.x == 0) *result = sum;
}

// The scaled norm, for the vectors whose plain sum of squares overflows or underflows
// (common/scaled_norm.hpp): the largest |x_p|, then the sum of (x_p / largest)^2. Both passes
// are deterministic: a maximum does not depend on the order, the sum runs in the fixed order of
// dot_partial and dot_final.

/// The largest |x_p| per block (the input is free of NaN: its plain sum was not NaN). Run on the
/// partial maxima with one block, it gives the maximum of the whole vector in partial[0].
template <class T>
__global__ void max_abs_partial(const T* __restrict__ x, std::size_t n, double* partial) {
    follow_previous_kernel();
    __shared__ double largest[reduce_threads];
    double m = 0.0;
    ADIMG_GRID_STRIDE(p, n) m = fmax(m, fabs(double(x[p])));
    const int t = threadIdx.x;
    largest[t] = m;
    __syncthreads();
    for (int s = reduce_threads / 2; s > 0; s /= 2) {
        if (t < s) largest[t] = fmax(largest[t], largest[t + s]);
        __syncthreads();
    }
    if (t == 0) partial[blockIdx.x] = largest[0];
}
/// Partial sums of (x_p / scale)^2, one per block, for dot_final.
template <class T>
__global__ void scaled_square_partial(const T* __restrict__ x, std::size_t n, double scale, double* partial) {
    follow_previous_kernel();
    __shared__ double sums[reduce_threads];
    double sum = 0.0;
    ADIMG_GRID_STRIDE(p, n) {
        const double r = double(x[p]) / scale;
        sum += r * r;
    }
    sum = block_sum(sum, sums, threadIdx.x, reduce_threads);
    if (threadIdx.x == 0) partial[blockIdx.x] = sum;
}

}  // namespace adimg::kernels
