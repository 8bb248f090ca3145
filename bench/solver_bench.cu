// Whole solves side by side in one run: backends, precisions, smoothers and inner variants on the
// built-in cases, with the time of one double-precision fine-grid defect (a work unit) measured
// on the same GPU. Prints a Markdown table; --json FILE writes every row.
//
//   solver_bench --cases U1,A2 --levels 8,9,10 --configs cuda:mixed:adi:digits:2,cuda:double:adi
//
// --coarse-level N and --coarse-solver direct|pcg set the coarsest grid of every row (default:
// the library's, level 5 solved directly). --host-memory pinned|pageable says where b and x
// live on the host (default pinned, as the command-line tool keeps them; pageable is a
// std::vector, staged through the backend's pinned buffers).
//
// A config is backend:precision:smoother[:inner][@pre+post][~omega], e.g. cpu:double:adi,
// cuda:mixed:adi:cycles:1, cuda:mixed:jacobi:cycles:2@2+2 (smoothing steps other than the
// defaults) or cuda:mixed:jacobi:digits:2~0.6 (Jacobi damping other than the default).
// Times are medians over --repeats solves after one warm-up solve, and include the transfer of
// the right-hand side and the solution (the paper's convention).
//
// --timeline FILE also writes, for one more solve of each row, where its time went: the transfers
// (as the report has them) and the host clock at the start, after each outer step (the step
// callback) and at the end; and the time of a solve into a fresh, untouched x.

#include "gpu_timer.cuh"

#include "../src/cuda/cuda_backend.cuh"

#include <adimg/problems.hpp>
#include <adimg/hierarchy.hpp>
#include <adimg/pinned_memory.hpp>
#include <adimg/solver.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

using namespace adimg;

namespace {

std::vector<std::string> split(const std::string& text, char sep) {
    std::vector<std::string> out;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, sep))
        if (!item.empty()) out.push_back(item);
    return out;
}

SolverOptions parse_config(const std::string& config_text) {
    // "...~0.6": the Jacobi damping instead of the default.
    const std::size_t tilde = config_text.find('~');
    const std::string config = config_text.substr(0, tilde);
    // "...@2+3": 2 pre- and 3 post-smoothing steps instead of the defaults.
    const std::size_t at = config.find('@');
    const std::string text = config.substr(0, at);
    const std::vector<std::string> parts = split(text, ':');
    if (parts.size() < 3)
        throw input_error("config '" + config + "': use backend:precision:smoother[:inner][@pre+post], e.g. cuda:mixed:adi:digits:2");
    SolverOptions o;
    if (at != std::string::npos) {
        const std::vector<std::string> steps = split(config.substr(at + 1), '+');
        if (steps.size() != 2) throw input_error("config '" + config + "': give the smoothing steps as @pre+post, e.g. @2+2");
        auto count = [&](const std::string& t) {
            std::size_t used = 0;
            int value = -1;
            try {
                value = std::stoi(t, &used);
            } catch (const std::exception&) {
            }
            if (used != t.size() || value < 0) throw input_error("config '" + config + "': '" + t + "' is not a number of smoothing steps");
            return value;
        };
        o.pre_smooth = count(steps[0]);
        o.post_smooth = count(steps[1]);
    }
    o.backend = parse_backend(parts[0]);
    o.precision = parse_precision(parts[1]);
    o.smoother = parse_smoother(parts[2]);
    if (parts.size() >= 5) o.inner = parse_inner_stop(parts[3] + ":" + parts[4]);
    if (tilde != std::string::npos) {
        if (o.smoother != Smoother::jacobi)
            throw input_error("config '" + config_text + "': ~omega is Jacobi's damping; this config's smoother is " +
                              to_string(o.smoother));
        const std::string t = config_text.substr(tilde + 1);
        std::size_t used = 0;
        try {
            o.omega = std::stod(t, &used);
        } catch (const std::exception&) {
        }
        if (used == 0 || used != t.size())
            throw input_error("config '" + config_text + "': '" + t + "' after ~ is not a Jacobi damping, e.g. ~0.6");
    }
    if (o.smoother == Smoother::jacobi && o.precision != Precision::mixed) o.max_iterations = 2000;
    validate(o);
    return o;
}

/// The smoother, with its steps and Jacobi's damping where they are not the defaults
/// ("jacobi 2+2", "jacobi ω=0.6").
std::string smoother_label(const SolverOptions& o) {
    const SolverOptions defaults;
    std::string label = to_string(o.smoother);
    if (o.pre_smooth != defaults.pre_smooth || o.post_smooth != defaults.post_smooth)
        label += " " + std::to_string(o.pre_smooth) + "+" + std::to_string(o.post_smooth);
    if (o.smoother == Smoother::jacobi && o.omega != defaults.omega) {
        std::ostringstream omega;
        omega << o.omega;
        label += " ω=" + omega.str();
    }
    return label;
}

/// Milliseconds of one double defect b - A x on the finest level, on the GPU.
double work_unit_ms(const NineBands<double>& A) {
    CudaBackend be;
    auto M = be.make_matrix<double>(A);
    auto b = be.make_vector<double>(A.mx, A.my), x = be.make_vector<double>(A.mx, A.my), d = be.make_vector<double>(A.mx, A.my);
    be.fill(b, 1.0);
    be.fill(x, 0.5);
    return bench::median_ms(be.stream(), 7, 20, [&] { be.defect(M, b, x, d); });
}

void write_file(const std::string& path, const std::string& text) {
    FILE* f = std::fopen(path.c_str(), "w");
    if (!f) throw input_error("cannot write " + path);
    std::fputs(text.c_str(), f);
    std::fclose(f);
}

/// b and x on the host: in std::vectors (pageable memory; x cleared before each solve, a zero
/// guess that the solver sizes), or in page-locked memory that the solver reads and writes in
/// place (`pinned`), as the command-line tool keeps them.
class HostVectors {
public:
    HostVectors(const std::vector<double>& b, bool pinned) : b_(b), pinned_(pinned) {
        if (pinned_) {
            b_pinned_.assign(b.begin(), b.end());
            x_pinned_.resize(b.size());
        }
    }
    const char* memory() const { return pinned_ ? "pinned" : "pageable"; }
    SolveReport solve(Solver& solver, const StepCallback& on_step = {}) {
        if (!pinned_) {
            x_.clear();
            return solver.solve(b_, x_, on_step);
        }
        return solver.solve(b_pinned_.data(), x_pinned_.data(), InitialGuess::zero, on_step);
    }
    /// Milliseconds of a solve into memory never used before: pageable memory that the host
    /// faults in page by page, or freshly pinned memory (resident from its allocation).
    double fresh_solve_ms(Solver& solver) {
        if (!pinned_) {
            std::vector<double> fresh;
            return solver.solve(b_, fresh).solve_seconds * 1e3;
        }
        const std::unique_ptr<double, void (*)(void*)> fresh(static_cast<double*>(allocate_pinned(b_.size() * sizeof(double))),
                                                             free_pinned);
        return solver.solve(b_pinned_.data(), fresh.get(), InitialGuess::zero).solve_seconds * 1e3;
    }
    std::vector<double> x() const { return pinned_ ? std::vector<double>(x_pinned_.begin(), x_pinned_.end()) : x_; }

private:
    const std::vector<double>& b_;
    bool pinned_;
    std::vector<double> x_;
    pinned_vector<double> b_pinned_, x_pinned_;
};

/// One more solve, timed on the host at its start, after each outer step and at its end, into
/// the x of the timed solves; and the time of a solve into a fresh x.
std::string timeline_row(Solver& solver, HostVectors& host, const std::string& name, int level, const SolverOptions& options) {
    using clock = std::chrono::steady_clock;
    std::vector<clock::time_point> marks{clock::now()};
    const SolveReport report = host.solve(solver, [&](const OuterStep&) { marks.push_back(clock::now()); });
    marks.push_back(clock::now());
    const double fresh_ms = host.fresh_solve_ms(solver);
    auto ms = [&](std::size_t i) { return std::chrono::duration<double, std::milli>(marks[i] - marks[i - 1]).count(); };
    std::string steps;
    char cell[32];
    for (std::size_t i = 2; i + 1 < marks.size(); ++i) {
        std::snprintf(cell, sizeof cell, "%s%.3f", steps.empty() ? "" : " ", ms(i));
        steps += cell;
    }
    char row[768];
    std::snprintf(row, sizeof row, "| %s | %d | %s | %s | %s | %s | %.3f | %.3f | %s | %.3f | %.3f | %.3f | %.3f |\n",
                  name.c_str(), level, to_string(options.precision).c_str(), smoother_label(options).c_str(),
                  options.precision == Precision::mixed ? to_string(options.inner).c_str() : "-", host.memory(),
                  report.upload_seconds * 1e3, ms(1), steps.c_str(), ms(marks.size() - 1), report.download_seconds * 1e3,
                  std::chrono::duration<double, std::milli>(marks.back() - marks.front()).count(), fresh_ms);
    return row;
}

}  // namespace

int main(int argc, char** argv) {
    std::string cases = "U1,A2", levels = "8,9,10", configs = "cuda:mixed:adi:digits:2,cuda:double:adi", json_path,
                timeline_path;
    int repeats = 5, coarse_level = SolverOptions{}.coarse_level;
    std::string coarse_solver = to_string(SolverOptions{}.coarse_solver), host_memory = "pinned";
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string key = argv[i], value = argv[i + 1];
        if (key == "--cases") cases = value;
        else if (key == "--levels") levels = value;
        else if (key == "--configs") configs = value;
        else if (key == "--repeats") repeats = std::stoi(value);
        else if (key == "--json") json_path = value;
        else if (key == "--timeline") timeline_path = value;
        else if (key == "--coarse-level") coarse_level = std::stoi(value);
        else if (key == "--coarse-solver") coarse_solver = value;
        else if (key == "--host-memory") host_memory = value;
        else {
            std::fprintf(stderr, "solver_bench: unknown option %s\n", key.c_str());
            return 2;
        }
    }
    if (host_memory != "pinned" && host_memory != "pageable") {
        std::fprintf(stderr, "solver_bench: --host-memory %s: use pinned or pageable\n", host_memory.c_str());
        return 2;
    }
    try {
        std::string why;
        const bool have_gpu = cuda_available(&why);
        std::printf("| case | L | N | backend | host memory | precision | smoother | inner | status | iterations | digits | time ms | "
                    "work units | ms per unknown per digit (x1e6) | L2 error |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        std::string json = "[\n", timeline = "| case | L | precision | smoother | inner | host memory | upload ms | start to step 1 ms | "
                                                 "outer steps 2.. ms | last step to end ms | download ms | total ms | "
                                                 "total ms, fresh x |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
        for (const std::string& name : split(cases, ',')) {
            const CaseSpec spec = builtin_case(name);
            for (const std::string& level_text : split(levels, ',')) {
                const int level = std::stoi(level_text);
                const TensorMesh mesh = spec.mesh(level);
                const PolynomialProblem problem{spec.x.length, spec.y.length};
                const std::vector<double> b = assemble_load(mesh, problem);
                const Hierarchy hierarchy = rediscretized_hierarchy(spec, level, coarse_level);
                const double unit_ms = have_gpu ? work_unit_ms(hierarchy.finest().A) : 0.0;
                for (const std::string& config : split(configs, ',')) {
                    SolverOptions options = parse_config(config);
                    options.coarse_level = coarse_level;
                    options.coarse_solver = parse_coarse_solver(coarse_solver);
                    if (options.backend == BackendKind::cuda && !have_gpu) continue;
                    std::fprintf(stderr, "%s L=%d %s ...\n", name.c_str(), level, config.c_str());
                    Solver solver(options);
                    solver.setup(hierarchy);
                    HostVectors host(b, host_memory == "pinned" && options.backend == BackendKind::cuda);
                    SolveReport report = host.solve(solver);  // warm-up
                    const int runs = options.backend == BackendKind::cpu ? std::max(1, repeats / 2) : repeats;
                    std::vector<double> times;
                    for (int r = 0; r < runs; ++r) {
                        report = host.solve(solver);
                        times.push_back(report.solve_seconds * 1e3);
                    }
                    const double error = relative_l2_error(mesh, problem, host.x());
                    if (!timeline_path.empty()) timeline += timeline_row(solver, host, name, level, options);
                    std::sort(times.begin(), times.end());
                    const double ms = times[times.size() / 2];
                    const double per_digit = ms / (static_cast<double>(mesh.nodes()) * report.digits_gained()) * 1e6;
                    const std::string inner = options.precision == Precision::mixed ? to_string(options.inner) : "-";
                    std::printf("| %s | %d | %lld | %s | %s | %s | %s | %s | %s | %s | %.2f | %.3f | %.1f | %.4f | %.7e |\n",
                                name.c_str(), level, mesh.nodes(), to_string(options.backend).c_str(), host.memory(),
                                to_string(options.precision).c_str(), smoother_label(options).c_str(), inner.c_str(),
                                to_string(report.status).c_str(), report.iterations().c_str(), report.digits_gained(), ms,
                                unit_ms > 0 ? ms / unit_ms : 0.0, per_digit, error);
                    std::fflush(stdout);
                    char row[1024];
                    std::snprintf(row, sizeof row,
                                  "  {\"case\": \"%s\", \"level\": %d, \"unknowns\": %lld, \"backend\": \"%s\", \"host_memory\": \"%s\", \"precision\": \"%s\", "
                                  "\"smoother\": \"%s\", \"inner\": \"%s\", \"status\": \"%s\", \"outer\": %d, \"inner_cycles\": %d, "
                                  "\"pre_smooth\": %d, \"post_smooth\": %d, \"omega\": %.17g, \"digits\": %.4f, \"ms\": %.6f, "
                                  "\"work_unit_ms\": %.6f, \"l2_error\": %.10e},\n",
                                  name.c_str(), level, mesh.nodes(), to_string(options.backend).c_str(), host.memory(),
                                  to_string(options.precision).c_str(), to_string(options.smoother).c_str(), inner.c_str(),
                                  to_string(report.status).c_str(), report.outer_iterations, report.inner_cycles,
                                  options.pre_smooth, options.post_smooth, options.omega, report.digits_gained(), ms,
                                  unit_ms, error);
                    json += row;
                }
            }
        }
        if (!timeline_path.empty()) write_file(timeline_path, timeline);
        if (json.size() > 2) json.erase(json.size() - 2, 1);
        json += "]\n";
        if (!json_path.empty()) {
            write_file(json_path, json);
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "solver_bench: %s\n", e.what());
        return 3;
    }
    return 0;
}
