#pragma once
// RightHandSideMap (grid.hpp) on vectors in device memory: the lift of eliminated couplings, the
// scaling of Dirichlet rows, the Dirichlet values of x and the sums for the removal of a mean.

#include "compensated_block_sum.cuh"
#include "launch.cuh"

#include <cstddef>

namespace adimg::kernels {

/// An eliminated coupling (EliminatedCoupling): b[row] -= value * (b[column] / diagonal).
struct Lift {
    unsigned long long row, column;
    double value, diagonal;
};

/// The lifts of one row each thread, in the order of the list (sorted by row, as on the host):
/// rows r of `starts` own lifts starts[r] .. starts[r + 1] - 1. Columns are Dirichlet rows, which
/// no lift changes.
__global__ void lift_rows(const Lift* lifts, const unsigned int* starts, unsigned int rows, double* b) {
    follow_previous_kernel();
    ADIMG_GRID_STRIDE(r, rows) {
        double value = b[lifts[starts[r]].row];
        for (unsigned int e = starts[r]; e < starts[r + 1]; ++e) value -= lifts[e].value * (b[lifts[e].column] / lifts[e].diagonal);
        b[lifts[starts[r]].row] = value;
    }
}

/// b[rows[e]] /= diagonals[e]: Dirichlet rows scaled to the identity.
__global__ void scale_rows(const unsigned long long* rows, const double* diagonals, std::size_t count, double* b) {
    follow_previous_kernel();
    ADIMG_GRID_STRIDE(e, count) b[rows[e]] /= diagonals[e];
}

/// x[rows[e]] = b[rows[e]]: the identity rows' exact solution.
__global__ void set_rows(const unsigned long long* rows, std::size_t count, const double* b, double* x) {
    follow_previous_kernel();
    ADIMG_GRID_STRIDE(e, count) x[rows[e]] = b[rows[e]];
}

/// x[p] -= *mean.
__global__ void subtract_mean(const double* mean, double* x, std::size_t n) {
    follow_previous_kernel();
    const double m = *mean;
    ADIMG_GRID_STRIDE(p, n) x[p] -= m;
}

/// Threads of the blocks that sum a vector.
inline constexpr int sum_threads = 256;

/// The compensated sums of x, |x| and x^2: each block's into parts[3 * block ..], its threads added
/// in a fixed order (the same bits every run).
__global__ void vector_sums(const double* x, std::size_t n, CompensatedSum* parts) {
    follow_previous_kernel();
    __shared__ CompensatedSum shared[sum_threads];
    CompensatedSum mine[3];
    ADIMG_GRID_STRIDE(p, n) {
        mine[0].add(x[p]);
        mine[1].add(fabs(x[p]));
        mine[2].add(x[p] * x[p]);
    }
    for (int s = 0; s < 3; ++s) {
        const CompensatedSum total = block_compensated_sum(mine[s], shared);
        if (threadIdx.x == 0) parts[3 * blockIdx.x + s] = total;
    }
}

/// The block parts of vector_sums into sums[0..2] (one block of 3 threads), and mean = sum / n.
__global__ void vector_sums_total(const CompensatedSum* parts, int blocks, std::size_t n, double* sums, double* mean) {
    follow_previous_kernel();
    const int s = threadIdx.x;
    CompensatedSum total;
    for (int b = 0; b < blocks; ++b) add_part(total, parts[3 * b + s]);
    sums[s] = total.value();
    if (s == 0) *mean = total.value() / static_cast<double>(n);
}

}  // namespace adimg::kernels
