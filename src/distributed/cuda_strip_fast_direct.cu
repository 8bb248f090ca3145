// The distributed fast direct solver on GPU ranks: its engine (BackendFastDirectEngine) over
// StripBackend<CudaRank>, with each rank's rows transformed along x on its GPU by the one-GPU
// engine's means (the cuFFT sine transform of fast_direct_sine.cuh, or the generalised
// eigenvectors by cuBLAS products), the mode lines across the ranks on the devices
// (cuda_strip_lines.cuh) and the one-GPU engine's defect kernel on the strip
// (fast_direct_defect.cuh). Dirichlet edges only, as on one GPU. No vector leaves the device
// inside a solve.

#include <adimg/error.hpp>

#include "../cuda/cublas_handle.cuh"
#include "../cuda/fast_direct_defect.cuh"
#include "../cuda/fast_direct_sine.cuh"
#include "../fast_direct/fast_direct_engine.hpp"
#include "cuda_rank.cuh"
#include "cuda_strip_lines.cuh"
#include "strip_backend.hpp"
#include "strip_engines.hpp"

#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

namespace adimg {
namespace {

using CudaStrips = StripBackend<CudaRank>;

/// out = in on the nodes of Dirichlet edges among the strip's rows (owned rows from in and out,
/// grid rows first_row ..): the two end nodes of each row (q < 2 rows), then grid rows 0 and
/// my - 1 where the strip holds them.
__global__ void copy_strip_edges(const double* __restrict__ in, double* __restrict__ out, int mx, int my, int first_row,
                                 int rows) {
    kernels::follow_previous_kernel();
    const int q = blockIdx.x * blockDim.x + threadIdx.x;
    std::size_t p;
    if (q < 2 * rows) {
        p = static_cast<std::size_t>(q / 2) * mx + (q % 2 ? mx - 1 : 0);
    } else {
        const int e = q - 2 * rows, r = (e < mx ? 0 : my - 1) - first_row;
        if (e >= 2 * mx || r < 0 || r >= rows) return;
        p = static_cast<std::size_t>(r) * mx + e % mx;
    }
    out[p] = in[p];
}

/// The transform solve x = P b on a rank's rows: the rows transformed along x (modes side by
/// side, mode k of row r at r nt + k), the mode lines solved across the ranks, the inverse
/// transform, the edge nodes copied. The Transform of the engine.
class CudaStripTransform {
public:
    using Vector = CudaStrips::vector<double>;

    CudaStripTransform(CudaStrips& be, fast_direct::Plan plan)
        : be_(be),
          mx_(plan.mx),
          my_(plan.my),
          nt_(plan.nt),
          t_first_(plan.t_first),
          first_row_(be.rows().first),
          rows_(be.rows().count),
          transport_(be.rank().transport()),
          work_(static_cast<std::size_t>(rows_) * plan.nt, Uninitialised{}),
          lines_(be.rank(), be.communicator(), plan, first_row_, rows_) {
        if (plan.axis != FastAxis::x) throw std::logic_error("CudaStripTransform: the plan must transform x");
        if (plan.neumann)  // DistributedFastDirectSolver::setup keeps these on CPU ranks
            throw std::logic_error("CudaStripTransform: a plan with Neumann edges reached GPU ranks");
        if (plan.transform == FastTransform::sine) {
            sine_.emplace(nt_, rows_, stream());
        } else {
            vectors_ = fast_direct::host_to_device(plan.modes.vectors, stream());
            blas_.emplace(stream());
        }
    }

    std::string transform_name() const {
        return sine_ ? "sine transform (cuFFT)" : "generalised eigenvectors (cuBLAS products)";
    }
    std::string line_solver_name() const {
        return "PPT across " + std::to_string(be_.communicator().size()) +
               " ranks (the chunked partition method on the GPUs; " + transport_ + ")";
    }

    /// out = P in on this rank's rows. Collective.
    void apply(const Vector& in, Vector& out) {
        Launcher& launch = be_.rank().local().launcher();
        const double* b = in.data() + t_first_;
        double* x = out.data() + t_first_;
        be_.written(out);
        const int mx = mx_, nt = nt_;
        if (sine_) {
            const fast_direct::Strided rows{1, static_cast<std::size_t>(mx)}, modes{1, static_cast<std::size_t>(nt)};
            (*sine_)(launch, b, rows, work_.data(), modes);
            lines_.solve(work_.data());
            (*sine_)(launch, work_.data(), modes, x, rows);
        } else {
            // The rows' unknowns are B, nt x rows with leading dimension mx: W = V^T B, x = V W.
            blas_->gemm(CUBLAS_OP_T, CUBLAS_OP_N, nt, rows_, nt, vectors_.data(), nt, b, mx, work_.data(), nt);
            lines_.solve(work_.data());
            blas_->gemm(CUBLAS_OP_N, CUBLAS_OP_N, nt, rows_, nt, vectors_.data(), nt, work_.data(), nt, x, mx);
        }
        const int edges = 2 * rows_ + 2 * mx_;
        launch("copy_strip_edges kernel", copy_strip_edges, (edges + 255) / 256, 256, 0, in.data(), out.data(), mx_, my_,
               first_row_, rows_);
    }

private:
    cudaStream_t stream() const { return be_.rank().local().stream(); }

    CudaStrips& be_;
    int mx_, my_, nt_, t_first_, first_row_, rows_;
    std::string transport_;
    DeviceVector<double> work_;  ///< the rows' modes, mode k of row r at r nt + k
    CudaStripLines lines_;
    std::optional<fast_direct::SineTransform> sine_;  ///< sine only
    DeviceVector<double> vectors_;                    ///< eigen: V, nt x nt
    std::optional<fast_direct::CublasHandle> blas_;   ///< eigen only
};

/// The refinement's defect on a rank's rows: x's halo rows from the neighbours (through the
/// rank's transport), then the one-GPU engine's kernel, each row formed from the widths.
class CudaStripDefect {
public:
    using Vector = CudaStrips::vector<double>;

    CudaStripDefect(CudaStrips& be, const TensorMesh& mesh, const fast_direct::SharedBands& A)
        : be_(be), first_row_(be.rows().first), rows_(be.rows().count), defect_(mesh, be.rank().local().stream()) {
        if (A) throw std::logic_error("CudaStripDefect: an assembled matrix (Neumann edges) reached GPU ranks");
    }

    void operator()(const Vector& b, const Vector& x, Vector& d) {
        be_.refresh_halos(x);
        be_.written(d);
        defect_.strip(be_.rank().local().launcher(), first_row_, rows_, 1, b.storage.data(), x.storage.data(),
                      d.storage.data());
    }

private:
    CudaStrips& be_;
    int first_row_, rows_;
    fast_direct::Q1Defect defect_;
};

}  // namespace

std::unique_ptr<fast_direct::FastDirectEngine> make_cuda_strip_engine(std::shared_ptr<DistributedContext> context) {
    return std::make_unique<fast_direct::BackendFastDirectEngine<CudaStrips, CudaStripTransform, CudaStripDefect>>(
        std::in_place, std::move(context));
}

}  // namespace adimg
