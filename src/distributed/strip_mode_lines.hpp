#pragma once
// The mode lines of the distributed fast direct solver on a rank's rows, as formulas for host and
// device: after the transform along x, mode k's line system along y (ModeLineRows) crosses the
// ranks; each rank's rows of it are its part, cut into chunks and eliminated by the chunked
// partition method of the y-lines (strip_formulas.hpp: line_chunk_reduce, y_line_reduce, then
// after the ranks' coupling solve y_line_fill and line_chunk_finish). The CPU ranks' loops
// (strip_lines.cpp) and the GPU ranks' kernels (cuda_strip_lines.cuh) run these, with the same
// chunks, so that the CPU ranks check the GPU ranks' arithmetic.
//
// The modes lie side by side: mode k of the rank's row r at w[r nt + k] (the layout of the
// transform of the rows). A rank's rows are whole grid rows, the nodes of a Dirichlet edge in y
// among them: those rows' equations are w = 0 (no coupling to or from them), so that every
// rank's part keeps the rows it owns, at least two (StripLayout), and the unknowns' equations
// are those of the serial Thomas (thomas_factors: the same coefficients, the singular mode's last
// row pinned to 0).

#include "../common/host_device.hpp"
#include "../fast_direct/mode_line_rows.hpp"
#include "strip_formulas.hpp"

#include <algorithm>
#include <cstddef>

namespace adimg {

/// The mode lines on the rank's rows first_row .. first_row + rows - 1 (grid rows).
struct StripModeLines {
    fast_direct::ModeLineRows rows;  ///< the line direction's unknown rows (rows.n of them)
    int nt;                          ///< the modes: lines side by side
    int first_row, l_first;          ///< the rank's first grid row, and the grid row of unknown 0
    bool singular;                   ///< Plan::singular: mode 0's last unknown pinned to 0

    /// Row r of mode k's part with right-hand side v, normalised to a unit diagonal.
    ADIMG_HD CrEquation<double> equation(int r, int k, double v) const {
        const int l = first_row + r - l_first;  // the line position of the row, if it is an unknown
        const bool pinned = singular && k == 0 && l + 1 == rows.n;
        if (l < 0 || l >= rows.n || pinned) return {0.0, 0.0, 0.0};
        return rows.equation(k, l, v);
    }
};

/// Chunks per mode's part of m rows: about 16 rows each, at most 64 (the GPU ranks' y-lines'
/// rule), so that the GPU has a thread per chunk and each line a short reduced system.
inline int mode_line_chunks(int m) { return std::clamp(m / 16, 1, 64); }

/// Chunk `chunk` of mode k's part of m rows (right-hand sides in w) eliminated: its forward rows
/// into (a, c, v), its coupling equations into rows 2 chunk, 2 chunk + 1 of (ra, rc, rv), as
/// line_chunk_reduce lays them out (line k of lines.nt).
ADIMG_HD void mode_chunk_reduce(const StripModeLines& lines, const double* w, double* a, double* c, double* v,
                                double* ra, double* rc, double* rv, int m, int chunks, int k, int chunk) {
    const int nt = lines.nt;
    line_chunk_reduce([&](int r) { return lines.equation(r, k, w[static_cast<std::size_t>(r) * nt + k]); }, a, c, v,
                      ra, rc, rv, nt, m, chunks, k, chunk);
}

/// Chunk `chunk` of mode k's part filled in from its reduced equations' solution (rv) into w.
ADIMG_HD void mode_chunk_finish(const double* a, const double* c, const double* v, const double* rv, int nt, int m,
                                int chunks, int k, int chunk, double* w) {
    line_chunk_finish(a, c, v, rv, nt, m, chunks, k, chunk,
                      [&](int r, double x) { w[static_cast<std::size_t>(r) * nt + k] = x; });
}

}  // namespace adimg
