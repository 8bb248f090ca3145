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

template <class T>
__global__ void assemble_load(const double* __restrict__ hx, const double* __restrict__ hy, EndDistances dx,
                              EndDistances dy, int mx, int my, PolynomialProblem problem, T* __restrict__ b) {
    follow_previous_kernel();
    const int i = blockIdx.x * tile_x + threadIdx.x, j = blockIdx.y * tile_y + threadIdx.y;
    if (i >= mx || j >= my) return;
    auto f = [&](double x, double xr, double y, double yr) { return problem.f(x, xr, y, yr); };
    b[static_cast<std::size_t>(j) * mx + i] = T(q1_load(hx, hy, dx, dy, mx, my, i, j, f));
}

/// coarse = R fine P, one coarse row per thread (galerkin_row.hpp), stored in precision T; P
/// with the fine grid's natural edges.
template <class T>
__global__ void galerkin_coarse(const double* __restrict__ fine, int mx, int my, const double* __restrict__ split_x,
                                const double* __restrict__ split_y, NaturalEdges natural, T* __restrict__ coarse) {
    follow_previous_kernel();
    const int mxc = mx / 2 + 1, myc = my / 2 + 1;
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
    const T* u;
    PolynomialProblem problem;

    __device__ double2 operator()(long long e) const {
        const int ei = static_cast<int>(e % elements_x), ej = static_cast<int>(e / elements_x);
        const L2Parts parts = q1_error_parts(hx, hy, dx, dy, mx, ei, ej, u, problem);
        return make_double2(parts.error, parts.norm);
    }
};

struct AddPairs {
    __device__ double2 operator()(double2 a, double2 b) const { return make_double2(a.x + b.x, a.y + b.y); }
};

}  // namespace adimg::kernels
