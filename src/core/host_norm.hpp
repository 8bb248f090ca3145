#pragma once
// The 2-norm of a vector in host memory, in an order that does not depend on the threads.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace adimg {

/// ||v||_2 of n doubles: fixed blocks summed in parallel, then the block sums in order, so a
/// solve's initial defect is the same on every run and with any number of threads.
inline double host_norm2(const double* v, std::size_t n) {
    constexpr std::size_t block = std::size_t(1) << 14;
    const std::size_t blocks = (n + block - 1) / block;
    std::vector<double> partial(blocks);
    const auto count = static_cast<std::ptrdiff_t>(blocks);
#pragma omp parallel for schedule(static) if (count > 4)
    for (std::ptrdiff_t k = 0; k < count; ++k) {
        const std::size_t first = static_cast<std::size_t>(k) * block, end = std::min(n, first + block);
        double sum = 0.0;
        for (std::size_t i = first; i < end; ++i) sum += v[i] * v[i];
        partial[static_cast<std::size_t>(k)] = sum;
    }
    double total = 0.0;
    for (const double p : partial) total += p;
    return std::sqrt(total);
}

}  // namespace adimg
