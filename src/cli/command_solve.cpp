#include "cli_options.hpp"
#include "commands.hpp"
#include "json_writer.hpp"
#include "tables.hpp"

#include <adimg/problems.hpp>
#include <adimg/io.hpp>
#include <adimg/error.hpp>
#include <adimg/solver.hpp>
#include <adimg/pinned_memory.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace adimg::cli {
namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// Solves from a zero guess with b and x in page-locked memory when the solver runs on the GPU,
/// so that they travel without a staging copy on the host, as an application that solves often
/// would keep them. The solve time includes their transfers to and from the device; the copies
/// of b into pinned memory and of x out of it, made once here, are outside it, as they would be
/// outside an application's solves that keep b and x pinned.
SolveReport solve_from_pinned(Solver& solver, BackendKind backend, const std::vector<double>& b,
                              std::vector<double>& x, const StepCallback& on_step) {
    if (backend != BackendKind::cuda) return solver.solve(b, x, on_step);
    const pinned_vector<double> b_pinned(b.begin(), b.end());
    pinned_vector<double> x_pinned(b.size());
    const SolveReport report = solver.solve(b_pinned.data(), x_pinned.data(), InitialGuess::zero, on_step);
    x.assign(x_pinned.begin(), x_pinned.end());
    return report;
}

struct Outcome {
    double setup_seconds = 0.0, solve_seconds = 0.0, error = 0.0;
    bool matrix = false;           ///< --matrix: no exact solution, the relative defect instead
    double relative_defect = 0.0;  ///< ||b - A x|| / ||b|| of the matrix as given
};

/// `problem` is the case name, or the matrix file for --matrix.
void write_json(const std::string& path, const std::string& problem, int level, const std::string& method,
                const SolverOptions* options, const Solver* solver, const SolveReport* report, const Outcome& outcome) {
    JsonWriter json;
    json.begin_object().value(outcome.matrix ? "matrix" : "case", problem).value("level", level).value("method", method);
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
            .value("coarse_solver", to_string(options->coarse_solver))
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
    json.value("setup_seconds", outcome.setup_seconds).value("solve_seconds", outcome.solve_seconds);
    if (outcome.matrix)
        json.value("relative_defect", outcome.relative_defect);
    else
        json.value("relative_l2_error", outcome.error);
    json.end_object();
    json.save(path);
}

/// The options of the --matrix path.
struct MatrixOptions {
    std::string matrix, grid, rhs, x_widths, y_widths;
};

/// "257x129" -> (257, 129). Throws input_error.
std::pair<int, int> parse_grid(const std::string& text) {
    const auto x = text.find_first_of("xX");
    auto number = [&](const std::string& part) {
        char* end = nullptr;
        const long v = std::strtol(part.c_str(), &end, 10);
        if (part.empty() || *end != '\0' || v < 1 || v > (1L << 30))
            throw input_error("--grid '" + text + "' is not allowed; use MXxMY with the nodes per direction, e.g. 257x257");
        return static_cast<int>(v);
    };
    if (x == std::string::npos)
        throw input_error("--grid '" + text + "' is not allowed; use MXxMY with the nodes per direction, e.g. 257x257");
    return {number(text.substr(0, x)), number(text.substr(x + 1))};
}

/// The grid of --grid, with the widths of --x-widths and --y-widths if given.
Grid read_grid(const MatrixOptions& m) {
    const auto [mx, my] = parse_grid(m.grid);
    if (m.x_widths.empty() != m.y_widths.empty()) throw input_error("give both --x-widths and --y-widths, or neither");
    if (m.x_widths.empty()) return Grid(mx, my);
    std::vector<double> hx = read_matrix_market_vector(m.x_widths), hy = read_matrix_market_vector(m.y_widths);
    if (static_cast<long long>(hx.size()) != mx - 1 || static_cast<long long>(hy.size()) != my - 1)
        throw input_error("--x-widths and --y-widths hold " + std::to_string(hx.size()) + " and " + std::to_string(hy.size()) +
                          " element widths, but the " + m.grid + " grid has " + std::to_string(mx - 1) + " and " +
                          std::to_string(my - 1) + " elements");
    return Grid::from_widths(std::move(hx), std::move(hy));
}

double norm2(const std::vector<double>& v) {
    double sum = 0.0;
    for (double x : v) sum += x * x;
    return std::sqrt(sum);
}

/// adimg solve --matrix A.mtx --grid MXxMY --rhs b.mtx [--out x.mtx]: a user's system, with
/// the coarse levels as Galerkin products.
int solve_matrix(const MatrixOptions& m, const std::string& method, SolverOptions options, bool quiet,
                 const std::string& out_path, const std::string& json_path) {
    if (m.grid.empty())
        throw input_error("--matrix needs --grid MXxMY, the grid of the matrix (row p = j*MX + i for node (i, j))");
    if (m.rhs.empty()) throw input_error("--matrix needs --rhs FILE, the right-hand side (Matrix Market)");
    Outcome outcome;
    outcome.matrix = true;
    auto start = std::chrono::steady_clock::now();
    Grid grid = read_grid(m);
    const GridMatrix A = GridMatrix::from_eigen(std::move(grid), read_matrix_market_matrix(m.matrix));
    const std::vector<double> b = read_matrix_market_vector(m.rhs);
    if (b.size() != A.grid().nodes())
        throw input_error(m.rhs + ": the right-hand side has " + std::to_string(b.size()) + " entries, but the matrix has " +
                          std::to_string(A.grid().nodes()) + " rows");
    const double read_seconds = seconds_since(start);
    std::printf("matrix %s: %dx%d grid, %zu rows, %s prolongation%s\n", m.matrix.c_str(), A.grid().mx(), A.grid().my(),
                A.grid().nodes(), A.grid().has_positions() ? "Q1 (from the element widths)" : "bilinear (t = 1/2)",
                A.scaled_rows().empty() ? "" : (", " + std::to_string(A.scaled_rows().size()) + " edge rows scaled to identity").c_str());
    std::vector<double> x;
    const double b_norm = norm2(b);
    auto finish = [&](int status) {
        outcome.relative_defect = A.defect_norm(b, x) / (b_norm > 0.0 ? b_norm : 1.0);
        std::printf("relative defect ||b - A x|| / ||b|| %.3e\n", outcome.relative_defect);
        if (!out_path.empty()) {
            write_matrix_market(out_path, x);
            std::printf("wrote the solution to %s\n", out_path.c_str());
        }
        return status;
    };

    if (method == "direct") {
        if (options.precision == Precision::mixed) options.precision = Precision::double_;
        const bool single = options.precision == Precision::single;
        std::printf("direct solve (Eigen SimplicialLDLT) in %s, %zu unknowns\n", single ? "float" : "double", A.grid().nodes());
        start = std::chrono::steady_clock::now();
        x = direct_solve(A.bands(), A.solver_rhs(b), single);
        outcome.setup_seconds = read_seconds;
        outcome.solve_seconds = seconds_since(start);
        std::printf("reading %.3f s, solve %.3f s\n", read_seconds, outcome.solve_seconds);
        const int status = finish(0);
        if (!json_path.empty()) write_json(json_path, m.matrix, A.grid().finest_level(), method, nullptr, nullptr, nullptr, outcome);
        return status;
    }

    Solver solver(options);
    if (!solver.notice().empty()) std::printf("%s\n", solver.notice().c_str());
    std::printf("backend %s\n%s\n", solver.device_name().c_str(), describe(options).c_str());
    solver.setup(A);
    outcome.setup_seconds = read_seconds + solver.setup_seconds();
    if (!quiet) {
        std::printf("levels (Galerkin coarse matrices):\n");
        print_levels(stdout, solver.levels());
        std::printf("convergence:\n");
    }
    const SolveReport report = solve_from_pinned(solver, solver.backend(), b, x, history_printer(stdout, quiet));
    outcome.solve_seconds = report.solve_seconds;
    print_outcome(stdout, report);
    std::printf("setup %.4f s (reading %.4f s, Galerkin hierarchy %.4f s, backend %.4f s), solve %.4f s\n",
                outcome.setup_seconds, read_seconds, solver.hierarchy_seconds(), solver.setup_seconds() - solver.hierarchy_seconds(),
                outcome.solve_seconds);
    const int status = finish(report.ok() ? 0 : 1);
    if (!json_path.empty())
        write_json(json_path, m.matrix, A.grid().finest_level(), method, &options, &solver, &report, outcome);
    return status;
}

}  // namespace

int run_solve(const std::vector<std::string>& args) {
    ProblemOptions problem;
    SolverOptionStrings solver_strings;
    MatrixOptions matrix;
    std::string method = "multigrid", json_path, out_path, coarse_operators = "rediscretized";
    bool quiet = false;
    po::options_description desc("solve options");
    add_problem_options(desc, problem, 8);
    desc.add_options()
        ("matrix", po::value(&matrix.matrix), "your own matrix (Matrix Market), instead of --case; needs --grid and --rhs")
        ("grid", po::value(&matrix.grid), "with --matrix: the grid MXxMY, row p = j*MX + i (sizes c*2^k+1)")
        ("rhs", po::value(&matrix.rhs), "with --matrix: the right-hand side (Matrix Market vector)")
        ("x-widths", po::value(&matrix.x_widths), "with --matrix: element widths in x (Matrix Market vector, MX-1 "
                                                  "values) for the exact Q1 prolongation; default bilinear")
        ("y-widths", po::value(&matrix.y_widths), "with --matrix: element widths in y (MY-1 values)")
        ("out", po::value(&out_path), "write the solution to this Matrix Market file")
        ("solver", po::value(&method)->default_value(method), "multigrid, or direct (Eigen sparse Cholesky)")
        ("json", po::value(&json_path), "also write the results to this JSON file")
        ("coarse-operators", po::value(&coarse_operators)->default_value(coarse_operators),
         "rediscretized (each level assembled on its own mesh) or galerkin (R A P from the finest matrix)")
        ("quiet,q", po::bool_switch(&quiet), "print only the summary");
    add_solver_options(desc, solver_strings);
    if (!parse_command_line(args, desc,
                            "usage: adimg solve --case A2 --level 9 [--smoother adi --precision mixed --inner digits:2 "
                            "--backend cpu]\n       adimg solve --case U1 --level 8 --solver direct [--precision single]"
                            "\n       adimg solve --matrix A.mtx --grid 257x257 --rhs b.mtx --out x.mtx"))
        return 0;
    if (method != "multigrid" && method != "direct")
        throw input_error("--solver '" + method + "' is not allowed; use multigrid or direct");
    if (coarse_operators != "rediscretized" && coarse_operators != "galerkin")
        throw input_error("--coarse-operators '" + coarse_operators + "' is not allowed; use rediscretized or galerkin");
    check_output_paths({out_path, json_path});  // before the work, not after it
    if (!matrix.matrix.empty()) {
        if (!problem.case_name.empty() || !problem.case_file.empty())
            throw input_error("give either --matrix or --case/--case-file, not both");
        return solve_matrix(matrix, method, resolve_solver_options(solver_strings), quiet, out_path, json_path);
    }
    for (const std::string* other : {&matrix.grid, &matrix.rhs, &matrix.x_widths, &matrix.y_widths})
        if (!other->empty()) throw input_error("--grid, --rhs, --x-widths and --y-widths go with --matrix");
    const CaseSpec spec = resolve_case(problem);
    SolverOptions options = resolve_solver_options(solver_strings);
    // Host bytes per finest node: double bands, rhs, solution (and their pinned copies for the
    // GPU) and the coarser levels' share.
    check_level(problem.level, method == "direct" ? 600 : 176, method == "direct" ? "the direct solve" : "the solve");

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
        if (!out_path.empty()) write_matrix_market(out_path, x);
        if (!json_path.empty()) write_json(json_path, spec.name, problem.level, method, nullptr, nullptr, nullptr, outcome);
        return 0;
    }

    options.coarse_level = std::min(options.coarse_level, problem.level);
    Solver solver(options);
    if (!solver.notice().empty()) std::printf("%s\n", solver.notice().c_str());
    std::printf("backend %s\n%s\n", solver.device_name().c_str(), describe(options).c_str());
    if (coarse_operators == "galerkin")
        solver.setup(GridMatrix(Grid::from_mesh(mesh), assemble_stiffness(mesh)));
    else
        solver.setup(rediscretized_hierarchy(spec, problem.level, options.coarse_level));
    const double assembly_seconds = seconds_since(start) - solver.setup_seconds();
    outcome.setup_seconds = assembly_seconds + solver.setup_seconds();
    if (!quiet) {
        std::printf("levels:\n");
        print_levels(stdout, solver.levels());
        std::printf("convergence:\n");
    }
    const SolveReport report = solve_from_pinned(solver, solver.backend(), b, x, history_printer(stdout, quiet));
    outcome.solve_seconds = report.solve_seconds;
    outcome.error = relative_l2_error(mesh, exact, x);
    print_outcome(stdout, report);
    std::printf("setup %.4f s (assembly %.4f s, backend %.4f s), solve %.4f s\n", outcome.setup_seconds, assembly_seconds,
                solver.setup_seconds(), outcome.solve_seconds);
    std::printf("relative L2 error %.7e\n", outcome.error);
    if (!out_path.empty()) write_matrix_market(out_path, x);
    if (!json_path.empty()) write_json(json_path, spec.name, problem.level, method, &options, &solver, &report, outcome);
    return report.ok() ? 0 : 1;
}

}  // namespace adimg::cli
