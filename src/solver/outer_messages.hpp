#pragma once
// The wording of the outer iteration's failure messages (outer_solve.hpp): what went wrong and
// what to try, the same for iterative refinement and flexible CG.

#include <adimg/options.hpp>
#include <adimg/report.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

namespace adimg {

/// Wording of the outer iteration's failure messages (what went wrong, and what to try). They name
/// options as SolverOptions fields, in the notation of OptionSpec, which the CLI respells as flags.
namespace outer_messages {

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
/// rounding of the two dot products, far below what a positive definite matrix gives. An
/// iterate that diverged is held to a looser share: one blown up by the smoother is rough, and
/// its x^T A x is about |x^T d| (share near 1/2), while one that grew along a null vector of a
/// singular matrix has x^T A x near zero however its rounding falls.
inline double curvature_tolerance(SolveStatus status) { return status == SolveStatus::diverged ? 1e-4 : 1e-8; }

/// The advice when the outer iterations run out: more of them while each step still gains
/// (mean rate per step below 1/2), else what to change about the cycle.
inline std::string cap_hint(const SolverOptions& o, const SolveReport& report) {
    const double rate = std::pow(report.final_defect / report.initial_defect, 1.0 / std::max(report.outer_iterations, 1));
    if (!(rate < 0.5)) return smoother_hint(o, Trouble::slow);
    char text[160];
    std::snprintf(text, sizeof text,
                  "the defect was still dropping (%.2g per outer iteration): raise SolverOptions::max_iterations", rate);
    return text;
}

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

/// "after gaining 3.21 of the 8 requested digits" (SolveReport::digits_reached(): digits of ||b||,
/// what the relative stop measures), or under the absolute stop "with the defect at 3.1e-07 of
/// the requested 1e-10".
inline std::string progress(const SolveReport& report, const SolverOptions& o) {
    char text[128];
    if (o.stop == StopRule::absolute)
        std::snprintf(text, sizeof text, "with the defect at %.3g of the requested %g (SolverOptions::absolute_defect)",
                      report.final_defect, o.absolute_defect);
    else
        std::snprintf(text, sizeof text, "after gaining %.2f of the %g requested digits", report.digits_reached(), o.digits);
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

/// The note of a failed solve that hands back its guess (or x = 0 from a zero guess) because the
/// last iterate's defect is larger than the guess's (earlier iterates are not kept).
inline std::string guess_returned(bool zero_guess) {
    return zero_guess ? "; x = 0 is returned, as the last iterate's defect is larger than the zero guess's"
                      : "; the initial guess is returned, as the last iterate's defect is larger than the guess's";
}

/// The refusal of a right-hand side whose norm lies below double's normal range.
inline std::string subnormal_rhs(double b_norm) {
    char text[400];
    std::snprintf(text, sizeof text,
                  "solve: ||b|| = %.3g lies below the normal range of double (%.3g): its entries keep fewer than "
                  "16 significant digits, and so would x; multiply b by a power of ten (x scales with it) and solve "
                  "again",
                  b_norm, std::numeric_limits<double>::min());
    return text;
}

}  // namespace outer_messages

}  // namespace adimg
