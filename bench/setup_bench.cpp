// Setup against solve for a user's matrix through the library, as an application sees it: the
// nine bands of a case's finest matrix handed over on the host (GridMatrix), the first setup
// (the Galerkin levels formed where the solve runs), solves, and a values-only re-setup with new
// values on the same grid, which must allocate nothing.
//
//     setup_bench [--cases A2,U1,A5] [--level 12] [--backend auto|cpu|cuda] [--solves 3]
//
// One markdown row per case: the backend start (context) apart, a Solver made once the context
// exists, the hand-over (the bands moved
// into a GridMatrix, whose checks run on the host), the first setup, the median solve
// (b and x travel from and to ordinary host memory, as std::vector), the re-setup, their ratios,
// and whether the re-setup allocated.

#include <adimg/problems.hpp>
#include <adimg/solver.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

using namespace adimg;

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::vector<std::string> split(const std::string& text) {
    std::vector<std::string> out;
    std::stringstream in(text);
    for (std::string item; std::getline(in, item, ',');) out.push_back(item);
    return out;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::string> cases = {"U1", "A2", "A5"};
    int level = 12, solves = 3;
    SolverOptions options;
    for (int a = 1; a < argc; ++a) {
        const std::string arg = argv[a];
        const char* value = a + 1 < argc ? argv[a + 1] : nullptr;
        if (arg == "--cases" && value) {
            cases = split(value);
            ++a;
        } else if (arg == "--level" && value) {
            level = std::atoi(value);
            ++a;
        } else if (arg == "--backend" && value) {
            options.backend = parse_backend(value);
            ++a;
        } else if (arg == "--solves" && value) {
            solves = std::max(1, std::atoi(value));
            ++a;
        } else {
            std::fprintf(stderr, "usage: setup_bench [--cases A2,U1,A5] [--level 12] [--backend auto|cpu|cuda] [--solves 3]\n");
            return 2;
        }
    }
    // The first Solver starts the backend (the CUDA context); each case gets a Solver of its own,
    // so that its first setup allocates.
    const auto context_start = std::chrono::steady_clock::now();
    std::string device = Solver(options).device_name();
    const double context = seconds_since(context_start);
    std::printf("# setup_bench: %s, level %d, %s\n\n", device.c_str(), level, to_string(options.precision).c_str());
    std::printf("backend start (context): %.4f s\n\n", context);
    std::printf("| case | L | unknowns | Solver() s | GridMatrix s | first setup s | solve s (median of %d) | setup / solve | (GridMatrix + setup) "
                "/ solve | re-setup s | re-setup / solve | allocations | status | relative defect drop |\n"
                "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
                solves);
    int failures = 0;
    for (const std::string& name : cases) {
        const CaseSpec spec = builtin_case(name);
        const TensorMesh mesh = spec.mesh(level);
        NineBands<double> bands = assemble_stiffness(mesh);
        // The hand-over: the user's bands moved into a GridMatrix, whose checks run on the host.
        auto start = std::chrono::steady_clock::now();
        const GridMatrix A(Grid::from_mesh(mesh), std::move(bands));
        const double handover = seconds_since(start);
        const std::vector<double> b = assemble_load(mesh, PolynomialProblem{spec.x.length, spec.y.length});
        std::fprintf(stderr, "%s: first setup ...\n", name.c_str());
        start = std::chrono::steady_clock::now();
        Solver solver(options);
        const double made = seconds_since(start);
        start = std::chrono::steady_clock::now();
        solver.setup(A);
        const double first = seconds_since(start);
        std::vector<double> times;
        SolveReport report;
        for (int s = 0; s < solves; ++s) {
            std::vector<double> x;
            report = solver.solve(b, x);
            times.push_back(report.solve_seconds);
        }
        const double solve = median(times);
        // New values on the same grid: the matrix scaled by 2 (as a new time step would change it).
        NineBands<double> scaled = A.bands();
        for (double& v : scaled.values) v *= 2.0;
        const GridMatrix A2(A.grid(), std::move(scaled));
        const int allocations = solver.allocation_count();
        start = std::chrono::steady_clock::now();
        solver.setup(A2);
        const double again = seconds_since(start);
        std::vector<double> x;
        const SolveReport after = solver.solve(b, x);
        const bool allocated = solver.allocation_count() != allocations;
        if (!report.ok() || !after.ok() || allocated) ++failures;
        std::printf("| %s | %d | %zu | %.4f | %.4f | %.4f | %.4f | %.2f | %.2f | %.4f | %.2f | %s | %s | %.2f digits |\n",
                    name.c_str(), level, b.size(), made, handover, first, solve, first / solve, (handover + first) / solve, again,
                    again / solve,
                    allocated ? "the re-setup allocated" : "none in the re-setup", to_string(after.status).c_str(),
                    after.digits_gained());
        std::fflush(stdout);
    }
    return failures == 0 ? 0 : 1;
}
