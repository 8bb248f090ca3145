#pragma once
// The defect b - A x of the fast direct solver's refinement, one formula for both backends, in
// difference form (src/solver/difference_form.hpp says why). One refinement step, U1 at L = 11:
// the L2 error 1.1e-5 (plain) and 1.6e-9 (differences) off that of the discrete solution
// (fast_direct_bench --against refined --min-refinements 1).
//
// The CPU takes the row from the assembled matrix and its sums from row_sums() (once, at setup);
// the GPU computes both from the element widths where it needs them (q1_stiffness_row(), the same
// bits as the assembly), so that it neither stores nor reads the nine bands.

#include "../common/host_device.hpp"
#include "../solver/bands_view.hpp"
#include "../solver/difference_form.hpp"

#include <adimg/nine_bands.hpp>

#include <vector>

namespace adimg::fast_direct {

/// b_p - (A x)_p in difference form for node (i, j) of an mx x my grid, with row p's entries
/// band[k] and its sum row_sum (operator_row_sum()).
ADIMG_HD double difference_defect(const double band[9], double row_sum, int mx, int my, const double* b,
                                  const double* x, int i, int j) {
    const long long p = static_cast<long long>(j) * mx + i;
    return b[p] - difference_product(band, row_sum, mx, my, i, j,
                                     [&](int dx, int dy) { return x[p + dy * static_cast<long long>(mx) + dx]; });
}

/// The same with row p of an assembled matrix; row_sums from row_sums().
ADIMG_HD double difference_defect(const BandsView<double>& A, const double* row_sums, const double* b,
                                  const double* x, int i, int j) {
    const long long p = static_cast<long long>(j) * A.mx + i;
    double band[9];
    for (int k = 0; k < 9; ++k) band[k] = A(k, p);
    return difference_defect(band, row_sums[p], A.mx, A.my, b, x, i, j);
}

/// s_p = operator_row_sum() of every row of A.
std::vector<double> row_sums(const NineBands<double>& A);

}  // namespace adimg::fast_direct
