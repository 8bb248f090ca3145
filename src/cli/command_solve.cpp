// The solve command, written once for `adimg solve` and `adimg-mpi solve`: its options, their
// checks, the sequence of each solver, the report and --json. What differs between the two
// programs comes from a SolveFrontEnd (solve_front_end.hpp).

#include "cli_options.hpp"
#include "commands.hpp"
#include "flag_spelling.hpp"
#include "json_writer.hpp"
#include "progress.hpp"
#include "serial_solve.hpp"
#include "solve_front_end.hpp"
#include "solve_problem.hpp"
#include "tables.hpp"

#include <adimg/io.hpp>
#include <adimg/error.hpp>
#include <adimg/fast_direct.hpp>
#include <adimg/solver.hpp>

#include <Eigen/SparseCore>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <optional>

namespace adimg::cli {
namespace {

enum class CoarseOperators { rediscretized, galerkin };
const Choices<CoarseOperators> coarse_operator_names = {{"rediscretized", CoarseOperators::rediscretized},
                                                        {"galerkin", CoarseOperators::galerkin}};

/// What ran, for the JSON's "configuration": the options as the solver ran them, of which the
/// fields that its solver runs with are written (runs_with()), the backend asked for, the device,
/// and what the solver adds.
struct Configuration {
    SolverOptions options;  ///< as they ran: effective_options(), the backend that ran (never automatic)
    BackendKind backend_requested = BackendKind::automatic;  ///< --backend as given
    std::string device;
    std::function<void(JsonWriter&)> more;  ///< fields of the solver's own (the fast direct's transform), or none
};

/// What a solve measured, for the summary and the JSON report.
struct Outcome {
    Configuration configuration;
    double setup_seconds = 0.0, solve_seconds = 0.0;
    /// The phases of setup: the problem on the host (load vector, meshes or the matrix read), and
    /// the solver's (the CUDA context apart: not part of setup).
    double preparation_seconds = 0.0;
    std::optional<SetupTimes> solver_setup;  ///< where the solver times its phases apart
    std::pair<const char*, double> accuracy{"", 0.0};  ///< JSON key and value: the L2 error or the defect
    bool ok = true;             ///< the solve converged (multigrid) or gave finite values (direct)
    std::string failure;        ///< why not, for the solution file's comment line
    std::string solution_file;  ///< where the solution was written ("" if it was not)
};

/// Whether `solver` runs with the option of the table: multigrid with all of them; the direct
/// solve with its precision (double or single) alone; the fast direct solve with --backend and
/// --digits (in double, on that backend, to those digits). The others are refused if given
/// (check_ignored_options()) and left out of the JSON's configuration.
bool runs_with(Method solver, const OptionSpec& spec) {
    const std::string field = spec.field;
    switch (solver) {
    case Method::multigrid: return true;
    case Method::direct: return field == "precision";
    case Method::fast_direct: return field == "backend" || field == "digits";
    }
    return false;
}

/// Options that the chosen path would ignore, or that contradict each other, are input errors
/// naming both options: nothing given on the command line is dropped without a word. The
/// multigrid solve's own options are checked once the problem is known (run_solve()).
void check_ignored_options(const po::variables_map& vm, Method method, const SolverOptions& o, bool matrix, bool out) {
    auto refuse = [](const std::string& flag, const std::string& why, const std::string& remedy) {
        throw input_error("--" + flag + " " + why + "; drop --" + flag + (remedy.empty() ? "" : ", or " + remedy));
    };
    if (method != Method::multigrid) {  // the direct and the fast direct solve: no V-cycles, no coarse levels
        const std::string with = "with --solver " + name_of(methods, method);
        const char* how = method == Method::direct ? " (Eigen's sparse Cholesky on the CPU)"
                                                   : " (transforms and line solves in double)";
        for (const OptionSpec& spec : option_table())
            if (!runs_with(method, spec) && given(vm, spec.flag))
                refuse(spec.flag, "has no effect " + with + how, "use --solver multigrid");
        if (given(vm, "coarse-operators"))
            refuse("coarse-operators", "has no effect " + with + ", which has no coarse levels", "use --solver multigrid");
    }
    if (method == Method::direct && given(vm, "precision") && o.precision == Precision::mixed)
        throw input_error("--precision mixed has no meaning with --solver direct, which factors in one precision; "
                          "use --precision double or single, or --solver multigrid");
    if (method == Method::fast_direct && matrix)
        throw input_error("--solver fast-direct solves a case's own Q1 matrix (a separable problem on a tensor "
                          "mesh), not a matrix file; use --case or --case-file, or --solver multigrid or direct "
                          "for --matrix");
    if (matrix) {
        if (given(vm, "level"))
            refuse("level", "has no effect with --matrix: the grid of --grid sets the levels", "");
        if (given(vm, "coarse-operators"))
            refuse("coarse-operators", "has no effect with --matrix, whose coarse levels are always Galerkin products", "");
    }
    if (given(vm, "write-failed") && !out)
        refuse("write-failed", "has no effect without --out: it writes the solution of a failed solve to the file of --out",
               "give --out FILE");
}

/// "3.21 of the 8 digits" of a report, or why there are no digits to quote.
std::string digits_of(const SolveReport& report, const SolverOptions& options) {
    char text[96];
    if (std::isfinite(report.digits_gained()))
        std::snprintf(text, sizeof text, "%.2f of the %g requested digits", report.digits_gained(), options.digits);
    else
        std::snprintf(text, sizeof text, "no digits of the %g requested (the defect is not finite)", options.digits);
    return text;
}

/// Eigen's sparse Cholesky, in float if `single`, else in double, checked by the library
/// (direct_solve_checked(): the factor's pivots and the backward error). A singular, indefinite or
/// non-symmetric matrix fails the solve, with the library's message; a pure Neumann matrix is
/// solved for b's compatible part, x of zero mean, as multigrid solves it.
std::vector<double> solve_directly(Problem& problem, bool single, Outcome& outcome) {
    const Problem::DirectSystem system = problem.direct_system();
    outcome.setup_seconds = problem.preparation_seconds;
    outcome.configuration.options.precision = single ? Precision::single : Precision::double_;
    outcome.configuration.device = "CPU (Eigen SimplicialLDLT)";
    std::printf("direct solve (Eigen SimplicialLDLT) in %s, %zu unknowns\n", single ? "float" : "double", system.b.size());
    const auto start = std::chrono::steady_clock::now();
    DirectSolveReport report = [&] {
        const Progress progress("direct solve");
        return direct_solve_checked(system.A, system.b, single);
    }();
    outcome.solve_seconds = seconds_since(start);
    std::printf("%s %.3f s, solve %.3f s\n", problem.preparation, outcome.setup_seconds, outcome.solve_seconds);
    std::printf("smallest pivot %.2e of its diagonal, backward error %.2e\n", report.smallest_pivot, report.backward_error);
    // A factorisation that broke down (an exact zero pivot) leaves no x to measure or write.
    if (report.x.empty()) throw input_error(report.message);
    outcome.ok = report.solved;
    if (!report.solved) outcome.failure = "the direct solve failed its checks (a singular or indefinite factor, or a defect above rounding)";
    std::printf("status %s%s%s\n", report.solved ? "solved" : "failed", report.message.empty() ? "" : ": ",
                report.message.c_str());
    return std::move(report.x);
}

/// The fast direct solver (fast_direct.hpp) on the case: its load vector assembled and the L2
/// error measured where the solve runs, as the multigrid path does; x comes back if `keep_x`.
std::vector<double> solve_fast_direct(Problem& problem, const SolverOptions& options, int min_refinements, bool keep_x,
                                      Outcome& outcome) {
    FastDirectOptions fast;
    fast.backend = options.backend;
    fast.digits = options.digits;
    fast.min_refinements = min_refinements;
    FastDirectSolver solver(fast);
    if (!solver.notice().empty()) std::printf("%s\n", solver.notice().c_str());
    {
        const Progress progress("fast direct setup");
        problem.setup(solver);
    }
    std::printf("fast direct solve: %s, backend %s\n", solver.method().c_str(), to_string(solver.backend()).c_str());
    Configuration& ran = outcome.configuration;
    ran.options.backend = solver.backend();
    ran.options.digits = solver.options().digits;
    ran.device = solver.device_name();
    ran.more = [method = solver.method(), fast = solver.options()](JsonWriter& json) {
        json.value("fast_direct_method", method)
            .value("max_refinements", fast.max_refinements)
            .value("min_refinements", fast.min_refinements);
    };
    std::vector<double> x;
    const FastDirectReport report = [&] {
        const Progress progress("fast direct solve");
        return problem.solve(solver, keep_x, x, outcome.accuracy);
    }();
    outcome.setup_seconds = problem.preparation_seconds + solver.setup_seconds();
    outcome.preparation_seconds = problem.preparation_seconds;
    outcome.solve_seconds = report.solve_seconds;
    outcome.ok = report.ok();
    const double b_norm = report.initial_defect > 0.0 ? report.initial_defect : 1.0;
    std::printf("status %s%s%s\nrefinement steps %d; defect relative to ||b||: %.1e after the transform, %.1e at the end\n",
                to_string(report.status).c_str(), report.message.empty() ? "" : ": ", report.message.c_str(),
                report.refinement_steps, report.first_defect / b_norm, report.final_defect / b_norm);
    if (!outcome.ok) outcome.failure = "the fast direct solve did not converge (status " + to_string(report.status) + ")";
    std::printf("setup %.4f s, solve %.4f s; backend start %.4f s\n", outcome.setup_seconds, outcome.solve_seconds,
                solver.start_seconds());
    return x;
}

/// Sets the solver up for the problem and solves, printing the backend, the options, the levels,
/// the convergence history, the status, what the executor adds and the times.
SolveReport solve_multigrid(Problem& problem, MultigridExecutor& solver, bool keep_x, std::vector<double>& x,
                            Outcome& outcome) {
    if (!solver.notice().empty()) std::printf("%s\n", solver.notice().c_str());
    std::printf("backend %s\n", solver.device_name().c_str());
    std::printf("%s\n", describe(solver.options()).c_str());
    outcome.configuration.options = solver.options();
    outcome.configuration.device = solver.device_name();
    {
        const Progress progress("setup (" + std::string(problem.galerkin ? "Galerkin" : "assembled") + " levels)");
        problem.setup(solver);
    }
    outcome.setup_seconds = problem.preparation_seconds + solver.setup_seconds();
    outcome.preparation_seconds = problem.preparation_seconds;
    outcome.solver_setup = solver.setup_times();
    std::printf("%s\n", problem.galerkin ? "levels (Galerkin coarse matrices):" : "levels:");
    print_levels(stdout, solver.levels());
    std::printf("convergence:\n");
    const SolveReport report = [&] {
        const Progress progress("solve");
        return problem.solve(solver, keep_x, x, history_printer(stdout), outcome.accuracy);
    }();
    outcome.solve_seconds = report.solve_seconds;
    outcome.ok = report.ok();
    if (!report.ok())
        outcome.failure = "the solve did not converge (status " + to_string(report.status) + ", " +
                          digits_of(report, solver.options()) + ")";
    print_outcome(stdout, report);
    solver.print_run(stdout, report);
    if (const std::optional<SetupTimes>& times = outcome.solver_setup)
        std::printf("setup %.4f s (%s %.4f s, levels %.4f s, backend %.4f s: upload %.4f s, levels %.4f s, coarse "
                    "factor %.4f s), solve %.4f s; backend start (context) %.4f s\n",
                    outcome.setup_seconds, problem.preparation, problem.preparation_seconds, times->levels,
                    times->backend, times->upload, times->backend_levels(), times->coarse_factor, outcome.solve_seconds,
                    times->context);
    else
        std::printf("setup %.4f s (%s %.4f s, solver %.4f s), solve %.4f s\n", outcome.setup_seconds,
                    problem.preparation, problem.preparation_seconds, solver.setup_seconds(), outcome.solve_seconds);
    return report;
}

/// What ran: the solver, every option of the table that it runs with under its field name, with
/// the type it has (the backend that ran, and after it the backend asked for), the device, and
/// what the solver adds.
void write_configuration(JsonWriter& json, Method method, const Configuration& ran) {
    json.begin_object("configuration").value("solver", name_of(methods, method));
    for (const OptionSpec& spec : option_table()) {
        if (!runs_with(method, spec)) continue;
        const std::string text = spec.get(ran.options);
        switch (spec.type()) {
        case OptionType::integer: json.value(spec.field, std::stoll(text)); break;
        case OptionType::real: json.value(spec.field, std::strtod(text.c_str(), nullptr)); break;
        case OptionType::boolean: json.value(spec.field, text == "true"); break;
        case OptionType::choice:
        case OptionType::inner_stop: json.value(spec.field, text); break;
        }
        if (std::string(spec.field) == "backend") json.value("backend_requested", to_string(ran.backend_requested));
    }
    json.value("device", ran.device);
    if (ran.more) ran.more(json);
    json.end_object();
}

/// The setup's phases: the problem's preparation, and the solver's as its executor times them.
void write_setup(JsonWriter& json, const Outcome& outcome, const MultigridExecutor* solver) {
    json.begin_object("setup").value("preparation", outcome.preparation_seconds);
    if (const std::optional<SetupTimes>& times = outcome.solver_setup)
        json.value("levels", times->levels)
            .value("backend", times->backend)
            .value("upload", times->upload)
            .value("backend_levels", times->backend_levels())
            .value("coarse_factor", times->coarse_factor)
            .value("context", times->context);
    else if (solver)
        json.value("solver", solver->setup_seconds());
    json.end_object();
}

/// The --json report; `solver` and `report` are null for the direct and the fast direct solve.
void write_json(const std::string& path, const Problem& problem, Method method, const MultigridExecutor* solver,
                const SolveReport* report, const Outcome& outcome) {
    JsonWriter json;
    json.begin_object().value(problem.kind, problem.name).value("level", problem.level);
    json.value("method", name_of(methods, method));
    write_configuration(json, method, outcome.configuration);
    if (!solver) json.value("status", outcome.ok ? "solved" : "failed");
    if (solver) {
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
        solver->write_run(json, *report);
    }
    json.value("setup_seconds", outcome.setup_seconds).value("solve_seconds", outcome.solve_seconds);
    write_setup(json, outcome, solver);
    json.value(outcome.accuracy.first, outcome.accuracy.second);
    if (outcome.solution_file.empty())
        json.null("solution_file");
    else
        json.value("solution_file", outcome.solution_file);
    json.end_object();
    json.save(path);
}

/// x written to --out: a failed solve only with --write-failed, and then the file's comment line
/// says that it is not a solution.
void finish(const std::vector<double>& x, const std::string& out_path, bool write_failed, Outcome& outcome) {
    if (out_path.empty()) return;
    if (!outcome.ok && !write_failed) {
        std::printf("did not write %s: %s (--write-failed writes it anyway)\n", out_path.c_str(), outcome.failure.c_str());
        return;
    }
    const Progress progress("writing " + out_path);
    write_matrix_market(out_path, x,
                        outcome.ok ? "written by adimg"
                                   : "written by adimg with --write-failed: NOT A SOLUTION: " + outcome.failure);
    outcome.solution_file = out_path;
    if (outcome.ok)
        std::printf("wrote the solution to %s\n", out_path.c_str());
    else
        std::printf("wrote the iterate of the failed solve to %s (--write-failed): it is NOT a solution: %s\n",
                    out_path.c_str(), outcome.failure.c_str());
}

/// While it lives, one of the standard streams goes to /dev/null: --quiet keeps everything the
/// solve paths print as they go off stdout, and run_solve() prints the result after; the
/// processes of adimg-mpi other than rank 0 print nothing. Best effort: if the descriptors cannot
/// be had, the stream stays as it is.
class Silenced {
public:
    Silenced(std::FILE* stream, int descriptor) : stream_(stream), descriptor_(descriptor) {
        std::fflush(stream_);
        const int null = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
        kept_ = null < 0 ? -1 : ::fcntl(descriptor_, F_DUPFD_CLOEXEC, 0);
        if (kept_ >= 0) ::dup2(null, descriptor_);
        if (null >= 0) ::close(null);
    }
    ~Silenced() {
        std::fflush(stream_);
        if (kept_ < 0) return;
        ::dup2(kept_, descriptor_);
        ::close(kept_);
    }
    Silenced(const Silenced&) = delete;
    Silenced& operator=(const Silenced&) = delete;

private:
    std::FILE* stream_;
    int descriptor_;
    int kept_ = -1;  ///< the stream's descriptor, kept while it is silenced
};

}  // namespace

int run_solve(const std::vector<std::string>& args) {
    SerialFrontEnd front;
    return run_solve(args, front);
}

int run_solve(const std::vector<std::string>& args, SolveFrontEnd& front) {
    ProblemOptions problem_options;
    MatrixOptions matrix;
    SolverOptions options;
    Method method = Method::multigrid;
    CoarseOperators coarse_operators = CoarseOperators::rediscretized;
    std::string json_path, out_path;
    bool quiet = false, write_failed = false;
    int min_refinements = 0;
    po::options_description desc("solve options");
    add_problem_options(desc, problem_options, 8);
    desc.add_options()
        ("matrix", po::value(&matrix.matrix), "your own matrix (Matrix Market), instead of --case; needs --grid and --rhs")
        ("grid", po::value(&matrix.grid), "with --matrix: the grid MXxMY, row p = j*MX + i (any sizes of 3 or more)")
        ("rhs", po::value(&matrix.rhs), "with --matrix: the right-hand side (Matrix Market vector)")
        ("x-widths", po::value(&matrix.x_widths), "with --matrix: element widths in x (Matrix Market vector, MX-1 "
                                                  "values) for the exact Q1 prolongation; default bilinear")
        ("y-widths", po::value(&matrix.y_widths), "with --matrix: element widths in y (MY-1 values)")
        ("out", po::value(&out_path), "write the solution to this Matrix Market file (not if the solve fails)")
        ("write-failed", po::bool_switch(&write_failed),
         "with --out: write the last iterate of a failed solve too, marked as such in the file's comment line")
        ("solver", named_choice(method, "solver", methods),
         "multigrid, direct (Eigen sparse Cholesky) or fast-direct (transforms and line solves, for a case's "
         "separable matrix)")
        ("json", po::value(&json_path), "also write the results to this JSON file")
        ("min-refinements", po::value(&min_refinements)->default_value(0),
         "with --solver fast-direct: refinement steps taken even where the transform solve meets the criterion "
         "(FastDirectOptions::min_refinements, 0 to 3); 1 gives the discrete solution to the digits its doubles "
         "hold")
        ("coarse-operators", named_choice(coarse_operators, "coarse-operators", coarse_operator_names),
         "rediscretized (each level assembled on its own mesh) or galerkin (R A P from the finest matrix)")
        ("quiet,q", po::bool_switch(&quiet),
         "print only the result on stdout (the relative L2 error, or a matrix's relative defect); a failed solve "
         "says why on stderr");
    front.add_options(desc);
    po::options_description solver_desc("solver options (the fields of adimg::SolverOptions)");
    add_solver_options(solver_desc, options);
    desc.add(solver_desc);
    po::variables_map vm;
    {
        // Only a reporting process prints the help.
        std::optional<Silenced> silenced;
        if (!front.reports()) silenced.emplace(stdout, STDOUT_FILENO);
        if (!parse_command_line(args, desc, front.usage(), &vm)) return 0;
    }
    // Before the work, not after it.
    if (method != Method::fast_direct && given(vm, "min-refinements"))
        throw input_error("--min-refinements has no effect with --solver " + name_of(methods, method) +
                          ": it refines the fast direct solve; drop it, or use --solver fast-direct");
    front.refuse(method, vm);
    check_ignored_options(vm, method, options, !matrix.matrix.empty(), !out_path.empty());
    front.check_outputs([&] {
        check_output_paths({out_path, json_path});
        check_distinct_files({{"out", out_path}, {"json", json_path}},
                             {{"matrix", matrix.matrix}, {"rhs", matrix.rhs}, {"x-widths", matrix.x_widths},
                              {"y-widths", matrix.y_widths}, {"case-file", problem_options.case_file}});
    });
    // A GPU that is not there fails the command before the problem is assembled or read.
    if (method != Method::direct) front.check_device(options);
    resolve_level(problem_options);
    if (method == Method::fast_direct)
        if (const std::optional<int> status = front.fast_direct(problem_options, options, vm, out_path)) return *status;
    const bool keep_x = !out_path.empty();  // in every process: the solution is gathered where it is written
    if (!front.reports()) out_path.clear(), json_path.clear();
    std::optional<Silenced> silenced, silenced_errors;
    if (quiet || !front.reports()) silenced.emplace(stdout, STDOUT_FILENO);
    if (!front.reports()) silenced_errors.emplace(stderr, STDERR_FILENO);  // its progress lines
    const std::unique_ptr<Problem> problem = load_problem(problem_options, matrix, method == Method::direct,
                                                          coarse_operators == CoarseOperators::galerkin);
    std::vector<double> x;
    Outcome outcome;
    outcome.configuration.backend_requested = options.backend;
    std::unique_ptr<MultigridExecutor> solver;  // the multigrid solve's, and its report
    std::optional<SolveReport> report;
    if (method == Method::direct) {
        x = solve_directly(*problem, options.precision == Precision::single, outcome);
        outcome.accuracy = problem->accuracy(x);
    } else if (method == Method::fast_direct) {
        x = solve_fast_direct(*problem, options, min_refinements, keep_x, outcome);
    } else {
        options.coarse_level = std::min(options.coarse_level, problem->level);
        // Judged by the coarsest grid that the problem's levels end on, which the problem knows.
        check_given_options(options, given_fields(vm), problem->coarsest_nodes(options));
        {
            const Progress progress("starting the backend");
            solver = front.multigrid(effective_options(options));  // what runs is what the print-out and the JSON say
        }
        report = solve_multigrid(*problem, *solver, keep_x, x, outcome);
    }
    finish(x, out_path, write_failed, outcome);
    if (!json_path.empty()) write_json(json_path, *problem, method, solver.get(), report ? &*report : nullptr, outcome);
    if (quiet && front.reports()) {  // the result on stdout, and why a solve failed on stderr
        silenced.reset();
        print_accuracy(stdout, outcome.accuracy);
        const std::string why = report && !report->message.empty() ? ": " + with_flags(report->message) : "";
        if (!outcome.ok) std::fprintf(stderr, "%s: %s%s\n", front.command().c_str(), outcome.failure.c_str(), why.c_str());
    }
    return outcome.ok ? 0 : 1;
}

}  // namespace adimg::cli
