// The direct solve reproduces the paper's double-precision accuracy (Tables 1 and 2), and the
// float direct solve shows Table 1's single-precision failure.

#include "paper_values.hpp"

#include <adimg/problems.hpp>
#include <adimg/io.hpp>

#include <catch2/catch.hpp>

#include <cmath>

using namespace adimg;

namespace {

double direct_error(const std::string& name, int level, bool single = false) {
    const CaseSpec spec = builtin_case(name);
    const TensorMesh mesh = spec.mesh(level);
    const PolynomialProblem problem{spec.x.length, spec.y.length};
    const std::vector<double> x = direct_solve(assemble_stiffness(mesh), assemble_load(mesh, problem), single);
    return relative_l2_error(mesh, problem, x);
}

double relative_difference(double a, double b) { return std::abs(a - b) / std::abs(b); }

}  // namespace

TEST_CASE("Table 1, double column: U1 levels 2..9 by the direct solve", "[direct][paper]") {
    for (int level = 2; level <= 9; ++level) {
        const double paper = paper::table1_double.at(level), ours = direct_error("U1", level);
        INFO("U1 L=" << level << ": adimg " << ours << ", paper Table 1 " << paper);
        CHECK(relative_difference(ours, paper) < 5e-5);
    }
}

TEST_CASE("Table 2, CPU-double column: all cases at L=8 by the direct solve", "[direct][paper]") {
    for (const std::string& name : builtin_case_names()) {
        const double paper = paper::table2.at({name, 8}).cpu_double, ours = direct_error(name, 8);
        INFO(name << " L=8: adimg " << ours << ", paper Table 2 " << paper);
        CHECK(relative_difference(ours, paper) < 5e-5);
    }
}

TEST_CASE("Table 2, CPU-double column: all cases at L=9 by the direct solve", "[direct][paper][slow]") {
    for (const std::string& name : builtin_case_names()) {
        const double paper = paper::table2.at({name, 9}).cpu_double, ours = direct_error(name, 9);
        INFO(name << " L=9: adimg " << ours << ", paper Table 2 " << paper);
        CHECK(relative_difference(ours, paper) < 5e-5);
    }
}

TEST_CASE("Table 1, single column: a float solve stops improving around L=7 and then gets worse", "[direct][paper]") {
    std::map<int, double> error;
    for (int level = 2; level <= 9; ++level) error[level] = direct_error("U1", level, /*single=*/true);
    for (int level = 2; level <= 9; ++level)
        UNSCOPED_INFO("U1 L=" << level << ": float " << error[level] << ", paper single " << paper::table1_single.at(level)
                              << ", double " << paper::table1_double.at(level));
    // Up to L=5 float is as good as double (the discretisation error dominates).
    for (int level = 2; level <= 5; ++level)
        CHECK(relative_difference(error[level], paper::table1_double.at(level)) < 1e-2);
    // From L=8 on float rounding dominates: the error is far above double's and grows with L.
    CHECK(error[8] > 1.5 * paper::table1_double.at(8));
    CHECK(error[9] > error[8]);
    CHECK(error[9] > 10 * paper::table1_double.at(9));
}
