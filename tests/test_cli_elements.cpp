// A case on any element counts from the command line (issue 43): --elements and a case file's
// `elements`, the levels they give, and the refusals. Runs the `adimg` binary built beside the
// tests; skipped without it.

#include <catch2/catch.hpp>

#include "cli_runner.hpp"

#include <fstream>
#include <string>

using adimg_test::have_cli;
using adimg_test::run_cli;

TEST_CASE("CLI --elements: a case on any element counts solves on its own levels, as a case file's elements",
          "[cli][any_size]") {
    if (!have_cli()) return;
    auto r = run_cli("solve --case A2 --elements 300x77 --backend cpu");
    INFO(r.output);
    CHECK(r.status == 0);
    CHECK(r.output.find("status converged") != std::string::npos);
    // 301 x 78 nodes: level 9 (x halves eight times to 3); the coarsest of the default coarse level 5.
    CHECK(r.output.find("301x78") != std::string::npos);
    CHECK(r.output.find("      5           20x6 ") != std::string::npos);

    r = run_cli("info --case U1 --elements 300x77 --level 8");
    INFO(r.output);
    CHECK(r.status == 0);
    CHECK(r.output.find("grid      151 x 40 nodes") != std::string::npos);

    const adimg_test::TempDir dir("cli_elements");
    std::ofstream(dir.file("case.cfg")) << "name = Uneven\n[domain]\nwidth = 1\nheight = 1\n"
                                           "[refinement]\nnu = 0.5\nx_layer = high\nelements = 99x60\n";
    r = run_cli("info --case-file " + (dir / "case.cfg"));
    INFO(r.output);
    CHECK(r.status == 0);
    CHECK(r.output.find("grid      100 x 61 nodes") != std::string::npos);
    r = run_cli("info --case-file " + (dir / "case.cfg") + " --elements 40x30");  // the option wins
    CHECK(r.output.find("grid      41 x 31 nodes") != std::string::npos);

    struct Refusal {
        std::string arguments;
        const char* says;
    };
    const Refusal refusals[] = {
        {"solve --case A2 --elements 300by77", "--elements '300by77' is not allowed"},
        {"solve --case A2 --elements 1x77", "give at least 2 in x"},
        {"solve --case A2 --elements 300x77 --level 10", "level 10 is outside 1..9"},
    };
    for (const Refusal& refusal : refusals) {
        r = run_cli(refusal.arguments + " --backend cpu");
        INFO(refusal.arguments << " -> exit " << r.status << ":\n" << r.output);
        CHECK(r.status == 2);
        CHECK(r.output.find(refusal.says) != std::string::npos);
    }
}
