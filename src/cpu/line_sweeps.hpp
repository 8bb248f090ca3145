#pragma once
// The CPU backend's ADI half-step: every grid line of one direction solved by the Thomas algorithm
// on its in-line couplings, right-hand side b - (off-line couplings) x_in (stencil.hpp), and
// x_out = x_in + omega (solution - x_in).
//
// Laid out for a core: the right-hand sides of a grid row are one branch-free loop over its
// interior, which vectorises; y-lines advance a block of columns one grid row at a time (each step
// a vector loop along the row); x-lines, whose recurrence runs along memory, are solved a few rows
// at a time so that their dependent chains overlap. The values of the node before (forward) and
// after (back) are carried in small arrays, never read back from the grid: grids are 2^L + 1 wide,
// so the node one row up lies a multiple of 4 KiB from the one just written, and reading it
// stalls on the store. The arithmetic is the textbook Thomas algorithm's, node by node.
// docs/performance.md, "CPU line sweeps and stencil loops".

#include "../solver/bands_view.hpp"
#include "../solver/stencil.hpp"

#include <algorithm>
#include <cstddef>
#include <type_traits>

namespace adimg::cpu {

/// node(i, interior) for i in [i0, i1) of grid row j of an mx x my grid: the nodes whose eight
/// neighbours are all in the grid (interior = std::true_type) as one loop that the compiler
/// vectorises (omp simd: node() must carry nothing from one node to the next), the edge nodes
/// (std::false_type) apart. The CPU backend's stencil loops and the line sweeps' right-hand sides
/// both walk their rows this way.
template <class Node>
inline void row_nodes(int mx, int my, int j, int i0, int i1, Node&& node) {
    const bool inner_row = j > 0 && j < my - 1;
    const int lo = inner_row ? std::clamp(1, i0, i1) : i1, hi = inner_row ? std::clamp(mx - 1, lo, i1) : i1;
    for (int i = i0; i < lo; ++i) node(i, std::false_type{});
#pragma omp simd
    for (int i = lo; i < hi; ++i) node(i, std::true_type{});
    for (int i = hi; i < i1; ++i) node(i, std::false_type{});
}

/// out[i - i0] = b[p] - (off-line couplings of node (i, j)) x_in for i in [i0, i1) of grid row j,
/// p = j mx + i: the checked formula on the grid edge, the unchecked one inside.
template <Direction line, class T>
void line_right_hand_sides(const BandsView<T>& A, const T* __restrict b, const T* __restrict x_in, int j, int i0, int i1,
                           T* __restrict out) {
    const std::ptrdiff_t row = static_cast<std::ptrdiff_t>(j) * A.mx;
    row_nodes(A.mx, A.my, j, i0, i1, [&](int i, auto interior) {
        if constexpr (decltype(interior)::value)
            out[i - i0] = b[row + i] - off_line_interior(A, x_in, row + i, line);
        else
            out[i - i0] = b[row + i] - off_line_product(A, x_in, i, j, line);
    });
}

/// One Thomas elimination step: from the node before's ratio c' and value d' (both 0 at a line's
/// start) and this node's row and right-hand side, this node's c' and d'. Two divisions, as the
/// algorithm is usually written: a reciprocal and two products cost no less here and would round
/// differently from the reference the CUDA kernels and the tests were checked against.
template <class T>
inline void thomas_forward(const LineRow<T>& row, T rhs, T& c_prime, T& d_prime) {
    const T pivot = row.diag - row.lower * c_prime;
    c_prime = row.upper / pivot;
    d_prime = (rhs - row.lower * d_prime) / pivot;
}

/// One grid row of a block of y-lines, forward: each column's Thomas step from the c' and d' of
/// the row before (carried in c_before, d_before and updated), d holding the right-hand sides
/// and receiving d', c receiving c'. Restrict-qualified so that the loop vectorises.
template <class T>
void y_line_forward(int count, const T* __restrict lower, const T* __restrict diag, const T* __restrict upper,
                    T* __restrict c_before, T* __restrict d_before, T* __restrict c, T* __restrict d) {
    for (int s = 0; s < count; ++s) {
        T c_s = c_before[s], d_s = d_before[s];
        thomas_forward(LineRow<T>{lower[s], diag[s], upper[s]}, d[s], c_s, d_s);
        c[s] = c_before[s] = c_s;
        d[s] = d_before[s] = d_s;
    }
}

/// One grid row of a block of y-lines, backward: solution = d' - c' (solution of the row after),
/// carried in `after`; out = x_in + omega (solution - x_in). `last`: the lines' last row.
template <class T>
void y_line_backward(int count, bool last, const T* __restrict c, const T* __restrict in, T omega, T* __restrict after,
                     T* __restrict out) {
    for (int s = 0; s < count; ++s) {
        const T solution = last ? out[s] : out[s] - c[s] * after[s];
        after[s] = solution;
        out[s] = relax(in[s], solution, omega);
    }
}

/// The y-lines of columns [first, first + count): forward elimination grid row by grid row, d'
/// into x_out and c' into c_prime (count per grid row), then back substitution upward with
/// damping. carry holds 2 count values.
template <class T>
void y_line_block(const BandsView<T>& A, const T* b, const T* x_in, T* x_out, T omega, int first, int count, T* c_prime,
                  T* carry) {
    const std::ptrdiff_t mx = A.mx, n = static_cast<std::ptrdiff_t>(A.rows());
    std::fill(carry, carry + 2 * count, T(0));
    for (int j = 0; j < A.my; ++j) {
        const std::ptrdiff_t row = j * mx + first;
        line_right_hand_sides<Direction::y>(A, b, x_in, j, first, first + count, x_out + row);
        y_line_forward(count, A.values + lower_band(Direction::y) * n + row, A.values + C * n + row,
                       A.values + upper_band(Direction::y) * n + row, carry, carry + count,
                       c_prime + static_cast<std::ptrdiff_t>(j) * count, x_out + row);
    }
    for (int j = A.my - 1; j >= 0; --j) {
        const std::ptrdiff_t row = j * mx + first;
        y_line_backward(count, j == A.my - 1, c_prime + static_cast<std::ptrdiff_t>(j) * count, x_in + row, omega, carry,
                        x_out + row);
    }
}

/// The x-lines of grid rows first, first + spacing, ... (count of them, at most x_line_group),
/// solved side by side: right-hand sides into x_out, then forward elimination (c' into c_prime,
/// x_line_group per node) and back substitution along the rows. The rows are far apart, not
/// adjacent: adjacent rows lie a multiple of 4 KiB plus one value apart, so a store to one row
/// and the next load from its neighbour would alias.
inline constexpr int x_line_group = 4;
template <class T>
void x_line_group_sweep(const BandsView<T>& A, const T* b, const T* x_in, T* x_out, T omega, int first, int spacing,
                        int count, T* c_prime) {
    const std::ptrdiff_t mx = A.mx;
    std::ptrdiff_t row[x_line_group];
    for (int s = 0; s < count; ++s) {
        row[s] = (first + s * spacing) * mx;
        line_right_hand_sides<Direction::x>(A, b, x_in, first + s * spacing, 0, A.mx, x_out + row[s]);
    }
    T c[x_line_group] = {}, d[x_line_group] = {};
    for (int i = 0; i < A.mx; ++i)
        for (int s = 0; s < count; ++s) {
            const std::ptrdiff_t p = row[s] + i;
            thomas_forward(line_row(A, p, Direction::x), x_out[p], c[s], d[s]);
            c_prime[i * x_line_group + s] = c[s];
            x_out[p] = d[s];
        }
    T after[x_line_group];  // the undamped solution of the node after
    for (int i = A.mx - 1; i >= 0; --i)
        for (int s = 0; s < count; ++s) {
            const std::ptrdiff_t p = row[s] + i;
            const T solution = i == A.mx - 1 ? x_out[p] : x_out[p] - c_prime[i * x_line_group + s] * after[s];
            after[s] = solution;
            x_out[p] = relax(x_in[p], solution, omega);
        }
}

/// Columns per y-line block: the columns shared evenly among the threads, at most 1024 per block
/// (wide blocks stream whole grid rows; docs/performance.md, "CPU line sweeps and stencil loops").
inline int y_block_width(int mx, int threads) {
    const int blocks = std::max(threads, (mx + 1023) / 1024);
    return (mx + blocks - 1) / blocks;
}

}  // namespace adimg::cpu
