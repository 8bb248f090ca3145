// The fast direct solver (include/adimg/fast_direct.hpp) against a reference in one run, on the
// built-in cases: the sparse Cholesky solve (adimg::direct_solve) or the multigrid solver
// (adimg::Solver, every level assembled where it runs: Solver::setup(CaseSpec, level)). Prints a
// Markdown table, one row per case and level; --out DIR also writes it to DIR/fast-direct.md and
// every row, with each multigrid candidate, to DIR/fast-direct.json.
//
//   fast_direct_bench --cases U1,A2,A5 --levels 9 --backend cpu --against cholesky
//   fast_direct_bench --cases U1,A2,A5 --levels 10,12,13 --backend cuda --against multigrid --out DIR
//
// Each solver is timed in the two flows a user has, in separate columns:
// - the case solved where it runs (FastDirectSolver::solve_case, Solver::solve_case): the load
//   vector assembled and the L2 error measured on the backend, neither b nor x transferred;
// - b and x on the host (solve(b, x) from and into page-locked memory, as the CLI's --matrix
//   path keeps them): the transfers of b and x included, and also given apart.
// Setup is apart from both (everything before the first solve: for fast direct the transform,
// the line factors, the backend's buffers and plans; not the backend's start when the solver is
// made, the CUDA context, its stream and staging buffers, which multigrid's setup leaves out
// alike). Solve times are the median of --repeats solves after one warm-up solve. Fast direct's
// refinement steps, its defect after the transform alone and at the end (relative to ||b||), the
// status and the relative L2 error (of solve_case) follow.
// Multigrid: each of --mg-configs (precision:smoother[@pre+post] on the library's defaults:
// flexible CG around one V-cycle per step, a full multigrid start) set up and timed the same way;
// the row names the fastest that converged in the case's flow, and the ratios (multigrid over
// fast direct) are against it. Cholesky: one call of direct_solve (ordering, factorisation and
// both triangular solves) on the host's b, which is what a sparse direct solve of one
// right-hand side costs. --against refined takes as reference the discrete solution itself:
// fast direct solves refined with defects accumulated in long double (80-bit) on the host until
// a correction is below double's rounding of x (refined() below); it shows how far a solve's L2
// error, a small difference of nearly equal numbers, may move with the solve's rounding (its
// "setup" is the refinement's time). --against none times fast direct alone; --digits,
// --max-refinements and --min-refinements set its options; --stamp TEXT (the GPU, driver, date
// and commit, say) heads the written files.
// --check-reference checks that reference instead of timing: per case and level, the refined
// reference against the same refinement driven by Eigen's sparse LDLT (an independent exact
// solve), a row passing when the two vectors agree to 1e-9 (relative L2); written to
// DIR/reference-check.md with --out, exit status 1 if a row fails. The LDLT takes minutes and
// gigabytes at L = 11 on one core.
//
//   fast_direct_bench --cases U1,U2,U3,A1,A2,A3,A4,A5 --levels 10,11 --check-reference --out DIR

#include <adimg/error.hpp>
#include <adimg/fast_direct.hpp>
#include <adimg/io.hpp>
#include <adimg/pinned_memory.hpp>
#include <adimg/problems.hpp>
#include <adimg/solver.hpp>

#include "solver/difference_form.hpp"

#include <Eigen/SparseCholesky>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <functional>
#include <limits>
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

/// A solver's times and error; for multigrid, its configuration and iterations.
struct Timed {
    std::string name;
    double start = 0.0;  ///< the backend's start when the solver was made: not part of setup
    double setup = 0.0;
    double solve_case = 0.0;  ///< solve_case(): b assembled and the error measured on the backend
    double solve_host = 0.0;  ///< solve(b, x) with b and x in page-locked host memory
    double transfers = 0.0;   ///< of solve_host: b up and x down
    double l2 = 0.0;          ///< of solve_case
    std::string iterations, status;
};

/// b - A x with the products and the sum in long double, A the operator the solvers' defects
/// define (difference_form.hpp): the stored entries, each row's sum taken as operator_row_sum()
/// (zero where it lies within the entries' rounding), b_p - sum_q a_pq (x_q - x_p) - s_p x_p.
std::vector<long double> long_defect(const NineBands<double>& A, const std::vector<double>& b,
                                     const std::vector<long double>& x) {
    std::vector<long double> d(b.size());
#pragma omp parallel for schedule(static)
    for (int j = 0; j < A.my; ++j)
        for (int i = 0; i < A.mx; ++i) {
            const std::size_t p = static_cast<std::size_t>(j) * A.mx + i;
            double band[9];
            for (int k = 0; k < 9; ++k) band[k] = A(k, p);
            long double sum = static_cast<long double>(b[p]) -
                              static_cast<long double>(operator_row_sum(band, A.mx, A.my, i, j)) * x[p];
            for (int k = 0; k < 9; ++k) {
                const int ii = i + band_dx(k), jj = j + band_dy(k);
                if (ii >= 0 && ii < A.mx && jj >= 0 && jj < A.my)
                    sum -= static_cast<long double>(band[k]) * (x[static_cast<std::size_t>(jj) * A.mx + ii] - x[p]);
            }
            d[p] = sum;
        }
    return d;
}

/// Where iterative refinement stopped: its steps and the last correction relative to x.
struct Refinement {
    int steps = 0;
    double last_correction = HUGE_VAL;
};

/// x refined from x = 0 by corrections c = solve(d) of the defect d = b - A x, which is formed in
/// long double as x is kept, until a correction is below double's rounding of x (eps ||x||; at
/// most 30 steps, and `out` says where it stopped). It does not stop when the defect stops
/// shrinking: a correction solver that misses smooth errors (fast direct on A2 on the GPU, by up
/// to 5e-6) leaves a defect already at rounding while x is still off.
template <class Solve>
std::vector<double> refined(const NineBands<double>& A, const std::vector<double>& b, Solve&& solve, Refinement& out) {
    std::vector<long double> x(b.size(), 0.0L);
    for (out.steps = 1; out.steps <= 30; ++out.steps) {
        const std::vector<long double> d = long_defect(A, b, x);
        const std::vector<double> c = solve(std::vector<double>(d.begin(), d.end()));
        long double correction = 0.0L, norm = 0.0L;
        for (std::size_t p = 0; p < c.size(); ++p) {
            x[p] += c[p];
            correction += static_cast<long double>(c[p]) * c[p];
            norm += x[p] * x[p];
        }
        out.last_correction = static_cast<double>(std::sqrt(correction / norm));
        if (out.last_correction <= std::numeric_limits<double>::epsilon()) break;
    }
    return std::vector<double>(x.begin(), x.end());
}

/// The discrete solution (see above): refined() with fast direct solves as the corrections.
std::vector<double> refined_solution(FastDirectSolver& fast, const std::vector<double>& b, Refinement& out) {
    return refined(fast.matrix(), b, [&](const std::vector<double>& d) {
        std::vector<double> c;
        fast.solve(d, c);
        return c;
    }, out);
}

/// The same by another solver: refined() with Eigen's sparse LDLT in double, factored once.
std::vector<double> exact_solution(const NineBands<double>& A, const std::vector<double>& b, Refinement& out) {
    const Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> ldlt(to_eigen(A));
    if (ldlt.info() != Eigen::Success) throw input_error("--check-reference: the sparse LDLT factorisation failed");
    return refined(A, b, [&](const std::vector<double>& d) {
        const Eigen::VectorXd c = ldlt.solve(Eigen::Map<const Eigen::VectorXd>(d.data(), static_cast<Eigen::Index>(d.size())));
        return std::vector<double>(c.data(), c.data() + c.size());
    }, out);
}

/// ||a - b|| / ||b||
double relative_difference(const std::vector<double>& a, const std::vector<double>& b) {
    long double difference = 0.0L, norm = 0.0L;
    for (std::size_t p = 0; p < a.size(); ++p) {
        difference += static_cast<long double>(a[p] - b[p]) * (a[p] - b[p]);
        norm += static_cast<long double>(b[p]) * b[p];
    }
    return static_cast<double>(std::sqrt(difference / norm));
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

/// A multigrid candidate: "precision:smoother[@pre+post]" on the library's default options.
SolverOptions multigrid_options(const std::string& config, BackendKind backend) {
    SolverOptions o;
    o.backend = backend;
    const std::size_t at = config.find('@'), colon = config.find(':');
    if (colon == std::string::npos || colon > at)
        throw input_error("--mg-configs: '" + config + "' is not precision:smoother[@pre+post], e.g. mixed:jacobi@2+2");
    o.precision = parse_precision(config.substr(0, colon));
    o.smoother = parse_smoother(config.substr(colon + 1, at == std::string::npos ? std::string::npos : at - colon - 1));
    if (at != std::string::npos) {
        const std::size_t plus = config.find('+', at);
        if (plus == std::string::npos) throw input_error("--mg-configs: '" + config + "': give the steps as @pre+post");
        o.pre_smooth = std::stoi(config.substr(at + 1, plus - at - 1));
        o.post_smooth = std::stoi(config.substr(plus + 1));
    }
    return o;
}

/// Each multigrid candidate on the case's level: setup (the Solver made first, so that its backend's
/// start is apart), the median solve_case, and the median solve of b and x on the host.
std::vector<Timed> multigrid_candidates(const std::vector<std::string>& configs, BackendKind backend,
                                        const CaseSpec& spec, int level, const pinned_vector<double>& b,
                                        pinned_vector<double>& x, int repeats) {
    std::vector<Timed> out;
    for (const std::string& config : configs) {
        Timed t;
        t.name = config;
        Solver mg(multigrid_options(config, backend));
        t.start = mg.setup_times().context;
        const auto start = std::chrono::steady_clock::now();
        mg.setup(spec, level);
        t.setup = seconds_since(start);
        CaseSolveReport solved;
        t.solve_case = median_solve(repeats, [&] {
            solved = mg.solve_case();
            return solved.report.solve_seconds;
        });
        t.l2 = solved.relative_l2_error;
        t.iterations = solved.report.iterations();
        t.status = to_string(solved.report.status);
        std::vector<double> transfers;
        t.solve_host = median_solve(repeats, [&] {
            const SolveReport report = mg.solve(b.data(), x.data(), InitialGuess::zero);
            transfers.push_back(report.upload_seconds + report.download_seconds);
            return report.solve_seconds;
        });
        t.transfers = median(transfers);
        out.push_back(t);
    }
    return out;
}

/// The fastest converged candidate in the case's flow (the first if none converged).
const Timed& fastest(const std::vector<Timed>& candidates) {
    const Timed* best = &candidates.front();
    for (const Timed& t : candidates)
        if (t.status == "converged" && (best->status != "converged" || t.solve_case < best->solve_case)) best = &t;
    return *best;
}

std::string json_string(const std::string& text) {
    std::string out = "\"";
    for (char c : text) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
    }
    return out + "\"";
}

/// Calls row(name, spec, level, mesh, problem, load) for every case and level, in that order.
template <class Row>
void for_each_row(const std::vector<std::string>& cases, const std::vector<int>& levels, Row&& row) {
    for (const std::string& name : cases) {
        const CaseSpec spec = builtin_case(name);
        const PolynomialProblem problem{spec.x.length, spec.y.length};
        for (int level : levels) {
            const TensorMesh mesh = spec.mesh(level);
            row(name, spec, level, mesh, problem, assemble_load(mesh, problem));
        }
    }
}

/// --check-reference: the refined reference (the discrete solution of --against refined) against
/// the same refinement driven by Eigen's sparse LDLT instead of fast direct solves, per case and
/// level; a row passes when the two agree to `tolerance` (relative L2 difference of the vectors).
/// Returns whether every row passed.
bool check_reference(const std::vector<std::string>& cases, const std::vector<int>& levels, const FastDirectOptions& options,
                     double tolerance, const std::function<void(const std::string&)>& print) {
    print("| case | L | N | refined: steps, last correction, s | sparse LDLT refined: steps, last correction, s | "
          "relative difference | L2 error, refined | L2 error, LDLT refined | within " + format("%.0e", tolerance) + " |");
    print("|---|---|---|---|---|---|---|---|---|");
    bool all = true;
    for_each_row(cases, levels, [&](const std::string& name, const CaseSpec& spec, int level, const TensorMesh& mesh,
                                const PolynomialProblem& problem, const std::vector<double>& b) {
        FastDirectSolver fast(options);
        fast.setup(spec, level);
        Refinement by_fast, by_ldlt;
        auto start = std::chrono::steady_clock::now();
        const std::vector<double> xr = refined_solution(fast, b, by_fast);
        const double fast_seconds = seconds_since(start);
        start = std::chrono::steady_clock::now();
        const std::vector<double> xe = exact_solution(fast.matrix(), b, by_ldlt);
        const double ldlt_seconds = seconds_since(start);
        const double difference = relative_difference(xr, xe);
        const bool ok = difference <= tolerance;
        all = all && ok;
        print("| " + name + " | " + std::to_string(level) + " | " + std::to_string(mesh.nodes()) + " | " +
              std::to_string(by_fast.steps) + ", " + format("%.1e", by_fast.last_correction) + ", " +
              format("%.1f", fast_seconds) + " | " + std::to_string(by_ldlt.steps) + ", " +
              format("%.1e", by_ldlt.last_correction) + ", " + format("%.1f", ldlt_seconds) + " | " +
              format("%.1e", difference) + " | " + format("%.9e", relative_l2_error(mesh, problem, xr)) + " | " +
              format("%.9e", relative_l2_error(mesh, problem, xe)) + " | " + (ok ? "yes" : "NO") + " |");
    });
    return all;
}

}  // namespace

int run(int argc, char** argv) {
    std::vector<std::string> cases = {"U1", "A2", "A5"};
    std::vector<int> levels = {9};
    std::vector<std::string> mg_configs = {"mixed:adi", "mixed:jacobi", "mixed:gauss-seidel", "double:adi"};
    std::string backend = "cpu", against = "cholesky", out_dir, stamp;
    int repeats = 5;
    bool check = false;
    FastDirectOptions options;
    std::string command = "fast_direct_bench";
    for (int a = 1; a < argc; ++a) command += std::string(" ") + argv[a];
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
        else if (arg == "--mg-configs") mg_configs = split(value());
        else if (arg == "--out") out_dir = value();
        else if (arg == "--stamp") stamp = value();
        else if (arg == "--check-reference") check = true;
        else {
            std::fprintf(stderr,
                         "usage: fast_direct_bench [--cases U1,A2,A5] [--levels 9] [--backend cpu|cuda] "
                         "[--against cholesky|multigrid|refined|none] [--repeats 5] [--digits 8] [--max-refinements 3] "
                         "[--min-refinements 0] [--mg-configs mixed:adi,mixed:jacobi,...] [--out DIR] [--stamp TEXT] "
                         "[--check-reference]\n");
            return 2;
        }
    }
    if (against != "cholesky" && against != "multigrid" && against != "refined" && against != "none")
        throw input_error("--against must be cholesky, multigrid, refined or none");
    options.backend = parse_backend(backend);
    const bool multigrid = against == "multigrid";
    if (!out_dir.empty()) std::filesystem::create_directories(out_dir);  // a bad folder fails before the rows run

    // The CUDA context and the libraries' loading (cuFFT and cuBLAS, opened by the first setup
    // that needs them) before the rows, printed apart; each row's fast direct setup is timed
    // twice, the first of its size in this process and again on the same solver, whose difference
    // is what the first use of that size costs once per process.
    FastDirectSolver probe(options);
    const auto probing = std::chrono::steady_clock::now();
    probe.setup(builtin_case("U1").mesh(3));
    if (probe.backend() == BackendKind::cuda) probe.setup(builtin_case("A2").mesh(3));
    const double probe_setup = seconds_since(probing);
    std::string text;
    auto print = [&](const std::string& line) {
        std::printf("%s\n", line.c_str());
        std::fflush(stdout);
        text += line + "\n";
    };
    if (!stamp.empty()) print(stamp + "\n");
    print("command: " + command + "\n");
    if (check) {
        print("the refined reference (fast direct on " + to_string(probe.backend()) +
              ", defects in long double) against Eigen's sparse LDLT refined alike; relative difference: "
              "||x_refined - x_LDLT|| / ||x_LDLT||\n");
        const bool agree = check_reference(cases, levels, options, 1e-9, print);
        if (!out_dir.empty()) write_text_file(std::filesystem::path(out_dir) / "reference-check.md", text);
        return agree ? 0 : 1;
    }
    print("fast direct on " + to_string(probe.backend()) + (probe.device_name().empty() ? "" : " (" + probe.device_name() + ")") +
          (probe.notice().empty() ? "" : " (" + probe.notice() + ")") + "; reference: " + against +
          "; solve times: median of " + std::to_string(repeats) + " after a warm-up (0: one cold solve)");
    print("the process's first fast direct solver: backend start " + format("%.3f", probe.start_seconds()) +
          " s, first setups (U1 and A2 at L=3: the libraries loaded, their first use) " + format("%.3f", probe_setup) +
          " s; not in the rows");
    print("fast direct: digits " + format("%g", options.digits) + ", refinement steps " +
          std::to_string(options.min_refinements) + " to " + std::to_string(options.max_refinements) +
          (multigrid ? "; multigrid: the fastest converged of the candidates in the case's flow (library defaults with "
                       "precision:smoother)" : ""));
    print("case: solve_case, b assembled and the L2 error measured where the solve runs, nothing transferred; host: "
          "solve(b, x) with b and x in page-locked host memory, their transfers included (and given apart); ratios: "
          + (against == "none" ? std::string("none") : against) + " over fast direct\n");
    const std::string ref = multigrid ? "multigrid" : against;
    print("| case | L | N | method | setup s (first, again) | solve ms case | solve ms host | transfers ms | refinements | "
          "defect: transform, final | status | L2 error | " + ref + " | " + ref + " setup s | " + ref + " solve ms case | " +
          ref + " solve ms host | " + ref + " L2 error | L2 relative difference | setup ratio | solve ratio case | "
          "solve ratio host | setup+solve ratio case |" + (multigrid ? " candidates: solve ms case, host |" : ""));
    print(std::string("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|") +
          (multigrid ? "---|" : ""));
    std::string json = "{\n  \"stamp\": " + json_string(stamp) + ",\n  \"command\": " + json_string(command) + ",\n  \"rows\": [\n";
    bool first_row = true;
    auto ms = [](double seconds) { return seconds > 0.0 ? format("%.3f", 1e3 * seconds) : std::string("–"); };
    for_each_row(cases, levels, [&](const std::string& name, const CaseSpec& spec, int level, const TensorMesh& mesh,
                                const PolynomialProblem& problem, const std::vector<double>& load) {
        pinned_vector<double> b(load.begin(), load.end()), x(load.size());

        Timed fd, ref;
        double setup_again = 0.0;
        FastDirectReport report;
        std::string method;
        {
            FastDirectSolver fast(options);
            fd.start = fast.start_seconds();
            const auto start = std::chrono::steady_clock::now();
            fast.setup(spec, level);
            fd.setup = seconds_since(start);
            const auto again = std::chrono::steady_clock::now();
            fast.setup(spec, level);
            setup_again = seconds_since(again);
            FastDirectCaseReport solved;
            fd.solve_case = median_solve(repeats, [&] {
                solved = fast.solve_case();
                return solved.report.solve_seconds;
            });
            report = solved.report;
            fd.l2 = solved.relative_l2_error;
            std::vector<double> transfers;
            fd.solve_host = median_solve(repeats, [&] {
                const FastDirectReport host = fast.solve(b.data(), x.data());
                transfers.push_back(host.upload_seconds + host.download_seconds);
                return host.solve_seconds;
            });
            fd.transfers = median(transfers);
            method = fast.method();
            if (against == "cholesky") {
                const auto start_ref = std::chrono::steady_clock::now();
                const std::vector<double> xc = direct_solve(fast.matrix(), load);
                ref.name = "cholesky";
                ref.solve_host = seconds_since(start_ref);
                ref.l2 = relative_l2_error(mesh, problem, xc);
            } else if (against == "refined") {
                const auto start_ref = std::chrono::steady_clock::now();
                Refinement steps;
                const std::vector<double> xr = refined_solution(fast, load, steps);
                ref.name = "refined";
                ref.setup = seconds_since(start_ref);
                ref.l2 = relative_l2_error(mesh, problem, xr);
                std::fprintf(stderr, "%s L=%d: the refined reference took %d steps, the last correction %.1e of ||x||\n",
                             name.c_str(), level, steps.steps, steps.last_correction);
            }
        }  // the fast solver's device memory is free before multigrid's

        std::vector<Timed> candidates;
        if (multigrid) {
            candidates = multigrid_candidates(mg_configs, options.backend, spec, level, b, x, repeats);
            ref = fastest(candidates);
        }
        const double n = static_cast<double>(mesh.nodes());
        std::string row = "| " + name + " | " + std::to_string(level) + " | " + format("%.0f", n) + " | " + method + " | " +
                          format("%.4f", fd.setup) + ", " + format("%.4f", setup_again) + " | " + ms(fd.solve_case) +
                          " | " + ms(fd.solve_host) + " | " + ms(fd.transfers) + " | " +
                          std::to_string(report.refinement_steps) + " | " +
                          format("%.1e", report.first_defect / report.initial_defect) + ", " +
                          format("%.1e", report.final_defect / report.initial_defect) + " | " +
                          to_string(report.status) + " | " + format("%.9e", fd.l2) + " | ";
        if (against == "none") {
            row += "– | – | – | – | – | – | – | – | – | – |";
        } else {
            auto ratio = [](double r, double f) { return f > 0.0 && r > 0.0 ? format("%.1f", r / f) : std::string("–"); };
            row += (multigrid ? ref.name + " (" + ref.iterations + ")" : ref.name) + " | " + format("%.4f", ref.setup) +
                   " | " + ms(ref.solve_case) + " | " + ms(ref.solve_host) + " | " + format("%.9e", ref.l2) + " | " +
                   format("%.1e", std::abs(fd.l2 - ref.l2) / ref.l2) + " | " + ratio(ref.setup, fd.setup) + " | " +
                   ratio(ref.solve_case, fd.solve_case) + " | " + ratio(ref.solve_host, fd.solve_host) + " | " +
                   ratio(ref.setup + ref.solve_case, fd.setup + fd.solve_case) + " |";
        }
        if (multigrid) {
            std::string list;
            for (const Timed& t : candidates)
                list += (list.empty() ? " " : ", ") + t.name + " " + ms(t.solve_case) + ", " + ms(t.solve_host) +
                        (t.status == "converged" ? "" : " (" + t.status + ")");
            row += list + " |";
        }
        print(row);

        auto timed_json = [&](const Timed& t) {
            return "\"setup_s\": " + format("%.6f", t.setup) + ", \"solve_case_s\": " + format("%.6f", t.solve_case) +
                   ", \"solve_host_s\": " + format("%.6f", t.solve_host) + ", \"transfers_s\": " +
                   format("%.6f", t.transfers) + ", \"l2_error\": " + format("%.12e", t.l2);
        };
        std::string entry = std::string(first_row ? "" : ",\n") + "    {\"case\": " + json_string(name) +
                            ", \"level\": " + std::to_string(level) + ", \"nodes\": " + format("%.0f", n) +
                            ", \"method\": " + json_string(method) + ", \"start_s\": " + format("%.6f", fd.start) +
                            ", \"setup_again_s\": " + format("%.6f", setup_again) + ", " + timed_json(fd) +
                            ", \"refinements\": " + std::to_string(report.refinement_steps) +
                            ", \"first_defect\": " + format("%.3e", report.first_defect / report.initial_defect) +
                            ", \"final_defect\": " + format("%.3e", report.final_defect / report.initial_defect) +
                            ", \"status\": " + json_string(to_string(report.status)) +
                            ", \"reference\": {\"name\": " + json_string(ref.name) + ", " + timed_json(ref) + "}";
        if (multigrid) {
            entry += ", \"multigrid\": [";
            for (std::size_t c = 0; c < candidates.size(); ++c) {
                const Timed& t = candidates[c];
                entry += std::string(c ? ", " : "") + "{\"config\": " + json_string(t.name) + ", \"start_s\": " +
                         format("%.6f", t.start) + ", " + timed_json(t) + ", \"iterations\": " + json_string(t.iterations) +
                         ", \"status\": " + json_string(t.status) + "}";
            }
            entry += "]";
        }
        json += entry + "}";
        first_row = false;
    });
    json += "\n  ]\n}\n";
    if (!out_dir.empty()) {
        write_text_file(std::filesystem::path(out_dir) / "fast-direct.md", text);
        write_text_file(std::filesystem::path(out_dir) / "fast-direct.json", json);
    }
    return 0;
}

int main(int argc, char** argv) {
    try {
        return run(argc, argv);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "fast_direct_bench: %s\n", e.what());
        return 1;
    }
}
