// The coarsest grid's factor on the host (src/solver/coarse_factor.hpp), which every backend's
// direct coarsest-grid solve starts from: the inverse it gives, its refusal of a singular matrix,
// and the pseudo-inverse of a pure Neumann matrix; and the column solves the device makes the
// inverse with (solver/ldlt_inverse.hpp), run here serially and with lanes as threads. About the
// host alone, so CPU tests only; the GPU tests check the device's inverse against it bit for bit
// (gpu/test_cuda_backend.cu).

#include <adimg/error.hpp>
#include <adimg/grid.hpp>
#include <adimg/io.hpp>
#include <adimg/problems.hpp>

#include <solver/coarse_factor.hpp>

#include <Eigen/Core>
#include <catch2/catch.hpp>

#include "boundary_problems.hpp"
#include "coarse_matrices.hpp"

#include <algorithm>
#include <barrier>
#include <cmath>
#include <cstring>
#include <numeric>
#include <string>
#include <thread>
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

TEST_CASE("CoarseFactor::refactor gives the bits of a new CoarseFactor: new values on the same pattern, a changed "
          "pattern, a change of kind (symmetric to not, pure Neumann to not)",
          "[coarse][reuse]") {
    auto inverse_of = [](const CoarseFactor& factor) {
        std::vector<double> X(factor.rows() * factor.rows());
        factor.inverse(X.data());
        return X;
    };
    const auto matrices = coarse_matrices();
    const NineBands<double> u1 = assemble_stiffness(builtin_case("U1").mesh(5));
    NineBands<double> u1_scaled = u1;  // new values, the same pattern
    for (double& a : u1_scaled.values) a *= 1.5;
    NineBands<double> u1_fewer = u1;  // one coupling pair removed: another pattern
    const std::size_t p = 16 * 33 + 16, q = p + 1;
    u1_fewer(E, p) = 0.0;
    u1_fewer(W, q) = 0.0;
    NineBands<double> u1_skew = u1;  // not symmetric: LU
    u1_skew(E, p) += 0.1;
    const std::vector<std::pair<std::string, NineBands<double>>> sequence = {
        {"A5", matrices[0].second},  {"U1", u1},           {"U1 scaled", u1_scaled},      {"U1, one coupling fewer", u1_fewer},
        {"U1 skew (LU)", u1_skew},   {"U1 again", u1},     {"A5 again", matrices[0].second}};
    CoarseFactor reused(sequence.front().second);
    for (const auto& [name, A] : sequence) {
        INFO(name);
        reused.refactor(A);
        const CoarseFactor fresh(A);
        CHECK(reused.pinned() == fresh.pinned());
        CHECK((inverse_of(reused) == inverse_of(fresh)));  // not decomposed: a failure prints no million entries
    }
    // A pure Neumann matrix after a Dirichlet one of the same size, and back.
    const NineBands<double>& neumann = matrices[1].second;
    const NineBands<double> dirichlet = assemble_stiffness(builtin_case("U1").mesh(4));
    REQUIRE(dirichlet.rows() == neumann.rows());
    CoarseFactor switching(dirichlet);
    for (const NineBands<double>* A : {&neumann, &dirichlet, &neumann}) {
        switching.refactor(*A);
        const CoarseFactor fresh(*A);
        CHECK(switching.pinned() == fresh.pinned());
        CHECK((inverse_of(switching) == inverse_of(fresh)));
    }
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

namespace {
/// The lanes of ldlt_unit_solve() as threads meeting at a barrier: what a warp does, step by step.
struct ThreadLanes {
    int lane, lanes;
    std::barrier<>* barrier;
    double* published;  ///< one value per lane
    void sync() const { barrier->arrive_and_wait(); }
    double broadcast(double v, int from) const {
        published[lane] = v;
        barrier->arrive_and_wait();
        const double value = published[from];
        barrier->arrive_and_wait();
        return value;
    }
};

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}
}  // namespace

TEST_CASE("The column solves the device makes the coarsest grid's inverse with give CoarseFactor::inverse() (Eigen) "
          "bit for bit, serially and with lanes side by side as a warp's",
          "[coarse]") {
    for (const auto& [name, A] : coarse_matrices()) {
        INFO(name);
        const CoarseFactor factor(A);
        const int n = static_cast<int>(factor.rows());
        std::vector<double> eigen(static_cast<std::size_t>(n) * n), columns(eigen.size());
        factor.inverse(eigen.data());
        LdltArrays f;
        REQUIRE(factor.ldlt(f));
        REQUIRE(factor.pinned() == constant_null_space(A));
        std::vector<double> x(n);
        for (int c = 0; c < n; ++c)
            ldlt_unit_solve(f, c, x.data(), SerialLane{}, [&](int k, double v) { columns[static_cast<std::size_t>(c) * n + k] = v; });
        const std::vector<double> unprojected = columns;
        if (factor.pinned()) project_pinned_inverse(columns.data(), n);
        CHECK(same_bits(columns, eigen));

        if (n > 300) continue;  // lanes as threads: the small matrix, a few columns
        for (int lanes : {3, 32})
            for (int c : {0, 1, n / 2, n - 1}) {
                INFO(lanes << " lanes, column " << c);
                std::vector<double> shared(n), published(lanes), row(n);
                std::barrier<> barrier(lanes);
                std::vector<std::thread> threads;
                for (int lane = 0; lane < lanes; ++lane)
                    threads.emplace_back([&, lane] {
                        ldlt_unit_solve(f, c, shared.data(), ThreadLanes{lane, lanes, &barrier, published.data()},
                                        [&](int k, double v) { row[k] = v; });
                    });
                for (std::thread& t : threads) t.join();
                CHECK(same_bits(row, std::vector<double>(unprojected.begin() + static_cast<std::ptrdiff_t>(c) * n,
                                                         unprojected.begin() + static_cast<std::ptrdiff_t>(c + 1) * n)));
            }
    }
}
