#pragma once
// The generic solver engine: the hierarchy in a backend's memory, the choice of precisions and
// the refinement loop around it. Each backend instantiates Engine<ItsBackend> once
// (make_cpu_engine, make_cuda_engine); adimg::Solver talks to it through SolverEngine.

#include <adimg/error.hpp>
#include <adimg/solver.hpp>

#include "multigrid.hpp"
#include "refinement.hpp"

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <type_traits>
#include <variant>
#include <utility>

namespace adimg {

/// Where a solve writes its solution. `make_room`, if set, is called once b is on the device
/// and may start making room while the solve runs (Solver::solve for vectors sizes x on
/// another thread); `get` is called when the iteration is done and returns room for the
/// matrix's rows.
struct SolutionDestination {
    std::function<void()> make_room;
    std::function<double*()> get;
};

/// The generic solver for one backend, as adimg::Solver sees it.
class SolverEngine {
public:
    virtual ~SolverEngine() = default;
    virtual void setup(const Hierarchy& hierarchy) = 0;
    /// The levels of a built-in or case-file problem, assembled where the solve runs.
    virtual void setup(const MeshHierarchy& meshes) = 0;
    /// b and the initial guess (nullptr: zero) hold the matrix's rows.
    virtual SolveReport solve(const double* b, const double* guess, const SolutionDestination& x,
                              const StepCallback& on_step) = 0;
    virtual std::vector<LevelInfo> levels() const = 0;
    virtual std::string device_name() const = 0;
    /// How many setups allocated storage; a setup with the grids of the previous one only
    /// copies the new values.
    virtual int allocations() const = 0;
    /// Seconds the last setup spent making the coarsest grid's direct solve ready.
    virtual double coarse_factor_seconds() const = 0;
};

std::unique_ptr<SolverEngine> make_cpu_engine(const SolverOptions& options);
/// Throws device_error when this build has no CUDA or no device is usable.
std::unique_ptr<SolverEngine> make_cuda_engine(const SolverOptions& options);

template <class Backend>
class Engine final : public SolverEngine {
public:
    template <class... Args>
    explicit Engine(const SolverOptions& options, Args&&... backend_args)
        : options_(options), be_(std::forward<Args>(backend_args)...) {
        // With one precision throughout, refinement is plain multigrid: one V-cycle per step.
        if (options_.precision != Precision::mixed) options_.inner = {InnerStop::Kind::cycles, 1};
    }

    void setup(const Hierarchy& hierarchy) override { setup_levels(hierarchy); }
    void setup(const MeshHierarchy& meshes) override { setup_levels(meshes); }

    SolveReport solve(const double* b, const double* guess, const SolutionDestination& x,
                      const StepCallback& on_step) override {
        SolveReport report;
        switch (options_.precision) {
        case Precision::double_:
            run(*outer_double_, mg_double_->finest_matrix(), *mg_double_, b, guess, x, on_step, report, false);
            break;
        case Precision::single:
            run(*outer_float_, mg_float_->finest_matrix(), *mg_float_, b, guess, x, on_step, report, false);
            break;
        case Precision::mixed:
            run(*outer_double_, *A_double_, *mg_float_, b, guess, x, on_step, report, options_.fallback_to_double);
            break;
        }
        return report;
    }

    std::vector<LevelInfo> levels() const override {
        std::vector<LevelInfo> out = mg_float_ ? mg_float_->info() : mg_double_->info();
        const long long outer_bytes = outer_double_ ? outer_double_->bytes() : 0;
        // The finest level also carries the outer loop's double matrix and vectors and the
        // backend's workspace (measured after a solve, it includes what the sweeps allocated).
        out.back().bytes += (A_double_ ? static_cast<long long>(Backend::bytes(*A_double_)) : 0) + outer_bytes +
                            static_cast<long long>(be_.workspace_bytes());
        return out;
    }

    std::string device_name() const override { return be_.name(); }
    int allocations() const override { return allocations_; }
    double coarse_factor_seconds() const override {
        return (mg_float_ ? mg_float_->coarse_factor_seconds() : 0.0) + (mg_double_ ? mg_double_->coarse_factor_seconds() : 0.0);
    }

private:
    /// The levels of a Hierarchy or a MeshHierarchy (multigrid.hpp) on the backend: new storage,
    /// or new values in the storage of the last setup if the grids are the same.
    template <class Levels>
    void setup_levels(const Levels& levels) {
        if (same_shape(levels)) {
            update_values(levels);
            return;
        }
        mg_float_.reset();
        mg_double_.reset();
        A_double_.reset();
        fallback_levels_ = {};
        switch (options_.precision) {
        case Precision::double_:
            mg_double_.emplace(be_, levels, options_);
            break;
        case Precision::single:
            mg_float_.emplace(be_, levels, options_);
            break;
        case Precision::mixed:
            mg_float_.emplace(be_, levels, options_);
            A_double_.emplace(be_.template make_matrix<double>(matrix_source(levels.finest())));
            // The double hierarchy of a fallback is built only when a solve needs it.
            if (options_.fallback_to_double) fallback_levels_ = levels;
            break;
        }
        ++allocations_;
        const auto [mx, my] = grid_of(levels.finest());
        const std::size_t n = static_cast<std::size_t>(mx) * my;
        if (options_.precision == Precision::single)
            outer_float_.emplace(be_, n);
        else
            outer_double_.emplace(be_, n);
    }

    template <class Levels>
    bool same_shape(const Levels& levels) const {
        if (mg_float_) return mg_float_->same_shape(levels);
        if (mg_double_) return mg_double_->same_shape(levels);
        return false;
    }

    /// Same grids, new values: copied into the existing device storage.
    template <class Levels>
    void update_values(const Levels& levels) {
        if (mg_float_) mg_float_->update_values(levels);
        if (mg_double_) mg_double_->update_values(levels);
        if (A_double_) be_.update_values(matrix_source(levels.finest()), *A_double_);
        if (options_.precision == Precision::mixed && options_.fallback_to_double) fallback_levels_ = levels;
    }

    /// The fallback of a mixed solve: double inner cycles on a double hierarchy built when first
    /// needed. Available only where the outer loop is double.
    template <class Outer>
    struct DoubleInner {
        Engine* engine;
        bool enabled;
        bool available() const { return enabled; }
        template <class Apply>
        bool operator()(const typename Backend::template vector<Outer>& d, double norm, OuterStep& step, Apply&& apply) {
            if constexpr (std::is_same_v<Outer, double>) {
                if (!engine->mg_double_)
                    std::visit(
                        [&](const auto& levels) {
                            if constexpr (!std::is_same_v<std::decay_t<decltype(levels)>, std::monostate>)
                                engine->mg_double_.emplace(engine->be_, levels, engine->options_);
                        },
                        engine->fallback_levels_);
                InnerMultigrid<Backend, double, double> exact(engine->be_, *engine->mg_double_, engine->options_);
                return exact.correct(d, norm, step, apply);
            } else {
                return false;
            }
        }
    };

    /// b, x, the next iterate and d of the outer loop, in its precision.
    template <class T>
    struct OuterVectors {
        typename Backend::template vector<T> b, x, x_next, d;
        OuterVectors(Backend& be, std::size_t n)
            : b(be.template make_vector<T>(n)),
              x(be.template make_vector<T>(n)),
              x_next(be.template make_vector<T>(n)),
              d(be.template make_vector<T>(n)) {}
        static constexpr int count = 4;
        long long bytes() const { return count * static_cast<long long>(b.size() * sizeof(T)); }
    };

    template <class Outer, class Inner>
    void run(OuterVectors<Outer>& v, const typename Backend::template matrix<Outer>& A, Multigrid<Backend, Inner>& mg,
             const double* b, const double* guess, const SolutionDestination& x, const StepCallback& on_step,
             SolveReport& report, bool may_fall_back) {
        using clock = std::chrono::steady_clock;
        const auto start = clock::now();
        be_.upload(b, v.b.size(), v.b);
        if (guess)
            be_.upload(guess, v.x.size(), v.x);
        else
            be_.fill(v.x, Outer(0));
        report.upload_seconds = std::chrono::duration<double>(clock::now() - start).count();
        if (x.make_room) x.make_room();
        InnerMultigrid<Backend, Outer, Inner> inner(be_, mg, options_);
        auto inner_step = [&](auto&&... args) { return inner.correct(std::forward<decltype(args)>(args)...); };
        DoubleInner<Outer> fallback{this, may_fall_back};
        refine<Backend, Outer>(be_, A, v.b, v.x, v.x_next, v.d, !guess, inner_step, fallback, options_, on_step, report);
        double* solution = x.get();
        const auto downloading = clock::now();
        be_.download(v.x, solution);
        report.download_seconds = std::chrono::duration<double>(clock::now() - downloading).count();
    }

    SolverOptions options_;
    Backend be_;
    std::optional<Multigrid<Backend, float>> mg_float_;
    std::optional<Multigrid<Backend, double>> mg_double_;
    std::optional<typename Backend::template matrix<double>> A_double_;
    std::optional<OuterVectors<double>> outer_double_;
    std::optional<OuterVectors<float>> outer_float_;
    /// What a mixed solve's fallback builds its double hierarchy from, when it first needs it: a
    /// copy of the host hierarchy, or just the meshes.
    std::variant<std::monostate, Hierarchy, MeshHierarchy> fallback_levels_;
    int allocations_ = 0;  ///< setups that allocated device storage (the rest only updated values)
};

}  // namespace adimg
