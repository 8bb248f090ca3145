// The coarsest grid's factor on the host (src/solver/coarse_factor.hpp), which every backend's
// direct coarsest-grid solve starts from: the inverse it gives, its refusal of a singular matrix,
// and the pseudo-inverse of a pure Neumann matrix. About the host alone, so CPU tests only; the
// GPU tests check the device's copy of the inverse against it (gpu/test_cuda_backend.cu).

#include <adimg/error.hpp>
#include <adimg/grid.hpp>
#include <adimg/io.hpp>
#include <adimg/problems.hpp>

#include <solver/coarse_factor.hpp>

#include <Eigen/Core>
#include <catch2/catch.hpp>

#include "boundary_problems.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

using namespace adimg;
using namespace adimg_test;

namespace {
constexpr EdgeCondition Nm = EdgeCondition::neumann;
}  // namespace

namespace {
/// max |(A X)_pq - I_pq| for X = the factor's inverse(), dense row-major.
double identity_defect(const NineBands<double>& A, const CoarseFactor& factor) {
    const Eigen::Index n = static_cast<Eigen::Index>(A.rows());
    std::vector<double> X(static_cast<std::size_t>(n) * n);
    factor.inverse(X.data());
    using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    const Eigen::MatrixXd product = to_eigen(A) * Eigen::Map<const RowMajor>(X.data(), n, n);
    return (product - Eigen::MatrixXd::Identity(n, n)).cwiseAbs().maxCoeff();
}
}  // namespace

TEST_CASE("CoarseFactor: A A^-1 = I on the cases' 33 x 33 grids (Cholesky) and for a nonsymmetric matrix (LU)",
          "[coarse]") {
    // Measured: max |A A^-1 - I| 3.4e-15 (A2) .. 1.3e-14 (A5); 4.4e-16 for the nonsymmetric one.
    for (const std::string name : {"U1", "A2", "A5"}) {
        const NineBands<double> A = assemble_stiffness(builtin_case(name).mesh(5));
        const double defect = identity_defect(A, CoarseFactor(A));
        INFO(name << " level 5: max |A A^-1 - I| = " << defect);
        CHECK(defect < 1e-11);
    }
    NineBands<double> skew = assemble_stiffness(builtin_case("U1").mesh(3));
    skew(E, 4 * 9 + 4) += 0.1;  // one coupling of the centre node, not mirrored
    const double defect = identity_defect(skew, CoarseFactor(skew));
    INFO("nonsymmetric: max |A A^-1 - I| = " << defect);
    CHECK(defect < 1e-13);
}

TEST_CASE("CoarseFactor refuses a singular matrix, naming the way out", "[coarse][errors]") {
    const NineBands<double> zero(3, 3);
    try {
        CoarseFactor{zero};
        FAIL("a zero matrix was inverted");
    } catch (const input_error& e) {
        const std::string what = e.what();
        INFO(what);
        CHECK(what.find("singular") != std::string::npos);
        CHECK(what.find("SolverOptions::coarse_solver = pcg") != std::string::npos);
    }
}

TEST_CASE("The coarsest grid's factor of a pure Neumann matrix applies the pseudo-inverse, and so does the dense "
          "inverse the GPU is given",
          "[boundary][coarse]") {
    const FemMesh mesh = deformed_mesh(4);
    const GridMatrix A = GridMatrix::from_eigen(mesh.grid, assemble(mesh, {Nm, Nm, Nm, Nm}).A);
    REQUIRE(A.constant_null_space());
    REQUIRE(constant_null_space(A.bands()));
    const CoarseFactor factor(A.bands());
    const std::size_t n = A.bands().rows();
    std::vector<double> b(n), x(n), inverse(n * n);
    for (std::size_t p = 0; p < n; ++p) b[p] = std::sin(0.37 * p) + 0.5;  // not compatible: mean 0.5
    factor.solve(b.data(), x.data());
    // A x is b less its mean, and x has zero mean: x = A^+ b.
    const std::vector<double> Ax = A.multiply(x);
    const double mean = std::accumulate(b.begin(), b.end(), 0.0) / n;
    std::vector<double> compatible = b;
    for (double& v : compatible) v -= mean;
    CHECK(relative_difference(Ax, compatible) <= 1e-12);
    double largest = 0.0;
    for (double v : x) largest = std::max(largest, std::abs(v));
    CHECK(std::abs(std::accumulate(x.begin(), x.end(), 0.0)) <= 1e-12 * n * largest);
    // The dense inverse's rows applied to b give the same x.
    factor.inverse(inverse.data());
    std::vector<double> dense(n, 0.0);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j) dense[i] += inverse[i * n + j] * b[j];
    CHECK(relative_difference(dense, x) <= 1e-12);
}
