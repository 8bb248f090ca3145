#include "strip_transform.hpp"

#include <Eigen/Core>

#include <cstddef>
#include <stdexcept>

namespace adimg {

StripTransform::StripTransform(StripBackend<CpuRank>& be, fast_direct::Plan plan)
    : plan_(std::move(plan)),
      ranks_(be.communicator().size()),
      first_row_(be.rows().first),
      rows_(be.rows().count),
      work_(static_cast<std::size_t>(rows_) * plan_.nt),
      lines_(be.communicator(), plan_, first_row_, rows_) {
    if (plan_.axis != FastAxis::x) throw std::logic_error("StripTransform: the plan must transform x");
    if (plan_.transform != FastTransform::eigen)
        trig_.emplace(plan_.transform == FastTransform::sine ? FFTW_RODFT00 : FFTW_REDFT00, plan_.nt, rows_,
                      work_.data());
}

std::string StripTransform::transform_name() const {
    switch (plan_.transform) {
    case FastTransform::sine: return "sine transform (FFTW)";
    case FastTransform::cosine: return "cosine transform (FFTW)";
    default: return "generalised eigenvectors (Eigen products)";
    }
}

std::string StripTransform::line_solver_name() const {
    return "PPT across " + std::to_string(ranks_) + " ranks";
}

void StripTransform::apply(const Vector& in, Vector& out) {
    using Matrix = Eigen::Map<Eigen::MatrixXd>;
    using Strided = Eigen::Map<Eigen::MatrixXd, 0, Eigen::OuterStride<>>;
    using ConstStrided = Eigen::Map<const Eigen::MatrixXd, 0, Eigen::OuterStride<>>;
    StripBackend<CpuRank>::written(out);
    const int nt = plan_.nt;
    const Eigen::OuterStride<> row_stride(plan_.mx);
    // The rows' unknowns along x as a matrix, one column per row of the strip.
    const ConstStrided B(in.data() + plan_.t_first, nt, rows_, row_stride);
    Strided U(out.data() + plan_.t_first, nt, rows_, row_stride);
    Matrix W(work_.data(), nt, rows_);
    if (plan_.transform == FastTransform::eigen) {
        const Eigen::Map<const Eigen::MatrixXd> V(plan_.modes.vectors.data(), nt, nt);
        W.noalias() = V.transpose() * B;
        lines_.solve(work_.data());
        U.noalias() = V * W;
    } else {
        W = B;
        if (plan_.transform == FastTransform::cosine) {  // D^-1: the end values along x doubled
            W.row(0) *= 2.0;
            W.row(nt - 1) *= 2.0;
        }
        (*trig_)(work_.data());
        lines_.solve(work_.data());
        (*trig_)(work_.data());
        U = W;
    }
    copy_dirichlet(in.data(), out.data());
}

void StripTransform::copy_dirichlet(const double* in, double* out) const {
    const int mx = plan_.mx;
    for (int r = 0; r < rows_; ++r)
        for (int i = 0; i < mx; ++i)
            if (plan_.dirichlet_node(i, first_row_ + r)) {
                const std::size_t p = static_cast<std::size_t>(r) * mx + i;
                out[p] = in[p];
            }
}

}  // namespace adimg
