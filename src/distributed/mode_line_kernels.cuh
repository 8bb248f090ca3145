#pragma once
// The fast direct solver's mode lines on the device with the modes side by side (mode k of line
// row r at r nt + k), each mode's part of m rows solved by the chunked partition method of
// strip_mode_lines.hpp: a thread a chunk, a thread a mode's reduced equations. The parts' coupling
// equations are solved by the caller: across the ranks on GPU ranks (cuda_strip_lines.cuh), or,
// on one GPU, where the part is the whole line (src/cuda/fast_direct_lines.cuh, for lines longer
// than a block's shared memory), the line's own two end equations.

#include "../cuda/device_memory.cuh"
#include "../cuda/fast_direct_memory.cuh"
#include "../cuda/kernels/launch.cuh"
#include "../cuda/launcher.cuh"
#include "../fast_direct/plan.hpp"
#include "strip_kernels.cuh"
#include "strip_mode_lines.hpp"

#include <cstddef>

namespace adimg {

namespace strip_kernels {

/// One thread per chunk (mode k = t % nt, chunk t / nt): eliminated from its equations.
static __global__ void mode_chunk_reduce(StripModeLines lines, const double* __restrict__ w, double* a, double* c,
                                         double* v, double* ra, double* rc, double* rv, int m, int chunks) {
    kernels::follow_previous_kernel();
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < lines.nt * chunks) adimg::mode_chunk_reduce(lines, w, a, c, v, ra, rc, rv, m, chunks, t % lines.nt, t / lines.nt);
}

/// One thread per chunk: filled in, into w.
static __global__ void mode_chunk_finish(const double* a, const double* c, const double* v, const double* rv, int nt,
                                         int m, int chunks, double* __restrict__ w) {
    kernels::follow_previous_kernel();
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < nt * chunks) adimg::mode_chunk_finish(a, c, v, rv, nt, m, chunks, t % nt, t / nt, w);
}

}  // namespace strip_kernels

/// The modes' coefficients and the pencil on the device, and the chunked solve of every mode's
/// part on line rows first_row .. first_row + rows - 1 (grid rows; plan.l_first and plan.nl for a
/// whole line of unknowns).
class ChunkedModeLines {
public:
    ChunkedModeLines(const fast_direct::Plan& plan, int first_row, int rows, cudaStream_t stream)
        : alpha_(fast_direct::host_to_device(plan.alpha, stream)),
          beta_(fast_direct::host_to_device(plan.beta, stream)),
          m_diag_(fast_direct::host_to_device(plan.line.m_diag, stream)),
          m_off_(fast_direct::host_to_device(plan.line.m_off, stream)),
          k_diag_(fast_direct::host_to_device(plan.line.k_diag, stream)),
          k_off_(fast_direct::host_to_device(plan.line.k_off, stream)),
          lines_{{alpha_.data(), beta_.data(), m_diag_.data(), m_off_.data(), k_diag_.data(), k_off_.data(), plan.nl},
                 plan.nt,
                 first_row,
                 plan.l_first,
                 plan.singular},
          rows_(rows),
          chunks_(mode_line_chunks(rows)) {}

    int modes() const { return lines_.nt; }
    int rows() const { return rows_; }
    int chunks() const { return chunks_; }

    /// Every mode's part solved in place on w: its chunks and reduced equations into `p` (device
    /// arrays a, c, v of rows() nt, ra, rc, rv of 2 chunks() nt, ends of y_line_end_words nt,
    /// solved of 2 nt), then couple(p) solves the parts' coupling equations (p.ends) into p.solved
    /// on the stream, then the parts are filled in.
    template <class Parts, class Couple>
    void solve(Launcher& launch, double* w, Parts& p, Couple&& couple) {
        const int nt = lines_.nt, m = rows_, chunks = chunks_;
        launch("mode_chunk_reduce kernel", strip_kernels::mode_chunk_reduce, blocks(nt * chunks),
               strip_kernels::line_threads, 0, lines_, static_cast<const double*>(w), p.a.data(), p.c.data(),
               p.v.data(), p.ra.data(), p.rc.data(), p.rv.data(), m, chunks);
        launch("y_line_reduce kernel", strip_kernels::y_line_reduce<double>, strip_kernels::line_groups<double>(nt),
               strip_kernels::line_threads, 0,
               p.ra.data(), p.rc.data(), p.rv.data(), nt, chunks, p.ends.data());
        couple(p);
        launch("y_line_fill kernel", strip_kernels::y_line_fill<double>, strip_kernels::line_groups<double>(nt),
               strip_kernels::line_threads, 0,
               static_cast<const double*>(p.ra.data()), static_cast<const double*>(p.rc.data()), p.rv.data(), nt, chunks,
               static_cast<const double*>(p.solved.data()));
        launch("mode_chunk_finish kernel", strip_kernels::mode_chunk_finish, blocks(nt * chunks),
               strip_kernels::line_threads, 0, static_cast<const double*>(p.a.data()),
               static_cast<const double*>(p.c.data()), static_cast<const double*>(p.v.data()),
               static_cast<const double*>(p.rv.data()), nt, m, chunks, w);
    }

    static dim3 blocks(int threads) {
        return dim3((threads + strip_kernels::line_threads - 1) / strip_kernels::line_threads);
    }

private:
    DeviceVector<double> alpha_, beta_, m_diag_, m_off_, k_diag_, k_off_;
    StripModeLines lines_;  ///< reads the arrays above
    int rows_, chunks_;
};

}  // namespace adimg
