// The fast direct solver (include/adimg/fast_direct.hpp) against a reference in one run, on the
// built-in cases: the sparse Cholesky solve (adimg::direct_solve) or the multigrid solver
// (adimg::Solver with default options, the rediscretized levels of the case). Prints a Markdown
// table, one row per case and level.
//
//   fast_direct_bench --cases U1,A2,A5 --levels 9 --backend cpu --against cholesky
//   fast_direct_bench --cases U1,A2,A5 --levels 10,12,13 --backend cuda --against multigrid
//
// Fast direct: setup (assembly, transform, line factors, copy to the device) and solve (the
// median of --repeats solves after one warm-up solve, b and x in page-locked memory as the CLI
// keeps them, transfers included) are timed separately; refinement steps, the defect after the
// transform alone and at the end (relative to ||b||), the status and the relative L2 error.
// Multigrid: setup (rediscretized hierarchy and Solver::setup) and solve timed the same way, with
// the backend of --backend and the inner stop of --mg-inner (the fastest on the H200 at L=10:
// cycles:1 for U1 and A2, cycles:3 for A5; README, Performance). Cholesky: one call of direct_solve (ordering, factorisation and both
// triangular solves), which is what a sparse direct solve of one right-hand side costs; the
// ratios are reference over fast direct, setup + solve and solve alone.
// --against refined takes as reference the discrete solution itself, to about 1e-15: fast
// direct's solution refined with defects accumulated in long double (80-bit) on the host until
// they stop shrinking; it shows how far a solve's L2 error, a small difference of nearly equal
// numbers, may move with the solve's rounding (its "setup" is the refinement's time).
// --against none times fast direct alone; --digits, --max-refinements and --min-refinements set
// its options.

#include <adimg/error.hpp>
#include <adimg/fast_direct.hpp>
#include <adimg/hierarchy.hpp>
#include <adimg/io.hpp>
#include <adimg/pinned_memory.hpp>
#include <adimg/problems.hpp>
#include <adimg/solver.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

using namespace adimg;

namespace {

std::vector<std::string> split(const std::string& text) {
    std::vector<std::string> out;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ','))
        if (!item.empty()) out.push_back(item);
    return out;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

/// A reference solve's times and error.
struct Timed {
    double setup = 0.0, solve = 0.0, l2 = 0.0;
};

/// b - A x with the products and the sum in long double.
std::vector<long double> long_defect(const NineBands<double>& A, const std::vector<double>& b,
                                     const std::vector<long double>& x) {
    std::vector<long double> d(b.size());
#pragma omp parallel for schedule(static)
    for (int j = 0; j < A.my; ++j)
        for (int i = 0; i < A.mx; ++i) {
            const std::size_t p = static_cast<std::size_t>(j) * A.mx + i;
            long double sum = b[p];
            for (int k = 0; k < 9; ++k) {
                const int ii = i + band_dx(k), jj = j + band_dy(k);
                if (ii >= 0 && ii < A.mx && jj >= 0 && jj < A.my)
                    sum -= static_cast<long double>(A(k, p)) * x[static_cast<std::size_t>(jj) * A.mx + ii];
            }
            d[p] = sum;
        }
    return d;
}

/// The discrete solution to about 1e-15 (see above), and in relative_defect the defect it reached.
std::vector<double> refined_solution(FastDirectSolver& fast, const std::vector<double>& b, double& relative_defect) {
    std::vector<double> x;
    fast.solve(b, x);
    std::vector<long double> xl(x.begin(), x.end());
    long double b_norm = 0.0L;
    for (double v : b) b_norm += static_cast<long double>(v) * v;
    b_norm = std::sqrt(b_norm);
    double best = HUGE_VAL;
    for (int step = 0; step < 6; ++step) {
        const std::vector<long double> d = long_defect(fast.matrix(), b, xl);
        long double norm = 0.0L;
        for (long double v : d) norm += v * v;
        const double relative = static_cast<double>(std::sqrt(norm) / b_norm);
        if (!(relative < 0.5 * best)) break;
        best = relative;
        std::vector<double> c;
        fast.solve(std::vector<double>(d.begin(), d.end()), c);
        for (std::size_t p = 0; p < c.size(); ++p) xl[p] += c[p];
    }
    relative_defect = best;
    return std::vector<double>(xl.begin(), xl.end());
}

/// Calls solve() `repeats` + 1 times (the first a warm-up); returns the median of the seconds it
/// returns after the warm-up. With repeats = 0, one cold solve and its time.
template <class Solve>
double median_solve(int repeats, Solve&& solve) {
    const double cold = solve();
    if (repeats == 0) return cold;
    std::vector<double> times;
    for (int r = 0; r < repeats; ++r) times.push_back(solve());
    return median(times);
}

std::string format(const char* pattern, double value) {
    char text[64];
    std::snprintf(text, sizeof text, pattern, value);
    return text;
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::string> cases = {"U1", "A2", "A5"};
    std::vector<int> levels = {9};
    std::string backend = "cpu", against = "cholesky";
    int repeats = 5;
    FastDirectOptions options;
    InnerStop mg_inner = SolverOptions{}.inner;
    for (int a = 1; a < argc; ++a) {
        const std::string arg = argv[a];
        auto value = [&]() -> std::string {
            if (a + 1 >= argc) throw input_error(arg + " needs a value");
            return argv[++a];
        };
        if (arg == "--cases") cases = split(value());
        else if (arg == "--levels") {
            levels.clear();
            for (const std::string& l : split(value())) levels.push_back(std::stoi(l));
        } else if (arg == "--backend") backend = value();
        else if (arg == "--against") against = value();
        else if (arg == "--repeats") repeats = std::stoi(value());
        else if (arg == "--digits") options.digits = std::stod(value());
        else if (arg == "--max-refinements") options.max_refinements = std::stoi(value());
        else if (arg == "--min-refinements") options.min_refinements = std::stoi(value());
        else if (arg == "--mg-inner") mg_inner = parse_inner_stop(value());
        else {
            std::fprintf(stderr,
                         "usage: fast_direct_bench [--cases U1,A2,A5] [--levels 9] [--backend cpu|cuda] "
                         "[--against cholesky|multigrid|none] [--repeats 5] [--digits 8] [--max-refinements 3] [--min-refinements 0] [--mg-inner digits:2]\n");
            return 2;
        }
    }
    if (against != "cholesky" && against != "multigrid" && against != "refined" && against != "none")
        throw input_error("--against must be cholesky, multigrid, refined or none");
    options.backend = parse_backend(backend);

    FastDirectSolver probe(options);
    std::printf("fast direct on %s%s; reference: %s; solve times: median of %d after a warm-up (0: one cold solve)\n",
                to_string(probe.backend()).c_str(), probe.notice().empty() ? "" : (" (" + probe.notice() + ")").c_str(),
                against.c_str(), repeats);
    const std::string inner = (mg_inner.kind == InnerStop::Kind::cycles ? "cycles:" : "digits:") + std::to_string(mg_inner.count);
    std::printf("fast direct: digits %g, refinement steps %d to %d%s\n\n", options.digits, options.min_refinements,
                options.max_refinements, against == "multigrid" ? (", multigrid inner stop " + inner).c_str() : "");
    std::printf("| case | L | N | method | setup s | solve s | refinements | defect: transform, final | status | L2 error "
                "| %s setup s | %s solve s | %s L2 error | L2 relative difference | %s: setup+solve ratio | solve "
                "ratio |\n",
                against.c_str(), against.c_str(), against.c_str(), against.c_str());
    std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (const std::string& name : cases) {
        const CaseSpec spec = builtin_case(name);
        const PolynomialProblem problem{spec.x.length, spec.y.length};
        for (int level : levels) {
            const TensorMesh mesh = spec.mesh(level);
            const std::vector<double> load = assemble_load(mesh, problem);
            pinned_vector<double> b(load.begin(), load.end()), x(load.size());

            FastDirectSolver fast(options);
            fast.setup(mesh);
            FastDirectReport report;
            const double fast_solve = median_solve(repeats, [&] {
                report = fast.solve(b.data(), x.data());
                return report.solve_seconds;
            });
            const double fast_l2 = relative_l2_error(mesh, problem, std::vector<double>(x.begin(), x.end()));

            Timed ref;
            if (against == "cholesky") {
                const auto start = std::chrono::steady_clock::now();
                const std::vector<double> xc = direct_solve(fast.matrix(), load);
                ref.solve = seconds_since(start);
                ref.l2 = relative_l2_error(mesh, problem, xc);
            } else if (against == "multigrid") {
                SolverOptions mg_options;
                mg_options.backend = options.backend;
                mg_options.inner = mg_inner;
                const auto start = std::chrono::steady_clock::now();
                Solver mg(mg_options);
                mg.setup(rediscretized_hierarchy(spec, level, mg_options.coarse_level));
                ref.setup = seconds_since(start);
                SolveReport mg_report;
                ref.solve = median_solve(repeats, [&] {
                    mg_report = mg.solve(b.data(), x.data(), InitialGuess::zero);
                    return mg_report.solve_seconds;
                });
                ref.l2 = relative_l2_error(mesh, problem, std::vector<double>(x.begin(), x.end()));
            } else if (against == "refined") {
                const auto start = std::chrono::steady_clock::now();
                double defect = 0.0;
                const std::vector<double> xr = refined_solution(fast, load, defect);
                ref.setup = seconds_since(start);
                ref.l2 = relative_l2_error(mesh, problem, xr);
                std::fprintf(stderr, "%s L=%d: the refined reference's defect is %.1e of ||b||\n", name.c_str(), level,
                             defect);
            }
            const double n = static_cast<double>(mesh.nodes());
            std::string row = "| " + name + " | " + std::to_string(level) + " | " + format("%.0f", n) + " | " +
                              fast.method() + " | " + format("%.4f", fast.setup_seconds()) + " | " +
                              format("%.5f", fast_solve) + " | " + std::to_string(report.refinement_steps) + " | " +
                              format("%.1e", report.first_defect / report.initial_defect) + ", " +
                              format("%.1e", report.final_defect / report.initial_defect) + " | " +
                              to_string(report.status) + " | " + format("%.9e", fast_l2) + " | ";
            if (against == "none") {
                row += "– | – | – | – | – | – |";
            } else {
                row += format("%.4f", ref.setup) + " | " + format("%.5f", ref.solve) + " | " + format("%.9e", ref.l2) +
                       " | " + format("%.1e", std::abs(fast_l2 - ref.l2) / ref.l2) + " | " +
                       format("%.1f", (ref.setup + ref.solve) / (fast.setup_seconds() + fast_solve)) + " | " +
                       format("%.1f", ref.solve / fast_solve) + " |";
            }
            std::printf("%s\n", row.c_str());
            std::fflush(stdout);
        }
    }
    return 0;
}
