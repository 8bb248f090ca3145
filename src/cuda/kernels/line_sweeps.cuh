#pragma once
// The ADI line sweeps: the line equations formed from the bands and solved by the algorithms of
// src/lines (cyclic reduction, one warp per line, the partition method) in shared memory.

#include "launch.cuh"

#include "../../lines/cyclic_reduction.hpp"
#include "../../lines/partition_method.hpp"
#include "../../lines/warp_line_solve.hpp"
#include "../../solver/stencil.hpp"

#include <cuda_pipeline.h>

#include <cstddef>
#include <type_traits>

namespace adimg::kernels {

/// Runs the phases of cyclic_reduction() with the threads of a block that solves `Lines` lines,
/// blockDim.x / Lines threads for each. In a shared phase the threads of a line work on it alone:
/// a phase of at most 32 items runs in the line's first warp and ends with a warp barrier; a block
/// barrier is needed only between a large phase and the next, and when a large phase follows
/// small ones. Half of the phases of a line are small (the tail of the reduction and the start of
/// the substitution). With several lines, a global phase runs item t / Lines of line t % Lines on
/// thread t, so that a warp reads the same rows of adjacent lines (whole sectors of y-lines), and
/// ends with a block barrier, since a thread then works on other lines than its own.
template <int Lines>
struct BlockPhases {
    bool after_small = false;  // uniform across the block: every thread sees the same counts

    template <class Body>
    __device__ void operator()(CrAccess access, int count, Body&& body) {
        if (Lines > 1 && access == CrAccess::global) {
            if (after_small) __syncthreads();
            for (int t = threadIdx.x; t < Lines * count; t += blockDim.x) body(t % Lines, t / Lines);
            __syncthreads();
            after_small = false;
            return;
        }
        const int per_line = Lines == 1 ? blockDim.x : blockDim.x / Lines;
        const int line = Lines == 1 ? 0 : threadIdx.x / per_line, local = Lines == 1 ? threadIdx.x : threadIdx.x % per_line;
        if (count <= 32) {
            if (local < 32) {
                if (local < count) body(line, local);
                __syncwarp();
            }
            after_small = true;
            return;
        }
        if (after_small) __syncthreads();
        for (int t = local; t < count; t += per_line) body(line, t);
        __syncthreads();
        after_small = false;
    }
};

/// What a line sweep reads and writes for line `line`, equation r: the equation formed from the
/// bands, b and x_in (off-line couplings moved to the right-hand side) and normalised, and the
/// damped store of its solution. Shared by the two line kernels below, which build it from their
/// __restrict__ parameters (nvcc honours __restrict__ on parameters, not on struct members).
template <class T>
struct LineSweep {
    BandsView<T> A;
    const T* b;
    const T* x_in;
    T* x_out;
    Direction direction;
    T omega;

    __device__ bool along_x() const { return direction == Direction::x; }
    __device__ int length() const { return along_x() ? A.mx : A.my; }
    __device__ int lines() const { return along_x() ? A.my : A.mx; }
    __device__ std::size_t node(int line, int r) const {
        return along_x() ? static_cast<std::size_t>(line) * A.mx + r : static_cast<std::size_t>(r) * A.mx + line;
    }
    __device__ CrEquation<T> load(int line, int r) const {
        const std::size_t p = node(line, r);
        const LineRow<T> row = line_row(A, p, direction);
        const int i = along_x() ? r : line, j = along_x() ? line : r;
        return cr_normalise(row.lower, row.diag, row.upper, b[p] - off_line_product(A, x_in, i, j, direction));
    }
    __device__ void store(int line, int r, T x) const {
        const std::size_t p = node(line, r);
        x_out[p] = relax(x_in[p], x, omega);
    }
    /// The sweep of right-hand side `column` (column_block()): its b, x_in and x_out.
    __device__ LineSweep of_column(int column) const {
        const std::size_t offset = column * static_cast<std::size_t>(A.mx) * A.my;
        return {A, b + offset, x_in + offset, x_out + offset, direction, omega};
    }
};

/// The ADI half-step for `Lines` adjacent lines per block: the lines' equations are formed from
/// the bands and x_in while they are loaded, solved by cyclic reduction in shared memory, and
/// written damped. y-lines are read in place, several per block so that each sector read is used
/// whole (BlockPhases); the last block's missing lines solve zeros and store nothing.
// The layout is a __grid_constant__ parameter: its offset tables are indexed by level at run
// time, and this keeps them in the constant bank instead of a copy on the stack.
constexpr int max_line_threads = 512;

template <class T, CrStaging S, int Lines>
__global__ void __launch_bounds__(max_line_threads)
    line_relax(BandsView<T> A, const T* __restrict__ b, const T* __restrict__ x_in, T* __restrict__ x_out,
               Direction direction, T omega, const __grid_constant__ CrLayout layout, int columns) {
    follow_previous_kernel();
    const ColumnBlock block = column_block(columns);
    const LineSweep<T> sweep = LineSweep<T>{A, b, x_in, x_out, direction, omega}.of_column(block.column);
    extern __shared__ unsigned char raw_shared[];
    T* shared = reinterpret_cast<T*>(raw_shared);
    const int first = block.x * Lines;
    auto present = [&](int g) { return Lines == 1 || first + g < sweep.lines(); };
    BlockPhases<Lines> phase;
    auto load = [&](int g, int r) { return present(g) ? sweep.load(first + g, r) : CrEquation<T>{T(0), T(0), T(0)}; };
    auto store = [&](int g, int r, T x) {
        if (present(g)) sweep.store(first + g, r, x);
    };
    cyclic_reduction<T>(layout, std::integral_constant<CrStaging, S>{}, shared, phase, load, store);
}

/// The lane exchange of warp_line_solve(): shuffles between the lanes of one warp; gather,
/// scatter and each_lane are each lane's own reads, writes and work (partitioned_line_solve()),
/// the latter two followed by a warp barrier.
struct ShuffleWarp {
    int lane_;
    __device__ int lane() const { return lane_; }
    template <class T>
    __device__ T rotate(T value, int s) const { return __shfl_sync(0xffffffffu, value, (lane_ - s) & (warp_lanes - 1)); }
    template <class T>
    __device__ T select(bool mask, T a, T b) const { return mask ? a : b; }
    template <class F>
    __device__ auto gather(F&& f) const { return f(lane_); }
    template <class T, class F>
    __device__ void scatter(T value, F&& f) const {
        f(lane_, value);
        __syncwarp();
    }
    template <class F>
    __device__ void each_lane(F&& f) const {
        f(lane_);
        __syncwarp();
    }
};

/// One line of `length` equations solved by the calling warp, K slots per lane
/// (warp_line_solve.hpp): equation r from load(r), its solution to store(r, x).
template <int K, class T, class Load, class Store>
__device__ void warp_solve(int lane, int length, const Load& load, const Store& store) {
    CrEquation<T> eq[K];
#pragma unroll
    for (int m = 0; m < K; ++m) {
        const int r = lane + warp_lanes * m;
        eq[m] = r < length ? load(r) : CrEquation<T>{T(0), T(0), T(0)};
    }
    warp_line_solve(eq, ShuffleWarp{lane});
#pragma unroll
    for (int m = 0; m < K; ++m) {
        const int r = lane + warp_lanes * m;
        if (r < length) store(r, eq[m].v);
    }
}

/// The ADI half-step for short lines: one warp per line, K slots per lane (warp_line_solve.hpp),
/// warps_per_line_block adjacent lines per block. The y-lines are read in place, strided: the
/// warps of a block read adjacent columns, so each 32-byte sector they touch is used whole.
constexpr int warps_per_line_block = 8;

template <class T, int K>
__global__ void __launch_bounds__(warps_per_line_block * warp_lanes)
    line_relax_warp(BandsView<T> A, const T* __restrict__ b, const T* __restrict__ x_in, T* __restrict__ x_out,
                    Direction direction, T omega, int columns) {
    follow_previous_kernel();
    const ColumnBlock block = column_block(columns);
    const LineSweep<T> sweep = LineSweep<T>{A, b, x_in, x_out, direction, omega}.of_column(block.column);
    const int lane = threadIdx.x % warp_lanes;
    const int line = block.x * warps_per_line_block + threadIdx.x / warp_lanes;
    if (line >= sweep.lines()) return;  // the whole warp: the shuffles below see all 32 lanes
    warp_solve<K, T>(
        lane, sweep.length(), [&](int r) { return sweep.load(line, r); }, [&](int r, T x) { sweep.store(line, r, x); });
}

/// Runs the phases of partitioned_line_solve() with the threads of a block: a phase strides its
/// items over all threads and ends with a block barrier; the coupling system is solved by warp 0
/// while the others wait at the barrier that follows.
struct BlockPartition {
    template <class Body>
    __device__ void phase(int count, Body&& body) {
        for (int t = threadIdx.x; t < count; t += blockDim.x) body(t);
        __syncthreads();
    }
    /// The copies are cp.async (global to shared without registers), all in flight at once.
    template <class Body>
    __device__ void copy_phase(int count, Body&& body) {
        auto copy = [](auto* to, const auto* from) { __pipeline_memcpy_async(to, from, sizeof(*to)); };
        for (int t = threadIdx.x; t < count; t += blockDim.x) body(t, copy);
        __pipeline_commit();
        __pipeline_wait_prior(0);
        __syncthreads();
    }
    template <class Body>
    __device__ void first_warp(Body&& body) {
        if (threadIdx.x < warp_lanes) body(ShuffleWarp{static_cast<int>(threadIdx.x)});
        __syncthreads();
    }
};

/// The ADI half-step for long lines by the partition method (partitioned_line_solve.hpp), one
/// line per block; y-lines as x-lines of the transposed grid.
template <class T, int Slots>
__global__ void __launch_bounds__(2 * partition_max_chunks)
    line_relax_partitioned(BandsView<T> A, const T* __restrict__ b, const T* __restrict__ x_in, T* __restrict__ x_out,
                           Direction direction, T omega, PartitionLayout layout, int columns) {
    follow_previous_kernel();
    const ColumnBlock block = column_block(columns);
    const LineSweep<T> sweep = LineSweep<T>{A, b, x_in, x_out, direction, omega}.of_column(block.column);
    extern __shared__ unsigned char raw_shared[];
    T* shared = reinterpret_cast<T*>(raw_shared);
    const int line = block.x;
    BlockPartition exec;
    partitioned_line_solve<Slots, T>(
        layout, shared, exec, [&](int r) { return sweep.load(line, r); }, [&](int r, T x) { sweep.store(line, r, x); });
}

}  // namespace adimg::kernels
