// The option table (include/adimg/options.hpp) is the one description of the solver options:
// every option in it reaches `adimg solve --help`, the options print-out of a solve and the
// JSON report; validation names the field and what it allows; and the CLI shows library
// messages with flags instead of field names.

#include <adimg/error.hpp>
#include <adimg/options.hpp>

#include <catch2/catch.hpp>

#include "cli/flag_spelling.hpp"
#include "cli_runner.hpp"

#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

using namespace adimg;

namespace {

using adimg_test::Capture;
using adimg_test::have_cli;
using adimg_test::run_cli;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

/// The text of the lines that follow `header` up to the first line that does not start with two spaces.
std::string block_after(const std::string& output, const std::string& header) {
    const auto at = output.find("\n" + header + "\n");
    if (at == std::string::npos) return "";
    std::istringstream lines(output.substr(at + header.size() + 2));
    std::string block;
    for (std::string line; std::getline(lines, line) && line.rfind("  ", 0) == 0;) block += line + "\n";
    return block;
}

/// A value outside the range of a numeric option, as a number: below its lower end.
double outside(const OptionSpec& spec) { return spec.ranges.front().min - 1.0; }

/// The text of that value as the command line takes it.
std::string outside_text(const OptionSpec& spec) {
    std::ostringstream text;
    text << outside(spec);
    return text.str();
}

bool numeric(const OptionSpec& spec) {
    return spec.type() == OptionType::integer || spec.type() == OptionType::real;
}

}  // namespace

TEST_CASE("Option table: defaults read back, every name of a choice round-trips, validate() accepts the defaults",
          "[options]") {
    const SolverOptions defaults;
    CHECK_NOTHROW(validate(defaults));
    for (const OptionSpec& spec : option_table()) {
        INFO(spec.field << " = " << spec.default_text());
        CHECK(find_option(spec.field) == &spec);
        CHECK(cli::option_by_flag(spec.flag) == &spec);
        SolverOptions options;
        spec.set(options, spec.default_text());
        CHECK(spec.get(options) == spec.get(defaults));
        for (const std::string& name : spec.type() == OptionType::choice ? spec.choices : std::vector<std::string>{}) {
            spec.set(options, name);
            CHECK(spec.get(options) == name);
        }
    }
    CHECK(to_string(Smoother::gauss_seidel) == "gauss-seidel");
    CHECK(parse_precision("double") == Precision::double_);
    CHECK(to_string(parse_inner_stop("cycles:3")) == "cycles:3");
}

TEST_CASE("Option table: validation names the field and what it allows, one value out of range per numeric option",
          "[options]") {
    for (const OptionSpec& spec : option_table()) {
        if (!numeric(spec)) continue;
        SolverOptions options;
        if (spec.type() == OptionType::integer)
            options.*std::get<int SolverOptions::*>(spec.member) = static_cast<int>(outside(spec));
        else
            options.*std::get<double SolverOptions::*>(spec.member) = outside(spec);
        INFO(spec.field);
        const std::string says = spec.reference() + " = " + outside_text(spec) + " is outside " + spec.allowed();
        CHECK_THROWS_AS(validate(options), input_error);
        CHECK_THROWS_WITH(validate(options), Catch::Contains(says));
        CHECK_THROWS_WITH(spec.set(options, outside_text(spec)), Catch::Contains(says));
    }
    SolverOptions options;
    options.inner = {InnerStop::Kind::digits, 7};
    CHECK_THROWS_WITH(validate(options), Catch::Contains("SolverOptions::inner = digits:7 is outside cycles:1..32 or "
                                                         "digits:1..6"));
    CHECK_THROWS_WITH(parse_smoother("sor"), Catch::Contains("SolverOptions::smoother = 'sor' is not allowed; use one "
                                                             "of jacobi, gauss-seidel, adi"));
}

TEST_CASE("with_flags respells every field reference of a library message as the CLI's flag", "[options]") {
    CHECK(cli::with_flags("try SolverOptions::smoother = adi, more smoothing steps (SolverOptions::pre_smooth, "
                          "SolverOptions::post_smooth) or a smaller SolverOptions::omega") ==
          "try --smoother adi, more smoothing steps (--pre-smooth, --post-smooth) or a smaller --omega");
    CHECK(cli::with_flags("set SolverOptions::fallback_to_double = true so that double inner cycles take over") ==
          "drop --no-fallback so that double inner cycles take over");
    CHECK(cli::with_flags("set SolverOptions::fallback_to_double = false") == "give --no-fallback");
    CHECK(cli::with_flags("SolverOptions::inner = digits:7 is outside") == "--inner digits:7 is outside");
    CHECK(cli::with_flags("SolverOptions::inner_max_cycles and SolverOptions::nothing") ==
          "--inner-max-cycles and SolverOptions::nothing");
    for (const OptionSpec& spec : option_table()) {
        const std::string flag = std::string("--") + spec.flag;
        CHECK(cli::with_flags("(" + spec.reference() + ")") == "(" + flag + ")");
    }
}

TEST_CASE("Every option of the table is in `adimg solve --help`, the options print-out and the JSON report",
          "[options][cli]") {
    if (!have_cli()) return;
    const adimg_test::CliResult help = run_cli("solve --help", Capture::stdout_only, 60);
    CHECK(help.status == 0);
    const adimg_test::TempDir dir("options_json");
    const adimg_test::CliResult solve =
        run_cli("solve --case U1 --level 4 --backend cpu --json " + (dir / "report.json"), Capture::stdout_only, 60);
    REQUIRE(solve.status == 0);
    const std::string printed = block_after(solve.output, "options:");
    std::ifstream in(dir.file("report.json"));
    const std::string json((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto from = json.find("\"configuration\": {");
    REQUIRE(from != std::string::npos);
    const std::string configuration = json.substr(from, json.find('}', from) - from);
    INFO("help:\n" << help.output << "\nprint-out:\n" << printed << "\nconfiguration:\n" << configuration);
    CHECK(contains(configuration, "\"device\": \"CPU"));
    for (const OptionSpec& spec : option_table()) {
        const std::string flag = std::string("--") + spec.flag;
        INFO(spec.field);
        CHECK(contains(help.output, "  " + flag + " "));
        CHECK(contains(printed, "  " + flag + " "));
        CHECK(contains(configuration, "\"" + std::string(spec.field) + "\": "));
    }
}

TEST_CASE("CLI errors for out-of-range values name the flag, never the field", "[options][cli]") {
    if (!have_cli()) return;
    for (const OptionSpec& spec : option_table()) {
        if (!numeric(spec)) continue;
        const std::string flag = std::string("--") + spec.flag;
        const adimg_test::CliResult r =
            run_cli("solve --case U1 --level 3 " + flag + " " + outside_text(spec), Capture::stderr_only, 60);
        INFO(r.output);
        CHECK(r.status == 2);
        CHECK(contains(r.output, flag + " " + outside_text(spec) + " is outside " + spec.allowed()));
        CHECK_FALSE(contains(r.output, "SolverOptions::"));
    }
    const adimg_test::CliResult omega = run_cli("solve --case U1 --level 3 --omega 2", Capture::stderr_only, 60);
    CHECK(omega.status == 2);
    CHECK(contains(omega.output, "--omega 2 is outside (0, 1]"));
    CHECK_FALSE(contains(omega.output, "SolverOptions::"));
}
