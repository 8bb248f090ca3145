// DistributedFastDirectSolver on CPU ranks against the serial FastDirectSolver (CPU, x
// transformed, as the distributed solver always does): the same status and refinement steps, the
// same solution to 1e-10 (relative, max norm) and, with one refinement step, the same relative L2
// error to 1e-10 (relative); its line solve (PPT across the ranks, each rank's part by the chunked
// partition method that GPU ranks run too) against the serial Thomas of the same systems; Neumann
// edges; solve_case; the choice of the ranks' backend; what it refuses; and what a solve sends.
// Run on 1 to 4 ranks.

#include <adimg/distributed_fast_direct.hpp>
#include <adimg/error.hpp>
#include <adimg/fast_direct.hpp>
#include <adimg/problems.hpp>

#include "distributed/communicator.hpp"
#include "distributed/cpu_rank.hpp"
#include "distributed/rank_engines.hpp"
#include "distributed/strip_defect.hpp"
#include "distributed/strip_lines.hpp"
#include "fast_direct/difference_defect.hpp"
#include "fast_direct/plan.hpp"
#include "fast_direct/separable_matrix.hpp"

#include "fast_direct_checks.hpp"

#include <catch2/catch.hpp>

#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace {

using namespace adimg;
using namespace adimg::test;

}  // namespace

TEST_CASE("the distributed fast direct solve equals the serial one: every case at L=7, 8 and 9", "[mpi][fast-direct]") {
    // With the default options the refinement stops once the defect meets the criterion, which
    // does not see the transform solve's smooth error (its rounding amplified by the condition of
    // the lowest modes; include/adimg/fast_direct.hpp, Accuracy): the line solves by PPT and by
    // Thomas round differently, so the solutions agree to that error (measured: 1.3e-12 on 2
    // ranks), and their L2 errors, 1e-4 to 1e-5 of the solution, to about 3e-7 of it (U1 at L=9).
    // One refinement step removes it: then both are the discrete solution to its doubles, and the
    // L2 errors agree (measured: 5.4e-12). Each rank assembles its rows of the load vector and sums
    // its part of the L2 error (solve_case).
    check_every_case(BackendKind::cpu, 1e-10);
}

TEST_CASE("the PPT line solve across the ranks equals the serial Thomas of the same systems", "[mpi][fast-direct]") {
    // Both are backward stable: their solutions satisfy each other's system to rounding,
    // |A_k (w_ppt - w_thomas)| <= 1e-13 |A_k| |w_thomas| row by row (measured: below 1e-14 on 1
    // to 4 ranks). Their forward difference is that amplified by the condition of the line,
    // which for the lowest modes is that of the 1D Laplacian across y: below 1e-13 of the
    // solution on U1's and A5's lines (8e-14 measured); A2's (line conditions up to 2e9) leave
    // 1.5e-13, Neumann ends in y (a singular K_y) up to 2.7e-12, and A5's Neumann end beside
    // elements of 1e-18 (an ill-determined matrix, fast_direct.hpp) 3e-3.
    struct Lines {
        const char* name;
        FastDirectEdges edges;
        bool forward;  ///< the forward difference checked, to 1e-13
    };
    FastDirectEdges neumann_y;
    neumann_y.y_low = neumann_y.y_high = EdgeCondition::neumann;
    for (const Lines& lines : {Lines{"U1", {}, true}, Lines{"A5", {}, true}, Lines{"A2", {}, false},
                               Lines{"U1", neumann_y, false}, Lines{"A2", neumann_y, false}, Lines{"A5", neumann_y, false}}) {
        INFO(lines.name << (lines.edges.all_dirichlet() ? ", Dirichlet" : ", Neumann") << " ends in y, L=8");
        const TensorMesh mesh = builtin_case(lines.name).mesh(8);
        const fast_direct::Plan plan = fast_direct::make_plan(mesh, lines.edges, along_x());
        DistributedFastDirectSolver solver(MPI_COMM_WORLD);  // for the rows of each rank
        solver.setup(mesh, lines.edges);
        const RowRange rows = solver.rows();
        const int nt = plan.nt;
        // Every grid row's right-hand side of every mode (mode k of row j at j nt + k); the
        // rows of Dirichlet edges' equations are w = 0.
        const std::vector<double> w = pseudo_random(static_cast<std::size_t>(plan.my) * nt, 8);
        std::vector<double> expected(w.size(), 0.0);
        std::vector<double> inverse_pivot(plan.nl), upper(plan.nl);
        // Entry d (-1, 0, 1) of row l of mode k's line matrix.
        auto entry = [&](int k, int l, int d) {
            const fast_direct::Pencil& p = plan.line;
            if (d == 0) return plan.alpha[k] * p.m_diag[l] + plan.beta[k] * p.k_diag[l];
            const int e = d < 0 ? l - 1 : l;
            return plan.alpha[k] * p.m_off[e] + plan.beta[k] * p.k_off[e];
        };
        for (int k = 0; k < nt; ++k) {
            // Thomas with thomas_factors(), as the serial CPU engine solves mode k.
            fast_direct::thomas_factors(plan, k, inverse_pivot.data(), upper.data(), 1);
            auto at = [&](int l) -> double& { return expected[static_cast<std::size_t>(l + plan.l_first) * nt + k]; };
            for (int l = 0; l < plan.nl; ++l) at(l) = w[static_cast<std::size_t>(l + plan.l_first) * nt + k];
            at(0) *= inverse_pivot[0];
            for (int l = 1; l < plan.nl; ++l) at(l) = (at(l) - entry(k, l, -1) * at(l - 1)) * inverse_pivot[l];
            for (int l = plan.nl - 2; l >= 0; --l) at(l) -= upper[l] * at(l + 1);
        }
        Communicator comm(MPI_COMM_WORLD);
        StripLines strip_lines(comm, plan, rows.first, rows.count);
        const std::size_t first = static_cast<std::size_t>(rows.first) * nt, count = static_cast<std::size_t>(rows.count) * nt;
        std::vector<double> mine(w.begin() + first, w.begin() + first + count);
        strip_lines.solve(mine.data());
        std::vector<double> got(w.size());
        std::vector<int> counts(comm.size());
        const int mine_count = static_cast<int>(count);
        comm.allgather(&mine_count, 1, counts.data());
        comm.allgatherv(mine.data(), counts, got.data());
        // Row by row, |A_k (got - expected)| / (|A_k| |expected|).
        double backward = 0.0;
        for (int k = 0; k < nt; ++k)
            for (int l = 0; l < plan.nl; ++l) {
                double product = 0.0, size = 0.0;
                for (int d = -1; d <= 1; ++d) {
                    if (l + d < 0 || l + d >= plan.nl) continue;
                    const std::size_t q = static_cast<std::size_t>(l + d + plan.l_first) * nt + k;
                    product += entry(k, l, d) * (got[q] - expected[q]);
                    size += std::abs(entry(k, l, d) * expected[q]);
                }
                if (size > 0.0) backward = std::max(backward, std::abs(product) / size);
            }
        const double forward = max_relative_difference(got, expected);
        INFO("PPT and Thomas differ by " << forward << " (relative, max norm); in the line systems by " << backward
                                         << " (row by row, relative to |A| |w|)");
        CHECK(backward <= 1e-13);
        if (lines.forward) CHECK(forward <= 1e-13);
    }
}

TEST_CASE("the strip defect equals the serial difference-form defect bit for bit", "[mpi][fast-direct]") {
    // Dirichlet edges (each rank's rows by the Q1 row formula) and Neumann edges (rows of the
    // separable matrix), on an even cut of the rows.
    FastDirectEdges neumann;
    neumann.x_low = neumann.y_low = neumann.y_high = EdgeCondition::neumann;
    for (const FastDirectEdges& edges : {FastDirectEdges{}, neumann}) {
        INFO((edges.all_dirichlet() ? "Dirichlet" : "Neumann") << " edges, A4 at L=7");
        const TensorMesh mesh = builtin_case("A4").mesh(7);
        const auto A = std::make_shared<const NineBands<double>>(
            edges.all_dirichlet() ? assemble_stiffness(mesh) : fast_direct::separable_matrix(mesh, edges));
        const std::vector<double> sums = fast_direct::row_sums(*A);
        const std::vector<double> b = pseudo_random(A->rows(), 1), x = pseudo_random(A->rows(), 2);
        auto context = std::make_shared<DistributedContext>(MPI_COMM_WORLD, DistributedLines::ppt);
        context->layout = StripLayout({{mesh.mx(), mesh.my()}}, context->comm.size());
        StripBackend<CpuRank> be(context);
        const RowRange rows = be.rows();
        const std::size_t offset = static_cast<std::size_t>(rows.first) * mesh.mx();
        auto b_strip = be.make_vector<double>(A->mx, A->my), x_strip = be.make_vector<double>(A->mx, A->my),
             d_strip = be.make_vector<double>(A->mx, A->my);
        be.upload(b.data() + offset, b_strip.size(), b_strip);
        be.upload(x.data() + offset, x_strip.size(), x_strip);
        StripDefect defect(be, mesh, edges.all_dirichlet() ? nullptr : A);
        defect(b_strip, x_strip, d_strip);
        std::vector<double> d(d_strip.size());
        be.download(d_strip, d.data());
        int differing = 0;
        for (int r = 0; r < rows.count; ++r)
            for (int i = 0; i < mesh.mx(); ++i)
                differing += d[static_cast<std::size_t>(r) * mesh.mx() + i] !=
                             fast_direct::difference_defect(view(*A), sums.data(), b.data(), x.data(), i, rows.first + r);
        CHECK(differing == 0);
    }
}

TEST_CASE("Neumann edges: the distributed fast direct solve equals the serial one", "[mpi][fast-direct]") {
    // With one refinement step, as above (without it, A3's with three Neumann edges differ by
    // 8e-10: the transform solve meets the criterion, and its smooth error stays). Cosine modes (Neumann at both x ends), eigenvectors (Neumann at one x end), Neumann rows in
    // the lines (y ends), on uniform and graded meshes.
    FastDirectEdges x_both, x_low_y_high, three;
    x_both.x_low = x_both.x_high = EdgeCondition::neumann;
    x_low_y_high.x_low = x_low_y_high.y_high = EdgeCondition::neumann;
    three.x_low = three.x_high = three.y_low = EdgeCondition::neumann;
    for (const char* name : {"U1", "A2", "A3"})
        for (const FastDirectEdges& edges : {x_both, x_low_y_high, three}) {
            INFO(name << " at L=8, Neumann at x = 0: " << (edges.x_low == EdgeCondition::neumann) << ", x = 1: "
                      << (edges.x_high == EdgeCondition::neumann) << ", y = 0: " << (edges.y_low == EdgeCondition::neumann)
                      << ", y = 1: " << (edges.y_high == EdgeCondition::neumann));
            const TensorMesh mesh = builtin_case(name).mesh(8);
            const std::vector<double> b = pseudo_random(static_cast<std::size_t>(mesh.nodes()), 3);
            check_same(serial(mesh, edges, b, along_x(1)), distributed(mesh, edges, b, along_x(1)));
        }
}

TEST_CASE("a mesh without multigrid levels is cut evenly, and solves as the serial solver solves it", "[mpi][fast-direct]") {
    check_uneven_mesh(BackendKind::cpu);
}

TEST_CASE("backend automatic runs on CPU ranks where a rank has no GPU, and says why", "[mpi][fast-direct]") {
    std::string why;
    if (cuda_ranks_usable(&why)) return;  // GPU ranks: test_gpu_fast_direct.cpp
    DistributedFastDirectSolver solver(MPI_COMM_WORLD);
    CHECK(solver.backend() == BackendKind::cpu);
    CHECK_THAT(solver.notice(), Catch::Contains("no usable GPU") && Catch::Contains("running on CPU ranks"));
    FastDirectOptions cuda;
    cuda.backend = BackendKind::cuda;
    CHECK_THROWS_WITH(DistributedFastDirectSolver(MPI_COMM_WORLD, cuda),
                      Catch::Contains("backend cuda asked of the distributed fast direct solver") &&
                          Catch::Contains("no usable GPU"));
}

TEST_CASE("the distributed fast direct solver refuses what it cannot solve, on every rank alike", "[mpi][fast-direct]") {
    FastDirectOptions axis_y;
    axis_y.axis = FastAxis::y;
    CHECK_THROWS_WITH(DistributedFastDirectSolver(MPI_COMM_WORLD, axis_y), Catch::Contains("transforms x"));
    FastDirectOptions digits;
    digits.digits = 20.0;
    CHECK_THROWS_AS(DistributedFastDirectSolver(MPI_COMM_WORLD, digits), input_error);
    FastDirectEdges all;
    all.x_low = all.x_high = all.y_low = all.y_high = EdgeCondition::neumann;
    DistributedFastDirectSolver solver(MPI_COMM_WORLD);
    CHECK_THROWS_WITH(solver.setup(builtin_case("U1").mesh(6), all), Catch::Contains("only FastDirectSolver"));
    CHECK_THROWS_WITH(solver.rows(), Catch::Contains("before setup()"));
}

TEST_CASE("what a solve sends: one all-gather per transform solve, one halo exchange and one norm per defect",
          "[mpi][fast-direct]") {
    check_sends(BackendKind::cpu);
}
