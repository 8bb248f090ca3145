#pragma once
// Preconditioned conjugate gradients for the coarsest grid, written once for every backend.

#include <adimg/options.hpp>
#include "stencil.hpp"

#include <algorithm>
#include <cstddef>

namespace adimg {

/// Solves A x = b on the coarsest level by a fixed number of PCG iterations, preconditioned by
/// one Jacobi step or one ADI application (x-lines, then y-lines) from zero.
///
/// The iteration count is fixed (by default the number of interior unknowns, after which CG is
/// exact in exact arithmetic, at most `iterations`), and the scalars alpha and beta stay in the
/// backend's memory: the solve never waits for the host, so the CUDA backend can replay a whole
/// V-cycle as one graph. A zero denominator (an exactly solved system) gives a zero step.
/// Since the ADI preconditioner is not symmetric, beta uses the Polak–Ribière formula, which
/// keeps CG convergent for a varying preconditioner and equals Fletcher–Reeves for a fixed SPD one.
template <class Backend, class T>
class Pcg {
public:
    using Vector = typename Backend::template vector<T>;
    using Matrix = typename Backend::template matrix<T>;

    Pcg(Backend& backend, int mx, int my, CoarsePreconditioner preconditioner, int iterations)
        : be_(backend),
          preconditioner_(preconditioner),
          iterations_(std::min(std::max(mx - 2, 1) * std::max(my - 2, 1), iterations)),
          r_(make(mx, my)),
          z_(make(mx, my)),
          z_old_(make(mx, my)),
          p_(make(mx, my)),
          q_(make(mx, my)),
          zero_(make(mx, my)),
          scalars_(be_.template make_array<double>(4)) {}

    /// Improves x in place.
    void solve(const Matrix& A, const Vector& b, Vector& x) {
        double* const s = scalars_.data();
        double *rz = s, *rz_next = s + 1, *pq = s + 2, *r_z_old = s + 3;
        be_.defect(A, b, x, r_);
        precondition(A);
        be_.copy(z_, p_);
        be_.dot(r_, z_, rz);
        for (int it = 0; it < iterations_; ++it) {
            be_.multiply(A, p_, q_);             // q = A p
            be_.dot(p_, q_, pq);                 // p·Ap
            be_.axpy_ratio(rz, pq, 1.0, p_, x);   // x += alpha p, alpha = rz / p·Ap
            be_.axpy_ratio(rz, pq, -1.0, q_, r_);  // r -= alpha A p
            if (it + 1 == iterations_) break;
            be_.copy(z_, z_old_);
            precondition(A);
            be_.dot(r_, z_, rz_next);
            be_.dot(r_, z_old_, r_z_old);
            be_.xpay_ratio(z_, rz_next, r_z_old, rz, p_);  // p = z + beta p
            std::swap(rz, rz_next);
        }
    }

private:
    Vector make(int mx, int my) { return be_.template make_vector<T>(mx, my); }

    /// z = M^-1 r
    void precondition(const Matrix& A) {
        if (preconditioner_ == CoarsePreconditioner::jacobi) {
            be_.jacobi(A, r_, zero_, z_, T(1));  // from zero: z = r / diag
        } else {
            be_.line_relax(A, r_, zero_, q_, Direction::x, T(1));
            be_.line_relax(A, r_, q_, z_, Direction::y, T(1));
        }
    }

    Backend& be_;
    CoarsePreconditioner preconditioner_;
    int iterations_;
    Vector r_, z_, z_old_, p_, q_, zero_;
    typename Backend::template vector<double> scalars_;  // rz, rz_next, p·Ap, r·z_old
};

}  // namespace adimg
