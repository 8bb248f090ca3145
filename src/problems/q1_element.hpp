#pragma once
// The Q1 formulas of the built-in problems, node by node, for the host assembly and device code
// alike (docs/design.md §1): the element stiffness matrix, a row of the assembled matrix, and a
// node's entry of the load vector. Each node gathers what its (up to four) elements give it, in
// the one fixed order that makes the matrix exactly symmetric.

#include "../common/host_device.hpp"
#include "../solver/stencil.hpp"

#include <cstddef>

namespace adimg {

/// The Q1 stiffness matrix of an hx x hy rectangle, local nodes numbered by their x and y offsets
/// in {0,1}: K_e = (hy/hx) K1 ⊗ M1 + (hx/hy) M1 ⊗ K1 with K1 = [1 -1; -1 1],
/// M1 = [1/3 1/6; 1/6 1/3], the first factor acting in x. Exact: no quadrature; every operation
/// rounded once, so that host and device give the same bits. The two aspect ratios are divided
/// once per element, not once per entry.
struct Q1Element {
    double y_over_x, x_over_y;

    ADIMG_HD Q1Element(double hx, double hy) : y_over_x(hy / hx), x_over_y(hx / hy) {}

    /// Entry (a,b)-(c,d).
    ADIMG_HD double stiffness(int a, int b, int c, int d) const {
        const double k_x = a == c ? 1.0 : -1.0, m_x = a == c ? 1.0 / 3.0 : 1.0 / 6.0;
        const double k_y = b == d ? 1.0 : -1.0, m_y = b == d ? 1.0 / 3.0 : 1.0 / 6.0;
        return ADIMG_ADD_RN(ADIMG_MUL_RN(ADIMG_MUL_RN(y_over_x, k_x), m_y), ADIMG_MUL_RN(ADIMG_MUL_RN(x_over_y, m_x), k_y));
    }
};

/// Entry (a,b)-(c,d) of the Q1 stiffness matrix on an hx x hy rectangle (Q1Element).
ADIMG_HD double q1_stiffness(double hx, double hy, int a, int b, int c, int d) {
    return Q1Element(hx, hy).stiffness(a, b, c, d);
}

/// Row (i, j) of the stiffness matrix of -Δ on the mesh of element widths hx (mx - 1 of them) and
/// hy: `band[k]` receives the entry of band k (SW S SE W C E NW N NE). Edge nodes are identity
/// rows and no row couples into them. The four elements around the node are visited in the same
/// global order for every row, so a_pq and a_qp sum the same terms in the same order.
ADIMG_HD void q1_stiffness_row(const double* hx, const double* hy, int mx, int my, int i, int j, double band[9]) {
    for (int k = 0; k < 9; ++k) band[k] = 0.0;
    if (on_boundary(i, j, mx, my)) {
        band[4] = 1.0;
        return;
    }
    for (int ej = j - 1; ej <= j; ++ej)
        for (int ei = i - 1; ei <= i; ++ei) {
            const int a = i - ei, b = j - ej;  // local position of (i, j) in this element
            const Q1Element element(hx[ei], hy[ej]);
            for (int d = 0; d <= 1; ++d)
                for (int c = 0; c <= 1; ++c) {
                    const int qi = ei + c, qj = ej + d;
                    if (on_boundary(qi, qj, mx, my)) continue;
                    double& entry = band[3 * (qj - j + 1) + (qi - i + 1)];
                    entry = ADIMG_ADD_RN(entry, element.stiffness(a, b, c, d));
                }
        }
}

/// The 3-point Gauss–Legendre rule on [0, 1].
/// Functions rather than arrays, so that device code can use them.
struct GaussRule {
    static ADIMG_HD double point(int g) {
        return g == 0 ? 0.5 - 0.3872983346207416885 : g == 1 ? 0.5 : 0.5 + 0.3872983346207416885;
    }
    static ADIMG_HD double weight(int g) { return g == 1 ? 8.0 / 18.0 : 5.0 / 18.0; }
};

/// Node positions measured from both ends of a 1D mesh: from_low[i] is the sum of the widths left
/// of node i, from_high[i] the sum right of it. Near an end, the distance to that end comes from
/// the short sum of the tiny widths there, not from a difference of two numbers close to the length.
struct EndDistances {
    const double* from_low;
    const double* from_high;
};

/// Calls body(s, t, w, x, xr, y, yr) for each 3x3 Gauss point of element (ei, ej): (s, t) its local
/// coordinates in [0,1]^2, w the weight times the element area, x, xr, y, yr its distances to the
/// ends of the domain.
template <class Body>
ADIMG_HD void for_each_gauss_point(const double* hx, const double* hy, EndDistances dx, EndDistances dy, int ei, int ej,
                                   Body&& body) {
    for (int gj = 0; gj < 3; ++gj) {
        const double t = GaussRule::point(gj);
        const double y = dy.from_low[ej] + t * hy[ej], yr = dy.from_high[ej] - t * hy[ej];
        for (int gi = 0; gi < 3; ++gi) {
            const double s = GaussRule::point(gi);
            const double x = dx.from_low[ei] + s * hx[ei], xr = dx.from_high[ei] - s * hx[ei];
            body(s, t, GaussRule::weight(gi) * GaussRule::weight(gj) * hx[ei] * hy[ej], x, xr, y, yr);
        }
    }
}

/// Node (i, j)'s entry of the consistent load vector ∫ f φ_(i,j) by 3x3 Gauss points per element
/// (exact for the polynomial problems), zero on edge nodes. `f(x, xr, y, yr)` is the load.
template <class F>
ADIMG_HD double q1_load(const double* hx, const double* hy, EndDistances dx, EndDistances dy, int mx, int my, int i, int j,
                        F&& f) {
    if (on_boundary(i, j, mx, my)) return 0.0;
    double sum = 0.0;
    for (int ej = j - 1; ej <= j; ++ej)
        for (int ei = i - 1; ei <= i; ++ei) {
            const int c = i - ei, d = j - ej;  // the node's corner of this element
            for_each_gauss_point(hx, hy, dx, dy, ei, ej, [&](double s, double t, double w, double x, double xr, double y, double yr) {
                const double phi = (c ? s : 1 - s) * (d ? t : 1 - t);
                sum += phi * (f(x, xr, y, yr) * w);
            });
        }
    return sum;
}

/// One element's share of the squared L2 error of the bilinear interpolant of the nodal values u
/// against the exact solution u0, and of the squared norm of u0 (3x3 Gauss points, exact here).
struct L2Parts {
    double error = 0.0, norm = 0.0;
};

template <class T, class Problem>
ADIMG_HD L2Parts q1_error_parts(const double* hx, const double* hy, EndDistances dx, EndDistances dy, int mx, int ei,
                                int ej, const T* u, const Problem& problem, int first_row = 0) {
    const std::size_t p = static_cast<std::size_t>(ej - first_row) * mx + ei;  // u holds rows from first_row on
    const double u00 = u[p], u10 = u[p + 1], u01 = u[p + mx], u11 = u[p + mx + 1];
    L2Parts parts;
    for_each_gauss_point(hx, hy, dx, dy, ei, ej, [&](double s, double t, double w, double x, double xr, double y, double yr) {
        const double uh = (1 - t) * ((1 - s) * u00 + s * u10) + t * ((1 - s) * u01 + s * u11);
        const double exact = problem.u0(x, xr, y, yr);
        parts.error += w * (uh - exact) * (uh - exact);
        parts.norm += w * exact * exact;
    });
    return parts;
}

}  // namespace adimg
