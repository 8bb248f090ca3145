#include <adimg/error.hpp>
#include <adimg/io.hpp>

#include "coarse_factor.hpp"

#include <Eigen/Dense>

#include <algorithm>

namespace adimg {

bool nearly_symmetric(const NineBands<double>& A) {
    const Eigen::SparseMatrix<double> S = to_eigen(A);
    const Eigen::SparseMatrix<double> asymmetry = S - Eigen::SparseMatrix<double>(S.transpose());
    return asymmetry.norm() <= 1e-12 * S.norm();
}

CoarseFactor::CoarseFactor(const NineBands<double>& A) {
    const Eigen::SparseMatrix<double> S = to_eigen(A);
    n_ = S.rows();
    bool factored = false;
    if (nearly_symmetric(A)) {
        cholesky_ = std::make_unique<Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>>>(S);
        factored = cholesky_->info() == Eigen::Success && cholesky_->vectorD().allFinite() &&
                   (cholesky_->vectorD().array() != 0.0).all();
        if (factored) bytes_ = static_cast<long long>(cholesky_->matrixL().nestedExpression().nonZeros()) * 12;
    } else {
        lu_ = std::make_unique<Eigen::SparseLU<Eigen::SparseMatrix<double>>>();
        lu_->analyzePattern(S);
        lu_->factorize(S);
        factored = lu_->info() == Eigen::Success;
        if (factored) bytes_ = static_cast<long long>(lu_->nnzL() + lu_->nnzU()) * 12;
    }
    if (!factored)
        throw input_error("the coarsest grid's matrix (" + std::to_string(A.mx) + "x" + std::to_string(A.my) +
                          " nodes) is singular, so it has no direct solve: check the matrix (every node needs a "
                          "nonzero diagonal and Dirichlet rows need their identity), or use "
                          "SolverOptions::coarse_solver = pcg");
}

void CoarseFactor::solve(const double* b, double* x) const {
    const Eigen::Map<const Eigen::VectorXd> rhs(b, n_);
    Eigen::Map<Eigen::VectorXd> out(x, n_);
    if (cholesky_)
        out = cholesky_->solve(rhs);
    else
        out = lu_->solve(rhs);
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
        const Eigen::MatrixXd unit = Eigen::MatrixXd::Identity(n_, n_).middleCols(first, width);
        const Eigen::MatrixXd solved = cholesky_ ? Eigen::MatrixXd(cholesky_->solve(unit)) : Eigen::MatrixXd(lu_->transpose().solve(unit));
        finite = finite && solved.allFinite();
        out.middleRows(first, width) = solved.transpose();
    }
    if (!finite)
        throw input_error("the coarsest grid's matrix (" + std::to_string(n_) +
                          " unknowns) is singular to working precision: its inverse is not finite; use "
                          "SolverOptions::coarse_solver = pcg");
}

}  // namespace adimg
