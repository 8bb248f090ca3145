#pragma once
// Iterative refinement (paper Sec. 2.5), written once for every backend and precision pair.

#include <adimg/options.hpp>
#include <adimg/report.hpp>
#include <adimg/solver.hpp>

#include "multigrid.hpp"

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <utility>

namespace adimg {

/// The inner solver of the refinement loop: V-cycles in precision Inner on the scaled defect.
///
/// Given the outer defect d with norm ||d||, it sets the inner right-hand side to d / ||d|| (so
/// float neither underflows nor overflows, docs/design.md §5), runs V-cycles from zero until the
/// inner stopping rule holds, and hands the correction c to `apply(||d||, c)`, which adds
/// ||d|| c to the outer iterate (and computes the next defect) and says whether that is finite.
template <class Backend, class Outer, class Inner>
class InnerMultigrid {
public:
    InnerMultigrid(Backend& backend, Multigrid<Backend, Inner>& mg, const SolverOptions& options)
        : be_(backend), mg_(mg), options_(options) {}

    /// Returns false if the inner defects or the applied correction are not finite.
    template <class Apply>
    bool correct(const typename Backend::template vector<Outer>& d, double d_norm, OuterStep& step, Apply&& apply) {
        be_.scale_convert(1.0 / d_norm, d, mg_.rhs());
        be_.fill(mg_.solution(), Inner(0));
        const bool by_digits = options_.inner.kind == InnerStop::Kind::digits;
        const int max_cycles = by_digits ? options_.inner_max_cycles : options_.inner.count;
        const double target = std::pow(10.0, -options_.inner.count);  // the inner rhs has norm 1
        double previous = 1.0;
        for (int c = 0; c < max_cycles; ++c) {
            mg_.cycle();
            ++step.inner_cycles;
            if (!by_digits) continue;
            const double relative = mg_.defect_norm();
            step.inner_defects.push_back(relative);
            if (!std::isfinite(relative)) return false;
            if (relative <= target) break;
            // A cycle that no longer halves the inner defect has met the precision floor of the
            // inner arithmetic: in float the defect of a fine grid cannot be resolved below about
            // eps * cond (at L = 12 that is of order 1), so further cycles would only burn time up
            // to the cap (the paper's Table 4 shows such stalls). Hand back the correction.
            if (relative > inner_stall_ratio * previous) break;
            previous = relative;
        }
        return apply(d_norm, mg_.solution());
    }

private:
    static constexpr double inner_stall_ratio = 0.5;

    Backend& be_;
    Multigrid<Backend, Inner>& mg_;
    const SolverOptions& options_;
};

/// Wording of the refinement loop's failure messages (what went wrong, and what to try). They name
/// options as SolverOptions fields, in the notation of OptionSpec, which the CLI respells as flags.
namespace refinement_messages {

/// What went wrong, for the advice: the defect stopped dropping (stagnation, too many
/// iterations), or it grew without bound (divergence, non-finite values).
enum class Trouble { slow, blowup };

/// A damping below this takes such small steps that a smoother barely changes x: the advice is
/// a larger damping, not a smaller one.
constexpr double weak_damping = 0.5;

/// "SolverOptions::omega = 1e-300 damps ... ; try a larger SolverOptions::omega": the advice about
/// one damping parameter, or "" if it is not the likely culprit.
inline std::string damping_hint(const char* field, double value, const char* what, Trouble trouble) {
    char text[256];
    if (trouble == Trouble::slow && value < weak_damping) {
        std::snprintf(text, sizeof text,
                      "a larger SolverOptions::%s (%g damps the %s so strongly that they barely change x; the default "
                      "is 0.7)",
                      field, value, what);
        return text;
    }
    if (trouble == Trouble::blowup) {
        std::snprintf(text, sizeof text, "a smaller SolverOptions::%s", field);
        return text;
    }
    return "";
}

/// What to change about the cycle itself.
inline std::string smoother_hint(const SolverOptions& o, Trouble trouble = Trouble::slow) {
    const std::string steps = "more smoothing steps (SolverOptions::pre_smooth, SolverOptions::post_smooth)";
    switch (o.smoother) {
    case Smoother::jacobi: {
        const std::string damping = damping_hint("omega", o.omega, "Jacobi steps", trouble);
        return "try " + (damping.empty() ? "" : damping + ", ") + "SolverOptions::smoother = adi or " + steps;
    }
    case Smoother::gauss_seidel:
        return "try SolverOptions::smoother = adi or " + steps;
    case Smoother::adi: break;
    }
    const std::string damping = damping_hint("line_omega", o.line_omega, "line sweeps", trouble);
    return "try " + (damping.empty() ? steps : damping + " or " + steps);
}

/// x^T A x at most this share of |x^T b| + |x^T d| counts as not positive: well above the
/// rounding of the two dot products, far below what a positive definite matrix gives.
constexpr double curvature_tolerance = 1e-8;

/// The advice of a failure that x itself shows to come from the matrix: x^T A x <= 0 (to
/// rounding) for the iterate x != 0, which no symmetric positive definite matrix allows, so
/// smoothing and damping cannot help.
inline std::string indefinite_matrix(double curvature, double xb) {
    char text[640];
    std::snprintf(text, sizeof text,
                  "indefinite or singular matrix: the iterate x has x^T A x = %.3g%s, which a symmetric positive "
                  "definite matrix does not allow, so more smoothing steps or other damping cannot help. Multigrid "
                  "needs a symmetric positive definite matrix: check the signs of the entries, a shift (A - s M "
                  "with s > 0 is indefinite) and that the problem has Dirichlet nodes (a pure Neumann matrix is "
                  "singular); an indefinite system needs another method, e.g. a sparse direct solve (Eigen's "
                  "SimplicialLDLT, the adimg tool's --solver direct)",
                  curvature, curvature > 0.0 ? ", zero to rounding" : (xb != xb ? "" : " <= 0"));
    return text;
}

/// "after gaining 3.21 of the 8 requested digits": the digits as SolveReport::digits_gained() has them.
inline std::string progress(const SolveReport& report, const SolverOptions& o) {
    char text[96];
    std::snprintf(text, sizeof text, "after gaining %.2f of the %g requested digits", report.digits_gained(), o.digits);
    return text;
}

/// Why the defect stopped dropping, by precision, by whether the double fallback ran, and by the
/// digits gained so far (only a solve that got far can have met the limit of double).
inline std::string stagnation_cause(const SolverOptions& o, bool fell_back, bool fallback_available, double gained) {
    if (o.precision == Precision::single)
        return "single precision cannot resolve this problem further (float holds about 7 digits, fewer for the "
               "ill-conditioned matrices of fine or anisotropic grids); use SolverOptions::precision = mixed or double, "
               "or if those stall too, " + smoother_hint(o, Trouble::slow);
    if (o.precision == Precision::mixed && !fell_back)
        return std::string("the float inner solve no longer reduces the defect; ") +
               (fallback_available ? ""
                                   : "set SolverOptions::fallback_to_double = true so that double inner cycles "
                                     "take over, or use SolverOptions::precision = double; if those stall too, ") +
               smoother_hint(o);
    return std::string("the multigrid cycle no longer reduces the defect") +
           (fell_back ? " even with double inner cycles, so float precision is not the cause" : "") +
           ": the smoother does not suit this problem (" + smoother_hint(o) + ")" +
           (gained > 6.0 ? ", or SolverOptions::digits asks for more than double resolves for this matrix" : "");
}

}  // namespace refinement_messages

/// The outer loop: d = b - A x (x = 0 if `zero_guess`); stop when ||d|| <= 10^-digits ||d_0||;
/// else x += inner(d).
/// It watches for non-finite values, divergence and stagnation, and reports each as a status.
/// `inner` is called as inner(d, ||d||, step, apply) -> bool and hands its correction c to
/// apply(alpha, c), which writes x + alpha c to `x_next` and its defect to d in one pass; x_next
/// becomes x only if that defect is finite. When inner returns false (non-finite inner defects or
/// correction) or the loop stagnates, `fallback` (if given, e.g. double inner cycles for a mixed
/// solve) takes over for the rest of the solve, from the last finite x.
template <class Backend, class Outer, class Inner, class Fallback>
void refine(Backend& be, const typename Backend::template matrix<Outer>& A,
            const typename Backend::template vector<Outer>& b, typename Backend::template vector<Outer>& x,
            typename Backend::template vector<Outer>& x_next, typename Backend::template vector<Outer>& d, bool zero_guess,
            Inner&& inner, Fallback&& fallback, const SolverOptions& options, const StepCallback& on_step,
            SolveReport& report) {
    // From a zero guess the defect is b itself, exactly: a copy (2 words a node) instead of a
    // pass over the matrix (12), one work unit less per solve.
    if (zero_guess)
        be.copy(b, d);
    else
        be.defect(A, b, x, d);
    double norm = be.norm2(d);
    report.initial_defect = report.final_defect = norm;
    if (!std::isfinite(norm)) {
        report.status = SolveStatus::non_finite;
        report.message = "the initial defect is not finite: check the right-hand side and the initial guess";
        return;
    }
    // A failure: its status, what happened and what to try; unless x shows that the matrix is
    // not positive definite (x^T A x = x^T b - x^T d <= 0 for the last finite iterate), which no
    // setting of the cycle can mend, and then the advice says so.
    auto fail = [&](SolveStatus status, const std::string& happened, const std::string& advice) {
        report.status = status;
        report.message = happened + "; " + advice;
        be.defect(A, b, x, d);  // after a rejected update d may belong to x_next
        const double xb = be.dot(x, b), xd = be.dot(x, d);
        const double curvature = xb - xd, scale = std::abs(xb) + std::abs(xd);
        if (std::isfinite(curvature) && std::isfinite(scale) && scale > 0.0 &&
            curvature <= refinement_messages::curvature_tolerance * scale)
            report.message = happened + "; " + refinement_messages::indefinite_matrix(curvature, xb);
    };
    const double target = std::pow(10.0, -options.digits) * norm;
    double best = norm;
    int steps_since_progress = 0;
    bool use_fallback = false;
    auto switch_to_fallback = [&](const char* why) {
        if (use_fallback || !fallback.available()) return false;
        use_fallback = true;
        report.fell_back_to_double = true;
        report.message = std::string("the float inner solve ") + why + " at outer iteration " +
                         std::to_string(report.outer_iterations) + "; continued with double inner cycles";
        steps_since_progress = 0;
        return true;
    };
    while (norm > target) {
        if (report.outer_iterations >= options.max_iterations) {
            fail(SolveStatus::max_iterations,
                 "no convergence within " + std::to_string(options.max_iterations) +
                     " outer iterations (SolverOptions::max_iterations) " + refinement_messages::progress(report, options),
                 refinement_messages::smoother_hint(options, refinement_messages::Trouble::slow));
            return;
        }
        OuterStep step;
        step.double_inner = use_fallback;
        double next = 0.0;
        auto apply = [&](double alpha, const auto& c) {
            next = be.update_defect_norm(A, b, x, alpha, c, x_next, d);
            return std::isfinite(next);
        };
        const bool finite = use_fallback ? fallback(d, norm, step, apply) : inner(d, norm, step, apply);
        ++report.outer_iterations;
        report.inner_cycles += step.inner_cycles;
        if (!finite) {
            report.history.push_back(step);
            if (switch_to_fallback("produced non-finite values")) {
                // d may hold the non-finite defect of the rejected update: the fallback starts
                // from the defect of x, which is still the last finite iterate.
                be.defect(A, b, x, d);
                continue;
            }
            const std::string blowup =
                refinement_messages::smoother_hint(options, refinement_messages::Trouble::blowup);
            const bool in_double = use_fallback || options.precision == Precision::double_;
            fail(SolveStatus::non_finite,
                 std::string(use_fallback ? "the double inner solve (after the fallback)"
                             : options.precision == Precision::double_ ? "the inner solve"
                                                                       : "the float inner solve") +
                     " produced non-finite values at outer iteration " + std::to_string(report.outer_iterations) +
                     (in_double ? ": the smoother diverges on this problem" : ": float overflowed or the smoother diverges"),
                 in_double ? blowup
                           : std::string(options.precision == Precision::single
                                             ? "use SolverOptions::precision = mixed or double, or "
                                             : "set SolverOptions::fallback_to_double = true or use "
                                               "SolverOptions::precision = double, or ") +
                                 blowup);
            return;
        }
        std::swap(x, x_next);
        step.defect = next;
        step.rate = next / norm;
        report.history.push_back(step);
        if (on_step) on_step(step);
        norm = next;
        report.final_defect = norm;
        if (norm > options.divergence_factor * report.initial_defect) {
            char grew[32];
            std::snprintf(grew, sizeof grew, "%.3g", norm / report.initial_defect);
            fail(SolveStatus::diverged,
                 "the defect grew to " + std::string(grew) + " times its initial value at outer iteration " +
                     std::to_string(report.outer_iterations),
                 refinement_messages::smoother_hint(options, refinement_messages::Trouble::blowup));
            return;
        }
        if (norm < 0.99 * best) {
            best = norm;
            steps_since_progress = 0;
        } else if (++steps_since_progress >= options.stall_steps) {
            if (switch_to_fallback("stalled")) continue;
            fail(SolveStatus::stagnated,
                 "no progress over " + std::to_string(options.stall_steps) + " outer iterations " +
                     refinement_messages::progress(report, options) +
                     (use_fallback ? " (" + report.message + ")" : std::string()),
                 refinement_messages::stagnation_cause(options, use_fallback, fallback.available(), report.digits_gained()));
            return;
        }
    }
    report.status = SolveStatus::converged;
}

}  // namespace adimg
