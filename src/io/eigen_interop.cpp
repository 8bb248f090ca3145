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

NineBands<double> from_eigen(const Eigen::SparseMatrix<double>& S, int mx, int my) {
    const long long n = static_cast<long long>(mx) * my;
    if (S.rows() != n || S.cols() != n)
        throw input_error("the matrix is " + std::to_string(S.rows()) + "x" + std::to_string(S.cols()) + ", but a " +
                          std::to_string(mx) + "x" + std::to_string(my) + " grid has " + std::to_string(n) + " nodes");
    NineBands<double> A(mx, my);
    for (int col = 0; col < S.outerSize(); ++col)
        for (Eigen::SparseMatrix<double>::InnerIterator it(S, col); it; ++it) {
            const long long p = it.row(), q = it.col();
            const int i = static_cast<int>(p % mx), j = static_cast<int>(p / mx);
            const int qi = static_cast<int>(q % mx), qj = static_cast<int>(q / mx);
            const int dx = qi - i, dy = qj - j;
            if (dx < -1 || dx > 1 || dy < -1 || dy > 1)
                throw input_error("entry (" + std::to_string(p + 1) + ", " + std::to_string(q + 1) +
                                  ") couples grid node (" + std::to_string(i) + ", " + std::to_string(j) +
                                  ") with (" + std::to_string(qi) + ", " + std::to_string(qj) +
                                  "), which is not a neighbour on the " + std::to_string(mx) + "x" +
                                  std::to_string(my) + " grid: the matrix is not nine-band on this grid");
            A(band_index(dx, dy), static_cast<std::size_t>(p)) += it.value();
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
