#pragma once
// Values printed in the paper (Göddeke and Strzodka, Cyclic Reduction Tridiagonal Solvers on GPUs
// Applied to Mixed Precision Multigrid, IEEE TPDS 2011), quoted where tests check them.

#include <map>
#include <string>

namespace adimg::paper {

/// Table 1, double precision column: relative L2 error of U1 on levels 2..10.
inline const std::map<int, double> table1_double = {
    {2, 7.1663606e-2}, {3, 1.7802586e-2}, {4, 4.4429161e-3}, {5, 1.1102363e-3}, {6, 2.7752805e-4},
    {7, 6.9380191e-5}, {8, 1.7344895e-5}, {9, 4.3362264e-6}, {10, 1.0841185e-6}};

/// Table 1, single precision column (the paper's float solver; the shape, not the digits, is
/// what a float solve reproduces).
inline const std::map<int, double> table1_single = {
    {2, 7.1663649e-2}, {3, 1.7802522e-2}, {4, 4.4428836e-3}, {5, 1.1103626e-3}, {6, 2.7897810e-4},
    {7, 5.5209742e-5}, {8, 2.8037403e-5}, {9, 2.2419906e-4}, {10, 1.0585913e-3}};

/// Table 2: (case, level) -> {CPU-double, GPU-mixed} relative L2 errors.
struct Table2Row {
    double cpu_double, gpu_mixed;
};
inline const std::map<std::pair<std::string, int>, Table2Row> table2 = {
    {{"U1", 8}, {1.7344895e-5, 1.7344902e-5}}, {{"U1", 9}, {4.3362264e-6, 4.3362292e-6}},
    {{"U2", 8}, {1.6946217e-5, 1.6946281e-5}}, {{"U2", 9}, {4.2365330e-6, 4.2363011e-6}},
    {{"U3", 8}, {1.6603963e-5, 1.6603650e-5}}, {{"U3", 9}, {4.1508011e-6, 4.1504573e-6}},
    {{"A1", 8}, {2.2559231e-5, 2.2559230e-5}}, {{"A1", 9}, {5.6398002e-6, 5.6397099e-6}},
    {{"A2", 8}, {3.3671244e-5, 3.3671243e-5}}, {{"A2", 9}, {8.4177915e-6, 8.4177905e-6}},
    {{"A3", 8}, {4.9063089e-5, 4.9063092e-5}}, {{"A3", 9}, {1.2265724e-5, 1.2265727e-5}},
    {{"A4", 8}, {6.3654794e-5, 6.3654654e-5}}, {{"A4", 9}, {1.5913491e-5, 1.5913506e-5}},
    {{"A5", 8}, {6.6448219e-5, 6.6447308e-5}}, {{"A5", 9}, {1.6612151e-5, 1.6612856e-5}}};

/// Table 3, "double #it" column: iterations of the CPU double multigrid (ADI), levels 8 and 9.
inline const std::map<std::pair<std::string, int>, int> table3_double_iterations = {
    {{"U1", 8}, 5}, {{"U1", 9}, 5}, {{"U2", 8}, 5}, {{"U2", 9}, 6}, {{"U3", 8}, 5}, {{"U3", 9}, 4},
    {{"A1", 8}, 6}, {{"A1", 9}, 6}, {{"A2", 8}, 6}, {{"A2", 9}, 6}, {{"A3", 8}, 6}, {{"A3", 9}, 6},
    {{"A4", 8}, 8}, {{"A4", 9}, 9}, {{"A5", 8}, 10}, {{"A5", 9}, 11}};

/// Table 4, "2 digits" column: outer iterations and total inner cycles of the GPU mixed solver
/// with the inner stop digits:2 (the paper's a:b), levels 8 and 9.
struct OuterInner {
    int outer, inner;
};
inline const std::map<std::pair<std::string, int>, OuterInner> table4_digits2 = {
    {{"U1", 8}, {3, 6}},  {{"U1", 9}, {4, 7}},  {{"U2", 8}, {4, 7}},  {{"U2", 9}, {4, 7}},  {{"U3", 8}, {3, 5}},
    {{"U3", 9}, {3, 5}},  {{"A1", 8}, {3, 6}},  {{"A1", 9}, {3, 6}},  {{"A2", 8}, {3, 6}},  {{"A2", 9}, {3, 6}},
    {{"A3", 8}, {3, 6}},  {{"A3", 9}, {3, 6}},  {{"A4", 8}, {3, 8}},  {{"A4", 9}, {4, 11}}, {{"A5", 8}, {4, 13}},
    {{"A5", 9}, {4, 13}}};

}  // namespace adimg::paper
