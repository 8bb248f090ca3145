#pragma once
// The defect b - A x of the fast direct solver's refinement, one formula for both backends, in
// difference form:
//
//     (A x)_p = sum_q a_pq (x_q - x_p) + s_p x_p,   s_p = sum_q a_pq (the row's stored entries),
//
// with s_p summed once at setup (row_sums, compensated). The products a_pq x_q of the plain form
// are of the size of x and round by eps |A| |x|, more than the defect that the smooth error of a
// transform solve leaves (its own rounding, amplified by the condition of the lowest modes). The
// differences of a smooth x are h times smaller, and so is their rounding. One refinement step
// with each, U1 at L=11: the L2 error 1.1e-5 (plain) and 1.6e-9 (differences) off that of the
// discrete solution (fast_direct_bench --against refined --min-refinements 1).

#include "../common/host_device.hpp"
#include "../solver/bands_view.hpp"
#include "../solver/stencil.hpp"

#include <adimg/nine_bands.hpp>

#include <vector>

namespace adimg::fast_direct {

/// b_p - (A x)_p in difference form for node (i, j); row_sums from row_sums().
ADIMG_HD double difference_defect(const BandsView<double>& A, const double* row_sums, const double* b, const double* x,
                                  int i, int j) {
    const long long p = static_cast<long long>(j) * A.mx + i, mx = A.mx;
    const double centre = x[p];
    const double coupled = nine_point_product<double>(
        A.mx, A.my, i, j, [&](int k) { return A(k, p); }, [&](int dx, int dy) { return x[p + dy * mx + dx] - centre; });
    return b[p] - (coupled + row_sums[p] * centre);
}

/// s_p = sum of row p's stored entries for every row, each by Neumaier's compensated sum: its
/// error is a few eps |s_p| however much the entries cancel.
std::vector<double> row_sums(const NineBands<double>& A);

}  // namespace adimg::fast_direct
