#pragma once
// The line systems of the distributed fast direct solver: after the transform along x, mode k's
// system (alpha_k My + beta_k Ky) w_k = (transformed b)_k along y (fast_direct/plan.hpp), which
// crosses the ranks' strips of rows. Solved by the partition method with PPT, exact, on the
// project's partition machinery: each rank's rows of a mode's line are one chunk, eliminated on
// the rank to its two coupling equations (src/lines/partition_method.hpp), the coupling equations
// of all ranks solved by one all-gather for all modes (solve_couplings, distributed_lines.hpp),
// and the chunk filled in.
//
// A rank's rows are whole grid rows, the nodes of a Dirichlet edge in y among them: those rows'
// equations are w = 0 (no coupling to or from them), so that every rank's chunk keeps the rows it
// owns, at least two (StripLayout), and the unknowns' equations are those of the serial Thomas
// (thomas_factors: the same coefficients, the singular mode's last row pinned to 0).

#include "../fast_direct/plan.hpp"
#include "communicator.hpp"
#include "distributed_lines.hpp"

#include <vector>

namespace adimg {

class StripLines {
public:
    /// The lines of `plan` (transformed axis x) on grid rows first_row .. first_row + rows - 1.
    StripLines(Communicator& comm, const fast_direct::Plan& plan, int first_row, int rows);

    /// Solves every mode's line in place: w holds this rank's rows of all modes, mode k of row r
    /// (grid row first_row + r) at r * nt + k. Collective.
    void solve(double* w);

private:
    /// Row r of mode k's line normalised to a unit diagonal, with right-hand side v.
    CrEquation<double> equation(int r, int k, double v) const;

    Communicator& comm_;
    int nt_, nl_, l_first_;           ///< Plan's modes, line length and first unknown row
    bool singular_;                   ///< Plan::singular: mode 0's last unknown pinned to 0
    fast_direct::Pencil line_;        ///< My and Ky on the unknown rows
    std::vector<double> alpha_, beta_;
    int first_row_, rows_;
    std::vector<double> a_, c_;  ///< the unit-diagonal couplings, eliminated in place each solve
    CouplingWork<double> couplings_;
};

}  // namespace adimg
