#include <adimg/error.hpp>
#include <adimg/fast_direct.hpp>

#include "../common/seconds_since.hpp"
#include "fast_direct_engine.hpp"
#include "separable_matrix.hpp"

#include <chrono>
#include <cmath>
#include <string>

namespace adimg {
namespace {

void validate(const FastDirectOptions& options) {
    if (!(options.digits > 0.0 && options.digits <= 15.0))
        throw input_error("FastDirectOptions::digits = " + std::to_string(options.digits) + " is out of range (0, 15]");
    if (options.max_refinements < 0 || options.max_refinements > 10)
        throw input_error("FastDirectOptions::max_refinements = " + std::to_string(options.max_refinements) +
                          " is out of range 0..10");
    if (options.min_refinements < 0 || options.min_refinements > options.max_refinements)
        throw input_error("FastDirectOptions::min_refinements = " + std::to_string(options.min_refinements) +
                          " is out of range 0..max_refinements (" + std::to_string(options.max_refinements) + ")");
    if (!(options.uniform_tolerance >= 0.0 && options.uniform_tolerance < 1.0))
        throw input_error("FastDirectOptions::uniform_tolerance = " + std::to_string(options.uniform_tolerance) +
                          " is out of range [0, 1)");
}

/// The matrix the solver solves: the Q1 assembly with Dirichlet edges, else the separable form.
NineBands<double> assembled(const TensorMesh& mesh, const FastDirectEdges& edges) {
    return edges.all_dirichlet() ? assemble_stiffness(mesh) : fast_direct::separable_matrix(mesh, edges);
}

const char* name(FastAxis axis) { return axis == FastAxis::x ? "x" : "y"; }

const char* name(FastTransform transform) {
    switch (transform) {
    case FastTransform::sine: return "sine transform";
    case FastTransform::cosine: return "cosine transform";
    default: return "generalised eigenvectors";
    }
}

}  // namespace

bool FastDirectEdges::all_dirichlet() const {
    return x_low == EdgeCondition::dirichlet && x_high == EdgeCondition::dirichlet &&
           y_low == EdgeCondition::dirichlet && y_high == EdgeCondition::dirichlet;
}

bool FastDirectEdges::all_neumann() const {
    return x_low == EdgeCondition::neumann && x_high == EdgeCondition::neumann && y_low == EdgeCondition::neumann &&
           y_high == EdgeCondition::neumann;
}

FastDirectSolver::FastDirectSolver(FastDirectOptions options) : options_(options) {
    validate(options_);
    const auto start = std::chrono::steady_clock::now();
    preferred_ = backend_ = options_.backend;
    std::string why;
    const bool usable = preferred_ != BackendKind::cpu && cuda_available(&why);
    if (preferred_ == BackendKind::automatic) {
        preferred_ = backend_ = usable ? BackendKind::cuda : BackendKind::cpu;
        if (backend_ == BackendKind::cpu) notice_ = "note: no usable GPU (" + why + "); running on the CPU backend";
    }
    // The device starts here, as adimg::Solver's does, not in setup(); BackendKind::cuda without
    // a device fails at setup(), where make_cuda_engine says what is missing.
    if (preferred_ == BackendKind::cuda && usable) {
        engine_ = fast_direct::make_cuda_engine();
        engine_backend_ = BackendKind::cuda;
    }
    start_seconds_ = seconds_since(start);
}

FastDirectSolver::~FastDirectSolver() = default;
FastDirectSolver::FastDirectSolver(FastDirectSolver&&) noexcept = default;
FastDirectSolver& FastDirectSolver::operator=(FastDirectSolver&&) noexcept = default;

void FastDirectSolver::setup(const TensorMesh& mesh, const FastDirectEdges& edges) {
    const auto start = std::chrono::steady_clock::now();
    BackendKind backend = preferred_;
    if (!edges.all_dirichlet() && backend == BackendKind::cuda) {
        if (options_.backend == BackendKind::cuda)
            throw input_error("FastDirectSolver::setup: Neumann edges are solved on the CPU only, but "
                              "FastDirectOptions::backend = cuda; use backend = cpu or automatic");
        backend = BackendKind::cpu;
        notice_ = "note: Neumann edges are solved on the CPU; running on the CPU backend";
    }
    case_problem_.reset();
    fast_direct::Plan plan = fast_direct::make_plan(mesh, edges, options_);
    const FastAxis axis = plan.axis;
    const FastTransform transform = plan.transform;
    ready_ = false;
    matrix_.reset();
    if (!engine_ || engine_backend_ != backend) {
        engine_.reset();  // the old engine's memory is free before the new one allocates
        engine_ = backend == BackendKind::cuda ? fast_direct::make_cuda_engine() : fast_direct::make_cpu_engine();
        engine_backend_ = backend;
    }
    // The CPU's defect takes the assembled matrix; the GPU's forms its rows from the widths.
    if (backend == BackendKind::cpu) matrix_ = std::make_shared<const NineBands<double>>(assembled(mesh, edges));
    engine_->setup(std::move(plan), mesh, matrix_);
    ready_ = true;
    backend_ = backend;
    edges_ = edges;
    mesh_ = mesh;
    axis_ = axis;
    transform_ = transform;
    rows_ = mesh.nodes();
    setup_seconds_ = seconds_since(start);
    ++setups_;
}

void FastDirectSolver::setup(const CaseSpec& spec, int level) {
    setup(spec.mesh(level));
    case_problem_ = PolynomialProblem{spec.x.length, spec.y.length};
}

void FastDirectSolver::setup(std::vector<double> widths_x, std::vector<double> widths_y) {
    setup(TensorMesh{Mesh1D{std::move(widths_x)}, Mesh1D{std::move(widths_y)}});
}

FastDirectReport FastDirectSolver::solve(const std::vector<double>& b, std::vector<double>& x,
                                         const StepCallback& on_step) {
    if (ready_ && b.size() != rows_)
        throw input_error("solve: the right-hand side has " + std::to_string(b.size()) + " entries, the mesh " +
                          std::to_string(rows_) + " nodes");
    x.resize(rows_);
    return solve(b.data(), x.data(), InitialGuess::zero, on_step);
}

FastDirectReport FastDirectSolver::solve(const double* b, double* x, InitialGuess guess, const StepCallback& on_step) {
    if (!ready_) throw input_error("solve: call FastDirectSolver::setup() with the mesh before solve()");
    if (!b || !x) throw input_error("solve: b and x must point to the mesh's " + std::to_string(rows_) + " nodes");
    const auto start = std::chrono::steady_clock::now();
    FastDirectReport report = engine_->solve(b, x, guess, options_, on_step);
    report.solve_seconds = seconds_since(start);
    ++solves_;
    return report;
}

FastDirectCaseReport FastDirectSolver::solve_case(std::vector<double>* x, const StepCallback& on_step) {
    if (!ready_ || !case_problem_)
        throw input_error("solve_case: the last setup was not a case's; call setup(case, level) first, or solve(b, x) "
                          "for a right-hand side of your own");
    if (x) x->resize(rows_);
    const auto start = std::chrono::steady_clock::now();
    FastDirectCaseReport out;
    out.report = engine_->solve_problem(mesh_, *case_problem_, x ? x->data() : nullptr, out.relative_l2_error, options_,
                                        on_step);
    out.report.solve_seconds = seconds_since(start);
    ++solves_;
    return out;
}

const NineBands<double>& FastDirectSolver::matrix() const {
    static const NineBands<double> none;
    if (!ready_) return none;
    if (!matrix_) matrix_ = std::make_shared<const NineBands<double>>(assembled(mesh_, edges_));
    return *matrix_;
}

std::string FastDirectSolver::device_name() const { return engine_ ? engine_->device_name() : std::string(); }

std::string FastDirectSolver::method() const {
    if (!ready_) return "not set up";
    const FastAxis lines = axis_ == FastAxis::x ? FastAxis::y : FastAxis::x;
    return std::string(name(transform_)) + " in " + name(axis_) + " (" + engine_->transform_name() + "), lines in " + name(lines) + " by " +
           engine_->line_solver_name();
}

}  // namespace adimg
