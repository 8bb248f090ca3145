#include "cli_options.hpp"
#include "commands.hpp"
#include "json_writer.hpp"
#include "tables.hpp"

#include <adimg/assembly.hpp>
#include <adimg/eigen_interop.hpp>
#include <adimg/error.hpp>
#include <adimg/solver.hpp>

#include <chrono>
#include <cstdio>

namespace adimg::cli {
namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

struct Outcome {
    double setup_seconds = 0.0, solve_seconds = 0.0, error = 0.0;
};

void write_json(const std::string& path, const CaseSpec& spec, int level, const std::string& method,
                const SolverOptions* options, const Solver* solver, const SolveReport* report, const Outcome& outcome) {
    JsonWriter json;
    json.begin_object().value("case", spec.name).value("level", level).value("method", method);
    if (options) {
        json.begin_object("configuration")
            .value("backend", solver->device_name())
            .value("precision", to_string(options->precision))
            .value("smoother", to_string(options->smoother))
            .value("omega", options->omega)
            .value("pre_smooth", options->pre_smooth)
            .value("post_smooth", options->post_smooth)
            .value("inner", to_string(options->inner))
            .value("inner_max_cycles", options->inner_max_cycles)
            .value("coarse_level", options->coarse_level)
            .value("coarse_preconditioner", to_string(options->coarse_preconditioner))
            .value("digits", options->digits)
            .end_object();
        json.begin_array("levels");
        for (const LevelInfo& l : solver->levels())
            json.begin_object().value("level", l.level).value("mx", l.mx).value("my", l.my).value("bytes", l.bytes).end_object();
        json.end_array();
        json.value("status", to_string(report->status)).value("message", report->message);
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
    json.value("setup_seconds", outcome.setup_seconds)
        .value("solve_seconds", outcome.solve_seconds)
        .value("relative_l2_error", outcome.error)
        .end_object();
    json.save(path);
}

}  // namespace

int run_solve(const std::vector<std::string>& args) {
    ProblemOptions problem;
    SolverOptionStrings solver_strings;
    std::string method = "multigrid", json_path;
    bool quiet = false;
    po::options_description desc("solve options");
    add_problem_options(desc, problem, 8);
    desc.add_options()
        ("solver", po::value(&method)->default_value(method), "multigrid, or direct (Eigen sparse Cholesky)")
        ("json", po::value(&json_path), "also write the results to this JSON file")
        ("quiet,q", po::bool_switch(&quiet), "print only the summary");
    add_solver_options(desc, solver_strings);
    if (!parse_command_line(args, desc,
                            "usage: adimg solve --case A2 --level 9 [--smoother adi --precision mixed --inner digits:2 "
                            "--backend cpu]\n       adimg solve --case U1 --level 8 --solver direct [--precision single]"))
        return 0;
    if (method != "multigrid" && method != "direct")
        throw input_error("--solver '" + method + "' is not allowed; use multigrid or direct");
    const CaseSpec spec = resolve_case(problem);
    SolverOptions options = resolve_solver_options(solver_strings);
    // Host bytes per finest node: double bands, rhs, solution and the coarser levels' share.
    check_level(problem.level, method == "direct" ? 600 : 160, method == "direct" ? "the direct solve" : "the solve");

    std::printf("case %s: %s; level %d\n", spec.name.c_str(), spec.description.c_str(), problem.level);
    Outcome outcome;
    auto start = std::chrono::steady_clock::now();
    const TensorMesh mesh = spec.mesh(problem.level);
    const PolynomialProblem exact{spec.x.length, spec.y.length};
    const std::vector<double> b = assemble_load(mesh, exact);
    std::vector<double> x;

    if (method == "direct") {
        if (options.precision == Precision::mixed) options.precision = Precision::double_;
        const bool single = options.precision == Precision::single;
        const NineBands<double> A = assemble_stiffness(mesh);
        outcome.setup_seconds = seconds_since(start);
        std::printf("direct solve (Eigen SimplicialLDLT) in %s, %lld unknowns\n", single ? "float" : "double", mesh.nodes());
        start = std::chrono::steady_clock::now();
        x = direct_solve(A, b, single);
        outcome.solve_seconds = seconds_since(start);
        outcome.error = relative_l2_error(mesh, exact, x);
        std::printf("assembly %.3f s, solve %.3f s\nrelative L2 error %.7e\n", outcome.setup_seconds, outcome.solve_seconds,
                    outcome.error);
        if (!json_path.empty()) write_json(json_path, spec, problem.level, method, nullptr, nullptr, nullptr, outcome);
        return 0;
    }

    options.coarse_level = std::min(options.coarse_level, problem.level);
    Solver solver(options);
    if (!solver.notice().empty()) std::printf("%s\n", solver.notice().c_str());
    std::printf("backend %s\n%s\n", solver.device_name().c_str(), describe(options).c_str());
    const Hierarchy hierarchy = rediscretized_hierarchy(spec, problem.level, options.coarse_level);
    const double assembly_seconds = seconds_since(start);
    solver.setup(hierarchy);
    outcome.setup_seconds = assembly_seconds + solver.setup_seconds();
    if (!quiet) {
        std::printf("levels:\n");
        print_levels(stdout, solver.levels());
        std::printf("convergence:\n");
    }
    int outer = 0;
    bool header = false;
    const SolveReport report = solver.solve(b, x, [&](const OuterStep& step) {
        if (quiet) return;
        if (!header) {
            print_history_header(stdout, step.defect / step.rate);
            header = true;
        }
        print_history_row(stdout, ++outer, step);
    });
    outcome.solve_seconds = report.solve_seconds;
    outcome.error = relative_l2_error(mesh, exact, x);
    std::printf("status %s%s%s\n", to_string(report.status).c_str(), report.message.empty() ? "" : ": ",
                report.message.c_str());
    std::printf("iterations %s (outer:inner), %.2f digits, %.3e per cycle\n", report.iterations().c_str(),
                report.digits_gained(), report.rate_per_cycle());
    std::printf("setup %.4f s (assembly %.4f s, backend %.4f s), solve %.4f s\n", outcome.setup_seconds, assembly_seconds,
                solver.setup_seconds(), outcome.solve_seconds);
    std::printf("relative L2 error %.7e\n", outcome.error);
    if (!json_path.empty()) write_json(json_path, spec, problem.level, method, &options, &solver, &report, outcome);
    return report.ok() ? 0 : 1;
}

}  // namespace adimg::cli
