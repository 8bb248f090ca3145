#pragma once
// The line systems of the fast direct solver's modes on the device, alpha_k M + beta_k K on the
// line direction's pencil, each mode's line contiguous (mode k's n values at k n), solved in
// place by the line solvers of src/lines: one warp per line where lines are short (LineSweeps'
// rule), else the partition method, except for the lowest modes, which Thomas solves in the same
// launch (thomas_modes says why). Lines longer than a block's shared memory holds (16 383 unknowns
// at L = 14 on an H200) are solved with the modes side by side by the chunked partition method of
// the distributed solver's mode lines (src/distributed/mode_line_kernels.cuh), each line one part
// whose two end equations a thread a mode solves.

#include "fast_direct_memory.cuh"
#include "line_sweeps.cuh"
#include "kernels/launch.cuh"
#include "kernels/line_sweeps.cuh"

#include "../distributed/coupling_kernels.cuh"
#include "../distributed/mode_line_kernels.cuh"
#include "../fast_direct/mode_line_rows.hpp"
#include "../fast_direct/plan.hpp"

#include <adimg/error.hpp>

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace adimg::fast_direct {

/// The modes' lines in place: mode k's n values at k n, its rows by ModeLineRows.
struct ModeLines {
    ModeLineRows rows;
    double* w;

    __device__ double lower(int k, int i) const { return rows.lower(k, i); }
    __device__ CrEquation<double> load(int k, int i) const {
        return rows.equation(k, i, w[static_cast<std::size_t>(k) * rows.n + i]);
    }
    __device__ void store(int k, int i, double x) const { w[static_cast<std::size_t>(k) * rows.n + i] = x; }
};

/// The lowest modes' lines by Thomas with the factors of setup (thomas_factors(), mode k's at
/// k n), as the CPU solves every line. The partition method loses up to a digit and a half on
/// these (measured on the host with its own executor: U1 at L=8, 4.2e-11 of ||b|| against
/// Thomas' 1.6e-12; at L=11, 8.4e-10 against 1.1e-10), because their systems are the nearly
/// singular ones and a smooth b puts most of its weight on them; from the second mode on it
/// matches Thomas.
constexpr int thomas_modes = 32;

struct ThomasLines {
    const double* inverse_pivot;
    const double* upper_factor;
    int modes;
};

/// Mode k's line by Thomas in one block: the line and its factors staged in shared memory by all
/// threads (3 n words, coalesced), the recurrence run by one thread from there, the line stored
/// back by all. The forward step's coupling does not depend on the recurrence, so its loads are
/// issued ahead of it.
__device__ inline void thomas_line_staged(const ModeLines& lines, const ThomasLines& thomas, int k, double* shared) {
    const int n = lines.rows.n;
    const std::size_t base = static_cast<std::size_t>(k) * n;
    double* w = shared;
    double* p = shared + n;
    double* u = shared + 2 * n;
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
        w[i] = lines.w[base + i];
        p[i] = thomas.inverse_pivot[base + i];
        u[i] = thomas.upper_factor[base + i];
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        double v = w[0] * p[0];
        w[0] = v;
#pragma unroll 8
        for (int l = 1; l < n; ++l) {
            v = (w[l] - lines.lower(k, l) * v) * p[l];
            w[l] = v;
        }
#pragma unroll 8
        for (int l = n - 2; l >= 0; --l) {
            v = w[l] - u[l] * v;
            w[l] = v;
        }
    }
    __syncthreads();
    for (int i = threadIdx.x; i < n; i += blockDim.x) lines.w[base + i] = w[i];
}

/// Mode k's line per block: the lowest thomas.modes by thomas_line_staged() (the blocks that start
/// first, so that their serial recurrence overlaps the others), every other one by the partition
/// method.
template <int Slots>
__global__ void __launch_bounds__(2 * partition_max_chunks)
    mode_lines_partitioned(ModeLines lines, PartitionLayout layout, ThomasLines thomas) {
    kernels::follow_previous_kernel();
    extern __shared__ unsigned char raw_shared[];
    double* shared = reinterpret_cast<double*>(raw_shared);
    const int k = blockIdx.x;
    if (k < thomas.modes) {
        thomas_line_staged(lines, thomas, k, shared);
        return;
    }
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
        eq[m] = i < lines.rows.n ? lines.load(k, i) : CrEquation<double>{0.0, 0.0, 0.0};
    }
    warp_line_solve(eq, kernels::ShuffleWarp{lane});
#pragma unroll
    for (int m = 0; m < K; ++m) {
        const int i = lane + warp_lanes * m;
        if (i < lines.rows.n) lines.store(k, i, eq[m].v);
    }
}

/// The modes' line systems of a plan, their coefficients and the lowest modes' Thomas factors on
/// the device, solved in place on w (mode k's line at k nl; with modes_side_by_side(), mode k's
/// value at line position l at l nt + k).
class ModeLineSolver {
public:
    ModeLineSolver(const Plan& plan, const LineSweeps& sweeps, cudaStream_t stream)
        : nt_(plan.nt),
          nl_(plan.nl),
          alpha_(host_to_device(plan.alpha, stream)),
          beta_(host_to_device(plan.beta, stream)),
          m_diag_(host_to_device(plan.line.m_diag, stream)),
          m_off_(host_to_device(plan.line.m_off, stream)),
          k_diag_(host_to_device(plan.line.k_diag, stream)),
          k_off_(host_to_device(plan.line.k_off, stream)),
          warps_(nl_ <= sweeps.warp_lines_up_to()) {
        if (warps_) return;
        if (partition_bytes(sweeps) > sweeps.shared_budget()) {
            chunked_.emplace(plan, plan.l_first, nl_, stream);
            const std::size_t values = static_cast<std::size_t>(nl_) * nt_, lines = static_cast<std::size_t>(nt_);
            for (DeviceVector<double>* part : {&parts_.a, &parts_.c, &parts_.v})
                *part = DeviceVector<double>(values, Uninitialised{});
            for (DeviceVector<double>* part : {&parts_.ra, &parts_.rc, &parts_.rv})
                *part = DeviceVector<double>(2 * static_cast<std::size_t>(chunked_->chunks()) * lines, Uninitialised{});
            parts_.ends = DeviceVector<double>(y_line_end_words * lines, Uninitialised{});
            parts_.solved = DeviceVector<double>(2 * lines, Uninitialised{});
            return;
        }
        const int modes = std::min(nt_, thomas_modes);
        std::vector<double> pivots(static_cast<std::size_t>(modes) * nl_), factors(pivots.size());
        for (int k = 0; k < modes; ++k)
            thomas_factors(plan, k, pivots.data() + static_cast<std::size_t>(k) * nl_,
                           factors.data() + static_cast<std::size_t>(k) * nl_, 1);
        thomas_pivots_ = host_to_device(pivots, stream);
        thomas_factors_ = host_to_device(factors, stream);
    }

    std::string name() const {
        if (chunked_) return "the chunked partition method (lines longer than a block's shared memory)";
        return warps_ ? "one warp per line"
                      : "the partition method (Thomas for the " + std::to_string(thomas_modes) + " lowest modes)";
    }
    /// Whether w holds the modes side by side (mode k at line position l at l nt + k): lines too
    /// long for a block's shared memory, solved in chunks of a thread each.
    bool modes_side_by_side() const { return chunked_.has_value(); }

    void operator()(Launcher& launch, const LineSweeps& sweeps, double* w) {
        if (chunked_) {  // each line one part: its two end equations, a thread a mode
            chunked_->solve(launch, w, parts_, [&](Parts& p) {
                launch("ppt_couplings kernel", coupling_kernels::ppt_couplings<double>, ChunkedModeLines::blocks(nt_),
                       strip_kernels::line_threads, 0, static_cast<const double*>(p.ends.data()), nt_, 1, 0,
                       p.solved.data(), static_cast<double*>(nullptr));
            });
            return;
        }
        const ModeLines lines{{alpha_.data(), beta_.data(), m_diag_.data(), m_off_.data(), k_diag_.data(), k_off_.data(), nl_}, w};
        if (warps_) {
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
        sweeps.with_partition_slots([&](auto slots) {
            const PartitionLayout layout = make_partition_layout<double>(nl_, sweeps.partition_chunks<double>(nl_), slots);
            auto kernel = mode_lines_partitioned<decltype(slots)::value>;
            launch("mode_lines_partitioned kernel", kernel, nt_, LineSweeps::partition_threads(layout, 0),
                   launch.allow_shared(kernel, shared_bytes(layout)), lines, layout, thomas);
        });
    }

private:
    /// The chunked solve's workspace (ChunkedModeLines::solve).
    struct Parts {
        DeviceVector<double> a, c, v, ra, rc, rv, ends, solved;
    };
    /// A partition block's shared memory: its layout's, or the Thomas blocks' three arrays of the
    /// line's length, which stage in the same memory.
    std::size_t shared_bytes(const PartitionLayout& layout) const {
        return std::max<std::size_t>(layout.words(), 3 * static_cast<std::size_t>(nl_)) * sizeof(double);
    }
    std::size_t partition_bytes(const LineSweeps& sweeps) const {
        std::size_t bytes = 0;
        sweeps.with_partition_slots([&](auto slots) {
            bytes = shared_bytes(make_partition_layout<double>(nl_, sweeps.partition_chunks<double>(nl_), slots));
        });
        return bytes;
    }

    int nt_, nl_;
    DeviceVector<double> alpha_, beta_, m_diag_, m_off_, k_diag_, k_off_;
    bool warps_;  ///< lines short enough for one warp each
    DeviceVector<double> thomas_pivots_, thomas_factors_;  ///< the lowest modes' Thomas factors, mode by mode
    std::optional<ChunkedModeLines> chunked_;  ///< lines too long for a block's shared memory
    Parts parts_;                              ///< chunked_'s workspace
};

}  // namespace adimg::fast_direct
