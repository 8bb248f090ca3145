// The loader of cuBLAS and cuFFT (src/cuda/cuda_libraries.cuh): the toolkit's libraries open and
// every entry point resolves on a machine with the toolkit, no GPU needed (dlopen and dlsym only);
// a library that is not there is a device_error that names it.

#include <adimg/error.hpp>
#include <cuda/cuda_libraries.cuh>

#include <catch2/catch.hpp>

using namespace adimg;

TEST_CASE("CUDA libraries: cuBLAS's and cuFFT's tables load from the toolkit, every entry resolved", "[cuda_libraries]") {
    const cuda_libraries::Cublas& blas = cuda_libraries::cublas();
    CHECK(blas.create);
    CHECK(blas.destroy);
    CHECK(blas.set_stream);
    CHECK(blas.dgemm);
    REQUIRE(blas.status_string);
    CHECK(std::string(blas.status_string(CUBLAS_STATUS_NOT_INITIALIZED)).find("not initialized") != std::string::npos);
    const cuda_libraries::Cufft& fft = cuda_libraries::cufft();
    CHECK(fft.create);
    CHECK(fft.set_auto_allocation);
    CHECK(fft.make_plan_many);
    CHECK(fft.set_work_area);
    CHECK(fft.set_stream);
    CHECK(fft.exec_d2z);
    CHECK(fft.destroy);
    // Loaded once: the same table again.
    CHECK(&cuda_libraries::cufft() == &fft);
    CHECK(cuda_libraries::cublas_soname().find("libcublas.so.") == 0);
    CHECK(cuda_libraries::cufft_soname().find("libcufft.so.") == 0);
}

TEST_CASE("CUDA libraries: a library that is not installed is a device_error naming it", "[cuda_libraries]") {
    CHECK_THROWS_AS(cuda_libraries::open_library("libcufft.so.999"), device_error);
    CHECK_THROWS_WITH(cuda_libraries::open_library("libcufft.so.999"),
                      Catch::Contains("needs libcufft.so.999") && Catch::Contains("LD_LIBRARY_PATH"));
}
