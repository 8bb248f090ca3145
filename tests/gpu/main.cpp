// The GPU test runner: without a usable CUDA device it reports every test skipped (exit code 77,
// which ctest shows as "Skipped") instead of failing.

#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <adimg/solver.hpp>

#include <iostream>

int main(int argc, char** argv) {
    std::string why;
    if (!adimg::cuda_available(&why)) {
        std::cout << "GPU tests skipped: " << why << "\n";
        return 77;
    }
    return Catch::Session().run(argc, argv);
}
