#include <adimg/problems.hpp>

#include "node_distances.hpp"
#include "q1_element.hpp"

#include <cmath>
#include <vector>

namespace adimg {
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
    std::vector<double> b(mesh.nodes());
    assemble_load(mesh, problem, b.data());
    return b;
}

void assemble_load(const TensorMesh& mesh, const PolynomialProblem& problem, double* b) {
    const int mx = mesh.mx(), my = mesh.my();
    const NodeDistances dx(mesh.x), dy(mesh.y);
    auto f = [&](double x, double xr, double y, double yr) { return problem.f(x, xr, y, yr); };
#pragma omp parallel for schedule(static)
    for (int j = 0; j < my; ++j)
        for (int i = 0; i < mx; ++i)
            b[static_cast<std::size_t>(j) * mx + i] =
                q1_load(mesh.x.widths.data(), mesh.y.widths.data(), dx.view(), dy.view(), mx, my, i, j, f);
}

double relative_l2_error(const TensorMesh& mesh, const PolynomialProblem& problem, const std::vector<double>& u) {
    return relative_l2_error(mesh, problem, u.data());
}

double relative_l2_error(const TensorMesh& mesh, const PolynomialProblem& problem, const double* u) {
    const NodeDistances dx(mesh.x), dy(mesh.y);
    double error = 0.0, norm = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : error, norm)
    for (int ej = 0; ej < mesh.y.elements(); ++ej)
        for (int ei = 0; ei < mesh.x.elements(); ++ei) {
            const L2Parts parts =
                q1_error_parts(mesh.x.widths.data(), mesh.y.widths.data(), dx.view(), dy.view(), mesh.mx(), ei, ej, u, problem);
            error += parts.error;
            norm += parts.norm;
        }
    return std::sqrt(error / norm);
}

}  // namespace adimg
