#pragma once
// The fast direct solve on one backend: the transform solve x = P b (the backend's Transform) as
// the inner solve of the one refinement loop (refine(), src/solver/refinement.hpp), with the
// defect in difference form (the backend's Defect, the formula of difference_defect.hpp) and the
// fast direct solver's terms (fast_direct_terms.hpp); include/adimg/fast_direct.hpp states the
// method and the stop rule.

#include <adimg/error.hpp>
#include <adimg/fast_direct.hpp>
#include <adimg/solver.hpp>

#include "../common/seconds_since.hpp"
#include "../solver/refinement.hpp"
#include "fast_direct_terms.hpp"
#include "plan.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
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
class FastDirectEngine {
public:
    virtual ~FastDirectEngine() = default;
    /// Frees the previous setup's memory, then makes the transform of `plan` and the defect of
    /// the mesh (the CPU's from the assembled matrix A, the GPU's from the mesh's widths).
    virtual void setup(Plan plan, const TensorMesh& mesh, SharedBands A) = 0;
    /// b and x hold the grid's rows; x receives the solution (b is read before x is written), and
    /// with InitialGuess::given holds the initial guess, which stays if it is the answer.
    virtual FastDirectReport solve(const double* b, double* x, InitialGuess guess, const FastDirectOptions& options,
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

std::unique_ptr<FastDirectEngine> make_cpu_engine();
/// The CUDA engine: its backend (the device, its stream, the staging buffers) starts here.
/// Dirichlet edges only. Throws device_error when this build has no CUDA or no device is usable.
std::unique_ptr<FastDirectEngine> make_cuda_engine();

/// The engine of a backend (src/cpu/cpu_backend.hpp, src/cuda/cuda_backend.cuh: vectors, norm2,
/// axpy, upload, download, assemble_load, relative_l2_error), its Transform, constructed from the backend and the plan, which
/// applies out = P in on backend vectors of all the grid's rows, and its Defect, constructed from
/// the backend, the mesh and the assembled matrix (which it may ignore), which computes
/// d = b - A x by difference_defect().
template <class Backend, class Transform, class Defect>
class BackendFastDirectEngine final : public FastDirectEngine {
    using Vector = typename Backend::template vector<double>;

public:
    BackendFastDirectEngine() = default;
    /// A backend that is made from arguments (the distributed one, from its ranks), in place: a
    /// GPU rank's backend does not move.
    template <class... Args>
    explicit BackendFastDirectEngine(std::in_place_t, Args&&... args) : be_(std::forward<Args>(args)...) {}

    void setup(Plan plan, const TensorMesh& mesh, SharedBands A) override {
        transform_.reset();
        defect_.reset();
        for (auto* v : {&b_, &x_, &x_next_, &d_, &c_, &ones_, &weights_}) *v = {};
        for (auto* v : {&b_, &x_, &x_next_, &d_, &c_}) *v = be_.template make_vector<double>(plan.mx, plan.my);
        singular_ = plan.singular;
        node_weights_ = plan.node_weights;
        weight_sum_ = 0.0;
        if (singular_) {
            ones_ = be_.template make_vector<double>(plan.mx, plan.my);
            be_.fill(ones_, 1.0);
            weights_ = be_.template make_vector<double>(plan.mx, plan.my);
            be_.upload(node_weights_, weights_);
            for (double w : node_weights_) weight_sum_ += w;
        }
        transform_.emplace(be_, std::move(plan));
        defect_.emplace(be_, mesh, std::move(A));
    }

    FastDirectReport solve(const double* b, double* x, InitialGuess guess, const FastDirectOptions& options,
                           const StepCallback& on_step) override {
        const bool zero_guess = guess == InitialGuess::zero;
        auto load = [&] {
            be_.upload(b, b_.size(), b_);
            if (zero_guess)
                be_.fill(x_, 0.0);
            else
                be_.upload(x, x_.size(), x_);
        };
        // A given guess that is the answer is in x already.
        auto finish = [&](Answer answer) {
            if (answer == Answer::iterate) be_.download(x_, x);
        };
        return solve_with(load, zero_guess, finish, options, on_step);
    }

    FastDirectReport solve_problem(const TensorMesh& mesh, const PolynomialProblem& problem, double* x, double& error,
                                   const FastDirectOptions& options, const StepCallback& on_step) override {
        auto load = [&] {
            be_.assemble_load(mesh, problem, b_);
            be_.fill(x_, 0.0);
        };
        auto finish = [&](Answer) {  // from a zero guess x is always the answer
            error = be_.relative_l2_error(mesh, problem, x_);
            if (x) be_.download(x_, x);
        };
        return solve_with(load, true, finish, options, on_step);
    }

    std::string device_name() const override { return be_.name(); }
    std::string transform_name() const override { return transform_->transform_name(); }
    std::string line_solver_name() const override { return transform_->line_solver_name(); }

private:
    /// The solve of solve() and solve_problem(): load() fills b_ and x_, the refinement loop
    /// follows, finish(answer) takes x_ (or leaves the guess). Their times are the report's upload
    /// and download.
    template <class Load, class Finish>
    FastDirectReport solve_with(Load&& load, bool zero_guess, Finish&& finish, const FastDirectOptions& options,
                                const StepCallback& on_step) {
        FastDirectReport report;
        const auto loading = std::chrono::steady_clock::now();
        load();
        report.upload_seconds = seconds_since(loading);
        if (singular_) balance(options);
        const Answer answer = refine_transform_solves(zero_guess, options, on_step, report);
        const auto finishing = std::chrono::steady_clock::now();
        finish(answer);
        report.download_seconds = seconds_since(finishing);
        return report;
    }

    /// The transform solve as the inner solve of refine(): x += P d, the first step from the
    /// guess, then while the defect is above the stop criterion (10^-digits ||b||) or fewer than
    /// min_refinements steps were taken, at most max_refinements times (FastDirectTerms).
    Answer refine_transform_solves(bool zero_guess, const FastDirectOptions& options, const StepCallback& on_step,
                                   FastDirectReport& report) {
        auto transform_solve = [&](const Vector& d, double, OuterStep&, auto&& apply) {
            transform(d, c_);
            return apply(1.0, c_);
        };
        const FastDirectTerms terms(options);
        const Answer answer = refine<Backend, double>(be_, *defect_, b_, x_, x_next_, d_, zero_guess, transform_solve,
                                                      NoFallback{}, outer_options(options), on_step, report, terms);
        report.refinement_steps = std::max(report.outer_iterations - 1, 0);
        report.first_defect = report.history.empty() ? report.initial_defect : report.history.front().defect;
        return answer;
    }

    /// Neumann on all four edges: A's kernel is the constants, so A x = b has a solution only for
    /// sum_p b_p = 0. Checks that b is within the stop criterion of that, and removes its mean.
    void balance(const FastDirectOptions& options) {
        const double n = static_cast<double>(b_.size()), sum = be_.dot(ones_, b_), b_norm = be_.norm2(b_);
        const double along = std::abs(sum) / std::sqrt(n), allowed = std::pow(10.0, -options.digits) * b_norm;
        if (!(along <= allowed))
            throw input_error("solve: with Neumann conditions on all four edges the right-hand side must sum to zero "
                              "(∫ f + ∮ g = 0), but its part along the constants, |sum b| / sqrt(N) = " + scientific(along) +
                              ", is above 10^-digits ||b|| = " + scientific(allowed) +
                              "; subtract the mean of f, or balance the boundary fluxes");
        be_.axpy(-sum / n, ones_, b_);
    }

    /// out = P in; with A singular, the solution of mean zero (∫ u_h = 0: the node weights are ∫ φ_p).
    void transform(const Vector& in, Vector& out) {
        transform_->apply(in, out);
        if (singular_) be_.axpy(-be_.dot(weights_, out) / weight_sum_, ones_, out);
    }

    Backend be_;
    Vector b_, x_, x_next_, d_, c_;
    bool singular_ = false;             ///< Plan::singular
    std::vector<double> node_weights_;  ///< Plan::node_weights
    Vector ones_, weights_;  ///< singular only: 1 and ∫ φ_p on every node
    double weight_sum_ = 0.0;
    std::optional<Transform> transform_;  ///< of the last setup
    std::optional<Defect> defect_;
};

}  // namespace adimg::fast_direct
