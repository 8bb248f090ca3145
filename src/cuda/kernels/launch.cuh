#pragma once
// What every kernel of the CUDA backend starts with, the deterministic block sum of its
// reductions, and the grids of its grid-stride loops.

#include <algorithm>
#include <cstddef>

namespace adimg::kernels {

/// Programmatic dependent launch (Hopper): the backend launches every kernel so that it may be
/// scheduled while the previous kernel of the stream still runs, which hides most of the few
/// microseconds between two dependent launches (the coarse levels of a V-cycle are little else).
/// Every kernel therefore starts here: it waits until the previous kernel has finished and its
/// writes are visible, then lets the next kernel be scheduled in turn. Both are no-ops for a
/// plain launch and before sm_90.
__device__ __forceinline__ void follow_previous_kernel() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

/// Several right-hand sides ("columns", vectors of one grid side by side, column c at c n) in one
/// launch: the blocks of a kernel that reads the matrix come `columns` times, block x of column c
/// launched as block x columns + c, so that the blocks that read the same rows of the matrix run
/// at the same time and all but the first find those rows in L2. With one column this is
/// blockIdx.x.
struct ColumnBlock {
    int x;       ///< the block's index among its column's blocks
    int column;  ///< which right-hand side
};
__device__ __forceinline__ ColumnBlock column_block(int columns) {
    return {static_cast<int>(blockIdx.x) / columns, static_cast<int>(blockIdx.x) % columns};
}
/// Moves each vector pointer `offset` values on: to its column's vector.
template <class... P>
__device__ __forceinline__ void to_column(std::size_t offset, P&... vectors) {
    ((vectors += offset), ...);
}

/// The sum of `value` over the block's `threads` threads (a power of two), in a fixed order, so
/// that a reduction gives the same bits from run to run; valid in thread 0. `sums` is shared
/// memory of `threads` doubles.
__device__ __forceinline__ double block_sum(double value, double* sums, int t, int threads) {
    sums[t] = value;
    __syncthreads();
    for (int s = threads / 2; s > 0; s /= 2) {
        if (t < s) sums[t] += sums[t + s];
        __syncthreads();
    }
    return sums[0];
}

/// Blocks of 256 threads for a grid-stride loop over n items: one per 256 items, at least 1 and
/// at most `most` (fixed numbers, so that a reduction's block parts do not depend on the device).
inline int stride_blocks(std::size_t n, std::size_t most = 4096) {
    return static_cast<int>(std::clamp<std::size_t>((n + 255) / 256, 1, most));
}

/// A grid-stride loop over p < n: any grid covers any length.
#define ADIMG_GRID_STRIDE(p, n) \
    for (std::size_t p = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; p < (n); \
         p += static_cast<std::size_t>(blockDim.x) * gridDim.x)

}  // namespace adimg::kernels
