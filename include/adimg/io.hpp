#pragma once
/// \file
/// Matrices in and out: Matrix Market files, Eigen sparse matrices, and the sparse direct solve
/// that serves as the reference.

#include <adimg/nine_bands.hpp>

#include <Eigen/SparseCore>

#include <filesystem>
#include <vector>

namespace adimg {

// --- Matrix Market ------------------------------------------------------------------------------

/// Writes a sparse matrix as "coordinate real general" with 17 significant digits.
void write_matrix_market(const std::filesystem::path& path, const Eigen::SparseMatrix<double>& A);
/// Writes a vector as "array real general" (one column).
void write_matrix_market(const std::filesystem::path& path, const std::vector<double>& v);

/// Reads "coordinate real general|symmetric" into a sparse matrix. Throws input_error naming the
/// file and line of any problem (header, size line, an entry out of range or not a number).
Eigen::SparseMatrix<double> read_matrix_market_matrix(const std::filesystem::path& path);
/// Reads an "array real general" single column, or a coordinate n x 1 matrix, into a vector.
std::vector<double> read_matrix_market_vector(const std::filesystem::path& path);

// --- Eigen --------------------------------------------------------------------------------------

/// The nine bands as a compressed column-major Eigen matrix (explicit zeros dropped).
Eigen::SparseMatrix<double> to_eigen(const NineBands<double>& A);

/// Nine bands from an Eigen matrix on an mx x my grid. Throws input_error naming the first
/// entry that is not a coupling of grid neighbours, or the size mismatch.
NineBands<double> from_eigen(const Eigen::SparseMatrix<double>& A, int mx, int my);

/// Solves A x = b by sparse Cholesky (Eigen's SimplicialLDLT) in double, or in float to show what
/// single precision alone gives (paper Table 1). Throws input_error if the factorisation fails.
std::vector<double> direct_solve(const NineBands<double>& A, const std::vector<double>& b, bool single_precision = false);

}  // namespace adimg
