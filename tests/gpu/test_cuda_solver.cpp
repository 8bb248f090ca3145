// Whole solves on the GPU against the CPU backend, through the public API.

#include "../paper_values.hpp"
#include "../warm_start_matrix.hpp"

#include <adimg/problems.hpp>
#include <adimg/hierarchy.hpp>
#include <adimg/solver.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>

using namespace adimg;

namespace {

struct Result {
    SolveReport report;
    double error;
};

Result solve(const std::string& name, int level, BackendKind backend, Precision precision, Smoother smoother = Smoother::adi) {
    const CaseSpec spec = builtin_case(name);
    const TensorMesh mesh = spec.mesh(level);
    const PolynomialProblem problem{spec.x.length, spec.y.length};
    SolverOptions options;
    options.backend = backend;
    options.precision = precision;
    options.smoother = smoother;
    Solver solver(options);
    solver.setup(rediscretized_hierarchy(spec, level, options.coarse_level));
    std::vector<double> x;
    const SolveReport report = solver.solve(assemble_load(mesh, problem), x);
    return {report, relative_l2_error(mesh, problem, x)};
}

}  // namespace

TEST_CASE("GPU and CPU agree: all cases at L=8 and 9, ADI, mixed precision", "[gpu][solver]") {
    for (int level : {8, 9}) {
        for (const std::string& name : builtin_case_names()) {
            const Result cpu = solve(name, level, BackendKind::cpu, Precision::mixed);
            const Result gpu = solve(name, level, BackendKind::cuda, Precision::mixed);
            const double paper = paper::table2.at({name, level}).cpu_double;
            INFO(name << " L=" << level << ": GPU " << gpu.report.iterations() << " error " << gpu.error << ", CPU "
                      << cpu.report.iterations() << " error " << cpu.error << ", paper CPU-double " << paper);
            REQUIRE(gpu.report.ok());
            CHECK(std::abs(gpu.report.outer_iterations - cpu.report.outer_iterations) <= 1);
            CHECK(std::abs(gpu.error - cpu.error) < 1e-6);
            CHECK(std::abs(gpu.error - paper) / paper < 2e-4);
        }
    }
}

// Table 2's GPU-mixed column lies within 1e-4 of CPU-double, as the paper reports. Measured on
// the H200 at 0979ffb: 8.9e-8 (A1, L=8) .. 1.8e-5 (U3, L=8). With the V-cycle down to 3 x 3
// (PCG there) U1 at L=9 stopped after 8.56 digits at 1.57e-4; the coarsest grid solved directly
// makes the first inner cycle gain two digits, and the solve ends with 10.3 digits at 2.4e-6.
TEST_CASE("Table 2, GPU-mixed: within 1e-4 of the paper's CPU-double at L=8 and 9", "[gpu][solver]") {
    for (int level : {8, 9}) {
        for (const std::string& name : builtin_case_names()) {
            const Result gpu = solve(name, level, BackendKind::cuda, Precision::mixed);
            const double paper = paper::table2.at({name, level}).cpu_double;
            INFO(name << " L=" << level << ": GPU-mixed " << gpu.error << ", paper CPU-double " << paper);
            CHECK(std::abs(gpu.error - paper) / paper < 1e-4);
        }
    }
}

TEST_CASE("GPU solves all cases at L=10 with ADI in mixed precision", "[gpu][solver]") {
    for (const std::string& name : builtin_case_names()) {
        const Result gpu = solve(name, 10, BackendKind::cuda, Precision::mixed);
        INFO(name << " L=10: " << gpu.report.iterations() << ", " << to_string(gpu.report.status) << ", error " << gpu.error
                  << " (paper Table 1 U1 double: " << paper::table1_double.at(10) << ")");
        CHECK(gpu.report.ok());
        CHECK(gpu.error < 2e-5);
    }
}

TEST_CASE("GPU Jacobi and Gauss-Seidel converge on U1 and match the CPU iteration counts", "[gpu][solver]") {
    for (Smoother smoother : {Smoother::jacobi, Smoother::gauss_seidel}) {
        const Result cpu = solve("U1", 8, BackendKind::cpu, Precision::mixed, smoother);
        const Result gpu = solve("U1", 8, BackendKind::cuda, Precision::mixed, smoother);
        INFO(to_string(smoother) << ": GPU " << gpu.report.iterations() << ", CPU " << cpu.report.iterations());
        CHECK(gpu.report.ok());
        CHECK(std::abs(gpu.report.outer_iterations - cpu.report.outer_iterations) <= 1);
        CHECK(std::abs(gpu.error - cpu.error) < 1e-6);
    }
}

TEST_CASE("Warm starts: guesses good to 0 to 12 digits, every precision and outer method, CUDA", "[gpu][solver]") {
    adimg_test::warm_start::check_warm_starts(BackendKind::cuda);
}

TEST_CASE("A guess that is the answer at once: b = 0, a small b under the absolute stop, a NaN in b, CUDA",
          "[gpu][solver]") {
    adimg_test::warm_start::check_guess_is_the_answer(BackendKind::cuda);
}
