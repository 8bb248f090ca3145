#pragma once
// The product (A x)_p in difference form, for the defects and products whose rounding decides how
// close a solve comes to the discrete solution:
//
//     (A x)_p = sum_q a_pq (x_q - x_p) + s_p x_p,   s_p = sum_q a_pq (the row's stored entries),
//
// with s_p summed by Neumaier's compensated sum and taken as zero where it lies within the
// entries' rounding (operator_row_sum(): the rows of a diffusion operator). The products a_pq x_q of the plain form are of
// the size of x and round by eps |A| |x|; a converged iterate then wanders by about
// A^-1 (eps |A| |x|), eps cond(A) |x| in its smooth part, which grows as h^-2 while the
// discretisation error falls as h^2: U1's relative L2 error at L = 12, 13, 14 came out
// 6.7715e-8, 1.6783e-8, 3.664e-9 on the GPU (ratios 0.248 and 0.218, not 0.25) and other values
// from other builds. The differences of a smooth x are h times smaller, and so is their rounding:
// in this form the CPU gives 6.7754e-8 and 1.6938e-8 (0.2500). The fast direct solver's
// refinement and the multigrid's outer iteration in double (outer_product: its defects and the
// flexible CG's products, every backend) take this form; the V-cycle's float arithmetic keeps the
// plain one, whose rounding is far below float's.

#include "bands_view.hpp"
#include "stencil.hpp"

#include <cmath>
#include <type_traits>

namespace adimg {

/// f(band[k]) for the entries of row (i, j) whose neighbour lies in the mx x my grid.
template <class F>
ADIMG_HD void for_each_row_entry(const double band[9], int mx, int my, int i, int j, F&& f) {
    for (int k = 0; k < 9; ++k) {
        const int ii = i + band_dx(k), jj = j + band_dy(k);
        if (ii >= 0 && ii < mx && jj >= 0 && jj < my) f(band[k]);
    }
}

/// Sum of the entries band[k] of row (i, j) whose neighbour lies in the mx x my grid, by
/// Neumaier's compensated sum: its error is a few eps |s_p| however much the entries cancel.
ADIMG_HD double compensated_row_sum(const double band[9], int mx, int my, int i, int j) {
    double sum = 0.0, compensation = 0.0;
    for_each_row_entry(band, mx, my, i, j, [&](double a) {
        const double next = sum + a;
        compensation += std::abs(sum) >= std::abs(a) ? (sum - next) + a : (a - next) + sum;
        sum = next;
    });
    return sum + compensation;
}

/// The row sum s_p that the difference form takes: compensated_row_sum(), or exactly zero where
/// it lies within the rounding of the row's entries, |s_p| <= 4 eps sum_q |a_pq|. A diffusion
/// operator's rows sum to zero away from Dirichlet edges, but its entries are rounded: A2's
/// assembled rows sum to +1.1e-17 of their diagonal on average (0.05 ulp, of one sign over whole
/// regions of alike elements; at most 0.32 eps sum |a_pq| in the eight built-in cases), a spurious
/// reaction term whose effect on the solution, A^-1 (s u), grows as h^-2: 1.8e-11 of u at L = 12
/// and about 1e-9 at L = 15, where it raised the relative L2 error from 2.06e-9 to 2.81e-9. The
/// bound leaves room for other assemblies' rounding (a diagonal summed from four elements); a
/// genuine reaction term below it is as small as the rounding of the entries themselves. Rows by
/// a Dirichlet edge keep their sums (the couplings into the edge, removed, of the diagonal's size).
ADIMG_HD double operator_row_sum(const double band[9], int mx, int my, int i, int j) {
    constexpr double eps = 2.220446049250313e-16;
    double magnitude = 0.0;
    for_each_row_entry(band, mx, my, i, j, [&](double a) { magnitude += std::abs(a); });
    const double sum = compensated_row_sum(band, mx, my, i, j);
    return std::abs(sum) <= 4 * eps * magnitude ? 0.0 : sum;
}

/// (A x)_p in difference form for node (i, j) of an mx x my grid, with row p's entries band[k],
/// their sum row_sum (operator_row_sum()) and x_at(dx, dy) the neighbour (i + dx, j + dy).
template <class At>
ADIMG_HD double difference_product(const double band[9], double row_sum, int mx, int my, int i, int j, At&& x_at) {
    const double centre = x_at(0, 0);
    const double coupled = nine_point_product<double>(mx, my, i, j, [&](int k) { return band[k]; },
                                                      [&](int dx, int dy) { return double(x_at(dx, dy)) - centre; });
    return coupled + row_sum * centre;
}

/// Row (i, j) of the outer iteration's matrix, read once, and its product with any x in memory
/// (a pointer, or Corrected): in difference form for double bands (the entries and their row sum
/// held), the plain row_product for float ones. Several vectors' products with one row (a batch
/// of right-hand sides) read it once.
template <class T>
struct OuterRow;

template <>
struct OuterRow<double> {
    const BandsView<double>& A;
    int i, j;
    long long p;
    double band[9];
    double row_sum;
    ADIMG_HD OuterRow(const BandsView<double>& matrix, int i_, int j_)
        : A(matrix), i(i_), j(j_), p(static_cast<long long>(j_) * matrix.mx + i_) {
        for (int k = 0; k < 9; ++k) band[k] = A(k, p);
        row_sum = operator_row_sum(band, A.mx, A.my, i, j);
    }
    template <class V>
    ADIMG_HD double product(const V& x) const {
        const long long mx = A.mx;
        return difference_product(band, row_sum, A.mx, A.my, i, j, [&](int dx, int dy) { return x[p + dy * mx + dx]; });
    }
};

template <>
struct OuterRow<float> {
    const BandsView<float>& A;
    int i, j;
    ADIMG_HD OuterRow(const BandsView<float>& matrix, int i_, int j_) : A(matrix), i(i_), j(j_) {}
    template <class V>
    ADIMG_HD float product(const V& x) const {
        return row_product<float>(A, x, i, j);
    }
};

/// (A x)_p of the outer iteration for node (i, j) (OuterRow).
template <class T, class V>
ADIMG_HD T outer_product(const BandsView<T>& A, const V& x, int i, int j) {
    return OuterRow<T>(A, i, j).product(x);
}

}  // namespace adimg
