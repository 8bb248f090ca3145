// The fast direct solve on the GPU (include/adimg/fast_direct.hpp states the method): sine
// transforms by cuFFT (fast_direct_sine.cuh), eigenvector transforms by cuBLAS (both loaded when
// first needed and called through cuda_libraries.cuh), the line systems
// by the line solvers of src/lines (fast_direct_lines.cuh), inside the one refinement loop on the
// CUDA backend (src/fast_direct/fast_direct_engine.hpp) with the defect computed from the element
// widths (fast_direct_defect.cuh).
//
// Layouts. The interior of the grid holds the values (t, l) of the transformed direction t and
// the line direction l, x fastest; the line solvers want each mode's line contiguous ("lines":
// mode k's nl values at k nl), or, for lines longer than a block's shared memory, the modes side
// by side ("modes": mode k at line position l at l nt + k; ModeLineSolver::modes_side_by_side).
// The sine transform reads and writes any of these layouts through tiles (no transpose of its
// own); the eigenvector products write the other layout directly:
//
//   sine:  grid -> lines = S grid (extension, D2Z, -Im) -> solve -> grid = S lines (the same)
//   eigen: grid -> lines = B^T V or B V (gemm) -> solve -> grid = V lines^T or lines V^T (gemm)
//          grid -> modes = V^T B or V^T B^T    -> solve -> grid = V modes or modes^T V^T
//
// and the edge nodes copied from the input.

#include "cublas_handle.cuh"
#include "cuda_backend.cuh"
#include "fast_direct_defect.cuh"
#include "fast_direct_lines.cuh"
#include "fast_direct_memory.cuh"
#include "fast_direct_sine.cuh"
#include "kernels/launch.cuh"

#include "../fast_direct/fast_direct_engine.hpp"

#include <adimg/error.hpp>

#include <optional>
#include <stdexcept>
#include <string>

namespace adimg::fast_direct {
namespace {

/// out = in on the edge nodes of an mx x my grid: rows 0 and my - 1, then columns 0 and mx - 1.
__global__ void copy_edges(const double* __restrict__ in, double* __restrict__ out, int mx, int my) {
    kernels::follow_previous_kernel();
    const int q = blockIdx.x * blockDim.x + threadIdx.x;
    std::size_t p;
    if (q < mx) {
        p = q;
    } else if (q < 2 * mx) {
        p = static_cast<std::size_t>(my - 1) * mx + (q - mx);
    } else {
        const int r = q - 2 * mx;
        if (r >= 2 * (my - 2)) return;
        p = static_cast<std::size_t>(1 + r / 2) * mx + (r % 2 ? mx - 1 : 0);
    }
    out[p] = in[p];
}

class CudaTransform {
public:
    CudaTransform(CudaBackend& be, Plan plan)
        : be_(be),
          mx_(plan.mx),
          my_(plan.my),
          nt_(plan.nt),
          nl_(plan.nl),
          along_x_(plan.axis == FastAxis::x),
          lines_(plan.unknowns(), Uninitialised{}),
          solve_lines_(plan, be.lines(), be.stream()) {
        if (plan.neumann)  // FastDirectSolver::setup routes these to the CPU
            throw std::logic_error("the CUDA fast direct engine was given a plan with Neumann edges");
        if (plan.transform == FastTransform::sine) {
            sine_.emplace(nt_, nl_, be_.stream());
        } else {
            vectors_ = host_to_device(plan.modes.vectors, be_.stream());
            blas_.emplace(be_.stream());
        }
    }
    CudaTransform(const CudaTransform&) = delete;
    CudaTransform& operator=(const CudaTransform&) = delete;

    std::string transform_name() const { return sine_ ? "cuFFT" : "cuBLAS"; }
    std::string line_solver_name() const { return solve_lines_.name(); }

    /// out = P in on all rows of the grid: the edge rows copied, the interior solved.
    void apply(const DeviceVector<double>& in, DeviceVector<double>& out) {
        Launcher& launch = be_.launcher();
        const double* interior_in = in.data() + mx_ + 1;
        double* interior_out = out.data() + mx_ + 1;
        if (sine_) {
            const std::size_t mx = static_cast<std::size_t>(mx_), nl = static_cast<std::size_t>(nl_);
            const std::size_t nt = static_cast<std::size_t>(nt_);
            const Strided grid = along_x_ ? Strided{1, mx} : Strided{mx, 1};
            const Strided lines = solve_lines_.modes_side_by_side() ? Strided{1, nt} : Strided{nl, 1};
            (*sine_)(launch, interior_in, grid, lines_.data(), lines);
            solve_lines_(launch, be_.lines(), lines_.data());
            (*sine_)(launch, lines_.data(), lines, interior_out, grid);
        } else if (solve_lines_.modes_side_by_side()) {
            // modes = V^T B along x (B nt x nl), V^T B^T along y (B nl x nt); the inverse alike.
            const cublasOperation_t grid_op = along_x_ ? CUBLAS_OP_N : CUBLAS_OP_T;
            blas_->gemm(CUBLAS_OP_T, grid_op, nt_, nl_, nt_, vectors_.data(), nt_, interior_in, mx_, lines_.data(), nt_);
            solve_lines_(launch, be_.lines(), lines_.data());
            if (along_x_)  // B = V modes
                blas_->gemm(CUBLAS_OP_N, CUBLAS_OP_N, nt_, nl_, nt_, vectors_.data(), nt_, lines_.data(), nt_, interior_out,
                            mx_);
            else  // B = (V modes)^T = modes^T V^T
                blas_->gemm(CUBLAS_OP_T, CUBLAS_OP_T, nl_, nt_, nt_, lines_.data(), nt_, vectors_.data(), nt_, interior_out,
                            mx_);
        } else {
            // The interior of the grid is B, x fastest with leading dimension mx: nt x nl along x
            // (lines = B^T V), nl x nt along y (lines = B V).
            blas_->gemm(along_x_ ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_OP_N, nl_, nt_, nt_, interior_in, mx_, vectors_.data(),
                        nt_, lines_.data(), nl_);
            solve_lines_(launch, be_.lines(), lines_.data());
            if (along_x_)  // B = V lines^T
                blas_->gemm(CUBLAS_OP_N, CUBLAS_OP_T, nt_, nl_, nt_, vectors_.data(), nt_, lines_.data(), nl_, interior_out,
                            mx_);
            else  // B = lines V^T
                blas_->gemm(CUBLAS_OP_N, CUBLAS_OP_T, nl_, nt_, nt_, lines_.data(), nl_, vectors_.data(), nt_, interior_out,
                            mx_);
        }
        const int edges = 2 * mx_ + 2 * (my_ - 2);
        launch("copy_edges kernel", copy_edges, (edges + 255) / 256, 256, 0, in.data(), out.data(), mx_, my_);
    }

private:
    CudaBackend& be_;
    int mx_, my_, nt_, nl_;
    bool along_x_;
    DeviceVector<double> lines_;  ///< mode k's line at k nl, or the modes side by side (solve_lines_ says)
    ModeLineSolver solve_lines_;
    std::optional<SineTransform> sine_;  ///< sine only
    DeviceVector<double> vectors_;       ///< eigen: V, nt x nt
    std::optional<CublasHandle> blas_;   ///< eigen only
};

/// The refinement's defect on the device, each row formed from the mesh's widths.
class CudaDefect {
public:
    CudaDefect(CudaBackend& be, const TensorMesh& mesh, const SharedBands&) : be_(be), defect_(mesh, be.stream()) {}

    void operator()(const DeviceVector<double>& b, const DeviceVector<double>& x, DeviceVector<double>& d) {
        defect_(be_.launcher(), b.data(), x.data(), d.data());
    }

private:
    CudaBackend& be_;
    Q1Defect defect_;
};

}  // namespace

std::unique_ptr<FastDirectEngine> make_cuda_engine() {
    return std::make_unique<BackendFastDirectEngine<CudaBackend, CudaTransform, CudaDefect>>();
}

}  // namespace adimg::fast_direct
