// The library's own limits (issue 40, findings 2, 6 and 10): levels and grids checked before
// anything is allocated, calls in the wrong order or on a moved-from Solver refused instead of
// crashing, and failures whose advice fits their cause. Each table row is one way the library
// used to fail.

#include <adimg/error.hpp>
#include <adimg/grid.hpp>
#include <adimg/io.hpp>
#include <adimg/problems.hpp>
#include <adimg/solver.hpp>

#include <catch2/catch.hpp>

#include <Eigen/Dense>

#include <chrono>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

using namespace adimg;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

/// The message of the exception `call` throws, with its kind: "input: ...", "logic: ...", or
/// "none" if it returns.
std::string thrown_by(const std::function<void()>& call) {
    try {
        call();
    } catch (const input_error& e) {
        return std::string("input: ") + e.what();
    } catch (const std::logic_error& e) {
        return std::string("logic: ") + e.what();
    }
    return "none";
}

SolverOptions on_cpu() {
    SolverOptions options;
    options.backend = BackendKind::cpu;
    return options;
}

}  // namespace

TEST_CASE("Levels and grids too large for indices or memory are refused before any allocation", "[library-limits]") {
    struct Row {
        int level;
        const char* expected;
    };
    // Level 40 allocated 23 GB in 70 s before the kernel killed it; 16 and 20 threw bad_alloc.
    const std::vector<Row> rows = {{40, "level 40 is outside 1..15"},
                                   {20, "level 20 is outside 1..15"},
                                   {16, "level 16 is outside 1..15: its (2^16+1)^2 = 4.3e+09 nodes exceed the 32-bit"},
                                   {0, "level 0 is outside 1..15"}};
    for (const Row& row : rows) {
        Solver solver(on_cpu());
        const auto start = std::chrono::steady_clock::now();
        const std::string error = thrown_by([&] { solver.setup(builtin_case("A2"), row.level); });
        INFO("level " << row.level << ": " << error);
        CHECK(contains(error, std::string("input: setup: ") + row.expected));
        CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(1));
    }
    // Memory: the budget a level needs against what the machine (here a given budget) has.
    const MemoryBudget small{1e9, "this test's machine has"};
    const std::string error = thrown_by([&] { check_level(13, 176.0, "the solve", small, "setup: level"); });
    CHECK(contains(error, "input: setup: level 13: the solve needs about 11 GiB of memory, but this test's machine "
                          "has 0.931 GiB; use a lower level"));
    CHECK(thrown_by([&] { check_level(10, 176.0, "the solve", small); }) == "none");
}

TEST_CASE("Calls before setup or on a moved-from Solver are refused, never a crash", "[library-limits]") {
    struct Row {
        const char* call;
        std::function<void(Solver&)> run;
        const char* expected;
    };
    const std::vector<Row> before_setup = {
        {"levels", [](Solver& s) { (void)s.levels(); }, "input: levels: call setup() with the matrix before levels()"},
        {"solve", [](Solver& s) { std::vector<double> x; (void)s.solve(std::vector<double>(9, 1.0), x); },
         "input: solve: call setup()"},
    };
    for (const Row& row : before_setup) {
        Solver solver(on_cpu());
        INFO(row.call << " before setup");
        CHECK(contains(thrown_by([&] { row.run(solver); }), row.expected));
    }
    const std::vector<Row> moved_from = {
        {"levels", [](Solver& s) { (void)s.levels(); }, "logic: Solver::levels on a moved-from Solver"},
        {"device_name", [](Solver& s) { (void)s.device_name(); }, "logic: Solver::device_name on a moved-from Solver"},
        {"setup_times", [](Solver& s) { (void)s.setup_times(); }, "logic: Solver::setup_times on a moved-from Solver"},
    };
    for (const Row& row : moved_from) {
        Solver solver(on_cpu());
        solver.setup(builtin_case("U1"), 4);
        Solver taken = std::move(solver);
        INFO(row.call << " on a moved-from Solver");
        CHECK(contains(thrown_by([&] { row.run(solver); }), row.expected));
        CHECK(taken.levels().back().level == 4);
    }
}

TEST_CASE("A right-hand side below double's normal range is refused, not called a diverging smoother",
          "[library-limits]") {
    const CaseSpec spec = builtin_case("U1");
    const TensorMesh mesh = spec.mesh(5);
    Solver solver(on_cpu());
    solver.setup(GridMatrix(Grid::from_mesh(mesh), assemble_stiffness(mesh)));
    for (double size : {1e-320, 1e-312}) {
        std::vector<double> b = assemble_load(mesh, {1.0, 1.0}), x;
        for (double& v : b) v *= size;
        INFO("b scaled by " << size);
        CHECK(contains(thrown_by([&] { (void)solver.solve(b, x); }), "lies below the normal range of double"));
    }
    // Small but normal: solved.
    std::vector<double> b = assemble_load(mesh, {1.0, 1.0}), x;
    for (double& v : b) v *= 1e-300;
    CHECK(solver.solve(b, x).ok());
}

TEST_CASE("A singular matrix and an iteration cap get advice that fits them", "[library-limits]") {
    // U1 on 17 x 17, the unknowns' diagonal lowered by the smallest eigenvalue (the edge rows,
    // identity rows without couplings, hold eigenvalue 1): singular, with a smooth null vector
    // that no smoothing or damping can resolve.
    const CaseSpec spec = builtin_case("U1");
    const TensorMesh mesh = spec.mesh(4);
    NineBands<double> bands = assemble_stiffness(mesh);
    const int n = static_cast<int>(bands.rows());
    Eigen::MatrixXd dense = Eigen::MatrixXd::Zero(n, n);
    for (int p = 0; p < n; ++p)
        for (int k = 0; k < 9; ++k) {
            const int q = p + (k / 3 - 1) * bands.mx + (k % 3 - 1);
            const double a = bands.values[static_cast<std::size_t>(k) * n + p];
            if (a != 0.0) dense(p, q) = a;
        }
    const double lowest = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(dense).eigenvalues()(0);
    for (int j = 1; j + 1 < bands.my; ++j)
        for (int i = 1; i + 1 < bands.mx; ++i) bands.values[static_cast<std::size_t>(4) * n + j * bands.mx + i] -= lowest;
    const std::vector<double> b = assemble_load(mesh, {1.0, 1.0});

    struct Row {
        const char* what;
        OuterMethod outer;
        int max_iterations;
        const char* expected;
        const char* not_expected;
    };
    const std::vector<Row> rows = {
        {"singular, CG", OuterMethod::cg, 500, "indefinite or singular matrix", "line_omega"},
        {"singular, refinement", OuterMethod::refinement, 500, "indefinite or singular matrix", "line_omega"},
    };
    for (const Row& row : rows) {
        SolverOptions options = on_cpu();
        options.outer = row.outer;
        options.max_iterations = row.max_iterations;
        Solver solver(options);
        solver.setup(GridMatrix(Grid::from_mesh(mesh), bands, MatrixChecks{1e-10}));
        std::vector<double> x;
        const SolveReport report = solver.solve(b, x);
        INFO(row.what << ": " << to_string(report.status) << ": " << report.message);
        CHECK_FALSE(report.ok());
        CHECK(contains(report.message, row.expected));
        CHECK_FALSE(contains(report.message, row.not_expected));
    }
    // A cap of one step on a good matrix: raise the cap, not the smoothing.
    SolverOptions options = on_cpu();
    options.max_iterations = 1;
    Solver solver(options);
    const TensorMesh fine = spec.mesh(7);
    solver.setup(GridMatrix(Grid::from_mesh(fine), assemble_stiffness(fine)));
    std::vector<double> x;
    const SolveReport report = solver.solve(assemble_load(fine, {1.0, 1.0}), x);
    INFO(report.message);
    CHECK(report.status == SolveStatus::max_iterations);
    CHECK(contains(report.message, "raise SolverOptions::max_iterations"));
    CHECK_FALSE(contains(report.message, "smoothing steps"));
}

TEST_CASE("Stored zeros are ignored wherever they stand in an Eigen matrix", "[library-limits]") {
    // GridMatrix::from_eigen refused a zero stored between nodes that are not neighbours.
    const TensorMesh mesh = builtin_case("A2").mesh(4);
    const NineBands<double> bands = assemble_stiffness(mesh);
    const Grid grid = Grid::from_mesh(mesh);
    struct Row {
        const char* where;
        int p, q;
    };
    const int mx = grid.mx();
    const std::vector<Row> rows = {
        {"far apart", 20, 200}, {"two nodes apart in x", 40, 42}, {"two grid rows apart", 40, 40 + 2 * mx}};
    for (const Row& row : rows) {
        Eigen::SparseMatrix<double> S = to_eigen(bands);
        S.insert(row.p, row.q) = 0.0;  // a stored zero where the bands have no entry
        S.insert(row.q, row.p) = 0.0;
        INFO("a zero stored " << row.where << ": (" << row.p << ", " << row.q << ")");
        std::string error;
        try {
            const GridMatrix A = GridMatrix::from_eigen(grid, S);
            CHECK(A.bands().values == bands.values);
        } catch (const input_error& e) {
            error = e.what();
        }
        CHECK(error.empty());
    }
}
