#pragma once
// The GPU ranks' kernels for the y-lines' coupling equations across the ranks, a thread a line,
// each running a formula of coupling_formulas.hpp (the CPU ranks' loop runs the same).

#include "../cuda/kernels/launch.cuh"
#include "coupling_formulas.hpp"

#include <cstddef>

namespace adimg::coupling_kernels {

/// The most ranks whose coupling equations a thread solves by PPT (its scratch is 2 equations a
/// rank, in local memory); GPU ranks beyond it pass their messages by MPI (CudaRank says so).
constexpr int max_ppt_ranks = 64;

/// PPT for line i of mx: every rank's end equations (`all`, rank-major) solved, this rank's two
/// unknowns into solved[2 i], solved[2 i + 1], the neighbours' beside them into beside[2 i, 2 i + 1]
/// (none where beside is null).
template <class T>
__global__ void ppt_couplings(const T* __restrict__ all, int mx, int ranks, int rank, T* __restrict__ solved,
                              T* __restrict__ beside) {
    kernels::follow_previous_kernel();
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= mx) return;
    CrEquation<T> reduced[2 * max_ppt_ranks];
    ppt_line_ends(all, mx, ranks, rank, i, reduced, solved + 2 * static_cast<std::size_t>(i),
                  beside ? beside + 2 * static_cast<std::size_t>(i) : nullptr);
}

/// PDD for line i of mx: this rank's end equations with the neighbours' (nullptr at the grid's
/// edge); the neighbours' unknowns of the same systems into beside.
template <class T>
__global__ void pdd_couplings(const T* __restrict__ ends, const T* below, const T* above, int mx, T* __restrict__ solved,
                              T* __restrict__ beside) {
    kernels::follow_previous_kernel();
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= mx) return;
    const std::size_t at = static_cast<std::size_t>(y_line_end_words) * i;
    pdd_line_ends(ends + at, below ? below + at : nullptr, above ? above + at : nullptr,
                  solved + 2 * static_cast<std::size_t>(i), beside ? beside + 2 * static_cast<std::size_t>(i) : nullptr);
}

/// y_line_row_dominance<T> of the row at p, for a min-reduction over a strip's rows.
template <class T, class S>
struct RowDominance {
    BandsView<S> A;
    __device__ double operator()(std::size_t p) const { return y_line_row_dominance<T>(A, p); }
};

}  // namespace adimg::coupling_kernels
