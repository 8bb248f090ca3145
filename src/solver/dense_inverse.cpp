#include <adimg/error.hpp>
#include <adimg/io.hpp>

#include "dense_inverse.hpp"

#include <Eigen/Dense>
#include <Eigen/SparseCholesky>
#include <Eigen/SparseLU>

namespace adimg {

std::vector<double> dense_inverse(const NineBands<double>& A) {
    const Eigen::SparseMatrix<double> S = to_eigen(A);
    const Eigen::Index n = S.rows();
    const Eigen::MatrixXd identity = Eigen::MatrixXd::Identity(n, n);
    const Eigen::SparseMatrix<double> asymmetry = S - Eigen::SparseMatrix<double>(S.transpose());
    Eigen::MatrixXd inverse;
    bool factored = false;
    if (asymmetry.norm() <= 1e-12 * S.norm()) {
        Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> ldlt(S);
        if ((factored = ldlt.info() == Eigen::Success)) inverse = ldlt.solve(identity);
    } else {
        Eigen::SparseLU<Eigen::SparseMatrix<double>> lu;
        lu.analyzePattern(S);
        lu.factorize(S);
        if ((factored = lu.info() == Eigen::Success)) inverse = lu.solve(identity);
    }
    if (!factored || !inverse.allFinite())
        throw input_error("the coarsest grid's matrix (" + std::to_string(A.mx) + "x" + std::to_string(A.my) +
                          " nodes) is singular, so it has no direct solve: check the matrix (every node needs a "
                          "nonzero diagonal and Dirichlet rows need their identity), or use "
                          "SolverOptions::coarse_solver = pcg");
    std::vector<double> rows(static_cast<std::size_t>(n) * n);
    Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(rows.data(), n, n) = inverse;
    return rows;
}

}  // namespace adimg
