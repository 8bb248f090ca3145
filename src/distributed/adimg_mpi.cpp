// adimg-mpi: `mpirun -np P adimg-mpi solve --case A2 --level 9 [options of adimg solve]`, the
// multigrid solve of a case over P MPI ranks (adimg::DistributedSolver), on CPU or GPU ranks as
// --backend cpu|cuda|auto says, or with --solver fast-direct the fast direct solve
// (adimg::DistributedFastDirectSolver, fast_direct_solve.cpp). Every rank assembles and solves
// its strip; rank 0 prints.

#include <adimg/distributed.hpp>
#include <adimg/error.hpp>
#include <adimg/io.hpp>

#include "../cli/cli_options.hpp"
#include "../cli/flag_spelling.hpp"
#include "fast_direct_solve.hpp"

#include <mpi.h>
#include <unistd.h>

#include <cstdio>
#include <new>
#include <iostream>
#include <string>
#include <vector>

namespace {

using namespace adimg;
using namespace adimg::cli;

constexpr const char* usage =
    "usage: mpirun -np P adimg-mpi solve --case A2 --level 9 [--backend auto --smoother adi --lines ppt --precision mixed ...]";

const Choices<DistributedLines> line_methods = {{"ppt", DistributedLines::ppt}, {"pdd", DistributedLines::pdd}};

enum class Method { multigrid, fast_direct };
const Choices<Method> methods = {{"multigrid", Method::multigrid}, {"fast-direct", Method::fast_direct}};

/// A device error that every rank throws alike (only rank 0 prints it).
struct shared_device_error : device_error {
    using device_error::device_error;
};

/// `line` on stderr in one write, so that the lines of ranks failing together do not interleave.
void print_error(const std::string& line) {
    const std::string text = line + "\n";
    [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, text.data(), text.size());
}

/// An error of this rank alone, prefixed with the rank; then the whole job ends with `status`,
/// since the other ranks may be waiting for this one in a collective call.
void abort_job(const std::string& command, int rank, const std::string& error, int status) {
    print_error("adimg-mpi " + command + " (rank " + std::to_string(rank) + "): " + error);
    MPI_Abort(MPI_COMM_WORLD, status);
}

/// Runs `check` on rank 0; an input_error it throws is thrown on every rank, so that all ranks
/// stop together rather than wait for rank 0 in the next collective call.
template <class Check>
void on_rank_0(Check&& check) {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    std::string message;
    if (rank == 0) {
        try {
            check();
        } catch (const input_error& e) {
            message = e.what();
        }
    }
    int length = static_cast<int>(message.size());
    MPI_Bcast(&length, 1, MPI_INT, 0, MPI_COMM_WORLD);
    message.resize(length);
    MPI_Bcast(message.data(), length, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (length > 0) throw input_error(message);
}

/// A missing GPU on some ranks with --backend cuda, said once by rank 0 (every rank throws it,
/// before any work): how many ranks have none, and why for the first of them if it is rank 0.
void require_usable_gpus(const SolverOptions& options) {
    if (options.backend != BackendKind::cuda) return;
    int rank = 0, ranks = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    std::string why;
    const int missing = cuda_available(&why) ? 0 : 1;  // what DistributedSolver asks of each rank
    int missing_ranks = 0, first = 0;
    MPI_Allreduce(&missing, &missing_ranks, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    const int candidate = missing ? rank : ranks;
    MPI_Allreduce(&candidate, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (missing_ranks == 0) return;
    throw shared_device_error("--backend cuda, but " + std::to_string(missing_ranks) + " of " + std::to_string(ranks) +
                              " ranks have no usable GPU (" +
                              (first == rank ? "rank " + std::to_string(rank) + ": " + why
                                             : "the first is rank " + std::to_string(first)) +
                              "); use --backend cpu, or --backend auto to run on CPU ranks when a rank has none");
}

/// The solve of one case; prints on rank 0. Returns 0 if it converged, else 1.
int run_solve(const std::vector<std::string>& args, int rank) {
    ProblemOptions problem_options;
    SolverOptions options;
    DistributedLines lines = DistributedLines::ppt;
    Method method = Method::multigrid;
    bool quiet = false;
    std::string out_path;
    po::options_description desc("solve options");
    add_problem_options(desc, problem_options, 8);
    desc.add_options()
        ("lines", named_choice(lines, "lines", line_methods),
         "the ADI y-lines across the ranks: ppt (exact), or pdd where the line matrices are diagonally dominant enough "
         "for it to be exact in the level's precision (ppt elsewhere)")
        ("solver", named_choice(method, "solver", methods),
         "multigrid, or fast-direct (transforms along x, the lines along y across the ranks by PPT; a case's "
         "separable matrix, CPU ranks)")
        ("out", po::value(&out_path), "rank 0 writes the solution to this Matrix Market file (not if the solve fails)")
        ("quiet,q", po::bool_switch(&quiet),
         "rank 0 prints only the relative L2 error on stdout; a failed solve says why on stderr");
    po::options_description solver_desc("solver options (the fields of adimg::SolverOptions)");
    add_solver_options(solver_desc, options);
    desc.add(solver_desc);
    // Only rank 0 prints the help.
    std::streambuf* const kept = std::cout.rdbuf();
    if (rank != 0) std::cout.rdbuf(nullptr);
    po::variables_map given_options;
    const bool go = parse_command_line(args, desc, usage, &given_options);
    std::cout.rdbuf(kept);
    if (!go) return 0;
    on_rank_0([&] { check_output_paths({out_path}); });  // before the work; rank 0 writes
    const CaseSpec problem = resolve_case(problem_options);
    check_level(problem_options.level, 9 * 4 + 12 * 8, "the distributed solve");
    if (method == Method::fast_direct)
        return solve_fast_direct(problem, problem_options.level, options, given_options, out_path, rank);
    check_given_options(options, given_fields(given_options));  // as adimg solve checks them
    options.coarse_level = std::min(options.coarse_level, problem_options.level);
    require_usable_gpus(options);

    DistributedSolver solver(MPI_COMM_WORLD, options, lines);
    const double setup_start = MPI_Wtime();
    solver.setup(problem, problem_options.level);
    const double setup_seconds = MPI_Wtime() - setup_start;
    const TensorMesh mesh = problem.mesh(problem_options.level);
    const std::vector<double> load = assemble_load(mesh, PolynomialProblem{problem.x.length, problem.y.length});
    const RowRange rows = solver.rows();
    const std::size_t offset = static_cast<std::size_t>(rows.first) * solver.mx();
    std::vector<double> x(static_cast<std::size_t>(rows.count) * solver.mx());
    const SolveReport report = solver.solve(load.data() + offset, x.data());
    const CommunicationCounts sent = solver.communication();  // the solve's, before the gather below
    const std::vector<double> whole = solver.gather(x.data());
    if (rank != 0) return report.ok() ? 0 : 1;

    const double error = relative_l2_error(mesh, PolynomialProblem{problem.x.length, problem.y.length}, whole);
    if (report.ok() && !out_path.empty())
        write_matrix_market(out_path, whole,
                            "adimg-mpi solution of " + problem.name + " at level " + std::to_string(problem_options.level));
    if (quiet) {  // the result alone on stdout, and why a solve failed on stderr
        std::printf("relative L2 error %.10e\n", error);
        if (!report.ok())
            print_error("adimg-mpi solve: status " + to_string(report.status) + ": " + with_flags(report.message));
        return report.ok() ? 0 : 1;
    }
    std::printf("case %s, level %d (%d x %d nodes), %d ranks\n", problem.name.c_str(), problem_options.level, mesh.mx(),
                mesh.my(), solver.ranks());
    if (!solver.notice().empty()) std::printf("%s\n", solver.notice().c_str());
    std::printf("backend %s; y-lines %s\n", solver.device_name().c_str(), name_of(line_methods, lines).c_str());
    for (const LineSolveInfo& l : solver.line_solves())
        std::printf("  level %d %s (%d x %d): y-line dominance %.4g, %d rows per rank, PDD bound %.3g: %s\n", l.level,
                    l.single ? "float " : "double", l.mx, l.my, l.dominance, l.rows_per_rank, l.pdd_bound,
                    l.pdd ? "PDD" : "PPT");
    const double cycles = std::max(report.inner_cycles, 1);
    std::printf("rank 0 sent per V-cycle: %.1f messages (%.0f bytes) to neighbours, joined %.1f collectives "
                "(%.0f bytes)\n",
                sent.messages / cycles, sent.message_bytes / cycles, sent.collectives / cycles,
                sent.collective_bytes / cycles);
    std::printf("status %s, iterations %s, relative L2 error %.10e, setup %.4f s, solve %.4f s\n",
                to_string(report.status).c_str(), report.iterations().c_str(), error, setup_seconds,
                report.solve_seconds);
    if (!report.ok()) std::printf("%s\n", with_flags(report.message).c_str());
    if (report.ok() && !out_path.empty()) std::printf("wrote the solution to %s\n", out_path.c_str());
    return report.ok() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int status = 2;
    const std::string command = argc > 1 ? argv[1] : "";
    try {
        if (command == "solve")
            status = run_solve(std::vector<std::string>(argv + 2, argv + argc), rank);
        else if (rank == 0)
            std::cerr << (command.empty() || command == "--help" ? "" : "adimg-mpi: unknown command '" + command + "'\n")
                      << usage << "\n";
        if (command == "--help") status = 0;
    } catch (const write_error& e) {  // rank 0's output, after the collective work
        print_error("adimg-mpi " + command + ": error: " + e.what());
        status = 3;
    } catch (const input_error& e) {  // every rank has the same options: every rank stops here
        if (rank == 0) print_error("adimg-mpi " + command + ": error: " + with_flags(e.what()));
        status = 2;
    } catch (const shared_device_error& e) {
        if (rank == 0) print_error("adimg-mpi " + command + ": device error: " + with_flags(e.what()));
        status = 3;
    } catch (const device_error& e) {  // a GPU rank's device, possibly on some ranks only
        abort_job(command, rank, "device error: " + with_flags(e.what()), 3);
    } catch (const std::bad_alloc&) {
        abort_job(command, rank,
                  "out of memory: this rank could not allocate the host memory of its strip; use a lower --level, more "
                  "ranks, or fewer ranks on each machine",
                  3);
    } catch (const std::exception& e) {  // possibly on some ranks only: the others would wait forever
        abort_job(command, rank, std::string("internal error: ") + e.what(), 4);
    }
    MPI_Finalize();
    return status;
}
