#pragma once
/// \file
/// What a solve reports: status, iteration counts in the paper's a:b notation, the convergence
/// history and the times.

#include <adimg/options.hpp>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace adimg {

/// How a solve ended.
enum class SolveStatus {
    converged,       ///< the defect dropped by the requested digits
    diverged,        ///< the defect grew past divergence_factor times its initial value
    stagnated,       ///< no 1% progress over stall_steps outer steps
    non_finite,      ///< a defect or correction became NaN or infinite
    max_iterations,  ///< max_iterations outer steps without convergence
};
std::string to_string(SolveStatus s);

/// One outer step of the refinement loop.
struct OuterStep {
    int inner_cycles = 0;               ///< V-cycles of the inner solver in this step
    double defect = 0.0;                ///< ||b - A x|| in double after the step
    double rate = 0.0;                  ///< defect after / defect before
    std::vector<double> inner_defects;  ///< relative inner defect after each cycle (digits mode only)
    bool double_inner = false;          ///< the inner cycles ran in double (after a fallback)
    bool full_multigrid = false;        ///< the first inner cycle was full multigrid (SolverOptions::full_multigrid)
};

/// Where the time of a Solver's start and of its last setup went, in wall-clock seconds.
struct SetupTimes {
    double context = 0.0;        ///< the backend's start when the Solver was made (the CUDA context)
    double levels = 0.0;         ///< the levels on the host: a GridMatrix's Galerkin hierarchy, a case's meshes
    double backend = 0.0;        ///< the backend's copy or assembly of every level, the coarse factor included
    double upload = 0.0;         ///< of `backend`: host matrices copied to the backend (a user's bands)
    double coarse_factor = 0.0;  ///< of `backend`: the coarsest grid's direct solve made ready
    /// Everything before the first cycle but the context: levels + backend.
    double setup() const { return levels + backend; }
    /// Of `backend`: the levels formed where the solve runs (a case's assembly, a user's Galerkin
    /// products, each precision's copies).
    double backend_levels() const { return backend - upload - coarse_factor; }
};

/// Per-level facts of the hierarchy.
struct LevelInfo {
    int level = 0;  ///< refinement level
    int mx = 0, my = 0;
    long long bytes = 0;  ///< device (or host) memory this level holds
};

/// The result of one solve. Times are wall-clock seconds; the solve time includes the transfer of
/// the right-hand side and the solution to and from the device (the paper's convention).
struct SolveReport {
    SolveStatus status = SolveStatus::converged;
    std::string message;  ///< empty on success, else what went wrong and what to try
    int outer_iterations = 0;
    int inner_cycles = 0;  ///< total inner V-cycles, the 'b' of the paper's a:b
    double initial_defect = 0.0;  ///< ||b - A x0|| of the guess x0 (||b|| from a zero guess)
    double final_defect = 0.0;    ///< ||b - A x|| of the x returned
    double rhs_norm = 0.0;        ///< ||b||: the relative stop asks for final_defect <= 10^-digits ||b||
    StopRule stop_rule = StopRule::relative;  ///< which defect the stop compared (SolverOptions::stop)
    double target_defect = 0.0;  ///< the defect norm the solve had to reach under that rule
    bool fell_back_to_double = false;  ///< mixed precision switched to double inner cycles
    std::vector<OuterStep> history;
    double solve_seconds = 0.0;
    double upload_seconds = 0.0;    ///< of solve_seconds: b (and a given initial x) to the device
    double download_seconds = 0.0;  ///< of solve_seconds: the solution back to the caller

    bool ok() const { return status == SolveStatus::converged; }
    /// "a:b" as in the paper's Tables 3–4: outer iterations : total inner cycles.
    std::string iterations() const { return std::to_string(outer_iterations) + ":" + std::to_string(inner_cycles); }
    /// Digits gained, log10(initial / final defect).
    double digits_gained() const;
    /// Digits reached, log10(||b|| / final defect): what the relative stop measures; from a zero
    /// guess the same as digits_gained().
    double digits_reached() const {
        return final_defect > 0.0 ? std::log10(rhs_norm / final_defect) : std::numeric_limits<double>::infinity();
    }
    /// Mean reduction per inner cycle, (final/initial)^(1/inner_cycles).
    double rate_per_cycle() const;
};

}  // namespace adimg
