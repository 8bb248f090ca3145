#pragma once
// The outer iteration's loop and its safeguards (docs/design.md §5), written once for every outer
// method (refinement.hpp, flexible_cg.hpp), backend and precision pair, and for both solvers that
// refine: multigrid (MultigridTerms) and the fast direct solver (src/fast_direct/fast_direct_terms.hpp).

#include <adimg/error.hpp>
#include <adimg/options.hpp>
#include <adimg/report.hpp>
#include <adimg/solver.hpp>

#include "outer_messages.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

namespace adimg {

/// The defect norm at which a solve has converged (SolverOptions::stop): 10^-digits of ||b||, the
/// defect of the zero guess, whatever the guess (docs/design.md §5), or the absolute bound.
inline double stop_target(const SolverOptions& options, double b_norm) {
    return options.stop == StopRule::absolute ? options.absolute_defect : std::pow(10.0, -options.digits) * b_norm;
}

/// What a solve hands back: its last iterate x, or the guess it was given, where no iterate
/// improved on it (x = 0 for a zero guess is set in x itself).
enum class Answer { iterate, guess };

/// A failure's message in two parts: what happened, and what to try.
struct Failure {
    std::string happened, advice;
};

/// What outer_loop() takes from the solver it serves besides the steps (the "terms"): how it
/// forms a defect (and flexible CG its product), the fewest outer steps it takes, what counts as
/// progress, and the wording of its failures. These are multigrid's: the defect and product of a
/// backend matrix (Backend::defect, multiply and update_defect_norm), no minimum, 1% per step as
/// progress, and advice about the V-cycles (outer_messages.hpp). The fast direct solver brings
/// its own (FastDirectTerms); a batch's right-hand sides share their products (BatchTerms,
/// src/cuda/shared_cycles.cuh).
struct MultigridTerms {
    /// d = b - A x.
    template <class Backend, class Matrix, class Vector>
    void defect(Backend& be, Matrix& A, const Vector& b, const Vector& x, Vector& d) const {
        be.defect(A, b, x, d);
    }
    /// y = A x.
    template <class Backend, class Matrix, class Vector>
    void multiply(Backend& be, const Matrix& A, const Vector& x, Vector& y) const {
        be.multiply(A, x, y);
    }
    /// x_next = x + alpha c and d = b - A x_next; returns ||d||.
    template <class Backend, class Matrix, class Vector, class Correction>
    double update_defect_norm(Backend& be, Matrix& A, const Vector& b, const Vector& x, double alpha,
                              const Correction& c, Vector& x_next, Vector& d) const {
        return be.update_defect_norm(A, b, x, alpha, c, x_next, d);
    }
    /// Outer steps taken even where the stop target is met before.
    int min_steps() const { return 0; }
    /// A step makes progress when it takes the defect below this share of the best one yet.
    double progress_ratio() const { return 0.99; }

    Failure at_cap(const SolverOptions& o, const SolveReport& report) const {
        return {"no convergence within " + std::to_string(o.max_iterations) +
                    " outer iterations (SolverOptions::max_iterations) " + outer_messages::progress(report, o),
                outer_messages::cap_hint(o, report)};
    }
    Failure non_finite(const SolverOptions& o, const SolveReport& report, bool use_fallback) const {
        const std::string blowup = outer_messages::smoother_hint(o, outer_messages::Trouble::blowup);
        const bool in_double = use_fallback || o.precision == Precision::double_;
        return {std::string(use_fallback                         ? "the double inner solve (after the fallback)"
                            : o.precision == Precision::double_ ? "the inner solve"
                                                                : "the float inner solve") +
                    " produced non-finite values at outer iteration " + std::to_string(report.outer_iterations) +
                    (in_double ? ": the smoother diverges on this problem" : ": float overflowed or the smoother diverges"),
                in_double ? blowup
                          : std::string(o.precision == Precision::single
                                            ? "use SolverOptions::precision = mixed or double, or "
                                            : "set SolverOptions::fallback_to_double = true or use "
                                              "SolverOptions::precision = double, or ") +
                                blowup};
    }
    std::string diverged(const SolverOptions& o) const {
        return outer_messages::smoother_hint(o, outer_messages::Trouble::blowup);
    }
    Failure stagnated(const SolverOptions& o, const SolveReport& report, bool use_fallback,
                      bool fallback_available) const {
        return {"no progress over " + std::to_string(o.stall_steps) + " outer iterations " +
                    outer_messages::progress(report, o) + (use_fallback ? " (" + report.message + ")" : std::string()),
                outer_messages::stagnation_cause(o, use_fallback, fallback_available, report.digits_reached())};
    }
};

/// The outer loop: d = b - A x (x = 0 if `zero_guess`); then outer steps until ||d|| reaches the
/// stop target (stop_target()), and at least terms.min_steps() of them. A guess that meets the
/// target already is the answer. The loop
/// watches for non-finite values, divergence and stagnation and reports each as a status with
/// what to try, and switches a mixed solve to double inner cycles (`fallback_available`) when the
/// float inner solve produces non-finite values or stalls. A solve that fails hands back the
/// better of its last iterate and its guess, and report.final_defect is the defect of what it
/// hands back. `terms` (MultigridTerms) forms the defects of A and words the failures;
/// report.target_defect is set before the first step.
///
/// `method` makes the steps:
///   step(norm, use_fallback, step, next) -> bool   one outer step from x, whose defect d has norm
///       `norm`, with the inner cycles (or the fallback's double cycles if use_fallback); on true x
///       and d hold the new iterate and its defect, of finite norm `next`; on false (non-finite
///       values) x is still the last finite iterate
///   restart()            x and d were set from outside (after a fallback): start afresh from them
///   confirmed(next)      the defect norm to trust when `next` meets the stop target (a method
///                        whose d is a recurrence recomputes b - A x into d here)
template <class Backend, class Outer, class Method, class Matrix, class Terms = MultigridTerms>
Answer outer_loop(Backend& be, Matrix& A, const typename Backend::template vector<Outer>& b,
                  typename Backend::template vector<Outer>& x, typename Backend::template vector<Outer>& d,
                  bool zero_guess, Method& method, bool fallback_available, const SolverOptions& options,
                  const StepCallback& on_step, SolveReport& report, const Terms& terms = {}) {
    // From a zero guess the defect is b itself, exactly: a copy (2 words a node) instead of a
    // pass over the matrix (12), one work unit less per solve.
    if (zero_guess)
        be.copy(b, d);
    else
        terms.defect(be, A, b, x, d);
    double norm = be.norm2(d);
    const double b_norm = zero_guess ? norm : be.norm2(b);
    report.initial_defect = report.final_defect = norm;
    report.rhs_norm = b_norm;
    report.stop_rule = options.stop;
    // The guess as the answer: a given one stays where the caller holds it; the zero guess is x.
    const Answer the_guess = zero_guess ? Answer::iterate : Answer::guess;
    if (!std::isfinite(norm) || !std::isfinite(b_norm)) {
        report.status = SolveStatus::non_finite;
        report.message = "the initial defect is not finite: check the right-hand side and the initial guess";
        return the_guess;
    }
    if (b_norm > 0.0 && b_norm < std::numeric_limits<double>::min())
        throw input_error(outer_messages::subnormal_rhs(b_norm));
    const double target = stop_target(options, b_norm);
    report.target_defect = target;
    if (norm <= target) return the_guess;  // converged: the guess meets the stop
    if (b_norm == 0.0) {
        // b = 0: x = 0 is the solution (of zero mean, too, for a pure Neumann matrix).
        be.fill(x, Outer(0));
        be.fill(d, Outer(0));
        report.final_defect = 0.0;
        return Answer::iterate;
    }
    // A failure: its status, what happened and what to try; unless x shows that the matrix is
    // not positive definite (x^T A x = x^T b - x^T d <= 0 for the last finite iterate), which no
    // setting of the cycle can mend, and then the advice says so. Then the answer: the last
    // iterate, or the guess if the iterate's defect is larger (or not finite).
    auto fail = [&](SolveStatus status, const Failure& failure) {
        report.status = status;
        report.message = failure.happened + "; " + failure.advice;
        terms.defect(be, A, b, x, d);  // after a rejected step, or in CG's recurrence, d may not be the defect of x
        report.final_defect = be.norm2(d);
        const double xb = be.dot(x, b), xd = be.dot(x, d);
        const double curvature = xb - xd, scale = std::abs(xb) + std::abs(xd);
        if (std::isfinite(curvature) && std::isfinite(scale) && scale > 0.0 &&
            curvature <= outer_messages::curvature_tolerance(status) * scale)
            report.message = failure.happened + "; " + outer_messages::indefinite_matrix(curvature, xb);
        if (report.final_defect <= report.initial_defect) return Answer::iterate;
        report.final_defect = report.initial_defect;
        report.message += outer_messages::guess_returned(zero_guess);
        if (zero_guess) be.fill(x, Outer(0));
        return the_guess;
    };
    // Divergence counts from the larger of the guess's defect and ||b||: a good guess may lose
    // digits in a step without the iteration diverging.
    const double reference = std::max(norm, b_norm);
    double best = norm;
    int steps_since_progress = 0;
    bool use_fallback = false;
    auto switch_to_fallback = [&](const char* why) {
        if (use_fallback || !fallback_available) return false;
        use_fallback = true;
        report.fell_back_to_double = true;
        report.message = std::string("the float inner solve ") + why + " at outer iteration " +
                         std::to_string(report.outer_iterations) + "; continued with double inner cycles";
        steps_since_progress = 0;
        return true;
    };
    while (norm > target || report.outer_iterations < terms.min_steps()) {
        if (report.outer_iterations >= options.max_iterations)
            return fail(SolveStatus::max_iterations, terms.at_cap(options, report));
        OuterStep step;
        step.double_inner = use_fallback;
        step.full_multigrid = options.full_multigrid && report.outer_iterations == 0;
        double next = 0.0;
        const bool finite = method.step(norm, use_fallback, step, next);
        ++report.outer_iterations;
        report.inner_cycles += step.inner_cycles;
        if (!finite) {
            report.history.push_back(step);
            if (switch_to_fallback("produced non-finite values")) {
                // d may hold the non-finite defect of the rejected step: the fallback starts
                // from the defect of x, which is still the last finite iterate.
                terms.defect(be, A, b, x, d);
                method.restart();
                continue;
            }
            return fail(SolveStatus::non_finite, terms.non_finite(options, report, use_fallback));
        }
        if (next <= target) next = method.confirmed(next);
        step.defect = next;
        step.rate = next / norm;
        report.history.push_back(step);
        if (on_step) on_step(step);
        norm = next;
        report.final_defect = norm;
        if (norm <= target) continue;  // converged, or a step beyond the target that min_steps() asks for
        if (norm > options.divergence_factor * reference) {
            char grew[32];
            std::snprintf(grew, sizeof grew, "%.3g", norm / reference);
            return fail(SolveStatus::diverged,
                        {"the defect grew to " + std::string(grew) +
                             (reference == report.initial_defect ? " times its initial value" : " times ||b||") +
                             " at outer iteration " + std::to_string(report.outer_iterations),
                         terms.diverged(options)});
        }
        if (norm < terms.progress_ratio() * best) {
            best = norm;
            steps_since_progress = 0;
        } else if (++steps_since_progress >= options.stall_steps) {
            if (switch_to_fallback("stalled")) {
                method.restart();
                continue;
            }
            return fail(SolveStatus::stagnated, terms.stagnated(options, report, use_fallback, fallback_available));
        }
    }
    report.status = SolveStatus::converged;
    return Answer::iterate;
}

}  // namespace adimg
