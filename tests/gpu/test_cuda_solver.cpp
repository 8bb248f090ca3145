// Whole solves on the GPU against the CPU backend's, through the public API: what the shared
// solver test bodies (tested_backend.hpp, run here on CUDA) cannot show, the two backends' results
// side by side, and a level larger than the CPU tests solve.

#include "../paper_values.hpp"

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

// The CPU backend is the reference. Outer iterations within one: the GPU's float V-cycles round
// differently (fused multiply-adds, other summation orders), so the stop may come a step apart;
// the L2 errors, which the stop bounds, within 1e-6.
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
