// Comparing solution vectors in the tests.
#pragma once

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace adimg_test {

/// max |a - b| / max |b|
inline double relative_max_difference(const std::vector<double>& a, const std::vector<double>& b) {
    REQUIRE(a.size() == b.size());
    double diff = 0.0, largest = 0.0;
    for (std::size_t p = 0; p < a.size(); ++p) {
        diff = std::max(diff, std::abs(a[p] - b[p]));
        largest = std::max(largest, std::abs(b[p]));
    }
    return diff / largest;
}

}  // namespace adimg_test
