#include "fast_direct_solve.hpp"

#include <adimg/distributed_fast_direct.hpp>
#include <adimg/error.hpp>
#include <adimg/io.hpp>

#include "../cli/cli_options.hpp"
#include "../cli/flag_spelling.hpp"

#include <mpi.h>

#include <cstdio>
#include <string>
#include <vector>

namespace adimg::cli {

int solve_fast_direct(const CaseSpec& problem, int level, const SolverOptions& options, int min_refinements,
                      const std::function<std::unique_ptr<DistributedFastDirectSolver>(const FastDirectOptions&)>& start,
                      const boost::program_options::variables_map& given_options, const std::string& out_path,
                      int rank) {
    for (const OptionSpec& spec : option_table())
        if (std::string(spec.flag) != "backend" && std::string(spec.flag) != "digits" && given(given_options, spec.flag))
            throw input_error("--" + std::string(spec.flag) +
                              " has no effect with --solver fast-direct (transforms and line solves in double); drop --" +
                              spec.flag + ", or use --solver multigrid");
    if (given(given_options, "lines"))
        throw input_error("--lines has no effect with --solver fast-direct, whose lines across the ranks are always "
                          "solved by PPT (exact); drop --lines, or use --solver multigrid");
    FastDirectOptions fast;
    fast.backend = options.backend;
    fast.digits = options.digits;
    fast.min_refinements = min_refinements;
    const std::unique_ptr<DistributedFastDirectSolver> started = start(fast);
    DistributedFastDirectSolver& solver = *started;
    solver.setup(problem, level);
    const TensorMesh mesh = problem.mesh(level);
    const RowRange rows = solver.rows();
    // Each rank assembles its rows of the load vector and measures its part of the error where
    // it computes; the solution comes to the host only to be written.
    std::vector<double> x;
    const FastDirectCaseReport solved = solver.solve_case(out_path.empty() ? nullptr : &x);
    const FastDirectReport& report = solved.report;
    const CommunicationCounts sent = solver.communication();  // the solve's, before the gather below
    const std::vector<double> whole = out_path.empty() ? std::vector<double>() : solver.gather(x.data());
    if (rank != 0) return report.ok() ? 0 : 1;

    std::printf("case %s, level %d (%d x %d nodes), %d ranks\n", problem.name.c_str(), level, mesh.mx(), mesh.my(),
                solver.ranks());
    if (!solver.notice().empty()) std::printf("%s\n", solver.notice().c_str());
    std::printf("fast direct solve: %s; backend %s (%s); rank 0 owns rows %d to %d\n", solver.method().c_str(),
                to_string(solver.backend()).c_str(), solver.device_name().c_str(), rows.first,
                rows.first + rows.count - 1);
    std::printf("rank 0 sent per solve: %lld messages (%lld bytes) to neighbours, joined %lld collectives (%lld bytes)\n",
                sent.messages, sent.message_bytes, sent.collectives, sent.collective_bytes);
    const double b_norm = report.initial_defect > 0.0 ? report.initial_defect : 1.0;
    std::printf("defect relative to ||b||: %.1e after the transform, %.1e at the end\n", report.first_defect / b_norm,
                report.final_defect / b_norm);
    std::printf("status %s, refinement steps %d, relative L2 error %.10e, setup %.4f s, solve %.4f s\n",
                to_string(report.status).c_str(), report.refinement_steps, solved.relative_l2_error,
                solver.setup_seconds(), report.solve_seconds);
    if (!report.ok()) std::printf("%s\n", with_flags(report.message).c_str());
    if (report.ok() && !out_path.empty()) {
        write_matrix_market(out_path, whole,
                            "adimg-mpi fast direct solution of " + problem.name + " at level " + std::to_string(level));
        std::printf("wrote the solution to %s\n", out_path.c_str());
    }
    return report.ok() ? 0 : 1;
}

}  // namespace adimg::cli
