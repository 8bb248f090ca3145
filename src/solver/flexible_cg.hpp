#pragma once
// Flexible conjugate gradients preconditioned by the inner V-cycles (Notay's FCG(1)), the method
// of outer_loop() that SolverOptions::outer = cg selects; written once for every backend and
// precision pair.

#include <adimg/options.hpp>
#include <adimg/report.hpp>

#include "outer_loop.hpp"

#include <cmath>
#include <cstddef>
#include <optional>
#include <type_traits>

namespace adimg {

/// The search direction p and its image q = A p, in the outer precision: the two vectors that
/// flexible CG needs besides those of refinement. Made at the first CG solve and kept.
template <class Backend, class T>
struct KrylovVectors {
    using Vector = typename Backend::template vector<T>;
    std::optional<Vector> p, q;
    void ensure(Backend& be, std::size_t n) {
        if (p && p->size() == n) return;
        p.emplace(be.template make_vector<T>(n));
        q.emplace(be.template make_vector<T>(n));
    }
    long long bytes() const { return p ? 2 * static_cast<long long>(p->size() * sizeof(T)) : 0; }
};

/// One step of flexible CG (Y. Notay, Flexible conjugate gradients, SIAM J. Sci. Comput. 22,
/// 2000; FCG(1), one previous direction kept):
///
///     z = M(r)                  the inner V-cycles on r / ||r||, scaled back, in double
///     p = z + beta p,  beta = -(z·q) / (p·q)_previous   (p = z at the first step)
///     q = A p,  alpha = (z·r) / (p·q),  x += alpha p,  r -= alpha q
///
/// beta is the Polak–Ribière choice, z·(r - r_previous) / (z·r)_previous, which keeps the
/// method convergent when M is not exactly a fixed symmetric operator: a float cycle, a cycle
/// that stops by digits, or a fallback that changes M mid-solve. r is updated by the recurrence;
/// when it meets the stop target, confirmed() recomputes b - A x (the stop trusts only that).
template <class Backend, class Outer, class Inner, class Fallback>
class FlexibleCg {
public:
    using Vector = typename Backend::template vector<Outer>;
    /// z is a vector of x's size this method may overwrite (the refinement loop's x_next).
    FlexibleCg(Backend& be, const typename Backend::template matrix<Outer>& A, const Vector& b, Vector& x, Vector& r,
               Vector& z, KrylovVectors<Backend, Outer>& krylov, Inner& inner, Fallback& fallback)
        : be_(be), A_(A), b_(b), x_(x), r_(r), z_(z), inner_(inner), fallback_(fallback) {
        krylov.ensure(be, x.size());
        p_ = &*krylov.p;
        q_ = &*krylov.q;
    }

    bool step(double norm, bool use_fallback, OuterStep& step, double& next) {
        double rz = 0.0;
        auto apply = [&](double scale, const auto& c) {
            be_.scale_convert(scale, c, z_);
            rz = be_.dot(r_, z_);
            return std::isfinite(rz);
        };
        if (!(use_fallback ? fallback_(r_, norm, step, apply) : inner_(r_, norm, step, apply))) return false;
        if (have_direction_)
            be_.xpay(z_, -be_.dot(z_, *q_) / pq_, *p_);
        else
            be_.copy(z_, *p_);
        be_.multiply(A_, *p_, *q_);
        const double pq = be_.dot(*p_, *q_);
        // p·Ap <= 0 for p != 0 happens only if A is not positive definite: no step.
        if (!(pq > 0.0) || !std::isfinite(pq)) return false;
        const double alpha = rz / pq;
        if (!std::isfinite(alpha)) return false;
        be_.axpy(alpha, *p_, x_);
        be_.axpy(-alpha, *q_, r_);
        next = be_.norm2(r_);
        if (!std::isfinite(next)) {
            be_.axpy(-alpha, *p_, x_);  // back to the last finite iterate
            return false;
        }
        pq_ = pq;
        have_direction_ = true;
        return true;
    }
    /// After a fallback x and r = b - A x were set afresh: the next step starts with p = z.
    void restart() { have_direction_ = false; }
    /// The computed defect b - A x in place of the recurrence's r, and a fresh start from it.
    double confirmed(double) {
        be_.defect(A_, b_, x_, r_);
        restart();
        return be_.norm2(r_);
    }

private:
    Backend& be_;
    const typename Backend::template matrix<Outer>& A_;
    const Vector& b_;
    Vector &x_, &r_, &z_;
    Vector *p_ = nullptr, *q_ = nullptr;
    Inner& inner_;
    Fallback& fallback_;
    bool have_direction_ = false;
    double pq_ = 0.0;  ///< p·Ap of the previous direction
};

/// Flexible CG: outer_loop() with FlexibleCg steps; the arguments are those of refine()
/// (refinement.hpp), whose x_next serves as z, and the direction vectors.
template <class Backend, class Outer, class Inner, class Fallback>
void flexible_cg(Backend& be, const typename Backend::template matrix<Outer>& A,
                 const typename Backend::template vector<Outer>& b, typename Backend::template vector<Outer>& x,
                 typename Backend::template vector<Outer>& z, typename Backend::template vector<Outer>& r,
                 KrylovVectors<Backend, Outer>& krylov, bool zero_guess, Inner&& inner, Fallback&& fallback,
                 const SolverOptions& options, const StepCallback& on_step, SolveReport& report) {
    FlexibleCg<Backend, Outer, std::remove_reference_t<Inner>, std::remove_reference_t<Fallback>> method(
        be, A, b, x, r, z, krylov, inner, fallback);
    outer_loop<Backend, Outer>(be, A, b, x, r, zero_guess, method, fallback.available(), options, on_step, report);
}

}  // namespace adimg
