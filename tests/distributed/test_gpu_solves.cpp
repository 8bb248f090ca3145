// DistributedSolver on GPU ranks against the serial Solver on the GPU: A2 and A5 at L = 7..9
// with each smoother give the same statuses and iteration counts, and relative L2 errors equal
// to 1e-9 in double precision (1e-7 in mixed, where float rounding differs; solve_checks.hpp).
//
// Not to 1e-10 as on CPU ranks: there the distributed solve does the serial solve's arithmetic
// but for the order of its sums and PPT for Thomas; on GPU ranks the y-lines are solved by the
// chunked partition method instead of the serial GPU solver's line kernels, and the x-lines'
// and reductions' rounding differs likewise. Measured on the H200 (b07b6e7; iteration counts
// equal everywhere): in double up to 4.6e-10 on one rank (A2, L=9, ADI: the y-line method
// alone), 6.0e-10 on two (A2, L=9, ADI), 3.1e-10 with Gauss–Seidel (A2, L=9, two and four
// ranks: sums in another order); every other combination below 1e-10.

#include "solve_checks.hpp"

namespace {

using namespace adimg;
using namespace adimg::test;

SolverOptions on_gpu(Smoother smoother, Precision precision) {
    SolverOptions options;
    options.backend = BackendKind::cuda;
    options.smoother = smoother;
    options.precision = precision;
    return options;
}

}  // namespace

TEST_CASE("GPU ranks solve A2 and A5 at L=7..9 as the serial GPU solver: every smoother, double and mixed",
          "[gpu][mpi]") {
    for (const char* name : {"A2", "A5"})
        for (int level : {7, 8, 9})
            for (Smoother smoother : {Smoother::jacobi, Smoother::gauss_seidel, Smoother::adi})
                for (Precision precision : {Precision::double_, Precision::mixed}) {
                    INFO(name << " at L=" << level << " with " << to_string(smoother) << " in " << to_string(precision));
                    const CaseSpec spec = builtin_case(name);
                    const SolverOptions options = on_gpu(smoother, precision);
                    check_same(serial(spec, level, options), distributed(spec, level, options), precision, 1e-9);
                }
}

TEST_CASE("GPU ranks: a user's matrix (Galerkin levels) and flexible CG with PCG on the coarsest grid", "[gpu][mpi]") {
    const CaseSpec spec = builtin_case("A3");
    SolverOptions options = on_gpu(Smoother::adi, Precision::mixed);
    check_same(serial(spec, 7, options, Setup::matrix), distributed(spec, 7, options, Setup::rows), Precision::mixed);
    options.coarse_solver = CoarseSolver::pcg;
    check_same(serial(spec, 7, options), distributed(spec, 7, options), Precision::mixed);
}
