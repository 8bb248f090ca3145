#include <adimg/error.hpp>
#include <adimg/io.hpp>

#include "coarse_factor.hpp"

#include <Eigen/Dense>

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

}  // namespace adimg
