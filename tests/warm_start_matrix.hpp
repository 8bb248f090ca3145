// Warm starts (docs/design.md §5), the test body that test_warm_start.cpp runs on the tested
// backend (the CPU in adimg_tests, CUDA in adimg_gpu_tests): a solve from a guess good to 0, 2, 5,
// 8 or 12 digits, and from the converged answer of a cold solve, in every precision and outer
// method. The stop is measured against ||b||, so a guess that already meets it comes back at once
// and untouched; a solve never returns an x whose defect is larger than its guess's; the report's
// final defect is the defect of the x returned.
#pragma once

#include <adimg/grid.hpp>
#include <adimg/io.hpp>
#include <adimg/problems.hpp>
#include <adimg/solver.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace adimg_test::warm_start {

using namespace adimg;

/// ||b - A x|| of a nine-band matrix, and a bound on its rounding noise, eps ||(|A| |x| + |b|)||
/// with eps of the solve's outer precision (what its computed defect may differ by), both in
/// long double.
struct Defect {
    double norm = 0.0, noise = 0.0;
};

inline Defect defect_of(const NineBands<double>& A, const std::vector<double>& b, const std::vector<double>& x, double eps) {
    const int mx = A.mx, my = A.my;
    long double sum = 0.0L, noise = 0.0L;
    for (int j = 0; j < my; ++j)
        for (int i = 0; i < mx; ++i) {
            const std::size_t p = static_cast<std::size_t>(j) * mx + i;
            long double r = b[p], magnitude = std::abs(b[p]);
            for (int dy = -1; dy <= 1; ++dy)
                for (int dx = -1; dx <= 1; ++dx) {
                    if (i + dx < 0 || i + dx >= mx || j + dy < 0 || j + dy >= my) continue;
                    const double a = A.values[static_cast<std::size_t>(3 * (dy + 1) + dx + 1) * A.rows() + p];
                    const double xq = x[p + static_cast<std::ptrdiff_t>(dy) * mx + dx];
                    r -= static_cast<long double>(a) * xq;
                    magnitude += std::abs(static_cast<long double>(a) * xq);
                }
            sum += r * r;
            noise += magnitude * magnitude;
        }
    return {static_cast<double>(std::sqrt(sum)),
            eps * static_cast<double>(std::sqrt(noise))};
}

inline double norm2(const std::vector<double>& v) {
    long double sum = 0.0L;
    for (double e : v) sum += static_cast<long double>(e) * e;
    return static_cast<double>(std::sqrt(sum));
}

/// x_exact + a perturbation of relative size 10^-digits (smooth and rough parts, seeded).
inline std::vector<double> guess_good_to(const std::vector<double>& x_exact, int digits, int mx) {
    std::vector<double> x = x_exact;
    std::mt19937 random(12345u + static_cast<unsigned>(digits));
    std::uniform_real_distribution<double> noise(-1.0, 1.0);
    const double size = std::pow(10.0, -digits) * norm2(x_exact) / std::sqrt(static_cast<double>(x.size()));
    for (std::size_t p = 0; p < x.size(); ++p) {
        const double i = static_cast<double>(p % mx) / mx, j = static_cast<double>(p / mx) / mx;
        x[p] += size * (std::sin(3.1 * i + 1.0) * std::cos(2.3 * j) + 0.5 * noise(random));
    }
    return x;
}

/// How many interior nodes of an mx x my grid differ between x and y.
inline int changed_interior_nodes(const std::vector<double>& x, const std::vector<double>& y, int mx, int my) {
    int changed = 0;
    for (int j = 1; j + 1 < my; ++j)
        for (int i = 1; i + 1 < mx; ++i) changed += x[static_cast<std::size_t>(j) * mx + i] != y[static_cast<std::size_t>(j) * mx + i];
    return changed;
}

/// The warm-start matrix on `backend`: A2 and U1 at L = 8, handed over as a user's matrix.
inline void check_warm_starts(BackendKind backend) {
    // A2 at L = 8 handed over as a user's matrix (the report), and U1.
    for (const std::string name : {"A2", "U1"}) {
        const CaseSpec spec = builtin_case(name);
        const TensorMesh mesh = spec.mesh(8);
        const NineBands<double> bands = assemble_stiffness(mesh);
        const std::vector<double> b = assemble_load(mesh, {spec.x.length, spec.y.length});
        const GridMatrix A(Grid::from_mesh(mesh), bands);
        const std::vector<double> x_exact = direct_solve(bands, b);
        const double b_norm = norm2(b);
        for (Precision precision : {Precision::mixed, Precision::double_, Precision::single})
            for (OuterMethod outer : {OuterMethod::cg, OuterMethod::refinement}) {
                if (precision == Precision::single && outer == OuterMethod::cg) continue;  // single runs refinement
                SolverOptions options;
                options.backend = backend;
                options.precision = precision;
                options.outer = outer;
                // Float alone resolves A2's defect to about 3.5 digits here (the paper's Table 1).
                if (precision == Precision::single) options.digits = 3;
                Solver solver(options);
                solver.setup(A);
                // -1: the converged answer of a cold solve, given back (the first report).
                std::vector<double> converged;
                REQUIRE(solver.solve(b, converged).ok());
                for (int digits : {-1, 0, 2, 5, 8, 12}) {
                    std::vector<double> guess = digits < 0 ? converged : guess_good_to(x_exact, digits, A.grid().mx());
                    std::vector<double> x = guess;
                    const SolveReport report = solver.solve(b, x);
                    const double eps = precision == Precision::single ? std::numeric_limits<float>::epsilon()
                                                                      : std::numeric_limits<double>::epsilon();
                    const Defect before = defect_of(bands, b, guess, eps), after = defect_of(bands, b, x, eps);
                    const double target = std::pow(10.0, -options.digits) * b_norm;
                    INFO(name << ", " << to_string(backend) << ", " << to_string(precision) << ", "
                              << to_string(outer) << ", guess good to " << digits << " digits: status "
                              << to_string(report.status) << " (" << report.message << "), " << report.iterations()
                              << ", guess defect " << before.norm / b_norm << ", returned " << after.norm / b_norm
                              << ", reported " << report.final_defect / b_norm << " (relative to ||b||)");
                    // Converged: the guess was better than the stop needs, or it was improved to it.
                    CHECK(report.ok());
                    CHECK(after.norm <= target * (1.0 + 1e-6) + 4 * after.noise);
                    // Never worse than the guess.
                    CHECK(after.norm <= before.norm * (1.0 + 1e-6) + 4 * before.noise);
                    // The reported final defect is that of the x returned.
                    CHECK(std::abs(report.final_defect - after.norm) <= 1e-6 * after.norm + 4 * after.noise);
                    // A guess that already meets the stop comes back at once, bit for bit but
                    // for the Dirichlet (edge) nodes, which carry b_q / a_qq exactly.
                    if (before.norm + 4 * before.noise <= target) {
                        CHECK(report.outer_iterations == 0);
                        CHECK(changed_interior_nodes(x, guess, A.grid().mx(), A.grid().my()) == 0);
                    }
                }
            }
    }
}

/// Right-hand sides whose guess is the answer at once, from a zero guess and from a given one:
/// b = 0 (relative and absolute stop), ||b|| under the absolute bound, and a b that is not finite.
inline void check_guess_is_the_answer(BackendKind backend) {
    const TensorMesh mesh = builtin_case("A2").mesh(6);
    const GridMatrix A(Grid::from_mesh(mesh), assemble_stiffness(mesh));
    const std::vector<double> load = assemble_load(mesh, {1.0, 1.0});
    struct Row {
        const char* what;
        double b_scale;
        bool nan;
        StopRule stop;
        SolveStatus status;
    };
    const std::vector<Row> rows = {
        {"b = 0, relative stop", 0.0, false, StopRule::relative, SolveStatus::converged},
        {"b = 0, absolute stop", 0.0, false, StopRule::absolute, SolveStatus::converged},
        {"||b|| under the absolute bound", 1e-14, false, StopRule::absolute, SolveStatus::converged},
        {"a NaN in b", 1.0, true, StopRule::relative, SolveStatus::non_finite},
    };
    for (const Row& row : rows)
        for (Precision precision : {Precision::mixed, Precision::double_, Precision::single})
            for (bool zero_guess : {true, false}) {
                SolverOptions options;
                options.backend = backend;
                options.precision = precision;
                options.stop = row.stop;
                Solver solver(options);
                solver.setup(A);
                std::vector<double> b = load;
                for (double& v : b) v *= row.b_scale;
                if (row.nan) b[b.size() / 2] = std::nan("");
                std::vector<double> x;
                if (!zero_guess) x.assign(b.size(), 1.0);
                const std::vector<double> guess = x;
                const SolveReport report = solver.solve(b, x);
                INFO(row.what << ", " << to_string(precision) << (zero_guess ? ", zero guess" : ", guess of ones") << ": "
                              << to_string(report.status) << " " << report.message);
                CHECK(report.status == row.status);
                CHECK(x.size() == b.size());
                // From the zero guess, and for b = 0 from any guess, x = 0; a b that is not finite
                // leaves a given guess as it was; a guess of ones for a small b is solved.
                if (zero_guess || row.b_scale == 0.0)
                    CHECK(std::count(x.begin(), x.end(), 0.0) == static_cast<std::ptrdiff_t>(x.size()));
                else if (row.nan)
                    CHECK(changed_interior_nodes(x, guess, A.grid().mx(), A.grid().my()) == 0);
                else
                    CHECK(report.final_defect <= options.absolute_defect);
            }
}

}  // namespace adimg_test::warm_start
