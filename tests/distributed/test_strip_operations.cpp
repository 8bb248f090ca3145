// Each operation of the distributed backend on CPU ranks against the CPU backend's on the whole
// grid, on random data (strip_checks.hpp): the stencil operations and transfers to rounding, the
// y-lines by PPT to 1e-13 (double), PDD against its diagonal-dominance bound; and a y-line part
// in chunks (the GPU ranks' way) against Thomas, on the host.

#include "strip_checks.hpp"

#include "distributed/cpu_rank.hpp"
#include "distributed/distributed_lines.hpp"

#include <random>

namespace {

using namespace adimg;
using namespace adimg::test;

}  // namespace

TEST_CASE("the strip operations equal the CPU backend's on the whole grid", "[mpi]") {
    check_strip_operations<CpuRank>(1e-15, 1e-15);
}

TEST_CASE("the y-lines by PPT equal the serial line solve to 1e-13 in double", "[mpi]") { check_ppt_lines<CpuRank>(); }

TEST_CASE("a y-line sweep leaves its result's halos as an exchange would, bit for bit", "[mpi]") {
    check_sweep_halos<CpuRank>();
}

TEST_CASE("PDD is taken where its bound is below rounding and is exact there, elsewhere PPT", "[mpi]") {
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
    CHECK_THROWS_WITH(StripLayout({{3, 3}, {5, 5}}, ranks, 0), Catch::Contains("use at most 1 ranks"));
}

TEST_CASE("levels that do not halve exactly (a grid of any size) are an input error that names them", "[mpi]") {
    // 1000 x 77 nodes coarsen to 501 x 39 (docs/design.md §3): no strips (first_uneven_level).
    CHECK(first_uneven_level({{33, 17}, {65, 33}}) == -1);
    CHECK(first_uneven_level({{501, 39}, {1000, 77}}) == 1);
    CHECK_THROWS_WITH(StripLayout({{501, 39}, {1000, 77}}, 1, 0),
                      Catch::Contains("level 1 has 1000 x 77 nodes and the level below 501 x 39") &&
                          Catch::Contains("single-process solver"));
}

TEST_CASE("levels up to a size are replicated: the cut is made on the coarsest distributed one", "[mpi]") {
    int ranks = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    // 3 x 3 and 5 x 5 replicated (at most 25 nodes), 9 x 9 and 17 x 17 distributed: room for
    // four ranks on 9 x 9, where all four levels distributed leave room for one.
    const std::vector<std::pair<int, int>> grids{{3, 3}, {5, 5}, {9, 9}, {17, 17}};
    if (ranks > 4) return;
    const StripLayout layout(grids, ranks, 25);
    CHECK(layout.level(0).replicated);
    CHECK(layout.level(1).replicated);
    CHECK_FALSE(layout.level(2).replicated);
    CHECK_FALSE(layout.level(3).replicated);
    for (int r = 0; r < ranks; ++r) {
        CHECK(layout.level(1).held_first(r) == 0);
        CHECK(layout.level(1).held_rows(r) == 5);
        CHECK(layout.level(2).rows(r) >= 2);
        CHECK(layout.level(3).first[r] == 2 * layout.level(2).first[r]);
        // A replicated level's cut: coarse row J with the rank of fine row 2J.
        for (int J = layout.level(1).first[r]; J < layout.level(1).first[r + 1]; ++J) {
            CHECK(2 * J >= layout.level(2).first[r]);
            CHECK(2 * J < layout.level(2).first[r + 1]);
        }
    }
    CHECK(layout.level(1).first[ranks] == 5);
    // The finest level is never replicated, however small.
    CHECK_FALSE(StripLayout({{3, 3}, {5, 5}}, 1, 1000).level(1).replicated);
}

TEST_CASE("a y-line part cut into chunks, as GPU ranks solve it, equals Thomas on the line", "[mpi]") {
    // Lines of 37 unit-diagonal rows (|a| + |c| <= 0.8), alone on one rank: the part's coupling
    // equations form the line's 2 x 2 system; 1, 2, 3, 5 and 18 chunks (two rows or more each).
    // The strip's matrix holds only the y-lines' bands (S, C = 1, N; storage row r + 1 is row r).
    const int mx = 3, m = 37;
    std::mt19937 gen(7);
    std::uniform_real_distribution<double> coupling(-0.4, 0.4), value(-1.0, 1.0);
    std::vector<double> a(m * mx), c(m * mx), v(m * mx);
    for (int q = 0; q < m * mx; ++q) {
        a[q] = q < mx ? 0.0 : coupling(gen);
        c[q] = q >= (m - 1) * mx ? 0.0 : coupling(gen);
        v[q] = value(gen);
    }
    NineBands<double> strip(mx, m + 2);
    std::vector<double> b(strip.rows(), 0.0);
    for (int q = 0; q < m * mx; ++q) {
        strip(S, q + mx) = a[q];
        strip(C, q + mx) = 1.0;
        strip(N, q + mx) = c[q];
        b[q + mx] = v[q];
    }
    for (int chunks : {1, 2, 3, 5, 18}) {
        std::vector<double> pa(m * mx), pc(pa.size()), pv(pa.size()), ra(2 * chunks * mx), rc(ra.size()), rv(ra.size());
        std::vector<double> ends(y_line_end_words * mx), solved(2 * mx), x_in(strip.rows(), 0.0), x_out(x_in.size());
        for (int i = 0; i < mx; ++i) {
            for (int k = 0; k < chunks; ++k)
                y_chunk_reduce(view(strip), b.data(), x_in.data(), pa.data(), pc.data(), pv.data(), ra.data(),
                               rc.data(), rv.data(), m, chunks, i, k);
            y_line_reduce(ra.data(), rc.data(), rv.data(), mx, chunks, i, ends.data());
            CrEquation<double> pair[2] = {{ends[6 * i], ends[6 * i + 1], ends[6 * i + 2]},
                                          {ends[6 * i + 3], ends[6 * i + 4], ends[6 * i + 5]}};
            solve_unit_tridiagonal(pair, 2);
            y_line_fill(ra.data(), rc.data(), rv.data(), mx, chunks, i, pair[0].v, pair[1].v);
            for (int k = 0; k < chunks; ++k)
                y_chunk_finish(pa.data(), pc.data(), pv.data(), rv.data(), mx, m, chunks, i, k, x_in.data(), x_out.data(),
                               1.0);
            std::vector<CrEquation<double>> line(m);
            for (int r = 0; r < m; ++r) line[r] = {a[r * mx + i], c[r * mx + i], v[r * mx + i]};
            solve_unit_tridiagonal(line.data(), m);
            double worst = 0.0;
            for (int r = 0; r < m; ++r) worst = std::max(worst, std::abs(x_out[(r + 1) * mx + i] - line[r].v));
            INFO(chunks << " chunks, line " << i);
            CHECK(worst <= 1e-14);
        }
    }
}
