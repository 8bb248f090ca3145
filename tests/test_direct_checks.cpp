// The direct solve's own checks (issue 40, finding 3): a singular, indefinite or non-symmetric
// matrix fails the solve instead of returning a wrong x as solved, and a pure Neumann matrix is
// solved as multigrid solves it (b's component along the constant removed, x of zero mean). Each
// row runs through the library (direct_solve) and, where the CLI takes the matrix, through
// `adimg solve --matrix ... --solver direct`.

#include "boundary_problems.hpp"
#include "cli_runner.hpp"

#include <adimg/grid.hpp>
#include <adimg/io.hpp>
#include <adimg/problems.hpp>

#include <Eigen/Dense>
#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>
#include <numeric>

using namespace adimg;
using namespace adimg_test;

namespace {

/// A system on a 17 x 17 grid, how it is given to the library, and what its direct solve must do.
struct Row {
    std::string name;
    Eigen::SparseMatrix<double> A;  ///< as the CLI reads it
    NineBands<double> bands;        ///< as the library takes it
    std::vector<double> b;
    bool single = false;
    bool solved = false;
    std::string message;           ///< a part of the library's message ("" for none)
    std::vector<double> expected;  ///< the solution where solved (of zero mean for pure Neumann)
    bool cli = true;               ///< the CLI takes the matrix (it refuses a non-symmetric one)
};

constexpr int nodes = 17;  // per direction: level 4

std::vector<double> as_vector(const Eigen::VectorXd& v) { return std::vector<double>(v.data(), v.data() + v.size()); }

/// U1's matrix and load vector at level 4 (Dirichlet rows the identity's).
Row u1(const std::string& name) {
    const CaseSpec spec = builtin_case("U1");
    const TensorMesh mesh = spec.mesh(4);
    Row row{name, to_eigen(assemble_stiffness(mesh)), {}, assemble_load(mesh, PolynomialProblem{spec.x.length, spec.y.length})};
    return row;
}

/// The solution by a dense LDLT: independent of the sparse factor under test.
std::vector<double> dense_solution(const Eigen::SparseMatrix<double>& A, const std::vector<double>& b) {
    const Eigen::Map<const Eigen::VectorXd> rhs(b.data(), static_cast<Eigen::Index>(b.size()));
    return as_vector(Eigen::MatrixXd(A).ldlt().solve(rhs));
}

/// U1's matrix with the unknowns' diagonal lowered by the smallest eigenvalue of their block:
/// singular, and still passing the CLI's certificates of positive definiteness.
Eigen::SparseMatrix<double> shifted_singular(Eigen::SparseMatrix<double> A) {
    std::vector<int> unknowns;
    for (int p = 0; p < A.cols(); ++p)
        if (A.col(p).nonZeros() > 1) unknowns.push_back(p);
    const Eigen::MatrixXd dense(A);
    Eigen::MatrixXd block(unknowns.size(), unknowns.size());
    for (std::size_t r = 0; r < unknowns.size(); ++r)
        for (std::size_t c = 0; c < unknowns.size(); ++c) block(r, c) = dense(unknowns[r], unknowns[c]);
    const double smallest = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(block, Eigen::EigenvaluesOnly).eigenvalues()[0];
    for (int p : unknowns) A.coeffRef(p, p) -= smallest;
    return A;
}

std::vector<Row> rows() {
    std::vector<Row> out;
    for (bool single : {false, true}) {
        Row good = u1(std::string("a symmetric positive definite system in ") + (single ? "float" : "double"));
        good.single = single;
        good.solved = true;
        good.expected = dense_solution(good.A, good.b);
        out.push_back(good);

        Row singular = u1(std::string("a shifted singular matrix in ") + (single ? "float" : "double"));
        singular.A = shifted_singular(singular.A);
        singular.single = single;
        singular.message = "singular to working precision";
        out.push_back(singular);
    }
    // An entry above the diagonal changed alone: the factor, which reads the lower triangle, solves
    // another matrix.
    Row asymmetric = u1("a non-symmetric matrix");
    const int p = 8 * nodes + 8;
    asymmetric.A.coeffRef(p, p + 1) *= 2.0;
    asymmetric.message = "is it symmetric?";
    asymmetric.cli = false;
    out.push_back(asymmetric);

    // Pure Neumann: the reference removes b's mean, pins node 0 and returns x of zero mean.
    const FemMesh mesh = graded_mesh(4);
    const FemSystem neumann = assemble(mesh, {EdgeCondition::neumann, EdgeCondition::neumann, EdgeCondition::neumann,
                                              EdgeCondition::neumann});
    Row incompatible{"a pure Neumann matrix with an incompatible b", neumann.A, {}, neumann.b};
    incompatible.solved = true;
    incompatible.message = "pure Neumann (constant null space) and b had a component along the constant";
    incompatible.expected = reference_solution(neumann, true);
    out.push_back(incompatible);
    Row compatible = incompatible;
    compatible.name = "a pure Neumann matrix with a compatible b";
    const double mean = std::accumulate(compatible.b.begin(), compatible.b.end(), 0.0) / compatible.b.size();
    for (double& v : compatible.b) v -= mean;
    compatible.message.clear();
    out.push_back(compatible);

    // The library takes a pure Neumann matrix with its natural edges, as GridMatrix finds them.
    for (Row& row : out)
        row.bands = row.cli ? GridMatrix::from_eigen(Grid(nodes, nodes), row.A).bands() : from_eigen(row.A, nodes, nodes);
    return out;
}

double mean_of(const std::vector<double>& x) { return std::accumulate(x.begin(), x.end(), 0.0) / x.size(); }

/// The solution's checks: close to the expected one, to the precision's rounding.
void check_solution(const Row& row, const std::vector<double>& x) {
    REQUIRE(x.size() == row.expected.size());
    CHECK(relative_difference(x, row.expected) < (row.single ? 1e-4 : 1e-10));
    double scale = 0.0;
    for (double v : row.expected) scale = std::max(scale, std::abs(v));
    CHECK(std::abs(mean_of(x) - mean_of(row.expected)) <= (row.single ? 1e-5 : 1e-12) * scale);
}

}  // namespace

TEST_CASE("The direct solve fails a singular or non-symmetric matrix and solves pure Neumann as multigrid does",
          "[direct-checks]") {
    for (const Row& row : rows()) {
        INFO(row.name);
        if (!row.solved) {
            CHECK_THROWS_WITH(direct_solve(row.bands, row.b, row.single), Catch::Contains(row.message));
            continue;
        }
        check_solution(row, direct_solve(row.bands, row.b, row.single));
        const DirectSolveReport report = direct_solve_checked(row.bands, row.b, row.single);
        CHECK(report.solved);
        if (row.message.empty())
            CHECK(report.message.empty());
        else
            CHECK_THAT(report.message, Catch::Contains(row.message));
    }
}

TEST_CASE("adimg solve --solver direct: a failed check is status failed, exit 1 and no x unless --write-failed",
          "[direct-checks][cli]") {
    if (!have_cli()) return;
    const TempDir dir("direct_checks");
    for (const Row& row : rows()) {
        if (!row.cli) continue;
        INFO(row.name);
        write_matrix_market(dir.file("A.mtx"), row.A);
        write_matrix_market(dir.file("b.mtx"), row.b);
        const std::string command = "solve --matrix " + (dir / "A.mtx") + " --grid 17x17 --rhs " + (dir / "b.mtx") +
                                    " --solver direct" + (row.single ? " --precision single" : "") + " --out ";
        std::filesystem::remove(dir.file("x.mtx"));
        const CliResult plain = run_cli(command + (dir / "x.mtx"));
        INFO(plain.output);
        CHECK(plain.status == (row.solved ? 0 : 1));
        CHECK_THAT(plain.output, Catch::Contains(row.solved ? "status solved" : "status failed"));
        CHECK(std::filesystem::exists(dir.file("x.mtx")) == row.solved);
        if (row.solved) {
            CHECK_THAT(plain.output, Catch::Contains(row.message));  // a pure Neumann b's note, as the library gives it
            check_solution(row, read_matrix_market_vector(dir.file("x.mtx")));
            continue;
        }
        const CliResult kept = run_cli(command + (dir / "x.mtx") + " --write-failed");
        CHECK(kept.status == 1);
        std::ifstream file(dir.file("x.mtx"));
        const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
        CHECK_THAT(text, Catch::Contains("NOT A SOLUTION"));
    }
}
