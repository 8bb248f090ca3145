#pragma once
// The built-in problems' matrices assembled on the device, row by row, from the element widths:
// the same formula, in the same order and rounding, as the host assembly (q1_element.hpp).

#include "launch.cuh"
#include "stencil.cuh"

#include "../../problems/q1_element.hpp"

#include <cstddef>

namespace adimg::kernels {

template <class T>
__global__ void assemble_stiffness(const double* __restrict__ hx, const double* __restrict__ hy, int mx, int my,
                                   T* __restrict__ values) {
    follow_previous_kernel();
    const int i = blockIdx.x * tile_x + threadIdx.x, j = blockIdx.y * tile_y + threadIdx.y;
    if (i >= mx || j >= my) return;
    double band[9];
    q1_stiffness_row(hx, hy, mx, my, i, j, band);
    const std::size_t n = static_cast<std::size_t>(mx) * my, p = static_cast<std::size_t>(j) * mx + i;
    for (int k = 0; k < 9; ++k) values[k * n + p] = T(band[k]);
}

}  // namespace adimg::kernels
