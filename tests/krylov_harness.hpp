#pragma once
// The outer methods (src/solver/outer_solve.hpp) on the CPU backend, assembled from their parts
// as the engine assembles them: a built-in case's mesh hierarchy, the inner multigrid in float
// (mixed) or double, and the double outer vectors.

#include <adimg/problems.hpp>
#include <adimg/report.hpp>

#include <cpu/cpu_backend.hpp>
#include <problems/mesh_hierarchy.hpp>
#include <solver/outer_solve.hpp>

#include <algorithm>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace adimg::testing {

/// No fallback: the inner cycles' failures are the status (SolverOptions::fallback_to_double = false).
struct NoFallback {
    bool available() const { return false; }
    template <class Vector, class Apply>
    bool operator()(const Vector&, double, OuterStep&, Apply&&) const { return false; }
};

struct OuterRun {
    SolveReport report;
    std::vector<double> x;
    double error = 0.0;  ///< relative L2 error against the exact solution
};

/// Case `name` at `level` solved by outer_solve() with the V-cycles in precision Inner (float:
/// mixed, double: double) and the outer iteration in double.
template <class Inner>
OuterRun outer_run(const std::string& name, int level, SolverOptions options) {
    if (std::is_same_v<Inner, double>) options.inner = {InnerStop::Kind::cycles, 1};
    const CaseSpec spec = builtin_case(name);
    const MeshHierarchy meshes = mesh_hierarchy(spec, level, std::min(options.coarse_level, level));
    const TensorMesh& mesh = meshes.finest().mesh;
    const PolynomialProblem problem{spec.x.length, spec.y.length};
    CpuBackend be;
    Multigrid<CpuBackend, Inner> mg(be, meshes, options);
    const NineBands<double> A = assemble_stiffness(mesh);
    const std::vector<double> load = assemble_load(mesh, problem);
    CpuBackend::vector<double> b(load.begin(), load.end()), x(b.size()), x_next(b.size()), d(b.size());
    KrylovVectors<CpuBackend, double> krylov;
    InnerMultigrid<CpuBackend, double, Inner> inner(be, mg, options);
    auto inner_step = [&](auto&&... args) { return inner.correct(std::forward<decltype(args)>(args)...); };
    OuterRun run;
    outer_solve<CpuBackend, double>(be, A, b, x, x_next, d, true, inner_step, NoFallback{}, options, nullptr, run.report,
                                    krylov);
    run.x.assign(x.begin(), x.end());
    run.error = relative_l2_error(mesh, problem, x.data());
    return run;
}

}  // namespace adimg::testing
