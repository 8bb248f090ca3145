// Warm starts on the tested backend (warm_start_matrix.hpp, tested_backend.hpp): the CPU in
// adimg_tests, CUDA in adimg_gpu_tests.

#include "tested_backend.hpp"
#include "warm_start_matrix.hpp"

#include <catch2/catch.hpp>

TEST_CASE("Warm starts: guesses good to 0 to 12 digits, every precision and outer method", "[warm-start]") {
    adimg_test::warm_start::check_warm_starts(adimg_test::tested_backend());
}

TEST_CASE("A guess that is the answer at once: b = 0, a small b under the absolute stop, a NaN in b", "[warm-start]") {
    adimg_test::warm_start::check_guess_is_the_answer(adimg_test::tested_backend());
}
