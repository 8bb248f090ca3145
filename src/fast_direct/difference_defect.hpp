#pragma once
// The defect b - A x of the fast direct solver's refinement, one formula for both backends, in
// difference form:
//
//     (A x)_p = sum_q a_pq (x_q - x_p) + s_p x_p,   s_p = sum_q a_pq (the row's stored entries),
//
// with s_p summed by Neumaier's compensated sum. The products a_pq x_q of the plain form are of
// the size of x and round by eps |A| |x|, more than the defect that the smooth error of a
// transform solve leaves (its own rounding, amplified by the condition of the lowest modes). The
// differences of a smooth x are h times smaller, and so is their rounding. One refinement step
// with each, U1 at L=11: the L2 error 1.1e-5 (plain) and 1.6e-9 (differences) off that of the
// discrete solution (fast_direct_bench --against refined --min-refinements 1).
//
// The CPU takes the row from the assembled matrix and its sums from row_sums() (once, at setup);
// the GPU computes both from the element widths where it needs them (q1_stiffness_row(), the same
// bits as the assembly), so that it neither stores nor reads the nine bands.

#include "../common/host_device.hpp"
#include "../solver/bands_view.hpp"
#include "../solver/stencil.hpp"

#include <adimg/nine_bands.hpp>

#include <cmath>
#include <vector>

namespace adimg::fast_direct {

/// Sum of the entries band[k] of row (i, j) whose neighbour lies in the mx x my grid, by
/// Neumaier's compensated sum: its error is a few eps |s_p| however much the entries cancel.
ADIMG_HD double compensated_row_sum(const double band[9], int mx, int my, int i, int j) {
    double sum = 0.0, compensation = 0.0;
    for (int k = 0; k < 9; ++k) {
        const int ii = i + band_dx(k), jj = j + band_dy(k);
        if (ii < 0 || ii >= mx || jj < 0 || jj >= my) continue;
        const double a = band[k], next = sum + a;
        compensation += std::abs(sum) >= std::abs(a) ? (sum - next) + a : (a - next) + sum;
        sum = next;
    }
    return sum + compensation;
}

/// b_p - (A x)_p in difference form for node (i, j) of an mx x my grid, with row p's entries
/// band(k) and its sum row_sum (compensated_row_sum()).
template <class Band>
ADIMG_HD double difference_defect(int mx, int my, Band&& band, double row_sum, const double* b, const double* x, int i,
                                  int j) {
    const long long p = static_cast<long long>(j) * mx + i;
    const double centre = x[p];
    const double coupled = nine_point_product<double>(
        mx, my, i, j, band, [&](int dx, int dy) { return x[p + dy * static_cast<long long>(mx) + dx] - centre; });
    return b[p] - (coupled + row_sum * centre);
}

/// The same with row p of an assembled matrix; row_sums from row_sums().
ADIMG_HD double difference_defect(const BandsView<double>& A, const double* row_sums, const double* b, const double* x,
                                  int i, int j) {
    const long long p = static_cast<long long>(j) * A.mx + i;
    return difference_defect(A.mx, A.my, [&](int k) { return A(k, p); }, row_sums[p], b, x, i, j);
}

/// s_p = compensated_row_sum() of every row of A.
std::vector<double> row_sums(const NineBands<double>& A);

}  // namespace adimg::fast_direct
