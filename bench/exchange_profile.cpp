// What the exchanges of a distributed solve cost on GPU ranks, measured rather than modelled:
// every kernel of one solve traced by CUPTI (those its CUDA graphs launch too), NCCL's kernels
// (halo sends and receives, all-reductions, all-gathers) apart from the solver's own. A rank's
// stream runs one kernel after another, so an NCCL kernel's duration is what that exchange adds
// to the solve, waiting for the other rank included; the model of docs/performance.md predicts
// it from nccl_latency's operations.
//
//   mpirun -np P exchange_profile [--fast-direct] [--first] CASE LEVEL [STACK]
//                              (one rank a GPU; STACK as adimg-mpi --stack)
//
// The default multigrid solve, or with --fast-direct the fast direct solver (one refinement step
// at least). Two solves warm up (graphs recorded) and the third is traced, or with --first the
// process's first solve, what `adimg-mpi solve` times. Rank 0 prints, per
// rank and per V-cycle (the solve's inner cycles; the fast direct solver: per transform solve): the solver's kernels, each kind of NCCL kernel (count and
// time), the time with no kernel running, and the solve's wall time; then rank 0's longest
// stretches with no kernel running, between which kernels.

#include <adimg/distributed.hpp>
#include <adimg/distributed_fast_direct.hpp>
#include <adimg/problems.hpp>

#include "kernel_trace.hpp"

#include <mpi.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using adimg::bench::KernelSpan;
using adimg::bench::KernelTrace;
using adimg::bench::covered;

/// NCCL's kernels by operation ("SendRecv", "AllReduce", "AllGather"), "" for the solver's own.
std::string nccl_operation(const std::string& name) {
    const std::string prefix = "ncclDevKernel_";
    const auto at = name.find(prefix);
    if (at == std::string::npos) return name.find("nccl") != std::string::npos ? "other NCCL" : "";
    // Demangled "ncclDevKernel_SendRecv(...)" or mangled "_Z22ncclDevKernel_SendRecv24ncclDev...":
    // the operation is the letters after the prefix.
    const std::string rest = name.substr(at + prefix.size());
    std::size_t end = 0;
    while (end < rest.size() && std::isalpha(static_cast<unsigned char>(rest[end]))) ++end;
    return rest.substr(0, end);
}

/// One rank's traced solve, per V-cycle: a fixed layout so that rank 0 can gather it as doubles.
constexpr const char* operations[] = {"SendRecv", "AllReduce", "AllGather", "other NCCL"};
constexpr int operation_count = 4;
struct RankProfile {
    double wall_us = 0, solver_us = 0, idle_us = 0, nccl_us = 0;
    double count[operation_count] = {}, us[operation_count] = {};
};

RankProfile profile(const std::vector<KernelSpan>& spans, double wall_seconds, int cycles) {
    RankProfile p;
    const double per = 1e-3 / std::max(cycles, 1);  // ns -> us per V-cycle
    p.wall_us = 1e6 * wall_seconds / std::max(cycles, 1);
    if (spans.empty()) return p;
    std::vector<KernelSpan> solver;
    for (const KernelSpan& s : spans) {
        const std::string op = nccl_operation(s.name);
        if (op.empty()) {
            solver.push_back(s);
            continue;
        }
        const int i = static_cast<int>(std::find(operations, operations + operation_count, op) - operations);
        const int slot = std::min(i, operation_count - 1);
        p.count[slot] += 1.0 / std::max(cycles, 1);
        p.us[slot] += per * static_cast<double>(s.end - s.start);
        p.nccl_us += per * static_cast<double>(s.end - s.start);
    }
    p.solver_us = per * static_cast<double>(covered(solver));
    std::uint64_t last = 0;
    for (const KernelSpan& s : spans) last = std::max(last, s.end);
    p.idle_us = per * static_cast<double>((last - spans.front().start) - covered(spans));
    return p;
}

/// The `count` longest stretches with no kernel running, each with the kernels around it, in
/// microseconds: where the host held the stream (a read, a launch) rather than the GPU.
void print_longest_gaps(const std::vector<KernelSpan>& spans, int count) {
    struct Gap {
        std::uint64_t length;
        std::size_t after;
    };
    std::vector<Gap> gaps;
    std::uint64_t reach = 0;
    for (std::size_t k = 0; k < spans.size(); ++k) {
        if (k > 0 && spans[k].start > reach) gaps.push_back({spans[k].start - reach, k});
        reach = std::max(reach, spans[k].end);
    }
    std::sort(gaps.begin(), gaps.end(), [](const Gap& a, const Gap& b) { return a.length > b.length; });
    std::printf("\nrank 0's %d longest stretches with no kernel running:\n\n| us | after | before |\n|---|---|---|\n", count);
    auto shortened = [](const std::string& name) { return name.substr(0, 90); };
    for (int g = 0; g < std::min<int>(count, static_cast<int>(gaps.size())); ++g)
        std::printf("| %.1f | %s | %s |\n", 1e-3 * static_cast<double>(gaps[g].length),
                    shortened(spans[gaps[g].after - 1].name).c_str(), shortened(spans[gaps[g].after].name).c_str());
}

/// One traced solve by `solve` (after two warm-up solves, or the process's first), which returns
/// its report; its kernels into `spans`.
template <class Solve>
auto traced(Solve&& solve, std::vector<KernelSpan>& spans, bool first) {
    // Warm-up: kernels and libraries loaded, and every recording made (a recording runs directly
    // at its first call and is captured at its second: a solve's full multigrid start, run once a
    // solve, is captured in the second solve). --first traces what a one-solve process waits for.
    if (!first) {
        solve();
        solve();
    }
    KernelTrace trace;
    MPI_Barrier(MPI_COMM_WORLD);
    trace.start();
    auto report = solve();
    spans = trace.stop();
    return report;
}

}  // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int status = 0;
    try {
        std::vector<std::string> args(argv + 1, argv + argc);
        auto flag = [&](const char* name) {
            const auto at = std::find(args.begin(), args.end(), name);
            if (at == args.end()) return false;
            args.erase(at);
            return true;
        };
        const bool fast_direct = flag("--fast-direct"), first = flag("--first");
        if (args.size() < 2)
            throw std::runtime_error("usage: mpirun -np P exchange_profile [--fast-direct] [--first] CASE LEVEL [STACK]");
        const std::string stack = args.size() > 2 ? args[2] : "1";
        const auto copies = adimg::parse_sizes(stack.find_first_of("xX") == std::string::npos ? "1x" + stack : stack);
        if (!copies) throw std::runtime_error("STACK '" + stack + "': give P or QxP");
        const adimg::CaseSpec spec = adimg::stacked(adimg::builtin_case(args[0]), copies->first, copies->second);
        const int level = std::stoi(args[1]);

        // Multigrid: per V-cycle; the fast direct solver: per transform solve (outer iteration).
        std::vector<KernelSpan> spans;
        adimg::SolveReport r;
        adimg::CommunicationCounts sent;
        std::string device, transport;
        int rank = 0, ranks = 1, units = 1;
        if (fast_direct) {
            adimg::FastDirectOptions options;
            options.backend = adimg::BackendKind::cuda;
            options.min_refinements = 1;
            adimg::DistributedFastDirectSolver solver(MPI_COMM_WORLD, options);
            solver.setup(spec, level);
            r = traced([&] { return solver.solve_case().report; }, spans, first);
            sent = solver.communication();
            rank = solver.rank(), ranks = solver.ranks(), units = r.outer_iterations;
            device = solver.device_name(), transport = "fast direct: " + solver.method();
        } else {
            adimg::SolverOptions options;
            options.backend = adimg::BackendKind::cuda;
            // Stacked in x too, the coarsest grid one coarsening further, 33 x 33 as the case's
            // (bench/gpu-scaling's --coarse-level 4 for 2x2).
            if (copies->first > 1) options.coarse_level = 4;
            adimg::DistributedSolver solver(MPI_COMM_WORLD, options);
            solver.setup(spec, level);
            r = traced([&] { return solver.solve_case().report; }, spans, first);
            sent = solver.communication();
            rank = solver.rank(), ranks = solver.ranks(), units = r.inner_cycles;
            device = solver.device_name(), transport = solver.transport();
        }
        const RankProfile mine = profile(spans, r.solve_seconds, units);

        constexpr int fields = sizeof(RankProfile) / sizeof(double);
        std::vector<RankProfile> all(static_cast<std::size_t>(ranks));
        MPI_Gather(&mine, fields, MPI_DOUBLE, all.data(), fields, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        if (rank == 0) {
            const char* unit = fast_direct ? "transform solve" : "V-cycle";
            const double per = std::max(units, 1);
            std::printf("%s at L = %d on %d GPU ranks (%s; %s): %s, %s; rank 0 sent %.1f messages and joined %.1f "
                        "collectives a %s\n\n",
                        spec.name.c_str(), level, ranks, device.c_str(), transport.c_str(),
                        r.ok() ? "converged" : "not converged", r.iterations().c_str(),
                        static_cast<double>(sent.messages) / per, static_cast<double>(sent.collectives) / per, unit);
            std::printf("| per %s, us | wall | solver kernels | no kernel running | NCCL kernels", unit);
            for (const char* op : operations) std::printf(" | %s: count, us each", op);
            std::printf(" |\n|---|---|---|---|---|---|---|---|---|\n");
            for (int k = 0; k < ranks; ++k) {
                const RankProfile& p = all[static_cast<std::size_t>(k)];
                std::printf("| rank %d | %.1f | %.1f | %.1f | %.1f", k, p.wall_us, p.solver_us, p.idle_us, p.nccl_us);
                for (int i = 0; i < operation_count; ++i)
                    std::printf(" | %.1f, %.2f", p.count[i], p.count[i] > 0 ? p.us[i] / p.count[i] : 0.0);
                std::printf(" |\n");
            }
            print_longest_gaps(spans, 12);
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "exchange_profile: %s\n", e.what());
        status = 1;
    }
    MPI_Finalize();
    return status;
}
