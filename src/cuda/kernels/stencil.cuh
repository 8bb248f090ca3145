#pragma once
// The nine-band stencil kernels: defect, Jacobi (one step, or several streamed in one pass),
// four-colour Gauss–Seidel and the grid transfers, each the launch shape around a formula of
// src/solver/stencil.hpp (and difference_form.hpp for the outer iteration's defects and products),
// the formulas the CPU backend loops over.

#include "launch.cuh"

#include "../../solver/difference_form.hpp"
#include "../../solver/stencil.hpp"

#include <cstddef>

namespace adimg::kernels {

/// Threads of the 2D stencil kernels: 32 along x for coalescing, 8 rows.
constexpr int tile_x = 32, tile_y = 8;

/// The grid's node count, by which column c's vectors are offset (column_block()).
template <class T>
__device__ __forceinline__ std::size_t nodes(const BandsView<T>& A) {
    return static_cast<std::size_t>(A.mx) * A.my;
}

template <class T>
__global__ void defect(BandsView<T> A, const T* __restrict__ b, const T* __restrict__ x, T* __restrict__ d, int columns) {
    follow_previous_kernel();
    const ColumnBlock block = column_block(columns);
    to_column(block.column * nodes(A), b, x, d);
    const int i = block.x * tile_x + threadIdx.x, j = blockIdx.y * tile_y + threadIdx.y;
    if (i >= A.mx || j >= A.my) return;
    const std::size_t p = static_cast<std::size_t>(j) * A.mx + i;
    d[p] = b[p] - outer_product<T>(A, x, i, j);
}

/// Pairs of vectors of one grid, wherever each lies: y[c] = A x[c] for c < count in one launch
/// (the products of a batch's lanes, each with vectors of its own).
constexpr int max_products = 8;
template <class T>
struct Products {
    const T* x[max_products];
    T* y[max_products];
    int count;
};

/// A vector read through the read-only data cache, as a const __restrict__ parameter's loads are
/// (a pointer from a table cannot be marked so).
template <class T>
struct ReadOnly {
    const T* values;
    __device__ T operator[](long long p) const { return __ldg(values + p); }
};

/// y = A x, and (Several) more.y[c] = A more.x[c] for the further pairs of a batch, each row of A
/// read (and its row sum formed) once for all. The first pair comes as __restrict__ parameters,
/// and one product alone is compiled without the table: through the table one product took 13%
/// longer, and with the table's loop after it (empty) 6%.
template <class T, bool Several>
__global__ void multiply(BandsView<T> A, const T* __restrict__ x, T* __restrict__ y, const __grid_constant__ Products<T> more) {
    follow_previous_kernel();
    const int i = blockIdx.x * tile_x + threadIdx.x, j = blockIdx.y * tile_y + threadIdx.y;
    if (i >= A.mx || j >= A.my) return;
    const OuterRow<T> row(A, i, j);
    const std::size_t p = static_cast<std::size_t>(j) * A.mx + i;
    y[p] = row.product(x);
    if constexpr (Several)
        for (int c = 0; c < more.count; ++c) more.y[c][p] = row.product(ReadOnly<T>{more.x[c]});
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
        const X dp = b[p] - outer_product<X>(A, corrected, i, j);
        d[p] = dp;
        square = double(dp) * double(dp);
    }
    const double sum = block_sum(square, sums, t, tile_x * tile_y);
    if (t == 0) partial[blockIdx.y * gridDim.x + blockIdx.x] = sum;
}

template <class T>
__global__ void jacobi(BandsView<T> A, const T* __restrict__ b, const T* __restrict__ x_in, T* __restrict__ x_out, T omega,
                       int columns) {
    follow_previous_kernel();
    const ColumnBlock block = column_block(columns);
    to_column(block.column * nodes(A), b, x_in, x_out);
    const int i = block.x * tile_x + threadIdx.x, j = blockIdx.y * tile_y + threadIdx.y;
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
/// three and four in one pass were measured slower than passes of two (docs/performance.md,
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
                 int rows_per_block, int columns) {
    static_assert(Steps >= 2 && Steps <= max_fused_jacobi_steps, "a pass fuses two steps or more");
    follow_previous_kernel();
    constexpr int threads = jacobi_stream_threads, width = threads - 2 * Steps;
    __shared__ T ring[Steps][4][threads];  // ring[s][j % 4][t]: step s's value at row j (s = 0 is x_in)
    const ColumnBlock block = column_block(columns);
    to_column(block.column * nodes(A), b, x_in, x_out);
    const int t = threadIdx.x;
    const int i = block.x * width - Steps + t;
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
__global__ void gauss_seidel_colour(BandsView<T> A, const T* __restrict__ b, T* x, int ci, int cj, int columns) {
    follow_previous_kernel();
    const ColumnBlock block = column_block(columns);
    to_column(block.column * nodes(A), b, x);
    const int i = 2 * (block.x * tile_x + threadIdx.x) + ci, j = 2 * (blockIdx.y * tile_y + threadIdx.y) + cj;
    if (i >= A.mx || j >= A.my) return;
    const std::size_t p = static_cast<std::size_t>(j) * A.mx + i;
    x[p] = jacobi_update(x[p], b[p], row_product<T>(A, x, i, j), A(C, p), T(1));
}

template <class T>
__global__ void restrict_to(const T* __restrict__ fine, int mx_fine, int my_fine, const T* __restrict__ split_x,
                            const T* __restrict__ split_y, NaturalEdges natural, T* __restrict__ coarse, int columns) {
    follow_previous_kernel();
    const int mxc = x_axis(mx_fine, natural).coarse, myc = y_axis(my_fine, natural).coarse;
    const ColumnBlock block = column_block(columns);
    fine += block.column * static_cast<std::size_t>(mx_fine) * my_fine;
    coarse += block.column * static_cast<std::size_t>(mxc) * myc;
    const int I = block.x * tile_x + threadIdx.x, J = blockIdx.y * tile_y + threadIdx.y;
    if (I >= mxc || J >= myc) return;
    coarse[static_cast<std::size_t>(J) * mxc + I] = restrict_value(fine, mx_fine, my_fine, split_x, split_y, I, J, natural);
}

/// The defect b - A x restricted to the coarse grid in one pass (restrict_defect): a block of
/// tile_x x tile_y coarse nodes first computes the fine defects it needs, a (2 tile_x + 1) x
/// (2 tile_y + 1) patch, into shared memory, then restricts them. The fine defect is never
/// written to memory nor read back; the patch edges are computed by both neighbouring blocks
/// (65 x 17 defects for 64 x 16 fine nodes: 8% more defect work than the grid holds). Coarse
/// nodes on the natural edges of A gather as restrict_from() says.
constexpr int patch_x = 2 * tile_x + 1, patch_y = 2 * tile_y + 1;
template <class T>
__global__ void restrict_defect(BandsView<T> A, const T* __restrict__ b, const T* __restrict__ x,
                                const T* __restrict__ split_x, const T* __restrict__ split_y, NaturalEdges natural,
                                T* __restrict__ coarse, int columns) {
    follow_previous_kernel();
    __shared__ T patch[patch_y][patch_x];
    const Axis ax = x_axis(A.mx, natural), ay = y_axis(A.my, natural);
    const ColumnBlock block = column_block(columns);
    to_column(block.column * nodes(A), b, x);
    coarse += block.column * static_cast<std::size_t>(ax.coarse) * ay.coarse;
    const int I0 = block.x * tile_x, J0 = blockIdx.y * tile_y;
    const int i0 = ax.first_child(I0), j0 = ay.first_child(J0);  // fine node of patch[0][0]
    const int thread = threadIdx.y * tile_x + threadIdx.x;
    for (int k = thread; k < patch_x * patch_y; k += tile_x * tile_y) {
        const int i = i0 + k % patch_x, j = j0 + k / patch_x;
        T d = T(0);  // outside the grid: never read (restrict_from skips it)
        if (i >= 0 && j >= 0 && i < A.mx && j < A.my)
            d = b[static_cast<std::size_t>(j) * A.mx + i] - row_product<T>(A, x, i, j);
        patch[k / patch_x][k % patch_x] = d;
    }
    __syncthreads();
    const int I = I0 + threadIdx.x, J = J0 + threadIdx.y;
    if (I >= ax.coarse || J >= ay.coarse) return;
    auto fine = [&](int i, int j) { return patch[j - j0][i - i0]; };
    coarse[static_cast<std::size_t>(J) * ax.coarse + I] = restrict_from<T>(fine, ax, ay, split_x, split_y, I, J, natural);
}

/// fine += P coarse on every fine node that is not on a Dirichlet edge (prolonged_range()).
template <class T>
__global__ void prolong_add(const T* __restrict__ coarse, const T* __restrict__ split_x, const T* __restrict__ split_y,
                            T* __restrict__ fine, int mx_fine, int my_fine, NaturalEdges natural, int columns) {
    follow_previous_kernel();
    const ColumnBlock block = column_block(columns);
    coarse += block.column * static_cast<std::size_t>(x_axis(mx_fine, natural).coarse) * y_axis(my_fine, natural).coarse;
    fine += block.column * static_cast<std::size_t>(mx_fine) * my_fine;
    const int i = block.x * tile_x + threadIdx.x, j = blockIdx.y * tile_y + threadIdx.y;
    if (j >= my_fine) return;
    int i0, i1;
    prolonged_range(j, mx_fine, my_fine, natural, i0, i1);
    if (i < i0 || i > i1) return;
    fine[static_cast<std::size_t>(j) * mx_fine + i] +=
        prolong_value(coarse, x_axis(mx_fine, natural), y_axis(my_fine, natural), split_x, split_y, i, j);
}

}  // namespace adimg::kernels
