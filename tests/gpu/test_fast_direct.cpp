// The fast direct solver on the GPU (src/cuda/fast_direct.cu) against its CPU engine and the
// sparse Cholesky solution: both transforms in both directions, short lines (one warp per line)
// and long ones (the partition method), all eight cases at L=10, a mesh that is neither square
// nor of 2^L elements, boundary values, refinement (the discrete solution's L2 error after one
// step), and b and x in page-locked memory.

#include "../compare.hpp"
#include "../discrete_l2_errors.hpp"
#include "../fast_direct_case_solve.hpp"

#include <adimg/fast_direct.hpp>
#include <adimg/io.hpp>
#include <adimg/pinned_memory.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <string>
#include <vector>

using namespace adimg;

namespace {

FastDirectOptions on(BackendKind backend, FastAxis axis = FastAxis::automatic,
                     FastTransform transform = FastTransform::automatic) {
    FastDirectOptions options;
    options.backend = backend;
    options.axis = axis;
    options.transform = transform;
    return options;
}

using adimg_test::relative_max_difference;

/// x solved by a fresh solver with these options; its report and method in `report` and `method`.
std::vector<double> solved(const TensorMesh& mesh, const std::vector<double>& b, const FastDirectOptions& options,
                           FastDirectReport* report = nullptr, std::string* method = nullptr) {
    FastDirectSolver solver(options);
    solver.setup(mesh);
    std::vector<double> x;
    const FastDirectReport r = solver.solve(b, x);
    if (report) *report = r;
    if (method) *method = solver.method();
    return x;
}

/// The GPU against the CPU engine with the same options, and both against the Cholesky solution.
void check_gpu(const TensorMesh& mesh, const std::vector<double>& b, FastAxis axis, FastTransform transform,
               const std::vector<double>& cholesky, const char* line_solver) {
    FastDirectReport report;
    std::string method;
    const std::vector<double> gpu = solved(mesh, b, on(BackendKind::cuda, axis, transform), &report, &method);
    const std::vector<double> cpu = solved(mesh, b, on(BackendKind::cpu, axis, transform));
    INFO(method << ": GPU defect " << report.final_defect / report.initial_defect << " after " << report.refinement_steps
                << " refinement steps");
    CHECK(method.find(line_solver) != std::string::npos);
    CHECK(report.ok());
    CHECK(relative_max_difference(gpu, cpu) < 1e-11);
    CHECK(relative_max_difference(gpu, cholesky) < 1e-10);
}

/// Values without structure on every node, edge nodes included (boundary values there).
std::vector<double> rough_rhs(std::size_t n, int seed) {
    std::vector<double> b(n);
    for (std::size_t p = 0; p < n; ++p) b[p] = std::sin(12.9898 * static_cast<double>(p + 1) * (seed + 1));
    return b;
}

}  // namespace

TEST_CASE("Fast direct on the GPU: both transforms in both directions, warp and partitioned lines", "[gpu][fast_direct]") {
    // L=6: lines of 63 unknowns, one warp each; L=9: 511, the partition method.
    for (int level : {6, 9}) {
        const char* line_solver = level == 6 ? "by one warp per line" : "by the partition method";
        const TensorMesh u1 = builtin_case("U1").mesh(level);
        const std::vector<double> b = rough_rhs(u1.nodes(), level);
        const std::vector<double> cholesky = direct_solve(assemble_stiffness(u1), b);
        for (FastAxis axis : {FastAxis::x, FastAxis::y})
            for (FastTransform transform : {FastTransform::sine, FastTransform::eigen})
                check_gpu(u1, b, axis, transform, cholesky, line_solver);
        for (const char* name : {"A2", "A5"}) {
            const CaseSpec spec = builtin_case(name);
            const TensorMesh mesh = spec.mesh(level);
            const std::vector<double> load = assemble_load(mesh, {spec.x.length, spec.y.length});
            const std::vector<double> reference = direct_solve(assemble_stiffness(mesh), load);
            for (FastAxis axis : {FastAxis::x, FastAxis::y})
                check_gpu(mesh, load, axis, FastTransform::automatic, reference, line_solver);
        }
    }
}

TEST_CASE("Fast direct on the GPU: all eight cases at L=10 as on the CPU, without refinement", "[gpu][fast_direct]") {
    for (const std::string& name : builtin_case_names()) {
        const CaseSpec spec = builtin_case(name);
        const TensorMesh mesh = spec.mesh(10);
        const PolynomialProblem problem{spec.x.length, spec.y.length};
        const std::vector<double> b = assemble_load(mesh, problem);
        FastDirectReport report, cpu_report;
        std::string method;
        const std::vector<double> gpu = solved(mesh, b, on(BackendKind::cuda), &report, &method);
        const std::vector<double> cpu = solved(mesh, b, on(BackendKind::cpu), &cpu_report);
        INFO(name << ": " << method << ", transform defect GPU " << report.first_defect / report.initial_defect
                  << ", CPU " << cpu_report.first_defect / cpu_report.initial_defect << ", L2 error GPU "
                  << relative_l2_error(mesh, problem, gpu) << ", CPU " << relative_l2_error(mesh, problem, cpu));
        CHECK(report.ok());
        CHECK(report.refinement_steps == 0);
        CHECK(relative_max_difference(gpu, cpu) < 1e-10);
        // As accurate as the CPU's Thomas lines: with every line by the partition method, U1's
        // transform defect was 12 times the CPU's (3.1e-10 against 2.5e-11, H200).
        CHECK(report.first_defect < 5.0 * cpu_report.first_defect);
    }
}

TEST_CASE("Fast direct on the GPU: one refinement step gives the discrete solution's L2 error at L=10",
          "[gpu][fast_direct]") {
    for (const std::string& name : builtin_case_names()) {
        const CaseSpec spec = builtin_case(name);
        const TensorMesh mesh = spec.mesh(10);
        const PolynomialProblem problem{spec.x.length, spec.y.length};
        FastDirectOptions options = on(BackendKind::cuda);
        options.min_refinements = 1;
        FastDirectReport report;
        const std::vector<double> x = solved(mesh, assemble_load(mesh, problem), options, &report);
        const double error = relative_l2_error(mesh, problem, x);
        const double reference = adimg_test::discrete_l2_error.at({name, 10});
        INFO(name << ": L2 error " << error << " against the discrete solution's " << reference << ", defect "
                  << report.final_defect / report.initial_defect);
        CHECK(report.ok());
        CHECK(report.refinement_steps == 1);
        CHECK(std::abs(error - reference) < 1e-6 * reference);
    }
}

TEST_CASE("Fast direct on the GPU: a 77 x 41 random mesh with boundary values, pinned b and x", "[gpu][fast_direct]") {
    std::mt19937 random(3);
    std::uniform_real_distribution<double> exponent(-4.0, 0.0);
    TensorMesh mesh{Mesh1D{std::vector<double>(77)}, Mesh1D{std::vector<double>(41)}};
    for (double& h : mesh.x.widths) h = std::pow(10.0, exponent(random));
    for (double& h : mesh.y.widths) h = std::pow(10.0, exponent(random));
    const std::vector<double> b = rough_rhs(mesh.nodes(), 7);
    const std::vector<double> cholesky = direct_solve(assemble_stiffness(mesh), b);
    for (FastAxis axis : {FastAxis::x, FastAxis::y}) check_gpu(mesh, b, axis, FastTransform::eigen, cholesky, "one warp");

    FastDirectSolver solver(on(BackendKind::cuda));
    solver.setup(mesh);
    pinned_vector<double> pb(b.begin(), b.end()), px(b.size());
    const FastDirectReport report = solver.solve(pb.data(), px.data());
    CHECK(report.ok());
    const int mx = mesh.mx(), my = mesh.my();
    for (int j = 0; j < my; ++j)
        for (int i = 0; i < mx; ++i)
            if (i == 0 || j == 0 || i == mx - 1 || j == my - 1) {
                const std::size_t p = static_cast<std::size_t>(j) * mx + i;
                CHECK(px[p] == b[p]);
            }
    CHECK(relative_max_difference(std::vector<double>(px.begin(), px.end()), cholesky) < 1e-10);
}

TEST_CASE("Fast direct on the GPU: setup assembles nothing, matrix() is the assembly, made when asked",
          "[gpu][fast_direct]") {
    // The device forms each row of its defect from the widths (q1_stiffness_row()), so the host
    // holds no matrix until matrix() is called, and then the same bits as assemble_stiffness().
    const TensorMesh mesh = builtin_case("A5").mesh(7);
    FastDirectSolver solver(on(BackendKind::cuda));
    solver.setup(mesh);
    CHECK(solver.matrix().values == assemble_stiffness(mesh).values);
}

TEST_CASE("Fast direct on the GPU: one solver set up again and again solves each mesh as a fresh one",
          "[gpu][fast_direct]") {
    // The backend starts once, when the solver is made; each setup replaces the transform (cuBLAS
    // or cuFFT), the lines and the vectors on it.
    FastDirectSolver reused(on(BackendKind::cuda));
    for (const TensorMesh& mesh : {builtin_case("A5").mesh(6), builtin_case("U1").mesh(9), builtin_case("A2").mesh(5)}) {
        const std::vector<double> b = rough_rhs(mesh.nodes(), 3);
        reused.setup(mesh);
        std::vector<double> x;
        CHECK(reused.solve(b, x).ok());
        CHECK(relative_max_difference(x, solved(mesh, b, on(BackendKind::cuda))) < 1e-14);
    }
    CHECK(reused.setup_count() == 3);
}

TEST_CASE("Fast direct on the GPU: refinement with the exact defect, as on the CPU", "[gpu][fast_direct]") {
    // Widths off uniform by up to 1e-8 taken as uniform: the transform solves a neighbouring
    // matrix, refinement the rest (tests/test_fast_direct.cpp has the same on the CPU).
    TensorMesh mesh = builtin_case("U1").mesh(9);
    for (std::size_t e = 0; e < mesh.x.widths.size(); ++e) mesh.x.widths[e] *= 1.0 + 1e-8 * std::sin(0.7 * e);
    const std::vector<double> b = assemble_load(mesh, {});
    FastDirectOptions options = on(BackendKind::cuda);
    options.uniform_tolerance = 1e-6;
    options.digits = 10;
    FastDirectReport gpu, cpu;
    const std::vector<double> x = solved(mesh, b, options, &gpu);
    options.backend = BackendKind::cpu;
    solved(mesh, b, options, &cpu);
    INFO("GPU defects: first " << gpu.first_defect / gpu.initial_defect << ", final "
                               << gpu.final_defect / gpu.initial_defect);
    CHECK(gpu.ok());
    CHECK(gpu.refinement_steps >= 1);
    CHECK(gpu.refinement_steps == cpu.refinement_steps);
    CHECK(relative_max_difference(x, direct_solve(assemble_stiffness(mesh), b)) < 1e-10);
}

TEST_CASE("Fast direct on the GPU: solve_case assembles b and measures the L2 error on the device, as solve() on the "
          "host's b",
          "[gpu][fast_direct]") {
    for (const char* name : {"U1", "A2", "A5"}) {
        INFO(name);
        FastDirectSolver solver(on(BackendKind::cuda));
        const adimg_test::CaseSolves s = adimg_test::solve_case_both_ways(solver, name, 7);
        const double error = s.host_error;
        INFO("solve_case " << s.on_backend.relative_l2_error << ", solve " << error << ", x differs by "
                           << relative_max_difference(s.x_case, s.x));
        CHECK(s.on_backend.report.ok());
        CHECK(s.on_backend.report.refinement_steps == s.on_host.refinement_steps);
        // The device's error measure of x_case, and the solve of the host's b.
        CHECK(std::abs(s.on_backend.relative_l2_error - s.x_case_error) <= 1e-12 * error);
        CHECK(std::abs(s.on_backend.relative_l2_error - error) <= 1e-12 * error);
        CHECK(solver.solve_case().relative_l2_error == s.on_backend.relative_l2_error);
    }
}
