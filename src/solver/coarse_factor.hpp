#pragma once
// The coarsest grid's matrix factored once, for the V-cycle's exact coarse solve: applied as it
// is (the CPU backend: two sparse triangular solves, O(n w) for a grid of n nodes and bandwidth
// w), or turned into the dense inverse (the CUDA backend, which applies it as one product and
// makes it on the device from the factor's arrays, ldlt(); from an LU factor on the host,
// inverse()).

#include <adimg/nine_bands.hpp>

#include "ldlt_inverse.hpp"

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

/// The pseudo-inverse Π S Π of a pure Neumann matrix from the row-major n x n inverse S of its
/// pinned matrix (CoarseFactor), in place: S_00 set to zero, then the means and the entries of
/// ldlt_inverse.hpp, as the device projects it.
void project_pinned_inverse(double* rows, int n);

/// A sparse Cholesky (Eigen's SimplicialLDLT) if the matrix is symmetric, else a sparse LU.
/// Throws input_error naming the grid if the matrix is singular, unless it is the singular matrix
/// of a pure Neumann problem (constant_null_space()): then node 0 is pinned (its row and column
/// replaced by the identity's) and the solve is the pseudo-inverse A^+ = Π S Π, S the pinned
/// solve with x_0 = 0 and Π = I - 1 1^T / n the projection onto the zero-mean vectors: of b's
/// compatible part, the solution of zero mean.
class CoarseFactor {
public:
    explicit CoarseFactor(const NineBands<double>& A);

    /// New values on the same grid (a values-only re-setup): where the matrix keeps its sparsity
    /// pattern and its kind (symmetric, pure Neumann), Eigen's symbolic analysis of the last
    /// Cholesky factorisation (fill-reducing ordering, elimination tree) is kept and only the
    /// numbers are factored again; otherwise it is factored afresh. The bits are those of
    /// CoarseFactor(A) either way.
    void refactor(const NineBands<double>& A);

    /// x = A^-1 b (A^+ b for a pure Neumann matrix).
    void solve(const double* b, double* x) const;
    /// A^-1 (A^+ for a pure Neumann matrix) as a dense row-major n x n array (n = rows())
    /// written to `rows`: the identity's columns solved in blocks on all host threads by Eigen,
    /// then for a pure Neumann matrix projected (ldlt_inverse.hpp). The CUDA backend uses it for
    /// an LU factor; for an LDL^T factor it is the reference the device's inverse is checked
    /// against, bit for bit. Throws input_error if it is not finite.
    void inverse(double* rows) const;
    /// The arrays of the LDL^T factor, for a device that makes the inverse from them as
    /// ldlt_unit_solve() does, with the bits of inverse(); valid while this factor lives. False
    /// for an LU factor (a matrix that is not symmetric), whose inverse only inverse() makes.
    bool ldlt(LdltArrays& arrays) const;
    /// Whether the matrix is pure Neumann: its inverse is the pinned one projected (inverse()).
    bool pinned() const { return pinned_; }
    /// Throws the input_error of an inverse that is not finite, made here or on a device.
    [[noreturn]] void throw_not_finite() const;
    std::size_t rows() const { return static_cast<std::size_t>(n_); }
    /// Host bytes of the factor.
    long long bytes() const { return bytes_; }

private:
    Eigen::Index n_ = 0;
    bool pinned_ = false;  ///< pure Neumann: node 0 pinned, solves projected
    long long bytes_ = 0;
    /// Factors S (A, pinned where pure Neumann) with the symbolic analysis cholesky_ holds;
    /// false if the factor has a zero or non-finite pivot.
    bool factor_numbers(const Eigen::SparseMatrix<double>& S);
    [[noreturn]] static void throw_singular(const NineBands<double>& A);

    Eigen::VectorXd diagonal_;     ///< D of the LDL^T factor (Eigen hands out a copy only)
    /// The sparsity pattern of the matrix cholesky_ was analysed for (compressed columns).
    std::vector<int> pattern_starts_, pattern_rows_;
    Eigen::VectorXi permutation_;  ///< P's indices (the identity's where Eigen keeps none)
    std::unique_ptr<Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>>> cholesky_;
    std::unique_ptr<Eigen::SparseLU<Eigen::SparseMatrix<double>>> lu_;
};

}  // namespace adimg
