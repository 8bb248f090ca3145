#pragma once
// The 2-norm without overflow or underflow for finite input, on the host. The backends and the
// CLI compute the plain sum of squares first (one pass, the fast path of every solve) and take
// it when it is exact enough (plain_sum_usable); otherwise two passes, as LAPACK's dnrm2 scales:
// the largest |x_p|, then the sum of (x_p / largest)^2. A right-hand side with entries of 1e170
// has the norm it has, not infinity, and one with entries of 1e-170 not zero.

#include <cmath>
#include <cstddef>

namespace adimg {

/// Whether a plain sum of squares in double is the squared norm to rounding: finite (no square
/// and no partial sum overflowed, and no NaN) and so large that the squares below the normal
/// range, each off by at most 2^-1075, cannot matter (2^31 of them stay below 1e-305).
inline bool plain_sum_usable(double sum_of_squares) {
    return std::isfinite(sum_of_squares) && sum_of_squares >= 1e-290;
}

/// ||x||_2 by two passes: the largest magnitude m, then m sqrt(sum (x_p / m)^2). Infinite if an
/// entry is infinite, NaN if one is NaN.
template <class T>
double scaled_norm2(const T* x, std::size_t n) {
    const std::ptrdiff_t count = static_cast<std::ptrdiff_t>(n);
    double largest = 0.0;
    bool nan = false;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) reduction(max : largest) reduction(|| : nan) if(n >= 16384)
#endif
    for (std::ptrdiff_t p = 0; p < count; ++p) {
        const double a = std::abs(static_cast<double>(x[p]));
        nan = nan || a != a;
        largest = a > largest ? a : largest;
    }
    if (nan) return NAN;
    if (largest == 0.0 || !std::isfinite(largest)) return largest;
    double sum = 0.0;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) reduction(+ : sum) if(n >= 16384)
#endif
    for (std::ptrdiff_t p = 0; p < count; ++p) {
        const double r = static_cast<double>(x[p]) / largest;
        sum += r * r;
    }
    return largest * std::sqrt(sum);
}

/// ||x||_2 given the plain sum of squares of x: its root where that is usable, else two scaled
/// passes over x.
template <class T>
double norm_from_sum_of_squares(double sum_of_squares, const T* x, std::size_t n) {
    if (plain_sum_usable(sum_of_squares)) return std::sqrt(sum_of_squares);
    if (std::isnan(sum_of_squares)) return sum_of_squares;
    return scaled_norm2(x, n);
}

/// ||x||_2 of n values on the host, without overflow or underflow for finite input.
template <class T>
double stable_norm2(const T* x, std::size_t n) {
    double sum = 0.0;
    const std::ptrdiff_t count = static_cast<std::ptrdiff_t>(n);
#ifdef _OPENMP
#pragma omp parallel for schedule(static) reduction(+ : sum) if(n >= 16384)
#endif
    for (std::ptrdiff_t p = 0; p < count; ++p) sum += static_cast<double>(x[p]) * static_cast<double>(x[p]);
    return norm_from_sum_of_squares(sum, x, n);
}

}  // namespace adimg
