// What `adimg solve` says it runs is what runs (issue 42): over --precision {mixed, double,
// single} x --outer {not given, refinement, cg} x --solver {multigrid, fast-direct} x --backend
// {cpu, auto}, the printed configuration and the --json configuration name the precision, outer
// method and backend that ran. What ran is read from evidence the print-out does not write: the
// JSON's convergence history and level memory against a library solve of the expected
// configuration (and unlike one of the other outer method), and the backend's device name.
// --precision single runs refinement whatever --outer says (effective_options()); the fast direct
// solver runs in double with its own refinement, so it refuses --precision and --outer.

#include <adimg/problems.hpp>
#include <adimg/solver.hpp>

#include <catch2/catch.hpp>

#include "cli_runner.hpp"

#include <cmath>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>
#include <vector>

using namespace adimg;

namespace {

using adimg_test::Capture;
using adimg_test::CliResult;
using adimg_test::file_text;
using adimg_test::run_cli;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

/// The text of the JSON report from `"key": ` to the end of its value's bracket or brace.
std::string json_section(const std::string& json, const std::string& key) {
    const std::size_t at = json.find("\"" + key + "\": ");
    if (at == std::string::npos) return {};
    const std::size_t open = json.find_first_of("[{", at);
    int depth = 0;
    for (std::size_t p = open; p < json.size(); ++p) {
        depth += json[p] == '[' || json[p] == '{';
        depth -= json[p] == ']' || json[p] == '}';
        if (depth == 0) return json.substr(open, p - open + 1);
    }
    return {};
}

/// Every number that follows `"key": ` in `text`, in order.
std::vector<double> json_numbers(const std::string& text, const std::string& key) {
    std::vector<double> values;
    const std::regex pattern("\"" + key + "\": ([-+0-9.eE]+)");
    for (auto it = std::sregex_iterator(text.begin(), text.end(), pattern); it != std::sregex_iterator(); ++it)
        values.push_back(std::stod((*it)[1]));
    return values;
}

/// The backend that --backend `given` runs on in this build and on this machine.
std::string backend_that_runs(const std::string& given) {
    if (given != "auto") return given;
    return cuda_available() ? "cuda" : "cpu";
}

/// The per-step defects and inner cycles, and each level's memory, of a solve.
struct Evidence {
    std::vector<double> defects, inner_cycles, bytes;
};

Evidence evidence_of_json(const std::string& json) {
    const std::string history = json_section(json, "history"), levels = json_section(json, "levels");
    return {json_numbers(history, "defect"), json_numbers(history, "inner_cycles"), json_numbers(levels, "bytes")};
}

/// The library's solve of U1 at `level` with the given configuration, as the CLI sets up a case.
Evidence evidence_of_library(int level, const std::string& backend, Precision precision, OuterMethod outer) {
    SolverOptions options;
    options.backend = parse_backend(backend);
    options.precision = precision;
    options.outer = outer;
    options.digits = 4;  // what float alone reaches on U1 (the CLI runs are given --digits 4 too)
    Solver solver(options);
    solver.setup(builtin_case("U1"), level);
    const SolveReport report = solver.solve_case().report;
    Evidence evidence;
    for (const OuterStep& step : report.history) {
        evidence.defects.push_back(step.defect);
        evidence.inner_cycles.push_back(step.inner_cycles);
    }
    for (const LevelInfo& info : solver.levels()) evidence.bytes.push_back(static_cast<double>(info.bytes));
    return evidence;
}

/// Whether two solves took the same steps to the same defects (1e-6 relative: OpenMP's sums may
/// round differently from one thread count to another) on levels of the same memory.
bool same_solve(const Evidence& a, const Evidence& b) {
    if (a.defects.size() != b.defects.size() || a.inner_cycles != b.inner_cycles || a.bytes != b.bytes) return false;
    for (std::size_t k = 0; k < a.defects.size(); ++k)
        if (std::abs(a.defects[k] - b.defects[k]) > 1e-6 * std::abs(b.defects[k])) return false;
    return true;
}

/// The configuration line of the print-out for `flag`.
std::string printed(const std::string& flag, const std::string& value) {
    return "\n  " + flag + std::string(25 - flag.size(), ' ') + value + "\n";
}

}  // namespace

TEST_CASE("adimg solve prints and writes to --json the precision, outer method and backend that run, for every "
          "precision, outer method, solver and backend",
          "[cli][configuration]") {
    if (!adimg_test::have_cli()) return;
    const adimg_test::TempDir dir("cli_configuration");
    const int level = 6;
    for (const std::string backend : {"cpu", "auto"})
        for (const std::string precision : {"mixed", "double", "single"})
            for (const std::string outer : {"", "refinement", "cg"}) {
                const std::string arguments = "solve --case U1 --level " + std::to_string(level) + " --backend " + backend +
                                              " --digits 4 --precision " + precision + (outer.empty() ? "" : " --outer " + outer) +
                                              " --json " + (dir / "r.json");
                std::filesystem::remove(dir.file("r.json"));
                const CliResult r = run_cli(arguments, Capture::all, 60);
                const std::string json = file_text(dir.file("r.json"));
                INFO("adimg " << arguments << "\n-> exit " << r.status << ":\n" << r.output << "\nJSON:\n" << json);
                if (precision == "single" && outer == "cg") {  // refused: it would not run
                    CHECK(r.status == 2);
                    CHECK(contains(r.output, "--outer cg does not run with --precision single"));
                    continue;
                }
                REQUIRE(r.status == 0);
                const Precision precision_ran = parse_precision(precision);
                const std::string outer_ran = precision == "single" ? "refinement" : outer.empty() ? "cg" : outer;
                const std::string backend_ran = backend_that_runs(backend);
                // The print-out and the JSON name what runs.
                CHECK(contains(r.output, printed("--backend", backend_ran)));
                CHECK(contains(r.output, printed("--precision", precision)));
                CHECK(contains(r.output, printed("--outer", outer_ran)));
                const std::string configuration = json_section(json, "configuration");
                CHECK(contains(configuration, "\"backend\": \"" + backend_ran + "\""));
                CHECK(contains(configuration, "\"backend_requested\": \"" + backend + "\""));
                CHECK(contains(configuration, "\"precision\": \"" + precision + "\""));
                CHECK(contains(configuration, "\"outer\": \"" + outer_ran + "\""));
                // The backend that ran names its device: the CPU's "CPU, n OpenMP thread(s)".
                const bool on_cpu = backend_ran == "cpu";
                CHECK(contains(r.output, "\nbackend CPU, ") == on_cpu);
                CHECK(contains(configuration, "\"device\": \"CPU, ") == on_cpu);
                // The solve is the library's solve of that configuration, step for step, and
                // not the other outer method's (single precision has only refinement).
                const Evidence ran = evidence_of_json(json);
                REQUIRE_FALSE(ran.defects.empty());
                CHECK(same_solve(ran, evidence_of_library(level, backend_ran, precision_ran, parse_outer(outer_ran))));
                if (precision != "single") {
                    const OuterMethod other = outer_ran == "cg" ? OuterMethod::refinement : OuterMethod::cg;
                    CHECK_FALSE(same_solve(ran, evidence_of_library(level, backend_ran, precision_ran, other)));
                }
            }
}

TEST_CASE("adimg solve --solver fast-direct prints and writes to --json the backend that runs, and refuses the "
          "precision and outer method it does not run",
          "[cli][configuration]") {
    if (!adimg_test::have_cli()) return;
    const adimg_test::TempDir dir("cli_configuration_fast_direct");
    for (const std::string backend : {"cpu", "auto"})
        for (const std::string option : {"", "--precision mixed", "--precision double", "--precision single",
                                         "--outer refinement", "--outer cg"}) {
            const std::string arguments = "solve --case A2 --level 5 --solver fast-direct --backend " + backend + " " +
                                          option + " --json " + (dir / "r.json");
            std::filesystem::remove(dir.file("r.json"));
            const CliResult r = run_cli(arguments, Capture::all, 60);
            const std::string json = file_text(dir.file("r.json"));
            INFO("adimg " << arguments << "\n-> exit " << r.status << ":\n" << r.output << "\nJSON:\n" << json);
            if (!option.empty()) {  // transforms and line solves in double, refined in double: nothing to choose
                const std::string flag = option.substr(0, option.find(' '));
                CHECK(r.status == 2);
                CHECK(contains(r.output, flag + " has no effect with --solver fast-direct"));
                continue;
            }
            REQUIRE(r.status == 0);
            const std::string backend_ran = backend_that_runs(backend);
            CHECK(contains(r.output, "fast direct solve: "));
            CHECK(contains(r.output, ", backend " + backend_ran + "\n"));
            // Its configuration, as the multigrid solve's is written: the solver, the options it runs
            // with (the backend that ran, the one asked for, the digits) and not those it refuses.
            const std::string configuration = json_section(json, "configuration");
            CHECK(contains(configuration, "\"solver\": \"fast-direct\""));
            CHECK(contains(configuration, "\"backend\": \"" + backend_ran + "\""));
            CHECK(contains(configuration, "\"backend_requested\": \"" + backend + "\""));
            CHECK(contains(configuration, "\"digits\": 8"));
            CHECK(contains(configuration, "\"device\": \"CPU, ") == (backend_ran == "cpu"));
            CHECK_FALSE(contains(configuration, "\"precision\": "));
            CHECK_FALSE(contains(configuration, "\"outer\": "));
        }
}
