#pragma once
// The GPU ranks' kernels for what the CUDA backend has no entry point for on a strip (storage
// row r + 1 is grid row first + r): the grid transfers with the strip's row offset, and the
// rank's part of the y-lines. Each thread runs a formula of strip_formulas.hpp, the same that the
// CPU ranks' loops run (cpu_rank.hpp).

#include "../cuda/kernels/launch.cuh"
#include "strip_formulas.hpp"

#include <cuda_pipeline.h>

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

/// The most chunks a rank's part of a y-line is cut into (CudaRank::chunks_of), so that a line's
/// reduced system (two equations a chunk) fits the shared memory of the kernels below.
constexpr int max_chunks = 64;

/// Lines a block of y_line_reduce and y_line_fill takes: 128 bytes of each reduced row, so that
/// the block's three arrays of 2 max_chunks rows fill 48 KiB of shared memory.
template <class T>
constexpr int lines_per_block = 128 / static_cast<int>(sizeof(T));

/// The grid of y_line_reduce and y_line_fill for n lines: a block per lines_per_block of them.
template <class T>
inline dim3 line_groups(int n) {
    return dim3(static_cast<unsigned>((n + lines_per_block<T> - 1) / lines_per_block<T>));
}

/// The block's lines (first .. first + lines_per_block - 1, those below mx) of the rows 0 ..
/// rows - 1 of a reduced array, from device memory (q * mx + i) into shared memory
/// (q * lines_per_block + l) by cp.async, all in flight at once (load_lines_wait() waits for
/// them), or back: a row's lines are consecutive words, so the copies coalesce.
template <class T>
__device__ void load_lines(const T* device, T* shared, int mx, int rows, int first) {
    constexpr int lines = lines_per_block<T>;
    for (int t = threadIdx.x; t < rows * lines; t += blockDim.x)
        if (first + t % lines < mx)
            __pipeline_memcpy_async(shared + t, device + static_cast<std::size_t>(t / lines) * mx + first + t % lines,
                                    sizeof(T));
}
__device__ inline void load_lines_wait() {
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
}
template <class T>
__device__ void store_lines(const T* shared, T* device, int mx, int rows, int first) {
    constexpr int lines = lines_per_block<T>;
    for (int t = threadIdx.x; t < rows * lines; t += blockDim.x)
        if (first + t % lines < mx) device[static_cast<std::size_t>(t / lines) * mx + first + t % lines] = shared[t];
}

/// A block per lines_per_block y-lines: their reduced equations staged in shared memory, each
/// line eliminated there by one thread (a sequential walk whose every step would otherwise wait
/// on device memory), its coupling equations into ends and the eliminated equations back.
template <class T>
__global__ void y_line_reduce(T* ra, T* rc, T* rv, int mx, int chunks, T* ends) {
    kernels::follow_previous_kernel();
    constexpr int lines = lines_per_block<T>, words = 2 * max_chunks * lines;
    __shared__ T shared[3 * words];
    const int rows = 2 * chunks, first = blockIdx.x * lines, l = threadIdx.x;
    T* const arrays[3] = {ra, rc, rv};
    for (int k = 0; k < 3; ++k) load_lines<T>(arrays[k], shared + k * words, mx, rows, first);
    load_lines_wait();
    if (l < lines && first + l < mx)
        adimg::y_line_reduce(shared, shared + words, shared + 2 * words, lines, chunks, l,
                             ends + static_cast<std::size_t>(y_line_end_words) * first);
    __syncthreads();
    for (int k = 0; k < 3; ++k) store_lines(shared + k * words, arrays[k], mx, rows, first);
}

/// A block per lines_per_block y-lines: their reduced equations filled in from the solved ends
/// (solved[2 i], solved[2 i + 1]) in shared memory, as y_line_reduce eliminated them.
template <class T>
__global__ void y_line_fill(const T* ra, const T* rc, T* rv, int mx, int chunks, const T* __restrict__ solved) {
    kernels::follow_previous_kernel();
    constexpr int lines = lines_per_block<T>, words = 2 * max_chunks * lines;
    __shared__ T shared[3 * words];
    const int rows = 2 * chunks, first = blockIdx.x * lines, l = threadIdx.x;
    const T* const arrays[3] = {ra, rc, rv};
    for (int k = 0; k < 3; ++k) load_lines(arrays[k], shared + k * words, mx, rows, first);
    load_lines_wait();
    if (l < lines && first + l < mx)
        adimg::y_line_fill(shared, shared + words, shared + 2 * words, lines, chunks, l, solved[2 * (first + l)],
                           solved[2 * (first + l) + 1]);
    __syncthreads();
    store_lines(shared + 2 * words, rv, mx, rows, first);
}

/// One thread per chunk: filled in and relaxed into x_out; the first and last chunks' threads
/// also relax the halo rows next to them from the neighbours' ends (`beside`, y_halo_finish).
template <class T>
__global__ void y_chunk_finish(const T* a, const T* c, const T* v, const T* rv, const T* __restrict__ beside, int mx,
                               int m, int chunks, bool below, bool above, const T* __restrict__ x_in,
                               T* __restrict__ x_out, T omega) {
    kernels::follow_previous_kernel();
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= mx * chunks) return;
    const int i = t % mx, k = t / mx;
    adimg::y_chunk_finish(a, c, v, rv, mx, m, chunks, i, k, x_in, x_out, omega);
    if (k == 0 || k == chunks - 1)
        adimg::y_halo_finish(beside, mx, m, i, below && k == 0, above && k == chunks - 1, x_in, x_out, omega);
}

}  // namespace adimg::strip_kernels
