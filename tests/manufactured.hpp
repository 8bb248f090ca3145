#pragma once
// Manufactured solutions for the fast direct solver's convergence tests: u0(x, y) = g(x) h(y),
// f = -Δu0 = -(g'' h + g h''), the load vector b_i = ∫ f φ_i and the relative L2 error of the
// bilinear interpolant, both by 4 x 4 Gauss points per element (the profiles are not
// polynomials, so the quadrature is accurate to O(h^8) per element, not exact).
//
// Each profile takes a point as its distances from both ends (s from 0, r from the length), as
// docs/design.md §1 carries positions: on A5's graded meshes the nodes next to x = 1 lie closer to
// it than the spacing of doubles there.

#include <adimg/problems.hpp>

#include <array>
#include <cmath>
#include <numbers>
#include <vector>

namespace adimg_test {

/// A 1D factor of u0 on [0, length]: its value and second derivative at (s, r), s + r = length.
struct Profile {
    enum class Kind {
        sine_exp,       ///< sin(π s / L) e^(s / L): zero at both ends (Dirichlet)
        two_cosines,    ///< cos(π s / L) + cos(2π s / L) / 2: zero slope at both ends, mean zero (Neumann)
        quarter_cosine, ///< cos(π s / 2L): zero slope at 0, zero at L (Neumann, Dirichlet)
        quarter_sine    ///< sin(π s / 2L): zero at 0, zero slope at L (Dirichlet, Neumann)
    } kind;
    double length;

    double value(double s, double r) const { return evaluate(s, r, false); }
    double second(double s, double r) const { return evaluate(s, r, true); }

private:
    double evaluate(double s, double r, bool second_derivative) const {
        const double pi = std::numbers::pi, t = s / length;
        // sin(π t) and cos(k π t) from the nearer end: sin(π t) = sin(π r / L), cos(k π t) = (-1)^k cos(k π r / L).
        const bool near_high = s > r;
        const double u = (near_high ? r : s) / length;
        const double sine = std::sin(pi * u);
        const double cosine = (near_high ? -1.0 : 1.0) * std::cos(pi * u), cosine2 = std::cos(2.0 * pi * u);
        if (kind == Kind::quarter_cosine || kind == Kind::quarter_sine) {
            // cos(π t / 2) = sin(π r / 2L) and sin(π t / 2) = cos(π r / 2L) from the high end.
            const double q = 0.5 * pi * u, k = 0.5 * pi / length;
            const bool cosine_of_s = (kind == Kind::quarter_cosine) != near_high;
            const double v = cosine_of_s ? std::cos(q) : std::sin(q);
            return second_derivative ? -k * k * v : v;
        }
        if (kind == Kind::sine_exp) {
            const double e = std::exp(t);
            return second_derivative ? e / (length * length) * ((1.0 - pi * pi) * sine + 2.0 * pi * cosine) : e * sine;
        }
        const double k = pi / length;
        return second_derivative ? -k * k * (cosine + 2.0 * cosine2) : cosine + 0.5 * cosine2;
    }
};

/// u0 = gx(x) gy(y) on the mesh's rectangle.
struct Manufactured {
    Profile gx, gy;
};

namespace detail {

/// 4-point Gauss–Legendre on [0, 1].
inline constexpr std::array<double, 4> gauss_points = {0.0694318442029737, 0.3300094782075719, 0.6699905217924281,
                                                       0.9305681557970263};
inline constexpr std::array<double, 4> gauss_weights = {0.1739274225837217, 0.3260725774162783, 0.3260725774162783,
                                                        0.1739274225837217};

/// Each element's distances from both ends of its left node: s_e = sum of widths before e,
/// r_e = sum of widths from e on (each summed from its own end).
struct Ends {
    std::vector<double> s, r;
    explicit Ends(const adimg::Mesh1D& mesh) : s(mesh.widths.size()), r(mesh.widths.size()) {
        const std::size_t n = mesh.widths.size();
        double sum = 0.0;
        for (std::size_t e = 0; e < n; ++e) {
            s[e] = sum;
            sum += mesh.widths[e];
        }
        sum = 0.0;
        for (std::size_t e = n; e-- > 0;) {
            sum += mesh.widths[e];
            r[e] = sum;
        }
    }
    /// Gauss point q of element e, as (s, r).
    std::pair<double, double> point(const adimg::Mesh1D& mesh, std::size_t e, int q) const {
        const double h = mesh.widths[e];
        return {s[e] + gauss_points[q] * h, r[e] - gauss_points[q] * h};
    }
};

}  // namespace detail

/// b_i = ∫ f φ_i on every node (the caller zeroes Dirichlet rows).
inline std::vector<double> manufactured_load(const adimg::TensorMesh& mesh, const Manufactured& m) {
    const int mx = mesh.mx(), my = mesh.my();
    const detail::Ends ex(mesh.x), ey(mesh.y);
    std::vector<double> b(static_cast<std::size_t>(mx) * my, 0.0);
    for (int ej = 0; ej + 1 < my; ++ej)
        for (int ei = 0; ei + 1 < mx; ++ei) {
            const double hx = mesh.x.widths[ei], hy = mesh.y.widths[ej];
            double local[2][2] = {};
            for (int qj = 0; qj < 4; ++qj)
                for (int qi = 0; qi < 4; ++qi) {
                    const auto [xs, xr] = ex.point(mesh.x, ei, qi);
                    const auto [ys, yr] = ey.point(mesh.y, ej, qj);
                    const double f = -(m.gx.second(xs, xr) * m.gy.value(ys, yr) + m.gx.value(xs, xr) * m.gy.second(ys, yr));
                    const double w = detail::gauss_weights[qi] * detail::gauss_weights[qj] * hx * hy * f;
                    const double tx = detail::gauss_points[qi], ty = detail::gauss_points[qj];
                    local[0][0] += w * (1 - tx) * (1 - ty);
                    local[0][1] += w * tx * (1 - ty);
                    local[1][0] += w * (1 - tx) * ty;
                    local[1][1] += w * tx * ty;
                }
            for (int dj = 0; dj < 2; ++dj)
                for (int di = 0; di < 2; ++di) b[static_cast<std::size_t>(ej + dj) * mx + ei + di] += local[dj][di];
        }
    return b;
}

/// ||u_h - u0||_L2 / ||u0||_L2 for the bilinear interpolant of the nodal values u; `shift` is added
/// to u0 (the constant a pure Neumann solution is determined up to).
inline double manufactured_l2_error(const adimg::TensorMesh& mesh, const Manufactured& m, const std::vector<double>& u,
                                    double shift = 0.0) {
    const int mx = mesh.mx(), my = mesh.my();
    const detail::Ends ex(mesh.x), ey(mesh.y);
    double error = 0.0, norm = 0.0;
    for (int ej = 0; ej + 1 < my; ++ej)
        for (int ei = 0; ei + 1 < mx; ++ei) {
            const std::size_t p = static_cast<std::size_t>(ej) * mx + ei;
            const double u00 = u[p], u10 = u[p + 1], u01 = u[p + mx], u11 = u[p + mx + 1];
            const double area = mesh.x.widths[ei] * mesh.y.widths[ej];
            for (int qj = 0; qj < 4; ++qj)
                for (int qi = 0; qi < 4; ++qi) {
                    const auto [xs, xr] = ex.point(mesh.x, ei, qi);
                    const auto [ys, yr] = ey.point(mesh.y, ej, qj);
                    const double tx = detail::gauss_points[qi], ty = detail::gauss_points[qj];
                    const double uh = (1 - tx) * (1 - ty) * u00 + tx * (1 - ty) * u10 + (1 - tx) * ty * u01 + tx * ty * u11;
                    const double exact = m.gx.value(xs, xr) * m.gy.value(ys, yr) + shift;
                    const double w = detail::gauss_weights[qi] * detail::gauss_weights[qj] * area;
                    error += w * (uh - exact) * (uh - exact);
                    norm += w * exact * exact;
                }
        }
    return std::sqrt(error / norm);
}

}  // namespace adimg_test
