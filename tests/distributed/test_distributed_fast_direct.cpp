// DistributedFastDirectSolver on CPU ranks against the serial FastDirectSolver (CPU, x
// transformed, as the distributed solver always does): the same status and refinement steps, the
// same solution to 1e-10 (relative, max norm) and, with one refinement step, the same relative L2
// error to 1e-10 (relative); its line solve (PPT across the ranks) against the serial Thomas of
// the same systems; Neumann edges; what it refuses; and what a solve sends. Run on 1 to 4 ranks.

#include <adimg/distributed_fast_direct.hpp>
#include <adimg/error.hpp>
#include <adimg/fast_direct.hpp>
#include <adimg/problems.hpp>

#include "distributed/communicator.hpp"
#include "distributed/strip_defect.hpp"
#include "distributed/strip_lines.hpp"
#include "fast_direct/difference_defect.hpp"
#include "fast_direct/plan.hpp"
#include "fast_direct/separable_matrix.hpp"

#include <catch2/catch.hpp>

#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace {

using namespace adimg;

/// The serial solver's options as the distributed solver runs: CPU, x transformed; at least
/// `min_refinements` refinement steps.
FastDirectOptions along_x(int min_refinements = 0) {
    FastDirectOptions options;
    options.backend = BackendKind::cpu;
    options.axis = FastAxis::x;
    options.min_refinements = min_refinements;
    return options;
}

/// n reproducible values in [-1, 1), the same on every rank.
std::vector<double> pseudo_random(std::size_t n, std::uint64_t seed) {
    std::vector<double> v(n);
    std::uint64_t state = seed * 0x9E3779B97F4A7C15ull + 1;
    for (double& x : v) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        x = static_cast<double>(state >> 11) * 0x1.0p-52 - 1.0;
    }
    return v;
}

/// max |a - b| / max |b|
double max_relative_difference(const std::vector<double>& a, const std::vector<double>& b) {
    double difference = 0.0, size = 0.0;
    for (std::size_t p = 0; p < b.size(); ++p) {
        difference = std::max(difference, std::abs(a[p] - b[p]));
        size = std::max(size, std::abs(b[p]));
    }
    return difference / size;
}

struct Solved {
    FastDirectReport report;
    std::vector<double> x;  ///< the whole grid
};

Solved serial(const TensorMesh& mesh, const FastDirectEdges& edges, const std::vector<double>& b,
              const FastDirectOptions& options = along_x()) {
    FastDirectSolver solver(options);
    solver.setup(mesh, edges);
    Solved s;
    s.report = solver.solve(b, s.x);
    return s;
}

Solved distributed(const TensorMesh& mesh, const FastDirectEdges& edges, const std::vector<double>& b,
                   const FastDirectOptions& options = along_x()) {
    DistributedFastDirectSolver solver(MPI_COMM_WORLD, options);
    solver.setup(mesh, edges);
    const RowRange rows = solver.rows();
    const std::size_t offset = static_cast<std::size_t>(rows.first) * solver.mx();
    std::vector<double> mine(static_cast<std::size_t>(rows.count) * solver.mx());
    Solved s;
    s.report = solver.solve(b.data() + offset, mine.data());
    s.x = solver.gather(mine.data());
    return s;
}

/// The same status and refinement steps, and the same solution to 1e-10 (relative, max norm).
void check_same(const Solved& serial, const Solved& distributed) {
    const double difference = max_relative_difference(distributed.x, serial.x);
    INFO("serial: " << to_string(serial.report.status) << ", " << serial.report.refinement_steps
                    << " refinement steps, defect " << serial.report.final_defect << "; distributed: "
                    << to_string(distributed.report.status) << ", " << distributed.report.refinement_steps
                    << " steps, defect " << distributed.report.final_defect << "; solutions differ by " << difference
                    << " (relative, max norm)");
    CHECK(distributed.report.status == serial.report.status);
    CHECK(distributed.report.refinement_steps == serial.report.refinement_steps);
    CHECK(difference <= 1e-10);
}

}  // namespace

TEST_CASE("the distributed fast direct solve equals the serial one: every case at L=7, 8 and 9", "[mpi][fast-direct]") {
    // With the default options the refinement stops once the defect meets the criterion, which
    // does not see the transform solve's smooth error (its rounding amplified by the condition of
    // the lowest modes; include/adimg/fast_direct.hpp, Accuracy): the line solves by PPT and by
    // Thomas round differently, so the solutions agree to that error (measured: 2.5e-12 on 1 to 4
    // ranks), and their L2 errors, 1e-4 to 1e-5 of the solution, to about 3e-7 of it (U1 at L=9).
    // One refinement step removes it: then both are the discrete solution to its doubles, and the
    // L2 errors agree (measured: 5.4e-12).
    for (const std::string& name : builtin_case_names())
        for (int level : {7, 8, 9})
            for (int min_refinements : {0, 1}) {
                INFO(name << " at L=" << level << ", at least " << min_refinements << " refinement steps");
                const CaseSpec spec = builtin_case(name);
                const TensorMesh mesh = spec.mesh(level);
                const PolynomialProblem problem{spec.x.length, spec.y.length};
                const std::vector<double> b = assemble_load(mesh, problem);
                const FastDirectOptions options = along_x(min_refinements);
                const Solved expected = serial(mesh, {}, b, options), got = distributed(mesh, {}, b, options);
                check_same(expected, got);
                if (min_refinements == 0) continue;
                const double l2 = relative_l2_error(mesh, problem, expected.x);
                const double difference = std::abs(relative_l2_error(mesh, problem, got.x) - l2) / l2;
                INFO("relative L2 error " << l2 << ", the distributed solution's off by " << difference << " of it");
                CHECK(difference <= 1e-10);
            }
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
        StripBackend be(context);
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
    std::vector<double> hx(37), hy(45);
    for (std::size_t e = 0; e < hx.size(); ++e) hx[e] = 1.0 + 0.5 * std::sin(double(e));
    for (std::size_t e = 0; e < hy.size(); ++e) hy[e] = 1.0 / (1.0 + e);
    const TensorMesh mesh{Mesh1D{hx}, Mesh1D{hy}};
    const std::vector<double> b = pseudo_random(static_cast<std::size_t>(mesh.nodes()), 5);
    check_same(serial(mesh, {}, b, along_x(1)), distributed(mesh, {}, b, along_x(1)));
}

TEST_CASE("the distributed fast direct solver refuses what it cannot solve, on every rank alike", "[mpi][fast-direct]") {
    FastDirectOptions cuda, axis_y;
    cuda.backend = BackendKind::cuda;
    axis_y.axis = FastAxis::y;
    CHECK_THROWS_WITH(DistributedFastDirectSolver(MPI_COMM_WORLD, cuda), Catch::Contains("runs on CPU ranks"));
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
    const CaseSpec spec = builtin_case("A2");
    const TensorMesh mesh = spec.mesh(8);
    const std::vector<double> b = assemble_load(mesh, PolynomialProblem{spec.x.length, spec.y.length});
    DistributedFastDirectSolver solver(MPI_COMM_WORLD);
    solver.setup(mesh);
    const RowRange rows = solver.rows();
    std::vector<double> x(static_cast<std::size_t>(rows.count) * solver.mx());
    const FastDirectReport report = solver.solve(b.data() + static_cast<std::size_t>(rows.first) * solver.mx(), x.data());
    const CommunicationCounts sent = solver.communication();
    const int transforms = report.outer_iterations, neighbours = (solver.rank() > 0) + (solver.rank() + 1 < solver.ranks());
    INFO(transforms << " transform solves; " << sent.messages << " messages, " << sent.collectives << " collectives");
    REQUIRE(report.ok());
    CHECK(sent.messages == static_cast<long long>(transforms) * neighbours);
    CHECK(sent.message_bytes == static_cast<long long>(transforms) * neighbours * solver.mx() * 8);
    // ||b||, then per transform solve its all-gather (6 doubles per mode) and its defect's norm.
    CHECK(sent.collectives == 1 + 2LL * transforms);
    CHECK(sent.collective_bytes == 8 + transforms * (6LL * 8 * (mesh.mx() - 2) + 8));
}
