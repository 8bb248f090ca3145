// Flexible CG around the V-cycles (src/solver/flexible_cg.hpp) against iterative refinement on
// the tested backend (tested_backend.hpp): the same answer, no more cycles, the stop rules, the
// safeguards.

#include "krylov_harness.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace adimg;
using adimg::testing::outer_run;

namespace {

SolverOptions with_outer(OuterMethod outer, InnerStop inner = {InnerStop::Kind::cycles, 1}) {
    SolverOptions options;
    options.outer = outer;
    options.inner = inner;
    return options;
}

}  // namespace

TEST_CASE("flexible CG converges to the refinement's answer in no more cycles", "[krylov]") {
    for (const char* name : {"U1", "U3", "A2", "A5"}) {
        CAPTURE(name);
        const auto cg = outer_run<float>(name, 8, with_outer(OuterMethod::cg));
        const auto ir = outer_run<float>(name, 8, with_outer(OuterMethod::refinement));
        INFO("cg " << cg.report.iterations() << " " << cg.report.message << ", refinement " << ir.report.iterations());
        REQUIRE(cg.report.ok());
        REQUIRE(ir.report.ok());
        CHECK(cg.report.inner_cycles <= ir.report.inner_cycles);
        CHECK(cg.report.final_defect <= 1e-8 * cg.report.initial_defect);
        CHECK(std::abs(cg.error - ir.error) <= 1e-5 * ir.error);
    }
}

TEST_CASE("flexible CG in double is preconditioned CG with the symmetric cycle", "[krylov]") {
    const auto cg = outer_run<double>("A5", 8, with_outer(OuterMethod::cg));
    const auto ir = outer_run<double>("A5", 8, with_outer(OuterMethod::refinement));
    INFO("cg " << cg.report.iterations() << ", refinement " << ir.report.iterations());
    REQUIRE(cg.report.ok());
    CHECK(cg.report.inner_cycles < ir.report.inner_cycles);
}

TEST_CASE("the absolute stop ends at the requested defect and says so", "[krylov]") {
    for (OuterMethod outer : {OuterMethod::refinement, OuterMethod::cg}) {
        SolverOptions options = with_outer(outer);
        options.stop = StopRule::absolute;
        options.absolute_defect = 1e-9;
        const auto run = outer_run<float>("A2", 7, options);
        REQUIRE(run.report.ok());
        CHECK(run.report.stop_rule == StopRule::absolute);
        CHECK(run.report.target_defect == 1e-9);
        CHECK(run.report.final_defect <= 1e-9);
        // One step fewer would not have reached it.
        REQUIRE(run.report.history.size() >= 2);
        CHECK(run.report.history[run.report.history.size() - 2].defect > 1e-9);
    }
}

TEST_CASE("flexible CG stops at max_iterations with the refinement's message", "[krylov]") {
    SolverOptions options = with_outer(OuterMethod::cg);
    options.max_iterations = 2;
    const auto run = outer_run<float>("A5", 8, options);
    CHECK(run.report.status == SolveStatus::max_iterations);
    CHECK(run.report.outer_iterations == 2);
    CHECK(run.report.message.find("no convergence within 2 outer iterations (SolverOptions::max_iterations)") == 0);
}

TEST_CASE("a full multigrid start gains more in the first step than a V-cycle from zero", "[krylov]") {
    for (OuterMethod outer : {OuterMethod::refinement, OuterMethod::cg})
        for (const char* name : {"U1", "A5"}) {
            CAPTURE(name, to_string(outer));
            SolverOptions options = with_outer(outer);
            options.full_multigrid = false;
            const auto plain = outer_run<float>(name, 8, options);
            options.full_multigrid = true;
            const auto fmg = outer_run<float>(name, 8, options);
            REQUIRE(fmg.report.ok());
            REQUIRE(fmg.report.history.front().full_multigrid);
            CHECK_FALSE(fmg.report.history.back().full_multigrid);
            CHECK(fmg.report.history.front().rate < plain.report.history.front().rate);
            CHECK(std::abs(fmg.error - plain.error) <= 1e-5 * plain.error);
        }
}
