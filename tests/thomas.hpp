#pragma once
// A plain Thomas solve in long double: the reference for the cyclic-reduction tests.

#include <vector>

namespace adimg::test {

struct Tridiagonal {
    std::vector<double> a, b, c, v;  // sub-, main and super-diagonal, right-hand side
};

inline std::vector<double> thomas(const Tridiagonal& s) {
    const std::size_t n = s.b.size();
    std::vector<long double> cp(n), dp(n);
    for (std::size_t i = 0; i < n; ++i) {
        const long double pivot = s.b[i] - (i ? s.a[i] * cp[i - 1] : 0.0L);
        cp[i] = s.c[i] / pivot;
        dp[i] = (s.v[i] - (i ? s.a[i] * dp[i - 1] : 0.0L)) / pivot;
    }
    std::vector<double> x(n);
    long double next = 0.0L;
    for (std::size_t i = n; i-- > 0;) {
        next = dp[i] - (i + 1 < n ? cp[i] * next : 0.0L);
        x[i] = static_cast<double>(next);
    }
    return x;
}

}  // namespace adimg::test
