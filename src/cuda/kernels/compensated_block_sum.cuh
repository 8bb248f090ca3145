#pragma once
// The compensated sums of the reductions that check a user's data on the device
// (matrix_checks.cuh, rhs_map.cuh): the threads' parts of a block, and then the blocks' parts,
// added in a fixed order, so that a check finds the same bits from run to run.

#include "../../solver/compensated_sum.hpp"

namespace adimg::kernels {

/// total += part: its sum, then its correction.
__device__ __forceinline__ void add_part(CompensatedSum& total, const CompensatedSum& part) {
    total.add(part.sum);
    total.add(part.correction);
}

/// The parts of the warp's 32 lanes added by a fixed tree (lane l takes lane l + 16, then l + 8,
/// ...); valid in lane 0. Every lane of the warp calls it.
__device__ __forceinline__ CompensatedSum warp_compensated_sum(CompensatedSum mine) {
    for (int offset = 16; offset > 0; offset /= 2) {
        const CompensatedSum other{__shfl_down_sync(0xffffffffu, mine.sum, offset),
                                   __shfl_down_sync(0xffffffffu, mine.correction, offset)};
        add_part(mine, other);
    }
    return mine;
}

/// The parts of the block's threads added by thread 0 in thread order; valid in thread 0. Every
/// thread of the block calls it; `shared` is shared memory of blockDim.x sums, free again when it
/// returns.
__device__ __forceinline__ CompensatedSum block_compensated_sum(const CompensatedSum& mine, CompensatedSum* shared) {
    shared[threadIdx.x] = mine;
    __syncthreads();
    CompensatedSum total;
    if (threadIdx.x == 0)
        for (unsigned int t = 0; t < blockDim.x; ++t) add_part(total, shared[t]);
    __syncthreads();
    return total;
}

}  // namespace adimg::kernels
