#pragma once
// Grids transposed in tiles, so that y-lines become x-lines whose loads coalesce.

#include "launch.cuh"

#include "stencil.cuh"

#include <cstddef>

namespace adimg::kernels {

/// Arrays transposed by one launch of `transpose`, blockIdx.z picking the pair: the two inputs
/// of a y-sweep together (one dependent launch less per sweep), or the nine bands.
constexpr int max_transposed_arrays = 9;
template <class T>
struct TransposePairs {
    const T* in[max_transposed_arrays];
    T* out[max_transposed_arrays];
};

/// out (cols x rows, row-major) = in (rows x cols, row-major) transposed, through a 32 x 33 tile
/// (the extra column keeps the column reads of the tile free of bank conflicts).
template <class T>
__global__ void transpose(const __grid_constant__ TransposePairs<T> pairs, int rows, int cols) {
    follow_previous_kernel();
    __shared__ T tile[tile_x][tile_x + 1];
    const T* __restrict__ in = pairs.in[blockIdx.z];
    T* __restrict__ out = pairs.out[blockIdx.z];
    const int c = blockIdx.x * tile_x + threadIdx.x;
    for (int r = blockIdx.y * tile_x + threadIdx.y, k = threadIdx.y; k < tile_x; r += tile_y, k += tile_y)
        if (r < rows && c < cols) tile[k][threadIdx.x] = in[static_cast<std::size_t>(r) * cols + c];
    __syncthreads();
    const int r_out = blockIdx.y * tile_x + threadIdx.x;  // a column of `in` becomes a row of `out`
    for (int c_out = blockIdx.x * tile_x + threadIdx.y, k = threadIdx.y; k < tile_x; c_out += tile_y, k += tile_y)
        if (c_out < cols && r_out < rows) out[static_cast<std::size_t>(c_out) * rows + r_out] = tile[threadIdx.x][k];
}

}  // namespace adimg::kernels
