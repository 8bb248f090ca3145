#pragma once
// The GPU ranks' kernels for what the CUDA backend has no entry point for on a strip (storage
// row r + 1 is grid row first + r): the grid transfers with the strip's row offset, and the
// rank's part of the y-lines. Each thread runs a formula of strip_formulas.hpp, the same that the
// CPU ranks' loops run (cpu_rank.hpp).

#include "../cuda/kernels/launch.cuh"
#include "strip_formulas.hpp"

#include <cstddef>

namespace adimg::strip_kernels {

/// Blocks of 2-D kernels (x fastest, one warp wide) and of the per-line kernels.
constexpr int tile_x = 32, tile_y = 8, line_threads = 128;

/// coarse row first + r, node I, of R fine, for the strip's coarse_rows owned rows.
template <class T>
__global__ void restrict_rows(const T* __restrict__ fine, int mx_fine, int my_fine, int fine_first,
                              const T* __restrict__ tx, const T* __restrict__ ty, T* __restrict__ coarse,
                              int coarse_first, int coarse_rows) {
    kernels::follow_previous_kernel();
    const int mxc = mx_fine / 2 + 1, myc = my_fine / 2 + 1;
    const int I = blockIdx.x * tile_x + threadIdx.x, r = blockIdx.y * tile_y + threadIdx.y;
    if (I >= mxc || r >= coarse_rows) return;
    coarse[static_cast<std::size_t>(r + 1) * mxc + I] =
        strip_restrict_value(fine, mx_fine, fine_first, mxc, myc, tx, ty, I, coarse_first + r);
}

/// fine += P coarse on the interior nodes of the fine strip's fine_rows owned rows.
template <class T>
__global__ void prolong_rows(const T* __restrict__ coarse, int coarse_first, const T* __restrict__ tx,
                             const T* __restrict__ ty, T* __restrict__ fine, int mx_fine, int my_fine, int fine_first,
                             int fine_rows) {
    kernels::follow_previous_kernel();
    const int i = blockIdx.x * tile_x + threadIdx.x, r = blockIdx.y * tile_y + threadIdx.y;
    const int j = fine_first + r;
    if (r >= fine_rows || i < 1 || i >= mx_fine - 1 || j == 0 || j == my_fine - 1) return;
    fine[static_cast<std::size_t>(r + 1) * mx_fine + i] +=
        strip_prolong_value(coarse, mx_fine / 2 + 1, coarse_first, tx, ty, i, j);
}

/// One thread per chunk (line i = t % mx, chunk k = t / mx): its equations made and eliminated,
/// its forward rows kept and its coupling equations into the reduced arrays.
template <class T>
__global__ void y_chunk_reduce(BandsView<T> A, const T* __restrict__ b, const T* __restrict__ x_in, T* a, T* c, T* v,
                               T* ra, T* rc, T* rv, int m, int chunks) {
    kernels::follow_previous_kernel();
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < A.mx * chunks) adimg::y_chunk_reduce(A, b, x_in, a, c, v, ra, rc, rv, m, chunks, t % A.mx, t / A.mx);
}

/// One thread per y-line: its reduced equations eliminated, its coupling equations into ends.
template <class T>
__global__ void y_line_reduce(T* ra, T* rc, T* rv, int mx, int chunks, T* ends) {
    kernels::follow_previous_kernel();
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < mx) adimg::y_line_reduce(ra, rc, rv, mx, chunks, i, ends);
}

/// One thread per y-line: its reduced equations filled in from its solved ends (solved[2 i],
/// solved[2 i + 1]).
template <class T>
__global__ void y_line_fill(const T* ra, const T* rc, T* rv, int mx, int chunks, const T* __restrict__ solved) {
    kernels::follow_previous_kernel();
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < mx) adimg::y_line_fill(ra, rc, rv, mx, chunks, i, solved[2 * i], solved[2 * i + 1]);
}

/// One thread per chunk: filled in and relaxed into x_out.
template <class T>
__global__ void y_chunk_finish(const T* a, const T* c, const T* v, const T* rv, int mx, int m, int chunks,
                               const T* __restrict__ x_in, T* __restrict__ x_out, T omega) {
    kernels::follow_previous_kernel();
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < mx * chunks) adimg::y_chunk_finish(a, c, v, rv, mx, m, chunks, t % mx, t / mx, x_in, x_out, omega);
}

}  // namespace adimg::strip_kernels
