#pragma once
/// \file
/// Nine bands to and from Eigen sparse matrices, and the direct reference solve.

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

}  // namespace adimg
