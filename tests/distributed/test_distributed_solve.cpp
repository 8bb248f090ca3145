// DistributedSolver on CPU ranks against the serial Solver (CPU backend): the same iteration
// counts and the same relative L2 error, to 1e-10 (relative) at L=7 and to 1e-8 at L=8 and 9 in
// double (the rounding of the sums' order against a smaller L2 error), on 1 to 4 ranks; a case
// stacked in y (weak scaling) too.

#include "../boundary_problems.hpp"
#include "solve_checks.hpp"

#include <algorithm>

namespace {

using namespace adimg;
using namespace adimg::test;

/// The default options on CPU ranks (and the serial CPU backend), with `smoother`.
SolverOptions with(Smoother smoother = SolverOptions{}.smoother) {
    SolverOptions options;
    options.backend = BackendKind::cpu;
    options.smoother = smoother;
    return options;
}

const Smoother smoothers[] = {Smoother::jacobi, Smoother::gauss_seidel, Smoother::adi};

}  // namespace

TEST_CASE("distributed solves equal the serial solve at L=7: every case, every smoother", "[mpi]") {
    for (const std::string& name : builtin_case_names())
        for (Smoother smoother : smoothers) {
            INFO(name << " at L=7 with " << to_string(smoother));
            const CaseSpec spec = builtin_case(name);
            check_same(serial(spec, 7, with(smoother)), distributed(spec, 7, with(smoother)), Precision::mixed);
        }
}

TEST_CASE("in double precision, the same L2 errors to 1e-10 at L=7: every case, every smoother", "[mpi]") {
    for (const std::string& name : builtin_case_names())
        for (Smoother smoother : smoothers) {
            INFO(name << " at L=7 with " << to_string(smoother) << " in double");
            const CaseSpec spec = builtin_case(name);
            SolverOptions o = with(smoother);
            o.precision = Precision::double_;
            check_same(serial(spec, 7, o), distributed(spec, 7, o), o.precision);
        }
}

TEST_CASE("in double precision, the same iteration counts and L2 errors to 1e-8 at L=8 and 9: every case, every "
          "smoother",
          "[mpi]") {
    for (const std::string& name : builtin_case_names())
        for (int level : {8, 9})
            for (Smoother smoother : smoothers) {
                INFO(name << " at L=" << level << " with " << to_string(smoother) << " in double");
                const CaseSpec spec = builtin_case(name);
                SolverOptions o = with(smoother);
                o.precision = Precision::double_;
                // check_same compares solves of up to 50 steps; the point smoothers' long solves on
                // the graded cases (hundreds of steps) stop at 51, where it reports them.
                o.max_iterations = 51;
                // The two solutions differ by the order of the sums (the ranks' dot products, PPT
                // against Thomas in the y-lines): measured up to 90 eps of ||u|| on 2-4 ranks, which
                // is 4.8e-9 of the L2 error once it falls to 4e-6 at L=9 (2e-10 at L=8); solving
                // on to 12 digits leaves the same 1e-10..3.5e-10 and lets the stagnation steps differ.
                check_same(serial(spec, level, o), distributed(spec, level, o), o.precision, 1e-8);
            }
}

TEST_CASE("distributed solves equal the serial solve at L=8 and 9 in mixed precision: U1, A2, A5", "[mpi]") {
    for (const char* name : {"U1", "A2", "A5"})
        for (int level : {8, 9})
            for (Smoother smoother : smoothers) {
                if (level == 9 && smoother != Smoother::adi) continue;  // the CI's time: ADI only at L=9
                INFO(name << " at L=" << level << " with " << to_string(smoother));
                const CaseSpec spec = builtin_case(name);
                check_same(serial(spec, level, with(smoother)), distributed(spec, level, with(smoother)), Precision::mixed);
            }
}

TEST_CASE("a user's matrix (Galerkin levels), whole or in each rank's rows, solves as the serial solver solves it",
          "[mpi]") {
    const CaseSpec spec = builtin_case("A3");
    const Outcome expected = serial(spec, 7, with(), Setup::matrix);
    for (Setup setup : {Setup::matrix, Setup::rows}) {
        INFO((setup == Setup::rows ? "each rank's rows" : "the whole matrix"));
        check_same(expected, distributed(spec, 7, with(), setup), Precision::mixed);
    }
}

TEST_CASE("a matrix with a natural edge or row-only Dirichlet rows is refused, saying which solver takes it", "[mpi]") {
    using adimg_test::assemble;
    using adimg_test::EdgeCondition;
    constexpr EdgeCondition D = EdgeCondition::dirichlet, N = EdgeCondition::neumann;
    const adimg_test::FemMesh mesh = adimg_test::deformed_mesh(4);
    DistributedSolver solver(MPI_COMM_WORLD);
    const GridMatrix neumann = GridMatrix::from_eigen(mesh.grid, assemble(mesh, {D, N, D, D}).A);
    CHECK_THROWS_WITH(solver.setup(neumann), Catch::Contains("a natural (Neumann or Robin) edge") &&
                                                 Catch::Contains("adimg::Solver"));
    const GridMatrix pure = GridMatrix::from_eigen(mesh.grid, assemble(mesh, {N, N, N, N}).A);
    CHECK_THROWS_WITH(solver.setup(pure), Catch::Contains("natural edges on all four sides"));
    const GridMatrix row_only = GridMatrix::from_eigen(mesh.grid, assemble(mesh, {D, D, D, D}, true).A);
    REQUIRE_FALSE(row_only.eliminated().empty());
    CHECK_THROWS_WITH(solver.setup(row_only), Catch::Contains("row-only"));
    // The same matrix with its couplings removed from the Dirichlet rows' columns too is taken.
    CHECK_NOTHROW(solver.setup(GridMatrix::from_eigen(mesh.grid, assemble(mesh, {D, D, D, D}).A)));
}

TEST_CASE("other settings run through the same operations: flexible CG outside, PCG on the coarsest grid", "[mpi]") {
    for (const char* name : {"U2", "A5"}) {
        SolverOptions cg = with(), pcg = with();
        cg.outer = OuterMethod::cg;
        pcg.coarse_solver = CoarseSolver::pcg;
        const CaseSpec spec = builtin_case(name);
        INFO(name << " at L=7, flexible CG");
        check_same(serial(spec, 7, cg), distributed(spec, 7, cg), Precision::mixed);
        INFO(name << " at L=7, PCG on the coarsest grid");
        check_same(serial(spec, 7, pcg), distributed(spec, 7, pcg), Precision::mixed);
    }
}

TEST_CASE("with PDD asked for, U1 solves as with PPT", "[mpi]") {
    const CaseSpec spec = builtin_case("U1");
    check_same(serial(spec, 8, with()), distributed(spec, 8, with(), Setup::levels, DistributedLines::pdd),
               Precision::mixed);
}

TEST_CASE("a case stacked once per rank (weak scaling; twice on one rank) solves as the serial solver solves it",
          "[mpi]") {
    int ranks = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    for (const char* name : {"U1", "A2"}) {
        const CaseSpec spec = stacked(builtin_case(name), std::max(ranks, 2));
        INFO(spec.name << " at L=7 (129 x " << spec.mesh(7).my() << " nodes) on " << ranks << " ranks");
        check_same(serial(spec, 7, with()), distributed(spec, 7, with()), Precision::mixed);
    }
    // Four ranks' weak scaling: two copies in each direction, every layer on the domain's edges.
    const CaseSpec square = stacked(builtin_case("A5"), 2, 2);
    INFO(square.name << " at L=6 on " << ranks << " ranks");
    check_same(serial(square, 6, with()), distributed(square, 6, with()), Precision::mixed);
}

TEST_CASE("one solver set up again with other levels solves as a fresh one: a replicated coarsest level, then a "
          "distributed one",
          "[mpi]") {
    // coarse_level 6: at L = 8 the coarsest (65 x 65) is replicated; at L = 6 it is the only
    // level, distributed, and its right-hand side gathered with that layout's cut.
    SolverOptions options = with();
    options.coarse_level = 6;
    const CaseSpec spec = builtin_case("U1");
    DistributedSolver solver(MPI_COMM_WORLD, options);
    const Outcome first = solve_case(solver, spec, 8, Setup::levels);
    check_same(serial(spec, 8, options), first, Precision::mixed);
    const Outcome again = solve_case(solver, spec, 6, Setup::levels);
    check_same(serial(spec, 6, options), again, Precision::mixed);
    check_same(distributed(spec, 6, options), again, Precision::mixed);
}
