#pragma once
// The one-dimensional Q1 pencil (K, M) of one direction of a tensor-product mesh, on its unknown
// nodes, and its M-orthonormal eigenvectors: the transform of the fast direct solver in a
// direction whose element widths are not all equal, or whose ends differ (include/adimg/fast_direct.hpp).
//
// On a mesh of n elements of widths h_0 .. h_{n-1}, nodes 0 .. n, element e couples nodes e and
// e + 1 with (1/h_e) [1 -1; -1 1] in K and (h_e/6) [2 1; 1 2] in M. A Dirichlet end node drops
// out; a Neumann end node is an unknown. Unknown r is node first + r.

#include <adimg/fast_direct.hpp>

#include <cstddef>
#include <vector>

namespace adimg::fast_direct {

/// K and M of one direction on its unknown nodes, both symmetric tridiagonal.
struct Pencil {
    std::vector<double> widths;                 ///< the n element widths
    int first = 1;                              ///< the node of unknown 0: 0 with a Neumann low end, else 1
    bool neumann_high = false;                  ///< node n is an unknown
    std::vector<double> k_diag, m_diag;         ///< one diagonal entry per unknown
    std::vector<double> k_off, m_off;           ///< the couplings of unknowns r and r + 1

    int size() const { return static_cast<int>(k_diag.size()); }  ///< the unknowns
    /// Both ends Neumann: K is singular, with the constants as its kernel.
    bool singular() const { return first == 0 && neumann_high; }
    /// Throws input_error unless there are at least two elements, all finite and positive.
    static Pencil from_widths(std::vector<double> widths, EdgeCondition low = EdgeCondition::dirichlet,
                              EdgeCondition high = EdgeCondition::dirichlet);

    /// v^T K v summed element by element as (v_{e+1} - v_e)^2 / h_e (v = 0 at Dirichlet ends):
    /// every term is non-negative, so the sum keeps its relative accuracy on graded meshes.
    double energy(const double* v) const;
    /// v^T M w summed element by element.
    double mass(const double* v, const double* w) const;

private:
    /// v at node i: its unknown, or 0 at a Dirichlet end.
    double at(const double* v, int i) const {
        const int r = i - first;
        return r >= 0 && r < size() ? v[r] : 0.0;
    }
};

/// The generalised eigenpairs K v = lambda M v, lambda ascending, with V^T M V = I: vectors holds
/// V column-major (column k is v_k, size() entries each).
struct Modes {
    std::vector<double> values;
    std::vector<double> vectors;
    int size() const { return static_cast<int>(values.size()); }
    const double* vector(int k) const { return vectors.data() + static_cast<std::size_t>(k) * values.size(); }
};

/// Eigenpairs of a pencil by bisection on Sturm counts of K - sigma M (relative accuracy on graded
/// meshes), inverse iteration with M-orthogonalisation inside clusters, and Rayleigh quotients
/// summed element by element. Parallel over eigenvalues (OpenMP). A singular pencil's first pair
/// is exactly (0, the constant of unit mass).
Modes generalized_modes(const Pencil& pencil);

/// The number of eigenvalues of the pencil below sigma (the negative pivots of K - sigma M).
int count_below(const Pencil& pencil, double sigma);

}  // namespace adimg::fast_direct
