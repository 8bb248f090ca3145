// Comparing solution vectors in the tests.
#pragma once

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace adimg_test {

/// max |a - b| / max |b|; infinite when any entry of either is not finite (std::max would
/// silently skip a NaN, and a test comparing against a threshold would then pass). a and b are
/// vectors of doubles with any allocator (NineBands::values has its own).
template <class A, class B>
double relative_max_difference(const A& a, const B& b) {
    REQUIRE(a.size() == b.size());
    double diff = 0.0, largest = 0.0;
    for (std::size_t p = 0; p < a.size(); ++p) {
        if (!std::isfinite(a[p]) || !std::isfinite(b[p])) return HUGE_VAL;
        diff = std::max(diff, std::abs(a[p] - b[p]));
        largest = std::max(largest, std::abs(b[p]));
    }
    return diff / largest;
}

}  // namespace adimg_test
