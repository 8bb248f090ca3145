#pragma once
// The mode lines of the distributed fast direct solver on CPU ranks: after the transform along x,
// mode k's system (alpha_k My + beta_k Ky) w_k = (transformed b)_k along y (fast_direct/plan.hpp),
// which crosses the ranks' strips of rows. Solved by the partition method with PPT, exact: each
// rank's rows of a mode's line are cut into chunks and eliminated to the part's two coupling
// equations (strip_mode_lines.hpp, the GPU ranks' formulas and chunks), the coupling equations of
// all ranks solved by one all-gather for all modes (solve_couplings, distributed_lines.hpp), and
// the part filled in.

#include "../fast_direct/plan.hpp"
#include "communicator.hpp"
#include "distributed_lines.hpp"
#include "strip_mode_lines.hpp"

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
    Communicator& comm_;
    fast_direct::Plan plan_;  ///< owns the arrays that lines_ reads
    StripModeLines lines_;
    int rows_, chunks_;
    std::vector<double> a_, c_, v_;     ///< the chunks' forward rows, as w
    std::vector<double> ra_, rc_, rv_;  ///< the chunks' coupling equations, 2 chunks_ a mode
    CouplingWork<double> couplings_;
};

}  // namespace adimg
