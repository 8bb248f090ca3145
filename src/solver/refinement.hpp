#pragma once
// Iterative refinement (paper Sec. 2.5) and the inner multigrid that every outer method uses,
// written once for every backend and precision pair.

#include <adimg/options.hpp>
#include <adimg/report.hpp>
#include <adimg/solver.hpp>

#include "multigrid.hpp"
#include "outer_loop.hpp"

#include <cmath>
#include <type_traits>
#include <utility>

namespace adimg {

/// What the inner solver of a mixed solve needs to end full multigrid in the outer precision:
/// the outer matrix and two vectors of the finest grid (the engine's).
template <class Backend, class Outer>
struct OuterFinish {
    const typename Backend::template matrix<Outer>* A = nullptr;  ///< none: full multigrid stays inner
    typename Backend::template vector<Outer>* start = nullptr;
    typename Backend::template vector<Outer>* defect = nullptr;
};

/// The inner solver of the refinement loop: V-cycles in precision Inner on the scaled defect.
///
/// Given the outer defect d with norm ||d||, it sets the inner right-hand side to d / ||d|| (so
/// float neither underflows nor overflows, docs/design.md §5), runs V-cycles from zero until the
/// inner stopping rule holds (the first of them a full multigrid cycle if the outer loop marks
/// the step so), and hands the correction c to `apply(||d||, c)`, which adds
/// ||d|| c to the outer iterate (and computes the next defect) and says whether that is finite.
///
/// Full multigrid from zero solves for the whole solution, as large as u itself: rounded to a
/// float correction it would leave a defect of about eps_float * cond(A) of the start (U3 at
/// L = 11: 2.5e-2, where double full multigrid reaches 9.6e-5 and this finish 1.2e-4). With an
/// OuterFinish, full multigrid therefore stops at the level below the finest; its prolongated
/// solution becomes the start s in the outer precision, and the finest level's V-cycle corrects
/// s from its defect d - A s computed in that precision, as many cycles as the inner rule asks.
/// The correction handed over is s plus what those cycles add.
///
/// `Cycles` is the Multigrid (its workspace of one right-hand side), or one right-hand side of
/// a batch whose cycles run for all of them at once (src/cuda/shared_cycles.cuh): whatever has
/// rhs(), solution(), cycle(), full_cycle(), full_cycle_below_finest() and defect_norm().
template <class Backend, class Outer, class Cycles>
class InnerMultigrid {
public:
    using Inner = typename Cycles::value_type;
    InnerMultigrid(Backend& backend, Cycles& mg, const SolverOptions& options, OuterFinish<Backend, Outer> finish = {})
        : be_(backend), mg_(mg), options_(options), finish_(finish) {}

    /// Returns false if the inner defects or the applied correction are not finite.
    template <class Apply>
    bool correct(const typename Backend::template vector<Outer>& d, double d_norm, OuterStep& step, Apply&& apply) {
        be_.scale_convert(1.0 / d_norm, d, mg_.rhs());
        if (step.full_multigrid && finish_.A) return full_multigrid_in_outer(d, d_norm, step, apply);
        be_.fill(mg_.solution(), Inner(0));
        double previous = 1.0;
        for (int c = 0; c < max_cycles(); ++c) {
            if (c == 0 && step.full_multigrid)
                mg_.full_cycle();
            else
                mg_.cycle();
            ++step.inner_cycles;
            if (!by_digits()) continue;
            const Next next = after_cycle(mg_.defect_norm(), previous, step);
            if (next == Next::failed) return false;
            if (next == Next::done) break;
        }
        return apply(d_norm, mg_.solution());
    }

private:
    static constexpr double inner_stall_ratio = 0.5;

    bool by_digits() const { return options_.inner.kind == InnerStop::Kind::digits; }
    int max_cycles() const { return by_digits() ? options_.inner_max_cycles : options_.inner.count; }

    enum class Next { cycle, done, failed };
    /// After a cycle in digits mode: records the relative inner defect and says whether to cycle
    /// on. Done when the inner rule is met (the inner rhs has norm 1), or when a cycle no longer
    /// halves the defect: then it has met the precision floor of the inner arithmetic (in float
    /// the defect of a fine grid cannot be resolved below about eps * cond, at L = 12 of order 1),
    /// and further cycles would only burn time up to the cap (the paper's Table 4 shows such
    /// stalls).
    Next after_cycle(double relative, double& previous, OuterStep& step) const {
        step.inner_defects.push_back(relative);
        if (!std::isfinite(relative)) return Next::failed;
        if (relative <= std::pow(10.0, -options_.inner.count)) return Next::done;
        if (relative > inner_stall_ratio * previous) return Next::done;
        previous = relative;
        return Next::cycle;
    }

    /// Full multigrid ended in the outer precision (see the class comment); mg_.rhs() holds
    /// d / ||d||. The finest level's cycles correct the start s from its defect d - A s in the
    /// outer precision, as many as the inner rule asks (the first is full multigrid's last); each
    /// takes that defect scaled by 1 / ||d|| (its norm falls to about 1e-4, well inside float's
    /// range, and no norm has to come to the host first). On a grid with one level, full
    /// multigrid is the coarsest solve, and the finest cycle solves its defect exactly.
    template <class Apply>
    bool full_multigrid_in_outer(const typename Backend::template vector<Outer>& d, double d_norm, OuterStep& step,
                                 Apply&& apply) {
        auto& start = *finish_.start;
        auto& defect = *finish_.defect;
        mg_.full_cycle_below_finest();
        be_.scale_convert(d_norm, mg_.solution(), start);
        be_.defect(*finish_.A, d, start, defect);
        double previous = 1.0;
        for (int c = 0; c < max_cycles(); ++c) {
            be_.scale_convert(1.0 / d_norm, defect, mg_.rhs());
            be_.fill(mg_.solution(), Inner(0));
            mg_.cycle();
            ++step.inner_cycles;
            be_.axpy(d_norm, mg_.solution(), start);
            if (!by_digits() && c + 1 == max_cycles()) break;
            be_.defect(*finish_.A, d, start, defect);
            if (!by_digits()) continue;
            const Next next = after_cycle(be_.norm2(defect) / d_norm, previous, step);
            if (next == Next::failed) return false;
            if (next == Next::done) break;
        }
        return apply(1.0, start);
    }

    Backend& be_;
    Cycles& mg_;
    const SolverOptions& options_;
    OuterFinish<Backend, Outer> finish_;
};


/// One step of iterative refinement (paper Sec. 2.5), the method of outer_loop(): the inner
/// solver's correction c of the defect d, x_next = x + ||d|| c and its defect in one pass (the
/// terms' update_defect_norm()), and x_next becomes x if that defect is finite.
template <class Backend, class Outer, class Matrix, class Inner, class Fallback, class Terms>
class Refinement {
public:
    using Vector = typename Backend::template vector<Outer>;
    Refinement(Backend& be, Matrix& A, const Vector& b, Vector& x, Vector& x_next, Vector& d, Inner& inner,
               Fallback& fallback, const Terms& terms)
        : be_(be), A_(A), b_(b), x_(x), x_next_(x_next), d_(d), inner_(inner), fallback_(fallback), terms_(terms) {}

    bool step(double norm, bool use_fallback, OuterStep& step, double& next) {
        auto apply = [&](double alpha, const auto& c) {
            next = terms_.update_defect_norm(be_, A_, b_, x_, alpha, c, x_next_, d_);
            return std::isfinite(next);
        };
        const bool finite = use_fallback ? fallback_(d_, norm, step, apply) : inner_(d_, norm, step, apply);
        if (finite) std::swap(x_, x_next_);
        return finite;
    }
    void restart() {}
    double confirmed(double next) const { return next; }  // d is b - A x, computed

private:
    Backend& be_;
    Matrix& A_;
    const Vector& b_;
    Vector &x_, &x_next_, &d_;
    Inner& inner_;
    Fallback& fallback_;
    const Terms& terms_;
};

/// The fallback of a solve that has none (fallback.available() is false, so it is never called).
struct NoFallback {
    bool available() const { return false; }
    template <class... Arguments>
    bool operator()(Arguments&&...) const { return false; }
};

/// Iterative refinement: outer_loop() with Refinement steps. `inner` is called as
/// inner(d, ||d||, step, apply) -> bool and hands its correction c to apply(alpha, c), which
/// writes x + alpha c to `x_next` and its defect to d in one pass; `fallback` (if available(),
/// e.g. double inner cycles for a mixed solve) takes over when the inner solve produces
/// non-finite values or the loop stagnates. The inner solve is the V-cycles (InnerMultigrid) with
/// MultigridTerms, or the fast direct solver's transform solve with its own terms. Returns what
/// outer_loop() hands back.
template <class Backend, class Outer, class Matrix, class Inner, class Fallback, class Terms = MultigridTerms>
Answer refine(Backend& be, Matrix& A, const typename Backend::template vector<Outer>& b,
              typename Backend::template vector<Outer>& x, typename Backend::template vector<Outer>& x_next,
              typename Backend::template vector<Outer>& d, bool zero_guess, Inner&& inner, Fallback&& fallback,
              const SolverOptions& options, const StepCallback& on_step, SolveReport& report,
              const Terms& terms = {}) {
    Refinement<Backend, Outer, Matrix, std::remove_reference_t<Inner>, std::remove_reference_t<Fallback>, Terms> method(
        be, A, b, x, x_next, d, inner, fallback, terms);
    return outer_loop<Backend, Outer>(be, A, b, x, d, zero_guess, method, fallback.available(), options, on_step,
                                      report, terms);
}

}  // namespace adimg
