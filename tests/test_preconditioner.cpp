// The V-cycle as a preconditioner (Solver::precondition): with the pre-smoother the adjoint of
// the post-smoother, the restriction the transpose of the prolongation and the exact coarse
// solve, one cycle from zero is a symmetric linear operator M (docs/design.md §4), so that a
// user's own CG may use it. On the tested backend (tested_backend.hpp); the user's CG multiplies
// by A with the CPU backend on the host, as a user's code would with its own product.

#include <adimg/error.hpp>
#include <adimg/problems.hpp>
#include <adimg/solver.hpp>

#include <cpu/cpu_backend.hpp>

#include "tested_backend.hpp"

#include <Eigen/Core>
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <string>

using namespace adimg;

namespace {

Eigen::VectorXd random_vector(std::size_t n, unsigned seed) {
    std::mt19937 generator(seed);
    std::uniform_real_distribution<double> uniform(-1.0, 1.0);
    Eigen::VectorXd v(n);
    for (auto& value : v) value = uniform(generator);
    return v;
}

SolverOptions options_with(Precision precision, Smoother smoother = Smoother::adi) {
    SolverOptions options = adimg_test::tested_options(precision);
    options.smoother = smoother;
    return options;
}

/// |v'Mu - u'Mv| / |v'Mu| for random u, v.
double asymmetry(Solver& solver) {
    const Eigen::VectorXd u = random_vector(solver.rows(), 1), v = random_vector(solver.rows(), 2);
    Eigen::VectorXd Mu, Mv;
    solver.precondition(u, Mu);
    solver.precondition(v, Mv);
    const double vMu = v.dot(Mu), uMv = u.dot(Mv);
    return std::abs(vMu - uMv) / std::abs(vMu);
}

}  // namespace

TEST_CASE("one V-cycle from zero is a symmetric operator in double", "[preconditioner]") {
    for (Smoother smoother : {Smoother::adi, Smoother::gauss_seidel, Smoother::jacobi})
        for (const char* name : {"U1", "A2", "A5"}) {
            CAPTURE(to_string(smoother), name);
            Solver solver(options_with(Precision::double_, smoother));
            solver.setup(builtin_case(name), 9);
            CHECK(asymmetry(solver) <= 1e-12);
        }
}

TEST_CASE("a cycle with unequal pre- and post-smoothing is not symmetric", "[preconditioner]") {
    // The check above can fail: with fewer post- than pre-smoothing steps the cycle is not symmetric.
    SolverOptions options = options_with(Precision::double_);
    options.post_smooth = 2;
    Solver solver(options);
    solver.setup(builtin_case("A2"), 7);
    CHECK(asymmetry(solver) > 1e-6);
}

TEST_CASE("the mixed preconditioner is linear in the scale of r and symmetric to float rounding", "[preconditioner]") {
    Solver solver(options_with(Precision::mixed));
    solver.setup(builtin_case("A5"), 8);
    CHECK(asymmetry(solver) <= 1e-5);
    // r scaled by 1e-30 (an A5 defect late in a solve): the same z, scaled.
    const Eigen::VectorXd r = random_vector(solver.rows(), 3);
    Eigen::VectorXd z, z_small;
    solver.precondition(r, z);
    solver.precondition(Eigen::VectorXd(1e-30 * r), z_small);
    CHECK((1e30 * z_small - z).norm() <= 1e-6 * z.norm());
}

TEST_CASE("precondition refuses what it cannot apply", "[preconditioner]") {
    Solver solver(options_with(Precision::mixed));
    Eigen::VectorXd r = Eigen::VectorXd::Ones(9), z;
    CHECK_THROWS_WITH(solver.precondition(r, z), Catch::Contains("call setup() with the matrix before precondition()"));
    solver.setup(builtin_case("U1"), 6);
    CHECK_THROWS_WITH(solver.precondition(r, z), Catch::Contains("r has 9 entries, the matrix 4225 rows"));
    r = Eigen::VectorXd::Ones(solver.rows());
    r[7] = std::nan("");
    CHECK_THROWS_WITH(solver.precondition(r, z), Catch::Contains("not finite"));
    r[7] = 0.0;
    solver.precondition(Eigen::VectorXd(Eigen::VectorXd::Zero(solver.rows())), z);
    CHECK(z.norm() == 0.0);
}

TEST_CASE("a user's own CG with the cycle needs no more iterations than the built-in solve needs cycles", "[preconditioner]") {
    for (Precision precision : {Precision::double_, Precision::mixed})
        for (const char* name : {"U1", "A2", "A5"}) {
            CAPTURE(name, to_string(precision));
            const int level = 9;
            const CaseSpec spec = builtin_case(name);
            const TensorMesh mesh = spec.mesh(level);
            const NineBands<double> A = assemble_stiffness(mesh);
            const std::vector<double> load = assemble_load(mesh, PolynomialProblem{spec.x.length, spec.y.length});
            CpuBackend be;
            auto times_A = [&](const Eigen::VectorXd& x) {
                CpuBackend::vector<double> in(x.data(), x.data() + x.size()), out(in.size());
                be.multiply(A, in, out);
                return Eigen::VectorXd(Eigen::Map<const Eigen::VectorXd>(out.data(), out.size()));
            };
            Solver solver(options_with(precision));
            solver.setup(spec, level);
            // Textbook preconditioned CG from x = 0 to 8 digits of defect reduction.
            const Eigen::VectorXd b = Eigen::Map<const Eigen::VectorXd>(load.data(), load.size());
            Eigen::VectorXd x = Eigen::VectorXd::Zero(b.size()), r = b, z;
            solver.precondition(r, z);
            Eigen::VectorXd p = z;
            double rz = r.dot(z);
            int iterations = 0;
            while (r.norm() > 1e-8 * b.norm() && iterations < 100) {
                const Eigen::VectorXd q = times_A(p);
                const double alpha = rz / p.dot(q);
                x += alpha * p;
                r -= alpha * q;
                solver.precondition(r, z);
                const double rz_next = r.dot(z);
                p = z + (rz_next / rz) * p;
                rz = rz_next;
                ++iterations;
            }
            CHECK((times_A(x) - b).norm() <= 1.01e-8 * b.norm());

            // The built-in solve with the same cycle: flexible CG from zero (its full multigrid
            // start, which a user's CG does not have, saves it one more cycle).
            SolverOptions same_cycle = options_with(Precision::mixed);
            same_cycle.full_multigrid = false;
            Solver built_in(same_cycle);
            built_in.setup(spec, level);
            std::vector<double> solution;
            const SolveReport report = built_in.solve(load, solution);
            REQUIRE(report.ok());
            INFO("user CG " << iterations << " iterations, built-in solve " << report.iterations());
            CHECK(iterations <= report.inner_cycles);
        }
}
