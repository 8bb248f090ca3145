// `adimg solve --solver fast-direct`: the fast direct solver from the command line, its report,
// and the options it refuses.

#include "cli_runner.hpp"

#include <adimg/io.hpp>
#include <adimg/problems.hpp>

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using adimg_test::have_cli;
using adimg_test::run_cli;
using adimg_test::TempDir;

TEST_CASE("CLI --solver fast-direct solves a case to the multigrid solve's L2 error and refuses what it ignores",
          "[cli][fast_direct]") {
    if (!have_cli()) return;
    auto error_of = [](const std::string& output) {
        const std::size_t at = output.find("relative L2 error ");
        REQUIRE(at != std::string::npos);
        return std::stod(output.substr(at + 18));
    };
    const auto fast = run_cli("solve --case A2 --level 7 --backend cpu --solver fast-direct");
    INFO(fast.output);
    REQUIRE(fast.status == 0);
    CHECK(fast.output.find("status converged") != std::string::npos);
    CHECK(fast.output.find("generalised eigenvectors") != std::string::npos);
    const auto multigrid = run_cli("solve --case A2 --level 7 --backend cpu --precision double --digits 12 --quiet");
    INFO(multigrid.output);
    REQUIRE(multigrid.status == 0);
    CHECK(std::abs(error_of(fast.output) - error_of(multigrid.output)) <= 1e-8 * error_of(multigrid.output));

    const auto smoother = run_cli("solve --case A2 --level 5 --solver fast-direct --smoother jacobi");
    CHECK(smoother.status != 0);
    CHECK(smoother.output.find("--smoother has no effect with --solver fast-direct") != std::string::npos);
    const auto matrix = run_cli("solve --matrix A.mtx --grid 33x33 --rhs b.mtx --solver fast-direct");
    CHECK(matrix.status != 0);
    CHECK(matrix.output.find("not a matrix file") != std::string::npos);
}

TEST_CASE("CLI --solver fast-direct measures the case's L2 error where it solves, and writes x only with --out",
          "[cli][fast_direct]") {
    if (!have_cli()) return;
    const TempDir dir("cli_fast_direct");
    const auto plain = run_cli("solve --case U1 --level 6 --backend cpu --solver fast-direct --json " + dir / "plain.json");
    INFO(plain.output);
    REQUIRE(plain.status == 0);
    CHECK(plain.output.find("wrote the solution") == std::string::npos);
    const auto with_x = run_cli("solve --case U1 --level 6 --backend cpu --solver fast-direct --out " + dir / "x.mtx");
    INFO(with_x.output);
    REQUIRE(with_x.status == 0);
    const auto error_line = [](const std::string& output) { return output.substr(output.find("relative L2 error ")); };
    CHECK(error_line(plain.output).substr(0, 32) == error_line(with_x.output).substr(0, 32));
    // The written x has the error printed.
    const adimg::CaseSpec spec = adimg::builtin_case("U1");
    const std::vector<double> x = adimg::read_matrix_market_vector(dir.file("x.mtx").string());
    const double error = adimg::relative_l2_error(spec.mesh(6), {spec.x.length, spec.y.length}, x);
    CHECK(std::abs(error - std::stod(error_line(with_x.output).substr(18))) <= 1e-6 * error);
}
