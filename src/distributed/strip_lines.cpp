#include "strip_lines.hpp"

#include "../lines/partition_method.hpp"
#include "strip_formulas.hpp"

#include <cstddef>

namespace adimg {

StripLines::StripLines(Communicator& comm, const fast_direct::Plan& plan, int first_row, int rows)
    : comm_(comm),
      nt_(plan.nt),
      nl_(plan.nl),
      l_first_(plan.l_first),
      singular_(plan.singular),
      line_(plan.line),
      alpha_(plan.alpha),
      beta_(plan.beta),
      first_row_(first_row),
      rows_(rows),
      a_(static_cast<std::size_t>(rows) * plan.nt),
      c_(static_cast<std::size_t>(rows) * plan.nt) {
    couplings_.ends.resize(static_cast<std::size_t>(y_line_end_words) * nt_);
}

CrEquation<double> StripLines::equation(int r, int k, double v) const {
    const int l = first_row_ + r - l_first_;  // the line position of the row, if it is an unknown
    const bool pinned = singular_ && k == 0 && l + 1 == nl_;
    if (l < 0 || l >= nl_ || pinned) return {0.0, 0.0, 0.0};
    // The entries of thomas_factors() (fast_direct/plan.cpp).
    const fast_direct::Pencil& p = line_;
    const double a = alpha_[k], b = beta_[k];
    const double lower = l > 0 ? a * p.m_off[l - 1] + b * p.k_off[l - 1] : 0.0;
    const double upper = l + 1 < nl_ ? a * p.m_off[l] + b * p.k_off[l] : 0.0;
    return cr_normalise(lower, a * p.m_diag[l] + b * p.k_diag[l], upper, v);
}

void StripLines::solve(double* w) {
    const int nt = nt_, m = rows_;
    double* const ends = couplings_.ends.data();
    // Each mode's chunk, the rank's rows, eliminated to its two coupling equations.
#pragma omp parallel for schedule(static)
    for (int k = 0; k < nt; ++k) {
        auto slot = [nt, k](int r) { return r * nt + k; };
        for (int r = 0; r < m; ++r) {
            const CrEquation<double> e = equation(r, k, w[slot(r)]);
            a_[slot(r)] = e.a;
            c_[slot(r)] = e.c;
            w[slot(r)] = e.v;
        }
        partition_eliminate(a_.data(), c_.data(), w, slot, 0, m);
        double* const to = ends + static_cast<std::size_t>(y_line_end_words) * k;
        partition_pass_ends(a_.data(), c_.data(), w, slot, 0, m, to, to + 1, to + 2, [](int e) { return 3 * e; });
    }
    // The coupling equations of every rank: one all-gather, then every mode's reduced system.
    solve_couplings(comm_, nt, false, couplings_);
    const double* const solved = couplings_.solved.data();
#pragma omp parallel for schedule(static)
    for (int k = 0; k < nt; ++k) {
        auto slot = [nt, k](int r) { return r * nt + k; };
        w[slot(0)] = solved[2 * static_cast<std::size_t>(k)];
        w[slot(m - 1)] = solved[2 * static_cast<std::size_t>(k) + 1];
        partition_substitute(a_.data(), c_.data(), w, slot, 0, m);
    }
}

}  // namespace adimg
