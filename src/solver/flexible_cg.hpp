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
#include <utility>

namespace adimg {

/// The search direction p and its image q = A p in the outer precision, and the step's scalars
/// in the backend's memory (where axpy_ratio and xpay_ratio read them): the vectors that flexible
/// CG needs besides those of refinement. Made at the first CG solve and kept.
template <class Backend, class T>
struct KrylovVectors {
    using Vector = typename Backend::template vector<T>;
    std::optional<Vector> p, q;
    std::optional<typename Backend::template vector<double>> scalars;  ///< z·r, z·q, p·q (two), zero
    static constexpr int scalar_count = 5;
    int mx = 0, my = 0;  ///< the grid p and q were made for
    void ensure(Backend& be, int grid_mx, int grid_my) {
        if (p && mx == grid_mx && my == grid_my) return;
        p.emplace(be.template make_vector<T>(grid_mx, grid_my));
        q.emplace(be.template make_vector<T>(grid_mx, grid_my));
        scalars.emplace(be.template make_array<double>(scalar_count));
        mx = grid_mx;
        my = grid_my;
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
/// The step works on r scaled by a power of two (keep_in_range) and scales alpha back for x.
/// beta is the Polak–Ribière choice, z·(r - r_previous) / (z·r)_previous, which keeps the
/// method convergent when M is not exactly a fixed symmetric operator: a float cycle, a cycle
/// that stops by digits, or a fallback that changes M mid-solve. r is updated by the recurrence;
/// when it meets the stop target, confirmed() recomputes b - A x (the stop trusts only that).
template <class Backend, class Outer, class Inner, class Fallback, class Terms = MultigridTerms>
class FlexibleCg {
public:
    using Vector = typename Backend::template vector<Outer>;
    /// z is a vector of x's size this method may overwrite (the refinement loop's x_next); the
    /// terms form the products and defects of A.
    FlexibleCg(Backend& be, const typename Backend::template matrix<Outer>& A, const Vector& b, Vector& x, Vector& r,
               Vector& z, KrylovVectors<Backend, Outer>& krylov, Inner& inner, Fallback& fallback, const Terms& terms = {})
        : be_(be), A_(A), b_(b), x_(x), r_(r), z_(z), inner_(inner), fallback_(fallback), terms_(terms) {
        krylov.ensure(be, A.mx, A.my);
        p_ = &*krylov.p;
        q_ = &*krylov.q;
        scalars_ = &*krylov.scalars;
        be_.fill(*scalars_, 0.0);
        double* const s = scalars_->data();
        rz_ = s;
        zq_ = s + 1;
        pq_ = s + 2;
        pq_previous_ = s + 3;
        zero_ = s + 4;
    }

    bool step(double norm, bool use_fallback, OuterStep& step, double& next) {
        const double stored = keep_in_range(norm / scale_);
        auto apply = [&](double scale, const auto& c) {
            be_.scale_convert(scale, c, z_);
            return true;  // z's finiteness shows in z·r and p·q below
        };
        if (!(use_fallback ? fallback_(r_, stored, step, apply) : inner_(r_, stored, step, apply))) return false;
        be_.dot(r_, z_, rz_);
        // A direction that breaks down (the previous direction has blown p up, or p·Ap = 0) is
        // replaced once by z itself.
        Direction found = make_direction(have_direction_);
        if (found != Direction::usable && have_direction_) found = make_direction(false);
        if (found == Direction::non_finite) return false;
        if (found == Direction::none) {
            // The cycle gives no direction (z = 0: r lies where it does not act): a step without
            // progress, which the loop counts towards stagnation.
            have_direction_ = false;
            next = norm;
            return true;
        }
        be_.axpy_ratio(rz_, pq_, scale_, *p_, x_);  // x += alpha p, alpha = z·r / p·q (r scaled back)
        be_.axpy_ratio(rz_, pq_, -1.0, *q_, r_);    // r -= alpha q
        next = scale_ * be_.norm2(r_);
        if (!std::isfinite(next)) {
            be_.axpy_ratio(rz_, pq_, -scale_, *p_, x_);  // back to the last finite iterate
            return false;
        }
        if (next > wild_growth * norm) {
            // A step that multiplies the defect by a thousand or more (a preconditioner that is far
            // from positive definite, e.g. a cycle that diverges) would throw an iterate away:
            // undone, and counted as a step without progress, from a fresh direction.
            be_.axpy_ratio(rz_, pq_, -scale_, *p_, x_);
            be_.axpy_ratio(rz_, pq_, 1.0, *q_, r_);
            have_direction_ = false;
            next = norm;
            return true;
        }
        std::swap(pq_, pq_previous_);
        have_direction_ = true;
        return true;
    }
    enum class Direction { usable, none, non_finite };
    /// p = z + beta p (or p = z without the previous direction), q = A p, and the scalars on the
    /// host. Non-finite values come from a non-finite z or an overflow; p·Ap = 0 leaves no step.
    /// p·Ap < 0 shows that A is not positive definite; the step is still taken, as refinement
    /// would take it, so that the loop's diagnosis sees x.
    Direction make_direction(bool with_previous) {
        if (with_previous) {
            be_.dot(z_, *q_, zq_);
            be_.xpay_ratio(z_, zero_, zq_, pq_previous_, *p_);  // p = z - (z·q / p·q) p
        } else {
            be_.copy(z_, *p_);
        }
        terms_.multiply(be_, A_, *p_, *q_);
        be_.dot(*p_, *q_, pq_);
        be_.download(*scalars_, host_);
        const double rz = host_[rz_ - scalars_->data()], pq = host_[pq_ - scalars_->data()];
        if (!std::isfinite(rz) || !std::isfinite(pq)) return Direction::non_finite;
        return pq != 0.0 ? Direction::usable : Direction::none;
    }

    /// After a fallback x and r = b - A x were set afresh: the next step starts with p = z.
    void restart() {
        have_direction_ = false;
        scale_ = 1.0;
    }
    /// The computed defect b - A x in place of the recurrence's r, and a fresh start from it.
    double confirmed(double) {
        terms_.defect(be_, A_, b_, x_, r_);
        restart();
        return be_.norm2(r_);
    }

private:
    static constexpr double wild_growth = 1e3;
    Backend& be_;
    const typename Backend::template matrix<Outer>& A_;
    const Vector& b_;
    Vector &x_, &r_, &z_;
    Vector *p_ = nullptr, *q_ = nullptr;
    typename Backend::template vector<double>* scalars_ = nullptr;
    /// The scalars in the backend's memory; pq_ and pq_previous_ trade places every step.
    double *rz_ = nullptr, *zq_ = nullptr, *pq_ = nullptr, *pq_previous_ = nullptr, *zero_ = nullptr;
    double host_[KrylovVectors<Backend, Outer>::scalar_count] = {};
    Inner& inner_;
    Fallback& fallback_;
    const Terms& terms_;
    bool have_direction_ = false;
    /// The defect of x is scale_ r: r is kept within 2^±30 of norm 1 (scaled by powers of two,
    /// exactly), so that z·r and p·Ap, which grow with the square of the defect, neither
    /// overflow nor underflow for right-hand sides of any size (b of 1e300 or 1e-300).
    double scale_ = 1.0;

    /// r scaled by a power of two to norm about 1 if its norm `stored` is far from 1; returns
    /// its norm after.
    double keep_in_range(double stored) {
        const int exponent = std::ilogb(stored);
        if (stored == 0.0 || std::abs(exponent) <= 30) return stored;
        const double factor = std::ldexp(1.0, -exponent);
        be_.scale_convert(factor, r_, r_);
        scale_ /= factor;
        return stored * factor;
    }
};

/// Flexible CG: outer_loop() with FlexibleCg steps; the arguments are those of refine()
/// (refinement.hpp), whose x_next serves as z, and the direction vectors. Returns what
/// outer_loop() hands back.
template <class Backend, class Outer, class Inner, class Fallback, class Terms = MultigridTerms>
Answer flexible_cg(Backend& be, const typename Backend::template matrix<Outer>& A,
                 const typename Backend::template vector<Outer>& b, typename Backend::template vector<Outer>& x,
                 typename Backend::template vector<Outer>& z, typename Backend::template vector<Outer>& r,
                 KrylovVectors<Backend, Outer>& krylov, bool zero_guess, Inner&& inner, Fallback&& fallback,
                 const SolverOptions& options, const StepCallback& on_step, SolveReport& report, const Terms& terms = {}) {
    FlexibleCg<Backend, Outer, std::remove_reference_t<Inner>, std::remove_reference_t<Fallback>, Terms> method(
        be, A, b, x, r, z, krylov, inner, fallback, terms);
    return outer_loop<Backend, Outer>(be, A, b, x, r, zero_guess, method, fallback.available(), options, on_step,
                                      report, terms);
}

}  // namespace adimg
