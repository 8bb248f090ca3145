#pragma once
// The CUDA kernels: each is the launch shape around a formula from <adimg/stencil.hpp> or
// src/lines/cyclic_reduction.hpp, the same formulas the CPU backend loops over.

#include "../solver/stencil.hpp"

#include "../lines/cyclic_reduction.hpp"
#include "../lines/partition_method.hpp"
#include "../solver/scalar_ratio.hpp"
#include "../lines/warp_line_solve.hpp"

#include <cuda_pipeline.h>

#include <cstddef>
#include <type_traits>

namespace adimg::kernels {

/// Programmatic dependent launch (Hopper): the backend launches every kernel so that it may be
/// scheduled while the previous kernel of the stream still runs, which hides most of the few
/// microseconds between two dependent launches (the coarse levels of a V-cycle are little else).
/// Every kernel therefore starts here: it waits until the previous kernel has finished and its
/// writes are visible, then lets the next kernel be scheduled in turn. Both are no-ops for a
/// plain launch and before sm_90.
__device__ __forceinline__ void follow_previous_kernel() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

/// The sum of `value` over the block's `threads` threads (a power of two), in a fixed order, so
/// that a reduction gives the same bits from run to run; valid in thread 0. `sums` is shared
/// memory of `threads` doubles.
__device__ __forceinline__ double block_sum(double value, double* sums, int t, int threads) {
    sums[t] = value;
    __syncthreads();
    for (int s = threads / 2; s > 0; s /= 2) {
        if (t < s) sums[t] += sums[t + s];
        __syncthreads();
    }
    return sums[0];
}

/// Threads of the 2D stencil kernels: 32 along x for coalescing, 8 rows.
constexpr int tile_x = 32, tile_y = 8;

template <class T>
__global__ void defect(BandsView<T> A, const T* __restrict__ b, const T* __restrict__ x, T* __restrict__ d) {
    follow_previous_kernel();
    const int i = blockIdx.x * tile_x + threadIdx.x, j = blockIdx.y * tile_y + threadIdx.y;
    if (i >= A.mx || j >= A.my) return;
    const std::size_t p = static_cast<std::size_t>(j) * A.mx + i;
    d[p] = b[p] - row_product<T>(A, x, i, j);
}

/// x_next = x + alpha c and d = b - A x_next in one pass, and one double partial sum of d² per
/// block (summed in a fixed order by dot_final: the norm is the same from run to run).
template <class X, class C>
__global__ void update_defect(BandsView<X> A, const X* __restrict__ b, const X* __restrict__ x, double alpha,
                              const C* __restrict__ c, X* __restrict__ x_next, X* __restrict__ d, double* partial) {
    follow_previous_kernel();
    __shared__ double sums[tile_x * tile_y];
    const int i = blockIdx.x * tile_x + threadIdx.x, j = blockIdx.y * tile_y + threadIdx.y;
    const int t = threadIdx.y * tile_x + threadIdx.x;
    double square = 0.0;
    if (i < A.mx && j < A.my) {
        const Corrected<X, C> corrected{x, c, alpha};
        const std::size_t p = static_cast<std::size_t>(j) * A.mx + i;
        x_next[p] = corrected[p];
        const X dp = b[p] - row_product<X>(A, corrected, i, j);
        d[p] = dp;
        square = double(dp) * double(dp);
    }
    const double sum = block_sum(square, sums, t, tile_x * tile_y);
    if (t == 0) partial[blockIdx.y * gridDim.x + blockIdx.x] = sum;
}

template <class T>
__global__ void jacobi(BandsView<T> A, const T* __restrict__ b, const T* __restrict__ x_in, T* __restrict__ x_out, T omega) {
    follow_previous_kernel();
    const int i = blockIdx.x * tile_x + threadIdx.x, j = blockIdx.y * tile_y + threadIdx.y;
    if (i >= A.mx || j >= A.my) return;
    const std::size_t p = static_cast<std::size_t>(j) * A.mx + i;
    x_out[p] = jacobi_update(x_in[p], b[p], row_product<T>(A, x_in, i, j), A(C, p), omega);
}

/// Steps (2) damped Jacobi steps in one pass over memory (temporal blocking). A block of
/// jacobi_stream_threads threads owns a strip of columns and walks down a band of rows; thread t
/// holds column blockIdx.x * (threads - 2 Steps) - Steps + t. At iteration q it loads row q (the
/// nine bands, b, x_in), and step s = 1 .. Steps updates row q - s from step s - 1's rows
/// q - s - 1 .. q - s + 1, which live in shared memory rings of four rows; every thread keeps
/// its own column's bands and b of the last Steps rows in registers (a node's update needs only
/// its own row of the matrix). So the bands, b and x_in are read once and x_out written once
/// for all the steps. The price: the strip's edge columns (Steps on each side) and the band's
/// edge rows (Steps above and below) are computed by both neighbours, and the block meets a
/// barrier Steps times per row. The next row's loads are issued before the current row is
/// computed, so they are in flight meanwhile. The code is written for any number of steps;
/// three and four in one pass were measured slower than passes of two (bench/PERFORMANCE.md,
/// "Jacobi steps streamed down bands of rows"), so two is the most the backend asks for.
constexpr int jacobi_stream_threads = 128;
constexpr int max_fused_jacobi_steps = 2;

template <class T>
struct JacobiRow {
    T band[9];
    T b;
};

template <class T, int Steps>
__global__ void __launch_bounds__(jacobi_stream_threads)
    jacobi_steps(BandsView<T> A, const T* __restrict__ b, const T* __restrict__ x_in, T* __restrict__ x_out, T omega,
                 int rows_per_block) {
    static_assert(Steps >= 2 && Steps <= max_fused_jacobi_steps, "a pass fuses two steps or more");
    follow_previous_kernel();
    constexpr int threads = jacobi_stream_threads, width = threads - 2 * Steps;
    __shared__ T ring[Steps][4][threads];  // ring[s][j % 4][t]: step s's value at row j (s = 0 is x_in)
    const int t = threadIdx.x;
    const int i = blockIdx.x * width - Steps + t;
    const int r0 = blockIdx.y * rows_per_block, r1 = min(r0 + rows_per_block, A.my);
    const bool in_grid = i >= 0 && i < A.mx;

    // Row q of this thread's column; zeros outside the grid (never used: the nine-point product
    // skips neighbours there).
    auto load = [&](int q, JacobiRow<T>& row, T& x) {
        const bool inside = in_grid && q < A.my;
        const std::size_t p = static_cast<std::size_t>(q) * A.mx + i;
#pragma unroll
        for (int k = 0; k < 9; ++k) row.band[k] = inside ? A(k, p) : T(0);
        row.b = inside ? b[p] : T(0);
        x = inside ? x_in[p] : T(0);
    };
    // rows[k]: row q - 1 - k at the top of iteration q. Zeros before the first rows arrive: left
    // uninitialised, the compiler may fold the shift below into a copy of rows[0] (it did for
    // three and four steps per pass, which then read the wrong rows).
    JacobiRow<T> rows[Steps] = {};
    JacobiRow<T> next;
    T next_x;
    const int first = max(r0 - Steps, 0), last = r1 - 1 + Steps;
    load(first, next, next_x);
    for (int q = first; q <= last; ++q) {
        const JacobiRow<T> current = next;
        ring[0][q & 3][t] = next_x;
        if (q < last) load(q + 1, next, next_x);
        __syncthreads();
#pragma unroll
        for (int s = 1; s <= Steps; ++s) {
            // Step s updates row j = q - s where a later step, or the output, needs it.
            const int j = q - s, reach = Steps - s;
            const bool needed = in_grid && t >= s && t < threads - s && j >= max(r0 - reach, 0) &&
                                j <= min(r1 - 1 + reach, A.my - 1);
            T value = T(0);
            if (needed) {
                const JacobiRow<T>& row = rows[s - 1];
                const T Ax = nine_point_product<T>(A.mx, A.my, i, j, [&](int k) { return row.band[k]; },
                                                   [&](int dx, int dy) { return ring[s - 1][(j + dy) & 3][t + dx]; });
                value = jacobi_update(ring[s - 1][j & 3][t], row.b, Ax, row.band[C], omega);
            }
            if (s < Steps) {
                ring[s][j & 3][t] = value;
                __syncthreads();
            } else if (needed) {  // the last step is needed exactly on the block's own nodes
                x_out[static_cast<std::size_t>(j) * A.mx + i] = value;
            }
        }
#pragma unroll
        for (int k = Steps - 1; k > 0; --k) rows[k] = rows[k - 1];
        rows[0] = current;
    }
}

/// One colour (ci, cj) of the four-colour Gauss–Seidel sweep: thread (I, J) updates node
/// (2I + ci, 2J + cj); nodes of one colour do not couple, so the in-place update is race-free.
template <class T>
__global__ void gauss_seidel_colour(BandsView<T> A, const T* __restrict__ b, T* x, int ci, int cj) {
    follow_previous_kernel();
    const int i = 2 * (blockIdx.x * tile_x + threadIdx.x) + ci, j = 2 * (blockIdx.y * tile_y + threadIdx.y) + cj;
    if (i >= A.mx || j >= A.my) return;
    const std::size_t p = static_cast<std::size_t>(j) * A.mx + i;
    x[p] = jacobi_update(x[p], b[p], row_product<T>(A, x, i, j), A(C, p), T(1));
}

template <class T>
__global__ void restrict_to(const T* __restrict__ fine, int mx_fine, int my_fine, const T* __restrict__ split_x,
                            const T* __restrict__ split_y, T* __restrict__ coarse) {
    follow_previous_kernel();
    const int mxc = mx_fine / 2 + 1, myc = my_fine / 2 + 1;
    const int I = blockIdx.x * tile_x + threadIdx.x, J = blockIdx.y * tile_y + threadIdx.y;
    if (I >= mxc || J >= myc) return;
    coarse[static_cast<std::size_t>(J) * mxc + I] = restrict_value(fine, mx_fine, my_fine, split_x, split_y, I, J);
}

/// The defect b - A x restricted to the coarse grid in one pass (restrict_defect): a block of
/// tile_x x tile_y coarse nodes first computes the fine defects it needs, a (2 tile_x + 1) x
/// (2 tile_y + 1) patch, into shared memory, then restricts them. The fine defect is never
/// written to memory nor read back; the patch edges are computed by both neighbouring blocks
/// (65 x 17 defects for 64 x 16 fine nodes: 8% more defect work than the grid holds).
constexpr int patch_x = 2 * tile_x + 1, patch_y = 2 * tile_y + 1;
template <class T>
__global__ void restrict_defect(BandsView<T> A, const T* __restrict__ b, const T* __restrict__ x,
                                const T* __restrict__ split_x, const T* __restrict__ split_y, T* __restrict__ coarse) {
    follow_previous_kernel();
    __shared__ T patch[patch_y][patch_x];
    const int I0 = blockIdx.x * tile_x, J0 = blockIdx.y * tile_y;
    const int i0 = 2 * I0 - 1, j0 = 2 * J0 - 1;  // fine node of patch[0][0]
    const int thread = threadIdx.y * tile_x + threadIdx.x;
    for (int k = thread; k < patch_x * patch_y; k += tile_x * tile_y) {
        const int i = i0 + k % patch_x, j = j0 + k / patch_x;
        T d = T(0);  // outside the grid: read only for coarse boundary nodes, which ignore it
        if (i >= 0 && j >= 0 && i < A.mx && j < A.my)
            d = b[static_cast<std::size_t>(j) * A.mx + i] - row_product<T>(A, x, i, j);
        patch[k / patch_x][k % patch_x] = d;
    }
    __syncthreads();
    const int mxc = A.mx / 2 + 1, myc = A.my / 2 + 1;
    const int I = I0 + threadIdx.x, J = J0 + threadIdx.y;
    if (I >= mxc || J >= myc) return;
    auto fine = [&](int i, int j) { return patch[j - j0][i - i0]; };
    coarse[static_cast<std::size_t>(J) * mxc + I] = restrict_from<T>(fine, mxc, myc, split_x, split_y, I, J);
}

template <class T>
__global__ void prolong_add(const T* __restrict__ coarse, const T* __restrict__ split_x, const T* __restrict__ split_y,
                            T* __restrict__ fine, int mx_fine, int my_fine) {
    follow_previous_kernel();
    const int i = blockIdx.x * tile_x + threadIdx.x, j = blockIdx.y * tile_y + threadIdx.y;
    if (i < 1 || j < 1 || i >= mx_fine - 1 || j >= my_fine - 1) return;
    fine[static_cast<std::size_t>(j) * mx_fine + i] += prolong_value(coarse, mx_fine / 2 + 1, split_x, split_y, i, j);
}

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
               Direction direction, T omega, const __grid_constant__ CrLayout layout) {
    follow_previous_kernel();
    const LineSweep<T> sweep{A, b, x_in, x_out, direction, omega};
    extern __shared__ unsigned char raw_shared[];
    T* shared = reinterpret_cast<T*>(raw_shared);
    const int first = blockIdx.x * Lines;
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

/// The ADI half-step for short lines: one warp per line, K slots per lane (warp_line_solve.hpp),
/// warps_per_line_block adjacent lines per block. The y-lines are read in place, strided: the
/// warps of a block read adjacent columns, so each 32-byte sector they touch is used whole.
constexpr int warps_per_line_block = 8;

template <class T, int K>
__global__ void __launch_bounds__(warps_per_line_block * warp_lanes) line_relax_warp(BandsView<T> A, const T* __restrict__ b, const T* __restrict__ x_in, T* __restrict__ x_out,
                    Direction direction, T omega) {
    follow_previous_kernel();
    const LineSweep<T> sweep{A, b, x_in, x_out, direction, omega};
    const int lane = threadIdx.x % warp_lanes;
    const int line = blockIdx.x * warps_per_line_block + threadIdx.x / warp_lanes;
    if (line >= sweep.lines()) return;  // the whole warp: the shuffles below see all 32 lanes
    const int length = sweep.length();
    CrEquation<T> eq[K];
#pragma unroll
    for (int m = 0; m < K; ++m) {
        const int r = lane + warp_lanes * m;
        eq[m] = r < length ? sweep.load(line, r) : CrEquation<T>{T(0), T(0), T(0)};
    }
    warp_line_solve(eq, ShuffleWarp{lane});
#pragma unroll
    for (int m = 0; m < K; ++m) {
        const int r = lane + warp_lanes * m;
        if (r < length) sweep.store(line, r, eq[m].v);
    }
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
                           Direction direction, T omega, PartitionLayout layout) {
    follow_previous_kernel();
    const LineSweep<T> sweep{A, b, x_in, x_out, direction, omega};
    extern __shared__ unsigned char raw_shared[];
    T* shared = reinterpret_cast<T*>(raw_shared);
    const int line = blockIdx.x;
    BlockPartition exec;
    partitioned_line_solve<Slots, T>(
        layout, shared, exec, [&](int r) { return sweep.load(line, r); }, [&](int r, T x) { sweep.store(line, r, x); });
}

/// Solves a batch of independent tridiagonal systems (for the comparison with cuSPARSE):
/// system s has its diagonals at offset s * n in dl, d, du and its right-hand side in x, which
/// receives the solution (gtsv2StridedBatch's layout). In place is safe with every staging: the
/// only phase that writes x is the last, and there each thread reads (the even equation it
/// solves, without E_0) only the entry it then writes.
template <class T, CrStaging S>
__global__ void __launch_bounds__(1024)
    tridiagonal_batch(const T* __restrict__ dl, const T* __restrict__ d, const T* __restrict__ du, T* x,
                      const __grid_constant__ CrLayout layout) {
    follow_previous_kernel();
    extern __shared__ unsigned char raw_shared[];
    T* shared = reinterpret_cast<T*>(raw_shared);
    const std::size_t base = static_cast<std::size_t>(blockIdx.x) * layout.n;
    BlockPhases<1> phase;
    auto load = [&](int, int r) { return cr_normalise(dl[base + r], d[base + r], du[base + r], x[base + r]); };
    auto store = [&](int, int r, T value) { x[base + r] = value; };
    cyclic_reduction<T>(layout, std::integral_constant<CrStaging, S>{}, shared, phase, load, store);
}

/// The batch of tridiagonal_batch() by the partition method, one system per block; `Raw`: each
/// system staged as it is by cp.async (the layout must be raw), else loaded per equation. Two
/// kernels, not one with a branch: the float one loading per equation needs 32 registers alone,
/// 39 with the staging compiled in.
template <class T, int Slots, bool Raw>
__global__ void __launch_bounds__(2 * partition_max_chunks)
    tridiagonal_batch_partitioned(const T* __restrict__ dl, const T* __restrict__ d, const T* __restrict__ du, T* x,
                                  PartitionLayout layout) {
    follow_previous_kernel();
    extern __shared__ unsigned char raw_shared[];
    T* shared = reinterpret_cast<T*>(raw_shared);
    const std::size_t base = static_cast<std::size_t>(blockIdx.x) * layout.n;
    BlockPartition exec;
    auto store = [&](int r, T value) { x[base + r] = value; };
    if constexpr (Raw)
        partitioned_line_solve<Slots, T>(layout, shared, exec, RawLine<T>{dl + base, d + base, du + base, x + base}, store);
    else
        partitioned_line_solve<Slots, T>(
            layout, shared, exec, [&](int r) { return cr_normalise(dl[base + r], d[base + r], du[base + r], x[base + r]); },
            store);
}

/// Arrays transposed by one launch of `transpose`, blockIdx.z picking the pair: the two inputs
/// of a y-sweep together (one dependent launch less per sweep), or the nine bands.
constexpr int max_transposed_arrays = 9;
template <class T>
struct TransposePairs {
    const T* in[max_transposed_arrays];
    T* out[max_transposed_arrays];
};

/// out (cols x rows, row-major) = in (rows x cols, row-major) transposed, through a 32 x 33 tile
/// (the extra column keeps the column reads of the tile free of bank conflicts).
template <class T>
__global__ void transpose(const __grid_constant__ TransposePairs<T> pairs, int rows, int cols) {
    follow_previous_kernel();
    __shared__ T tile[tile_x][tile_x + 1];
    const T* __restrict__ in = pairs.in[blockIdx.z];
    T* __restrict__ out = pairs.out[blockIdx.z];
    const int c = blockIdx.x * tile_x + threadIdx.x;
    for (int r = blockIdx.y * tile_x + threadIdx.y, k = threadIdx.y; k < tile_x; r += tile_y, k += tile_y)
        if (r < rows && c < cols) tile[k][threadIdx.x] = in[static_cast<std::size_t>(r) * cols + c];
    __syncthreads();
    const int r_out = blockIdx.y * tile_x + threadIdx.x;  // a column of `in` becomes a row of `out`
    for (int c_out = blockIdx.x * tile_x + threadIdx.y, k = threadIdx.y; k < tile_x; c_out += tile_y, k += tile_y)
        if (c_out < cols && r_out < rows) out[static_cast<std::size_t>(c_out) * rows + r_out] = tile[threadIdx.x][k];
}

// --- vector operations (grid-stride loops) -----------------------------------------------------

#define ADIMG_GRID_STRIDE(p, n) \
    for (std::size_t p = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; p < (n); \
         p += static_cast<std::size_t>(blockDim.x) * gridDim.x)

template <class T>
__global__ void fill(T* v, std::size_t n, T value) {
    follow_previous_kernel();
    ADIMG_GRID_STRIDE(p, n) v[p] = value;
}
template <class S, class T>
__global__ void axpy(double alpha, const S* __restrict__ x, T* __restrict__ y, std::size_t n) {
    follow_previous_kernel();
    ADIMG_GRID_STRIDE(p, n) y[p] = T(y[p] + alpha * x[p]);
}
template <class T>
__global__ void xpay(const T* __restrict__ x, double beta, T* __restrict__ y, std::size_t n) {
    follow_previous_kernel();
    ADIMG_GRID_STRIDE(p, n) y[p] = T(x[p] + beta * y[p]);
}
template <class S, class T>
__global__ void scale_convert(double alpha, const S* __restrict__ src, T* __restrict__ dst, std::size_t n) {
    follow_previous_kernel();
    ADIMG_GRID_STRIDE(p, n) dst[p] = T(alpha * src[p]);
}

template <class T>
__global__ void axpy_ratio(const double* num, const double* den, double sign, const T* __restrict__ x, T* __restrict__ y,
                           std::size_t n) {
    follow_previous_kernel();
    const double alpha = sign * scalar_ratio(*num, 0.0, *den);
    ADIMG_GRID_STRIDE(p, n) y[p] = T(y[p] + alpha * x[p]);
}
template <class T>
__global__ void xpay_ratio(const T* __restrict__ x, const double* num, const double* num_minus, const double* den,
                           T* __restrict__ y, std::size_t n) {
    follow_previous_kernel();
    const double beta = scalar_ratio(*num, *num_minus, *den);
    ADIMG_GRID_STRIDE(p, n) y[p] = T(x[p] + beta * y[p]);
}

/// x = M b for the dense row-major n x n matrix M in double (the coarsest grid's inverse): one
/// warp per row, so each row is read coalesced, and the sum is accumulated in double.
constexpr int dense_rows_per_block = 8;
template <class T>
__global__ void dense_apply(const double* __restrict__ M, const T* __restrict__ b, T* __restrict__ x, int n) {
    follow_previous_kernel();
    const int row = blockIdx.x * dense_rows_per_block + threadIdx.x / 32, lane = threadIdx.x % 32;
    if (row >= n) return;
    const double* m = M + static_cast<std::size_t>(row) * n;
    double sum = 0.0;
    for (int j = lane; j < n; j += 32) sum += m[j] * double(b[j]);
    for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
    if (lane == 0) x[row] = T(sum);
}

/// Deterministic dot product, first pass: one double partial sum per block.
constexpr int reduce_threads = 256;
template <class T>
__global__ void dot_partial(const T* __restrict__ x, const T* __restrict__ y, std::size_t n, double* partial) {
    follow_previous_kernel();
    __shared__ double sums[reduce_threads];
    double sum = 0.0;
    ADIMG_GRID_STRIDE(p, n) sum += double(x[p]) * double(y[p]);
    sum = block_sum(sum, sums, threadIdx.x, reduce_threads);
    if (threadIdx.x == 0) partial[blockIdx.x] = sum;
}
/// Second pass: one block adds the partial sums in a fixed order.
__global__ void dot_final(const double* partial, int count, double* result);

}  // namespace adimg::kernels
