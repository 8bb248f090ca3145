// The fast direct solve on the CPU: sine and cosine transforms by FFTW (RODFT00 and REDFT00,
// batches of rows, the batches spread over the OpenMP threads), eigenvector transforms as Eigen matrix products, the
// line systems by Thomas with the factors computed at setup, vectorised across the modes, and the
// refinement's defect by difference_defect() on the shared assembled matrix.

#include "difference_defect.hpp"
#include "fast_direct_engine.hpp"
#include "trig_rows.hpp"

#include "../cpu/cpu_backend.hpp"

#include <Eigen/Core>

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace adimg::fast_direct {
namespace {

class CpuTransform {
public:
    CpuTransform(CpuBackend&, Plan plan)
        : plan_(std::move(plan)),
          work_(plan_.unknowns()),
          inverse_pivot_(plan_.unknowns()),
          upper_factor_(plan_.unknowns()) {
        if (plan_.transform != FastTransform::eigen)
            trig_.emplace(plan_.transform == FastTransform::sine ? FFTW_RODFT00 : FFTW_REDFT00, plan_.nt, plan_.nl,
                          work_.data());
        factor_lines();
    }

    std::string transform_name() const { return plan_.transform == FastTransform::eigen ? "Eigen products" : "FFTW"; }
    std::string line_solver_name() const { return "Thomas"; }

    /// out = P in on all rows of the grid: the Dirichlet rows copied, the unknowns solved.
    void apply(const CpuBackend::vector<double>& in, CpuBackend::vector<double>& out) {
        const int nt = plan_.nt, nl = plan_.nl, mx = plan_.mx;
        if (plan_.transform != FastTransform::eigen) {
            gather(in.data(), work_.data());
            if (plan_.transform == FastTransform::cosine)  // D^-1: the end values along t doubled
                for (int l = 0; l < nl; ++l) {
                    work_[static_cast<std::size_t>(l) * nt] *= 2.0;
                    work_[static_cast<std::size_t>(l) * nt + nt - 1] *= 2.0;
                }
            (*trig_)(work_.data());
            solve_lines(work_.data());
            (*trig_)(work_.data());
            scatter(work_.data(), out.data());
        } else {
            using Map = Eigen::Map<Eigen::MatrixXd>;
            using Strided = Eigen::Map<Eigen::MatrixXd, 0, Eigen::OuterStride<>>;
            using ConstStrided = Eigen::Map<const Eigen::MatrixXd, 0, Eigen::OuterStride<>>;
            const Eigen::Map<const Eigen::MatrixXd> V(plan_.modes.vectors.data(), nt, nt);
            Map W(work_.data(), nt, nl);  // mode k of line position l at (k, l)
            const bool along_x = plan_.axis == FastAxis::x;
            // The unknowns of the grid as a matrix with x down the columns (leading dimension mx).
            const std::size_t first = plan_.node(0, 0);
            const ConstStrided B(in.data() + first, along_x ? nt : nl, along_x ? nl : nt, Eigen::OuterStride<>(mx));
            if (along_x) W.noalias() = V.transpose() * B;
            else W.noalias() = V.transpose() * B.transpose();
            solve_lines(work_.data());
            Strided U(out.data() + first, along_x ? nt : nl, along_x ? nl : nt, Eigen::OuterStride<>(mx));
            if (along_x) U.noalias() = V * W;
            else U.noalias() = W.transpose() * V.transpose();
        }
        copy_dirichlet(in.data(), out.data());
    }

private:
    /// Thomas factors of every mode (thomas_factors()), stored like the work array: mode k of line
    /// position l at l * nt + k.
    void factor_lines() {
        const int nt = plan_.nt;
#pragma omp parallel for schedule(static)
        for (int k = 0; k < nt; ++k)
            thomas_factors(plan_, k, inverse_pivot_.data() + k, upper_factor_.data() + k, static_cast<std::size_t>(nt));
    }

    /// Solves every mode's line system in place on w (mode k of line position l at l * nt + k),
    /// blocks of modes on each thread, the modes of a block side by side (vectorised).
    void solve_lines(double* w) const {
        const int nt = plan_.nt, nl = plan_.nl;
        const Pencil& p = plan_.line;
        const double* alpha = plan_.alpha.data();
        const double* beta = plan_.beta.data();
        constexpr int block = 128;
#pragma omp parallel for schedule(static)
        for (int k0 = 0; k0 < nt; k0 += block) {
            const int k1 = std::min(nt, k0 + block);
            for (int k = k0; k < k1; ++k) w[k] *= inverse_pivot_[k];
            for (int l = 1; l < nl; ++l) {
                const double mo = p.m_off[l - 1], ko = p.k_off[l - 1];
                double* row = w + static_cast<std::size_t>(l) * nt;
                const double* before = row - nt;
                const double* inverse = inverse_pivot_.data() + static_cast<std::size_t>(l) * nt;
#pragma omp simd
                for (int k = k0; k < k1; ++k) row[k] = (row[k] - (alpha[k] * mo + beta[k] * ko) * before[k]) * inverse[k];
            }
            for (int l = nl - 2; l >= 0; --l) {
                double* row = w + static_cast<std::size_t>(l) * nt;
                const double* after = row + nt;
                const double* factor = upper_factor_.data() + static_cast<std::size_t>(l) * nt;
#pragma omp simd
                for (int k = k0; k < k1; ++k) row[k] -= factor[k] * after[k];
            }
        }
    }

    /// The unknowns of `grid` into w, the transformed direction varying fastest.
    void gather(const double* grid, double* w) const {
        const int nt = plan_.nt;
#pragma omp parallel for schedule(static)
        for (int l = 0; l < plan_.nl; ++l)
            for (int t = 0; t < nt; ++t) w[static_cast<std::size_t>(l) * nt + t] = grid[plan_.node(t, l)];
    }
    void scatter(const double* w, double* grid) const {
        const int nt = plan_.nt;
#pragma omp parallel for schedule(static)
        for (int l = 0; l < plan_.nl; ++l)
            for (int t = 0; t < nt; ++t) grid[plan_.node(t, l)] = w[static_cast<std::size_t>(l) * nt + t];
    }
    /// Dirichlet rows are identity rows: out = in there (nodes of Dirichlet edges only).
    void copy_dirichlet(const double* in, double* out) const {
        const int mx = plan_.mx, my = plan_.my;
        for (int j = 0; j < my; ++j) {
            const int step = j == 0 || j == my - 1 ? 1 : mx - 1;  // whole edge rows, else the two ends
            for (int i = 0; i < mx; i += step)
                if (plan_.dirichlet_node(i, j)) {
                    const std::size_t p = static_cast<std::size_t>(j) * mx + i;
                    out[p] = in[p];
                }
        }
    }

    Plan plan_;
    std::vector<double> work_;  ///< the unknowns, mode k (or position t) of line position l at l * nt + k
    std::vector<double> inverse_pivot_, upper_factor_;
    std::optional<TrigRows> trig_;
};

/// d = b - A x in difference form, on the assembled matrix the solver keeps.
class CpuDefect {
public:
    CpuDefect(CpuBackend&, const TensorMesh&, SharedBands A) : A_(std::move(A)), row_sums_(row_sums(*A_)) {}

    void operator()(const CpuBackend::vector<double>& b, const CpuBackend::vector<double>& x, CpuBackend::vector<double>& d) const {
        const BandsView<double> A = view(*A_);
#pragma omp parallel for schedule(static)
        for (int j = 0; j < A.my; ++j)
            for (int i = 0; i < A.mx; ++i)
                d[static_cast<std::size_t>(j) * A.mx + i] = difference_defect(A, row_sums_.data(), b.data(), x.data(), i, j);
    }

private:
    SharedBands A_;
    std::vector<double> row_sums_;
};

}  // namespace

std::unique_ptr<FastDirectEngine> make_cpu_engine() {
    return std::make_unique<BackendFastDirectEngine<CpuBackend, CpuTransform, CpuDefect>>();
}

}  // namespace adimg::fast_direct
