#pragma once
// The columns of the coarsest grid's inverse from its sparse LDL^T factor (CoarseFactor), solved in
// the order of Eigen's SimplicialLDLT::solve, so that the device, which makes the inverse from the
// factor's arrays (src/cuda/coarse_inverse.cuh), gives the bits of CoarseFactor::inverse(): Eigen
// on the host. And the projection of a pure Neumann matrix's inverse, once for host and device.

#include "../common/host_device.hpp"

namespace adimg {

/// Eigen's SimplicialLDLT factor P A P^T = L D L^T as arrays: the strictly lower L in compressed
/// columns (column i's rows rows[starts[i]] .. rows[starts[i+1] - 1], in Eigen's stored order, all
/// below i), D, and P's indices (P maps row i to row permutation[i]).
struct LdltArrays {
    int n = 0;
    const int* starts = nullptr;
    const int* rows = nullptr;
    const double* values = nullptr;
    const double* diagonal = nullptr;
    const int* permutation = nullptr;
};

/// The lanes that solve one column together: lanes of a warp on the device (lane, lanes, sync()
/// making their writes seen by all, broadcast(v, l) giving every lane lane l's v), or this one
/// lane of a serial solve on the host.
struct SerialLane {
    int lane = 0, lanes = 1;
    void sync() const {}
    double broadcast(double v, int) const { return v; }
};

/// x = A^-1 e_c by the factor, step for step as Eigen's SimplicialLDLT::_solve_impl does it
/// (Eigen 3.4: SimplicialCholesky.h and the sparse triangular solves of TriangularSolver.h):
/// x = P e_c; the unit lower solve with L by columns (a column whose x_i is zero is passed over);
/// x_i = (1 / d_i) x_i (Eigen multiplies by the inverted diagonal); the unit upper solve with L^T
/// by rows (x_i less its column's products l_ri x_r, one after another in stored order); the
/// result in P^-1 order: out(k, x[permutation[k]]) for every k. Each product, quotient and
/// difference is rounded on its own (no fused multiply-add), as on the host.
///
/// Every lane of `w` calls this on the same x. The lower solve spreads a column's rows over the
/// lanes (each x_r still takes its updates in column order); in the upper solve the lanes form a
/// row's products side by side and every lane subtracts them all in stored order, so that the
/// dependent chain of differences is Eigen's.
template <class Lanes, class Out>
ADIMG_HD void ldlt_unit_solve(const LdltArrays& f, int c, double* x, const Lanes& w, Out out) {
    const int lane = w.lane, lanes = w.lanes;
    for (int i = lane; i < f.n; i += lanes) x[i] = 0.0;
    w.sync();
    const int first = f.permutation[c];
    if (lane == 0) x[first] = 1.0;
    w.sync();
    for (int i = first; i < f.n; ++i) {  // x_i for i < first stay zero: nothing to pass down
        const double t = x[i];
        if (t != 0.0)
            for (int p = f.starts[i] + lane; p < f.starts[i + 1]; p += lanes)
                x[f.rows[p]] = ADIMG_SUB_RN(x[f.rows[p]], ADIMG_MUL_RN(t, f.values[p]));
        w.sync();
    }
    for (int i = lane; i < f.n; i += lanes) x[i] = ADIMG_MUL_RN(ADIMG_DIV_RN(1.0, f.diagonal[i]), x[i]);
    w.sync();
    for (int i = f.n - 1; i >= 0; --i) {
        double t = x[i];
        const int end = f.starts[i + 1];
        for (int from = f.starts[i]; from < end; from += lanes) {
            const int p = from + lane;
            const double product = p < end ? ADIMG_MUL_RN(f.values[p], x[f.rows[p]]) : 0.0;
            const int count = end - from < lanes ? end - from : lanes;
            for (int l = 0; l < count; ++l) t = ADIMG_SUB_RN(t, w.broadcast(product, l));
        }
        w.sync();  // every lane has read x_i before it changes
        if (lane == 0) x[i] = t;
        w.sync();
    }
    for (int k = lane; k < f.n; k += lanes) out(k, x[f.permutation[k]]);
}

// The pseudo-inverse of a pure Neumann matrix from the inverse S of its pinned matrix (node 0's
// row and column the identity's, CoarseFactor), with S_00 set to zero first:
// A^+ = Π S Π, (Π S Π)_ij = S_ij + ((m - r_i) - c_j), with r_i and c_j the means of S's row i and
// column j and m the mean of the r_i, each a plain sum in index order divided by n.

/// The mean of value(0), ..., value(n - 1), summed in that order.
template <class Value>
ADIMG_HD double mean_in_order(Value value, int n) {
    double sum = 0.0;
    for (int i = 0; i < n; ++i) sum = ADIMG_ADD_RN(sum, value(i));
    return ADIMG_DIV_RN(sum, static_cast<double>(n));
}

/// Entry (i, j) of Π S Π from S_ij, r_i, c_j and m.
ADIMG_HD double projected_entry(double s, double row_mean, double column_mean, double mean) {
    return ADIMG_ADD_RN(s, ADIMG_SUB_RN(ADIMG_SUB_RN(mean, row_mean), column_mean));
}

}  // namespace adimg
