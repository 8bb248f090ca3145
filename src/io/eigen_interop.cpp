#include <adimg/io.hpp>
#include <adimg/error.hpp>
#include <adimg/grid.hpp>

#include "../solver/coarse_factor.hpp"
#include "../solver/matrix_messages.hpp"

#include <Eigen/SparseCholesky>
#include <Eigen/SparseLU>

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <type_traits>

namespace adimg {

Eigen::SparseMatrix<double> to_eigen(const NineBands<double>& A) {
    std::vector<Eigen::Triplet<double>> entries;
    entries.reserve(9 * A.rows());
    for (int j = 0; j < A.my; ++j)
        for (int i = 0; i < A.mx; ++i) {
            const std::size_t p = static_cast<std::size_t>(j) * A.mx + i;
            for (int k = 0; k < 9; ++k) {
                const double a = A(k, p);
                if (a == 0.0) continue;
                const std::size_t q = static_cast<std::size_t>(j + band_dy(k)) * A.mx + (i + band_dx(k));
                entries.emplace_back(static_cast<int>(p), static_cast<int>(q), a);
            }
        }
    const int n = static_cast<int>(A.rows());
    Eigen::SparseMatrix<double> S(n, n);
    S.setFromTriplets(entries.begin(), entries.end());
    return S;
}

namespace {

/// The first entry of S (row p, column q, 0-based) that does not couple grid neighbours of the
/// mx x my grid numbered x-fastest; false if there is none. Stored zeros couple nothing and are
/// passed over wherever they stand (a sparse format may keep them, e.g. after a product).
bool first_non_neighbour(const Eigen::SparseMatrix<double>& S, int mx, long long& p, long long& q) {
    for (int col = 0; col < S.outerSize(); ++col)
        for (Eigen::SparseMatrix<double>::InnerIterator it(S, col); it; ++it) {
            if (it.value() == 0.0) continue;
            const long long dx = it.col() % mx - it.row() % mx, dy = it.col() / mx - it.row() / mx;
            if (dx < -1 || dx > 1 || dy < -1 || dy > 1) {
                p = it.row();
                q = it.col();
                return true;
            }
        }
    return false;
}

bool is_square_of(const Eigen::SparseMatrix<double>& S, int mx, int my) {
    const long long n = static_cast<long long>(mx) * my;
    return S.rows() == n && S.cols() == n;
}

}  // namespace

bool fits_grid(const Eigen::SparseMatrix<double>& S, int mx, int my) {
    long long p = 0, q = 0;
    return is_square_of(S, mx, my) && !first_non_neighbour(S, mx, p, q);
}

NineBands<double> from_eigen(const Eigen::SparseMatrix<double>& S, int mx, int my) {
    const long long n = static_cast<long long>(mx) * my;
    if (!is_square_of(S, mx, my))
        throw input_error("the matrix is " + std::to_string(S.rows()) + "x" + std::to_string(S.cols()) + ", but a " +
                          std::to_string(mx) + "x" + std::to_string(my) + " grid has " + std::to_string(n) + " nodes");
    long long p = 0, q = 0;
    if (first_non_neighbour(S, mx, p, q)) {
        const std::string grid = std::to_string(mx) + "x" + std::to_string(my);
        std::string message = "entry (" + std::to_string(p + 1) + ", " + std::to_string(q + 1) +
                              ") couples grid node (" + std::to_string(p % mx) + ", " + std::to_string(p / mx) +
                              ") with (" + std::to_string(q % mx) + ", " + std::to_string(q / mx) +
                              "), which is not a neighbour on the " + grid +
                              " grid: the matrix is not nine-band on this grid. adimg numbers the nodes x-fastest: "
                              "node (i, j) is row p = j*mx + i";
        if (mx != my && fits_grid(S, my, mx))
            message += ". The matrix fits y-fastest numbering (p = i*my + j, as scikit-fem's "
                       "MeshQuad.init_tensor numbers its nodes): renumber rows and columns to p = j*mx + i, or "
                       "describe the grid with x and y exchanged (" +
                       std::to_string(my) + "x" + std::to_string(mx) + " nodes, its y widths as the x widths)";
        else if (mx != my)
            message += "; it does not fit y-fastest numbering (p = i*my + j) either: check the grid's sizes "
                       "(mx nodes in x, my in y) and that the matrix has one row per grid node";
        throw input_error(message);
    }
    NineBands<double> A(mx, my);
    for (int col = 0; col < S.outerSize(); ++col)
        for (Eigen::SparseMatrix<double>::InnerIterator it(S, col); it; ++it) {
            if (it.value() == 0.0) continue;  // a stored zero, perhaps outside the bands
            const long long row = it.row(), column = it.col();
            const int dx = static_cast<int>(column % mx - row % mx), dy = static_cast<int>(column / mx - row / mx);
            A(band_index(dx, dy), static_cast<std::size_t>(row)) += it.value();
        }
    return A;
}

namespace {

/// "node (i, j), row p" of row p of A's grid, for the messages.
std::string node_of(const NineBands<double>& A, std::size_t p) {
    return "row " + std::to_string(p) + " (node (" + std::to_string(p % A.mx) + ", " + std::to_string(p / A.mx) + "))";
}

/// The normwise backward error ||b - A x||_inf / || |A| |x| + |b| ||_inf, in double.
double backward_error(const Eigen::SparseMatrix<double>& S, const std::vector<double>& b, const std::vector<double>& x) {
    const auto n = static_cast<Eigen::Index>(b.size());
    const Eigen::Map<const Eigen::VectorXd> bv(b.data(), n), xv(x.data(), n);
    const Eigen::VectorXd defect = bv - S * xv;
    const Eigen::VectorXd scale = S.cwiseAbs() * xv.cwiseAbs() + bv.cwiseAbs();
    const double bound = scale.lpNorm<Eigen::Infinity>();
    return bound > 0.0 ? defect.lpNorm<Eigen::Infinity>() / bound : 0.0;
}

/// The LDLT solve in T, with the checks of direct_solve_checked() (io.hpp).
template <class T>
DirectSolveReport cholesky_solve(const NineBands<double>& A, std::vector<double> b) {
    DirectSolveReport report;
    const char* precision = std::is_same_v<T, float> ? "float" : "double";
    const double tolerance = std::sqrt(static_cast<double>(std::numeric_limits<T>::epsilon()));
    Eigen::SparseMatrix<double> S = to_eigen(A);
    // A pure Neumann matrix is singular: solve for b's compatible part, with node 0 grounded
    // (its diagonal doubled). The grounded matrix is positive definite, and summing its rows
    // shows that its solution has x_0 = 0 and solves A x = b for a b of zero sum.
    const bool pure_neumann = constant_null_space(A);
    if (pure_neumann) {
        RightHandSideMap projection;
        projection.constant_null_space = true;
        report.removed_component = projection.apply(b.data(), b.size());
        S.coeffRef(0, 0) *= 2.0;
    }
    const Eigen::SparseMatrix<T> ST = S.cast<T>();
    Eigen::SimplicialLDLT<Eigen::SparseMatrix<T>> solver(ST);
    // The pivots against their rows' diagonals (in size), in the factor's (permuted) order. A
    // factorisation that failed stopped at its first zero pivot: the pivots after it were never
    // computed.
    const Eigen::VectorXd diagonal = (solver.permutationP() * Eigen::VectorXd(S.diagonal())).cwiseAbs();
    Eigen::Index computed = solver.vectorD().size();
    if (solver.info() != Eigen::Success)
        for (Eigen::Index k = 0; k < computed; ++k)
            if (solver.vectorD()[k] == T(0)) computed = k + 1;
    const Eigen::VectorXd pivots =
        solver.vectorD().head(computed).template cast<double>().cwiseQuotient(diagonal.head(computed));
    Eigen::Index worst = 0;
    report.smallest_pivot = pivots.size() ? pivots.minCoeff(&worst) : 1.0;
    if (solver.info() == Eigen::Success) {
        Eigen::Matrix<T, Eigen::Dynamic, 1> rhs(static_cast<Eigen::Index>(b.size()));
        for (std::size_t p = 0; p < b.size(); ++p) rhs[static_cast<Eigen::Index>(p)] = T(b[p]);
        const Eigen::Matrix<T, Eigen::Dynamic, 1> x = solver.solve(rhs);
        report.x.assign(x.data(), x.data() + x.size());
        if (pure_neumann) {
            S.coeffRef(0, 0) /= 2.0;  // the defect of the system as given
            remove_mean(report.x.data(), report.x.size());
        }
        report.backward_error = backward_error(S, b, report.x);
    }
    const std::string row = pivots.size() ? node_of(A, static_cast<std::size_t>(solver.permutationPinv().indices()[worst])) : "";
    const std::string remedy = std::string("; check the matrix: the direct solve needs a symmetric positive definite "
                                           "matrix, or a pure Neumann one (every edge natural, as GridMatrix::bands() "
                                           "marks them, and every row summing to zero), which it solves for b's "
                                           "compatible part") +
                               (std::is_same_v<T, float> ? ", or use double precision" : "");
    char numbers[160];
    if (solver.info() != Eigen::Success || !(report.smallest_pivot > tolerance)) {
        std::snprintf(numbers, sizeof numbers, "%.3g of its diagonal, not above sqrt(eps) = %.3g in %s",
                      report.smallest_pivot, tolerance, precision);
        report.message = std::string("direct solve: the matrix is ") +
                         (report.smallest_pivot < -tolerance ? "not positive definite" : "singular to working precision") +
                         ": the LDLT factor's pivot of " + row + " is " + numbers + remedy;
    } else if (!(report.backward_error < tolerance)) {
        std::snprintf(numbers, sizeof numbers, "%.3g, not below sqrt(eps) = %.3g in %s", report.backward_error,
                      tolerance, precision);
        report.message = std::string("direct solve: the solution's defect ||b - A x|| relative to || |A| |x| + |b| || "
                                     "(the backward error) is ") +
                         numbers + ", so the factor does not solve this matrix (is it symmetric? the factor reads "
                                   "only its lower triangle)" + remedy;
    } else {
        report.solved = true;
        if (report.removed_component > 0.0)
            report.message = matrix_messages::removed_component_note(report.removed_component);
    }
    return report;
}

}  // namespace

DirectSolveReport direct_solve_checked(const NineBands<double>& A, const std::vector<double>& b, bool single_precision) {
    if (b.size() != A.rows())
        throw input_error("direct solve: b has " + std::to_string(b.size()) + " entries, but the matrix has " +
                          std::to_string(A.rows()) + " rows");
    return single_precision ? cholesky_solve<float>(A, b) : cholesky_solve<double>(A, b);
}

std::vector<double> direct_solve(const NineBands<double>& A, const std::vector<double>& b, bool single_precision) {
    DirectSolveReport report = direct_solve_checked(A, b, single_precision);
    if (!report.solved) throw input_error(report.message);
    return std::move(report.x);
}

}  // namespace adimg
