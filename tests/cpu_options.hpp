// The library's default options on the CPU backend, in a given precision, for the tests.
#pragma once

#include <adimg/options.hpp>

namespace adimg_test {

inline adimg::SolverOptions cpu_options(adimg::Precision precision = adimg::Precision::mixed) {
    adimg::SolverOptions options;
    options.backend = adimg::BackendKind::cpu;
    options.precision = precision;
    return options;
}

}  // namespace adimg_test
