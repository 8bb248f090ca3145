#pragma once
// The mode lines of the distributed fast direct solver on GPU ranks: the formulas and chunks of
// strip_mode_lines.hpp (which the CPU ranks run in strip_lines.cpp), a thread a chunk and a thread
// a mode's reduced equations, the coupling equations of all modes in one all-gather through the
// rank's transport (CudaRank::solve_ppt_couplings: NCCL in device memory where it started).
// Everything stays on the device and on the rank's stream.

#include "../cuda/fast_direct_memory.cuh"
#include "../fast_direct/plan.hpp"
#include "cuda_rank.cuh"
#include "strip_kernels.cuh"
#include "strip_mode_lines.hpp"

namespace adimg {

namespace strip_kernels {

/// One thread per chunk (mode k = t % nt, chunk t / nt): eliminated from its equations.
static __global__ void mode_chunk_reduce(StripModeLines lines, const double* __restrict__ w, double* a, double* c, double* v,
                                  double* ra, double* rc, double* rv, int m, int chunks) {
    kernels::follow_previous_kernel();
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < lines.nt * chunks) adimg::mode_chunk_reduce(lines, w, a, c, v, ra, rc, rv, m, chunks, t % lines.nt, t / lines.nt);
}

/// One thread per chunk: filled in, into w.
static __global__ void mode_chunk_finish(const double* a, const double* c, const double* v, const double* rv, int nt, int m,
                                  int chunks, double* __restrict__ w) {
    kernels::follow_previous_kernel();
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < nt * chunks) adimg::mode_chunk_finish(a, c, v, rv, nt, m, chunks, t % nt, t / nt, w);
}

}  // namespace strip_kernels

class CudaStripLines {
public:
    /// The lines of `plan` (transformed axis x) on grid rows first_row .. first_row + rows - 1:
    /// the modes' coefficients and the pencil copied to the device.
    CudaStripLines(CudaRank& rank, Communicator& comm, const fast_direct::Plan& plan, int first_row, int rows)
        : rank_(rank),
          comm_(comm),
          alpha_(fast_direct::host_to_device(plan.alpha, stream())),
          beta_(fast_direct::host_to_device(plan.beta, stream())),
          m_diag_(fast_direct::host_to_device(plan.line.m_diag, stream())),
          m_off_(fast_direct::host_to_device(plan.line.m_off, stream())),
          k_diag_(fast_direct::host_to_device(plan.line.k_diag, stream())),
          k_off_(fast_direct::host_to_device(plan.line.k_off, stream())),
          lines_{{alpha_.data(), beta_.data(), m_diag_.data(), m_off_.data(), k_diag_.data(), k_off_.data(), plan.nl},
                 plan.nt,
                 first_row,
                 plan.l_first,
                 plan.singular},
          rows_(rows),
          chunks_(mode_line_chunks(rows)) {}

    /// Solves every mode's line in place on the device: w holds this rank's rows of all modes,
    /// mode k of row r at r * nt + k. Collective.
    void solve(double* w) {
        const int nt = lines_.nt, m = rows_, chunks = chunks_;
        auto& p = rank_.line_parts<double>(nt, m, chunks);
        Launcher& launch = rank_.local().launcher();
        launch("mode_chunk_reduce kernel", strip_kernels::mode_chunk_reduce, blocks(nt * chunks),
               strip_kernels::line_threads, 0, lines_, static_cast<const double*>(w), p.a.data(), p.c.data(),
               p.v.data(), p.ra.data(), p.rc.data(), p.rv.data(), m, chunks);
        launch("y_line_reduce kernel", strip_kernels::y_line_reduce<double>, blocks(nt), strip_kernels::line_threads, 0,
               p.ra.data(), p.rc.data(), p.rv.data(), nt, chunks, p.ends.data());
        rank_.solve_ppt_couplings(comm_, nt, p);
        launch("y_line_fill kernel", strip_kernels::y_line_fill<double>, blocks(nt), strip_kernels::line_threads, 0,
               static_cast<const double*>(p.ra.data()), static_cast<const double*>(p.rc.data()), p.rv.data(), nt, chunks,
               static_cast<const double*>(p.solved.data()));
        launch("mode_chunk_finish kernel", strip_kernels::mode_chunk_finish, blocks(nt * chunks),
               strip_kernels::line_threads, 0, static_cast<const double*>(p.a.data()),
               static_cast<const double*>(p.c.data()), static_cast<const double*>(p.v.data()),
               static_cast<const double*>(p.rv.data()), nt, m, chunks, w);
    }

private:
    cudaStream_t stream() const { return rank_.local().stream(); }
    static dim3 blocks(int threads) {
        return dim3((threads + strip_kernels::line_threads - 1) / strip_kernels::line_threads);
    }

    CudaRank& rank_;
    Communicator& comm_;
    DeviceVector<double> alpha_, beta_, m_diag_, m_off_, k_diag_, k_off_;
    StripModeLines lines_;  ///< reads the arrays above
    int rows_, chunks_;
};

}  // namespace adimg
