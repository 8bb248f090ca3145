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
    int nt = 0;  ///< unknown nodes along t: the modes
    int nl = 0;  ///< unknown nodes along the other direction: the length of each line
    int t_first = 1, l_first = 1;  ///< the grid index of the first unknown along t and along l
    Pencil line;  ///< K and M of the line direction
    /// Mode k's line system is alpha[k] M + beta[k] K (line direction). For the sine and cosine
    /// transforms the scale of the two unnormalised transforms (FFTW's RODFT00 or REDFT00 twice:
    /// 2n for n elements) is folded in, so that the inverse transform is the forward one; for
    /// eigen, alpha = λ and beta = 1.
    std::vector<double> alpha, beta;
    Modes modes;  ///< eigen: V (nt x nt, column-major) and λ; empty for sine and cosine
    /// Neumann on all four edges: mode 0 (alpha = 0) meets the singular line pencil, and the
    /// solution is fixed up to a constant (the engine's null space handling).
    bool singular = false;
    bool neumann = false;  ///< some edge is Neumann (the CPU engine only)
    std::vector<double> node_weights;  ///< singular only: ∫ φ_p of every node, (hx_left + hx_right)(hy_below + hy_above) / 4

    std::size_t rows() const { return static_cast<std::size_t>(mx) * static_cast<std::size_t>(my); }
    std::size_t unknowns() const { return static_cast<std::size_t>(nt) * static_cast<std::size_t>(nl); }
    /// Index of unknown node (t, l) (0-based unknown indices) in the grid.
    std::size_t node(int t, int l) const {
        return axis == FastAxis::x ? static_cast<std::size_t>(l + l_first) * mx + (t + t_first)
                                   : static_cast<std::size_t>(t + t_first) * mx + (l + l_first);
    }
    /// True for a node of a Dirichlet edge: its row is an identity row.
    bool dirichlet_node(int i, int j) const {
        const int nx = axis == FastAxis::x ? nt : nl, ny = axis == FastAxis::x ? nl : nt;
        const int x_first = axis == FastAxis::x ? t_first : l_first, y_first = axis == FastAxis::x ? l_first : t_first;
        return i < x_first || i >= x_first + nx || j < y_first || j >= y_first + ny;
    }
};

/// Thomas factors of mode k's line system alpha_k M + beta_k K: for each line position l, the
/// inverse pivot at inverse_pivot[l * stride] and the upper coupling over the pivot at
/// upper_factor[l * stride]. Then w = (alpha_k M + beta_k K)^-1 w is
///   w_0 *= p_0;  w_l = (w_l - lower_l w_{l-1}) p_l;  w_l -= u_l w_{l+1} (backward),
/// with lower_l = alpha_k m_off[l-1] + beta_k k_off[l-1]. The singular system (plan.singular,
/// mode 0) has its last pivot zero: its inverse is taken as 0, which pins the line's last value
/// to 0 and solves the others for a compatible right-hand side.
void thomas_factors(const Plan& plan, int k, double* inverse_pivot, double* upper_factor, std::size_t stride);

/// True when max |h_e - h_0| <= tolerance h_0.
bool uniform_widths(const std::vector<double>& widths, double tolerance);

/// Chooses the direction and transform the options allow (throws input_error if FastTransform::sine
/// or cosine is asked of graded widths or other ends) and computes the plan.
Plan make_plan(const TensorMesh& mesh, const FastDirectEdges& edges, const FastDirectOptions& options);

}  // namespace adimg::fast_direct
