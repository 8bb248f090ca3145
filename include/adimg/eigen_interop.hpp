#pragma once
/// \file
/// Nine bands to and from Eigen sparse matrices, the direct reference solve, and the inverse of
/// a small matrix (the V-cycle's exact coarsest-grid solve).

#include <adimg/nine_bands.hpp>

#include <Eigen/SparseCore>

#include <vector>

namespace adimg {

/// The nine bands as a compressed column-major Eigen matrix (explicit zeros dropped).
Eigen::SparseMatrix<double> to_eigen(const NineBands<double>& A);

/// Nine bands from an Eigen matrix on an mx x my grid. Throws input_error naming the first
/// entry that is not a coupling of grid neighbours, or the size mismatch.
NineBands<double> from_eigen(const Eigen::SparseMatrix<double>& A, int mx, int my);

/// Solves A x = b by sparse Cholesky (Eigen's SimplicialLDLT) in double, or in float to show what
/// single precision alone gives (paper Table 1). Throws input_error if the factorisation fails.
std::vector<double> direct_solve(const NineBands<double>& A, const std::vector<double>& b, bool single_precision = false);

/// A^-1 as a dense row-major n x n array (n = A.rows()), by sparse Cholesky (Eigen's
/// SimplicialLDLT) if A is symmetric, else by sparse LU, solved for the n columns of the identity.
/// It costs about 40 ms for a 33 x 33 grid and a second for 65 x 65 (measured on 2 cores). Throws
/// input_error if A is singular.
std::vector<double> dense_inverse(const NineBands<double>& A);

}  // namespace adimg
