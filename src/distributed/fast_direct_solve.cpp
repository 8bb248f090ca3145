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

int solve_fast_direct(const CaseSpec& problem, int level, const SolverOptions& options,
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
    if (options.backend == BackendKind::cuda)
        throw input_error("--backend cuda: the distributed fast direct solver runs on CPU ranks; use --backend cpu or "
                          "auto, or --solver multigrid for GPU ranks");
    FastDirectOptions fast;
    fast.backend = BackendKind::cpu;
    fast.digits = options.digits;
    DistributedFastDirectSolver solver(MPI_COMM_WORLD, fast);
    solver.setup(problem, level);
    const TensorMesh mesh = problem.mesh(level);
    const PolynomialProblem polynomial{problem.x.length, problem.y.length};
    const std::vector<double> load = assemble_load(mesh, polynomial);
    const RowRange rows = solver.rows();
    const std::size_t offset = static_cast<std::size_t>(rows.first) * solver.mx();
    std::vector<double> x(static_cast<std::size_t>(rows.count) * solver.mx());
    const FastDirectReport report = solver.solve(load.data() + offset, x.data());
    const CommunicationCounts sent = solver.communication();  // the solve's, before the gather below
    const std::vector<double> whole = solver.gather(x.data());
    if (rank != 0) return report.ok() ? 0 : 1;

    std::printf("case %s, level %d (%d x %d nodes), %d ranks\n", problem.name.c_str(), level, mesh.mx(), mesh.my(),
                solver.ranks());
    if (options.backend == BackendKind::automatic) std::printf("note: the fast direct solve runs on CPU ranks\n");
    std::printf("fast direct solve: %s; rank 0 owns rows %d to %d\n", solver.method().c_str(), rows.first,
                rows.first + rows.count - 1);
    std::printf("rank 0 sent per solve: %lld messages (%lld bytes) to neighbours, joined %lld collectives (%lld bytes)\n",
                sent.messages, sent.message_bytes, sent.collectives, sent.collective_bytes);
    const double b_norm = report.initial_defect > 0.0 ? report.initial_defect : 1.0;
    std::printf("defect relative to ||b||: %.1e after the transform, %.1e at the end\n", report.first_defect / b_norm,
                report.final_defect / b_norm);
    std::printf("status %s, refinement steps %d, relative L2 error %.10e, setup %.4f s, solve %.4f s\n",
                to_string(report.status).c_str(), report.refinement_steps, relative_l2_error(mesh, polynomial, whole),
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
