// What the exchanges of a distributed solve cost on GPU ranks, measured rather than modelled:
// every kernel of one solve traced by CUPTI (those its CUDA graphs launch too), NCCL's kernels
// (halo sends and receives, all-reductions, all-gathers) apart from the solver's own. A rank's
// stream runs one kernel after another, so an NCCL kernel's duration is what that exchange adds
// to the solve, waiting for the other rank included; the model of docs/performance.md predicts
// it from nccl_latency's operations.
//
//   mpirun -np P exchange_profile CASE LEVEL [STACK]   (one rank a GPU; STACK as adimg-mpi --stack)
//
// A first solve warms up (graphs recorded); the second is traced. Rank 0 prints, per rank and per
// V-cycle (the solve's inner cycles): the solver's kernels, each kind of NCCL kernel (count and
// time), the time with no kernel running, and the solve's wall time.

#include <adimg/distributed.hpp>
#include <adimg/problems.hpp>

#include <cupti.h>
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

struct KernelSpan {
    std::uint64_t start = 0, end = 0;
    std::string name;
};

/// The kernels CUPTI reports while enabled (concurrent-kernel records, graph launches included).
class KernelTrace {
public:
    KernelTrace() {
        check(cuptiActivityRegisterCallbacks(&KernelTrace::give_buffer, &KernelTrace::take_buffer),
              "cuptiActivityRegisterCallbacks");
    }
    void start() {
        spans().clear();
        check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), "cuptiActivityEnable");
    }
    std::vector<KernelSpan> stop() {
        check(cuptiActivityFlushAll(1), "cuptiActivityFlushAll");
        check(cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), "cuptiActivityDisable");
        std::vector<KernelSpan> out = spans();
        std::sort(out.begin(), out.end(), [](const KernelSpan& a, const KernelSpan& b) { return a.start < b.start; });
        return out;
    }

private:
    static void check(CUptiResult status, const char* call) {
        if (status == CUPTI_SUCCESS) return;
        const char* text = nullptr;
        cuptiGetResultString(status, &text);
        throw std::runtime_error(std::string(call) + " failed: " + (text ? text : "unknown CUPTI error") +
                                 " (is libcupti.so.13 on LD_LIBRARY_PATH?)");
    }
    static std::vector<KernelSpan>& spans() {
        static std::vector<KernelSpan> s;
        return s;
    }
    static void CUPTIAPI give_buffer(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
        *size = std::size_t(8) << 20;
        *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(8, *size));
        *max_records = 0;
    }
    static void CUPTIAPI take_buffer(CUcontext, std::uint32_t, std::uint8_t* buffer, std::size_t, std::size_t valid) {
        CUpti_Activity* record = nullptr;
        while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
            if (record->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) continue;
            const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
            spans().push_back({k->start, k->end, k->name ? k->name : "?"});
        }
        std::free(buffer);
    }
};

/// NCCL's kernels by operation ("SendRecv", "AllReduce", "AllGather"), "" for the solver's own.
std::string nccl_operation(const std::string& name) {
    const std::string prefix = "ncclDevKernel_";
    const auto at = name.find(prefix);
    if (at == std::string::npos) return name.find("nccl") != std::string::npos ? "other NCCL" : "";
    const std::string rest = name.substr(at + prefix.size());
    return rest.substr(0, rest.find('_'));
}

/// Nanoseconds covered by the union of the (start-sorted) spans.
std::uint64_t covered(const std::vector<KernelSpan>& spans) {
    std::uint64_t total = 0, reach = 0;
    for (const KernelSpan& s : spans) {
        if (s.end <= reach) continue;
        total += s.end - std::max(s.start, reach);
        reach = s.end;
    }
    return total;
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

}  // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int status = 0;
    try {
        if (argc < 3) throw std::runtime_error("usage: mpirun -np P exchange_profile CASE LEVEL [STACK]");
        const std::string stack = argc > 3 ? argv[3] : "1";
        const auto copies = adimg::parse_sizes(stack.find_first_of("xX") == std::string::npos ? "1x" + stack : stack);
        if (!copies) throw std::runtime_error("STACK '" + stack + "': give P or QxP");
        const adimg::CaseSpec spec = adimg::stacked(adimg::builtin_case(argv[1]), copies->first, copies->second);
        const int level = std::atoi(argv[2]);
        adimg::SolverOptions options;
        options.backend = adimg::BackendKind::cuda;
        adimg::DistributedSolver solver(MPI_COMM_WORLD, options);
        solver.setup(spec, level);
        solver.solve_case();  // warm-up: the graphs recorded
        KernelTrace trace;
        MPI_Barrier(MPI_COMM_WORLD);
        trace.start();
        const adimg::CaseSolveReport solved = solver.solve_case();
        const std::vector<KernelSpan> spans = trace.stop();
        const adimg::SolveReport& r = solved.report;
        const RankProfile mine = profile(spans, r.solve_seconds, r.inner_cycles);
        const adimg::CommunicationCounts sent = solver.communication();

        const int ranks = solver.ranks();
        constexpr int fields = sizeof(RankProfile) / sizeof(double);
        std::vector<RankProfile> all(static_cast<std::size_t>(ranks));
        MPI_Gather(&mine, fields, MPI_DOUBLE, all.data(), fields, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        if (solver.rank() == 0) {
            const double cycles = std::max(r.inner_cycles, 1);
            std::printf("%s at L = %d on %d GPU ranks (%s), %s, %s: %s, %d V-cycles; rank 0 sent %.1f messages and "
                        "joined %.1f collectives a V-cycle\n\n",
                        spec.name.c_str(), level, ranks, solver.device_name().c_str(), solver.transport().c_str(),
                        r.ok() ? "converged" : "not converged", r.iterations().c_str(), r.inner_cycles,
                        static_cast<double>(sent.messages) / cycles, static_cast<double>(sent.collectives) / cycles);
            std::printf("| per V-cycle, us | wall | solver kernels | no kernel running | NCCL kernels");
            for (const char* op : operations) std::printf(" | %s: count, us each", op);
            std::printf(" |\n|---|---|---|---|---|---|---|---|---|\n");
            for (int k = 0; k < ranks; ++k) {
                const RankProfile& p = all[static_cast<std::size_t>(k)];
                std::printf("| rank %d | %.1f | %.1f | %.1f | %.1f", k, p.wall_us, p.solver_us, p.idle_us, p.nccl_us);
                for (int i = 0; i < operation_count; ++i)
                    std::printf(" | %.1f, %.2f", p.count[i], p.count[i] > 0 ? p.us[i] / p.count[i] : 0.0);
                std::printf(" |\n");
            }
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "exchange_profile: %s\n", e.what());
        status = 1;
    }
    MPI_Finalize();
    return status;
}
