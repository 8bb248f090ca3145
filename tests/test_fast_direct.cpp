// The fast direct solver (include/adimg/fast_direct.hpp) on the CPU: the graded eigendecomposition
// against its defining identities, the solve against the sparse Cholesky solution and the
// paper's errors, second-order convergence with the paper's solution and a manufactured one, the
// discrete solution's L2 error at L=10 and 11, the refinement loop and its statuses, every choice
// of direction and transform, meshes that are neither square nor of 2^L elements, and bad input.

#include "compare.hpp"
#include "discrete_l2_errors.hpp"
#include "fast_direct_case_solve.hpp"
#include "manufactured.hpp"
#include "paper_values.hpp"

#include <adimg/error.hpp>
#include <adimg/fast_direct.hpp>
#include <adimg/io.hpp>
#include <fast_direct/pencil.hpp>
#include <fast_direct/separable_matrix.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>
#include <string>
#include <vector>

using namespace adimg;

namespace {

FastDirectOptions cpu_options() {
    FastDirectOptions options;
    options.backend = BackendKind::cpu;
    return options;
}

using adimg_test::relative_max_difference;

struct Solved {
    std::vector<double> x;
    FastDirectReport report;
    std::string method;
};

Solved fast_solve(const TensorMesh& mesh, const std::vector<double>& b, FastDirectOptions options = cpu_options()) {
    FastDirectSolver solver(options);
    solver.setup(mesh);
    Solved s;
    s.report = solver.solve(b, s.x);
    s.method = solver.method();
    return s;
}

double case_error(const std::string& name, int level) {
    const CaseSpec spec = builtin_case(name);
    const TensorMesh mesh = spec.mesh(level);
    const PolynomialProblem problem{spec.x.length, spec.y.length};
    const Solved s = fast_solve(mesh, assemble_load(mesh, problem));
    REQUIRE(s.report.ok());
    return relative_l2_error(mesh, problem, s.x);
}

/// Fast direct against the sparse Cholesky solution of the same matrix.
void check_against_cholesky(const std::string& name, int level) {
    const CaseSpec spec = builtin_case(name);
    const TensorMesh mesh = spec.mesh(level);
    const std::vector<double> b = assemble_load(mesh, {spec.x.length, spec.y.length});
    const Solved s = fast_solve(mesh, b);
    const std::vector<double> cholesky = direct_solve(assemble_stiffness(mesh), b);
    const double difference = relative_max_difference(s.x, cholesky);
    INFO(name << " L=" << level << " (" << s.method << "): max |x - x_cholesky| / max |x_cholesky| = " << difference
              << ", defect " << s.report.final_defect / s.report.initial_defect << " after "
              << s.report.refinement_steps << " refinement steps");
    CHECK(s.report.ok());
    CHECK(difference < 1e-10);
}

/// A mesh of `n` random widths spanning `decades` orders of magnitude.
Mesh1D random_widths(int n, double decades, unsigned seed) {
    std::mt19937 random(seed);
    std::uniform_real_distribution<double> exponent(-decades, 0.0);
    Mesh1D mesh{std::vector<double>(n)};
    for (double& h : mesh.widths) h = std::pow(10.0, exponent(random));
    return mesh;
}

/// Random values on every node, edge nodes included (boundary values there).
std::vector<double> random_rhs(std::size_t n, unsigned seed) {
    std::mt19937 random(seed);
    std::uniform_real_distribution<double> value(-1.0, 1.0);
    std::vector<double> b(n);
    for (double& v : b) v = value(random);
    return b;
}

}  // namespace

TEST_CASE("Fast direct: the pencil of a uniform mesh has the sine modes' eigenvalues, M-orthonormal vectors",
          "[fast_direct]") {
    const int n = 64;
    const double h = 0.25 / n;
    const fast_direct::Pencil p = fast_direct::Pencil::from_widths(std::vector<double>(n, h));
    const fast_direct::Modes modes = fast_direct::generalized_modes(p);
    REQUIRE(modes.size() == n - 1);
    for (int k = 0; k < n - 1; ++k) {
        const double s = std::sin(std::numbers::pi * (k + 1) / (2.0 * n));
        const double exact = (4.0 / h) * s * s / (h * (1.0 - 2.0 / 3.0 * s * s));
        INFO("mode " << k << ": " << modes.values[k] << " against " << exact);
        CHECK(std::abs(modes.values[k] - exact) < 1e-13 * exact);
        for (int l = 0; l <= k; ++l)
            CHECK(std::abs(p.mass(modes.vector(k), modes.vector(l)) - (k == l ? 1.0 : 0.0)) < 1e-13);
    }
}

TEST_CASE("Fast direct: the graded pencil of A5 (widths over 12 decades) keeps its smallest modes", "[fast_direct]") {
    // At L=8 the x widths of A5 run from 4e-3 down to 3.6e-15 and the eigenvalues from 9.87 to
    // 3.8e27. A dense eigensolver errs by about eps * 3.8e27 in every eigenvalue (Eigen's
    // GeneralizedSelfAdjointEigenSolver, with or without scaling by diag(M), gives -2.9e11 for the
    // smallest and 141 of the 255 off by more than 1e-6). These must hold relative to the
    // eigenvalues themselves: V^T M V = I and V^T K V = Λ to 1e-11 sqrt(λ_k λ_l), checked in long
    // double element by element.
    const TensorMesh mesh = builtin_case("A5").mesh(8);
    const fast_direct::Pencil p = fast_direct::Pencil::from_widths(mesh.x.widths);
    const fast_direct::Modes modes = fast_direct::generalized_modes(p);
    const int n = p.size();
    REQUIRE(modes.values.back() > 1e27);
    // The smallest eigenvalue is the continuous one, π², up to the discretisation error.
    CHECK(std::abs(modes.values[0] - std::numbers::pi * std::numbers::pi) < 1e-3 * modes.values[0]);
    double worst_k = 0.0, worst_m = 0.0;
    for (int k = 0; k < n; ++k) {
        const double* vk = modes.vector(k);
        for (int l = k; l < n; ++l) {
            const double* vl = modes.vector(l);
            long double stiffness = 0.0L, mass = 0.0L;
            for (int e = 0; e <= n; ++e) {
                const long double a0 = e > 0 ? vk[e - 1] : 0.0, a1 = e < n ? vk[e] : 0.0;
                const long double b0 = e > 0 ? vl[e - 1] : 0.0, b1 = e < n ? vl[e] : 0.0;
                const long double h = p.widths[e];
                stiffness += (a1 - a0) * (b1 - b0) / h;
                mass += h / 6.0L * (2.0L * a0 * b0 + a0 * b1 + a1 * b0 + 2.0L * a1 * b1);
            }
            if (k == l) {
                stiffness -= modes.values[k];
                mass -= 1.0L;
            }
            worst_k = std::max(worst_k, static_cast<double>(std::abs(stiffness) /
                                                            std::sqrt(static_cast<long double>(modes.values[k]) * modes.values[l])));
            worst_m = std::max(worst_m, static_cast<double>(std::abs(mass)));
        }
    }
    INFO("max |V^T K V - Λ| / sqrt(λ_k λ_l) = " << worst_k << ", max |V^T M V - I| = " << worst_m);
    CHECK(worst_k < 1e-11);
    CHECK(worst_m < 1e-11);
    // The Sturm count separates each eigenvalue from its neighbours.
    for (int k = 0; k < n; k += 17) {
        CHECK(fast_direct::count_below(p, modes.values[k] * (1.0 - 1e-9)) == k);
        CHECK(fast_direct::count_below(p, modes.values[k] * (1.0 + 1e-9)) == k + 1);
    }
}

TEST_CASE("Fast direct equals the sparse Cholesky solution on all eight cases at L=2, 5 and 7", "[fast_direct]") {
    for (const std::string& name : builtin_case_names())
        for (int level : {2, 5, 7}) check_against_cholesky(name, level);
}

TEST_CASE("Fast direct equals the sparse Cholesky solution on all eight cases at L=9", "[fast_direct][slow]") {
    for (const std::string& name : builtin_case_names()) check_against_cholesky(name, 9);
}

TEST_CASE("Fast direct: second-order convergence and the paper's errors on all eight cases", "[fast_direct][paper]") {
    for (const std::string& name : builtin_case_names()) {
        std::vector<double> error(10, 0.0);
        for (int level = 4; level <= 9; ++level) error[level] = case_error(name, level);
        for (int level = 5; level <= 9; ++level) {
            const double ratio = error[level - 1] / error[level];
            INFO(name << " L=" << level << ": error " << error[level] << ", ratio to L-1 " << ratio);
            CHECK(ratio > 3.99);
            CHECK(ratio < 4.03);
        }
        for (int level : {8, 9}) {
            const double paper = paper::table2.at({name, level}).cpu_double;
            INFO(name << " L=" << level << ": fast direct " << error[level] << ", paper Table 2 " << paper);
            CHECK(std::abs(error[level] - paper) < 5e-5 * paper);
        }
    }
    for (int level = 2; level <= 9; ++level) {
        const double ours = case_error("U1", level), paper = paper::table1_double.at(level);
        INFO("U1 L=" << level << ": fast direct " << ours << ", paper Table 1 " << paper);
        CHECK(std::abs(ours - paper) < 5e-5 * paper);
    }
}

TEST_CASE("Fast direct: second-order convergence to a manufactured solution on all eight cases", "[fast_direct]") {
    // u0 = sin(πx/a) e^(x/a) sin(πy/b) e^(y/b), not a polynomial: the errors of levels 5..9 fall by
    // 4 per level to within 2%.
    for (const std::string& name : builtin_case_names()) {
        const CaseSpec spec = builtin_case(name);
        using Kind = adimg_test::Profile::Kind;
        const adimg_test::Manufactured m{{Kind::sine_exp, spec.x.length}, {Kind::sine_exp, spec.y.length}};
        double before = 0.0;
        for (int level = 5; level <= 9; ++level) {
            const TensorMesh mesh = spec.mesh(level);
            std::vector<double> b = adimg_test::manufactured_load(mesh, m);
            const int mx = mesh.mx(), my = mesh.my();
            for (int j = 0; j < my; ++j)
                for (int i = 0; i < mx; ++i)
                    if (i == 0 || j == 0 || i == mx - 1 || j == my - 1) b[static_cast<std::size_t>(j) * mx + i] = 0.0;
            const Solved s = fast_solve(mesh, b);
            REQUIRE(s.report.ok());
            const double error = adimg_test::manufactured_l2_error(mesh, m, s.x);
            if (level > 5) {
                INFO(name << " L=" << level << ": error " << error << ", ratio to L-1 " << before / error);
                CHECK(before / error > 3.92);
                CHECK(before / error < 4.08);
            }
            before = error;
        }
    }
}

TEST_CASE("Fast direct meets the multigrid stop criterion on all eight cases at L=10 without refinement",
          "[fast_direct]") {
    for (const std::string& name : builtin_case_names()) {
        const CaseSpec spec = builtin_case(name);
        const TensorMesh mesh = spec.mesh(10);
        const Solved s = fast_solve(mesh, assemble_load(mesh, {spec.x.length, spec.y.length}));
        INFO(name << ": " << s.method << ", defect " << s.report.first_defect / s.report.initial_defect);
        CHECK(s.report.ok());
        CHECK(s.report.refinement_steps == 0);
        CHECK(s.report.first_defect < 1e-9 * s.report.initial_defect);
    }
}

namespace {

/// One refinement step: the L2 error of the discrete solution to 1e-6, and the stop criterion.
void check_discrete_l2_error(const std::string& name, int level) {
    const CaseSpec spec = builtin_case(name);
    const TensorMesh mesh = spec.mesh(level);
    const PolynomialProblem problem{spec.x.length, spec.y.length};
    FastDirectOptions options = cpu_options();
    options.min_refinements = 1;
    const Solved s = fast_solve(mesh, assemble_load(mesh, problem), options);
    const double error = relative_l2_error(mesh, problem, s.x);
    const double reference = adimg_test::discrete_l2_error.at({name, level});
    INFO(name << " L=" << level << ": L2 error " << error << " against the discrete solution's " << reference
              << ", defect " << s.report.final_defect / s.report.initial_defect);
    CHECK(s.report.ok());
    CHECK(s.report.refinement_steps == 1);
    CHECK(s.report.final_defect <= 1e-8 * s.report.initial_defect);
    CHECK(std::abs(error - reference) < 1e-6 * reference);
}

}  // namespace

TEST_CASE("Fast direct with one refinement step has the discrete solution's L2 error at L=10", "[fast_direct]") {
    for (const std::string& name : builtin_case_names()) check_discrete_l2_error(name, 10);
    // The transform solve alone errs by its rounding, amplified by the lowest modes' condition:
    // U1's L2 error is then 1.2e-6 off, which the 8-digit defect criterion does not see.
    const CaseSpec u1 = builtin_case("U1");
    const TensorMesh mesh = u1.mesh(10);
    const Solved alone = fast_solve(mesh, assemble_load(mesh, {}));
    CHECK(std::abs(relative_l2_error(mesh, {}, alone.x) - adimg_test::discrete_l2_error.at({"U1", 10})) >
          1e-7 * adimg_test::discrete_l2_error.at({"U1", 10}));
}

TEST_CASE("Fast direct with one refinement step has the discrete solution's L2 error at L=11", "[fast_direct][slow]") {
    for (const std::string& name : builtin_case_names()) check_discrete_l2_error(name, 11);
}

TEST_CASE("Fast direct: every direction and transform gives the same solution", "[fast_direct]") {
    // U1 allows all four; A2 both directions with eigenvectors; a mesh graded in x and uniform in
    // y picks the sine transform in y by itself.
    struct Choice {
        FastAxis axis;
        FastTransform transform;
        const char* method;
    };
    const Choice choices[] = {{FastAxis::x, FastTransform::sine, "sine transform in x (FFTW), lines in y by Thomas"},
                              {FastAxis::y, FastTransform::sine, "sine transform in y (FFTW), lines in x by Thomas"},
                              {FastAxis::x, FastTransform::eigen, "generalised eigenvectors in x (Eigen products), lines in y by Thomas"},
                              {FastAxis::y, FastTransform::eigen, "generalised eigenvectors in y (Eigen products), lines in x by Thomas"}};
    const TensorMesh u1 = builtin_case("U1").mesh(7);
    const std::vector<double> b = random_rhs(u1.nodes(), 1);
    const std::vector<double> reference = direct_solve(assemble_stiffness(u1), b);
    for (const Choice& c : choices) {
        FastDirectOptions options = cpu_options();
        options.axis = c.axis;
        options.transform = c.transform;
        const Solved s = fast_solve(u1, b, options);
        INFO(s.method);
        CHECK(s.method == c.method);
        CHECK(s.report.ok());
        CHECK(relative_max_difference(s.x, reference) < 1e-10);
    }
    const TensorMesh a2 = builtin_case("A2").mesh(7);
    const std::vector<double> b2 = assemble_load(a2, {});
    const std::vector<double> reference2 = direct_solve(assemble_stiffness(a2), b2);
    for (FastAxis axis : {FastAxis::x, FastAxis::y}) {
        FastDirectOptions options = cpu_options();
        options.axis = axis;
        const Solved s = fast_solve(a2, b2, options);
        INFO(s.method);
        CHECK(s.method.find("generalised eigenvectors") == 0);
        CHECK(relative_max_difference(s.x, reference2) < 1e-10);
    }
    const TensorMesh mixed{builtin_case("A4").mesh(6).x, builtin_case("U1").mesh(7).y};
    const std::vector<double> b3 = random_rhs(mixed.nodes(), 2);
    const Solved s = fast_solve(mixed, b3);
    CHECK(s.method == "sine transform in y (FFTW), lines in x by Thomas");
    CHECK(relative_max_difference(s.x, direct_solve(assemble_stiffness(mixed), b3)) < 1e-10);
    FastDirectOptions sine_in_x = cpu_options();
    sine_in_x.transform = FastTransform::sine;
    sine_in_x.axis = FastAxis::x;
    FastDirectSolver refused(sine_in_x);
    CHECK_THROWS_WITH(refused.setup(mixed), Catch::Contains("FastDirectOptions::transform = sine") &&
                                                Catch::Contains("equal element widths in x"));
}

TEST_CASE("Fast direct: meshes of any size, random widths over 4 decades, boundary values in b", "[fast_direct]") {
    // 77 x 41 elements (no power of two, not square), each width random in [1e-4, 1]; b random
    // on every node, so the edge rows carry boundary values: x = b there, and A x = b to rounding.
    // (Neighbours that differ by many decades inside the domain make the assembled matrix itself
    // ill-determined: over 12 decades the Cholesky solution's defect is 3e-6 of ||b||, and fast
    // direct's 2.5e-6.)
    const TensorMesh mesh{random_widths(77, 4.0, 3), random_widths(41, 4.0, 4)};
    const std::vector<double> b = random_rhs(mesh.nodes(), 5);
    const Solved s = fast_solve(mesh, b);
    INFO(s.method << ": defect " << s.report.final_defect / s.report.initial_defect << " after "
                  << s.report.refinement_steps << " refinement steps");
    CHECK(s.method.find("generalised eigenvectors in y") == 0);  // the direction with fewer nodes
    CHECK(s.report.ok());
    const int mx = mesh.mx(), my = mesh.my();
    for (int j = 0; j < my; ++j)
        for (int i = 0; i < mx; ++i)
            if (i == 0 || j == 0 || i == mx - 1 || j == my - 1) {
                const std::size_t p = static_cast<std::size_t>(j) * mx + i;
                CHECK(s.x[p] == b[p]);
            }
    CHECK(relative_max_difference(s.x, direct_solve(assemble_stiffness(mesh), b)) < 1e-10);
    // The same through the widths and raw pointers, b and x one array.
    FastDirectSolver solver(cpu_options());
    solver.setup(mesh.x.widths, mesh.y.widths);
    std::vector<double> in_place = b;
    const FastDirectReport report = solver.solve(in_place.data(), in_place.data());
    CHECK(report.ok());
    CHECK(relative_max_difference(in_place, s.x) < 1e-14);
    CHECK(solver.rows() == mesh.nodes());
    CHECK(solver.setup_count() == 1);
    CHECK(solver.solve_count() == 1);
}

TEST_CASE("Fast direct: refinement when the transform alone misses the criterion, and the statuses", "[fast_direct]") {
    // Widths off uniform by up to 1e-8 but taken as uniform (uniform_tolerance 1e-6): the sine
    // transform of the mean width solves a neighbouring matrix, to about 1e-8, and refinement with
    // the exact defect does the rest.
    TensorMesh mesh = builtin_case("U1").mesh(7);
    for (std::size_t e = 0; e < mesh.x.widths.size(); ++e) mesh.x.widths[e] *= 1.0 + 1e-8 * std::sin(0.7 * e);
    const std::vector<double> b = assemble_load(mesh, {});
    const std::vector<double> reference = direct_solve(assemble_stiffness(mesh), b);
    FastDirectOptions options = cpu_options();
    options.uniform_tolerance = 1e-6;
    options.digits = 12;
    int calls = 0;
    FastDirectSolver solver(options);
    solver.setup(mesh);
    CHECK(solver.transform() == FastTransform::sine);
    std::vector<double> x;
    const FastDirectReport report = solver.solve(b, x, [&](const OuterStep&) { ++calls; });
    INFO("defects: first " << report.first_defect / report.initial_defect << ", final "
                           << report.final_defect / report.initial_defect);
    CHECK(report.ok());
    CHECK(report.first_defect > 1e-10 * report.initial_defect);
    CHECK(report.refinement_steps >= 1);
    CHECK(report.final_defect <= 1e-12 * report.initial_defect);
    CHECK(report.outer_iterations == report.refinement_steps + 1);
    CHECK(static_cast<int>(report.history.size()) == report.outer_iterations);
    CHECK(calls == report.outer_iterations);
    CHECK(report.history.back().defect == report.final_defect);
    CHECK(relative_max_difference(x, reference) < 1e-10);

    options.max_refinements = 0;
    FastDirectSolver no_refinement(options);
    no_refinement.setup(mesh);
    const FastDirectReport stopped = no_refinement.solve(b, x);
    CHECK(stopped.status == SolveStatus::max_iterations);
    CHECK_THAT(stopped.message, Catch::Contains("FastDirectOptions::max_refinements = 0"));
    CHECK(stopped.final_defect == stopped.first_defect);

    // 15 digits are beyond the defect's rounding level: the loop ends at the first step that does
    // not reduce the defect, and x is its last iterate (as a multigrid solve that stagnates).
    options.max_refinements = 10;
    options.digits = 15;
    FastDirectSolver unreachable(options);
    unreachable.setup(mesh);
    const FastDirectReport stalled = unreachable.solve(b, x);
    CHECK(stalled.status == SolveStatus::stagnated);
    CHECK(stalled.refinement_steps < 10);
    CHECK_THAT(stalled.message, Catch::Contains("did not reduce the defect"));
    REQUIRE(stalled.history.size() >= 2);
    CHECK(stalled.history.back().defect >= stalled.history[stalled.history.size() - 2].defect);
    CHECK(stalled.final_defect == stalled.history.back().defect);
    CHECK(relative_max_difference(x, reference) < 1e-10);
}

TEST_CASE("Fast direct from a guess: a step corrects it, one that meets the criterion is the answer, a failure "
          "hands back the better of guess and iterate", "[fast_direct]") {
    const TensorMesh mesh = builtin_case("A2").mesh(7);
    const std::vector<double> b = assemble_load(mesh, {});
    FastDirectSolver solver(cpu_options());
    solver.setup(mesh);
    std::vector<double> solution;
    REQUIRE(solver.solve(b, solution).ok());

    // The solution as the guess: no step, x untouched.
    std::vector<double> x = solution;
    const FastDirectReport at_once = solver.solve(b.data(), x.data(), InitialGuess::given);
    CHECK(at_once.ok());
    CHECK(at_once.outer_iterations == 0);
    CHECK(at_once.initial_defect <= at_once.target_defect);
    CHECK(x == solution);

    // A guess off by 1e-3 on every interior node: one transform solve of its defect corrects it.
    x = solution;
    for (std::size_t p = 0; p < x.size(); ++p) x[p] *= 1.0 + 1e-3 * std::sin(0.1 * static_cast<double>(p));
    const FastDirectReport corrected = solver.solve(b.data(), x.data(), InitialGuess::given);
    INFO("initial defect " << corrected.initial_defect << ", final " << corrected.final_defect);
    CHECK(corrected.ok());
    CHECK(corrected.outer_iterations >= 1);
    CHECK(corrected.initial_defect > corrected.target_defect);
    CHECK(corrected.final_defect <= corrected.target_defect);
    CHECK(relative_max_difference(x, solution) < 1e-10);

    // 15 digits from the solution itself, which meets 8 only: the steps cannot reach them; the solve
    // stagnates and hands back whichever of its last iterate and the guess has the smaller defect.
    FastDirectOptions strict = cpu_options();
    strict.digits = 15;
    strict.max_refinements = 10;
    FastDirectSolver unreachable(strict);
    unreachable.setup(mesh);
    x = solution;
    const FastDirectReport failed = unreachable.solve(b.data(), x.data(), InitialGuess::given);
    CHECK_FALSE(failed.ok());
    CHECK(failed.final_defect <= failed.initial_defect);
    if (failed.message.find("the initial guess is returned") != std::string::npos) CHECK(x == solution);
    CHECK(relative_max_difference(x, solution) < 1e-10);

    // A guess that is not finite: the solve says so and leaves x as given.
    x = solution;
    x[x.size() / 2] = NAN;
    const FastDirectReport not_finite = solver.solve(b.data(), x.data(), InitialGuess::given);
    CHECK(not_finite.status == SolveStatus::non_finite);
    CHECK_THAT(not_finite.message, Catch::Contains("initial guess"));
    CHECK(std::isnan(x[x.size() / 2]));
}

TEST_CASE("Fast direct: bad input and misuse are input errors that say what is allowed", "[fast_direct]") {
    FastDirectOptions options = cpu_options();
    options.digits = 0.0;
    CHECK_THROWS_AS(FastDirectSolver(options), input_error);
    options = cpu_options();
    options.max_refinements = 11;
    CHECK_THROWS_WITH(FastDirectSolver(options), Catch::Contains("FastDirectOptions::max_refinements"));
    options = cpu_options();
    options.uniform_tolerance = -1.0;
    CHECK_THROWS_AS(FastDirectSolver(options), input_error);
    options = cpu_options();
    options.max_refinements = 2;
    options.min_refinements = 3;
    CHECK_THROWS_WITH(FastDirectSolver(options), Catch::Contains("FastDirectOptions::min_refinements = 3") &&
                                                     Catch::Contains("max_refinements (2)"));

    FastDirectSolver solver(cpu_options());
    std::vector<double> x;
    CHECK_THROWS_WITH(solver.solve(std::vector<double>(9, 1.0), x), Catch::Contains("call FastDirectSolver::setup()"));
    CHECK_THROWS_WITH(solver.setup({1.0}, {1.0, 1.0}), Catch::Contains("at least 2 elements"));
    CHECK_THROWS_WITH(solver.setup({1.0, 0.0, 1.0}, {1.0, 1.0}), Catch::Contains("element width 1"));
    CHECK_THROWS_AS(solver.setup({1.0, NAN}, {1.0, 1.0}), input_error);
    solver.setup({0.5, 0.5}, {0.25, 0.5, 0.25});
    CHECK_THROWS_WITH(solver.solve(std::vector<double>(5, 1.0), x), Catch::Contains("12 nodes"));
    CHECK(solver.method() == "sine transform in x (FFTW), lines in y by Thomas");

    std::string why;
    if (!cuda_available(&why)) {
        FastDirectOptions gpu = cpu_options();
        gpu.backend = BackendKind::cuda;
        FastDirectSolver on_gpu(gpu);
        CHECK_THROWS_AS(on_gpu.setup(builtin_case("U1").mesh(3)), device_error);
    }
}

// --- Neumann edges ------------------------------------------------------------------------------

namespace {

using adimg_test::Manufactured;
using adimg_test::Profile;
constexpr EdgeCondition Dir = EdgeCondition::dirichlet, Neu = EdgeCondition::neumann;

/// b of the manufactured solution, zero on the Dirichlet nodes (u0 vanishes there; its slope
/// vanishes on the Neumann edges, so they carry no flux term).
std::vector<double> neumann_load(const TensorMesh& mesh, const FastDirectEdges& edges, const Manufactured& m) {
    std::vector<double> b = adimg_test::manufactured_load(mesh, m);
    const int mx = mesh.mx(), my = mesh.my();
    for (int j = 0; j < my; ++j)
        for (int i = 0; i < mx; ++i) {
            const bool dirichlet = (i == 0 && edges.x_low == Dir) || (i == mx - 1 && edges.x_high == Dir) ||
                                   (j == 0 && edges.y_low == Dir) || (j == my - 1 && edges.y_high == Dir);
            if (dirichlet) b[static_cast<std::size_t>(j) * mx + i] = 0.0;
        }
    return b;
}

/// The factor of u0 that meets these ends.
Profile profile(EdgeCondition low, EdgeCondition high, double length) {
    if (low == high) return {low == Neu ? Profile::Kind::two_cosines : Profile::Kind::sine_exp, length};
    return {low == Neu ? Profile::Kind::quarter_cosine : Profile::Kind::quarter_sine, length};
}

}  // namespace

TEST_CASE("Fast direct: pencils with Neumann ends have the cosine and quarter-wave eigenvalues", "[fast_direct][neumann]") {
    // n equal elements of width h: with Neumann at both ends the modes are cos(π i k / n), k = 0..n;
    // Dirichlet at 0 and Neumann at n, sin((2k+1) π i / 2n), k = 0..n-1. Both have the eigenvalues
    // (4/h) s² / (h (1 - 2 s²/3)), s = sin(θ/2), with θ = πk/n and (2k+1)π/2n.
    const int n = 48;
    const double h = 0.5 / n;
    for (const bool both_neumann : {true, false}) {
        const fast_direct::Pencil p =
            fast_direct::Pencil::from_widths(std::vector<double>(n, h), both_neumann ? Neu : Dir, Neu);
        const fast_direct::Modes modes = fast_direct::generalized_modes(p);
        REQUIRE(modes.size() == (both_neumann ? n + 1 : n));
        CHECK(p.singular() == both_neumann);
        for (int k = 0; k < modes.size(); ++k) {
            const double theta = both_neumann ? std::numbers::pi * k / n : std::numbers::pi * (2 * k + 1) / (2.0 * n);
            const double s = std::sin(theta / 2.0);
            const double exact = (4.0 / h) * s * s / (h * (1.0 - 2.0 / 3.0 * s * s));
            INFO((both_neumann ? "Neumann-Neumann" : "Dirichlet-Neumann") << " mode " << k << ": " << modes.values[k]
                                                                           << " against " << exact);
            CHECK(std::abs(modes.values[k] - exact) <= 1e-13 * exact);
            for (int l = 0; l <= k; ++l)
                CHECK(std::abs(p.mass(modes.vector(k), modes.vector(l)) - (k == l ? 1.0 : 0.0)) < 1e-13);
        }
    }
}

TEST_CASE("Fast direct with Neumann edges equals the sparse Cholesky solution", "[fast_direct][neumann]") {
    // The separable assembly equals assemble_stiffness() where every edge is Dirichlet.
    const TensorMesh a2 = builtin_case("A2").mesh(6);
    const NineBands<double> separable = fast_direct::separable_matrix(a2, {});
    const NineBands<double> assembled = assemble_stiffness(a2);
    CHECK(relative_max_difference(separable.values, assembled.values) < 1e-15);

    struct Setting {
        const char* mesh;
        FastDirectEdges edges;
        const char* method;
    };
    const Setting settings[] = {
        {"U1", {Neu, Neu, Dir, Dir}, "cosine transform in x (FFTW), lines in y by Thomas"},
        {"U1", {Dir, Dir, Neu, Dir}, "sine transform in x (FFTW), lines in y by Thomas"},
        {"U1", {Neu, Dir, Dir, Neu}, "generalised eigenvectors in x (Eigen products), lines in y by Thomas"},
        {"A2", {Neu, Neu, Dir, Neu}, "generalised eigenvectors in y (Eigen products), lines in x by Thomas"},
        {"mixed", {Dir, Dir, Neu, Neu}, "cosine transform in y (FFTW), lines in x by Thomas"},
    };
    for (const Setting& setting : settings) {
        const std::string name = setting.mesh;
        const TensorMesh mesh = name == "mixed" ? TensorMesh{builtin_case("A4").mesh(6).x, builtin_case("U1").mesh(7).y}
                                                : builtin_case(name).mesh(7);
        const std::vector<double> b = random_rhs(mesh.nodes(), 11);
        FastDirectSolver solver(cpu_options());
        solver.setup(mesh, setting.edges);
        std::vector<double> x;
        const FastDirectReport report = solver.solve(b, x);
        const std::vector<double> reference = direct_solve(solver.matrix(), b);
        INFO(name << ": " << solver.method() << ", defect " << report.final_defect / report.initial_defect);
        CHECK(solver.method() == setting.method);
        CHECK(report.ok());
        CHECK(relative_max_difference(x, reference) < 1e-10);
    }
}

TEST_CASE("Fast direct with Neumann edges: second-order convergence to manufactured solutions", "[fast_direct][neumann]") {
    // u0 = g(x) h(y), each factor sin(π s/L) e^(s/L) between Dirichlet ends,
    // cos(π s/L) + cos(2π s/L)/2 (zero slope) between Neumann ones, a quarter wave between
    // unlike ends; uniform (cosine transform) and graded (eigenvectors) meshes, on all four edges
    // Neumann too (the solution of mean zero, as u0). A5 with Neumann where its elements are
    // large (x = 0, y = 1); where they are tiny, see the next test.
    struct Setting {
        const char* name;
        FastDirectEdges edges;
    };
    const Setting settings[] = {{"U2", {Neu, Neu, Dir, Dir}},
                                {"A3", {Neu, Neu, Dir, Dir}},
                                {"U1", {Neu, Neu, Neu, Neu}},
                                {"A2", {Neu, Neu, Neu, Neu}},
                                {"A5", {Neu, Dir, Dir, Neu}}};
    for (const Setting& setting : settings) {
        const CaseSpec spec = builtin_case(setting.name);
        const FastDirectEdges& e = setting.edges;
        const Manufactured m{profile(e.x_low, e.x_high, spec.x.length), profile(e.y_low, e.y_high, spec.y.length)};
        double before = 0.0;
        for (int level = 5; level <= 9; ++level) {
            const TensorMesh mesh = spec.mesh(level);
            FastDirectSolver solver(cpu_options());
            solver.setup(mesh, setting.edges);
            std::vector<double> x;
            const FastDirectReport report = solver.solve(neumann_load(mesh, setting.edges, m), x);
            INFO(setting.name << " L=" << level << " (" << solver.method() << "): " << report.message);
            REQUIRE(report.ok());
            const double error = adimg_test::manufactured_l2_error(mesh, m, x);
            if (level > 5) {
                INFO(setting.name << " edges " << int(e.x_low) << int(e.x_high) << int(e.y_low) << int(e.y_high) << " L=" << level
                                  << " (" << solver.method() << "): error " << error << ", ratio to L-1 "
                                  << before / error);
                CHECK(before / error > 3.92);
                CHECK(before / error < 4.08);
            }
            before = error;
        }
    }
}

TEST_CASE("Fast direct: one solver set up again and again solves each mesh as a fresh one", "[fast_direct][neumann]") {
    // Each setup replaces the transform, the defect and the vectors on the same backend: from a
    // graded mesh to a singular one (Neumann on all four edges: the constants' vectors) and back.
    struct Setting {
        TensorMesh mesh;
        FastDirectEdges edges;
    };
    const Setting settings[] = {{builtin_case("A5").mesh(6), {}},
                                {builtin_case("U1").mesh(7), {Neu, Neu, Neu, Neu}},
                                {builtin_case("A2").mesh(5), {}},
                                {builtin_case("U3").mesh(6), {Neu, Dir, Dir, Dir}}};
    FastDirectSolver reused(cpu_options());
    for (const Setting& setting : settings) {
        std::vector<double> b = random_rhs(setting.mesh.nodes(), 13);
        if (setting.edges.all_neumann()) {
            double mean = 0.0;
            for (double v : b) mean += v / static_cast<double>(b.size());
            for (double& v : b) v -= mean;
        }
        FastDirectSolver fresh(cpu_options());
        fresh.setup(setting.mesh, setting.edges);
        reused.setup(setting.mesh, setting.edges);
        std::vector<double> x_fresh, x_reused;
        CHECK(fresh.solve(b, x_fresh).ok());
        CHECK(reused.solve(b, x_reused).ok());
        CHECK(reused.method() == fresh.method());
        CHECK(x_reused == x_fresh);
    }
    CHECK(reused.setup_count() == 4);
}

TEST_CASE("Fast direct with Neumann on all four edges: the constants, and an incompatible b", "[fast_direct][neumann]") {
    const TensorMesh mesh = builtin_case("A2").mesh(6);
    const FastDirectEdges all_neumann{Neu, Neu, Neu, Neu};
    FastDirectSolver solver(cpu_options());
    solver.setup(mesh, all_neumann);
    // A balanced b: random, less its mean. The solution has ∫ u_h = 0, and A x = b.
    std::vector<double> b = random_rhs(mesh.nodes(), 12);
    double mean = 0.0;
    for (double v : b) mean += v / static_cast<double>(b.size());
    for (double& v : b) v -= mean;
    std::vector<double> x;
    const FastDirectReport report = solver.solve(b, x);
    CHECK(report.ok());
    double integral = 0.0, scale = 0.0;
    const int mx = mesh.mx();
    for (int j = 0; j < mesh.my(); ++j)
        for (int i = 0; i < mx; ++i) {
            const double wx = 0.5 * ((i > 0 ? mesh.x.widths[i - 1] : 0.0) + (i < mx - 1 ? mesh.x.widths[i] : 0.0));
            const double wy =
                0.5 * ((j > 0 ? mesh.y.widths[j - 1] : 0.0) + (j < mesh.my() - 1 ? mesh.y.widths[j] : 0.0));
            integral += wx * wy * x[static_cast<std::size_t>(j) * mx + i];
            scale += wx * wy * std::abs(x[static_cast<std::size_t>(j) * mx + i]);
        }
    CHECK(std::abs(integral) < 1e-13 * scale);
    // Unbalanced by 1e-6 of its norm: refused, naming the condition.
    std::vector<double> unbalanced = b;
    double norm = 0.0;
    for (double v : b) norm += v * v;
    for (double& v : unbalanced) v += 1e-6 * std::sqrt(norm / static_cast<double>(b.size()));
    CHECK_THROWS_WITH(solver.solve(unbalanced, x), Catch::Contains("must sum to zero") && Catch::Contains("∫ f + ∮ g = 0"));

    // Neumann where A5's elements are tiny (x = 1, down to 1.5e-11 at L=6): the rows there hold
    // entries of about 1/h that cancel to the small differences across those elements, and their
    // rounding leaves the matrix ill-determined (the sparse Cholesky solution's defect is 6e-7 of
    // ||b||). Fast direct gets to 2.5e-8 and says that it misses the criterion.
    const TensorMesh a5 = builtin_case("A5").mesh(6);
    const FastDirectEdges tiny_neumann{Neu, Neu, Dir, Dir};
    FastDirectSolver limited(cpu_options());
    limited.setup(a5, tiny_neumann);
    const Manufactured m{profile(Neu, Neu, 1.0), profile(Dir, Dir, 1.0)};
    const FastDirectReport stopped = limited.solve(neumann_load(a5, tiny_neumann, m), x);
    CHECK(!stopped.ok());
    CHECK_THAT(stopped.message, Catch::Contains("above the stop criterion"));

    // Neumann edges run on the CPU; asked for the GPU, setup says so.
    FastDirectOptions gpu = cpu_options();
    gpu.backend = BackendKind::cuda;
    FastDirectSolver on_gpu(gpu);
    CHECK_THROWS_WITH(on_gpu.setup(mesh, all_neumann), Catch::Contains("Neumann edges are solved on the CPU only"));
    // A sine transform needs Dirichlet ends, a cosine transform Neumann ones.
    FastDirectOptions sine = cpu_options();
    sine.transform = FastTransform::sine;
    sine.axis = FastAxis::x;
    FastDirectSolver refused(sine);
    CHECK_THROWS_WITH(refused.setup(builtin_case("U1").mesh(5), {Neu, Neu, Dir, Dir}),
                      Catch::Contains("Dirichlet at both ends") && Catch::Contains("ends are Neumann and Neumann"));
}

TEST_CASE("Fast direct solve_case: the load vector and the L2 error where the solve runs equal the host's",
          "[fast_direct][setup]") {
    for (const char* name : {"U1", "A2", "A5"}) {
        INFO(name);
        FastDirectSolver solver(cpu_options());
        const adimg_test::CaseSolves s = adimg_test::solve_case_both_ways(solver, name, 7);
        CHECK(s.on_backend.report.status == s.on_host.status);
        CHECK(s.on_backend.report.refinement_steps == s.on_host.refinement_steps);
        CHECK(s.on_backend.report.final_defect == s.on_host.final_defect);
        CHECK(s.x_case == s.x);
        CHECK(std::abs(s.on_backend.relative_l2_error - s.host_error) <= 1e-12 * s.host_error);
        // Without x the solve is the same and nothing comes back.
        CHECK(solver.solve_case().relative_l2_error == s.on_backend.relative_l2_error);
    }
}

TEST_CASE("Fast direct solve_case needs a case's setup: a mesh's setup, Neumann edges included, has none",
          "[fast_direct][setup][neumann]") {
    FastDirectSolver solver(cpu_options());
    CHECK_THROWS_AS(solver.solve_case(), input_error);
    solver.setup(builtin_case("U1"), 5);
    CHECK_NOTHROW(solver.solve_case());
    // A case is Dirichlet on all four edges; Neumann edges come with a mesh and the caller's b.
    FastDirectEdges edges;
    edges.x_low = edges.x_high = EdgeCondition::neumann;
    solver.setup(builtin_case("U1").mesh(5), edges);
    CHECK_THROWS_WITH(solver.solve_case(), Catch::Contains("setup(case, level)"));
}
