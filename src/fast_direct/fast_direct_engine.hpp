#pragma once
// The fast direct solve on one backend: the transform solve x = P b (the backend's Transform)
// inside iterative refinement with the defect in difference form (the backend's Defect, the
// formula of difference_defect.hpp). The loop is written once here for every backend;
// include/adimg/fast_direct.hpp states the method and the stop rule.

#include <adimg/error.hpp>
#include <adimg/fast_direct.hpp>
#include <adimg/solver.hpp>

#include "plan.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace adimg::fast_direct {

/// The CPU engine computes its defects with the assembled matrix, which the solver shares with it.
using SharedBands = std::shared_ptr<const NineBands<double>>;

/// One backend's engine, as FastDirectSolver sees it: the backend started when the engine is
/// made, the plan's transform and defect made by each setup.
class Engine {
public:
    virtual ~Engine() = default;
    /// Frees the previous setup's memory, then makes the transform of `plan` and the defect of
    /// the mesh (the CPU's from the assembled matrix A, the GPU's from the mesh's widths).
    virtual void setup(Plan plan, const TensorMesh& mesh, SharedBands A) = 0;
    /// b and x hold the grid's rows; x receives the solution (b is read before x is written).
    virtual FastDirectReport solve(const double* b, double* x, const FastDirectOptions& options,
                                   const StepCallback& on_step) = 0;
    /// The same for the built-in problem on the mesh of the last setup: b assembled and the
    /// relative L2 error (into `error`) measured where the solve runs; x, if not null, receives
    /// the solution.
    virtual FastDirectReport solve_problem(const TensorMesh& mesh, const PolynomialProblem& problem, double* x,
                                           double& error, const FastDirectOptions& options,
                                           const StepCallback& on_step) = 0;
    virtual std::string device_name() const = 0;
    /// How the transform and the lines are computed, e.g. "FFTW", "Thomas".
    virtual std::string transform_name() const = 0;
    virtual std::string line_solver_name() const = 0;
};

std::unique_ptr<Engine> make_cpu_engine();
/// The CUDA engine: its backend (the device, its stream, the staging buffers) starts here.
/// Dirichlet edges only. Throws device_error when this build has no CUDA or no device is usable.
std::unique_ptr<Engine> make_cuda_engine();

/// The engine of a backend (src/cpu/cpu_backend.hpp, src/cuda/cuda_backend.cuh: vectors, norm2,
/// axpy, upload, download, assemble_load, relative_l2_error), its Transform, constructed from the backend and the plan, which
/// applies out = P in on backend vectors of all the grid's rows, and its Defect, constructed from
/// the backend, the mesh and the assembled matrix (which it may ignore), which computes
/// d = b - A x by difference_defect().
template <class Backend, class Transform, class Defect>
class BackendEngine final : public Engine {
public:
    BackendEngine() = default;
    /// A backend that is made from arguments (the distributed one, from its ranks).
    explicit BackendEngine(Backend backend) : be_(std::move(backend)) {}

    void setup(Plan plan, const TensorMesh& mesh, SharedBands A) override {
        transform_.reset();
        defect_.reset();
        for (auto* v : {&b_, &x_, &d_, &c_, &ones_, &weights_}) *v = {};
        const std::size_t rows = plan.rows();
        b_ = be_.template make_vector<double>(rows);
        x_ = be_.template make_vector<double>(rows);
        d_ = be_.template make_vector<double>(rows);
        c_ = be_.template make_vector<double>(rows);
        singular_ = plan.singular;
        node_weights_ = plan.node_weights;
        weight_sum_ = 0.0;
        if (singular_) {
            ones_ = be_.template make_vector<double>(rows);
            be_.fill(ones_, 1.0);
            weights_ = be_.template make_vector<double>(rows);
            be_.upload(node_weights_, weights_);
            for (double w : node_weights_) weight_sum_ += w;
        }
        transform_.emplace(be_, std::move(plan));
        defect_.emplace(be_, mesh, std::move(A));
    }

    FastDirectReport solve(const double* b, double* x, const FastDirectOptions& options,
                           const StepCallback& on_step) override {
        auto load = [&] { be_.upload(b, b_.size(), b_); };
        auto finish = [&] { be_.download(x_, x); };
        return solve_with(load, finish, options, on_step);
    }

    FastDirectReport solve_problem(const TensorMesh& mesh, const PolynomialProblem& problem, double* x, double& error,
                                   const FastDirectOptions& options, const StepCallback& on_step) override {
        auto load = [&] { be_.assemble_load(mesh, problem, b_); };
        auto finish = [&] {
            error = be_.relative_l2_error(mesh, problem, x_);
            if (x) be_.download(x_, x);
        };
        return solve_with(load, finish, options, on_step);
    }

    std::string device_name() const override { return be_.name(); }
    std::string transform_name() const override { return transform_->transform_name(); }
    std::string line_solver_name() const override { return transform_->line_solver_name(); }

private:
    /// The solve of solve() and solve_problem(): load() fills b_, the transform solve and the
    /// refinement follow, finish() takes x_. Their times are the report's upload and download.
    template <class Load, class Finish>
    FastDirectReport solve_with(Load&& load, Finish&& finish, const FastDirectOptions& options,
                                const StepCallback& on_step) {
        using clock = std::chrono::steady_clock;
        auto since = [](clock::time_point t) { return std::chrono::duration<double>(clock::now() - t).count(); };
        FastDirectReport report;
        const auto loading = clock::now();
        load();
        report.upload_seconds = since(loading);
        if (singular_) balance(options);
        refine(options, on_step, report);
        const auto finishing = clock::now();
        finish();
        report.download_seconds = since(finishing);
        return report;
    }

    double defect() {
        (*defect_)(b_, x_, d_);
        return be_.norm2(d_);
    }

    /// Neumann on all four edges: A's kernel is the constants, so A x = b has a solution only for
    /// sum_p b_p = 0. Checks that b is within the stop criterion of that, and removes its mean.
    void balance(const FastDirectOptions& options) {
        const double n = static_cast<double>(b_.size()), sum = be_.dot(ones_, b_), b_norm = be_.norm2(b_);
        const double along = std::abs(sum) / std::sqrt(n), allowed = std::pow(10.0, -options.digits) * b_norm;
        if (!(along <= allowed))
            throw input_error("solve: with Neumann conditions on all four edges the right-hand side must sum to zero "
                              "(∫ f + ∮ g = 0), but its part along the constants, |sum b| / sqrt(N) = " + shown(along) +
                              ", is above 10^-digits ||b|| = " + shown(allowed) +
                              "; subtract the mean of f, or balance the boundary fluxes");
        be_.axpy(-sum / n, ones_, b_);
    }

    /// out = P in; with A singular, the solution of mean zero (∫ u_h = 0: the node weights are ∫ φ_p).
    void transform(const typename Backend::template vector<double>& in, typename Backend::template vector<double>& out) {
        transform_->apply(in, out);
        if (singular_) be_.axpy(-be_.dot(weights_, out) / weight_sum_, ones_, out);
    }

    /// x = P b, then x += P (b - A x) while the defect is above the stop criterion or fewer than
    /// min_refinements steps were taken, at most max_refinements times. A step that leaves the
    /// defect neither smaller nor within the criterion is undone.
    void refine(const FastDirectOptions& options, const StepCallback& on_step, FastDirectReport& report) {
        const double b_norm = be_.norm2(b_);
        const double target = std::pow(10.0, -options.digits) * b_norm;
        report.initial_defect = b_norm;
        double defect_now = b_norm;
        auto record = [&](double defect_after) {
            OuterStep step;
            step.defect = defect_after;
            step.rate = defect_now > 0.0 ? defect_after / defect_now : 0.0;
            report.history.push_back(step);
            ++report.outer_iterations;
            if (on_step) on_step(report.history.back());
        };
        transform(b_, x_);
        const double first = defect();
        record(first);
        defect_now = report.first_defect = first;
        while (std::isfinite(defect_now) && (defect_now > target || report.refinement_steps < options.min_refinements) &&
               report.refinement_steps < options.max_refinements) {
            transform(d_, c_);
            be_.axpy(1.0, c_, x_);
            const double next = defect();
            ++report.refinement_steps;
            record(next);
            // A step asked for by min_refinements may leave the defect at its rounding floor,
            // neither smaller nor larger in norm, and still correct x's smooth error.
            if (next < defect_now || next <= target) {
                defect_now = next;
                continue;
            }
            be_.axpy(-1.0, c_, x_);  // undone: x is the best iterate
            if (defect_now <= target) break;
            report.status = std::isfinite(next) ? SolveStatus::stagnated : SolveStatus::non_finite;
            report.message = "iterative refinement step " + std::to_string(report.refinement_steps) +
                             " did not reduce the defect (" + shown(defect_now) + " to " + shown(next) +
                             "), which stays above the stop criterion " + shown(target) +
                             " (10^-digits ||b||): the transform's accuracy on this mesh is the limit; solve with "
                             "adimg::Solver (multigrid) instead";
            report.final_defect = defect_now;
            return;
        }
        report.final_defect = defect_now;
        if (!std::isfinite(defect_now)) {
            report.status = SolveStatus::non_finite;
            report.message = "the defect is not finite (" + shown(defect_now) +
                             "): b holds values that are not finite, or values so large that the solution overflows";
        } else if (defect_now > target) {
            report.status = SolveStatus::max_iterations;
            report.message = "after FastDirectOptions::max_refinements = " + std::to_string(options.max_refinements) +
                             " refinement steps the defect is " + shown(defect_now) + ", above the stop criterion " +
                             shown(target) + " (10^-digits ||b||); allow more steps";
        }
    }

    static std::string shown(double v) {
        char text[32];
        std::snprintf(text, sizeof text, "%.3e", v);
        return text;
    }

    Backend be_;
    typename Backend::template vector<double> b_, x_, d_, c_;
    bool singular_ = false;             ///< Plan::singular
    std::vector<double> node_weights_;  ///< Plan::node_weights
    typename Backend::template vector<double> ones_, weights_;  ///< singular only: 1 and ∫ φ_p on every node
    double weight_sum_ = 0.0;
    std::optional<Transform> transform_;  ///< of the last setup
    std::optional<Defect> defect_;
};

}  // namespace adimg::fast_direct
