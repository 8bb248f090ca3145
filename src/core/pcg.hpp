#pragma once
// Preconditioned conjugate gradients for the coarsest grid, written once for every backend.

#include <adimg/options.hpp>
#include <adimg/stencil.hpp>

#include <cmath>
#include <cstddef>

namespace adimg {

/// Solves A x = b on the coarsest level to `digits` relative digits (or until the iteration cap),
/// preconditioned by one Jacobi step or one ADI application (x-lines, then y-lines) from zero.
/// Since the ADI preconditioner is not symmetric, beta uses the Polak–Ribière formula, which keeps
/// CG convergent for a varying preconditioner and equals Fletcher–Reeves for a fixed SPD one.
template <class Backend, class T>
class Pcg {
public:
    using Vector = typename Backend::template vector<T>;
    using Matrix = typename Backend::template matrix<T>;

    Pcg(Backend& backend, std::size_t n, CoarsePreconditioner preconditioner, double digits)
        : be_(backend),
          preconditioner_(preconditioner),
          tolerance_(std::pow(10.0, -digits)),
          max_iterations_(static_cast<int>(2 * n + 10)),
          r_(be_.template make_vector<T>(n)),
          z_(be_.template make_vector<T>(n)),
          z_old_(be_.template make_vector<T>(n)),
          p_(be_.template make_vector<T>(n)),
          q_(be_.template make_vector<T>(n)),
          zero_(be_.template make_vector<T>(n)) {}

    /// Improves x in place. Returns the iterations taken.
    int solve(const Matrix& A, const Vector& b, Vector& x) {
        be_.defect(A, b, x, r_);
        const double r0 = be_.norm2(r_);
        if (r0 == 0.0 || !std::isfinite(r0)) return 0;
        precondition(A);
        be_.scale_convert(1.0, z_, p_);
        double rz = be_.dot(r_, z_);
        int it = 0;
        for (; it < max_iterations_; ++it) {
            be_.defect(A, zero_, p_, q_);  // q = -A p: the defect of p against a zero right-hand side
            const double pAp = -be_.dot(p_, q_);
            if (!(pAp > 0.0)) break;  // converged to rounding, or A is not SPD on this subspace
            const double alpha = rz / pAp;
            be_.axpy(alpha, p_, x);
            be_.axpy(alpha, q_, r_);  // r -= alpha A p
            if (be_.norm2(r_) <= tolerance_ * r0) {
                ++it;
                break;
            }
            be_.scale_convert(1.0, z_, z_old_);
            precondition(A);
            const double rz_new = be_.dot(r_, z_);
            const double beta = (rz_new - be_.dot(r_, z_old_)) / rz;
            rz = rz_new;
            be_.xpay(z_, beta, p_);
        }
        return it;
    }

private:
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
    double tolerance_;
    int max_iterations_;
    Vector r_, z_, z_old_, p_, q_, zero_;
};

}  // namespace adimg
