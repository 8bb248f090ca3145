#pragma once
// The coarsest grid's matrix factored once, for the V-cycle's exact coarse solve: applied as it
// is (the CPU backend: two sparse triangular solves, O(n w) for a grid of n nodes and bandwidth
// w), or turned into the dense inverse (the CUDA backend, which applies it as one product).

#include <adimg/nine_bands.hpp>

#include <Eigen/SparseCholesky>
#include <Eigen/SparseCore>
#include <Eigen/SparseLU>

#include <memory>
#include <vector>

namespace adimg {

/// True if A equals its transpose to 1e-12 relative (Frobenius norm): the test that chooses a
/// Cholesky factorisation over LU for the coarsest grid.
bool nearly_symmetric(const NineBands<double>& A);

/// True if every edge of A is natural and every row sums to zero to rounding: the coarse matrix
/// of a pure Neumann problem, singular with the constant null vector.
bool constant_null_space(const NineBands<double>& A);

/// A sparse Cholesky (Eigen's SimplicialLDLT) if the matrix is symmetric, else a sparse LU.
/// Throws input_error naming the grid if the matrix is singular, unless it is the singular matrix
/// of a pure Neumann problem (constant_null_space()): then node 0 is pinned (its row and column
/// replaced by the identity's) and the solve is the pseudo-inverse A^+ = Π S Π, S the pinned
/// solve with x_0 = 0 and Π = I - 1 1^T / n the projection onto the zero-mean vectors: of b's
/// compatible part, the solution of zero mean.
class CoarseFactor {
public:
    explicit CoarseFactor(const NineBands<double>& A);

    /// x = A^-1 b (A^+ b for a pure Neumann matrix).
    void solve(const double* b, double* x) const;
    /// A^-1 (A^+ for a pure Neumann matrix) as a dense row-major n x n array (n = rows())
    /// written to `rows`: the identity's columns solved in blocks on all host threads. Throws
    /// input_error if it is not finite.
    void inverse(double* rows) const;
    std::size_t rows() const { return static_cast<std::size_t>(n_); }
    /// Host bytes of the factor.
    long long bytes() const { return bytes_; }

private:
    Eigen::Index n_ = 0;
    bool pinned_ = false;  ///< pure Neumann: node 0 pinned, solves projected
    long long bytes_ = 0;
    std::unique_ptr<Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>>> cholesky_;
    std::unique_ptr<Eigen::SparseLU<Eigen::SparseMatrix<double>>> lu_;
};

}  // namespace adimg
