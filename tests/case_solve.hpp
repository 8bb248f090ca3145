// A built-in case solved through the public Solver on its rediscretized levels: the report, the
// solution and its relative L2 error against the exact solution. Shared by the multigrid tests
// and the outer methods' (krylov_harness.hpp).
#pragma once

#include <adimg/hierarchy.hpp>
#include <adimg/problems.hpp>
#include <adimg/solver.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace adimg_test {

struct CaseRun {
    adimg::SolveReport report;
    std::vector<double> x;
    double error = 0.0;  ///< relative L2 error against the exact solution
};

/// Case `name` at `level` with `options` (backend included), from a zero guess.
inline CaseRun solve_case(const std::string& name, int level, const adimg::SolverOptions& options) {
    const adimg::CaseSpec spec = adimg::builtin_case(name);
    const adimg::TensorMesh mesh = spec.mesh(level);
    const adimg::PolynomialProblem problem{spec.x.length, spec.y.length};
    adimg::Solver solver(options);
    solver.setup(adimg::rediscretized_hierarchy(spec, level, std::min(options.coarse_level, level)));
    CaseRun run;
    run.report = solver.solve(adimg::assemble_load(mesh, problem), run.x);
    run.error = adimg::relative_l2_error(mesh, problem, run.x);
    return run;
}

}  // namespace adimg_test
