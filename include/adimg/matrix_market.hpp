#pragma once
/// \file
/// Matrix Market files: the system out for other tools, a user's system in.

#include <Eigen/SparseCore>

#include <filesystem>
#include <vector>

namespace adimg {

/// Writes a sparse matrix as "coordinate real general" with 17 significant digits.
void write_matrix_market(const std::filesystem::path& path, const Eigen::SparseMatrix<double>& A);
/// Writes a vector as "array real general" (one column).
void write_matrix_market(const std::filesystem::path& path, const std::vector<double>& v);

/// Reads "coordinate real general|symmetric" into a sparse matrix. Throws input_error naming the
/// file and line of any problem (header, size line, an entry out of range or not a number).
Eigen::SparseMatrix<double> read_matrix_market_matrix(const std::filesystem::path& path);
/// Reads an "array real general" single column, or a coordinate n x 1 matrix, into a vector.
std::vector<double> read_matrix_market_vector(const std::filesystem::path& path);

}  // namespace adimg
