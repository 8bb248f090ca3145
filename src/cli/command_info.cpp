#include "cli_options.hpp"
#include "commands.hpp"

#include <adimg/problems.hpp>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <limits>

namespace adimg::cli {

int run_info(const std::vector<std::string>& args) {
    ProblemOptions problem;
    po::options_description desc("info options");
    add_problem_options(desc, problem, 10);
    if (!parse_command_line(args, desc, "usage: adimg info --case A2 --level 10")) return 0;
    resolve_level(problem);
    const CaseSpec spec = resolve_case(problem);
    check_level(spec, problem.level, 9 * sizeof(double) + 64, "assembling the matrix");
    const TensorMesh mesh = spec.mesh(problem.level);
    const NineBands<double> A = assemble_stiffness(mesh);

    double smallest = std::numeric_limits<double>::infinity(), largest = 0.0;
    double min_entry = smallest, max_entry = -smallest;
    long long non_finite = 0;
    for (double a : A.values) {
        if (!std::isfinite(a)) {
            ++non_finite;
            continue;
        }
        if (a != 0.0) {
            smallest = std::min(smallest, std::abs(a));
            largest = std::max(largest, std::abs(a));
        }
        min_entry = std::min(min_entry, a);
        max_entry = std::max(max_entry, a);
    }
    std::printf("case      %s: %s\n", spec.name.c_str(), spec.description.c_str());
    std::printf("level     %d\n", problem.level);
    std::printf("grid      %d x %d nodes, N = %lld\n", mesh.mx(), mesh.my(), mesh.nodes());
    std::printf("domain    [0, %g] x [0, %g]\n", spec.x.length, spec.y.length);
    std::printf("h_min     %.3e\n", mesh.smallest_width());
    std::printf("AR_max    %.3e\n", mesh.largest_aspect_ratio());
    std::printf("entries   most negative %.6e, most positive %.6e\n", min_entry, max_entry);
    std::printf("|entries| smallest non-zero %.6e, largest %.6e (span %.1f orders)\n", smallest, largest,
                std::log10(largest / smallest));
    std::printf("finite    %s\n", non_finite == 0 ? "all entries" : (std::to_string(non_finite) + " entries are NOT finite").c_str());
    return non_finite == 0 ? 0 : 1;
}

}  // namespace adimg::cli
