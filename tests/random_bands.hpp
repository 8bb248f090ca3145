#pragma once
// A random nine-band matrix for the operation tests: off-diagonal entries in [-1, 0) (zero
// outside the grid), the diagonal dominant, like the M-matrices of the built-in cases.

#include <adimg/nine_bands.hpp>

#include <cstddef>
#include <random>

namespace adimg_test {

inline adimg::NineBands<double> random_bands(int mx, int my, std::mt19937& rng) {
    using namespace adimg;
    std::uniform_real_distribution<double> u(0.0, 1.0);
    NineBands<double> A(mx, my);
    for (int j = 0; j < my; ++j)
        for (int i = 0; i < mx; ++i) {
            const std::size_t p = static_cast<std::size_t>(j) * mx + i;
            double sum = 0.0;
            for (int k = 0; k < 9; ++k) {
                const int ii = i + band_dx(k), jj = j + band_dy(k);
                if (k == C || ii < 0 || jj < 0 || ii >= mx || jj >= my) continue;
                A(k, p) = -u(rng);
                sum -= A(k, p);
            }
            A(C, p) = sum + 0.5 + u(rng);
        }
    return A;
}

}  // namespace adimg_test
