// Each operation of the distributed backend on CPU ranks against the CPU backend's on the whole
// grid, on random data (strip_checks.hpp): the stencil operations and transfers to rounding, the
// y-lines by PPT to 1e-13 (double), PDD against its diagonal-dominance bound.

#include "strip_checks.hpp"

#include "distributed/cpu_rank.hpp"

namespace {

using namespace adimg;
using namespace adimg::test;

}  // namespace

TEST_CASE("the strip operations equal the CPU backend's on the whole grid", "[mpi]") {
    check_strip_operations<CpuRank>(1e-15, 1e-15);
}

TEST_CASE("the y-lines by PPT equal the serial line solve to 1e-13 in double", "[mpi]") { check_ppt_lines<CpuRank>(); }

TEST_CASE("PDD is taken where its bound is below rounding and is exact there; elsewhere PPT", "[mpi]") {
    check_pdd_choice<CpuRank>();
}

TEST_CASE("PDD's error stays within its diagonal-dominance bound", "[mpi]") {
    // U1's matrix with its diagonal scaled by 0.3: y-line dominance 1.2, and with 32 to 129 rows
    // per rank a bound of 2e-2 to 4e-10, which PDD's error must respect (PDD forced here).
    NineBands<double> A = assemble_stiffness(builtin_case("U1").mesh(7));
    for (std::size_t p = 0; p < A.rows(); ++p)
        if (A(S, p) != 0.0) A(C, p) *= 0.3;
    const auto [error, info] = pdd_against_serial<CpuRank>(A, true);
    INFO("dominance " << info.dominance << ", rows per rank " << info.rows_per_rank << ", bound " << info.pdd_bound
                      << ", PDD's relative error " << error);
    CHECK(info.dominance == Approx(1.2).epsilon(1e-3));
    CHECK_FALSE(info.pdd);  // not chosen by the backend: the bound is far above rounding
    CHECK(error <= 10.0 * info.pdd_bound + 1e-14);
    WARN("PDD with dominance " << info.dominance << ", " << info.rows_per_rank << " rows per rank: relative error "
                               << error << ", bound " << info.pdd_bound);
}

TEST_CASE("more ranks than the coarsest grid allows is an input error that names the limit", "[mpi]") {
    int ranks = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    if (ranks < 2) return;
    // 3 rows (two elements) on the coarsest level: room for one rank.
    CHECK_THROWS_WITH(StripLayout({{3, 3}, {5, 5}}, ranks), Catch::Contains("use at most 1 ranks"));
}
