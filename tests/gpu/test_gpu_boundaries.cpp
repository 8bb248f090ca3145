// Natural boundaries solved on the GPU (issue 27): the Neumann, Robin, mixed and pure Neumann
// problems of test_boundaries.cpp on graded and deformed meshes, with the CUDA backend, against
// Eigen's direct solve and the CPU backend's iteration counts.

#include <adimg/solver.hpp>

#include <catch2/catch.hpp>

#include "../boundary_problems.hpp"

#include <cmath>
#include <cstdio>
#include <numeric>
#include <vector>

using namespace adimg;
using namespace adimg_test;

namespace {

constexpr EdgeCondition D = EdgeCondition::dirichlet, Nm = EdgeCondition::neumann, R = EdgeCondition::robin;

SolveReport solve(const FemMesh& mesh, const FemSystem& system, BackendKind backend, Precision precision,
                  std::vector<double>& x) {
    SolverOptions options;
    options.backend = backend;
    options.precision = precision;
    options.digits = 10;
    Solver solver(options);
    solver.setup(GridMatrix::from_eigen(mesh.grid, system.A));
    x.clear();
    return solver.solve(system.b, x);
}

}  // namespace

TEST_CASE("GPU: Neumann, Robin, mixed and pure Neumann edges match a direct solve to 1e-8 with the CPU backend's "
          "iterations (graded and deformed meshes at L=8)",
          "[gpu][boundary]") {
    const EdgeConditions posed[] = {{D, D, D, D}, {D, Nm, Nm, Nm}, {R, R, R, R}, {D, Nm, D, R}, {Nm, Nm, Nm, Nm}};
    for (const FemMesh& mesh : {graded_mesh(8), deformed_mesh(8)})
        for (const EdgeConditions& edges : posed)
            for (const Precision precision : {Precision::mixed, Precision::double_}) {
                INFO(mesh.name << " mesh, edges " << int(edges[0]) << int(edges[1]) << int(edges[2]) << int(edges[3])
                               << " (0 Dirichlet, 1 Neumann, 2 Robin), " << to_string(precision));
                const FemSystem system = assemble(mesh, edges);
                std::vector<double> x_gpu, x_cpu;
                const SolveReport gpu = solve(mesh, system, BackendKind::cuda, precision, x_gpu);
                const SolveReport cpu = solve(mesh, system, BackendKind::cpu, precision, x_cpu);
                std::printf("%s, edges %d%d%d%d, %s: GPU %s, CPU %s\n", mesh.name.c_str(), int(edges[0]), int(edges[1]),
                            int(edges[2]), int(edges[3]), to_string(precision).c_str(), gpu.iterations().c_str(),
                            cpu.iterations().c_str());
                REQUIRE(gpu.ok());
                CHECK(std::abs(gpu.outer_iterations - cpu.outer_iterations) <= 1);
                CHECK(relative_difference(x_gpu, reference_solution(system, pure_neumann(edges))) <= 1e-8);
            }
}

TEST_CASE("GPU: row-only Dirichlet rows and a Dirichlet point inside a Neumann edge", "[gpu][boundary]") {
    const FemMesh mesh = deformed_mesh(7);
    const int point = (mesh.my / 2) * mesh.mx + mesh.mx - 1;
    const FemSystem row_only = assemble(mesh, {D, Nm, Nm, R}, true, 1.0, {point});
    const FemSystem symmetric = assemble(mesh, {D, Nm, Nm, R}, false, 1.0, {point});
    std::vector<double> x;
    REQUIRE(solve(mesh, row_only, BackendKind::cuda, Precision::mixed, x).ok());
    CHECK(relative_difference(x, reference_solution(symmetric, false)) <= 1e-8);
}
