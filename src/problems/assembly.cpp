#include <adimg/problems.hpp>

#include "q1_element.hpp"

#include <cmath>
#include <vector>

namespace adimg {
namespace {

/// The distances of every node of a 1D mesh from both ends (EndDistances).
struct NodeDistances {
    std::vector<double> from_low, from_high;
    explicit NodeDistances(const Mesh1D& mesh) : from_low(mesh.nodes(), 0.0), from_high(mesh.nodes(), 0.0) {
        const int n = mesh.nodes();
        for (int i = 1; i < n; ++i) from_low[i] = from_low[i - 1] + mesh.widths[i - 1];
        for (int i = n - 2; i >= 0; --i) from_high[i] = from_high[i + 1] + mesh.widths[i];
    }
    EndDistances view() const { return {from_low.data(), from_high.data()}; }
};

}  // namespace

NineBands<double> assemble_stiffness(const TensorMesh& mesh) {
    const int mx = mesh.mx(), my = mesh.my();
    NineBands<double> A(mx, my);
    const std::size_t n = A.rows();
#pragma omp parallel for schedule(static)
    for (int j = 0; j < my; ++j)
        for (int i = 0; i < mx; ++i) {
            double band[9];
            q1_stiffness_row(mesh.x.widths.data(), mesh.y.widths.data(), mx, my, i, j, band);
            const std::size_t p = static_cast<std::size_t>(j) * mx + i;
            for (int k = 0; k < 9; ++k) A.values[k * n + p] = band[k];
        }
    return A;
}

std::vector<double> assemble_load(const TensorMesh& mesh, const PolynomialProblem& problem) {
    const int mx = mesh.mx(), my = mesh.my();
    const NodeDistances dx(mesh.x), dy(mesh.y);
    std::vector<double> b(mesh.nodes());
    auto f = [&](double x, double xr, double y, double yr) { return problem.f(x, xr, y, yr); };
#pragma omp parallel for schedule(static)
    for (int j = 0; j < my; ++j)
        for (int i = 0; i < mx; ++i)
            b[static_cast<std::size_t>(j) * mx + i] =
                q1_load(mesh.x.widths.data(), mesh.y.widths.data(), dx.view(), dy.view(), mx, my, i, j, f);
    return b;
}

double relative_l2_error(const TensorMesh& mesh, const PolynomialProblem& problem, const std::vector<double>& u) {
    const int mx = mesh.mx();
    const NodeDistances dx(mesh.x), dy(mesh.y);
    double error = 0.0, norm = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : error, norm)
    for (int ej = 0; ej < mesh.y.elements(); ++ej)
        for (int ei = 0; ei < mesh.x.elements(); ++ei) {
            const std::size_t p = static_cast<std::size_t>(ej) * mx + ei;
            for_each_gauss_point(mesh.x.widths.data(), mesh.y.widths.data(), dx.view(), dy.view(), ei, ej,
                                 [&](double s, double t, double w, double x, double xr, double y, double yr) {
                                     const double uh = (1 - t) * ((1 - s) * u[p] + s * u[p + 1]) +
                                                       t * ((1 - s) * u[p + mx] + s * u[p + mx + 1]);
                                     const double exact = problem.u0(x, xr, y, yr);
                                     error += w * (uh - exact) * (uh - exact);
                                     norm += w * exact * exact;
                                 });
        }
    return std::sqrt(error / norm);
}

}  // namespace adimg
