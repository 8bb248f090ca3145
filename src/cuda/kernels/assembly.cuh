#pragma once
// What setup assembles on the device: the built-in problems' matrices and load vectors from the
// element widths, and the Galerkin products of a user's matrix, each by the formula the host
// uses (q1_element.hpp, galerkin_row.hpp), row by row.

#include "launch.cuh"
#include "stencil.cuh"

#include "../../problems/q1_element.hpp"
#include "../../solver/galerkin_row.hpp"

#include <adimg/problems.hpp>

#include <cstddef>

namespace adimg::kernels {

// The assembly kernels fill rows first_row .. first_row + rows - 1 of an mx x my grid (the whole
// grid, or a rank's strip of it): grid row first_row + r goes to row r of `values` or `b`, whose
// bands are band_stride values apart.

template <class T>
__global__ void assemble_stiffness(const double* __restrict__ hx, const double* __restrict__ hy, int mx, int my,
                                   int first_row, int rows, std::size_t band_stride, T* __restrict__ values) {
    follow_previous_kernel();
    const int i = blockIdx.x * tile_x + threadIdx.x, r = blockIdx.y * tile_y + threadIdx.y;
    if (i >= mx || r >= rows) return;
    double band[9];
    q1_stiffness_row(hx, hy, mx, my, i, first_row + r, band);
    const std::size_t p = static_cast<std::size_t>(r) * mx + i;
    for (int k = 0; k < 9; ++k) values[k * band_stride + p] = T(band[k]);
}

template <class T>
__global__ void assemble_load(const double* __restrict__ hx, const double* __restrict__ hy, EndDistances dx,
                              EndDistances dy, int mx, int my, int first_row, int rows, PolynomialProblem problem,
                              T* __restrict__ b) {
    follow_previous_kernel();
    const int i = blockIdx.x * tile_x + threadIdx.x, r = blockIdx.y * tile_y + threadIdx.y;
    if (i >= mx || r >= rows) return;
    auto f = [&](double x, double xr, double y, double yr) { return problem.f(x, xr, y, yr); };
    b[static_cast<std::size_t>(r) * mx + i] = T(q1_load(hx, hy, dx, dy, mx, my, i, first_row + r, f));
}

/// coarse = R fine P, one coarse row per thread (galerkin_row.hpp), stored in precision T; P
/// with the fine grid's natural edges.
template <class T>
__global__ void galerkin_coarse(const double* __restrict__ fine, int mx, int my, const double* __restrict__ split_x,
                                const double* __restrict__ split_y, NaturalEdges natural, T* __restrict__ coarse) {
    follow_previous_kernel();
    const int mxc = x_axis(mx, natural).coarse, myc = y_axis(my, natural).coarse;
    const int I = blockIdx.x * tile_x + threadIdx.x, J = blockIdx.y * tile_y + threadIdx.y;
    if (I >= mxc || J >= myc) return;
    double row[9];
    galerkin_row(fine, mx, my, split_x, split_y, natural, I, J, row);
    const std::size_t nc = static_cast<std::size_t>(mxc) * myc, P = static_cast<std::size_t>(J) * mxc + I;
    for (int k = 0; k < 9; ++k) coarse[k * nc + P] = T(row[k]);
}

/// One element's L2Parts (q1_element.hpp), for a transform-reduce over the elements.
template <class T>
struct ElementL2Parts {
    const double *hx, *hy;
    EndDistances dx, dy;
    int mx, elements_x;
    const T* u;     ///< the nodal values from grid row first_row on
    int first_row;  ///< the first row of elements (their rows from first_row on)
    PolynomialProblem problem;

    __device__ double2 operator()(long long e) const {
        const int ei = static_cast<int>(e % elements_x), ej = first_row + static_cast<int>(e / elements_x);
        const L2Parts parts = q1_error_parts(hx, hy, dx, dy, mx, ei, ej, u, problem, first_row);
        return make_double2(parts.error, parts.norm);
    }
};

struct AddPairs {
    __device__ double2 operator()(double2 a, double2 b) const { return make_double2(a.x + b.x, a.y + b.y); }
};

}  // namespace adimg::kernels
