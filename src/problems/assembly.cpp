#include <adimg/problems.hpp>
#include "../solver/stencil.hpp"
#include "q1_element.hpp"

#include <array>
#include <cmath>

namespace adimg {
namespace {

/// Node positions measured from both ends: from_low[i] = sum of widths left of node i,
/// from_high[i] = sum of widths right of it. Near an end, the distance to that end comes from the
/// short sum of the tiny widths there, not from a difference of two numbers close to the length.
struct NodeDistances {
    std::vector<double> from_low, from_high;
};

NodeDistances distances(const Mesh1D& mesh) {
    const int n = mesh.nodes();
    NodeDistances d{std::vector<double>(n, 0.0), std::vector<double>(n, 0.0)};
    for (int i = 1; i < n; ++i) d.from_low[i] = d.from_low[i - 1] + mesh.widths[i - 1];
    for (int i = n - 2; i >= 0; --i) d.from_high[i] = d.from_high[i + 1] + mesh.widths[i];
    return d;
}

/// 3-point Gauss–Legendre rule on [0, 1].
constexpr std::array<double, 3> gauss_points = {0.5 - 0.3872983346207416885, 0.5, 0.5 + 0.3872983346207416885};
constexpr std::array<double, 3> gauss_weights = {5.0 / 18.0, 8.0 / 18.0, 5.0 / 18.0};

/// Calls body(e_i, e_j, s, t, w, x, xr, y, yr) for every element and each of its 3x3 Gauss points
/// (s, t local coordinates in [0,1], w the weight times the element area).
template <class Body>
void for_each_gauss_point(const TensorMesh& mesh, Body&& body) {
    const NodeDistances dx = distances(mesh.x), dy = distances(mesh.y);
    for (int ej = 0; ej < mesh.y.elements(); ++ej) {
        const double hy = mesh.y.widths[ej];
        for (int ei = 0; ei < mesh.x.elements(); ++ei) {
            const double hx = mesh.x.widths[ei];
            for (int gj = 0; gj < 3; ++gj) {
                const double t = gauss_points[gj];
                const double y = dy.from_low[ej] + t * hy, yr = dy.from_high[ej] - t * hy;
                for (int gi = 0; gi < 3; ++gi) {
                    const double s = gauss_points[gi];
                    const double x = dx.from_low[ei] + s * hx, xr = dx.from_high[ei] - s * hx;
                    body(ei, ej, s, t, gauss_weights[gi] * gauss_weights[gj] * hx * hy, x, xr, y, yr);
                }
            }
        }
    }
}

}  // namespace

NineBands<double> assemble_stiffness(const TensorMesh& mesh) {
    const int mx = mesh.mx(), my = mesh.my();
    NineBands<double> A(mx, my);
    for (int j = 0; j < my; ++j) {
        for (int i = 0; i < mx; ++i) {
            const std::size_t p = static_cast<std::size_t>(j) * mx + i;
            if (on_boundary(i, j, mx, my)) {
                A(C, p) = 1.0;
                continue;
            }
            // The four elements around (i, j), always in the same global order, so that the
            // coupling p-q and q-p sum the same terms in the same order: exact symmetry.
            for (int ej = j - 1; ej <= j; ++ej) {
                for (int ei = i - 1; ei <= i; ++ei) {
                    const double hx = mesh.x.widths[ei], hy = mesh.y.widths[ej];
                    const int a = i - ei, b = j - ej;  // local position of (i, j) in this element
                    for (int d = 0; d <= 1; ++d) {
                        for (int c = 0; c <= 1; ++c) {
                            const int qi = ei + c, qj = ej + d;
                            if (on_boundary(qi, qj, mx, my)) continue;  // no couplings into Dirichlet rows
                            A(band_index(qi - i, qj - j), p) += q1_stiffness(hx, hy, a, b, c, d);
                        }
                    }
                }
            }
        }
    }
    return A;
}

std::vector<double> assemble_load(const TensorMesh& mesh, const PolynomialProblem& problem) {
    const int mx = mesh.mx(), my = mesh.my();
    std::vector<double> b(mesh.nodes(), 0.0);
    for_each_gauss_point(mesh, [&](int ei, int ej, double s, double t, double w, double x, double xr, double y,
                                   double yr) {
        const double fw = problem.f(x, xr, y, yr) * w;
        const double phi[2][2] = {{(1 - s) * (1 - t), s * (1 - t)}, {(1 - s) * t, s * t}};
        for (int d = 0; d <= 1; ++d)
            for (int c = 0; c <= 1; ++c) b[static_cast<std::size_t>(ej + d) * mx + ei + c] += phi[d][c] * fw;
    });
    for (int j = 0; j < my; ++j)
        for (int i = 0; i < mx; ++i)
            if (on_boundary(i, j, mx, my)) b[static_cast<std::size_t>(j) * mx + i] = 0.0;
    return b;
}

double relative_l2_error(const TensorMesh& mesh, const PolynomialProblem& problem, const std::vector<double>& u) {
    const int mx = mesh.mx();
    double error = 0.0, norm = 0.0;
    for_each_gauss_point(mesh, [&](int ei, int ej, double s, double t, double w, double x, double xr, double y,
                                   double yr) {
        const std::size_t p = static_cast<std::size_t>(ej) * mx + ei;
        const double uh = (1 - t) * ((1 - s) * u[p] + s * u[p + 1]) + t * ((1 - s) * u[p + mx] + s * u[p + mx + 1]);
        const double exact = problem.u0(x, xr, y, yr);
        error += w * (uh - exact) * (uh - exact);
        norm += w * exact * exact;
    });
    return std::sqrt(error / norm);
}

}  // namespace adimg
