#pragma once
// The product (A x)_p in difference form, for the defects and products whose rounding decides how
// close a solve comes to the discrete solution:
//
//     (A x)_p = sum_q a_pq (x_q - x_p) + s_p x_p,   s_p = sum_q a_pq (the row's stored entries),
//
// with s_p summed by Neumaier's compensated sum. The products a_pq x_q of the plain form are of
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

/// (A x)_p in difference form for node (i, j) of an mx x my grid, with row p's entries band[k],
/// their sum row_sum (compensated_row_sum()) and x_at(dx, dy) the neighbour (i + dx, j + dy).
template <class At>
ADIMG_HD double difference_product(const double band[9], double row_sum, int mx, int my, int i, int j, At&& x_at) {
    const double centre = x_at(0, 0);
    const double coupled = nine_point_product<double>(mx, my, i, j, [&](int k) { return band[k]; },
                                                      [&](int dx, int dy) { return double(x_at(dx, dy)) - centre; });
    return coupled + row_sum * centre;
}

/// (A x)_p of the outer iteration for node (i, j) of x in memory (a pointer, or Corrected): in
/// difference form for double bands, the plain row_product for float ones.
template <class T, class V>
ADIMG_HD T outer_product(const BandsView<T>& A, const V& x, int i, int j) {
    if constexpr (std::is_same_v<T, double>) {
        const long long p = static_cast<long long>(j) * A.mx + i, mx = A.mx;
        double band[9];
        for (int k = 0; k < 9; ++k) band[k] = A(k, p);
        return difference_product(band, compensated_row_sum(band, A.mx, A.my, i, j), A.mx, A.my, i, j,
                                  [&](int dx, int dy) { return x[p + dy * mx + dx]; });
    } else {
        return row_product<T>(A, x, i, j);
    }
}

}  // namespace adimg
