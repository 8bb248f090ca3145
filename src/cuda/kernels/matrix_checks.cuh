#pragma once
// The checks of a user's matrix in device memory (DeviceGridMatrix), with the rules of
// matrix_rules.hpp and matrix_definiteness.hpp. One pass over the bands (check_bands) copies them
// into the matrix's storage, runs every row check and sums the definiteness certificates; the
// first offending row of each check is found with atomicMin on (row, band), the rows counted with
// atomicAdd, and everything the host needs lands in one CheckResults, read once.

#include "../../solver/bands_view.hpp"
#include "../../solver/matrix_definiteness.hpp"
#include "../../solver/matrix_rules.hpp"
#include "compensated_block_sum.cuh"
#include "launch.cuh"

#include <cstddef>

namespace adimg::kernels {

/// Threads of check_bands' blocks, and the most blocks (fixed, so that the definiteness sums do
/// not depend on the device).
inline constexpr int check_threads = 256;
inline constexpr int max_check_blocks = 1024;

/// One block's part of DefinitenessSums (matrix_definiteness.hpp): per band the compensated sum of
/// the couplings among the unknowns, and the sum of their magnitudes.
struct DefinitenessPart {
    CompensatedSum band_sums[9];
    CompensatedSum magnitude;
};

/// What the checks find. Per check of matrix_rules the rows that break it and the first
/// (row * 9 + band); which edges (south, north, west, east) are natural; the failing 2 x 2 minors
/// and the first (row * 9 + band); the definiteness sums of all blocks.
struct CheckResults {
    unsigned long long rows[matrix_rules::check_count];
    unsigned long long first[matrix_rules::check_count];
    unsigned int natural[4];
    unsigned long long minors;
    unsigned long long first_minor;
    DefinitenessPart total;
};

/// The counts zero, the first offences none (one thread).
static __global__ void reset_check_results(CheckResults* r) {
    follow_previous_kernel();
    *r = CheckResults{};
    for (int c = 0; c < matrix_rules::check_count; ++c) r->first[c] = ~0ull;
    r->first_minor = ~0ull;
}

/// The edge of edge position e (0 <= e < 2 mx + 2 my): 0 south, 1 north, 2 west, 3 east.
__device__ inline int edge_of(int e, int mx, int my) { return e < mx ? 0 : e < 2 * mx ? 1 : e < 2 * mx + my ? 2 : 3; }

/// The node of edge position e: the south row, the north row, the west column, the east column
/// (corners twice).
ADIMG_HD std::size_t edge_node(int e, int mx, int my) {
    if (e < mx) return static_cast<std::size_t>(e);
    if (e < 2 * mx) return static_cast<std::size_t>(my - 1) * mx + (e - mx);
    if (e < 2 * mx + my) return static_cast<std::size_t>(e - 2 * mx) * mx;
    return static_cast<std::size_t>(e - 2 * mx - my) * mx + mx - 1;
}

/// r->natural[s] = 1 for the edges (south, north, west, east) with a row that holds more than its
/// diagonal (find_natural_edges in grid.cpp).
static __global__ void find_natural_edges(BandsView<double> A, CheckResults* r) {
    follow_previous_kernel();
    ADIMG_GRID_STRIDE(e, 2 * static_cast<std::size_t>(A.mx) + 2 * A.my) {
        const int i = static_cast<int>(e);
        if (!matrix_rules::diagonal_only(A, edge_node(i, A.mx, A.my))) atomicOr(&r->natural[edge_of(i, A.mx, A.my)], 1u);
    }
}

/// The bands of a view with one row's nine entries read once, into registers (the loops over the
/// bands that read it are unrolled): what matrix_rules' formulas read row p through.
struct RowHeld {
    BandsView<double> bands;
    std::size_t p;
    int mx, my;
    double a[9];
    __device__ RowHeld(BandsView<double> A, std::size_t row) : bands(A), p(row), mx(A.mx), my(A.my) {
        ADIMG_UNROLL
        for (int k = 0; k < 9; ++k) a[k] = A(k, row);
    }
    __device__ double operator()(int k, std::size_t q) const { return q == p ? a[k] : bands(k, q); }
};

/// Records the rows of node (i, j) that break each check of matrix_rules, at its first band that
/// does (as the host's scan): the three checks of single entries first, then the two that compare
/// a_pq with a_qp, looked at only where a pair differs, which both need (matrix_rules::breaks).
__device__ inline void check_row(const RowHeld& A, int i, int j, double tolerance, CheckResults* r) {
    auto record = [&](int c, int k) {
        atomicAdd(&r->rows[c], 1ull);
        atomicMin(&r->first[c], static_cast<unsigned long long>(A.p) * 9 + k);
    };
    ADIMG_UNROLL
    for (int c = matrix_rules::not_finite; c <= matrix_rules::not_positive; ++c) {
        ADIMG_UNROLL
        for (int k = 0; k < 9; ++k)
            if (matrix_rules::breaks(c, A, A.p, i, j, k, tolerance)) {
                record(c, k);
                break;
            }
    }
    bool differs = false;
    ADIMG_UNROLL
    for (int k = C + 1; k < 9; ++k)
        if (matrix_rules::on_grid(i, j, k, A.mx, A.my)) {
            const std::size_t q = matrix_rules::neighbour(A.p, k, A.mx);
            differs = differs || matrix_rules::pair_differs(A.a[k], A.bands(8 - k, q), A.a[C], A.bands(C, q), tolerance);
        }
    if (!differs) return;
    // Rare: read through the bands, so that nothing indexes the held entries by a variable band
    // (which would move them out of registers for the whole pass).
    for (int c = matrix_rules::asymmetric; c <= matrix_rules::row_only; ++c)
        for (int k = 0; k < 9; ++k)
            if (matrix_rules::breaks(c, A.bands, A.p, i, j, k, tolerance)) {
                record(c, k);
                break;
            }
}

/// One pass over the bands of A: block b takes grid rows b, b + gridDim.x, ..., its threads the
/// nodes along them. Each node's nine entries are read once; `copy` (if given) receives them;
/// with `row_checks` every check of matrix_rules is run on them; if the node is an unknown (off
/// the Dirichlet edges r->natural names) its couplings among the unknowns go into the
/// definiteness sums (matrix_definiteness.hpp) and its failing 2 x 2 minors are counted.
/// parts[b] receives block b's sums, in a fixed order, so that they do not change from run to run.
static __global__ void check_bands(BandsView<double> A, double* copy, bool row_checks, double tolerance, CheckResults* r,
                                   DefinitenessPart* parts) {
    follow_previous_kernel();
    const NaturalEdges natural{r->natural[2] != 0, r->natural[3] != 0, r->natural[0] != 0, r->natural[1] != 0};
    const Unknowns u(natural, A.mx, A.my);
    const std::size_t n = A.rows();
    DefinitenessPart mine{};  // the magnitudes a plain sum per thread, compensated across threads
    for (int j = blockIdx.x; j < A.my; j += gridDim.x)
        for (int i = threadIdx.x; i < A.mx; i += blockDim.x) {
            const RowHeld row(A, static_cast<std::size_t>(j) * A.mx + i);
            if (copy) {
                ADIMG_UNROLL
                for (int k = 0; k < 9; ++k) copy[k * n + row.p] = row.a[k];
            }
            if (row_checks) check_row(row, i, j, tolerance, r);
            if (!u.contain(i, j)) continue;
            const double root_p = sqrt(row.a[C]);
            ADIMG_UNROLL
            for (int k = 0; k < 9; ++k) {
                if (!u.contain(i + band_dx(k), j + band_dy(k))) continue;
                const double a = row.a[k];
                mine.band_sums[k].add(a);
                mine.magnitude.sum += fabs(a);
                if (k > C && matrix_rules::minor_fails(a, root_p, sqrt(A(C, matrix_rules::neighbour(row.p, k, A.mx))))) {
                    atomicAdd(&r->minors, 1ull);
                    atomicMin(&r->first_minor, static_cast<unsigned long long>(row.p) * 9 + k);
                }
            }
        }
    // The block's sums, each over the warp's lanes by a fixed tree, then over the warps in order.
    __shared__ DefinitenessPart warps[check_threads / 32];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    ADIMG_UNROLL  // constant indices: `mine` stays in registers through the pass
    for (int k = 0; k < 10; ++k) {
        CompensatedSum& s = k < 9 ? mine.band_sums[k] : mine.magnitude;
        s = warp_compensated_sum(s);
        if (lane == 0) (k < 9 ? warps[warp].band_sums[k] : warps[warp].magnitude) = s;
    }
    __syncthreads();
    if (threadIdx.x >= 10) return;
    const int k = threadIdx.x;
    CompensatedSum total;
    for (int w = 0; w < check_threads / 32; ++w) add_part(total, k < 9 ? warps[w].band_sums[k] : warps[w].magnitude);
    (k < 9 ? parts[blockIdx.x].band_sums[k] : parts[blockIdx.x].magnitude) = total;
}

/// The parts of `count` blocks into r->total, in block order (one block of 10 threads: band k, and
/// the magnitude).
static __global__ void definiteness_total(const DefinitenessPart* parts, int count, CheckResults* r) {
    follow_previous_kernel();
    const int k = threadIdx.x;
    if (k >= 10) return;
    CompensatedSum sum;
    for (int b = 0; b < count; ++b) add_part(sum, k < 9 ? parts[b].band_sums[k] : parts[b].magnitude);
    (k < 9 ? r->total.band_sums[k] : r->total.magnitude) = sum;
}

/// A coupling into a Dirichlet row, found by eliminate_row_only (row p, column q, a_pq, a_qq).
struct Coupling {
    unsigned long long row, column;
    double value, diagonal;
};

/// Removes from M every coupling into a row that holds only its diagonal in `given` (the bands as
/// handed over, which M is a copy of and which this leaves alone, so that no thread sees another's
/// removals), appending it to `found` (at most `capacity`; *count counts them all, so that a
/// caller can size `found` from a run with capacity 0, which removes nothing).
static __global__ void eliminate_row_only(BandsView<double> given, double* M, Coupling* found, unsigned long long capacity,
                                          unsigned long long* count) {
    follow_previous_kernel();
    ADIMG_GRID_STRIDE(p, given.rows()) {
        const int i = static_cast<int>(p % given.mx), j = static_cast<int>(p / given.mx);
        for (int k = 0; k < 9; ++k) {
            if (k == C || !matrix_rules::on_grid(i, j, k, given.mx, given.my) || given(k, p) == 0.0) continue;
            const std::size_t q = matrix_rules::neighbour(p, k, given.mx);
            if (!matrix_rules::diagonal_only(given, q)) continue;
            const unsigned long long at = atomicAdd(count, 1ull);
            if (at < capacity) found[at] = {p, q, given(k, p), given(C, q)};
            if (capacity > 0) M[k * given.rows() + p] = 0.0;
        }
    }
}

/// The Dirichlet edge rows (only their diagonal), marked by edge position e: diagonal[e] = a_pp of
/// the row p = edge_node(e), 0 where that row is not one (a Dirichlet row's diagonal is positive:
/// the row checks ran before) and at a corner's west or east visit (corners are taken on their
/// south or north one). Rows whose diagonal is not 1 are scaled to the identity in M. The host
/// lists the rows from `diagonal` in ascending order by walking the edges row by row, with no
/// sort (DeviceGridMatrix::check).
static __global__ void mark_dirichlet_edges(BandsView<double> A, double* M, double* diagonal) {
    follow_previous_kernel();
    ADIMG_GRID_STRIDE(e, 2 * static_cast<std::size_t>(A.mx) + 2 * A.my) {
        const int i = static_cast<int>(e);
        const bool corner_again = i >= 2 * A.mx && ((i - 2 * A.mx) % A.my == 0 || (i - 2 * A.mx) % A.my == A.my - 1);
        const std::size_t p = edge_node(i, A.mx, A.my);
        const bool dirichlet = !corner_again && matrix_rules::diagonal_only(A, p);
        diagonal[e] = dirichlet ? A(C, p) : 0.0;
        if (dirichlet && A(C, p) != 1.0) M[C * A.rows() + p] = 1.0;
    }
}

}  // namespace adimg::kernels
