#pragma once
/// \file
/// Exact Q1 assembly on tensor-product meshes (DESIGN.md §1), the test problem's load vector and
/// its relative L2 error.

#include <adimg/host_device.hpp>
#include <adimg/mesh.hpp>
#include <adimg/nine_bands.hpp>

#include <vector>

namespace adimg {

/// Entry (a,b)-(c,d) of the Q1 stiffness matrix on an hx x hy rectangle, local nodes numbered by
/// their x and y offsets in {0,1}: K_e = (hy/hx) K1 ⊗ M1 + (hx/hy) M1 ⊗ K1 with
/// K1 = [1 -1; -1 1], M1 = [1/3 1/6; 1/6 1/3], the first factor acting in x. Exact: no quadrature.
ADIMG_HD double q1_stiffness(double hx, double hy, int a, int b, int c, int d) {
    const double k_x = a == c ? 1.0 : -1.0, m_x = a == c ? 1.0 / 3.0 : 1.0 / 6.0;
    const double k_y = b == d ? 1.0 : -1.0, m_y = b == d ? 1.0 / 3.0 : 1.0 / 6.0;
    return (hy / hx) * k_x * m_y + (hx / hy) * m_x * k_y;
}

/// The stiffness matrix of -Δ with boundary nodes as identity rows and no couplings into them
/// (symmetric, nine-band). Entries are summed over the shared elements in one fixed order, so the
/// matrix is exactly symmetric.
NineBands<double> assemble_stiffness(const TensorMesh& mesh);

/// The problem -Δu = f on [0,a] x [0,b] with exact solution u0 = x(a-x) y(b-y).
struct PolynomialProblem {
    double a = 1.0;
    double b = 1.0;

    /// u0 at a point given by its distances to both ends in each direction (x + xr = a, ...), so
    /// that points within rounding of x = a keep their true distance to it.
    ADIMG_HD double u0(double x, double xr, double y, double yr) const { return x * xr * y * yr; }
    ADIMG_HD double f(double x, double xr, double y, double yr) const { return 2.0 * y * yr + 2.0 * x * xr; }
};

/// The consistent load vector b_i = ∫ f φ_i by 3x3 Gauss points per element (exact for this f),
/// zero on boundary nodes.
std::vector<double> assemble_load(const TensorMesh& mesh, const PolynomialProblem& problem);

/// ||u_h - u0||_L2 / ||u0||_L2 for the bilinear interpolant u_h of the nodal values `u`, by 3x3
/// Gauss points per element (exact here): the paper's "l2 error" of Tables 1–2.
double relative_l2_error(const TensorMesh& mesh, const PolynomialProblem& problem, const std::vector<double>& u);

}  // namespace adimg
