#pragma once
// Whether a user's matrix can be symmetric positive definite: cheap certificates of the contrary.

#include <adimg/nine_bands.hpp>

#include "../common/host_device.hpp"
#include "matrix_messages.hpp"

#include <cstddef>

namespace adimg {

// Cheap necessary conditions for a positive definite matrix, each a certificate when it fails
// (docs/design.md §2 asks for a symmetric positive definite matrix; an indefinite or singular one
// would end in a diverging or stagnating solve with advice about smoothing). The unknowns (the
// nodes off the Dirichlet edges: the interior and the natural edges) must form a positive definite
// block by themselves, since no row couples into a Dirichlet node:
// - every 2 x 2 principal submatrix of two coupled unknowns p, q is positive definite:
//   |a_pq| < sqrt(a_pp a_qq);
// - v^T A v > 0 for the four sign patterns v = 1, (-1)^i, (-1)^j, (-1)^(i+j) on the unknowns
//   (0 on the Dirichlet edges): v^T A v < 0 beyond rounding is a certificate of an indefinite
//   matrix, and v = 1 with v^T A v = 0 to rounding is the constant null vector of a singular
//   matrix, which is accepted as a pure Neumann problem where every edge is natural (the return
//   value says so). The products a_pq v_p v_q are exact, and the compensated sum is accurate to
//   about 2 eps of the sum of |a_pq|, so the tolerances (matrix_definiteness.cpp) are well above
//   rounding.
// Throws input_error with the certificate; returns true for an accepted pure Neumann matrix (the
// constant null vector, every edge natural).
bool check_positive_definite(const NineBands<double>& A);

/// The unknowns of a matrix with natural edges `natural`: nodes i0..i1 by j0..j1.
struct Unknowns {
    int i0, i1, j0, j1;
    ADIMG_HD Unknowns(NaturalEdges natural, int mx, int my)
        : i0(natural.west ? 0 : 1), i1(natural.east ? mx - 1 : mx - 2), j0(natural.south ? 0 : 1),
          j1(natural.north ? my - 1 : my - 2) {}
    ADIMG_HD bool contain(int i, int j) const { return i >= i0 && i <= i1 && j >= j0 && j <= j1; }
};

/// What the checks measure over the unknowns, on the host or on the device: the failing 2 x 2
/// minors (the first in row order: row first_p, band first_k > C), each band's sum of couplings
/// among the unknowns (compensated) and the sum of their magnitudes.
struct DefinitenessSums {
    long long minors = 0;
    std::size_t first_p = 0;
    int first_k = 0;
    double band_sums[9] = {};
    double magnitude = 0.0;
};

/// The verdict on `sums`: throws input_error with the certificate (reading the entries it names
/// through `entry`); returns true for an accepted pure Neumann matrix.
bool judge_positive_definite(const DefinitenessSums& sums, NaturalEdges natural, int mx, int my,
                             const matrix_messages::EntryReader& entry);

}  // namespace adimg
