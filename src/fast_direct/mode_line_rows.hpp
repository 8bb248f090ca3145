#pragma once
// A row of mode k's line system alpha_k M + beta_k K (the line direction's pencil, plan.hpp),
// normalised to a unit diagonal: one formula, compiled for host and device, for the line solvers
// that make their equations as they go (the one-GPU engine's, fast_direct_lines.cuh; the
// distributed solver's on CPU and GPU ranks, src/distributed/strip_mode_lines.hpp).

#include "../common/host_device.hpp"
#include "../lines/cyclic_reduction.hpp"
#include "plan.hpp"

namespace adimg::fast_direct {

/// The modes' coefficients and the pencil's entries, where the solve runs (host or device).
struct ModeLineRows {
    const double* alpha;
    const double* beta;
    const double* m_diag;
    const double* m_off;
    const double* k_diag;
    const double* k_off;
    int n;  ///< unknowns per line

    /// The coupling of row l (l >= 1) to row l - 1 in mode k's system.
    ADIMG_HD double lower(int k, int l) const { return alpha[k] * m_off[l - 1] + beta[k] * k_off[l - 1]; }
    /// Row l of mode k's system with right-hand side v, scaled to a unit diagonal (the entries of
    /// thomas_factors()).
    ADIMG_HD CrEquation<double> equation(int k, int l, double v) const {
        const double a = alpha[k], b = beta[k];
        const double below = l > 0 ? lower(k, l) : 0.0;
        const double above = l + 1 < n ? a * m_off[l] + b * k_off[l] : 0.0;
        return cr_normalise(below, a * m_diag[l] + b * k_diag[l], above, v);
    }
};

/// The rows of the plan's modes, read from its host arrays.
inline ModeLineRows host_mode_line_rows(const Plan& plan) {
    return {plan.alpha.data(),       plan.beta.data(),        plan.line.m_diag.data(), plan.line.m_off.data(),
            plan.line.k_diag.data(), plan.line.k_off.data(), plan.nl};
}

}  // namespace adimg::fast_direct
