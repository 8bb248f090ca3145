// Warm starts on the CPU backend (warm_start_matrix.hpp); the GPU tests run the same matrix on
// the CUDA backend.

#include "warm_start_matrix.hpp"

#include <catch2/catch.hpp>

TEST_CASE("Warm starts: guesses good to 0 to 12 digits, every precision and outer method, CPU", "[warm-start]") {
    adimg_test::warm_start::check_warm_starts(adimg::BackendKind::cpu);
}

TEST_CASE("A guess that is the answer at once: b = 0, a small b under the absolute stop, a NaN in b, CPU",
          "[warm-start]") {
    adimg_test::warm_start::check_guess_is_the_answer(adimg::BackendKind::cpu);
}
