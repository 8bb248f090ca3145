#pragma once
// Whether a user's matrix can be symmetric positive definite: cheap certificates of the contrary.

#include <adimg/nine_bands.hpp>

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

}  // namespace adimg
