#pragma once
// The fast direct solver's terms in the one outer loop (src/solver/outer_loop.hpp, beside
// MultigridTerms): its defect in difference form, its minimum of refinement steps, any reduction
// as progress, and failures worded for a transform solve.

#include <adimg/fast_direct.hpp>
#include <adimg/options.hpp>
#include <adimg/report.hpp>

#include "../solver/outer_loop.hpp"

#include <cstdio>
#include <string>

namespace adimg::fast_direct {

/// A defect or a bound in the fast direct solver's messages: "1.235e-16".
inline std::string scientific(double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.3e", v);
    return text;
}

/// The SolverOptions that outer_loop() reads, from the fast direct solver's: the relative stop at
/// `digits`, one outer step for the transform solve and one for each refinement step, and a step
/// that does not reduce the defect as stagnation (a direct solve repeats itself; a further step
/// cannot do better).
inline SolverOptions outer_options(const FastDirectOptions& options) {
    SolverOptions outer;
    outer.stop = StopRule::relative;
    outer.digits = options.digits;
    outer.outer = OuterMethod::refinement;
    outer.precision = Precision::double_;
    outer.full_multigrid = false;
    outer.fallback_to_double = false;
    outer.max_iterations = 1 + options.max_refinements;
    outer.stall_steps = 1;
    return outer;
}

/// The terms: the "matrix" of the loop is the backend engine's Defect, d = b - A x by
/// difference_defect().
class FastDirectTerms {
public:
    explicit FastDirectTerms(const FastDirectOptions& options) : options_(options) {}

    template <class Backend, class Defect, class Vector>
    void defect(Backend&, Defect& A, const Vector& b, const Vector& x, Vector& d) const {
        A(b, x, d);
    }
    /// x_next = x + alpha c (x += c of the transform solve's correction), then its defect.
    template <class Backend, class Defect, class Vector>
    double update_defect_norm(Backend& be, Defect& A, const Vector& b, const Vector& x, double alpha, const Vector& c,
                              Vector& x_next, Vector& d) const {
        be.copy(x, x_next);
        be.axpy(alpha, c, x_next);
        A(b, x_next, d);
        return be.norm2(d);
    }
    /// The transform solve and min_refinements steps after it.
    int min_steps() const { return 1 + options_.min_refinements; }
    /// Any reduction: a step at the rounding floor that still lowers the defect is kept.
    double progress_ratio() const { return 1.0; }

    Failure at_cap(const SolverOptions&, const SolveReport& report) const {
        return {"after FastDirectOptions::max_refinements = " + std::to_string(options_.max_refinements) +
                    " refinement steps the defect is " + scientific(report.final_defect) + ", above the stop criterion " +
                    scientific(report.target_defect) + " (10^-digits ||b||)",
                "allow more steps"};
    }
    Failure non_finite(const SolverOptions&, const SolveReport& report, bool) const {
        return {"the transform solve produced values that are not finite at outer iteration " +
                    std::to_string(report.outer_iterations),
                "b holds values so large that the solution overflows; scale b down (x scales with it)"};
    }
    std::string diverged(const SolverOptions&) const { return limit; }
    Failure stagnated(const SolverOptions&, const SolveReport& report, bool, bool) const {
        const std::size_t steps = report.history.size();
        const double before = steps > 1 ? report.history[steps - 2].defect : report.initial_defect;
        const int step = report.outer_iterations - 1;
        return {(step > 0 ? "iterative refinement step " + std::to_string(step) : std::string("the transform solve")) +
                    " did not reduce the defect (" + scientific(before) + " to " + scientific(report.final_defect) +
                    "), which stays above the stop criterion " + scientific(report.target_defect) + " (10^-digits ||b||)",
                limit};
    }

private:
    static constexpr const char* limit =
        "the transform's accuracy on this mesh is the limit; solve with adimg::Solver (multigrid) instead";

    const FastDirectOptions& options_;
};

}  // namespace adimg::fast_direct
