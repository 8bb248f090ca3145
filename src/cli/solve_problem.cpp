#include "solve_problem.hpp"

#include "progress.hpp"

#include "../common/scaled_norm.hpp"
#include "../solver/coarsest_level.hpp"

#include <adimg/error.hpp>
#include <adimg/grid.hpp>
#include <adimg/io.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <utility>

namespace adimg::cli {
namespace {

/// The nodes of the grid's coarsest level in a multigrid solve with `options` (coarsest_level()).
long long coarsest_nodes(const Grid& grid, const SolverOptions& options) {
    const int level = coarsest_level(grid, options);
    return static_cast<long long>(grid.mx_on_level(level)) * grid.my_on_level(level);
}

/// A case on a level: the coarse levels rediscretized on their own meshes, or Galerkin products.
class CaseProblem final : public Problem {
public:
    CaseProblem(const CaseSpec& spec, int case_level, bool galerkin_levels)
        : spec_(spec), exact_{spec.x.length, spec.y.length} {
        kind = "case";
        name = spec.name;
        level = case_level;
        preparation = "case on the host";  // its mesh; with Galerkin levels or a direct solve, its matrix too
        galerkin = galerkin_levels;
        std::printf("case %s: %s; level %d\n", spec.name.c_str(), spec.description.c_str(), level);
        const auto start = std::chrono::steady_clock::now();
        mesh_ = spec.mesh(level);
        preparation_seconds = seconds_since(start);
    }

    DirectSystem direct_system() override {
        const auto start = std::chrono::steady_clock::now();
        bands_ = assemble_stiffness(mesh_);
        b_ = assemble_load(mesh_, exact_);
        preparation_seconds += seconds_since(start);
        return {bands_, b_};
    }

    /// The case's levels assembled where the solve runs; with Galerkin coarse levels, the finest
    /// matrix and the load vector on the host.
    void setup(MultigridExecutor& solver) override {
        if (!galerkin) {
            solver.setup(spec_, level);
            return;
        }
        const auto start = std::chrono::steady_clock::now();
        const GridMatrix A(Grid::from_mesh(mesh_), assemble_stiffness(mesh_));
        b_ = assemble_load(mesh_, exact_);
        preparation_seconds += seconds_since(start);
        solver.setup(A);
    }

    SolveReport solve(MultigridExecutor& solver, bool keep_x, std::vector<double>& x, const StepCallback& on_step,
                      std::pair<const char*, double>& accuracy) override {
        if (galerkin) {
            const SolveReport report = solver.solve(b_, x, on_step);
            accuracy = this->accuracy(x);
            return report;
        }
        const CaseSolveReport solved = solver.solve_case(keep_x ? &x : nullptr, on_step);
        accuracy = print_error(solved.relative_l2_error);
        return solved.report;
    }

    std::pair<const char*, double> accuracy(const std::vector<double>& x) const override {
        return print_error(relative_l2_error(mesh_, exact_, x));
    }

    /// Rediscretized levels stop at coarse_level; Galerkin ones as a matrix's grid does.
    long long coarsest_nodes(const SolverOptions& options) const override {
        if (galerkin) return adimg::cli::coarsest_nodes(Grid(mesh_.mx(), mesh_.my()), options);
        return static_cast<long long>(spec_.nodes(std::min(options.coarse_level, level)));
    }

    void setup(FastDirectSolver& solver) override { solver.setup(spec_, level); }

    FastDirectReport solve(FastDirectSolver& solver, bool keep_x, std::vector<double>& x,
                           std::pair<const char*, double>& accuracy) override {
        const FastDirectCaseReport solved = solver.solve_case(keep_x ? &x : nullptr);
        accuracy = print_error(solved.relative_l2_error);
        return solved.report;
    }

private:
    static std::pair<const char*, double> print_error(double error) {
        const std::pair<const char*, double> accuracy{"relative_l2_error", error};
        print_accuracy(stdout, accuracy);
        return accuracy;
    }

    CaseSpec spec_;
    PolynomialProblem exact_;
    TensorMesh mesh_;
    NineBands<double> bands_;
    std::vector<double> b_;  ///< only for the direct solve and Galerkin coarse levels
};

/// A user's system from Matrix Market files; its coarse levels are Galerkin products.
class MatrixProblem final : public Problem {
public:
    MatrixProblem(const std::string& file, GridMatrix A, std::vector<double> rhs, double read_seconds)
        : A_(std::move(A)) {
        kind = "matrix";
        name = file;
        level = A_.grid().finest_level();
        b_ = std::move(rhs);
        preparation = "reading";
        preparation_seconds = read_seconds;
        galerkin = true;
        const Grid& grid = A_.grid();
        std::printf("matrix %s: %dx%d grid, %zu rows, %s prolongation%s\n", file.c_str(), grid.mx(), grid.my(), grid.nodes(),
                    grid.has_positions() ? "Q1 (from the element widths)" : "bilinear (t = 1/2)",
                    A_.scaled_rows().empty()
                        ? ""
                        : (", " + std::to_string(A_.scaled_rows().size()) + " edge rows scaled to identity").c_str());
    }

    DirectSystem direct_system() override {
        // The direct solve removes a pure Neumann b's constant component itself and says so (a
        // pure Neumann matrix has no scaled or eliminated rows: each of its rows sums to zero).
        solver_b_ = A_.constant_null_space() ? b_ : A_.solver_rhs(b_);
        return {A_.bands(), solver_b_};
    }

    void setup(MultigridExecutor& solver) override { solver.setup(A_); }

    void setup(FastDirectSolver&) override { throw std::logic_error("--solver fast-direct with --matrix"); }
    FastDirectReport solve(FastDirectSolver&, bool, std::vector<double>&, std::pair<const char*, double>&) override {
        throw std::logic_error("--solver fast-direct with --matrix");
    }

    SolveReport solve(MultigridExecutor& solver, bool, std::vector<double>& x, const StepCallback& on_step,
                      std::pair<const char*, double>& accuracy) override {
        const SolveReport report = solver.solve(b_, x, on_step);
        accuracy = this->accuracy(x);
        return report;
    }

    long long coarsest_nodes(const SolverOptions& options) const override {
        return adimg::cli::coarsest_nodes(A_.grid(), options);
    }

    std::pair<const char*, double> accuracy(const std::vector<double>& x) const override {
        const std::pair<const char*, double> accuracy{"relative_defect", relative_defect(b_, A_.multiply(x))};
        print_accuracy(stdout, accuracy);
        return accuracy;
    }

private:
    GridMatrix A_;
    std::vector<double> b_;
    std::vector<double> solver_b_;  ///< b as the direct solve takes it (scaled edge rows)
};

/// "257x129" -> (257, 129). Throws input_error.
std::pair<int, int> parse_grid(const std::string& text) {
    if (const auto sizes = parse_sizes(text)) return *sizes;
    throw input_error("--grid '" + text + "' is not allowed; use MXxMY with the nodes per direction, e.g. 257x257");
}

/// The grid of --grid, with the widths of --x-widths and --y-widths if given.
Grid read_grid(const MatrixOptions& m) {
    const auto [mx, my] = parse_grid(m.grid);
    if (m.x_widths.empty() != m.y_widths.empty()) throw input_error("give both --x-widths and --y-widths, or neither");
    if (m.x_widths.empty()) return Grid(mx, my);
    std::vector<double> hx = read_matrix_market_vector(m.x_widths), hy = read_matrix_market_vector(m.y_widths);
    if (static_cast<long long>(hx.size()) != mx - 1 || static_cast<long long>(hy.size()) != my - 1)
        throw input_error("--x-widths and --y-widths hold " + std::to_string(hx.size()) + " and " +
                          std::to_string(hy.size()) + " element widths, but the " + m.grid + " grid has " +
                          std::to_string(mx - 1) + " and " + std::to_string(my - 1) + " elements");
    return Grid::from_widths(std::move(hx), std::move(hy));
}

std::unique_ptr<Problem> read_matrix_problem(const MatrixOptions& m) {
    if (m.grid.empty())
        throw input_error("--matrix needs --grid MXxMY, the grid of the matrix (row p = j*MX + i for node (i, j))");
    if (m.rhs.empty()) throw input_error("--matrix needs --rhs FILE, the right-hand side (Matrix Market)");
    const auto start = std::chrono::steady_clock::now();
    const Progress progress("reading " + m.matrix + " and " + m.rhs);
    GridMatrix A = GridMatrix::from_eigen(read_grid(m), read_matrix_market_matrix(m.matrix));
    std::vector<double> b = read_matrix_market_vector(m.rhs);
    if (b.size() != A.grid().nodes())
        throw input_error(m.rhs + ": the right-hand side has " + std::to_string(b.size()) + " entries, but the matrix has " +
                          std::to_string(A.grid().nodes()) + " rows");
    return std::make_unique<MatrixProblem>(m.matrix, std::move(A), std::move(b), seconds_since(start));
}

}  // namespace

void print_accuracy(std::FILE* out, const std::pair<const char*, double>& accuracy) {
    const bool error = std::string(accuracy.first) == "relative_l2_error";
    const char* what = error ? "relative L2 error" : "relative defect ||b - A x|| / ||b||";
    if (std::isfinite(accuracy.second))
        std::fprintf(out, error ? "%s %.7e\n" : "%s %.3e\n", what, accuracy.second);
    else
        std::fprintf(out, "%s not finite (x holds infinite or NaN values)\n", what);
}

double relative_defect(const std::vector<double>& b, const std::vector<double>& Ax) {
    std::vector<double> d(b.size());
    for (std::size_t p = 0; p < b.size(); ++p) d[p] = b[p] - Ax[p];
    const double b_norm = stable_norm2(b.data(), b.size());
    return stable_norm2(d.data(), d.size()) / (b_norm > 0.0 ? b_norm : 1.0);
}

void check_case_size(const CaseSpec& spec, int level, bool direct) {
    // Host bytes per finest node: double bands, rhs, solution (and their pinned copies for the
    // GPU) and the coarser levels' share; the direct solve's factor.
    check_level(spec, level, direct ? 600 : 176, direct ? "the direct solve" : "the solve");
}

std::unique_ptr<Problem> load_problem(const ProblemOptions& problem, const MatrixOptions& matrix, bool direct, bool galerkin) {
    if (!matrix.matrix.empty()) {
        if (!problem.case_name.empty() || !problem.case_file.empty())
            throw input_error("give either --matrix or --case/--case-file, not both");
        return read_matrix_problem(matrix);
    }
    for (const std::string* other : {&matrix.grid, &matrix.rhs, &matrix.x_widths, &matrix.y_widths})
        if (!other->empty()) throw input_error("--grid, --rhs, --x-widths and --y-widths go with --matrix");
    const CaseSpec spec = resolve_case(problem);
    check_case_size(spec, problem.level, direct);
    return std::make_unique<CaseProblem>(spec, problem.level, galerkin);
}

}  // namespace adimg::cli
