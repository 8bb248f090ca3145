// Q1 finite element problems with Dirichlet, Neumann and Robin edges, assembled here as a user's
// FEM code would: isoparametric bilinear elements on a graded or a deformed (curvilinear)
// tensor-product mesh, a variable coefficient, 3x3 Gauss points per element and 3 per boundary
// segment. The Dirichlet values are eliminated symmetrically or enforced on the rows alone
// (scikit-fem's way), and Eigen's sparse LDL^T gives the reference solution. Shared by the CPU
// tests (test_boundaries.cpp) and the CUDA ones (gpu/test_gpu_boundaries.cpp).
#pragma once

#include <adimg/grid.hpp>

#include <problems/q1_element.hpp>

#include <Eigen/SparseCholesky>
#include <Eigen/SparseCore>

#include <array>
#include <cmath>
#include <string>
#include <vector>

namespace adimg_test {

/// What holds on one edge: u = g (Dirichlet), k du/dn = g (Neumann) or k du/dn + alpha u = g (Robin).
enum class EdgeCondition { dirichlet, neumann, robin };

/// The conditions on the west, east, south and north edges.
using EdgeConditions = std::array<EdgeCondition, 4>;

/// Node positions of a tensor-product mesh (node (i, j) at x[p], y[p], p = j * mx + i) and the
/// adimg Grid for it: with widths for a rectilinear mesh, without positions (t = 1/2) for a
/// deformed one.
struct FemMesh {
    int mx = 0, my = 0;
    std::vector<double> x, y;
    adimg::Grid grid;
    std::string name;
};

/// 2^level + 1 nodes per direction on [0,1]^2, widths growing geometrically toward x = 0 and
/// toward y = 1 (at level 7 by 1.02 and 1.03 per element: the largest width 12 and 43 times the
/// smallest): a graded rectilinear mesh.
inline FemMesh graded_mesh(int level) {
    const int n = 1 << level;
    auto widths = [n](double ratio, bool growing) {
        std::vector<double> h(n);
        double sum = 0.0;
        for (int e = 0; e < n; ++e) sum += h[e] = std::pow(ratio, growing ? e : n - 1 - e);
        for (double& w : h) w /= sum;
        return h;
    };
    const std::vector<double> hx = widths(std::pow(1.02, 128.0 / n), false);
    const std::vector<double> hy = widths(std::pow(1.03, 128.0 / n), true);
    FemMesh m{n + 1, n + 1, {}, {}, adimg::Grid::from_widths(hx, hy), "graded"};
    std::vector<double> xs(n + 1, 0.0), ys(n + 1, 0.0);
    for (int e = 0; e < n; ++e) {
        xs[e + 1] = xs[e] + hx[e];
        ys[e + 1] = ys[e] + hy[e];
    }
    for (int j = 0; j <= n; ++j)
        for (int i = 0; i <= n; ++i) {
            m.x.push_back(xs[i]);
            m.y.push_back(ys[j]);
        }
    return m;
}

/// The unit square's uniform grid of 2^level + 1 nodes per direction mapped smoothly onto a
/// curved quadrilateral (every edge curved, the Jacobian between 0.8 and 1.2): a curvilinear
/// mesh, given to adimg without positions (bilinear prolongation, t = 1/2).
inline FemMesh deformed_mesh(int level) {
    const int n = 1 << level;
    FemMesh m{n + 1, n + 1, {}, {}, adimg::Grid(n + 1, n + 1), "deformed"};
    const double pi = std::acos(-1.0);
    for (int j = 0; j <= n; ++j)
        for (int i = 0; i <= n; ++i) {
            const double s = double(i) / n, t = double(j) / n;
            m.x.push_back(s + 0.06 * std::sin(2 * pi * t) * (1.0 - 0.5 * s));
            m.y.push_back(t + 0.06 * std::sin(2 * pi * s) * (1.0 - 0.5 * t));
        }
    return m;
}

/// The coefficient k (between 0.1 and 1.9), the load f, the boundary data and the Robin factor.
inline double coefficient(double x, double y) { return 1.0 + 0.9 * std::sin(3.0 * x + 1.0) * std::cos(2.0 * y); }
inline double load(double x, double y) { return 1.0 + std::cos(2.0 * x) * y; }
inline double dirichlet_value(double x, double y) { return 1.0 + x + 2.0 * y; }
inline double flux(double x, double y) { return 0.5 * std::cos(3.0 * x + y); }
constexpr double robin_alpha = 2.0;

/// A system as the user hands it over, and its reference solution.
struct FemSystem {
    Eigen::SparseMatrix<double> A;
    std::vector<double> b;
};

/// Assembles -div(k grad u) = f with the given edge conditions on `mesh`. Dirichlet nodes (on a
/// Dirichlet edge, corners included) are eliminated symmetrically (rows a_qq x_q = a_qq g_q with
/// a_qq = `dirichlet_diagonal`), or with `row_only` their rows become identity rows and their
/// columns stay. `extra_dirichlet` lists further Dirichlet nodes (a point inside a natural edge);
/// `k` replaces the coefficient.
inline FemSystem assemble(const FemMesh& mesh, const EdgeConditions& edges, bool row_only = false,
                          double dirichlet_diagonal = 1.0, const std::vector<int>& extra_dirichlet = {},
                          double (*k)(double, double) = coefficient) {
    const int mx = mesh.mx, my = mesh.my;
    const int n = mx * my;
    std::vector<Eigen::Triplet<double>> entries;
    std::vector<double> b(n, 0.0);
    auto node = [mx](int i, int j) { return j * mx + i; };
    using adimg::GaussRule;
    // Elements: stiffness and load, 3x3 Gauss points.
    for (int ej = 0; ej + 1 < my; ++ej)
        for (int ei = 0; ei + 1 < mx; ++ei) {
            int p[4];
            double px[4], py[4];
            for (int c = 0; c < 4; ++c) {
                p[c] = node(ei + (c & 1), ej + (c >> 1));
                px[c] = mesh.x[p[c]];
                py[c] = mesh.y[p[c]];
            }
            double K[4][4] = {}, F[4] = {};
            for (int gj = 0; gj < 3; ++gj)
                for (int gi = 0; gi < 3; ++gi) {
                    const double s = GaussRule::point(gi), t = GaussRule::point(gj);
                    const double w = GaussRule::weight(gi) * GaussRule::weight(gj);
                    const double phi[4] = {(1 - s) * (1 - t), s * (1 - t), (1 - s) * t, s * t};
                    const double ds[4] = {-(1 - t), 1 - t, -t, t}, dt[4] = {-(1 - s), -s, 1 - s, s};
                    double xs = 0, xt = 0, ys = 0, yt = 0, x = 0, y = 0;
                    for (int c = 0; c < 4; ++c) {
                        xs += ds[c] * px[c];
                        xt += dt[c] * px[c];
                        ys += ds[c] * py[c];
                        yt += dt[c] * py[c];
                        x += phi[c] * px[c];
                        y += phi[c] * py[c];
                    }
                    const double det = xs * yt - xt * ys;
                    double gx[4], gy[4];
                    for (int c = 0; c < 4; ++c) {
                        gx[c] = (yt * ds[c] - ys * dt[c]) / det;
                        gy[c] = (-xt * ds[c] + xs * dt[c]) / det;
                    }
                    const double kw = k(x, y) * w * det;
                    for (int a = 0; a < 4; ++a) {
                        F[a] += load(x, y) * phi[a] * w * det;
                        for (int c = 0; c < 4; ++c) K[a][c] += kw * (gx[a] * gx[c] + gy[a] * gy[c]);
                    }
                }
            for (int a = 0; a < 4; ++a) {
                b[p[a]] += F[a];
                for (int c = 0; c < 4; ++c) entries.emplace_back(p[a], p[c], K[a][c]);
            }
        }
    // Boundary segments of natural edges: the flux g, and for Robin the boundary mass alpha.
    auto segment = [&](int p0, int p1, EdgeCondition condition) {
        if (condition == EdgeCondition::dirichlet) return;
        const double dx = mesh.x[p1] - mesh.x[p0], dy = mesh.y[p1] - mesh.y[p0];
        const double length = std::sqrt(dx * dx + dy * dy);
        double M[2][2] = {}, G[2] = {};
        for (int g = 0; g < 3; ++g) {
            const double s = GaussRule::point(g), w = GaussRule::weight(g) * length;
            const double phi[2] = {1 - s, s};
            const double x = mesh.x[p0] + s * dx, y = mesh.y[p0] + s * dy;
            for (int a = 0; a < 2; ++a) {
                G[a] += flux(x, y) * phi[a] * w;
                for (int c = 0; c < 2; ++c) M[a][c] += robin_alpha * phi[a] * phi[c] * w;
            }
        }
        const int q[2] = {p0, p1};
        for (int a = 0; a < 2; ++a) {
            b[q[a]] += G[a];
            if (condition == EdgeCondition::robin)
                for (int c = 0; c < 2; ++c) entries.emplace_back(q[a], q[c], M[a][c]);
        }
    };
    for (int j = 0; j + 1 < my; ++j) {
        segment(node(0, j), node(0, j + 1), edges[0]);
        segment(node(mx - 1, j), node(mx - 1, j + 1), edges[1]);
    }
    for (int i = 0; i + 1 < mx; ++i) {
        segment(node(i, 0), node(i + 1, 0), edges[2]);
        segment(node(i, my - 1), node(i + 1, my - 1), edges[3]);
    }
    Eigen::SparseMatrix<double> K(n, n);
    K.setFromTriplets(entries.begin(), entries.end());

    // Dirichlet nodes and their values.
    std::vector<char> fixed(n, 0);
    for (int j = 0; j < my; ++j)
        for (int i = 0; i < mx; ++i)
            fixed[node(i, j)] = (i == 0 && edges[0] == EdgeCondition::dirichlet) ||
                                (i == mx - 1 && edges[1] == EdgeCondition::dirichlet) ||
                                (j == 0 && edges[2] == EdgeCondition::dirichlet) ||
                                (j == my - 1 && edges[3] == EdgeCondition::dirichlet);
    for (int q : extra_dirichlet) fixed[q] = 1;
    std::vector<double> g(n, 0.0);
    for (int q = 0; q < n; ++q)
        if (fixed[q]) g[q] = dirichlet_value(mesh.x[q], mesh.y[q]);
    std::vector<Eigen::Triplet<double>> kept;
    for (int c = 0; c < K.outerSize(); ++c)
        for (Eigen::SparseMatrix<double>::InnerIterator it(K, c); it; ++it) {
            const int r = static_cast<int>(it.row());
            if (fixed[r]) continue;
            if (fixed[c] && !row_only) {
                b[r] -= it.value() * g[c];
                continue;
            }
            kept.emplace_back(r, c, it.value());
        }
    for (int q = 0; q < n; ++q)
        if (fixed[q]) {
            const double diagonal = row_only ? 1.0 : dirichlet_diagonal;
            kept.emplace_back(q, q, diagonal);
            b[q] = diagonal * g[q];
        }
    FemSystem out{Eigen::SparseMatrix<double>(n, n), b};
    out.A.setFromTriplets(kept.begin(), kept.end());
    return out;
}

/// True if every edge is natural and none is Robin: the matrix is singular (constant null space).
inline bool pure_neumann(const EdgeConditions& edges) {
    for (EdgeCondition e : edges)
        if (e != EdgeCondition::neumann) return false;
    return true;
}

/// The reference solution of a symmetrically eliminated system by Eigen's SimplicialLDLT. For a
/// pure Neumann system, of b with its mean removed, one node pinned, and the result of zero mean.
inline std::vector<double> reference_solution(const FemSystem& system, bool singular) {
    Eigen::SparseMatrix<double> A = system.A;
    Eigen::VectorXd b = Eigen::Map<const Eigen::VectorXd>(system.b.data(), static_cast<Eigen::Index>(system.b.size()));
    if (singular) {
        b.array() -= b.mean();
        for (int c = 0; c < A.outerSize(); ++c)
            for (Eigen::SparseMatrix<double>::InnerIterator it(A, c); it; ++it)
                if (it.row() == 0 || it.col() == 0) it.valueRef() = it.row() == it.col() ? 1.0 : 0.0;
        b[0] = 0.0;
    }
    Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> ldlt(A);
    Eigen::VectorXd x = ldlt.solve(b);
    if (singular) x.array() -= x.mean();
    return std::vector<double>(x.data(), x.data() + x.size());
}

/// ||a - b|| / ||b||, the comparison with the reference solution.
inline double relative_difference(const std::vector<double>& a, const std::vector<double>& b) {
    double diff = 0.0, norm = 0.0;
    for (std::size_t p = 0; p < a.size(); ++p) {
        diff += (a[p] - b[p]) * (a[p] - b[p]);
        norm += b[p] * b[p];
    }
    return std::sqrt(diff / norm);
}

}  // namespace adimg_test
