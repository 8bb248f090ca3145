#pragma once
// The checks of a user's matrix in device memory (DeviceGridMatrix), one thread per row, with the
// rules of matrix_rules.hpp and matrix_definiteness.hpp: what the host checks find in one pass,
// the first offending row of each check found with atomicMin on (row, band) and the rows counted
// with atomicAdd.

#include "../../solver/bands_view.hpp"
#include "../../solver/matrix_definiteness.hpp"
#include "../../solver/matrix_rules.hpp"
#include "compensated_block_sum.cuh"
#include "launch.cuh"

#include <cstddef>

namespace adimg::kernels {

/// What the row checks find: per check, the rows that break it and the first (row * 9 + band).
struct RowCheckResults {
    unsigned long long rows[matrix_rules::check_count];
    unsigned long long first[matrix_rules::check_count];
};

/// A writable view of the bands (elimination and scaling change them).
struct MutableBands {
    double* values;
    int mx, my;
    __device__ std::size_t rows() const { return static_cast<std::size_t>(mx) * my; }
    __device__ double& operator()(int k, std::size_t p) const { return values[k * rows() + p]; }
};

/// Every check of matrix_rules on every row; dirichlet[p] = whether row p holds only its diagonal.
__global__ void check_rows(BandsView<double> A, double tolerance, RowCheckResults* out, unsigned char* dirichlet) {
    ADIMG_GRID_STRIDE(p, A.rows()) {
        const int i = static_cast<int>(p % A.mx), j = static_cast<int>(p / A.mx);
        dirichlet[p] = matrix_rules::diagonal_only(A, p);
        for (int c = 0; c < matrix_rules::check_count; ++c)
            for (int k = 0; k < 9; ++k)
                if (matrix_rules::breaks(c, A, p, i, j, k, tolerance)) {
                    atomicAdd(&out->rows[c], 1ull);
                    atomicMin(&out->first[c], static_cast<unsigned long long>(p) * 9 + k);
                    break;
                }
    }
}

/// A coupling into a Dirichlet row, found by eliminate_row_only (row p, column q, a_pq, a_qq).
struct Coupling {
    unsigned long long row, column;
    double value, diagonal;
};

/// Removes every coupling into a row that held only its diagonal before (dirichlet[q]), appending
/// it to `found` (at most `capacity`; *count counts them all, so that a caller can size `found`
/// from a run with capacity 0).
__global__ void eliminate_row_only(MutableBands A, const unsigned char* dirichlet, Coupling* found,
                                   unsigned long long capacity, unsigned long long* count) {
    ADIMG_GRID_STRIDE(p, A.rows()) {
        const int i = static_cast<int>(p % A.mx), j = static_cast<int>(p / A.mx);
        for (int k = 0; k < 9; ++k) {
            if (k == C || !matrix_rules::on_grid(i, j, k, A.mx, A.my) || A(k, p) == 0.0) continue;
            const std::size_t q = matrix_rules::neighbour(p, k, A.mx);
            if (!dirichlet[q]) continue;
            const unsigned long long at = atomicAdd(count, 1ull);
            if (at < capacity) found[at] = {p, q, A(k, p), A(C, q)};
            if (capacity > 0) A(k, p) = 0.0;
        }
    }
}

/// The edge of edge position e (0 <= e < 2 mx + 2 my): 0 south, 1 north, 2 west, 3 east.
__device__ inline int edge_of(int e, int mx, int my) { return e < mx ? 0 : e < 2 * mx ? 1 : e < 2 * mx + my ? 2 : 3; }

/// The node of edge position e: the south row, the north row, the west column, the east column
/// (corners twice).
__device__ inline std::size_t edge_node(int e, int mx, int my) {
    if (e < mx) return static_cast<std::size_t>(e);
    if (e < 2 * mx) return static_cast<std::size_t>(my - 1) * mx + (e - mx);
    if (e < 2 * mx + my) return static_cast<std::size_t>(e - 2 * mx) * mx;
    return static_cast<std::size_t>(e - 2 * mx - my) * mx + mx - 1;
}

/// natural[s] = 1 for the edges (south, north, west, east) with a row that holds more than its
/// diagonal (find_natural_edges in grid.cpp).
__global__ void find_natural_edges(BandsView<double> A, unsigned int* natural) {
    ADIMG_GRID_STRIDE(e, 2 * static_cast<std::size_t>(A.mx) + 2 * A.my) {
        const int i = static_cast<int>(e);
        if (!matrix_rules::diagonal_only(A, edge_node(i, A.mx, A.my))) atomicOr(&natural[edge_of(i, A.mx, A.my)], 1u);
    }
}

/// Dirichlet edge rows (only their diagonal) appended to `rows`; those whose diagonal is not 1
/// appended to `scaled` with that diagonal, and scaled to the identity. Corners appear twice in
/// the walk of edge_node and are taken on their south or north visit only.
__global__ void scale_dirichlet_edges(MutableBands A, unsigned long long* rows, unsigned long long* row_count,
                                      Coupling* scaled, unsigned long long* scaled_count) {
    ADIMG_GRID_STRIDE(e, 2 * static_cast<std::size_t>(A.mx) + 2 * A.my) {
        const int i = static_cast<int>(e);
        const bool corner_again = i >= 2 * A.mx && ((i - 2 * A.mx) % A.my == 0 || (i - 2 * A.mx) % A.my == A.my - 1);
        const std::size_t p = edge_node(i, A.mx, A.my);
        if (corner_again || !matrix_rules::diagonal_only(A, p)) continue;
        rows[atomicAdd(row_count, 1ull)] = p;
        if (A(C, p) != 1.0) {
            scaled[atomicAdd(scaled_count, 1ull)] = {p, p, A(C, p), A(C, p)};
            A(C, p) = 1.0;
        }
    }
}

/// Threads of the definiteness sums' blocks.
inline constexpr int definiteness_threads = 256;

/// One block's part of DefinitenessSums (matrix_definiteness.hpp): per band the compensated sum of
/// the couplings among the unknowns, the sum of their magnitudes, the failing minors.
struct DefinitenessPart {
    CompensatedSum band_sums[9];
    double magnitude;
};

/// Each block sums rows j0 + blockIdx.x, + gridDim.x, ... of the unknowns into parts[blockIdx.x]
/// (its threads in a fixed order, so that the result does not change from run to run); failing
/// minors are counted in *minors and the first (row * 9 + band) kept in *first_minor.
__global__ void definiteness_parts(BandsView<double> A, Unknowns u, DefinitenessPart* parts, unsigned long long* minors,
                                   unsigned long long* first_minor) {
    __shared__ CompensatedSum shared[definiteness_threads];
    DefinitenessPart mine{};
    for (int j = u.j0 + blockIdx.x; j <= u.j1; j += gridDim.x)
        for (int i = u.i0 + threadIdx.x; i <= u.i1; i += blockDim.x) {
            const std::size_t p = static_cast<std::size_t>(j) * A.mx + i;
            for (int k = 0; k < 9; ++k) {
                if (!u.contain(i + band_dx(k), j + band_dy(k))) continue;
                const double a = A(k, p);
                mine.band_sums[k].add(a);
                mine.magnitude += fabs(a);
                if (k > C && matrix_rules::minor_fails(a, sqrt(A(C, p)), sqrt(A(C, matrix_rules::neighbour(p, k, A.mx))))) {
                    atomicAdd(minors, 1ull);
                    atomicMin(first_minor, static_cast<unsigned long long>(p) * 9 + k);
                }
            }
        }
    // The block's sums, band by band, and the magnitudes (a plain sum, no correction).
    DefinitenessPart& out = parts[blockIdx.x];
    for (int k = 0; k < 10; ++k) {
        const CompensatedSum part = k < 9 ? mine.band_sums[k] : CompensatedSum{mine.magnitude, 0.0};
        const CompensatedSum total = block_compensated_sum(part, shared);
        if (threadIdx.x != 0) continue;
        if (k < 9) out.band_sums[k] = total;
        else out.magnitude = total.value();
    }
}

/// The parts of `count` blocks into one, in block order (one block of 10 threads: band k, and the
/// magnitude).
__global__ void definiteness_total(const DefinitenessPart* parts, int count, DefinitenessPart* total) {
    const int k = threadIdx.x;
    CompensatedSum sum;
    for (int b = 0; b < count; ++b) {
        if (k < 9) add_part(sum, parts[b].band_sums[k]);
        else sum.add(parts[b].magnitude);
    }
    if (k < 9) total->band_sums[k] = sum;
    else if (k == 9) total->magnitude = sum.value();
}

}  // namespace adimg::kernels
