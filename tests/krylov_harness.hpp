#pragma once
// The outer methods (src/solver/outer_solve.hpp) through the public Solver on the tested backend
// (tested_backend.hpp): a built-in case's rediscretized levels, the V-cycles in float (mixed) or
// double, the outer iteration in double, and no fallback to double inner cycles, so that the
// inner cycles' failures are the status.

#include "case_solve.hpp"
#include "tested_backend.hpp"

#include <string>
#include <type_traits>

namespace adimg::testing {

/// Case `name` at `level` solved with the V-cycles in precision Inner (float: mixed, double:
/// double) and `options`' outer method, stop and inner rule, on the tested backend.
template <class Inner>
adimg_test::CaseRun outer_run(const std::string& name, int level, SolverOptions options) {
    options.backend = adimg_test::tested_backend();
    options.precision = std::is_same_v<Inner, double> ? Precision::double_ : Precision::mixed;
    options.fallback_to_double = false;
    return adimg_test::solve_case(name, level, options);
}

}  // namespace adimg::testing
