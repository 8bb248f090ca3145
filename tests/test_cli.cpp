// The command-line tool's exit codes and key outputs: 0 ok, 1 solve did not converge, 2 bad
// input, 3 device or resource error. The tests run the `adimg` binary built next to the test
// executable (build/adimg beside build/tests/adimg_tests); without it they are skipped.

#include <adimg/error.hpp>
#include <adimg/problems.hpp>
#include <adimg/solver.hpp>

#include <catch2/catch.hpp>

#include "cli_runner.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>
#include <string>

namespace {

using adimg_test::have_cli;
using adimg_test::run_cli;
using Result = adimg_test::CliResult;

}  // namespace

TEST_CASE("CLI exit code 0: a converged solve, the direct solve, info", "[cli]") {
    if (!have_cli()) return;
    Result r = run_cli("solve --case A2 --level 6 --backend cpu");
    INFO(r.output);
    CHECK(r.status == 0);
    CHECK(r.output.find("status converged") != std::string::npos);
    CHECK(r.output.find("relative L2 error") != std::string::npos);

    r = run_cli("solve --case U1 --level 5 --solver direct");
    INFO(r.output);
    CHECK(r.status == 0);
    CHECK(r.output.find("relative L2 error 1.11023") != std::string::npos);  // Table 1, L=5: 1.1102363e-3

    r = run_cli("info --case A5 --level 10");
    INFO(r.output);
    CHECK(r.status == 0);
    CHECK(r.output.find("h_min     8.674e-19") != std::string::npos);  // (nu/2)^10, not the paper's 9.24e-19
}

TEST_CASE("A case stacked in y (weak scaling): its widths those of the case, repeated and every other copy mirrored, its sizes and the limits",
          "[cli][stack]") {
    const adimg::CaseSpec a2 = adimg::builtin_case("A2"), tall = adimg::stacked(a2, 3);
    CHECK(tall.name == "A2-stack3");
    CHECK(tall.y.length == 3.0);
    CHECK(tall.x.length == a2.x.length);
    const adimg::TensorMesh one = a2.mesh(4), three = tall.mesh(4);
    CHECK(three.mx() == 17);
    CHECK(three.my() == 49);
    CHECK(tall.nodes(4) == 17.0 * 49.0);
    CHECK(three.x.widths == one.x.widths);
    for (int copy = 0; copy < 3; ++copy) {  // copies meet with widths alike: graded end to graded end
        INFO("copy " << copy);
        if (copy % 2 == 0)
            CHECK(std::equal(one.y.widths.begin(), one.y.widths.end(), three.y.widths.begin() + 16 * copy));
        else
            CHECK(std::equal(one.y.widths.rbegin(), one.y.widths.rend(), three.y.widths.begin() + 16 * copy));
    }
    CHECK(std::abs(std::accumulate(three.y.widths.begin(), three.y.widths.end(), 0.0) - 3.0) < 1e-14);
    CHECK_NOTHROW(adimg::split_positions(tall.mesh(3).y, three.y));  // each level refines the one below
    CHECK_THROWS_WITH(adimg::stacked(a2, 0), Catch::Contains("copies must be in 1..1024"));
    // Two copies in each direction: each direction's first copy turns its graded end to the edge
    // (A2's x-layer is at the high end, mirrored to 0), so every layer lies on the domain's edges.
    const adimg::CaseSpec four = adimg::stacked(a2, 2, 2);
    CHECK(four.name == "A2-stack2x2");
    const adimg::TensorMesh square = four.mesh(4);
    CHECK(square.mx() == 33);
    CHECK(square.my() == 33);
    CHECK(std::equal(one.x.widths.rbegin(), one.x.widths.rend(), square.x.widths.begin()));
    CHECK(std::equal(one.x.widths.begin(), one.x.widths.end(), square.x.widths.begin() + 16));
    CHECK(std::equal(one.y.widths.begin(), one.y.widths.end(), square.y.widths.begin()));
    CHECK(std::equal(one.y.widths.rbegin(), one.y.widths.rend(), square.y.widths.begin() + 16));
    CHECK(square.x.widths.front() == one.x.smallest_width());
    CHECK(square.x.widths.back() == one.x.smallest_width());
    CHECK_THROWS_WITH(adimg::stacked(adimg::builtin_case("U1"), 2).mesh(15),
                      Catch::Contains("the most that 32-bit node indices hold") && Catch::Contains("fewer copies"));
    CHECK(adimg::stacked(adimg::builtin_case("U1"), 4).mesh(14).nodes() == 16385LL * 65537LL);

    if (!have_cli()) return;
    Result r = run_cli("info --case A2 --level 4 --stack 3");
    INFO(r.output);
    CHECK(r.status == 0);
    CHECK(r.output.find("case      A2-stack3: ") != std::string::npos);
    CHECK(r.output.find("grid      17 x 49 nodes, N = 833\n") != std::string::npos);
    CHECK(r.output.find("domain    [0, 1] x [0, 3]\n") != std::string::npos);
    r = run_cli("solve --case U1 --level 4 --stack 0");
    CHECK(r.status == 2);
    CHECK(r.output.find("--stack '0' is not allowed; give the copies of the case in y (P) or in x and y (QxP), each "
                        "in 1..1024") != std::string::npos);
    r = run_cli("info --case A2 --level 4 --stack 2x2");
    INFO(r.output);
    CHECK(r.status == 0);
    CHECK(r.output.find("case      A2-stack2x2: ") != std::string::npos);
    CHECK(r.output.find("grid      33 x 33 nodes, N = 1089\n") != std::string::npos);
    r = run_cli("solve --case U1 --level 4 --stack 0x2");
    CHECK(r.status == 2);
    CHECK(r.output.find("--stack '0x2' is not allowed") != std::string::npos);
}

TEST_CASE("A stacked case solves on the CPU to the unstacked case's discretisation error, O(h^2) as it",
          "[cli][stack]") {
    if (!have_cli()) return;
    auto error_of = [](const std::string& arguments) {
        const Result r = run_cli("solve --backend cpu --quiet " + arguments, adimg_test::Capture::stdout_only);
        INFO("adimg solve " << arguments << " -> exit " << r.status << ": " << r.output);
        REQUIRE(r.status == 0);
        REQUIRE(r.output.rfind("relative L2 error ", 0) == 0);
        return std::strtod(r.output.c_str() + 18, nullptr);
    };
    for (const char* name : {"U1", "A2"}) {
        double coarser = 0.0;
        for (int level : {5, 6, 7}) {
            const std::string which = std::string("--case ") + name + " --level " + std::to_string(level);
            const double alone = error_of(which), stacked = error_of(which + " --stack 2");
            INFO(name << " at L=" << level << ": relative L2 error " << alone << " alone, " << stacked
                      << " stacked twice; at L-1 stacked " << coarser);
            CHECK(stacked > 0.5 * alone);  // the same mesh widths, a solution of the taller domain
            CHECK(stacked < 2.0 * alone);
            if (coarser > 0.0) CHECK(std::abs(coarser / stacked - 4.0) < 0.5);  // h^2
            coarser = stacked;
        }
    }
}

TEST_CASE("CLI exit code 1: a solve that does not converge (single precision, U1 L=9)", "[cli]") {
    if (!have_cli()) return;
    const Result r = run_cli("solve --case U1 --level 9 --backend cpu --precision single --quiet");
    INFO(r.output);
    CHECK(r.status == 1);
    CHECK(r.output.find("status stagnated") != std::string::npos);
}

TEST_CASE("CLI --version prints the project's version and exits 0", "[cli]") {
    if (!have_cli()) return;
    const Result r = run_cli("--version");
    INFO(r.output);
    CHECK(r.status == 0);
    CHECK(r.output.find(std::string("adimg ") + ADIMG_TEST_VERSION) != std::string::npos);
}

TEST_CASE("CLI exit code 2: bad input names the problem", "[cli]") {
    if (!have_cli()) return;
    struct Case {
        const char* arguments;
        const char* says;
    };
    const Case cases[] = {{"solve --case X9", "unknown case 'X9'"},
                          {"solve --case U1 --smoother foo", "--smoother 'foo' is not allowed"},
                          {"solve --case U1 --level 0", "--level 0 is outside"},
                          {"solve --case U1 --inner digits", "--inner 'digits' is not allowed"},
                          {"assemble --case U1 --level 2", "--out"},
                          {"frobnicate", "unknown command"},
                          {"", "usage"}};
    for (const Case& c : cases) {
        const Result r = run_cli(c.arguments);
        INFO("adimg " << c.arguments << " -> exit " << r.status << ":\n" << r.output);
        CHECK(r.status == 2);
        CHECK(r.output.find(c.says) != std::string::npos);
    }
}

TEST_CASE("CLI exit code 3: --backend cuda without a usable GPU says so, with what to use, before any work", "[cli]") {
    if (!have_cli()) return;
    std::string why;
    if (adimg::cuda_available(&why)) {
        WARN("a CUDA device is available here, so --backend cuda succeeds; nothing to check");
        return;
    }
    // Without CUDA in the build the reason is the build; with it, no usable GPU or driver.
    const bool built_with_cuda = why.find("no CUDA backend") == std::string::npos;
    const std::string reason = built_with_cuda ? "no usable GPU or driver was found" : "this build of adimg has no CUDA backend";
    for (const char* arguments : {"solve --case U1 --level 4 --backend cuda --quiet",
                                  "solve --case U1 --level 12 --backend cuda --quiet"}) {
        const Result r = run_cli(arguments);
        INFO("adimg " << arguments << " -> exit " << r.status << ":\n" << r.output);
        CHECK(r.status == 3);
        CHECK(r.output.find("device error: --backend cuda, but " + reason) != std::string::npos);
        CHECK(r.output.find("use --backend cpu") != std::string::npos);
        CHECK(r.output.find("SolverOptions::") == std::string::npos);
        CHECK(r.output.find("case U1") == std::string::npos);  // failed before assembling the problem
    }
}
