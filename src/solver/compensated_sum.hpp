#pragma once
// Compensated summation for the checks of a user's matrix and its right-hand side.

#include "../common/host_device.hpp"

namespace adimg {

/// A sum of doubles with compensation: accurate to about 2 eps times the sum of the magnitudes,
/// however many terms. Each addition's rounding error is found exactly by Knuth's two-sum, which
/// needs no branch, so that several sums in a loop proceed side by side.
struct CompensatedSum {
    double sum = 0.0, correction = 0.0;
    ADIMG_HD void add(double v) {
        const double t = sum + v, from_v = t - sum;
        correction += (sum - (t - from_v)) + (v - from_v);
        sum = t;
    }
    ADIMG_HD double value() const { return sum + correction; }
};

}  // namespace adimg
