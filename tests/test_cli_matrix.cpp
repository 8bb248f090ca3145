// `adimg solve --matrix A.mtx --grid MXxMY --rhs b.mtx --out x.mtx`: a user's system from Matrix
// Market files, solved with Galerkin coarse levels. Round trip: `adimg assemble` writes a case's
// system, `solve --matrix` solves it, and the solution matches `solve --case ... --out`.
// The tests run the `adimg` binary next to the test executable (or $ADIMG_CLI); without it they
// are skipped.

#include <adimg/problems.hpp>
#include <adimg/io.hpp>
#include <adimg/nine_bands.hpp>

#include <catch2/catch.hpp>

#include <Eigen/SparseLU>
#include <unsupported/Eigen/SparseExtra>

#include "cli_runner.hpp"
#include "compare.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace {

using adimg_test::have_cli;
using adimg_test::relative_max_difference;
using adimg_test::run_cli;
using adimg_test::TempDir;
using Result = adimg_test::CliResult;

/// "3:6" from the line "iterations 3:6 (outer:inner), ..." of a solve's output.
std::string iterations(const std::string& output) {
    const std::string line = "\niterations ";
    const auto at = output.find(line);
    if (at == std::string::npos) return "?";
    const auto from = at + line.size();
    return output.substr(from, output.find(' ', from) - from);
}

}  // namespace

TEST_CASE("CLI --matrix round trip: assemble, solve --matrix, compare with solve --case (A2 with widths, U1 without)",
          "[cli][api]") {
    if (!have_cli()) return;
    const TempDir dir("cli_matrix");
    struct Case {
        const char* name;
        bool widths;  ///< pass the element widths (exact Q1 prolongation); U1 is uniform, so t = 1/2 is exact
    };
    for (const Case c : {Case{"A2", true}, Case{"U1", false}}) {
        Result r = run_cli(std::string("assemble --case ") + c.name + " --level 6 --out " + (dir / "A.mtx") +
                           " --rhs-out " + (dir / "b.mtx"));
        INFO(r.output);
        REQUIRE(r.status == 0);
        std::string widths;
        if (c.widths) {
            const adimg::TensorMesh mesh = adimg::builtin_case(c.name).mesh(6);
            adimg::write_matrix_market(dir.file("hx.mtx"), mesh.x.widths);
            adimg::write_matrix_market(dir.file("hy.mtx"), mesh.y.widths);
            widths = " --x-widths " + (dir / "hx.mtx") + " --y-widths " + (dir / "hy.mtx");
        }
        const Result matrix = run_cli("solve --matrix " + (dir / "A.mtx") + " --grid 65x65 --rhs " + (dir / "b.mtx") +
                                      widths + " --out " + (dir / "x.mtx") + " --backend cpu");
        const Result case_run =
            run_cli(std::string("solve --case ") + c.name + " --level 6 --backend cpu --out " + (dir / "x_case.mtx"));
        INFO("solve --matrix:\n" << matrix.output << "\nsolve --case:\n" << case_run.output);
        REQUIRE(matrix.status == 0);
        REQUIRE(case_run.status == 0);
        CHECK(matrix.output.find("status converged") != std::string::npos);
        CHECK(matrix.output.find("levels (Galerkin coarse matrices)") != std::string::npos);
        CHECK(matrix.output.find(c.widths ? "Q1 (from the element widths)" : "bilinear (t = 1/2)") !=
              std::string::npos);
        CHECK(iterations(matrix.output) == iterations(case_run.output));
        const std::vector<double> x = adimg::read_matrix_market_vector(dir.file("x.mtx"));
        const std::vector<double> x_case = adimg::read_matrix_market_vector(dir.file("x_case.mtx"));
        const double diff = relative_max_difference(x, x_case);
        // Measured: equal to rounding (< 1e-14): the Galerkin levels equal the rediscretized ones.
        INFO(c.name << ": max |x_matrix - x_case| / max |x_case| = " << diff << " (expected < 1e-12)");
        CHECK(diff < 1e-12);

        const Result direct = run_cli("solve --matrix " + (dir / "A.mtx") + " --grid 65x65 --rhs " + (dir / "b.mtx") +
                                      " --solver direct --out " + (dir / "x_direct.mtx"));
        INFO(direct.output);
        REQUIRE(direct.status == 0);
        CHECK(relative_max_difference(adimg::read_matrix_market_vector(dir.file("x_direct.mtx")), x_case) < 1e-7);
    }
}

TEST_CASE("CLI --matrix: bad input is exit code 2 and names the problem", "[cli][api][errors]") {
    if (!have_cli()) return;
    const TempDir dir("cli_matrix_errors");
    adimg::NineBands<double> bands = adimg::assemble_stiffness(adimg::builtin_case("U1").mesh(3));
    adimg::write_matrix_market(dir.file("A.mtx"), adimg::to_eigen(bands));
    adimg::write_matrix_market(dir.file("b.mtx"), std::vector<double>(81, 0.0));
    bands(adimg::E, 4 * 9 + 4) *= 1.001;  // row 40 = node (4, 4), E coupling with node (5, 4)
    adimg::write_matrix_market(dir.file("asym.mtx"), adimg::to_eigen(bands));
    const std::string A = dir / "A.mtx", b = dir / "b.mtx";
    struct Case {
        std::string arguments;
        const char* says;
    };
    const Case cases[] = {
        {"solve --matrix " + A + " --grid 2x9 --rhs " + b, "Mx = 2 nodes; a grid needs at least 3"},
        {"solve --matrix " + A + " --grid 8x9 --rhs " + b, "but a 8x9 grid has 72 nodes"},
        {"solve --matrix " + A + " --grid 17x17 --rhs " + b, "but a 17x17 grid has 289 nodes"},
        {"solve --matrix " + A + " --grid 9by9 --rhs " + b, "--grid '9by9' is not allowed"},
        {"solve --matrix " + A + " --rhs " + b, "--matrix needs --grid"},
        {"solve --matrix " + A + " --grid 9x9", "--matrix needs --rhs"},
        {"solve --matrix " + A + " --grid 9x9 --rhs " + b + " --case U1", "not both"},
        {"solve --case U1 --grid 9x9", "go with --matrix"},
        {"solve --matrix " + (dir / "asym.mtx") + " --grid 9x9 --rhs " + b, "not symmetric: row 40 (node (4, 4)"},
        {"solve --matrix " + (dir / "missing.mtx") + " --grid 9x9 --rhs " + b, "cannot read"},
    };
    for (const Case& c : cases) {
        const Result r = run_cli(c.arguments);
        INFO("adimg " << c.arguments << " -> exit " << r.status << ":\n" << r.output);
        CHECK(r.status == 2);
        CHECK(r.output.find(c.says) != std::string::npos);
    }
}

// Issue acceptance: `adimg assemble` output, read back by an independent tool, gives the same
// solution as adimg's direct solve. The independent tool is Eigen's own Matrix Market reader
// (unsupported/Eigen/SparseExtra) with Eigen's SparseLU, sharing no code with adimg's reader
// or its Cholesky path.
TEST_CASE("assemble output read by Eigen's Matrix Market reader and solved by SparseLU equals adimg's direct solve",
          "[cli][assembly]") {
    if (!have_cli()) return;
    TempDir dir("independent");
    for (const std::string name : {"U2", "A2", "A5"}) {
        const int level = 6;
        const Result assembled = run_cli("assemble --case " + name + " --level " + std::to_string(level) + " --out " +
                                         dir / "A.mtx" + " --rhs-out " + dir / "b.mtx");
        REQUIRE(assembled.status == 0);
        Eigen::SparseMatrix<double> A;
        Eigen::VectorXd b;
        REQUIRE(Eigen::loadMarket(A, dir.file("A.mtx").string()));
        REQUIRE(Eigen::loadMarketVector(b, dir.file("b.mtx").string()));
        Eigen::SparseLU<Eigen::SparseMatrix<double>> lu;
        A.makeCompressed();
        lu.compute(A);
        REQUIRE(lu.info() == Eigen::Success);
        const Eigen::VectorXd x = lu.solve(b);

        const adimg::CaseSpec spec = adimg::builtin_case(name);
        const adimg::TensorMesh mesh = spec.mesh(level);
        const std::vector<double> ours =
            adimg::direct_solve(adimg::assemble_stiffness(mesh), adimg::assemble_load(mesh, {spec.x.length, spec.y.length}));
        REQUIRE(static_cast<std::size_t>(x.size()) == ours.size());
        double diff = 0.0, scale = 0.0;
        for (std::size_t p = 0; p < ours.size(); ++p) {
            diff = std::max(diff, std::abs(x[static_cast<Eigen::Index>(p)] - ours[p]));
            scale = std::max(scale, std::abs(ours[p]));
        }
        INFO(name << " L=" << level << ": max |x_eigen - x_adimg| / max |x_adimg| = " << diff / scale);
        CHECK(diff / scale < 1e-10);
    }
}
