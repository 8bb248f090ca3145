#include "difference_defect.hpp"

namespace adimg::fast_direct {

std::vector<double> row_sums(const NineBands<double>& A) {
    std::vector<double> sums(A.rows());
#pragma omp parallel for schedule(static)
    for (int j = 0; j < A.my; ++j)
        for (int i = 0; i < A.mx; ++i) {
            const std::size_t p = static_cast<std::size_t>(j) * A.mx + i;
            double band[9];
            for (int k = 0; k < 9; ++k) band[k] = A(k, p);
            sums[p] = operator_row_sum(band, A.mx, A.my, i, j);
        }
    return sums;
}

}  // namespace adimg::fast_direct
