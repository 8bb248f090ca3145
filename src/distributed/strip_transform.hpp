#pragma once
// The transform solve x = P b of the distributed fast direct solver on a rank's strip of rows:
// every row is whole on its rank, so the transform along x is rank-local (FFTW's sine or cosine
// transform of the rows, or the products with the generalised eigenvectors by Eigen, as the
// serial CPU engine applies them); per x-mode the line system along y crosses the ranks and is
// solved by PPT (strip_lines.hpp); then the inverse transform along x. The Transform of
// BackendFastDirectEngine (src/fast_direct/fast_direct_engine.hpp) on CPU ranks (GPU ranks:
// CudaStripTransform, cuda_strip_fast_direct.cu).

#include "../fast_direct/plan.hpp"
#include "../fast_direct/trig_rows.hpp"
#include "cpu_rank.hpp"
#include "strip_backend.hpp"
#include "strip_lines.hpp"

#include <optional>
#include <string>
#include <vector>

namespace adimg {

class StripTransform {
public:
    using Vector = StripBackend<CpuRank>::vector<double>;

    /// The plan must transform x (Plan::axis): the ranks' strips hold whole rows.
    StripTransform(StripBackend<CpuRank>& be, fast_direct::Plan plan);

    /// For the solver's method line: the transform along x and what applies it ("sine transform
    /// (FFTW)"), and the line solver ("PPT across 4 ranks").
    std::string transform_name() const;
    std::string line_solver_name() const;

    /// out = P in on this rank's rows: the unknowns solved, the nodes of Dirichlet edges copied.
    /// Collective.
    void apply(const Vector& in, Vector& out);

private:
    /// out = in on this rank's nodes of Dirichlet edges (their rows are identity rows).
    void copy_dirichlet(const double* in, double* out) const;

    fast_direct::Plan plan_;
    int ranks_, first_row_, rows_;
    std::vector<double> work_;  ///< mode k (or position t along x) of row r at r * nt + k
    std::optional<fast_direct::TrigRows> trig_;
    StripLines lines_;
};

}  // namespace adimg
