#pragma once
// The V-cycle's solve on its coarsest grid, written once for every backend.

#include <adimg/nine_bands.hpp>
#include <adimg/options.hpp>

#include "pcg.hpp"

#include <chrono>
#include <optional>

namespace adimg {

/// Solves A x = b on the coarsest level: directly, by the backend's exact solve of A made once at
/// setup (the CPU applies a sparse factor, CoarseFactor; the GPU the dense inverse, made from it
/// on the device, as one product), or by PCG (pcg.hpp).
///
/// Why direct: on the GPU every level of a V-cycle costs about a dozen dependent kernel launches,
/// however small its grid, so the levels below 33 x 33 cost as much as the 1025 x 1025 level's
/// smoothing (docs/performance.md, "Direct coarsest-grid solve"); one product with a 1089 x 1089
/// inverse (9.5 MB, held in L2) replaces them. It is also the better cycle: on the graded
/// meshes of A4 and A5 the coarse levels smooth poorly, and an exact solve on 33 x 33 saves 2-3 of
/// their 11-14 cycles.
template <class Backend, class T>
class CoarseSolve {
public:
    using Vector = typename Backend::template vector<T>;
    using Matrix = typename Backend::template matrix<T>;

    CoarseSolve(Backend& backend, const NineBands<double>& A, const SolverOptions& options) : be_(backend) {
        if (options.coarse_solver == CoarseSolver::direct &&
            static_cast<long long>(A.rows()) <= max_direct_coarse_unknowns) {
            const auto start = std::chrono::steady_clock::now();
            direct_.emplace(be_.make_direct_solve(A));
            factor_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        } else {
            pcg_.emplace(be_, A.mx, A.my, options.coarse_preconditioner, options.coarse_iterations);
        }
    }

    /// New values for the coarsest matrix (same grid).
    void update(const NineBands<double>& A) {
        if (!direct_) return;
        const auto start = std::chrono::steady_clock::now();
        be_.update_direct_solve(A, *direct_);
        factor_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
    double factor_seconds() const { return factor_seconds_; }
    /// Whether the solve is the direct one, which takes several right-hand sides side by side
    /// (PCG's scalars are one vector's).
    bool direct() const { return direct_.has_value(); }

    /// x = A^-1 b; with PCG, approximately, starting from zero if `from_zero`, else improving x.
    void solve(const Matrix& A, const Vector& b, Vector& x, bool from_zero) {
        if (direct_) {
            be_.direct_solve(*direct_, b, x);
            return;
        }
        if (from_zero) be_.fill(x, T(0));
        pcg_->solve(A, b, x);
    }

    /// Device (or host) bytes of the direct solve; zero with PCG.
    long long bytes() const { return direct_ ? direct_->bytes() : 0; }

private:
    Backend& be_;
    std::optional<typename Backend::DirectSolve> direct_;
    std::optional<Pcg<Backend, T>> pcg_;
    double factor_seconds_ = 0.0;
};

}  // namespace adimg
