#pragma once
// The defect b - A x of the distributed fast direct solver's refinement on a rank's strip: the
// serial solver's difference form (src/fast_direct/difference_defect.hpp) on each owned row, with
// x's halo rows, one from each neighbouring rank, refreshed first. The Defect of BackendFastDirectEngine
// (src/fast_direct/fast_direct_engine.hpp) on CPU ranks (GPU ranks: CudaStripDefect,
// cuda_strip_fast_direct.cu).

#include <adimg/nine_bands.hpp>
#include <adimg/problems.hpp>

#include "../fast_direct/fast_direct_engine.hpp"
#include "cpu_rank.hpp"
#include "strip_backend.hpp"

#include <vector>

namespace adimg {

class StripDefect {
public:
    using Vector = StripBackend<CpuRank>::vector<double>;

    /// The owned rows of the matrix: those of A where given (Neumann edges: the solver's
    /// separable matrix), else the Q1 rows of the mesh's widths (Dirichlet edges: the bits of
    /// assemble_stiffness()), and their compensated row sums.
    StripDefect(StripBackend<CpuRank>& be, const TensorMesh& mesh, const fast_direct::SharedBands& A);

    /// d = b - A x on this rank's rows. Collective (x's halos).
    void operator()(const Vector& b, const Vector& x, Vector& d);

private:
    StripBackend<CpuRank>& be_;
    int mx_, first_row_, rows_;
    NineBands<double> bands_;       ///< the owned rows, row r at r * mx + i
    std::vector<double> row_sums_;  ///< operator_row_sum() of each owned row
};

}  // namespace adimg
