#pragma once
// FastDirectSolver::solve_case() beside solve() on the host's b, for the CPU and GPU tests: one
// case set up at one level, solved both ways.

#include <adimg/fast_direct.hpp>
#include <adimg/problems.hpp>

#include <vector>

namespace adimg_test {

/// The two solves of one case: solve_case() (b assembled and the L2 error measured by the
/// backend, x_case its solution) and solve() of the host's load vector (x, its error measured
/// on the host).
struct CaseSolves {
    adimg::FastDirectCaseReport on_backend;
    std::vector<double> x_case;
    adimg::FastDirectReport on_host;
    std::vector<double> x;
    double host_error = 0.0;  ///< relative L2 error of x, measured on the host
    double x_case_error = 0.0;  ///< relative L2 error of x_case, measured on the host
};

inline CaseSolves solve_case_both_ways(adimg::FastDirectSolver& solver, const char* name, int level) {
    const adimg::CaseSpec spec = adimg::builtin_case(name);
    solver.setup(spec, level);
    CaseSolves out;
    out.on_backend = solver.solve_case(&out.x_case);
    const adimg::TensorMesh mesh = spec.mesh(level);
    const adimg::PolynomialProblem problem{spec.x.length, spec.y.length};
    out.on_host = solver.solve(adimg::assemble_load(mesh, problem), out.x);
    out.host_error = adimg::relative_l2_error(mesh, problem, out.x);
    out.x_case_error = adimg::relative_l2_error(mesh, problem, out.x_case);
    return out;
}

}  // namespace adimg_test
