#pragma once
// The multigrid V-cycle, written once for every backend and precision (docs/design.md §4), on
// the operations of the backend contract (backend.hpp).

#include <adimg/hierarchy.hpp>
#include <adimg/options.hpp>
#include <adimg/report.hpp>

#include "../problems/mesh_hierarchy.hpp"
#include "backend.hpp"
#include "coarse_solve.hpp"

#include <algorithm>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

namespace adimg {

/// What a level's matrix is made from: the host bands of a Hierarchy, or the mesh of a
/// MeshHierarchy, which the backend assembles.
inline const NineBands<double>& matrix_source(const HostLevel& level) { return level.A; }
inline const TensorMesh& matrix_source(const MeshLevel& level) { return level.mesh; }
/// The coarsest matrix on the host, for the coarse solve's setup (a small grid).
inline const NineBands<double>& coarsest_matrix(const HostLevel& level) { return level.A; }
inline NineBands<double> coarsest_matrix(const MeshLevel& level) { return assemble_stiffness(level.mesh); }
inline std::pair<int, int> grid_of(const HostLevel& level) { return {level.A.mx, level.A.my}; }
inline std::pair<int, int> grid_of(const MeshLevel& level) { return {level.mesh.mx(), level.mesh.my()}; }

/// device = host (the backend's upload) and kept = host, unless kept (what device holds) already
/// equals host: the split positions that a values-only re-setup keeps are not uploaded again.
template <class Backend, class Vector>
void upload_if_changed(Backend& be, const std::vector<double>& host, std::vector<double>& kept, Vector& device) {
    if (host == kept) return;
    be.upload(host, device);
    kept = host;
}

/// The level hierarchy in the backend's memory, in precision T, and the V-cycle on it.
///
/// Each level holds its matrix and its split positions toward the next finer level. The cycles
/// work on a Workspace: per level the vectors x (iterate), b (right-hand side), d (defect) and
/// work (what the smoothers that write out of place may use); the finest level's b and x are the
/// cycle's input and output. The hierarchy has a workspace of one right-hand side, which the
/// calls without one use, and on a backend with make_vectors() (the CUDA one) may make one of
/// several right-hand sides side by side: the same cycle then runs for all of them in the same
/// launches, each level's matrix read once for all (a batch of solves, src/cuda/shared_cycles.cuh).
template <class Backend, class T>
class Multigrid {
public:
    using Vector = typename Backend::template vector<T>;
    using Matrix = typename Backend::template matrix<T>;
    using value_type = T;

    /// A level's vectors, each `columns` vectors of its grid side by side.
    struct LevelVectors {
        Vector x, b, d, work;
    };
    /// The vectors of every level (coarsest first) for `columns` right-hand sides, and the
    /// recordings of the cycles on them (one set per workspace: a recording keeps its buffers).
    struct Workspace {
        int columns = 1;
        std::vector<LevelVectors> levels;
        typename Backend::Recording cycle, full, below_finest;
    };

    /// The levels of `levels`, a Hierarchy (host matrices, copied to the backend) or a
    /// MeshHierarchy (meshes, assembled by the backend where it runs).
    template <class Levels>
    Multigrid(Backend& backend, const Levels& levels, const SolverOptions& options)
        : be_(backend),
          options_(options),
          coarse_(backend, coarsest_matrix(levels.levels.front()), options) {
        for (const auto& source : levels.levels) {
            const auto [mx, my] = grid_of(source);
            levels_.push_back(Level{source.level, mx, my, be_.template make_matrix<T>(matrix_source(source)),
                                    upload(source.split_x), upload(source.split_y), source.split_x, source.split_y});
        }
        add_vectors(one_, [&](int mx, int my) { return be_.template make_vector<T>(mx, my); });
    }

    /// New matrix values for the same grids (levels of the same shape), into the existing
    /// storage: nothing is reallocated. Split positions go up only where they changed (a user's
    /// new values on the same grid keep them): an upload from host memory waits for the work
    /// enqueued before it, so skipping them lets the host go on to the coarse factor while the
    /// device converts the levels.
    template <class Levels>
    void update_values(const Levels& levels) {
        for (std::size_t l = 0; l < levels_.size(); ++l) {
            const auto& source = levels.levels[l];
            Level& level = levels_[l];
            be_.update_values(matrix_source(source), level.A);
            upload_if_changed(be_, source.split_x, level.split_x_host, level.split_x);
            upload_if_changed(be_, source.split_y, level.split_y_host, level.split_y);
        }
        coarse_.update(coarsest_matrix(levels.levels.front()));
    }
    /// True if `levels` has the grids of this hierarchy, so update_values() applies.
    template <class Levels>
    bool same_shape(const Levels& levels) const {
        if (levels.levels.size() != levels_.size()) return false;
        for (std::size_t l = 0; l < levels_.size(); ++l)
            if (grid_of(levels.levels[l]) != std::pair<int, int>(levels_[l].mx, levels_[l].my)) return false;
        return true;
    }

    /// Seconds the last setup or update spent on the coarse solve's factor.
    double coarse_factor_seconds() const { return coarse_.factor_seconds(); }

    const Matrix& finest_matrix() const { return levels_.back().A; }

    /// Whether batch() may be used: the coarsest solve takes several right-hand sides (it is the
    /// direct one).
    bool batches() const { return coarse_.direct(); }
    /// The workspace of one right-hand side, which the calls without a workspace use.
    Workspace& one() { return one_; }
    /// A workspace of `columns` right-hand sides (Backend::make_vectors()), made at the first call
    /// for that many and kept until a call asks for another count.
    Workspace& batch(int columns) {
        if (!batch_ || batch_->columns != columns) {
            batch_.reset();
            auto made = std::make_unique<Workspace>();
            made->columns = columns;
            add_vectors(*made, [&](int mx, int my) { return be_.template make_vectors<T>(mx, my, columns); });
            batch_ = std::move(made);
        }
        return *batch_;
    }

    Vector& rhs(Workspace& w) { return w.levels.back().b; }
    Vector& solution(Workspace& w) { return w.levels.back().x; }
    /// The finest level's d, where defect() leaves b - A x.
    Vector& defect_vector(Workspace& w) { return w.levels.back().d; }
    Vector& rhs() { return rhs(one_); }
    Vector& solution() { return solution(one_); }

    /// One V-cycle on the finest level: x <- x + MG (b - A x). Nothing in it waits for the host
    /// and it uses the same buffers every time, so a backend may record it once and replay it
    /// (the CUDA backend as a graph).
    void cycle(Workspace& w) {
        be_.replay(w.cycle, [this, &w] { v_cycle(w, levels_.size() - 1); });
    }
    void cycle() { cycle(one_); }

    /// Full multigrid on the finest level from x = 0: b restricted to every level, solved on the
    /// coarsest, and on each finer level the solution of the level below, prolongated, improved by
    /// one V-cycle (the last of them the finest level's). It may replace a solve's first V-cycle
    /// (SolverOptions::full_multigrid); replayed like cycle().
    void full_cycle(Workspace& w) {
        be_.replay(w.full, [this, &w] { one_full_cycle(w, true); });
    }
    void full_cycle() { full_cycle(one_); }
    /// Full multigrid up to the level below the finest, whose solution is prolongated into the
    /// finest level's x without a V-cycle there: x = P x_coarse (with one level, x is the
    /// coarsest solve). A mixed solve ends full multigrid with that V-cycle in the outer
    /// precision (refinement.hpp, InnerMultigrid).
    void full_cycle_below_finest(Workspace& w) {
        be_.replay(w.below_finest, [this, &w] { one_full_cycle(w, false); });
    }
    void full_cycle_below_finest() { full_cycle_below_finest(one_); }

    /// d = b - A x on the finest level (defect_vector()).
    void defect(Workspace& w) {
        LevelVectors& f = w.levels.back();
        be_.defect(levels_.back().A, f.b, f.x, f.d);
    }
    /// ||b - A x|| on the finest level, leaving the defect in d.
    double defect_norm() {
        defect(one_);
        return be_.norm2(defect_vector(one_));
    }

    std::vector<LevelInfo> info() const {
        std::vector<LevelInfo> out;
        const long long columns = 1 + (batch_ ? batch_->columns : 0);
        for (const Level& l : levels_) {
            const long long n = static_cast<long long>(l.mx) * l.my;
            out.push_back({l.level, l.mx, l.my,
                           static_cast<long long>(Backend::bytes(l.A)) + 4 * columns * n * static_cast<long long>(sizeof(T))});
        }
        out.front().bytes += coarse_.bytes();
        return out;
    }

private:
    /// One V-cycle on level `top` and below: x <- x + MG (b - A x) there, the levels below start
    /// from zero.
    void v_cycle(Workspace& w, std::size_t top) {
        for (std::size_t l = top; l > 0; --l) {
            Level& level = levels_[l];
            LevelVectors& v = w.levels[l];
            if (l != top) be_.fill(v.x, T(0));
            smooth(level, v, options_.pre_smooth, Phase::pre);
            const Level& coarse = levels_[l - 1];
            be_.restrict_defect(level.A, v.b, v.x, v.d, coarse.split_x, coarse.split_y, w.levels[l - 1].b);
        }
        LevelVectors& coarsest = w.levels.front();
        coarse_.solve(levels_.front().A, coarsest.b, coarsest.x, top != 0);
        for (std::size_t l = 1; l <= top; ++l) {
            prolong_add(w, l);
            smooth(levels_[l], w.levels[l], options_.post_smooth, Phase::post);
        }
    }

    /// Full multigrid from x = 0; `finest_cycle` false leaves out the finest level's V-cycle.
    void one_full_cycle(Workspace& w, bool finest_cycle) {
        const std::size_t finest = levels_.size() - 1;
        for (std::size_t l = finest; l > 0; --l) restrict_to(w, l);
        LevelVectors& coarsest = w.levels.front();
        coarse_.solve(levels_.front().A, coarsest.b, coarsest.x, true);
        for (std::size_t l = 1; l <= finest; ++l) {
            be_.fill(w.levels[l].x, T(0));
            prolong_add(w, l);
            if (l < finest || finest_cycle) v_cycle(w, l);
        }
    }

    struct Level {
        int level, mx, my;
        Matrix A;
        Vector split_x, split_y;
        std::vector<double> split_x_host, split_y_host;  ///< what split_x and split_y hold
    };

    /// Every level's four vectors into w, each from make(mx, my).
    template <class Make>
    void add_vectors(Workspace& w, Make&& make) {
        for (const Level& l : levels_) w.levels.push_back(LevelVectors{make(l.mx, l.my), make(l.mx, l.my), make(l.mx, l.my), make(l.mx, l.my)});
    }

    /// Level l's x += P (level l - 1's x), and level l - 1's b = R (level l's b) (full
    /// multigrid), with the natural edges of the fine level's matrix (the coarse level has the
    /// same).
    void prolong_add(Workspace& w, std::size_t l) {
        const Level& coarse = levels_[l - 1];
        const Level& fine = levels_[l];
        be_.prolong_add(w.levels[l - 1].x, coarse.split_x, coarse.split_y, w.levels[l].x, fine.mx, fine.my, fine.A.natural);
    }
    void restrict_to(Workspace& w, std::size_t l) {
        const Level& coarse = levels_[l - 1];
        const Level& fine = levels_[l];
        be_.restrict_to(w.levels[l].b, fine.mx, fine.my, coarse.split_x, coarse.split_y, w.levels[l - 1].b, fine.A.natural);
    }

    Vector upload(const std::vector<double>& host) {
        Vector v = be_.template make_array<T>(host.size());
        be_.upload(host, v);
        return v;
    }


    /// Before or after the coarse-grid correction: the pre-smoother is the adjoint of the
    /// post-smoother (in the energy inner product), its steps in the reverse order, so that a
    /// cycle with pre_smooth == post_smooth from x = 0 is a symmetric operator and preconditions CG.
    enum class Phase { pre, post };

    /// `steps` smoothing steps in place; an ADI application counts as two steps. Post-smoothing
    /// takes the paper's order (x-lines, then y-lines; Gauss–Seidel colours forward), and
    /// pre-smoothing the same sequence backwards (ending with x-lines; colours in reverse). Jacobi
    /// steps are their own adjoints. (Ending the cycle with y-lines matters on A5: the other way
    /// round, mixed digits:2 needs 17 cycles at L=9 instead of 15.)
    void smooth(const Level& level, LevelVectors& v, int steps, Phase phase) {
        if (steps == 0) return;
        const bool reverse = phase == Phase::pre;
        switch (options_.smoother) {
        case Smoother::jacobi:
            be_.jacobi_steps(level.A, v.b, v.x, v.work, T(options_.omega), steps);
            break;
        case Smoother::gauss_seidel:
            for (int s = 0; s < steps; ++s)
                be_.gauss_seidel(level.A, v.b, v.x, reverse ? SweepOrder::backward : SweepOrder::forward);
            break;
        case Smoother::adi:
            in_place_passes(
                v.x, v.work, steps,
                [&](int s, const Vector& from, Vector& to) {
                    const int in_sequence = reverse ? steps - 1 - s : s;
                    be_.line_relax(level.A, v.b, from, to, in_sequence % 2 == 0 ? Direction::x : Direction::y,
                                   T(options_.line_omega));
                },
                [&](const Vector& from, Vector& to) { be_.copy(from, to); });
            break;
        }
    }

    Backend& be_;
    SolverOptions options_;
    std::vector<Level> levels_;
    CoarseSolve<Backend, T> coarse_;
    Workspace one_;                      ///< one right-hand side
    std::unique_ptr<Workspace> batch_;  ///< several, once batch() made them

public:
    Multigrid(const Multigrid&) = delete;
    Multigrid& operator=(const Multigrid&) = delete;
};

}  // namespace adimg
