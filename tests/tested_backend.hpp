// The backend that the solver test bodies run on: the CPU in adimg_tests (tested_backend_cpu.cpp),
// CUDA in adimg_gpu_tests (gpu/tested_backend_cuda.cpp). The same bodies, compiled into both
// executables, are the CPU's tests in CI and the CUDA backend's on the GPU machine; where a body's
// check depends on the backend (float rounding on the GPU), it says so beside the check.
#pragma once

#include <adimg/options.hpp>

namespace adimg_test {

/// The backend of this test executable.
adimg::BackendKind tested_backend();

/// The library's default options on the tested backend, in a given precision.
inline adimg::SolverOptions tested_options(adimg::Precision precision = adimg::Precision::mixed) {
    adimg::SolverOptions options;
    options.backend = tested_backend();
    options.precision = precision;
    return options;
}

/// Whether the tested backend is the CPU, whose results the stored baselines and the GPU's are measured against.
inline bool testing_cpu() { return tested_backend() == adimg::BackendKind::cpu; }

}  // namespace adimg_test
