#include "cli_options.hpp"
#include "commands.hpp"
#include "flag_spelling.hpp"
#include "json_writer.hpp"
#include "solve_problem.hpp"
#include "tables.hpp"

#include <adimg/io.hpp>
#include <adimg/error.hpp>
#include <adimg/solver.hpp>
#include <adimg/pinned_memory.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace adimg::cli {
namespace {

enum class Method { multigrid, direct };
const Choices<Method> methods = {{"multigrid", Method::multigrid}, {"direct", Method::direct}};

enum class CoarseOperators { rediscretized, galerkin };
const Choices<CoarseOperators> coarse_operator_names = {{"rediscretized", CoarseOperators::rediscretized},
                                                        {"galerkin", CoarseOperators::galerkin}};

/// What a solve measured, for the summary and the JSON report.
struct Outcome {
    double setup_seconds = 0.0, solve_seconds = 0.0;
    std::pair<const char*, double> accuracy{"", 0.0};  ///< JSON key and value: the L2 error or the defect
};

/// Solves from a zero guess with b and x in page-locked memory when the solver runs on the GPU,
/// so that they travel without a staging copy on the host, as an application that solves often
/// would keep them. The solve time includes their transfers to and from the device; the copies
/// of b into pinned memory and of x out of it, made once here, are outside it, as they would be
/// outside an application's solves that keep b and x pinned.
SolveReport solve_from_pinned(Solver& solver, const std::vector<double>& b, std::vector<double>& x,
                              const StepCallback& on_step) {
    if (solver.backend() != BackendKind::cuda) return solver.solve(b, x, on_step);
    const pinned_vector<double> b_pinned(b.begin(), b.end());
    pinned_vector<double> x_pinned(b.size());
    const SolveReport report = solver.solve(b_pinned.data(), x_pinned.data(), InitialGuess::zero, on_step);
    x.assign(x_pinned.begin(), x_pinned.end());
    return report;
}

/// Eigen's sparse Cholesky, in float if `single`, else in double.
std::vector<double> solve_directly(Problem& problem, bool single, Outcome& outcome) {
    const Problem::DirectSystem system = problem.direct_system();
    outcome.setup_seconds = problem.preparation_seconds;
    std::printf("direct solve (Eigen SimplicialLDLT) in %s, %zu unknowns\n", single ? "float" : "double", system.b.size());
    const auto start = std::chrono::steady_clock::now();
    std::vector<double> x = direct_solve(system.A, system.b, single);
    outcome.solve_seconds = seconds_since(start);
    std::printf("%s %.3f s, solve %.3f s\n", problem.preparation, outcome.setup_seconds, outcome.solve_seconds);
    return x;
}

/// Sets the solver up for the problem and solves, printing the options, the levels, the
/// convergence history (unless `quiet`), the status and the times.
SolveReport solve_multigrid(Problem& problem, Solver& solver, bool quiet, std::vector<double>& x, Outcome& outcome) {
    if (!solver.notice().empty()) std::printf("%s\n", solver.notice().c_str());
    std::printf("backend %s\n%s\n", solver.device_name().c_str(), describe(solver.options()).c_str());
    problem.setup(solver);
    outcome.setup_seconds = problem.preparation_seconds + solver.setup_seconds();
    if (!quiet) {
        std::printf("%s\n", problem.galerkin ? "levels (Galerkin coarse matrices):" : "levels:");
        print_levels(stdout, solver.levels());
        std::printf("convergence:\n");
    }
    const SolveReport report = solve_from_pinned(solver, problem.b, x, history_printer(stdout, quiet));
    outcome.solve_seconds = report.solve_seconds;
    print_outcome(stdout, report);
    std::printf("setup %.4f s (%s %.4f s, ", outcome.setup_seconds, problem.preparation, problem.preparation_seconds);
    if (problem.galerkin) std::printf("Galerkin hierarchy %.4f s, ", solver.hierarchy_seconds());
    std::printf("backend %.4f s), solve %.4f s\n", solver.setup_seconds() - solver.hierarchy_seconds(),
                outcome.solve_seconds);
    return report;
}

/// Every option of the table under its field name, with the type it has, and the device.
void write_configuration(JsonWriter& json, const SolverOptions& options, const std::string& device) {
    json.begin_object("configuration");
    for (const OptionSpec& spec : option_table()) {
        const std::string text = spec.get(options);
        switch (spec.type()) {
        case OptionType::integer: json.value(spec.field, std::stoll(text)); break;
        case OptionType::real: json.value(spec.field, std::strtod(text.c_str(), nullptr)); break;
        case OptionType::boolean: json.value(spec.field, text == "true"); break;
        case OptionType::choice:
        case OptionType::inner_stop: json.value(spec.field, text); break;
        }
    }
    json.value("device", device).end_object();
}

/// The --json report; `solver` and `report` are null for the direct solve.
void write_json(const std::string& path, const Problem& problem, Method method, const Solver* solver,
                const SolveReport* report, const Outcome& outcome) {
    JsonWriter json;
    json.begin_object().value(problem.kind, problem.name).value("level", problem.level);
    json.value("method", name_of(methods, method));
    if (solver) {
        write_configuration(json, solver->options(), solver->device_name());
        json.begin_array("levels");
        for (const LevelInfo& l : solver->levels())
            json.begin_object().value("level", l.level).value("mx", l.mx).value("my", l.my).value("bytes", l.bytes)
                .end_object();
        json.end_array();
        json.value("status", to_string(report->status)).value("message", with_flags(report->message));
        json.value("iterations", report->iterations())
            .value("outer_iterations", report->outer_iterations)
            .value("inner_cycles", report->inner_cycles)
            .value("initial_defect", report->initial_defect)
            .value("final_defect", report->final_defect)
            .value("digits_gained", report->digits_gained())
            .value("rate_per_cycle", report->rate_per_cycle())
            .value("fell_back_to_double", report->fell_back_to_double);
        json.begin_array("history");
        for (const OuterStep& s : report->history) {
            json.begin_object().value("inner_cycles", s.inner_cycles).value("defect", s.defect).value("rate", s.rate)
                .value("double_inner", s.double_inner);
            json.begin_array("inner_defects");
            for (double d : s.inner_defects) json.value("", d);
            json.end_array().end_object();
        }
        json.end_array();
    }
    json.value("setup_seconds", outcome.setup_seconds).value("solve_seconds", outcome.solve_seconds);
    json.value(outcome.accuracy.first, outcome.accuracy.second);
    json.end_object();
    json.save(path);
}

/// The accuracy of x, and x written to --out.
void finish(const Problem& problem, const std::vector<double>& x, const std::string& out_path, Outcome& outcome) {
    outcome.accuracy = problem.accuracy(x);
    if (out_path.empty()) return;
    write_matrix_market(out_path, x);
    std::printf("wrote the solution to %s\n", out_path.c_str());
}

}  // namespace

int run_solve(const std::vector<std::string>& args) {
    ProblemOptions problem_options;
    MatrixOptions matrix;
    SolverOptions options;
    Method method = Method::multigrid;
    CoarseOperators coarse_operators = CoarseOperators::rediscretized;
    std::string json_path, out_path;
    bool quiet = false;
    po::options_description desc("solve options");
    add_problem_options(desc, problem_options, 8);
    desc.add_options()
        ("matrix", po::value(&matrix.matrix), "your own matrix (Matrix Market), instead of --case; needs --grid and --rhs")
        ("grid", po::value(&matrix.grid), "with --matrix: the grid MXxMY, row p = j*MX + i (sizes c*2^k+1)")
        ("rhs", po::value(&matrix.rhs), "with --matrix: the right-hand side (Matrix Market vector)")
        ("x-widths", po::value(&matrix.x_widths), "with --matrix: element widths in x (Matrix Market vector, MX-1 "
                                                  "values) for the exact Q1 prolongation; default bilinear")
        ("y-widths", po::value(&matrix.y_widths), "with --matrix: element widths in y (MY-1 values)")
        ("out", po::value(&out_path), "write the solution to this Matrix Market file")
        ("solver", named_choice(method, "solver", methods), "multigrid, or direct (Eigen sparse Cholesky)")
        ("json", po::value(&json_path), "also write the results to this JSON file")
        ("coarse-operators", named_choice(coarse_operators, "coarse-operators", coarse_operator_names),
         "rediscretized (each level assembled on its own mesh) or galerkin (R A P from the finest matrix)")
        ("quiet,q", po::bool_switch(&quiet), "print only the summary");
    po::options_description solver_desc("solver options (the fields of adimg::SolverOptions)");
    add_solver_options(solver_desc, options);
    desc.add(solver_desc);
    if (!parse_command_line(args, desc,
                            "usage: adimg solve --case A2 --level 9 [--smoother adi --precision mixed --inner digits:2 "
                            "--backend cpu]\n       adimg solve --case U1 --level 8 --solver direct [--precision single]"
                            "\n       adimg solve --matrix A.mtx --grid 257x257 --rhs b.mtx --out x.mtx"))
        return 0;
    check_output_paths({out_path, json_path});  // before the work, not after it
    const std::unique_ptr<Problem> problem = load_problem(problem_options, matrix, method == Method::direct,
                                                          coarse_operators == CoarseOperators::galerkin);
    std::vector<double> x;
    Outcome outcome;
    if (method == Method::direct) {
        x = solve_directly(*problem, options.precision == Precision::single, outcome);
        finish(*problem, x, out_path, outcome);
        if (!json_path.empty()) write_json(json_path, *problem, method, nullptr, nullptr, outcome);
        return 0;
    }
    options.coarse_level = std::min(options.coarse_level, problem->level);
    Solver solver(options);
    const SolveReport report = solve_multigrid(*problem, solver, quiet, x, outcome);
    finish(*problem, x, out_path, outcome);
    if (!json_path.empty()) write_json(json_path, *problem, method, &solver, &report, outcome);
    return report.ok() ? 0 : 1;
}

}  // namespace adimg::cli
