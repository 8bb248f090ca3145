// Whole solves side by side in one run: backends, precisions, smoothers and inner variants on the
// built-in cases, with the time of one double-precision fine-grid defect (a work unit) measured
// on the same GPU. Prints a Markdown table; --json FILE writes every row.
//
//   solver_bench --cases U1,A2 --levels 8,9,10 --configs cuda:mixed:adi:digits:2,cuda:double:adi
//
// A config is backend:precision:smoother[:inner], e.g. cpu:double:adi or cuda:mixed:adi:cycles:1.
// Times are medians over --repeats solves after one warm-up solve, and include the transfer of
// the right-hand side and the solution (the paper's convention).

#include "gpu_timer.cuh"

#include "../src/cuda/cuda_backend.cuh"

#include <adimg/assembly.hpp>
#include <adimg/case.hpp>
#include <adimg/hierarchy.hpp>
#include <adimg/solver.hpp>

#include <algorithm>
#include <cstdio>
#include <cstring>
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

SolverOptions parse_config(const std::string& text) {
    const std::vector<std::string> parts = split(text, ':');
    if (parts.size() < 3) throw input_error("config '" + text + "': use backend:precision:smoother[:inner], e.g. cuda:mixed:adi:digits:2");
    SolverOptions o;
    o.backend = parse_backend(parts[0]);
    o.precision = parse_precision(parts[1]);
    o.smoother = parse_smoother(parts[2]);
    if (parts.size() >= 5) o.inner = parse_inner_stop(parts[3] + ":" + parts[4]);
    if (o.smoother == Smoother::jacobi && o.precision != Precision::mixed) o.max_iterations = 2000;
    validate(o);
    return o;
}

/// Milliseconds of one double defect b - A x on the finest level, on the GPU.
double work_unit_ms(const NineBands<double>& A) {
    CudaBackend be;
    auto M = be.make_matrix<double>(A);
    auto b = be.make_vector<double>(A.rows()), x = be.make_vector<double>(A.rows()), d = be.make_vector<double>(A.rows());
    be.fill(b, 1.0);
    be.fill(x, 0.5);
    return bench::median_ms(be.stream(), 7, 20, [&] { be.defect(M, b, x, d); });
}

}  // namespace

int main(int argc, char** argv) {
    std::string cases = "U1,A2", levels = "8,9,10", configs = "cuda:mixed:adi:digits:2,cuda:double:adi", json_path;
    int repeats = 5;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string key = argv[i], value = argv[i + 1];
        if (key == "--cases") cases = value;
        else if (key == "--levels") levels = value;
        else if (key == "--configs") configs = value;
        else if (key == "--repeats") repeats = std::stoi(value);
        else if (key == "--json") json_path = value;
        else {
            std::fprintf(stderr, "solver_bench: unknown option %s\n", key.c_str());
            return 2;
        }
    }
    try {
        std::string why;
        const bool have_gpu = cuda_available(&why);
        std::printf("| case | L | N | backend | precision | smoother | inner | status | iterations | digits | time ms | "
                    "work units | ms per unknown per digit (x1e6) | L2 error |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        std::string json = "[\n";
        for (const std::string& name : split(cases, ',')) {
            const CaseSpec spec = builtin_case(name);
            for (const std::string& level_text : split(levels, ',')) {
                const int level = std::stoi(level_text);
                const TensorMesh mesh = spec.mesh(level);
                const PolynomialProblem problem{spec.x.length, spec.y.length};
                const std::vector<double> b = assemble_load(mesh, problem);
                const Hierarchy hierarchy = rediscretized_hierarchy(spec, level, 1);
                const double unit_ms = have_gpu ? work_unit_ms(hierarchy.finest().A) : 0.0;
                for (const std::string& config : split(configs, ',')) {
                    const SolverOptions options = parse_config(config);
                    if (options.backend == BackendKind::cuda && !have_gpu) continue;
                    std::fprintf(stderr, "%s L=%d %s ...\n", name.c_str(), level, config.c_str());
                    Solver solver(options);
                    solver.setup(hierarchy);
                    std::vector<double> x;
                    SolveReport report = solver.solve(b, x);  // warm-up
                    const int runs = options.backend == BackendKind::cpu ? std::max(1, repeats / 2) : repeats;
                    std::vector<double> times;
                    for (int r = 0; r < runs; ++r) {
                        x.clear();
                        report = solver.solve(b, x);
                        times.push_back(report.solve_seconds * 1e3);
                    }
                    std::sort(times.begin(), times.end());
                    const double ms = times[times.size() / 2];
                    const double error = relative_l2_error(mesh, problem, x);
                    const double per_digit = ms / (static_cast<double>(mesh.nodes()) * report.digits_gained()) * 1e6;
                    const std::string inner = options.precision == Precision::mixed ? to_string(options.inner) : "-";
                    std::printf("| %s | %d | %lld | %s | %s | %s | %s | %s | %s | %.2f | %.3f | %.1f | %.4f | %.7e |\n",
                                name.c_str(), level, mesh.nodes(), to_string(options.backend).c_str(),
                                to_string(options.precision).c_str(), to_string(options.smoother).c_str(), inner.c_str(),
                                to_string(report.status).c_str(), report.iterations().c_str(), report.digits_gained(), ms,
                                unit_ms > 0 ? ms / unit_ms : 0.0, per_digit, error);
                    std::fflush(stdout);
                    char row[1024];
                    std::snprintf(row, sizeof row,
                                  "  {\"case\": \"%s\", \"level\": %d, \"unknowns\": %lld, \"backend\": \"%s\", \"precision\": \"%s\", "
                                  "\"smoother\": \"%s\", \"inner\": \"%s\", \"status\": \"%s\", \"outer\": %d, \"inner_cycles\": %d, "
                                  "\"digits\": %.4f, \"ms\": %.6f, \"work_unit_ms\": %.6f, \"l2_error\": %.10e},\n",
                                  name.c_str(), level, mesh.nodes(), to_string(options.backend).c_str(),
                                  to_string(options.precision).c_str(), to_string(options.smoother).c_str(), inner.c_str(),
                                  to_string(report.status).c_str(), report.outer_iterations, report.inner_cycles,
                                  report.digits_gained(), ms, unit_ms, error);
                    json += row;
                }
            }
        }
        if (json.size() > 2) json.erase(json.size() - 2, 1);
        json += "]\n";
        if (!json_path.empty()) {
            FILE* f = std::fopen(json_path.c_str(), "w");
            if (!f) throw input_error("cannot write " + json_path);
            std::fputs(json.c_str(), f);
            std::fclose(f);
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "solver_bench: %s\n", e.what());
        return 3;
    }
    return 0;
}
