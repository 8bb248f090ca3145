#pragma once
// The generic solver engine: the hierarchy in a backend's memory, the choice of precisions and
// the refinement loop around it. Each backend instantiates Engine<ItsBackend> once
// (make_cpu_engine, make_cuda_engine); adimg::Solver talks to it through SolverEngine.

#include <adimg/device.hpp>
#include <adimg/error.hpp>
#include <adimg/problems.hpp>
#include <adimg/solver.hpp>

#include "../common/seconds_since.hpp"
#include "galerkin_levels.hpp"
#include "multigrid.hpp"
#include "outer_solve.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
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

/// Throws device_error: device memory needs the CUDA backend.
[[noreturn]] inline void throw_no_resident_memory() {
    throw device_error("data in device memory needs the CUDA backend (SolverOptions::backend = cuda); this solver "
                       "runs on the CPU: pass host arrays to solve() and precondition(), or a GridMatrix to setup()");
}

/// The generic solver for one backend, as adimg::Solver sees it.
class SolverEngine {
public:
    virtual ~SolverEngine() = default;
    virtual void setup(const Hierarchy& hierarchy) = 0;
    /// The levels of a built-in or case-file problem, assembled where the solve runs.
    virtual void setup(const MeshHierarchy& meshes) = 0;
    /// A user's matrix: its coarse levels formed as Galerkin products where the solve runs.
    virtual void setup(const GalerkinSource& source) = 0;
    /// b and the initial guess (nullptr: zero) hold the matrix's rows.
    virtual SolveReport solve(const double* b, const double* guess, const SolutionDestination& x,
                              const StepCallback& on_step) = 0;
    /// The built-in problem on `mesh` (the finest mesh of the last setup) from a zero guess, its
    /// load vector assembled and its relative L2 error measured where the solve runs: `error`
    /// receives the error, and x (unless nullptr) the solution.
    virtual SolveReport solve_problem(const TensorMesh& mesh, const PolynomialProblem& problem, double* x, double& error,
                                      const StepCallback& on_step) = 0;
    /// z = M r: one V-cycle from zero applied as a linear operator (Solver::precondition).
    virtual void precondition(const double* r, double* z) = 0;
    virtual std::vector<LevelInfo> levels() const = 0;
    virtual std::string device_name() const = 0;
    /// How many setups allocated storage; a setup with the grids of the previous one only
    /// copies the new values.
    virtual int allocations() const = 0;
    /// Seconds the last setup spent making the coarsest grid's direct solve ready.
    virtual double coarse_factor_seconds() const = 0;
    /// Seconds of the last setup spent copying host matrices to the backend: a user's finest
    /// bands, or every level of a given Hierarchy (0 for a case, assembled where the solve runs).
    virtual double upload_seconds() const = 0;

    // Data in device memory (Solver::solve_device and the like); only the CUDA engine
    // (src/cuda/resident_engine.cu) holds it, the others throw device_error saying so.
    /// A user's matrix whose finest bands (band-major, rows of source.finest's grid) are in device
    /// memory; source.finest holds the grid's sizes and natural edges, not the values.
    virtual void setup_resident(const GalerkinSource& source, const double* finest_values);
    /// How b of `rows` rows becomes the solver's right-hand side (GridMatrix::rhs_map()), for the
    /// solves on device memory, which apply it there; after every setup (empty for a case or a
    /// hierarchy).
    virtual void set_rhs_map(const RightHandSideMap&, std::size_t /*rows*/) {}
    /// Solves for `count` right-hand sides b + c n into x + c n (n rows each), all in device
    /// memory, in order after the work enqueued on `stream` so far and before any enqueued on it
    /// later; x holds the guesses unless zero_guess. One report per right-hand side.
    virtual std::vector<SolveReport> solve_resident(const double* b, double* x, int count, bool zero_guess,
                                                    DeviceStream stream, const StepCallback& on_step);
    /// z = M r (precondition()) on device memory.
    virtual void precondition_resident(const double* r, double* z, DeviceStream stream);
};

inline void SolverEngine::setup_resident(const GalerkinSource&, const double*) { throw_no_resident_memory(); }
inline std::vector<SolveReport> SolverEngine::solve_resident(const double*, double*, int, bool, DeviceStream,
                                                             const StepCallback&) {
    throw_no_resident_memory();
}
inline void SolverEngine::precondition_resident(const double*, double*, DeviceStream) { throw_no_resident_memory(); }

std::unique_ptr<SolverEngine> make_cpu_engine(const SolverOptions& options);
/// Throws device_error when this build has no CUDA or no device is usable.
std::unique_ptr<SolverEngine> make_cuda_engine(const SolverOptions& options);
/// The memory of the current GPU. Throws device_error when this build has no CUDA or no device
/// is usable.
MemoryBudget cuda_device_memory();

/// What a setup and solve hold per node of the finest grid, about: the float hierarchy (9 bands
/// and 4 vectors, 4/3 of the finest level with the coarse ones), the double finest matrix and the
/// outer loop's 6 double vectors, and the line solves' workspace. What setups check against the
/// memory before they allocate (check_memory()).
inline constexpr double solve_bytes_per_node = 176.0;

template <class Backend>
class Engine : public SolverEngine {
public:
    /// `options` as they run (effective_options(): the solvers resolve them once, before).
    template <class... Args>
    explicit Engine(const SolverOptions& options, Args&&... backend_args)
        : options_(options), be_(std::forward<Args>(backend_args)...) {}

    void setup(const Hierarchy& hierarchy) override {
        forget_galerkin();
        const auto start = std::chrono::steady_clock::now();
        setup_levels(hierarchy);
        upload_seconds_ = seconds_since(start) - coarse_factor_seconds();  // every level is a copy
    }
    void setup(const MeshHierarchy& meshes) override {
        forget_galerkin();
        upload_seconds_ = 0.0;
        if (options_.precision == Precision::mixed && !same_shape(meshes))
            build_mixed(meshes);
        else
            setup_levels(meshes);
    }
    void setup(const GalerkinSource& source) override {
        setup_galerkin(
            source, [&] { return be_.template make_matrix<double>(*source.finest); },
            [&](DoubleMatrix& finest) { be_.update_values(*source.finest, finest); });
    }

    SolveReport solve(const double* b, const double* guess, const SolutionDestination& x,
                      const StepCallback& on_step) override {
        auto load = [&](auto& v) {
            be_.upload(b, v.b.size(), v.b);
            if (guess)
                be_.upload(guess, v.x.size(), v.x);
            else
                be_.fill(v.x, typename std::decay_t<decltype(v)>::value_type(0));
            if (x.make_room) x.make_room();
        };
        // The answer: the iterate, or a given guess where no iterate improved on it (outer_loop();
        // never for a zero guess, which is x), which stays as given, to the last bit (a float
        // solve holds only its rounding).
        auto finish = [&](const auto& solution, Answer answer) {
            double* out = x.get();
            if (answer == Answer::iterate)
                be_.download(solution, out);
            else if (out != guess)
                std::copy(guess, guess + solution.size(), out);
        };
        return solve_with(load, !guess, finish, on_step);
    }

    SolveReport solve_problem(const TensorMesh& mesh, const PolynomialProblem& problem, double* x, double& error,
                              const StepCallback& on_step) override {
        auto load = [&](auto& v) {
            be_.assemble_load(mesh, problem, v.b);
            be_.fill(v.x, typename std::decay_t<decltype(v)>::value_type(0));
        };
        auto finish = [&](const auto& solution, Answer) {  // from a zero guess x is always the answer
            error = be_.relative_l2_error(mesh, problem, solution);
            if (x) be_.download(solution, x);
        };
        return solve_with(load, true, finish, on_step);
    }

    void precondition(const double* r, double* z) override {
        precondition_with([&](auto& d) { be_.upload(r, d.size(), d); }, [&](const auto& result) { be_.download(result, z); });
    }

    std::vector<LevelInfo> levels() const override {
        std::vector<LevelInfo> out = mg_float_ ? mg_float_->info() : mg_double_->info();
        const long long outer_bytes = outer_double_ ? outer_double_->bytes() : 0;
        // The finest level also carries the outer loop's double matrix and vectors and the
        // backend's workspace (measured after a solve, it includes what the sweeps allocated);
        // each level of a user's matrix, its double Galerkin matrix.
        out.back().bytes += (A_double_ ? static_cast<long long>(Backend::bytes(*A_double_)) : 0) + outer_bytes +
                            static_cast<long long>(be_.workspace_bytes());
        for (std::size_t l = 0; l < galerkin_.size() && l < out.size(); ++l)
            out[l].bytes += static_cast<long long>(Backend::bytes(galerkin_[l]));
        return out;
    }

    std::string device_name() const override { return be_.name(); }
    int allocations() const override { return allocations_; }
    double coarse_factor_seconds() const override {
        return (mg_float_ ? mg_float_->coarse_factor_seconds() : 0.0) + (mg_double_ ? mg_double_->coarse_factor_seconds() : 0.0);
    }
    double upload_seconds() const override { return upload_seconds_; }

protected:
    using DoubleMatrix = typename Backend::template matrix<double>;

    /// A user's matrix: its finest level from make_finest() (new storage) or update_finest(M)
    /// (new values into the storage of the last setup, whose grids `source` has), its coarse
    /// levels as Galerkin products on the backend.
    template <class MakeFinest, class UpdateFinest>
    void setup_galerkin(const GalerkinSource& source, MakeFinest&& make_finest, UpdateFinest&& update_finest) {
        const auto start = std::chrono::steady_clock::now();
        if (!same_galerkin_grids(source)) {
            forget_galerkin();
            for (int l = 0; l + 1 < source.levels(); ++l) {
                galerkin_split_x_.push_back(be_.template make_array<double>(source.split_x[l].size()));
                galerkin_split_y_.push_back(be_.template make_array<double>(source.split_y[l].size()));
                galerkin_split_x_host_.emplace_back();  // nothing uploaded yet
                galerkin_split_y_host_.emplace_back();
                galerkin_.push_back(be_.template make_matrix<double>(source.grids[l].first, source.grids[l].second));
            }
            galerkin_.push_back(make_finest());
        } else {
            update_finest(galerkin_.back());
        }
        upload_seconds_ = seconds_since(start);  // both return once the bands are on the backend
        // Every level's split positions first (an upload returns once copied; a values-only
        // re-setup keeps them and uploads none), then the products, which a device runs back to
        // back, the host not waiting between them.
        for (int l = 0; l + 1 < source.levels(); ++l) {
            upload_if_changed(be_, source.split_x[l], galerkin_split_x_host_[l], galerkin_split_x_[l]);
            upload_if_changed(be_, source.split_y[l], galerkin_split_y_host_[l], galerkin_split_y_[l]);
        }
        for (int l = source.levels() - 2; l >= 0; --l)
            be_.galerkin_coarse(galerkin_[l + 1], galerkin_split_x_[l], galerkin_split_y_[l], galerkin_[l]);
        BackendLevels<DoubleMatrix> levels;
        for (int l = 0; l < source.levels(); ++l) {
            BackendLevel<DoubleMatrix> level{source.coarsest_level + l, &galerkin_[l], {}, {}, {}};
            if (l + 1 < source.levels()) {
                level.split_x = source.split_x[l];
                level.split_y = source.split_y[l];
            }
            levels.levels.push_back(std::move(level));
        }
        be_.download(galerkin_.front(), levels.levels.front().host);
        setup_levels(levels);
    }

    /// The solve of solve() and solve_problem() in the precisions of the options: load(v) fills
    /// the outer loop's b and x, finish(x, answer) takes the solution (Answer: x or the guess).
    template <class Load, class Finish>
    SolveReport solve_with(Load&& load, bool zero_guess, Finish&& finish, const StepCallback& on_step) {
        SolveReport report;
        with_precisions([&](auto& outer, const auto& A, auto& mg, bool may_fall_back) {
            run(outer, A, mg, load, zero_guess, finish, on_step, report, may_fall_back);
        });
        return report;
    }

    /// f(outer vectors, outer matrix, inner multigrid, may fall back) as the precisions of the
    /// options take them: double, float, or the double outer loop around float cycles with the
    /// fallback to double ones.
    template <class F>
    void with_precisions(F&& f) {
        switch (options_.precision) {
        case Precision::double_: f(*outer_double_, mg_double_->finest_matrix(), *mg_double_, false); break;
        case Precision::single: f(*outer_float_, mg_float_->finest_matrix(), *mg_float_, false); break;
        case Precision::mixed: f(*outer_double_, *finest_double_, *mg_float_, options_.fallback_to_double); break;
        }
    }

    /// Drops the Galerkin levels of a user's matrix, and the levels made from them.
    void forget_galerkin() {
        if (galerkin_.empty()) return;
        mg_float_.reset();
        mg_double_.reset();
        finest_double_ = nullptr;
        fallback_levels_ = {};
        galerkin_.clear();
        galerkin_split_x_.clear();
        galerkin_split_y_.clear();
        galerkin_split_x_host_.clear();
        galerkin_split_y_host_.clear();
    }

    /// True if `source` has the grids of the Galerkin levels of the last setup.
    bool same_galerkin_grids(const GalerkinSource& source) const {
        if (galerkin_.empty() || static_cast<int>(galerkin_.size()) != source.levels()) return false;
        if (galerkin_.back().mx != source.finest->mx || galerkin_.back().my != source.finest->my) return false;
        for (int l = 0; l + 1 < source.levels(); ++l)
            if (galerkin_[l].mx != source.grids[l].first || galerkin_[l].my != source.grids[l].second ||
                galerkin_split_x_[l].size() != source.split_x[l].size() ||
                galerkin_split_y_[l].size() != source.split_y[l].size())
                return false;
        return true;
    }

    /// The levels of a Hierarchy, a MeshHierarchy or BackendLevels (multigrid.hpp) on the backend:
    /// new storage, or new values in the storage of the last setup if the grids are the same.
    template <class Levels>
    void setup_levels(const Levels& levels) {
        if (same_shape(levels)) {
            update_values(levels);
            return;
        }
        mg_float_.reset();
        mg_double_.reset();
        A_double_.reset();
        finest_double_ = nullptr;
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
            finest_double_ = finest_double_matrix(levels);
            // The double hierarchy of a fallback is built only when a solve needs it.
            if (options_.fallback_to_double) fallback_levels_ = levels;
            break;
        }
        allocate_outer(levels);
    }

    /// A mixed solve's levels from meshes, each assembled once, in double: the float levels are
    /// converted from them and the finest stays for the outer loop (assembling the finest level
    /// in each precision would assemble it twice).
    void build_mixed(const MeshHierarchy& meshes) {
        mg_float_.reset();
        mg_double_.reset();
        fallback_levels_ = {};
        A_double_.emplace(be_.template make_matrix<double>(meshes.finest().mesh));
        finest_double_ = &*A_double_;
        std::vector<DoubleMatrix> coarse;
        coarse.reserve(meshes.levels.size() - 1);
        BackendLevels<DoubleMatrix> levels;
        for (std::size_t l = 0; l < meshes.levels.size(); ++l) {
            const MeshLevel& mesh = meshes.levels[l];
            if (l + 1 < meshes.levels.size()) coarse.push_back(be_.template make_matrix<double>(mesh.mesh));
            levels.levels.push_back({mesh.level, l + 1 < meshes.levels.size() ? &coarse.back() : finest_double_,
                                     mesh.split_x, mesh.split_y, {}});
        }
        be_.download(*levels.levels.front().A, levels.levels.front().host);
        mg_float_.emplace(be_, levels, options_);
        // The double hierarchy of a fallback is assembled from the meshes when a solve needs it.
        if (options_.fallback_to_double) fallback_levels_ = meshes;
        allocate_outer(meshes);
    }

    /// The outer loop's vectors for the finest grid of `levels`; counts the allocation.
    template <class Levels>
    void allocate_outer(const Levels& levels) {
        ++allocations_;
        const auto [mx, my] = grid_of(levels.finest());
        if (options_.precision == Precision::single)
            outer_float_.emplace(be_, mx, my, false);
        else
            outer_double_.emplace(be_, mx, my, options_.precision == Precision::mixed && options_.full_multigrid);
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

    /// The outer loop's double matrix of a mixed solve: the finest Galerkin level itself, or a
    /// double copy of the finest level.
    template <class Levels>
    const DoubleMatrix* finest_double_matrix(const Levels& levels) {
        if constexpr (std::is_same_v<Levels, BackendLevels<DoubleMatrix>>) {
            return levels.finest().A;
        } else {
            A_double_.emplace(be_.template make_matrix<double>(matrix_source(levels.finest())));
            return &*A_double_;
        }
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
                InnerMultigrid<Backend, double, Multigrid<Backend, double>> exact(engine->be_, *engine->mg_double_,
                                                                                  engine->options_);
                return exact.correct(d, norm, step, apply);
            } else {
                return false;
            }
        }
    };

    /// b, x, the next iterate and d of the outer loop, in its precision, and where a mixed solve
    /// ends full multigrid in it (OuterFinish) the start and its defect.
    template <class T>
    struct OuterVectors {
        using value_type = T;
        using Vector = typename Backend::template vector<T>;
        Vector b, x, x_next, d;
        std::optional<Vector> finish_start, finish_defect;
        KrylovVectors<Backend, T> krylov;  ///< CG's directions, made at the first CG solve
        OuterVectors(Backend& be, int mx, int my, bool finishes_full_multigrid)
            : b(be.template make_vector<T>(mx, my)),
              x(be.template make_vector<T>(mx, my)),
              x_next(be.template make_vector<T>(mx, my)),
              d(be.template make_vector<T>(mx, my)) {
            if (finishes_full_multigrid) {
                finish_start.emplace(be.template make_vector<T>(mx, my));
                finish_defect.emplace(be.template make_vector<T>(mx, my));
            }
        }
        long long bytes() const {
            const int count = finish_start ? 6 : 4;
            return count * static_cast<long long>(b.size() * sizeof(T)) + krylov.bytes();
        }
        OuterFinish<Backend, T> finish(const typename Backend::template matrix<T>& A) {
            if (!finish_start) return {};
            return {&A, &*finish_start, &*finish_defect};
        }
    };

    /// The solve of solve_with() on the outer vectors v and matrix A, with the inner cycles of
    /// `mg` (a Multigrid, or one right-hand side of a batch: InnerMultigrid) and A's products and
    /// defects by `terms` (MultigridTerms, or a batch's, which shares them).
    template <class Outer, class Cycles, class Load, class Finish, class Terms = MultigridTerms>
    void run(OuterVectors<Outer>& v, const typename Backend::template matrix<Outer>& A, Cycles& mg, Load&& load,
             bool zero_guess, Finish&& finish, const StepCallback& on_step, SolveReport& report, bool may_fall_back,
             const Terms& terms = {}) {
        using clock = std::chrono::steady_clock;
        const auto start = clock::now();
        load(v);
        report.upload_seconds = std::chrono::duration<double>(clock::now() - start).count();
        InnerMultigrid<Backend, Outer, Cycles> inner(be_, mg, options_, v.finish(A));
        auto inner_step = [&](auto&&... args) { return inner.correct(std::forward<decltype(args)>(args)...); };
        DoubleInner<Outer> fallback{this, may_fall_back};
        const Answer answer = outer_solve<Backend, Outer>(be_, A, v.b, v.x, v.x_next, v.d, zero_guess, inner_step,
                                                          fallback, options_, on_step, report, v.krylov, terms);
        const auto finishing = clock::now();
        finish(v.x, answer);
        report.download_seconds = std::chrono::duration<double>(clock::now() - finishing).count();
    }

    /// z = M r in the precisions of the options: load(d) puts r into the outer loop's vector d,
    /// store(z) takes the result.
    template <class Load, class Store>
    void precondition_with(Load&& load, Store&& store) {
        switch (options_.precision) {
        case Precision::double_: apply_cycle(*outer_double_, *mg_double_, load, store); break;
        case Precision::single: apply_cycle(*outer_float_, *mg_float_, load, store); break;
        case Precision::mixed: apply_cycle(*outer_double_, *mg_float_, load, store); break;
        }
    }

    /// z = M r: r scaled by a power of two near 1/||r|| (exact in double; it keeps float in
    /// range), one V-cycle from zero in the inner precision, the result scaled back; z = 0 for
    /// r = 0. Throws input_error if r is not finite.
    template <class Outer, class Inner, class Load, class Store>
    void apply_cycle(OuterVectors<Outer>& v, Multigrid<Backend, Inner>& mg, Load&& load, Store&& store) {
        load(v.d);
        const double norm = be_.norm2(v.d);
        if (!std::isfinite(norm))
            throw input_error("precondition: the vector r has entries that are not finite (or its norm overflows "
                              "double); pass the finite defect of your iteration");
        if (norm == 0.0) {
            be_.fill(v.x_next, Outer(0));
        } else {
            const double scale = std::ldexp(1.0, -std::ilogb(norm));
            be_.scale_convert(scale, v.d, mg.rhs());
            be_.fill(mg.solution(), Inner(0));
            mg.cycle();
            be_.scale_convert(1.0 / scale, mg.solution(), v.x_next);
        }
        store(v.x_next);
    }

    SolverOptions options_;
    Backend be_;
    std::optional<Multigrid<Backend, float>> mg_float_;
    std::optional<Multigrid<Backend, double>> mg_double_;
    std::optional<DoubleMatrix> A_double_;  ///< the finest level in double for a mixed solve, unless galerkin_ holds it
    const DoubleMatrix* finest_double_ = nullptr;  ///< the outer loop's matrix of a mixed solve
    /// A user's matrix and its Galerkin products in double, coarsest first, with the split
    /// positions that made them: the source of the levels of every precision.
    std::vector<DoubleMatrix> galerkin_;
    std::vector<typename Backend::template vector<double>> galerkin_split_x_, galerkin_split_y_;
    std::vector<std::vector<double>> galerkin_split_x_host_, galerkin_split_y_host_;  ///< what those hold
    std::optional<OuterVectors<double>> outer_double_;
    std::optional<OuterVectors<float>> outer_float_;
    /// What a mixed solve's fallback builds its double hierarchy from, when it first needs it: a
    /// copy of the host hierarchy, or just the meshes.
    std::variant<std::monostate, Hierarchy, MeshHierarchy, BackendLevels<DoubleMatrix>> fallback_levels_;
    int allocations_ = 0;  ///< setups that allocated device storage (the rest only updated values)
    double upload_seconds_ = 0.0;  ///< of the last setup (upload_seconds())
};

}  // namespace adimg
