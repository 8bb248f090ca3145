#pragma once
// What a fast direct setup computes on the host, whatever the backend: the transformed direction
// and its transform, the per-mode coefficients of the line systems, the line direction's pencil,
// and (graded direction) the eigenvectors. include/adimg/fast_direct.hpp states the method.

#include <adimg/fast_direct.hpp>

#include "pencil.hpp"

#include <cstddef>
#include <vector>

namespace adimg::fast_direct {

struct Plan {
    int mx = 0, my = 0;                            ///< the grid, edge nodes included
    FastAxis axis = FastAxis::x;                   ///< the transformed direction t
    FastTransform transform = FastTransform::sine;
    int nt = 0;  ///< interior nodes along t: the modes
    int nl = 0;  ///< interior nodes along the other direction: the length of each line
    Pencil line;  ///< K and M of the line direction
    /// Mode k's line system is alpha[k] M + beta[k] K (line direction). For the sine transform
    /// the scale of the two unnormalised transforms (FFTW's RODFT00 twice: 2 (nt + 1)) is folded
    /// in, so that the inverse transform is the forward one; for eigen, alpha = λ and beta = 1.
    std::vector<double> alpha, beta;
    Modes modes;  ///< eigen: V (nt x nt, column-major) and λ; empty for sine

    std::size_t rows() const { return static_cast<std::size_t>(mx) * static_cast<std::size_t>(my); }
    std::size_t interior() const { return static_cast<std::size_t>(nt) * static_cast<std::size_t>(nl); }
    /// Index of interior node (t, l) (0-based interior indices) in the grid.
    std::size_t node(int t, int l) const {
        return axis == FastAxis::x ? static_cast<std::size_t>(l + 1) * mx + (t + 1)
                                   : static_cast<std::size_t>(t + 1) * mx + (l + 1);
    }
};

/// Thomas factors of mode k's line system alpha_k M + beta_k K: for each line position l, the
/// inverse pivot at inverse_pivot[l * stride] and the upper coupling over the pivot at
/// upper_factor[l * stride]. Then w = (alpha_k M + beta_k K)^-1 w is
///   w_0 *= p_0;  w_l = (w_l - lower_l w_{l-1}) p_l;  w_l -= u_l w_{l+1} (backward),
/// with lower_l = alpha_k m_off[l-1] + beta_k k_off[l-1].
void thomas_factors(const Plan& plan, int k, double* inverse_pivot, double* upper_factor, std::size_t stride);

/// True when max |h_e - h_0| <= tolerance h_0.
bool uniform_widths(const std::vector<double>& widths, double tolerance);

/// Chooses the direction and transform the options allow (throws input_error if FastTransform::sine
/// is asked of graded widths) and computes the plan.
Plan make_plan(const TensorMesh& mesh, const FastDirectOptions& options);

}  // namespace adimg::fast_direct
