// Options that would do nothing are refused, naming both options and what to do (issue 40,
// finding 9): by the library's check_given_options(), which `adimg solve`, `adimg-mpi` and Python
// share, and through the CLI. Also what the CLI prints: --quiet prints the result alone, one thread
// is "1 OpenMP thread" (the configuration it runs, --precision single's refinement included, is
// checked in test_cli_configuration.cpp).

#include <adimg/error.hpp>
#include <adimg/io.hpp>
#include <adimg/options.hpp>
#include <adimg/problems.hpp>

#include <catch2/catch.hpp>

#include "cli_runner.hpp"

#include <filesystem>
#include <string>
#include <vector>

using namespace adimg;

namespace {

using adimg_test::Capture;
using adimg_test::CliResult;
using adimg_test::file_text;
using adimg_test::have_cli;
using adimg_test::run_cli;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

/// Options with some fields changed, and the fields the user is said to have given.
struct Given {
    SolverOptions options;
    std::vector<std::string> fields;
};

Given stop_absolute_with_digits() {
    Given g{{}, {"stop", "digits"}};
    g.options.stop = StopRule::absolute;
    return g;
}
Given relative_stop_with_absolute_defect() { return {{}, {"absolute_defect"}}; }
Given single_precision_with_cg() {
    Given g{{}, {"precision", "outer"}};
    g.options.precision = Precision::single;
    g.options.outer = OuterMethod::cg;
    return g;
}
Given direct_coarse_with_preconditioner() { return {{}, {"coarse_preconditioner"}}; }
Given direct_coarse_with_iterations() { return {{}, {"coarse_solver", "coarse_iterations"}}; }
Given adi_with_omega() { return {{}, {"omega"}}; }

}  // namespace

TEST_CASE("check_given_options refuses an option the others leave without effect, naming both and the remedy",
          "[option-conflicts]") {
    struct Row {
        Given (*given)();
        const char* says;    ///< the option, why, and the other option with its value
        const char* remedy;  ///< what to do
    };
    const Row rows[] = {
        {stop_absolute_with_digits,
         "SolverOptions::digits sets the relative stop and has no effect with SolverOptions::stop = absolute",
         "drop SolverOptions::digits, or use SolverOptions::stop = relative"},
        {relative_stop_with_absolute_defect,
         "SolverOptions::absolute_defect sets the absolute stop and has no effect with SolverOptions::stop = relative",
         "drop SolverOptions::absolute_defect, or use SolverOptions::stop = absolute"},
        {single_precision_with_cg, "SolverOptions::outer = cg does not run with SolverOptions::precision = single",
         "drop SolverOptions::outer, or use SolverOptions::precision = mixed or double"},
        {direct_coarse_with_preconditioner,
         "SolverOptions::coarse_preconditioner = jacobi sets the conjugate gradients on the coarsest grid and has no "
         "effect with SolverOptions::coarse_solver = direct",
         "drop SolverOptions::coarse_preconditioner, or use SolverOptions::coarse_solver = pcg"},
        {direct_coarse_with_iterations,
         "SolverOptions::coarse_iterations sets the conjugate gradients on the coarsest grid and has no effect with "
         "SolverOptions::coarse_solver = direct",
         "drop SolverOptions::coarse_iterations, or use SolverOptions::coarse_solver = pcg"},
        // adimg-mpi took this one (only adimg solve refused it): now both call the one check.
        {adi_with_omega, "SolverOptions::omega damps the Jacobi smoother and has no effect with SolverOptions::smoother = adi",
         "drop SolverOptions::omega, or use SolverOptions::smoother = jacobi"},
    };
    for (const Row& row : rows) {
        const Given g = row.given();
        INFO(row.says);
        CHECK_THROWS_AS(check_given_options(g.options, g.fields), input_error);
        CHECK_THROWS_WITH(check_given_options(g.options, g.fields), Catch::Contains(row.says) && Catch::Contains(row.remedy));
    }
}

TEST_CASE("check_given_options takes what has an effect: the same options with the remedy, or not given",
          "[option-conflicts]") {
    struct Row {
        const char* what;
        Given given;
    };
    SolverOptions absolute, single, pcg, large_coarse, jacobi;
    absolute.stop = StopRule::absolute;
    single.precision = Precision::single;
    single.outer = OuterMethod::refinement;
    pcg.coarse_solver = CoarseSolver::pcg;
    large_coarse.coarse_level = 7;  // 129 x 129: the direct coarse solve falls back to pcg, which these options set
    jacobi.smoother = Smoother::jacobi;
    const Row rows[] = {
        {"absolute stop, absolute_defect", {absolute, {"stop", "absolute_defect"}}},
        {"relative stop, digits", {{}, {"digits"}}},
        {"single precision, outer refinement", {single, {"precision", "outer"}}},
        {"pcg, its preconditioner and iterations", {pcg, {"coarse_solver", "coarse_preconditioner", "coarse_iterations"}}},
        {"direct on a 129 x 129 coarsest grid, pcg iterations", {large_coarse, {"coarse_level", "coarse_iterations"}}},
        {"jacobi, omega", {jacobi, {"smoother", "omega"}}},
        {"the defaults of conflicting options, not given", {absolute, {}}},
    };
    for (const Row& row : rows) {
        INFO(row.what);
        CHECK_NOTHROW(check_given_options(row.given.options, row.given.fields));
    }
}

TEST_CASE("check_given_options judges the coarse PCG options by the coarsest grid the solve has, given, not by "
          "coarse_level",
          "[option-conflicts]") {
    SolverOptions level_7;  // the direct coarse solve; a case's coarse level 7 would be 129 x 129
    level_7.coarse_level = 7;
    const std::vector<std::string> iterations = {"coarse_level", "coarse_iterations"};
    // A case on level 6 ends on its 65 x 65 level, which the direct solve takes: no effect.
    CHECK_THROWS_WITH(check_given_options(level_7, iterations, 65 * 65),
                      Catch::Contains("SolverOptions::coarse_iterations sets the conjugate gradients on the coarsest "
                                      "grid and has no effect with SolverOptions::coarse_solver = direct"));
    // A matrix on a 131 x 131 grid cannot coarsen below 66 x 66, which falls back to PCG.
    CHECK_NOTHROW(check_given_options(SolverOptions{}, {"coarse_iterations"}, 66 * 66));
    // Without a grid, a case's square one on coarse_level, as before (Python's options alone).
    CHECK_NOTHROW(check_given_options(level_7, iterations));
    CHECK_THROWS_AS(check_given_options(SolverOptions{}, {"coarse_iterations"}), input_error);
}

TEST_CASE("adimg solve judges --coarse-iterations by the coarsest grid that results, not by --coarse-level",
          "[option-conflicts][cli]") {
    if (!have_cli()) return;
    const adimg_test::TempDir dir("option_conflicts_coarsest");
    // A 131 x 131 grid coarsens (131 -> 66 -> 34 ...) until its coarsest grid fits the direct
    // solve's 65 x 65 (a grid of any size does, docs/design.md §3), so --coarse-iterations, which
    // sets PCG there, would do nothing.
    const TensorMesh mesh{Mesh1D{std::vector<double>(130, 1.0 / 130)}, Mesh1D{std::vector<double>(130, 1.0 / 130)}};
    write_matrix_market(dir.file("A.mtx"), to_eigen(assemble_stiffness(mesh)));
    write_matrix_market(dir.file("b.mtx"), assemble_load(mesh, {}));
    const std::string matrix = "--matrix " + (dir / "A.mtx") + " --grid 131x131 --rhs " + (dir / "b.mtx");
    struct Row {
        std::string options;
        int status;  ///< 0 taken, 2 refused
    };
    const Row rows[] = {
        {matrix + " --coarse-iterations 200", 2},
        // A case of level 6 ends on level 6 (65 x 65), which the direct solve takes.
        {"--case U1 --level 6 --coarse-level 7 --coarse-iterations 200", 2},
        // Galerkin levels of a grid stop where the direct solve fits: level 6, not 7.
        {"--case U1 --level 8 --coarse-level 7 --coarse-operators galerkin --coarse-iterations 200", 2},
        {"--case U1 --level 8 --coarse-level 7 --coarse-iterations 200", 0},  // 129 x 129 by PCG
        // Stacked three times, the coarsest grid of level 6 has 65 x 193 nodes: PCG.
        {"--case U1 --level 6 --stack 3 --coarse-level 6 --coarse-iterations 200", 0},
    };
    for (const Row& row : rows) {
        const CliResult r = run_cli("solve --backend cpu --quiet " + row.options, Capture::all, 60);
        INFO("adimg solve ... " << row.options << "\n-> exit " << r.status << ":\n" << r.output);
        CHECK(r.status == row.status);
        CHECK(contains(r.output, "--coarse-iterations sets the conjugate gradients") == (row.status == 2));
    }
}

TEST_CASE("adimg solve refuses options that would do nothing, naming both flags and what to do",
          "[option-conflicts][cli]") {
    if (!have_cli()) return;
    struct Row {
        const char* options;
        const char* says;
        const char* remedy;
    };
    const Row rows[] = {
        {"--stop absolute --digits 5", "--digits sets the relative stop and has no effect with --stop absolute",
         "drop --digits, or use --stop relative"},
        {"--absolute-defect 1e-8", "--absolute-defect sets the absolute stop and has no effect with --stop relative",
         "drop --absolute-defect, or use --stop absolute"},
        {"--precision single --outer cg", "--outer cg does not run with --precision single, which always refines",
         "drop --outer, or use --precision mixed or double"},
        {"--coarse-preconditioner adi", "--coarse-preconditioner adi sets the conjugate gradients on the coarsest grid "
                                        "and has no effect with --coarse-solver direct",
         "drop --coarse-preconditioner, or use --coarse-solver pcg"},
        {"--coarse-solver direct --coarse-iterations 10",
         "--coarse-iterations sets the conjugate gradients on the coarsest grid and has no effect with --coarse-solver "
         "direct",
         "drop --coarse-iterations, or use --coarse-solver pcg"},
    };
    for (const Row& row : rows) {
        const CliResult r = run_cli(std::string("solve --case U1 --level 4 --backend cpu ") + row.options,
                                    Capture::stderr_only, 60);
        INFO("adimg solve ... " << row.options << "\n-> exit " << r.status << ", stderr:\n" << r.output);
        CHECK(r.status == 2);
        CHECK(contains(r.output, row.says));
        CHECK(contains(r.output, row.remedy));
        CHECK_FALSE(contains(r.output, "SolverOptions::"));
    }
    // The same options where they take effect still solve.
    for (const char* options : {"--level 4 --stop absolute --absolute-defect 1e-8",
                                "--level 4 --precision single --outer refinement --digits 5",
                                "--level 4 --coarse-solver pcg --coarse-preconditioner adi --coarse-iterations 10",
                                "--level 8 --coarse-level 7 --coarse-iterations 200"}) {
        const CliResult r = run_cli(std::string("solve --case U1 --backend cpu --quiet ") + options);
        INFO("adimg solve ... " << options << "\n-> exit " << r.status << ":\n" << r.output);
        CHECK(r.status == 0);
    }
}

TEST_CASE("adimg solve --quiet prints the result line alone on stdout, and why a solve failed on stderr",
          "[option-conflicts][cli]") {
    if (!have_cli()) return;
    const adimg_test::TempDir dir("option_conflicts_quiet");
    REQUIRE(run_cli("assemble --case U1 --level 3 --out " + (dir / "A.mtx") + " --rhs-out " + (dir / "b.mtx")).status == 0);
    struct Row {
        std::string arguments;
        int status;
        const char* result;  ///< how the one line on stdout starts
        const char* why;     ///< what stderr says ("" when it is to say nothing)
    };
    const Row rows[] = {
        {"--case U1 --level 5 --backend cpu", 0, "relative L2 error ", ""},
        {"--case U1 --level 5 --solver direct", 0, "relative L2 error ", ""},
        {"--case A2 --level 5 --solver fast-direct --backend cpu", 0, "relative L2 error ", ""},
        {"--matrix " + (dir / "A.mtx") + " --grid 9x9 --rhs " + (dir / "b.mtx") + " --backend cpu", 0,
         "relative defect ||b - A x|| / ||b|| ", ""},
        {"--case U1 --level 6 --backend cpu --max-iterations 1 --digits 14", 1, "relative L2 error ",
         "adimg solve: the solve did not converge (status max-iterations"},
    };
    for (const Row& row : rows) {
        const CliResult out = run_cli("solve --quiet " + row.arguments + " 2>" + (dir / "stderr"), Capture::stdout_only, 60);
        const std::string err = file_text(dir.file("stderr"));
        INFO("adimg solve --quiet " << row.arguments << "\n-> exit " << out.status << ", stdout:\n"
                                    << out.output << "stderr:\n" << err);
        CHECK(out.status == row.status);
        CHECK(out.output.rfind(row.result, 0) == 0);
        CHECK(out.output.find('\n') == out.output.size() - 1);  // one line
        if (*row.why)
            CHECK(contains(err, row.why));
        else
            CHECK(err.empty());
    }
}

TEST_CASE("The CPU backend's name counts its threads in words: 1 OpenMP thread, 2 OpenMP threads",
          "[option-conflicts][cli]") {
    if (!have_cli()) return;
    struct Row {
        const char* threads;
        const char* says;
    };
    for (const Row& row : {Row{"1", "backend CPU, 1 OpenMP thread\n"}, Row{"2", "backend CPU, 2 OpenMP threads\n"}}) {
        const CliResult r = run_cli("solve --case U1 --level 3 --backend cpu", Capture::stdout_only, 60,
                                    std::string("OMP_NUM_THREADS=") + row.threads);
        INFO("OMP_NUM_THREADS=" << row.threads << " -> exit " << r.status << ":\n" << r.output);
        if (contains(r.output, "built without OpenMP")) return;
        CHECK(r.status == 0);
        CHECK(contains(r.output, row.says));
    }
}
