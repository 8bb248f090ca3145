#include "difference_defect.hpp"

#include <cmath>

namespace adimg::fast_direct {

std::vector<double> row_sums(const NineBands<double>& A) {
    std::vector<double> sums(A.rows());
#pragma omp parallel for schedule(static)
    for (int j = 0; j < A.my; ++j)
        for (int i = 0; i < A.mx; ++i) {
            const std::size_t p = static_cast<std::size_t>(j) * A.mx + i;
            double sum = 0.0, compensation = 0.0;
            for (int k = 0; k < 9; ++k) {
                const int ii = i + band_dx(k), jj = j + band_dy(k);
                if (ii < 0 || ii >= A.mx || jj < 0 || jj >= A.my) continue;
                const double a = A(k, p), next = sum + a;
                compensation += std::abs(sum) >= std::abs(a) ? (sum - next) + a : (a - next) + sum;
                sum = next;
            }
            sums[p] = sum + compensation;
        }
    return sums;
}

}  // namespace adimg::fast_direct
