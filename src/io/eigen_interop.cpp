#include <adimg/io.hpp>
#include <adimg/error.hpp>

#include <Eigen/SparseCholesky>
#include <Eigen/SparseLU>

#include <cmath>

#include <string>

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
/// mx x my grid numbered x-fastest; false if there is none.
bool first_non_neighbour(const Eigen::SparseMatrix<double>& S, int mx, long long& p, long long& q) {
    for (int col = 0; col < S.outerSize(); ++col)
        for (Eigen::SparseMatrix<double>::InnerIterator it(S, col); it; ++it) {
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
            const long long row = it.row(), column = it.col();
            const int dx = static_cast<int>(column % mx - row % mx), dy = static_cast<int>(column / mx - row / mx);
            A(band_index(dx, dy), static_cast<std::size_t>(row)) += it.value();
        }
    return A;
}

namespace {

template <class T>
std::vector<double> cholesky_solve(const NineBands<double>& A, const std::vector<double>& b) {
    const Eigen::SparseMatrix<T> S = to_eigen(A).cast<T>();
    Eigen::SimplicialLDLT<Eigen::SparseMatrix<T>> solver(S);
    if (solver.info() != Eigen::Success)
        throw input_error("direct solve: the sparse Cholesky factorisation failed; the matrix is not symmetric positive definite");
    Eigen::Matrix<T, Eigen::Dynamic, 1> rhs(static_cast<Eigen::Index>(b.size()));
    for (std::size_t p = 0; p < b.size(); ++p) rhs[static_cast<Eigen::Index>(p)] = T(b[p]);
    const Eigen::Matrix<T, Eigen::Dynamic, 1> x = solver.solve(rhs);
    return std::vector<double>(x.data(), x.data() + x.size());
}

}  // namespace

std::vector<double> direct_solve(const NineBands<double>& A, const std::vector<double>& b, bool single_precision) {
    return single_precision ? cholesky_solve<float>(A, b) : cholesky_solve<double>(A, b);
}

}  // namespace adimg
