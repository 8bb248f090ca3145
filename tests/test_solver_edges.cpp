// The solver at its edges, on the tested backend (tested_backend.hpp): right-hand sides of 1e170
// and 1e-170, a solve on an indefinite matrix named as such, advice that fits the damping that
// failed, one Solver shared by two threads. Each is one way the library used to fail. The host's
// edges (norms near double's range, matrices refused when handed over, output files) are in
// test_host_edges.cpp.

#include <adimg/hierarchy.hpp>
#include <adimg/io.hpp>
#include <adimg/problems.hpp>
#include <adimg/solver.hpp>

#include <catch2/catch.hpp>

#include "compare.hpp"
#include "spoilt_u1.hpp"
#include "tested_backend.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using namespace adimg;
using namespace adimg_test;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("A right-hand side of 1e170 or 1e-170 solves to the same digits as one of order 1",
          "[norm][multigrid]") {
    const CaseSpec spec = builtin_case("A2");
    const int level = 6;
    const TensorMesh mesh = spec.mesh(level);
    const std::vector<double> b = assemble_load(mesh, {spec.x.length, spec.y.length});
    const Hierarchy hierarchy = rediscretized_hierarchy(spec, level, 3);
    const BackendKind backend = tested_backend();
    for (const Precision precision : {Precision::mixed, Precision::double_}) {
        const SolverOptions options = tested_options(precision);
        Solver solver(options);
        solver.setup(hierarchy);
        std::vector<double> x_ref;
        const SolveReport reference = solver.solve(b, x_ref);
        REQUIRE(reference.ok());
        for (const double scale : {1e170, 1e-170, 1e300}) {
            std::vector<double> scaled_b(b), x;
            for (double& v : scaled_b) v *= scale;
            const SolveReport report = solver.solve(scaled_b, x);
            INFO(to_string(backend) << ", " << to_string(precision) << ", b scaled by " << scale << ": "
                                    << to_string(report.status) << ": " << report.message);
            CHECK(report.ok());
            CHECK(std::isfinite(report.digits_gained()));
            CHECK(report.iterations() == reference.iterations());
            std::vector<double> unscaled(x);
            for (double& v : unscaled) v /= scale;
            CHECK(relative_max_difference(unscaled, x_ref) < 1e-10);
        }
    }
}

TEST_CASE("A solve that fails on an indefinite matrix says so, instead of advising smoothing or damping",
          "[multigrid][errors]") {
    // A - s I with s between the smallest eigenvalue (about 0.019) and what the checks of
    // GridMatrix can see: it is handed over, and the refinement solve fails. (Flexible CG
    // converges on this mildly indefinite matrix: its defect does drop by 8 digits, see below.)
    const GridMatrix A = u1_with([](NineBands<double>& bands) { shift(bands, 0.05); });
    const std::vector<double> b = assemble_load(builtin_case("U1").mesh(5), {1.0, 1.0});
    for (const Smoother smoother : {Smoother::adi, Smoother::jacobi, Smoother::gauss_seidel}) {
        SolverOptions options = tested_options(Precision::double_);
        options.outer = OuterMethod::refinement;
        options.smoother = smoother;
        options.coarse_level = 1;
        Solver solver(options);
        solver.setup(A);
        std::vector<double> x;
        const SolveReport report = solver.solve(b, x);
        INFO(to_string(smoother) << ": " << to_string(report.status) << ": " << report.message);
        CHECK_FALSE(report.ok());
        CHECK(contains(report.message, "indefinite or singular matrix"));
        CHECK_FALSE(contains(report.message, "try more smoothing steps"));
        CHECK_FALSE(contains(report.message, "a smaller SolverOptions::"));

        options.outer = OuterMethod::cg;
        Solver cg(options);
        cg.setup(A);
        const SolveReport cg_report = cg.solve(b, x);
        INFO("cg: " << to_string(cg_report.status) << ": " << cg_report.message);
        if (cg_report.ok()) CHECK(cg_report.final_defect <= 1e-8 * cg_report.initial_defect);
    }
}

TEST_CASE("The advice after a failure fits the damping: too little damping asks for more, not less",
          "[multigrid][errors]") {
    struct Row {
        Smoother smoother;
        double omega, line_omega;
        const char* says;
        const char* never;
    };
    const Row rows[] = {
        {Smoother::jacobi, 1e-300, 0.7, "a larger SolverOptions::omega (1e-300 damps the Jacobi steps so strongly",
         "a smaller SolverOptions::omega"},
        {Smoother::adi, 0.7, 1e-300, "a larger SolverOptions::line_omega (1e-300 damps the line sweeps so strongly",
         "a smaller SolverOptions::line_omega"},
    };
    const CaseSpec spec = builtin_case("U1");
    const TensorMesh mesh = spec.mesh(5);
    for (const Row& row : rows) {
        SolverOptions options = tested_options(Precision::double_);
        options.smoother = row.smoother;
        options.omega = row.omega;
        options.line_omega = row.line_omega;
        Solver solver(options);
        solver.setup(rediscretized_hierarchy(spec, 5, 1));
        std::vector<double> x;
        const SolveReport report = solver.solve(assemble_load(mesh, {1.0, 1.0}), x);
        INFO(to_string(row.smoother) << ": " << to_string(report.status) << ": " << report.message);
        CHECK(report.status == SolveStatus::stagnated);
        CHECK(contains(report.message, row.says));
        CHECK_FALSE(contains(report.message, row.never));
    }
}

TEST_CASE("One Solver used from two threads: the calls wait for each other and every answer is right",
          "[api][threads]") {
    const CaseSpec spec = builtin_case("U1");
    const int level = 7;
    const TensorMesh mesh = spec.mesh(level);
    const std::vector<double> b = assemble_load(mesh, {1.0, 1.0});
    const BackendKind backend = tested_backend();
    Solver solver(tested_options());
    solver.setup(rediscretized_hierarchy(spec, level, 5));
    std::vector<double> x_ref;
    const SolveReport reference = solver.solve(b, x_ref);
    REQUIRE(reference.ok());
    constexpr int solves = 12;
    struct Result {
        bool ok = true;
        double worst = 0.0;
        std::string failure;
    } results[2];
    auto work = [&](int t) {
        // Thread 1 solves for 2b (answer 2 x_ref) and sets the same matrix up again in between.
        std::vector<double> rhs(b);
        for (double& v : rhs) v *= (t + 1);
        try {
            for (int k = 0; k < solves; ++k) {
                if (t == 1 && k % 4 == 0) solver.setup(rediscretized_hierarchy(spec, level, 5));
                std::vector<double> x;
                const SolveReport report = solver.solve(rhs, x);
                for (double& v : x) v /= (t + 1);
                results[t].ok = results[t].ok && report.ok() && report.iterations() == reference.iterations();
                results[t].worst = std::max(results[t].worst, relative_max_difference(x, x_ref));
            }
        } catch (const std::exception& e) {
            results[t].ok = false;
            results[t].failure = e.what();
        }
    };
    std::thread first(work, 0), second(work, 1);
    first.join();
    second.join();
    for (const Result& r : results) {
        INFO(to_string(backend) << ": " << r.failure);
        CHECK(r.ok);
        CHECK(r.worst < 1e-12);
    }
    // From its own step callback a call would wait for itself: refused; reading the levels is fine.
    std::vector<double> x;
    bool refused = false, read = false;
    solver.solve(b, x, [&](const OuterStep&) {
        read = !solver.levels().empty();
        try {
            std::vector<double> y;
            solver.solve(b, y);
        } catch (const std::logic_error& e) {
            refused = contains(e.what(), "from its StepCallback");
        }
    });
    CHECK(refused);
    CHECK(read);
}
