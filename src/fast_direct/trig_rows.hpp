#pragma once
// Sine and cosine transforms of whole rows by FFTW (RODFT00, REDFT00), batches of rows spread over
// the OpenMP threads: the transform along x of the fast direct solver, on the whole grid (the CPU
// engine, cpu_engine.cpp) or on a rank's strip of rows (the distributed solver,
// src/distributed/strip_transform.cpp).

#include <fftw3.h>

namespace adimg::fast_direct {

/// In-place DST-I (RODFT00) or DCT-I (REDFT00) of `rows` contiguous rows of n values each.
/// FFTW's planner is not thread-safe: the plans are made and destroyed under one lock.
class TrigRows {
public:
    /// Plans for the rows at `work` (FFTW_ESTIMATE: `work` is not overwritten).
    TrigRows(fftw_r2r_kind kind, int n, int rows, double* work);
    ~TrigRows();
    TrigRows(const TrigRows&) = delete;
    TrigRows& operator=(const TrigRows&) = delete;

    /// The transform of every row of `work` (rows x n values), in place.
    void operator()(double* work) const;

private:
    static constexpr int batch_rows = 16;
    fftw_plan plan(int rows, double* work) const;
    fftw_r2r_kind kind_;
    int n_, rows_;
    fftw_plan batch_ = nullptr, tail_ = nullptr;
};

}  // namespace adimg::fast_direct
