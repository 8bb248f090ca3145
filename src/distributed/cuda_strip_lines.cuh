#pragma once
// The mode lines of the distributed fast direct solver on GPU ranks: each rank's rows of every
// mode's line by the chunked kernels of mode_line_kernels.cuh (the formulas and chunks that the
// CPU ranks run in strip_lines.cpp), the coupling equations of all modes in one all-gather through
// the rank's transport (CudaRank::solve_ppt_couplings: NCCL in device memory where it started).
// Everything stays on the device and on the rank's stream.

#include "../fast_direct/plan.hpp"
#include "cuda_rank.cuh"
#include "mode_line_kernels.cuh"

namespace adimg {

class CudaStripLines {
public:
    /// The lines of `plan` (transformed axis x) on grid rows first_row .. first_row + rows - 1.
    CudaStripLines(CudaRank& rank, Communicator& comm, const fast_direct::Plan& plan, int first_row, int rows)
        : rank_(rank), comm_(comm), lines_(plan, first_row, rows, rank.local().stream()) {}

    /// Solves every mode's line in place on the device: w holds this rank's rows of all modes,
    /// mode k of row r at r * nt + k. Collective.
    void solve(double* w) {
        auto& parts = rank_.line_parts<double>(lines_.modes(), lines_.rows(), lines_.chunks());
        lines_.solve(rank_.local().launcher(), w, parts,
                     [&](auto& p) { rank_.solve_ppt_couplings(comm_, lines_.modes(), p); });
    }

private:
    CudaRank& rank_;
    Communicator& comm_;
    ChunkedModeLines lines_;
};

}  // namespace adimg
