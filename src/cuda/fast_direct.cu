// The fast direct solve on the GPU (include/adimg/fast_direct.hpp states the method): sine
// transforms by cuFFT, eigenvector transforms and the transposes by cuBLAS, the line systems by
// the line solvers of src/lines, the refinement loop by the CUDA backend (src/fast_direct/engine.hpp)
// with the defect of src/fast_direct/difference_defect.hpp.
//
// Lines: one warp per line where they are short (LineSweeps' rule), else the partition method,
// except for the lowest modes, which Thomas solves meanwhile (thomas_modes says why).
//
// Layouts. The transform wants the values of one line position l along the transformed
// direction t contiguous ("rows": t fastest, nt x nl column-major); the line solvers want each
// mode's line contiguous ("lines": l fastest, nl x nt column-major). Between the two, cuBLAS
// transposes (geam), or the eigenvector product writes the other layout directly:
//
//   sine:  grid -> rows (geam) -> odd extension -> D2Z -> -Im -> rows -> lines (geam) -> solve
//          -> rows (geam) -> odd extension -> D2Z -> -Im -> rows -> grid (geam) + edges
//   eigen: grid -> lines = B^T V or B V (gemm) -> solve -> grid = V lines^T or lines V^T (gemm) + edges
//
// DST-I by a real FFT: the odd extension y = (0, x_1 .. x_{n-1}, 0, -x_{n-1} .. -x_1) of length
// 2n has Y_k = -2i sum_j x_j sin(pi j k / n), so -Im Y_k is FFTW's RODFT00 (2 sum_j x_j sin),
// and the plan's line coefficients (the scale 1 / 2n folded in) apply to either library.

#include "cuda_backend.cuh"
#include "kernels/launch.cuh"
#include "kernels/line_sweeps.cuh"
#include "kernels/stencil.cuh"

#include "../fast_direct/difference_defect.hpp"
#include "../fast_direct/engine.hpp"

#include <adimg/error.hpp>

#include <cublas_v2.h>
#include <cufft.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

namespace adimg::fast_direct {
namespace {

void cufft_check(cufftResult status, const char* call) {
    if (status != CUFFT_SUCCESS)
        throw device_error(std::string(call) + " failed with cuFFT status " + std::to_string(static_cast<int>(status)) +
                           (status == CUFFT_ALLOC_FAILED ? " (out of device memory: use a lower level)" : ""));
}
void cublas_check(cublasStatus_t status, const char* call) {
    if (status != CUBLAS_STATUS_SUCCESS)
        throw device_error(std::string(call) + " failed: " + cublasGetStatusString(status));
}
#define ADIMG_CUFFT_CHECK(call) cufft_check((call), #call)
#define ADIMG_CUBLAS_CHECK(call) cublas_check((call), #call)

/// The line systems of the modes, alpha_k M + beta_k K on the line direction's pencil, each
/// mode's line of n values contiguous in w; solved in place.
struct ModeLines {
    const double* alpha;
    const double* beta;
    const double* m_diag;
    const double* m_off;
    const double* k_diag;
    const double* k_off;
    double* w;
    int n;

    __device__ CrEquation<double> load(int k, int i) const {
        const double a = alpha[k], b = beta[k];
        const double lower = i > 0 ? a * m_off[i - 1] + b * k_off[i - 1] : 0.0;
        const double upper = i + 1 < n ? a * m_off[i] + b * k_off[i] : 0.0;
        return cr_normalise(lower, a * m_diag[i] + b * k_diag[i], upper, w[static_cast<std::size_t>(k) * n + i]);
    }
    __device__ void store(int k, int i, double x) const { w[static_cast<std::size_t>(k) * n + i] = x; }
};

/// The lowest modes' lines by Thomas with the factors of setup (thomas_factors(), line by line:
/// mode k's at k n), one thread per mode, as the CPU solves every line. The partition method
/// loses up to a digit and a half on these (measured on the host with its own executor: U1 at
/// L=8, 4.2e-11 of ||b|| against Thomas' 1.6e-12; at L=11, 8.4e-10 against 1.1e-10), because their
/// systems are the nearly singular ones and a smooth b puts most of its weight on them; from the
/// second mode on it matches Thomas.
constexpr int thomas_modes = 32;

/// The Thomas factors of the lowest modes, for the first block of mode_lines_partitioned.
struct ThomasLines {
    const double* inverse_pivot;
    const double* upper_factor;
    int modes;
};

/// Mode k's line by Thomas. The loads do not depend on the recurrence, so unrolled iterations
/// issue them ahead of it.
__device__ void thomas_line(const ModeLines& lines, const ThomasLines& thomas, int k) {
    const int n = lines.n;
    double* w = lines.w + static_cast<std::size_t>(k) * n;
    const double* p = thomas.inverse_pivot + static_cast<std::size_t>(k) * n;
    const double* u = thomas.upper_factor + static_cast<std::size_t>(k) * n;
    const double a = lines.alpha[k], b = lines.beta[k];
    double v = w[0] * p[0];
    w[0] = v;
#pragma unroll 8
    for (int l = 1; l < n; ++l) {
        v = (w[l] - (a * lines.m_off[l - 1] + b * lines.k_off[l - 1]) * v) * p[l];
        w[l] = v;
    }
#pragma unroll 8
    for (int l = n - 2; l >= 0; --l) {
        v = w[l] - u[l] * v;
        w[l] = v;
    }
}

/// The modes' lines by the partition method, one per block, except in the first block, whose
/// threads solve the lowest thomas.modes lines by Thomas meanwhile (a serial recurrence of 2n
/// steps that would otherwise run alone before the others): block 1 + q solves mode
/// thomas.modes + q.
template <int Slots>
__global__ void __launch_bounds__(2 * partition_max_chunks)
    mode_lines_partitioned(ModeLines lines, PartitionLayout layout, ThomasLines thomas) {
    kernels::follow_previous_kernel();
    if (blockIdx.x == 0) {
        for (int k = threadIdx.x; k < thomas.modes; k += blockDim.x) thomas_line(lines, thomas, k);
        return;  // the whole block: no barrier below is reached by part of it
    }
    extern __shared__ unsigned char raw_shared[];
    double* shared = reinterpret_cast<double*>(raw_shared);
    const int k = thomas.modes + blockIdx.x - 1;
    kernels::BlockPartition exec;
    partitioned_line_solve<Slots, double>(
        layout, shared, exec, [&](int i) { return lines.load(k, i); }, [&](int i, double x) { lines.store(k, i, x); });
}

/// One mode's line per warp, K equations per lane in registers.
template <int K>
__global__ void __launch_bounds__(kernels::warps_per_line_block * warp_lanes) mode_lines_warp(ModeLines lines, int modes) {
    kernels::follow_previous_kernel();
    const int lane = threadIdx.x % warp_lanes;
    const int k = blockIdx.x * kernels::warps_per_line_block + threadIdx.x / warp_lanes;
    if (k >= modes) return;  // the whole warp
    CrEquation<double> eq[K];
#pragma unroll
    for (int m = 0; m < K; ++m) {
        const int i = lane + warp_lanes * m;
        eq[m] = i < lines.n ? lines.load(k, i) : CrEquation<double>{0.0, 0.0, 0.0};
    }
    warp_line_solve(eq, kernels::ShuffleWarp{lane});
#pragma unroll
    for (int m = 0; m < K; ++m) {
        const int i = lane + warp_lanes * m;
        if (i < lines.n) lines.store(k, i, eq[m].v);
    }
}

/// The odd extension of each row (nt values, row l at rows + l nt) to 2n = 2 (nt + 1) values.
__global__ void sine_extend(const double* __restrict__ rows, int nt, double* __restrict__ extended) {
    kernels::follow_previous_kernel();
    const int n = nt + 1, m = blockIdx.x * blockDim.x + threadIdx.x, l = blockIdx.y;
    if (m >= 2 * n) return;
    const double* row = rows + static_cast<std::size_t>(l) * nt;
    double v = 0.0;
    if (m > 0 && m < n) v = row[m - 1];
    else if (m > n) v = -row[2 * n - m - 1];
    extended[static_cast<std::size_t>(l) * 2 * n + m] = v;
}

/// rows[l nt + k] = -Im Y_{k+1} of row l's spectrum (n + 1 values from Y_0).
__global__ void sine_take(const cufftDoubleComplex* __restrict__ spectrum, int nt, double* __restrict__ rows) {
    kernels::follow_previous_kernel();
    const int k = blockIdx.x * blockDim.x + threadIdx.x, l = blockIdx.y;
    if (k >= nt) return;
    rows[static_cast<std::size_t>(l) * nt + k] = -spectrum[static_cast<std::size_t>(l) * (nt + 2) + k + 1].y;
}

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

/// d = b - A x by difference_defect(), one thread per node.
__global__ void difference_defects(BandsView<double> A, const double* __restrict__ row_sums,
                                   const double* __restrict__ b, const double* __restrict__ x, double* __restrict__ d) {
    kernels::follow_previous_kernel();
    const int i = blockIdx.x * kernels::tile_x + threadIdx.x, j = blockIdx.y * kernels::tile_y + threadIdx.y;
    if (i >= A.mx || j >= A.my) return;
    d[static_cast<std::size_t>(j) * A.mx + i] = difference_defect(A, row_sums, b, x, i, j);
}

template <class T>
DeviceVector<T> to_device(const std::vector<T>& host, cudaStream_t stream) {
    DeviceVector<T> v(host.size());
    ADIMG_CUDA_CHECK(cudaMemcpyAsync(v.data(), host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice, stream));
    ADIMG_CUDA_CHECK(cudaStreamSynchronize(stream));
    return v;
}

class CudaTransform {
public:
    CudaTransform(CudaBackend& be, Plan plan)
        : be_(be),
          mx_(plan.mx),
          my_(plan.my),
          nt_(plan.nt),
          nl_(plan.nl),
          axis_(plan.axis),
          sine_(plan.transform == FastTransform::sine),
          alpha_(to_device(plan.alpha, be.stream())),
          beta_(to_device(plan.beta, be.stream())),
          m_diag_(to_device(plan.line.m_diag, be.stream())),
          m_off_(to_device(plan.line.m_off, be.stream())),
          k_diag_(to_device(plan.line.k_diag, be.stream())),
          k_off_(to_device(plan.line.k_off, be.stream())),
          lines_(plan.unknowns()) {
        if (plan.neumann)  // FastDirectSolver::setup routes these to the CPU
            throw std::logic_error("the CUDA fast direct engine was given a plan with Neumann edges");
        ADIMG_CUBLAS_CHECK(cublasCreate(&blas_));
        ADIMG_CUBLAS_CHECK(cublasSetStream(blas_, be_.stream()));
        if (sine_) {
            const int n = nt_ + 1;
            rows_ = DeviceVector<double>(plan.unknowns());
            extended_ = DeviceVector<double>(static_cast<std::size_t>(2) * n * nl_);
            spectrum_ = DeviceVector<cufftDoubleComplex>(static_cast<std::size_t>(n + 1) * nl_);
            int length = 2 * n;
            ADIMG_CUFFT_CHECK(cufftPlanMany(&fft_, 1, &length, nullptr, 1, 2 * n, nullptr, 1, n + 1, CUFFT_D2Z, nl_));
            fft_made_ = true;
            ADIMG_CUFFT_CHECK(cufftSetStream(fft_, be_.stream()));
        } else {
            vectors_ = to_device(plan.modes.vectors, be_.stream());
        }
        if (nl_ <= be_.lines().warp_lines_up_to()) {
            line_solver_ = "one warp per line";
        } else {
            line_solver_ = "the partition method (Thomas for the " + std::to_string(thomas_modes) + " lowest modes)";
            const int modes = std::min(nt_, thomas_modes);
            std::vector<double> pivots(static_cast<std::size_t>(modes) * nl_), factors(pivots.size());
            for (int k = 0; k < modes; ++k)
                thomas_factors(plan, k, pivots.data() + static_cast<std::size_t>(k) * nl_,
                               factors.data() + static_cast<std::size_t>(k) * nl_, 1);
            thomas_pivots_ = to_device(pivots, be_.stream());
            thomas_factors_ = to_device(factors, be_.stream());
        }
    }
    ~CudaTransform() {
        if (fft_made_) cufftDestroy(fft_);
        if (blas_) cublasDestroy(blas_);
    }
    CudaTransform(const CudaTransform&) = delete;
    CudaTransform& operator=(const CudaTransform&) = delete;

    std::string transform_name() const { return sine_ ? "cuFFT" : "cuBLAS"; }
    std::string line_solver_name() const { return line_solver_; }

    /// out = P in on all rows of the grid: the edge rows copied, the interior solved.
    void apply(const DeviceVector<double>& in, DeviceVector<double>& out) {
        const bool along_x = axis_ == FastAxis::x;
        const double* interior_in = in.data() + mx_ + 1;
        double* interior_out = out.data() + mx_ + 1;
        const double one = 1.0, zero = 0.0;
        if (sine_) {
            // grid -> rows: the interior as nt x nl, t fastest (a copy along x, a transpose along y)
            geam(along_x ? CUBLAS_OP_N : CUBLAS_OP_T, nt_, nl_, interior_in, mx_, rows_.data(), nt_);
            sine_rows();
            geam(CUBLAS_OP_T, nl_, nt_, rows_.data(), nt_, lines_.data(), nl_);
            solve_lines();
            geam(CUBLAS_OP_T, nt_, nl_, lines_.data(), nl_, rows_.data(), nt_);
            sine_rows();
            geam(along_x ? CUBLAS_OP_N : CUBLAS_OP_T, along_x ? nt_ : nl_, along_x ? nl_ : nt_, rows_.data(), nt_,
                 interior_out, mx_);
        } else {
            // The interior of the grid is B, x fastest with leading dimension mx: nt x nl along x
            // (lines = B^T V), nl x nt along y (lines = B V).
            ADIMG_CUBLAS_CHECK(cublasDgemm(blas_, along_x ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_OP_N, nl_, nt_, nt_, &one,
                                           interior_in, mx_, vectors_.data(), nt_, &zero, lines_.data(), nl_));
            solve_lines();
            if (along_x)  // B = V lines^T
                ADIMG_CUBLAS_CHECK(cublasDgemm(blas_, CUBLAS_OP_N, CUBLAS_OP_T, nt_, nl_, nt_, &one, vectors_.data(), nt_,
                                               lines_.data(), nl_, &zero, interior_out, mx_));
            else  // B = lines V^T
                ADIMG_CUBLAS_CHECK(cublasDgemm(blas_, CUBLAS_OP_N, CUBLAS_OP_T, nl_, nt_, nt_, &one, lines_.data(), nl_,
                                               vectors_.data(), nt_, &zero, interior_out, mx_));
        }
        const int edges = 2 * mx_ + 2 * (my_ - 2);
        be_.launcher()("copy_edges kernel", copy_edges, (edges + 255) / 256, 256, 0, in.data(), out.data(), mx_, my_);
    }

private:
    /// c (m x n, leading dimension ldc) = op(a), a with leading dimension lda.
    void geam(cublasOperation_t op, int m, int n, const double* a, int lda, double* c, int ldc) {
        const double one = 1.0, zero = 0.0;
        ADIMG_CUBLAS_CHECK(cublasDgeam(blas_, op, CUBLAS_OP_N, m, n, &one, a, lda, &zero, c, ldc, c, ldc));
    }

    /// rows_ (nt x nl, t fastest) = RODFT00 of each row, in place.
    void sine_rows() {
        const int n = nt_ + 1;
        be_.launcher()("sine_extend kernel", sine_extend, dim3((2 * n + 255) / 256, nl_), dim3(256), 0, rows_.data(), nt_,
                       extended_.data());
        ADIMG_CUFFT_CHECK(cufftExecD2Z(fft_, extended_.data(), spectrum_.data()));
        be_.launcher()("sine_take kernel", sine_take, dim3((nt_ + 255) / 256, nl_), dim3(256), 0, spectrum_.data(), nt_,
                       rows_.data());
    }

    /// Every mode's line system on lines_ (nl x nt, l fastest), in place.
    void solve_lines() {
        const ModeLines lines{alpha_.data(), beta_.data(), m_diag_.data(), m_off_.data(),
                              k_diag_.data(), k_off_.data(), lines_.data(), nl_};
        Launcher& launch = be_.launcher();
        if (nl_ <= be_.lines().warp_lines_up_to()) {
            const int blocks = (nt_ + kernels::warps_per_line_block - 1) / kernels::warps_per_line_block;
            auto run = [&](auto slots) {
                launch("mode_lines_warp kernel", mode_lines_warp<decltype(slots)::value>, blocks,
                       kernels::warps_per_line_block * warp_lanes, 0, lines, nt_);
            };
            if (!Launcher::with_constant<1, 2, 3, 5, 9, 17>(warp_line_slots(nl_), run))
                throw std::logic_error("no warp line kernel for " + std::to_string(nl_) + " unknowns");
            return;
        }
        const ThomasLines thomas{thomas_pivots_.data(), thomas_factors_.data(), std::min(nt_, thomas_modes)};
        be_.lines().with_partition_slots([&](auto slots) {
            const PartitionLayout layout =
                make_partition_layout<double>(nl_, be_.lines().partition_chunks<double>(nl_), slots);
            const std::size_t bytes = layout.words() * sizeof(double);
            if (bytes > launch.shared_limit())
                throw device_error("fast direct solver: a line of " + std::to_string(nl_) + " unknowns needs " +
                                   std::to_string(bytes / 1024) + " KiB of shared memory in double, but " +
                                   launch.device_name() + " gives " + std::to_string(launch.shared_limit() / 1024) +
                                   " KiB per block; use a lower level or the CPU backend");
            auto kernel = mode_lines_partitioned<decltype(slots)::value>;
            launch("mode_lines_partitioned kernel", kernel, 1 + nt_ - thomas.modes,
                   LineSweeps::partition_threads(layout, 0), launch.allow_shared(kernel, bytes), lines, layout, thomas);
        });
    }

    CudaBackend& be_;
    int mx_, my_, nt_, nl_;
    FastAxis axis_;
    bool sine_;
    DeviceVector<double> alpha_, beta_, m_diag_, m_off_, k_diag_, k_off_;
    DeviceVector<double> lines_;     ///< nl x nt: mode k's line at k nl
    DeviceVector<double> rows_;      ///< sine: nt x nl, line position l's values along t at l nt
    DeviceVector<double> extended_;  ///< sine: the odd extensions, 2 (nt + 1) per row
    DeviceVector<cufftDoubleComplex> spectrum_;
    DeviceVector<double> vectors_;   ///< eigen: V, nt x nt
    DeviceVector<double> thomas_pivots_, thomas_factors_;  ///< the lowest modes' Thomas factors, line by line
    cufftHandle fft_ = 0;
    bool fft_made_ = false;
    cublasHandle_t blas_ = nullptr;
    std::string line_solver_;
};

/// The refinement's defect on the device: the assembled matrix and its row sums copied once.
class CudaDefect {
public:
    CudaDefect(CudaBackend& be, SharedBands A)
        : be_(be), A_(be.make_matrix<double>(*A)), row_sums_(to_device(row_sums(*A), be.stream())) {}

    void operator()(const DeviceVector<double>& b, const DeviceVector<double>& x, DeviceVector<double>& d) {
        const dim3 tiles((A_.mx + kernels::tile_x - 1) / kernels::tile_x, (A_.my + kernels::tile_y - 1) / kernels::tile_y);
        be_.launcher()("difference_defects kernel", difference_defects, tiles, dim3(kernels::tile_x, kernels::tile_y), 0,
                       A_.view(), row_sums_.data(), b.data(), x.data(), d.data());
    }

private:
    CudaBackend& be_;
    CudaBackend::matrix<double> A_;
    DeviceVector<double> row_sums_;
};

}  // namespace

std::unique_ptr<Engine> make_cuda_engine(Plan plan, SharedBands A) {
    return std::make_unique<BackendEngine<CudaBackend, CudaTransform, CudaDefect>>(std::move(plan), std::move(A));
}

}  // namespace adimg::fast_direct
