#pragma once
// The coarsest grid's dense inverse from its sparse LDL^T factor (src/solver/ldlt_inverse.hpp):
// all columns in one launch, one warp per column, and the projection of a pure Neumann matrix's
// inverse. The arithmetic is the host's, rounded step by step, so the result is CoarseFactor's
// inverse() bit for bit.

#include "../../solver/ldlt_inverse.hpp"
#include "launch.cuh"

namespace adimg::kernels {

/// Columns (warps) per block of ldlt_inverse_columns.
inline constexpr int inverse_columns_per_block = 4;

/// The lanes of a warp as ldlt_unit_solve() takes them.
struct WarpLanes {
    int lane, lanes;
    __device__ void sync() const { __syncwarp(); }
    __device__ double broadcast(double v, int l) const { return __shfl_sync(0xffffffffu, v, l); }
};

/// Shared memory of ldlt_inverse_columns for n unknowns: the factor's column starts and
/// permutation, then each warp's column.
inline std::size_t inverse_columns_shared_bytes(int n) {
    const std::size_t indices = (2 * static_cast<std::size_t>(n) + 1) * sizeof(int);
    return (indices + sizeof(double) - 1) / sizeof(double) * sizeof(double) +
           inverse_columns_per_block * static_cast<std::size_t>(n) * sizeof(double);
}

/// Row c of `inverse` (row-major n x n) = A^-1 e_c for each column c, warp w of block b solving
/// c = b * inverse_columns_per_block + w in shared memory (the column starts and the permutation,
/// read at every step, staged there too). *not_finite is set if an entry is not finite. With
/// `row_means` (a pure Neumann matrix's pinned inverse S) the entry S_00 is set to zero after that
/// check and row_means[c] is the mean of row c (the projection's r_c).
static __global__ void ldlt_inverse_columns(LdltArrays f, double* inverse, double* row_means, int* not_finite) {
    follow_previous_kernel();
    extern __shared__ double shared[];
    int* starts = reinterpret_cast<int*>(shared);
    int* permutation = starts + f.n + 1;
    for (int i = threadIdx.x; i <= f.n; i += blockDim.x) starts[i] = f.starts[i];
    for (int i = threadIdx.x; i < f.n; i += blockDim.x) permutation[i] = f.permutation[i];
    __syncthreads();
    const int warp = threadIdx.x / 32, c = blockIdx.x * inverse_columns_per_block + warp;
    if (c >= f.n) return;
    const std::size_t indices = (2 * static_cast<std::size_t>(f.n) + 1) * sizeof(int);
    double* x = shared + (indices + sizeof(double) - 1) / sizeof(double) + static_cast<std::size_t>(warp) * f.n;
    LdltArrays staged = f;
    staged.starts = starts;
    staged.permutation = permutation;
    const WarpLanes lanes{static_cast<int>(threadIdx.x % 32), 32};
    double* row = inverse + static_cast<std::size_t>(c) * f.n;
    bool finite = true;
    ldlt_unit_solve(staged, c, x, lanes, [&](int k, double v) {
        finite = finite && isfinite(v);
        row[k] = row_means && c == 0 && k == 0 ? 0.0 : v;
    });
    if (!__all_sync(0xffffffffu, finite) && lanes.lane == 0) *not_finite = 1;
    if (row_means && lanes.lane == 0)
        row_means[c] = mean_in_order([&](int k) { return c == 0 && k == 0 ? 0.0 : x[permutation[k]]; }, f.n);
}

/// The projection's column means c_j of S (thread j) and the mean m of the row means (thread n).
static __global__ void pinned_means(const double* S, int n, const double* row_means, double* column_means, double* mean) {
    follow_previous_kernel();
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < n)
        column_means[j] = mean_in_order([&](int i) { return S[static_cast<std::size_t>(i) * n + j]; }, n);
    else if (j == n)
        *mean = mean_in_order([&](int i) { return row_means[i]; }, n);
}

/// S = Π S Π from the means (ldlt_inverse.hpp).
static __global__ void project_pinned(double* S, int n, const double* row_means, const double* column_means,
                                      const double* mean) {
    follow_previous_kernel();
    const double m = *mean;
    ADIMG_GRID_STRIDE(e, static_cast<std::size_t>(n) * n) {
        const std::size_t i = e / n, j = e % n;
        S[e] = projected_entry(S[e], row_means[i], column_means[j], m);
    }
}

}  // namespace adimg::kernels
