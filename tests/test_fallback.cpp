// Mixed precision falls back to double inner cycles when float cannot work, and says so; on the
// tested backend (tested_backend.hpp).

#include <adimg/problems.hpp>
#include <adimg/io.hpp>
#include <adimg/hierarchy.hpp>
#include <adimg/solver.hpp>

#include <catch2/catch.hpp>

#include "tested_backend.hpp"

#include <cmath>
#include <limits>

using namespace adimg;

namespace {

const CaseSpec& overflow_case() {
    static const CaseSpec spec = read_case_file(ADIMG_TEST_DATA "/float_overflow.cfg");
    return spec;
}

SolveReport solve(Precision precision, int level, std::vector<double>& x) {
    const CaseSpec& spec = overflow_case();
    const SolverOptions options = adimg_test::tested_options(precision);
    Solver solver(options);
    solver.setup(rediscretized_hierarchy(spec, level, options.coarse_level));
    return solver.solve(assemble_load(spec.mesh(level), {spec.x.length, spec.y.length}), x);
}

}  // namespace

TEST_CASE("matrix entries beyond float's range: mixed precision falls back to double and reaches 8 digits", "[fallback]") {
    const int level = 8;
    const NineBands<double> A = assemble_stiffness(overflow_case().mesh(level));
    double largest = 0.0;
    for (double a : A.values) largest = std::max(largest, std::abs(a));
    INFO("largest entry " << largest);
    REQUIRE(largest > std::numeric_limits<float>::max());  // the premise: float cannot hold this matrix

    std::vector<double> x;
    const SolveReport mixed = solve(Precision::mixed, level, x);
    INFO("mixed: " << to_string(mixed.status) << ", " << mixed.iterations() << ", " << mixed.digits_gained()
                   << " digits; " << mixed.message);
    CHECK(mixed.ok());
    CHECK(mixed.fell_back_to_double);
    CHECK(mixed.digits_gained() >= 8.0);
    CHECK_THAT(mixed.message, Catch::Contains("non-finite") && Catch::Contains("double inner cycles"));
    // The answer is the direct solve's, to the accuracy 8 digits of defect reduction give.
    const TensorMesh mesh = overflow_case().mesh(level);
    const PolynomialProblem problem{1.0, 1.0};
    const double direct = relative_l2_error(mesh, problem, direct_solve(A, assemble_load(mesh, problem)));
    CHECK(relative_l2_error(mesh, problem, x) == Approx(direct).epsilon(1e-4));

    std::vector<double> x_single;
    const SolveReport single = solve(Precision::single, level, x_single);
    INFO("single: " << to_string(single.status) << ": " << single.message);
    CHECK_FALSE(single.ok());  // float alone cannot, and reports it instead of returning garbage
}

TEST_CASE("inner cycles stop at float's precision floor instead of running to the cap", "[fallback]") {
    // At L=10 the float defect of U1 cannot be resolved to 3 digits (eps * cond is about 1e-1):
    // with the cap alone, digits:3 ran 32 cycles per outer step on the H200 (4:128).
    const CaseSpec spec = builtin_case("U1");
    const int level = 10;
    SolverOptions options = adimg_test::tested_options();
    options.inner = {InnerStop::Kind::digits, 3};
    Solver solver(options);
    solver.setup(rediscretized_hierarchy(spec, level, options.coarse_level));
    std::vector<double> x;
    const SolveReport report = solver.solve(assemble_load(spec.mesh(level), {1.0, 1.0}), x);
    INFO(report.iterations() << ", " << report.digits_gained() << " digits");
    CHECK(report.ok());
    CHECK(report.inner_cycles <= 4 * report.outer_iterations);
    for (const OuterStep& step : report.history)
        for (std::size_t c = 1; c < step.inner_defects.size(); ++c)  // every cycle but the last halved the defect
            if (c + 1 < step.inner_defects.size()) CHECK(step.inner_defects[c] <= 0.5 * step.inner_defects[c - 1]);
}
