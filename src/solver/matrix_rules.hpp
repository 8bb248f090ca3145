#pragma once
// The rules of a user's matrix (grid.hpp's contract), entry by entry: one formula each, shared by
// the host checks (grid.cpp, matrix_definiteness.cpp) and the device checks of a matrix handed
// over in GPU memory (src/cuda/device_matrix_checks.cu).

#include <adimg/nine_bands.hpp>

#include "../common/host_device.hpp"

#include <cfloat>
#include <cmath>
#include <cstddef>

namespace adimg::matrix_rules {

/// The checks of one pass over the entries, in the order their messages are tried. A row breaks a
/// check at its first band that does; `Offences` keeps the first such row and counts them all.
enum Check : int { not_finite = 0, off_grid, not_positive, asymmetric, row_only, check_count };

/// Whether band k of node (i, j) couples with a node on the mx x my grid.
ADIMG_HD bool on_grid(int i, int j, int k, int mx, int my) {
    const int qi = i + band_dx(k), qj = j + band_dy(k);
    return qi >= 0 && qi < mx && qj >= 0 && qj < my;
}

/// The row q that band k of row p couples with (an on-grid coupling).
ADIMG_HD std::size_t neighbour(std::size_t p, int k, int mx) {
    return static_cast<std::size_t>(static_cast<long long>(p) + static_cast<long long>(band_dy(k)) * mx + band_dx(k));
}

/// True if a_pq and a_qp differ by more than `tolerance` relative to the larger, and by more than
/// 64 eps sqrt(a_pp a_qq), rounding at the scale of the two diagonals (MatrixChecks).
ADIMG_HD bool pair_differs(double apq, double aqp, double app, double aqq, double tolerance) {
    const double diff = fabs(apq - aqp);
    return diff > tolerance * fmax(fabs(apq), fabs(aqp)) && diff > 64.0 * DBL_EPSILON * sqrt(app) * sqrt(aqq);
}

/// True if row p holds nothing but its diagonal (a Dirichlet row). `Bands` reads entry (k, p).
template <class Bands>
ADIMG_HD bool diagonal_only(const Bands& A, std::size_t p) {
    for (int k = 0; k < 9; ++k)
        if (k != C && A(k, p) != 0.0) return false;
    return true;
}

/// Whether entry k of row p = (i, j) breaks `check`. Pairs are compared once (k > C), against
/// band 8 - k of row q; a pair where one row holds only its diagonal is a Dirichlet row whose
/// column was left in the matrix (row-only enforcement, eliminated afterwards), any other
/// difference breaks symmetry.
template <class Bands>
ADIMG_HD bool breaks(int check, const Bands& A, std::size_t p, int i, int j, int k, double tolerance) {
    const double a = A(k, p);
    switch (check) {
#if defined(__CUDA_ARCH__)
    case not_finite: return !isfinite(a);
#else
    case not_finite: return !std::isfinite(a);
#endif
    case off_grid: return !on_grid(i, j, k, A.mx, A.my) && a != 0.0;
    case not_positive: return k == C && !(a > 0.0);
    default: break;
    }
    if (k <= C || !on_grid(i, j, k, A.mx, A.my)) return false;
    const std::size_t q = neighbour(p, k, A.mx);
    if (!pair_differs(a, A(8 - k, q), A(C, p), A(C, q), tolerance)) return false;
    const bool one_sided = diagonal_only(A, p) || diagonal_only(A, q);
    return check == row_only ? one_sided : !one_sided;
}

/// The 2 x 2 minor of coupled unknowns p and q: |a_pq| >= sqrt(a_pp) sqrt(a_qq) makes it (and the
/// matrix) indefinite or singular (matrix_definiteness.hpp).
ADIMG_HD bool minor_fails(double apq, double root_p, double root_q) { return fabs(apq) >= root_p * root_q; }

}  // namespace adimg::matrix_rules
