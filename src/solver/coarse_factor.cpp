#include <adimg/error.hpp>
#include <adimg/io.hpp>

#include "coarse_factor.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace adimg {

namespace {

bool nearly_symmetric(const Eigen::SparseMatrix<double>& S) {
    const Eigen::SparseMatrix<double> asymmetry = S - Eigen::SparseMatrix<double>(S.transpose());
    return asymmetry.norm() <= 1e-12 * S.norm();
}

}  // namespace

bool nearly_symmetric(const NineBands<double>& A) { return nearly_symmetric(to_eigen(A)); }

bool constant_null_space(const NineBands<double>& A) {
    if (!A.natural.all()) return false;
    for (std::size_t p = 0; p < A.rows(); ++p) {
        double sum = 0.0, magnitude = 0.0;
        for (int k = 0; k < 9; ++k) {
            sum += A(k, p);
            magnitude += std::abs(A(k, p));
        }
        if (std::abs(sum) > 1e-10 * magnitude) return false;
    }
    return true;
}

namespace {

/// A with the row and column of node 0 replaced by the identity's.
Eigen::SparseMatrix<double> with_node_0_pinned(Eigen::SparseMatrix<double> S) {
    for (Eigen::Index c = 0; c < S.outerSize(); ++c)
        for (Eigen::SparseMatrix<double>::InnerIterator it(S, c); it; ++it)
            if (it.row() == 0 || it.col() == 0) it.valueRef() = it.row() == it.col() ? 1.0 : 0.0;
    return S;
}

/// v -= mean(v)
void remove_mean(Eigen::Ref<Eigen::VectorXd> v) { v.array() -= v.mean(); }

/// Whether S has the sparsity pattern of the compressed columns `starts` and `rows`.
bool same_pattern(const Eigen::SparseMatrix<double>& S, const std::vector<int>& starts, const std::vector<int>& rows) {
    return static_cast<std::size_t>(S.outerSize()) + 1 == starts.size() && static_cast<std::size_t>(S.nonZeros()) == rows.size() &&
           std::equal(starts.begin(), starts.end(), S.outerIndexPtr()) && std::equal(rows.begin(), rows.end(), S.innerIndexPtr());
}

}  // namespace

CoarseFactor::CoarseFactor(const NineBands<double>& A) : pinned_(constant_null_space(A)) {
    const Eigen::SparseMatrix<double> plain = to_eigen(A);
    const Eigen::SparseMatrix<double> S = pinned_ ? with_node_0_pinned(plain) : plain;
    n_ = S.rows();
    bool factored = false;
    if (nearly_symmetric(plain)) {
        cholesky_ = std::make_unique<Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>>>();
        cholesky_->analyzePattern(S);
        pattern_starts_.assign(S.outerIndexPtr(), S.outerIndexPtr() + S.outerSize() + 1);
        pattern_rows_.assign(S.innerIndexPtr(), S.innerIndexPtr() + S.nonZeros());
        factored = factor_numbers(S);
    } else {
        lu_ = std::make_unique<Eigen::SparseLU<Eigen::SparseMatrix<double>>>();
        lu_->analyzePattern(S);
        lu_->factorize(S);
        factored = lu_->info() == Eigen::Success;
        if (factored) bytes_ = static_cast<long long>(lu_->nnzL() + lu_->nnzU()) * 12;
    }
    if (!factored) throw_singular(A);
}

void CoarseFactor::refactor(const NineBands<double>& A) {
    const bool pinned = constant_null_space(A);
    const Eigen::SparseMatrix<double> plain = to_eigen(A);
    if (cholesky_ && pinned == pinned_ && nearly_symmetric(plain)) {
        const Eigen::SparseMatrix<double> S = pinned ? with_node_0_pinned(plain) : plain;
        if (same_pattern(S, pattern_starts_, pattern_rows_)) {
            if (!factor_numbers(S)) throw_singular(A);
            return;
        }
    }
    *this = CoarseFactor(A);
}

bool CoarseFactor::factor_numbers(const Eigen::SparseMatrix<double>& S) {
    cholesky_->factorize(S);
    const bool factored = cholesky_->info() == Eigen::Success && cholesky_->vectorD().allFinite() &&
                          (cholesky_->vectorD().array() != 0.0).all();
    if (!factored) return false;
    bytes_ = static_cast<long long>(cholesky_->matrixL().nestedExpression().nonZeros()) * 12;
    diagonal_ = cholesky_->vectorD();
    const auto& P = cholesky_->permutationP().indices();
    permutation_ = P.size() > 0 ? Eigen::VectorXi(P) : Eigen::VectorXi::LinSpaced(n_, 0, static_cast<int>(n_) - 1);
    return true;
}

void CoarseFactor::throw_singular(const NineBands<double>& A) {
    throw input_error("the coarsest grid's matrix (" + std::to_string(A.mx) + "x" + std::to_string(A.my) +
                      " nodes) is singular, so it has no direct solve: check the matrix (every node needs a "
                      "nonzero diagonal and Dirichlet rows need their identity; a singular matrix is solved only "
                      "as a pure Neumann problem, every edge natural and every row summing to zero), or use "
                      "SolverOptions::coarse_solver = pcg");
}

void CoarseFactor::solve(const double* b, double* x) const {
    const Eigen::Map<const Eigen::VectorXd> given(b, n_);
    Eigen::Map<Eigen::VectorXd> out(x, n_);
    Eigen::VectorXd projected;
    if (pinned_) {
        projected = given;
        remove_mean(projected);
        projected[0] = 0.0;
    }
    const Eigen::Map<const Eigen::VectorXd> rhs(pinned_ ? projected.data() : b, n_);
    if (cholesky_)
        out = cholesky_->solve(rhs);
    else
        out = lu_->solve(rhs);
    if (pinned_) remove_mean(out);
}

void CoarseFactor::inverse(double* rows) const {
    // Row i of A^-1 is column i of A^-T: for the symmetric factor that is the solve for e_i, for
    // LU the solve with the transpose. Blocks of columns keep each thread's solves in cache.
    using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    Eigen::Map<RowMajor> out(rows, n_, n_);
    constexpr Eigen::Index block = 32;
    bool finite = true;
#pragma omp parallel for schedule(dynamic) reduction(&& : finite)
    for (Eigen::Index first = 0; first < n_; first += block) {
        const Eigen::Index width = std::min(block, n_ - first);
        Eigen::MatrixXd unit = Eigen::MatrixXd::Zero(n_, width);  // columns first .. of the identity
        unit.middleRows(first, width).setIdentity();
        const Eigen::MatrixXd solved = cholesky_ ? Eigen::MatrixXd(cholesky_->solve(unit)) : Eigen::MatrixXd(lu_->transpose().solve(unit));
        finite = finite && solved.allFinite();
        out.middleRows(first, width) = solved.transpose();
    }
    if (!finite) throw_not_finite();
    if (pinned_) project_pinned_inverse(rows, static_cast<int>(n_));
}

void project_pinned_inverse(double* rows, int n) {
    using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    Eigen::Map<RowMajor> S(rows, n, n);
    S(0, 0) = 0.0;
    std::vector<double> r(n), c(n);
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; ++i) r[i] = mean_in_order([&](int j) { return S(i, j); }, n);
#pragma omp parallel for schedule(static)
    for (int j = 0; j < n; ++j) c[j] = mean_in_order([&](int i) { return S(i, j); }, n);
    const double m = mean_in_order([&](int i) { return r[i]; }, n);
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) S(i, j) = projected_entry(S(i, j), r[i], c[j], m);
}

bool CoarseFactor::ldlt(LdltArrays& arrays) const {
    if (!cholesky_) return false;
    const auto& L = cholesky_->matrixL().nestedExpression();
    if (!L.isCompressed()) throw std::logic_error("CoarseFactor: Eigen's LDL^T factor is not in compressed columns");
    arrays = {static_cast<int>(n_), L.outerIndexPtr(), L.innerIndexPtr(), L.valuePtr(), diagonal_.data(), permutation_.data()};
    return true;
}

void CoarseFactor::throw_not_finite() const {
    throw input_error("the coarsest grid's matrix (" + std::to_string(n_) +
                      " unknowns) is singular to working precision: its inverse is not finite; use "
                      "SolverOptions::coarse_solver = pcg");
}

}  // namespace adimg
