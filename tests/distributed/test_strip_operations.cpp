// Each operation of the distributed backend against the CPU backend's on the whole grid, on
// random data: the stencil operations and transfers to rounding, the y-lines by PPT to 1e-13
// (double), PDD against its diagonal-dominance bound.

#include "strip_fixture.hpp"

#include <adimg/problems.hpp>

#include <catch2/catch.hpp>

namespace {

using namespace adimg;
using adimg::test::random_values;
using adimg::test::relative_difference;
using adimg::test::StripFixture;

/// A5 (the most anisotropic case) on levels 6 and 7, its split positions, and random vectors.
struct TwoLevels {
    CaseSpec spec = builtin_case("A5");
    TensorMesh coarse_mesh = spec.mesh(6), fine_mesh = spec.mesh(7);
    NineBands<double> coarse = assemble_stiffness(coarse_mesh), fine = assemble_stiffness(fine_mesh);
    std::vector<double> split_x = split_positions(coarse_mesh.x, fine_mesh.x);
    std::vector<double> split_y = split_positions(coarse_mesh.y, fine_mesh.y);
    std::vector<double> b = random_values(fine.rows(), 1), x = random_values(fine.rows(), 2);
    std::vector<double> xc = random_values(coarse.rows(), 3);
};

constexpr double rounding = 1e-15;

}  // namespace

TEST_CASE("the strip operations equal the CPU backend's on the whole grid", "[mpi]") {
    TwoLevels t;
    StripFixture f({{t.coarse.mx, t.coarse.my}, {t.fine.mx, t.fine.my}});
    CpuBackend cpu;
    auto A = f.be.make_matrix<double>(t.fine);
    auto b = f.strip<double>(t.b), x = f.strip<double>(t.x), out = f.strip<double>(t.x);
    std::vector<double> expected(t.b.size());

    cpu.defect(t.fine, t.b, t.x, expected);
    f.be.defect(A, b, x, out);
    CHECK(relative_difference(f.whole(out), expected) <= rounding);

    cpu.jacobi(t.fine, t.b, t.x, expected, 0.7);
    f.be.jacobi(A, b, x, out, 0.7);
    CHECK(relative_difference(f.whole(out), expected) <= rounding);

    for (SweepOrder order : {SweepOrder::forward, SweepOrder::backward}) {
        std::vector<double> swept = t.x;
        cpu.gauss_seidel(t.fine, t.b, swept, order);
        auto x_gs = f.strip<double>(t.x);
        f.be.gauss_seidel(A, b, x_gs, order);
        CHECK(relative_difference(f.whole(x_gs), swept) <= rounding);
    }

    cpu.line_relax(t.fine, t.b, t.x, expected, Direction::x, 0.7);
    f.be.line_relax(A, b, x, out, Direction::x, 0.7);
    CHECK(relative_difference(f.whole(out), expected) <= rounding);

    CHECK(f.be.dot(b, x) == Approx(cpu.dot(t.b, t.x)).epsilon(1e-13));
    CHECK(f.be.norm2(x) == Approx(cpu.norm2(t.x)).epsilon(1e-13));

    auto sx = f.be.make_vector<double>(t.split_x.size()), sy = f.be.make_vector<double>(t.split_y.size());
    f.be.upload(t.split_x, sx);
    f.be.upload(t.split_y, sy);
    std::vector<double> d(t.b.size()), restricted(t.coarse.rows());
    cpu.restrict_defect(t.fine, t.b, t.x, d, t.split_x, t.split_y, restricted);
    auto coarse = f.be.make_vector<double>(t.coarse.rows());
    f.be.restrict_defect(A, b, x, out, sx, sy, coarse);
    CHECK(relative_difference(f.whole(coarse), restricted) <= rounding);

    std::vector<double> prolonged = t.x;
    cpu.prolong_add(t.xc, t.split_x, t.split_y, prolonged, t.fine.mx, t.fine.my);
    auto fine_x = f.strip<double>(t.x);
    f.be.prolong_add(f.strip<double>(t.xc), sx, sy, fine_x, t.fine.mx, t.fine.my);
    CHECK(relative_difference(f.whole(fine_x), prolonged) <= rounding);
}

TEST_CASE("the y-lines by PPT equal the serial line solve to 1e-13 in double", "[mpi]") {
    TwoLevels t;
    StripFixture f({{t.coarse.mx, t.coarse.my}, {t.fine.mx, t.fine.my}});
    CpuBackend cpu;
    std::vector<double> expected(t.b.size());
    cpu.line_relax(t.fine, t.b, t.x, expected, Direction::y, 1.0);
    auto A = f.be.make_matrix<double>(t.fine);
    auto b = f.strip<double>(t.b), x = f.strip<double>(t.x), out = f.strip<double>(t.x);
    f.be.line_relax(A, b, x, out, Direction::y, 1.0);
    CHECK_FALSE(f.lines_of<double>(1).pdd);
    CHECK(relative_difference(f.whole(out), expected) <= 1e-13);
    // In float, the CPU backend's float Thomas to float's rounding of these lines.
    const NineBands<float> fine_f = convert_bands<float>(t.fine);
    const std::vector<float> bf_whole(t.b.begin(), t.b.end()), xf_whole(t.x.begin(), t.x.end());
    std::vector<float> expected_f(t.b.size());
    cpu.line_relax(fine_f, bf_whole, xf_whole, expected_f, Direction::y, 1.0f);
    auto Af = f.be.make_matrix<float>(t.fine);
    auto bf = f.strip<float>(t.b), xf = f.strip<float>(t.x), outf = f.strip<float>(t.x);
    f.be.line_relax(Af, bf, xf, outf, Direction::y, 1.0f);
    CHECK(relative_difference(f.whole(outf), std::vector<double>(expected_f.begin(), expected_f.end())) <= 1e-4);
}

namespace {

/// One y-line half-step (omega = 1) on A's strips with PDD asked for, against the CPU backend's
/// on the whole grid: the relative difference, and the line solve of the level. `forced`: PDD
/// whatever the backend chose.
std::pair<double, LineSolveInfo> pdd_against_serial(const NineBands<double>& A, bool forced) {
    StripFixture f({{A.mx, A.my}}, DistributedLines::pdd);
    const std::vector<double> b = random_values(A.rows(), 4), x = random_values(A.rows(), 5);
    std::vector<double> expected(A.rows());
    CpuBackend().line_relax(A, b, x, expected, Direction::y, 1.0);
    auto M = f.be.make_matrix<double>(A);
    auto bs = f.strip<double>(b), xs = f.strip<double>(x), out = f.strip<double>(x);
    if (forced) {
        YLineWork<double> work;
        f.be.refresh_halos(xs);
        distributed_y_lines(f.context->comm, M, bs, xs, out, 1.0, true, work);
    } else {
        f.be.line_relax(M, bs, xs, out, Direction::y, 1.0);
    }
    return {relative_difference(f.whole(out), expected), f.lines_of<double>(0)};
}

}  // namespace

TEST_CASE("PDD is taken where its bound is below rounding and is exact there; elsewhere PPT", "[mpi]") {
    // U1: y-line dominance 4, so with 32 or more rows per rank the dropped couplings are below
    // 0.25^31 / 0.75 = 3e-19. A5: dominance 1 + 1e-4, PDD would drop couplings of order one.
    for (const char* name : {"U1", "A5"}) {
        const auto [error, info] = pdd_against_serial(assemble_stiffness(builtin_case(name).mesh(7)), false);
        INFO(name << ": dominance " << info.dominance << ", bound " << info.pdd_bound);
        CHECK(info.pdd == (std::string(name) == "U1"));
        CHECK(error <= 1e-13);
    }
}

TEST_CASE("PDD's error stays within its diagonal-dominance bound", "[mpi]") {
    // U1's matrix with its diagonal scaled by 0.3: y-line dominance 1.2, and with 32 to 129 rows
    // per rank a bound of 2e-2 to 4e-10, which PDD's error must respect (PDD forced here).
    NineBands<double> A = assemble_stiffness(builtin_case("U1").mesh(7));
    for (std::size_t p = 0; p < A.rows(); ++p)
        if (A(S, p) != 0.0) A(C, p) *= 0.3;
    const auto [error, info] = pdd_against_serial(A, true);
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
