// ZeroedVector (include/adimg/nine_bands.hpp): the host storage a setup writes into comes zeroed
// without a second pass, and every other value-initialisation still writes its zeros. Host memory
// alone, so CPU tests only.

#include <adimg/nine_bands.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstddef>

using namespace adimg;

TEST_CASE("ZeroedVector: zeros() and a new NineBands hold zeros, and every other value-initialisation writes "
          "its zeros (after a shrink too)",
          "[setup]") {
    // Large enough for calloc to map fresh pages, small enough for a reused heap block.
    for (const std::size_t n : {std::size_t(1000), std::size_t(3) << 20}) {
        INFO(n << " values");
        ZeroedVector<double> v = zeros<double>(n);
        REQUIRE(v.size() == n);
        CHECK(std::all_of(v.begin(), v.end(), [](double a) { return a == 0.0; }));
        std::fill(v.begin(), v.end(), 7.0);
        v.resize(n / 2);
        v.resize(n);  // regrown within the capacity: the second half must be written as zeros
        CHECK(std::count(v.begin(), v.end(), 7.0) == static_cast<std::ptrdiff_t>(n / 2));
        CHECK(std::count(v.begin(), v.end(), 0.0) == static_cast<std::ptrdiff_t>(n - n / 2));
        v.clear();
        v.resize(n);
        CHECK(std::all_of(v.begin(), v.end(), [](double a) { return a == 0.0; }));
    }
    const NineBands<float> A(513, 257);
    REQUIRE(A.values.size() == 9u * 513 * 257);
    CHECK(std::all_of(A.values.begin(), A.values.end(), [](float a) { return a == 0.0f; }));
}
