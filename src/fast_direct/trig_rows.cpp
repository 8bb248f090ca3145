#include "trig_rows.hpp"

#include <algorithm>
#include <cstddef>
#include <mutex>
#include <stdexcept>
#include <string>

namespace adimg::fast_direct {
namespace {

/// FFTW's planner is not thread-safe: every plan is made and destroyed under this lock.
std::mutex& fftw_planner() {
    static std::mutex lock;
    return lock;
}

}  // namespace

TrigRows::TrigRows(fftw_r2r_kind kind, int n, int rows, double* work) : kind_(kind), n_(n), rows_(rows) {
    const std::lock_guard<std::mutex> lock(fftw_planner());
    batch_ = plan(std::min(rows, batch_rows), work);
    if (rows % batch_rows != 0 && rows > batch_rows) tail_ = plan(rows % batch_rows, work);
}

TrigRows::~TrigRows() {
    const std::lock_guard<std::mutex> lock(fftw_planner());
    if (batch_) fftw_destroy_plan(batch_);
    if (tail_) fftw_destroy_plan(tail_);
}

void TrigRows::operator()(double* work) const {
    const int batches = (rows_ + batch_rows - 1) / batch_rows;
#pragma omp parallel for schedule(static) if(batches > 1)
    for (int q = 0; q < batches; ++q) {
        double* rows = work + static_cast<std::size_t>(q) * batch_rows * n_;
        const bool full = (q + 1) * batch_rows <= rows_ || rows_ <= batch_rows;
        fftw_execute_r2r(full ? batch_ : tail_, rows, rows);
    }
}

fftw_plan TrigRows::plan(int rows, double* work) const {
    int n = n_;
    fftw_plan p = fftw_plan_many_r2r(1, &n, rows, work, nullptr, 1, n_, work, nullptr, 1, n_, &kind_,
                                     FFTW_ESTIMATE | FFTW_UNALIGNED);
    if (!p) throw std::runtime_error("FFTW could not plan a transform of " + std::to_string(n_) + " values");
    return p;
}

}  // namespace adimg::fast_direct
