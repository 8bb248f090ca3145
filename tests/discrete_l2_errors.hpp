#pragma once
// The relative L2 errors of the discrete solutions of the eight cases at L=10 and 11 (the
// solution of the operator the solvers' defects define, to the digits of its doubles), for tests that need more than the
// 8-digit stop criterion fixes (include/adimg/fast_direct.hpp, Accuracy).

#include <map>
#include <string>
#include <utility>

namespace adimg_test {

/// The relative L2 error of the discrete solution itself (of the operator the solvers' defects
/// define: the assembled matrix with its row sums within rounding taken as zero, to the digits of
/// its doubles), from fast_direct_bench --against refined: fast direct refined with defects in
/// long double until they stopped shrinking (1e-15 to 3e-14 of ||b||).
inline const std::map<std::pair<std::string, int>, double> discrete_l2_error = {
    {{"U1", 10}, 1.084053680e-06}, {{"U1", 11}, 2.710133903e-07}, {{"U2", 10}, 1.059134921e-06},
    {{"U2", 11}, 2.647836306e-07}, {{"U3", 10}, 1.037695575e-06}, {{"U3", 11}, 2.594234819e-07},
    {{"A1", 10}, 1.409947640e-06}, {{"A1", 11}, 3.524868574e-07}, {{"A2", 10}, 2.104443829e-06},
    {{"A2", 11}, 5.261108482e-07}, {{"A3", 10}, 3.066427989e-06}, {{"A3", 11}, 7.666068070e-07},
    {{"A4", 10}, 3.978389015e-06}, {{"A4", 11}, 9.945969014e-07}, {{"A5", 10}, 4.152970124e-06},
    {{"A5", 11}, 1.038242125e-06}};

}  // namespace adimg_test
