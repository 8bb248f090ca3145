// adimg-mpi: `mpirun -np P adimg-mpi solve --case A2 --level 9 [options of adimg solve]`, the
// CLI's solve command (src/cli/command_solve.cpp: its options, checks, report and --json) run
// over P MPI ranks: the multigrid solve by adimg::DistributedSolver on CPU or GPU ranks as
// --backend says, or with --solver fast-direct the fast direct solve
// (adimg::DistributedFastDirectSolver, fast_direct_solve.cpp). Each rank assembles and solves its
// strip of rows; rank 0 prints, and writes the files.

#include <adimg/distributed.hpp>
#include <adimg/distributed_fast_direct.hpp>
#include <adimg/error.hpp>
#include <adimg/io.hpp>

#include "../cli/flag_spelling.hpp"
#include "../cli/solve_front_end.hpp"
#include "../cli/solve_problem.hpp"
#include "../cli/tables.hpp"
#include "fast_direct_solve.hpp"

#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <iostream>
#include <memory>
#include <new>
#include <string>
#include <vector>

namespace {

using namespace adimg;
using namespace adimg::cli;

constexpr const char* usage =
    "usage: mpirun -np P adimg-mpi solve --case A2 --level 9 [--backend auto --smoother adi --lines ppt --precision mixed ...]"
    "\n       mpirun -np P adimg-mpi solve --case A2 --level 9 --stack P   (P times the grid: weak scaling)";

const Choices<DistributedLines> line_methods = {{"ppt", DistributedLines::ppt}, {"pdd", DistributedLines::pdd}};

/// A device error that every rank throws alike (only rank 0 prints it).
struct shared_device_error : device_error {
    using device_error::device_error;
};

int world_rank() {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank;
}

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
void on_rank_0(const std::function<void()>& check) {
    std::string message;
    if (world_rank() == 0) {
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

/// A solver (DistributedSolver or DistributedFastDirectSolver), made on every rank. Its
/// constructor is the collective check that every rank has the GPU that --backend cuda asks for,
/// and throws device_error on every rank alike: that is a shared_device_error, which rank 0 alone
/// prints. A rank that failed alone ends the job.
template <class Solver, class... Options>
std::unique_ptr<Solver> started_solver(const Options&... options) {
    std::unique_ptr<Solver> solver;
    std::string error;
    try {
        solver = std::make_unique<Solver>(MPI_COMM_WORLD, options...);
    } catch (const device_error& e) {
        error = e.what();
    }
    const int failed = error.empty() ? 0 : 1;
    int everywhere = 0;
    MPI_Allreduce(&failed, &everywhere, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (everywhere) throw shared_device_error(error);
    if (failed) throw device_error(error);
    return solver;
}

/// This rank's rows of the finest grid gathered on rank 0 in rank order, which is row order: the
/// whole solution there, to be written; nothing on the other ranks.
std::vector<double> gather_on_rank_0(const std::vector<double>& mine) {
    int ranks = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    const bool root = world_rank() == 0;
    const int count = static_cast<int>(mine.size());
    std::vector<int> counts(root ? ranks : 0), offsets(counts.size());
    MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    int total = 0;
    for (std::size_t r = 0; r < counts.size(); total += counts[r++]) offsets[r] = total;
    std::vector<double> whole(total);
    MPI_Gatherv(mine.data(), count, MPI_DOUBLE, whole.data(), counts.data(), offsets.data(), MPI_DOUBLE, 0,
                MPI_COMM_WORLD);
    return whole;
}

/// adimg::DistributedSolver as the CLI's MultigridExecutor. What the report reads over all ranks
/// (the levels' memory, the setup time, the messages) is reduced in setup() and the solves, which
/// every rank calls, so that rank 0 alone may read it.
class DistributedExecutor final : public MultigridExecutor {
public:
    DistributedExecutor(const SolverOptions& options, DistributedLines lines)
        : solver_(started_solver<DistributedSolver>(options, lines)), options_(options), lines_(lines) {
        options_.backend = solver_->backend();  // what runs, as the report and --json say it
    }

    void setup(const CaseSpec& spec, int level) override {
        timed_setup([&] { solver_->setup(spec, level); });
    }
    void setup(const GridMatrix& A) override {
        timed_setup([&] { solver_->setup(A); });
    }
    /// Each rank assembles its rows of the load vector and its part of the error; the solution
    /// comes to rank 0 only if it is asked for.
    CaseSolveReport solve_case(std::vector<double>* x, const StepCallback& on_step) override {
        std::vector<double> mine;
        const CaseSolveReport solved = solver_->solve_case(x ? &mine : nullptr, on_step);
        count_messages();
        if (x) *x = gather_on_rank_0(mine);
        return solved;
    }
    /// Each rank solves its rows of b; x, gathered on every rank, is the whole solution (a
    /// matrix's accuracy is measured on it).
    SolveReport solve(const std::vector<double>& b, std::vector<double>& x, const StepCallback& on_step) override {
        const RowRange rows = solver_->rows();
        std::vector<double> mine(static_cast<std::size_t>(rows.count) * solver_->mx());
        const SolveReport report = solver_->solve(b.data() + static_cast<std::size_t>(rows.first) * solver_->mx(),
                                                  mine.data(), InitialGuess::zero, on_step);
        count_messages();
        x = solver_->gather(mine.data());
        return report;
    }

    const SolverOptions& options() const override { return options_; }
    std::string notice() const override { return solver_->notice(); }
    std::string device_name() const override { return solver_->device_name(); }
    std::vector<LevelInfo> levels() const override { return levels_; }
    double setup_seconds() const override { return setup_seconds_; }
    std::optional<SetupTimes> setup_times() const override { return std::nullopt; }

    void print_run(std::FILE* out, const SolveReport& report) const override {
        std::fprintf(out, "ranks %d; transport %s; y-lines %s\n", solver_->ranks(), solver_->transport().c_str(),
                     name_of(line_methods, lines_).c_str());
        for (const LineSolveInfo& l : solver_->line_solves())
            std::fprintf(out, "  level %d %s (%d x %d): y-line dominance %.4g, %d rows per rank, PDD bound %.3g: %s\n",
                         l.level, l.single ? "float " : "double", l.mx, l.my, l.dominance, l.rows_per_rank, l.pdd_bound,
                         l.pdd ? "PDD" : "PPT");
        const double cycles = std::max(report.inner_cycles, 1);
        std::fprintf(out,
                     "per V-cycle, the most a rank sent: %.1f messages (%.0f bytes) to neighbours, %.1f collectives "
                     "(%.0f bytes)\nmemory of the fullest rank %s\n",
                     sent_.messages / cycles, sent_.message_bytes / cycles, sent_.collectives / cycles,
                     sent_.collective_bytes / cycles, format_bytes(static_cast<double>(fullest_rank_bytes_)).c_str());
    }

    void write_run(JsonWriter& json, const SolveReport& report) const override {
        const double cycles = std::max(report.inner_cycles, 1);
        json.begin_object("distributed")
            .value("ranks", solver_->ranks())
            .value("transport", solver_->transport())
            .value("lines", name_of(line_methods, lines_))
            .value("fullest_rank_bytes", fullest_rank_bytes_);
        json.begin_object("per_cycle_most_of_a_rank")
            .value("messages", sent_.messages / cycles)
            .value("message_bytes", sent_.message_bytes / cycles)
            .value("collectives", sent_.collectives / cycles)
            .value("collective_bytes", sent_.collective_bytes / cycles)
            .end_object();
        json.begin_array("line_solves");
        for (const LineSolveInfo& l : solver_->line_solves())
            json.begin_object().value("level", l.level).value("single", l.single).value("mx", l.mx).value("my", l.my)
                .value("dominance", l.dominance).value("rows_per_rank", l.rows_per_rank).value("pdd_bound", l.pdd_bound)
                .value("pdd", l.pdd).end_object();
        json.end_array().end_object();
    }

private:
    /// The setup, timed on every rank (the slowest counts); then each level's memory summed over
    /// the ranks, and the fullest rank's.
    template <class Setup>
    void timed_setup(Setup&& setup) {
        const double start = MPI_Wtime();
        setup();
        const double seconds = MPI_Wtime() - start;
        MPI_Allreduce(&seconds, &setup_seconds_, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        levels_ = solver_->levels();
        std::vector<long long> bytes;
        long long mine = 0;
        for (const LevelInfo& l : levels_) mine += l.bytes, bytes.push_back(l.bytes);
        MPI_Allreduce(MPI_IN_PLACE, bytes.data(), static_cast<int>(bytes.size()), MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
        MPI_Allreduce(&mine, &fullest_rank_bytes_, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
        for (std::size_t l = 0; l < levels_.size(); ++l) levels_[l].bytes = bytes[l];
    }

    /// The last solve's messages: of each kind, the most that a rank sent.
    void count_messages() {
        const CommunicationCounts c = solver_->communication();
        long long mine[4] = {c.messages, c.message_bytes, c.collectives, c.collective_bytes}, most[4] = {};
        MPI_Allreduce(mine, most, 4, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
        sent_ = {most[0], most[1], most[2], most[3]};
    }

    std::unique_ptr<DistributedSolver> solver_;
    SolverOptions options_;
    DistributedLines lines_;
    std::vector<LevelInfo> levels_;  ///< each level's memory over all ranks
    double setup_seconds_ = 0.0;
    long long fullest_rank_bytes_ = 0;
    CommunicationCounts sent_;
};

/// `adimg-mpi solve`: every rank runs the command; rank 0 prints and writes.
class DistributedFrontEnd final : public SolveFrontEnd {
public:
    std::string command() const override { return "adimg-mpi solve"; }
    std::string usage() const override { return ::usage; }
    void add_options(po::options_description& desc) override {
        desc.add_options()("lines", named_choice(lines_, "lines", line_methods),
                           "the ADI y-lines across the ranks: ppt (exact), or pdd where the line matrices are "
                           "diagonally dominant enough for it to be exact in the level's precision (ppt elsewhere)");
    }
    void refuse(Method method, const po::variables_map& vm) const override {
        if (method == Method::direct)
            throw input_error("--solver direct factors the whole matrix in one process; solve with adimg solve "
                              "--solver direct, or use --solver multigrid or fast-direct over the ranks");
        if (method != Method::fast_direct) return;
        for (const char* flag : {"json", "quiet", "write-failed"})
            if (given(vm, flag))
                throw input_error(std::string("--") + flag + " is not taken by adimg-mpi's fast direct solve, which "
                                  "prints a report of its own; drop --" + flag + ", or use --solver multigrid");
    }
    bool reports() const override { return world_rank() == 0; }
    void check_outputs(const std::function<void()>& check) const override { on_rank_0(check); }
    std::unique_ptr<MultigridExecutor> multigrid(const SolverOptions& options) const override {
        return std::make_unique<DistributedExecutor>(options, lines_);
    }
    std::optional<int> fast_direct(const ProblemOptions& problem, const SolverOptions& options,
                                   const po::variables_map& vm, const std::string& out_path) const override {
        const CaseSpec spec = resolve_case(problem);
        check_case_size(spec, problem.level, false);
        auto start = [](const FastDirectOptions& fast) { return started_solver<DistributedFastDirectSolver>(fast); };
        return solve_fast_direct(spec, problem.level, options, vm["min-refinements"].as<int>(), start, vm, out_path,
                                 world_rank());
    }

private:
    DistributedLines lines_ = DistributedLines::ppt;
};

}  // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    const int rank = world_rank();
    int status = 2;
    const std::string command = argc > 1 ? argv[1] : "";
    try {
        if (command == "solve") {
            DistributedFrontEnd front;
            status = run_solve(std::vector<std::string>(argv + 2, argv + argc), front);
        } else if (rank == 0) {
            std::cerr << (command.empty() || command == "--help" ? "" : "adimg-mpi: unknown command '" + command + "'\n")
                      << usage << "\n";
        }
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
