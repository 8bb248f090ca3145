#pragma once
// The multigrid V-cycle, written once for every backend and precision (docs/design.md §4), on
// the operations of the backend contract (backend.hpp).

#include <adimg/hierarchy.hpp>
#include <adimg/options.hpp>
#include <adimg/report.hpp>

#include "backend.hpp"
#include "coarse_solve.hpp"

#include <algorithm>
#include <utility>
#include <vector>

namespace adimg {

/// The level hierarchy in the backend's memory, in precision T, and the V-cycle on it.
///
/// Each level holds its matrix, its split positions toward the next finer level, and the vectors
/// x (iterate), b (right-hand side), d (defect) and work (what the smoothers that write out of
/// place may use). The finest level's b and x are the cycle's input and output.
template <class Backend, class T>
class Multigrid {
public:
    using Vector = typename Backend::template vector<T>;
    using Matrix = typename Backend::template matrix<T>;

    Multigrid(Backend& backend, const Hierarchy& hierarchy, const SolverOptions& options)
        : be_(backend),
          options_(options),
          coarse_(backend, hierarchy.levels.front().A, options) {
        for (const HostLevel& host : hierarchy.levels) {
            const std::size_t n = host.A.rows();
            levels_.push_back(Level{host.level, host.A.mx, host.A.my, be_.template make_matrix<T>(host.A),
                                    upload(host.split_x), upload(host.split_y), be_.template make_vector<T>(n),
                                    be_.template make_vector<T>(n), be_.template make_vector<T>(n),
                                    be_.template make_vector<T>(n)});
        }
    }

    /// New matrix values for the same grids (a hierarchy of the same shape), into the existing
    /// storage: nothing is reallocated.
    void update_values(const Hierarchy& hierarchy) {
        for (std::size_t l = 0; l < levels_.size(); ++l) {
            const HostLevel& host = hierarchy.levels[l];
            be_.update_values(host.A, levels_[l].A);
            be_.upload(host.split_x, levels_[l].split_x);
            be_.upload(host.split_y, levels_[l].split_y);
        }
        coarse_.update(hierarchy.levels.front().A);
    }
    /// True if `hierarchy` has the grids of this one, so update_values() applies.
    bool same_shape(const Hierarchy& hierarchy) const {
        if (hierarchy.levels.size() != levels_.size()) return false;
        for (std::size_t l = 0; l < levels_.size(); ++l)
            if (hierarchy.levels[l].A.mx != levels_[l].mx || hierarchy.levels[l].A.my != levels_[l].my) return false;
        return true;
    }

    Vector& rhs() { return levels_.back().b; }
    Vector& solution() { return levels_.back().x; }
    const Matrix& finest_matrix() const { return levels_.back().A; }

    /// One V-cycle on the finest level: x <- x + MG (b - A x). Nothing in it waits for the host
    /// and it uses the same buffers every time, so a backend may record it once and replay it
    /// (the CUDA backend as a graph).
    void cycle() {
        be_.replay(recording_, [this] { one_cycle(); });
    }

    /// ||b - A x|| on the finest level, leaving the defect in d.
    double defect_norm() {
        Level& f = levels_.back();
        be_.defect(f.A, f.b, f.x, f.d);
        return be_.norm2(f.d);
    }

    std::vector<LevelInfo> info() const {
        std::vector<LevelInfo> out;
        for (const Level& l : levels_) {
            const long long n = static_cast<long long>(l.mx) * l.my;
            out.push_back({l.level, l.mx, l.my,
                           static_cast<long long>(Backend::bytes(l.A)) + 4 * n * static_cast<long long>(sizeof(T))});
        }
        out.front().bytes += coarse_.bytes();
        return out;
    }

private:
    void one_cycle() {
        const std::size_t finest = levels_.size() - 1;
        for (std::size_t l = finest; l > 0; --l) {
            Level& level = levels_[l];
            if (l != finest) be_.fill(level.x, T(0));
            smooth(level, options_.pre_smooth);
            Level& coarse = levels_[l - 1];
            be_.restrict_defect(level.A, level.b, level.x, level.d, coarse.split_x, coarse.split_y, coarse.b);
        }
        Level& coarsest = levels_.front();
        coarse_.solve(coarsest.A, coarsest.b, coarsest.x, finest != 0);
        for (std::size_t l = 1; l <= finest; ++l) {
            Level& level = levels_[l];
            const Level& coarse = levels_[l - 1];
            be_.prolong_add(coarse.x, coarse.split_x, coarse.split_y, level.x, level.mx, level.my);
            smooth(level, options_.post_smooth);
        }
    }

    struct Level {
        int level, mx, my;
        Matrix A;
        Vector split_x, split_y;
        Vector x, b, d, work;
    };

    Vector upload(const std::vector<double>& host) {
        Vector v = be_.template make_vector<T>(host.size());
        be_.upload(host, v);
        return v;
    }

    /// `steps` smoothing steps in place; an ADI application (x-lines, then y-lines) counts as two.
    void smooth(Level& level, int steps) {
        if (steps == 0) return;
        switch (options_.smoother) {
        case Smoother::jacobi:
            be_.jacobi_steps(level.A, level.b, level.x, level.work, T(options_.omega), steps);
            break;
        case Smoother::gauss_seidel:
            for (int s = 0; s < steps; ++s) be_.gauss_seidel(level.A, level.b, level.x);
            break;
        case Smoother::adi:  // x-lines first, then alternating
            in_place_passes(
                level.x, level.work, steps,
                [&](int s, const Vector& from, Vector& to) {
                    be_.line_relax(level.A, level.b, from, to, s % 2 == 0 ? Direction::x : Direction::y,
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
    typename Backend::Recording recording_;  ///< the cycle as the backend replays it

public:
    Multigrid(const Multigrid&) = delete;
    Multigrid& operator=(const Multigrid&) = delete;
};

}  // namespace adimg
